package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.bootstrap.config.InvalidConfigurationException;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * Binds what every part of the sidecar shares: the configuration and the settings derived from it, the database
 * pool, the wall clock, id generation and the access policy chosen by {@code BUZZ_ACCESS_POLICY}.
 */
public final class SidecarModule extends AbstractModule {

    private final SidecarConfig config;
    private final DataSource dataSource;
    private final DatabaseUrl databaseUrl;

    /**
     * @param config      the validated configuration
     * @param dataSource  the open pool (owned and closed by the caller)
     * @param databaseUrl where the pool connects, for components that need their own connection (LISTEN)
     */
    public SidecarModule(SidecarConfig config, DataSource dataSource, DatabaseUrl databaseUrl) {
        if (config == null || dataSource == null || databaseUrl == null) {
            throw new IllegalArgumentException("the sidecar module needs a configuration, a data source and its URL");
        }
        this.config = config;
        this.dataSource = dataSource;
        this.databaseUrl = databaseUrl;
    }

    @Override
    protected void configure() {
        bind(SidecarConfig.class).toInstance(config);
        bind(DataSource.class).toInstance(dataSource);
        bind(DatabaseUrl.class).toInstance(databaseUrl);
        bind(WallClock.class).to(SystemWallClock.class).in(Singleton.class);
        bind(ScheduleIdSource.class).to(RandomScheduleIds.class).in(Singleton.class);
    }

    @Provides
    @Singleton
    SchedulingSettings schedulingSettings() {
        return config.schedulingSettings();
    }

    @Provides
    @Singleton
    DeliverySettings deliverySettings() {
        return config.deliverySettings(() -> ThreadLocalRandom.current().nextDouble());
    }

    @Provides
    @Singleton
    AccessPolicy accessPolicy() {
        return accessPolicy(config);
    }

    /**
     * The access policy {@code BUZZ_ACCESS_POLICY} names.
     *
     * @throws InvalidConfigurationException for a policy this build does not have yet (nip29, http)
     */
    static AccessPolicy accessPolicy(SidecarConfig config) {
        return switch (config.access().policy()) {
            case RELAY -> new RelayDecidesAccess();
            case NIP29, HTTP -> throw new InvalidConfigurationException(SidecarConfig.BUZZ_ACCESS_POLICY,
                    SidecarConfig.BUZZ_ACCESS_POLICY + "=" + config.access().policy().wireName()
                            + " is not available in this build yet; use relay");
        };
    }
}
