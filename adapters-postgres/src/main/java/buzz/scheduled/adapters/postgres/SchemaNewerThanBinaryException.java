package buzz.scheduled.adapters.postgres;

/**
 * The database was migrated by a newer build than this one; starting would let old code write rows the
 * newer schema and code do not expect. Thrown by {@link SchemaMigrator} before anything is changed.
 */
public final class SchemaNewerThanBinaryException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String databaseVersion;
    private final String binaryVersion;

    /**
     * @param databaseVersion newest migration version applied to the database
     * @param binaryVersion   newest migration version this build ships
     */
    public SchemaNewerThanBinaryException(String databaseVersion, String binaryVersion) {
        super("database schema is at version " + databaseVersion + " but this build only knows migrations up to version "
                + binaryVersion + "; refusing to start. Deploy a build that ships migration " + databaseVersion
                + " (or newer), or point DATABASE_URL at a database migrated by this build.");
        this.databaseVersion = databaseVersion;
        this.binaryVersion = binaryVersion;
    }

    /** Newest migration version applied to the database. */
    public String databaseVersion() {
        return databaseVersion;
    }

    /** Newest migration version this build ships. */
    public String binaryVersion() {
        return binaryVersion;
    }
}
