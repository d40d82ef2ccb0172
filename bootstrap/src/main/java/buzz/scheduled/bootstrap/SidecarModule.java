package buzz.scheduled.bootstrap;

import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RetentionSettings;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.database.DatabaseUrls;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * Binds what every part of the sidecar shares: the configuration and the settings derived from it (scheduling,
 * delivery, retention), the database pool, the wall clock and id generation. The access policy is
 * {@link AccessModule}'s.
 */
public final class SidecarModule extends AbstractModule {

    private final SidecarConfig config;
    private final DataSource dataSource;
    private final DatabaseUrls databaseUrls;

    /**
     * @param config       the validated configuration
     * @param dataSource   the open pool (owned and closed by the caller)
     * @param databaseUrls where the pool connects, and where components needing a session of their own (LISTEN)
     *                     connect
     */
    public SidecarModule(SidecarConfig config, DataSource dataSource, DatabaseUrls databaseUrls) {
        if (config == null || dataSource == null || databaseUrls == null) {
            throw new IllegalArgumentException("the sidecar module needs a configuration, a data source and its URLs");
        }
        this.config = config;
        this.dataSource = dataSource;
        this.databaseUrls = databaseUrls;
    }

    @Override
    protected void configure() {
        bind(SidecarConfig.class).toInstance(config);
        bind(DataSource.class).toInstance(dataSource);
        bind(DatabaseUrls.class).toInstance(databaseUrls);
        bind(WallClock.class).to(SystemWallClock.class).in(Singleton.class);
        bind(ScheduleIdSource.class).to(RandomScheduleIds.class).in(Singleton.class);
    }

    @Provides
    @Singleton
    SchedulingSettings schedulingSettings() {
        return config.schedulingSettings();
    }

    /** The per-owner write rate: token buckets in this node's memory (docs/scheduled-messages.md §4). */
    @Provides
    @Singleton
    OwnerWriteLimiter ownerWrites() {
        return new OwnerWriteBuckets(config.ownerLimits().writesPerMinute(), config.ownerLimits().writeBurst(),
                OwnerWriteBuckets.DEFAULT_MAX_OWNERS);
    }

    @Provides
    @Singleton
    DeliverySettings deliverySettings() {
        return config.deliverySettings(() -> ThreadLocalRandom.current().nextDouble());
    }

    @Provides
    @Singleton
    RetentionSettings retentionSettings() {
        return config.retentionSettings();
    }
}
