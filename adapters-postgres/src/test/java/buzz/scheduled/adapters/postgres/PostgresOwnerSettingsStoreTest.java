package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.OwnerSettingsStore;
import buzz.scheduled.application.port.out.OwnerSettingsStoreContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The settings store contract against PostgreSQL. */
class PostgresOwnerSettingsStoreTest extends OwnerSettingsStoreContract {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected OwnerSettingsStore emptyStore() {
        db.truncateAllTables();
        return new PostgresOwnerSettingsStore(db.dataSource());
    }
}
