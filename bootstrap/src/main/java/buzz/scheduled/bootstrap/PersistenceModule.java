package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.postgres.PostgresScheduleStore;
import buzz.scheduled.application.port.out.ScheduleStore;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import javax.sql.DataSource;

/** Binds the storage port to the PostgreSQL adapter (jOOQ over the shared pool). */
public final class PersistenceModule extends AbstractModule {

    @Provides
    @Singleton
    ScheduleStore scheduleStore(DataSource dataSource) {
        return new PostgresScheduleStore(dataSource);
    }
}
