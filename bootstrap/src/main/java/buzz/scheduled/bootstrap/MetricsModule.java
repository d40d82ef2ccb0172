package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.ServerIdentity;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.nip29.GroupFeed;
import buzz.scheduled.application.port.in.QueueStatsUseCase.Links;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.LinkStatus;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.config.SidecarConfig.AccessPolicyChoice;
import buzz.scheduled.bootstrap.metrics.DeliveryOutcomes;
import buzz.scheduled.bootstrap.metrics.SidecarMeters;
import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;

/**
 * Binds what the operator sees: the one Micrometer registry (JVM, process, build info), the delivery observer
 * (lateness histogram, outcome counters, the outcome log line) and the connections' status (relay,
 * LISTEN, NIP-29 feed). The queue gauges, the dispatcher's counters and HikariCP's tracker are added by
 * {@link Sidecar} once the parts exist.
 */
public final class MetricsModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(MeterRegistry.class).to(PrometheusMeterRegistry.class);
    }

    @Provides
    @Singleton
    PrometheusMeterRegistry registry() {
        return SidecarMeters.create(ServerIdentity.buildVersion());
    }

    @Provides
    @Singleton
    DeliveryObserver deliveryObserver(MeterRegistry registry) {
        return new DeliveryOutcomes(registry);
    }

    @Provides
    @Singleton
    LinkStatus linkStatus(SidecarConfig config, RelayClient relay, PostgresDueWorkSignal listener, Injector injector) {
        Optional<GroupFeed> feed = config.access().policy() == AccessPolicyChoice.NIP29
                ? Optional.of(injector.getInstance(GroupFeed.class)) : Optional.empty();
        return () -> new Links(relay.isConnected(), listener.listening(), feed.map(GroupFeed::inSync));
    }
}
