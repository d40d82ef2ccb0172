-- Stands in for a migration shipped by a newer build (SchemaMigratorTest): not part of this build.
CREATE TABLE newer_build_marker (id integer PRIMARY KEY);
