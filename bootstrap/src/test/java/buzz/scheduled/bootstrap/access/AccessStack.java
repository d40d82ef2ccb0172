package buzz.scheduled.bootstrap.access;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.http.HttpSettings;
import buzz.scheduled.adapters.http.OperatorAccess;
import buzz.scheduled.adapters.http.OperatorUseCases;
import buzz.scheduled.adapters.http.OwnerUseCases;
import buzz.scheduled.adapters.http.ReadinessCheck;
import buzz.scheduled.adapters.postgres.PostgresChannelAdministration;
import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.nip29.GroupFeed;
import buzz.scheduled.adapters.relay.nip29.Nip29AccessPolicy;
import buzz.scheduled.adapters.relay.nip29.Nip29Settings;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.application.service.ReservationsService;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.bootstrap.delivery.DeliveryNode;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The sidecar assembled from its real parts for access and deletion tests: PostgreSQL store and channel
 * administration, the owner, deletion and reservation services, the real HTTP API (NIP-98 with BIP-340, operator
 * routes), and the delivery half of a {@link DeliveryNode} (relay client, LISTEN wake-ups, dispatcher), with either
 * the {@code relay} or the {@code nip29} access policy (the NIP-29 group feed on its own relay connection).
 */
final class AccessStack implements AutoCloseable {
    private static final buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus DATABASE_UP =
            new buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus(
                    buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health.UP, Optional.empty(),
                    Instant.EPOCH, Optional.empty());
    /** The public base URL NIP-98 {@code u} tags are checked against. */
    static final URI BASE = URI.create("http://sidecar.test");
    /** The operator's key (RELAY_OPERATOR_PUBKEYS). */
    static final SecretKey OPERATOR = new SecretKey("0b".repeat(32));

    /** Which access policy ({@code BUZZ_ACCESS_POLICY}). */
    enum Policy { RELAY, NIP29 }

    final PostgresOwnerMessages store;
    final PostgresChannelAdministration administration;
    final SignedClient client;
    final Optional<GroupFeed> feed;
    private final DeliveryNode delivery;
    private final HttpApi api;

    private AccessStack(PostgresChannelAdministration administration, SignedClient client, Optional<GroupFeed> feed,
                        DeliveryNode delivery, HttpApi api) {
        this.store = delivery.store;
        this.administration = administration;
        this.client = client;
        this.feed = feed;
        this.delivery = delivery;
        this.api = api;
    }

    /**
     * Starts everything against {@code relayUrl} and the database behind {@code pool}.
     *
     * @param relayPubkey the relay's key for the nip29 policy (empty: read it from NIP-11)
     * @param maxLateness {@code BUZZ_MAX_LATENESS_SECONDS}
     */
    static AccessStack start(DataSource pool, String jdbcUrl, URI relayUrl, Policy policy,
                             Optional<PublicKey> relayPubkey, Duration maxLateness) {
        PostgresChannelAdministration administration = new PostgresChannelAdministration(pool);
        DeletionService deletion = new DeletionService(administration);
        Bip340EventSignatures signatures = new Bip340EventSignatures();
        RelaySettings relaySettings = new RelaySettings(relayUrl, Duration.ofSeconds(2), Duration.ofMillis(100),
                Duration.ofMillis(500));
        Optional<GroupFeed> feed = Optional.empty();
        AccessPolicy access = new RelayDecidesAccess();
        if (policy == Policy.NIP29) {
            GroupFeed groups = new GroupFeed(new Nip29Settings(relaySettings, relayPubkey, Duration.ofSeconds(1)),
                    signatures, deletion, deletion, Optional.empty(), Instant::now);
            groups.start();
            feed = Optional.of(groups);
            access = new Nip29AccessPolicy(groups);
        }
        DeliverySettings deliverySettings = new DeliverySettings(Duration.ofSeconds(6), Duration.ofSeconds(2),
                Duration.ofMillis(500), Duration.ofMillis(500), maxLateness,
                new Backoff(Duration.ofMillis(500), Duration.ofSeconds(1), Math::random));
        DeliveryNode delivery = DeliveryNode.on(pool, jdbcUrl, relaySettings).named("access").access(access)
                .settings(new DispatcherSettings(deliverySettings, 8, 8, DispatcherSettings.MIN_QUEUED_BYTES,
                        Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofMillis(200)))
                .start();
        OwnerMessagesService owners = new OwnerMessagesService(delivery.store, delivery.store, delivery.store,
                signatures, access,
                () -> new ScheduleId(UUID.randomUUID()), Instant::now, DueWorkNotice.NONE, new SchedulingSettings(
                new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                        Duration.ofDays(120)),
                new CreateLimits(100, 30, Duration.ofMinutes(5)), Duration.ofSeconds(900)));
        HttpApi api = new HttpApi(OwnerUseCases.of(owners),
                OperatorAccess.of(Set.of(OPERATOR.publicKey()),
                        OperatorUseCases.of(new ReservationsService(administration), deletion)),
                new AuthenticateRequestService(signatures, Instant::now), () -> new ReadinessCheck.Readiness.Ready(),
                HttpSettings.of(true, BASE, Duration.ofDays(120), AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, 100));
        // The operator view and the queue gauges as serve wires them (MetricsModule, Sidecar.registerMeters).
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
                buzz.scheduled.bootstrap.metrics.SidecarMeters.create("test");
        Optional<GroupFeed> groupFeed = feed;
        buzz.scheduled.application.port.out.LinkStatus links = () -> new buzz.scheduled.application.port.in
                .QueueStatsUseCase.Links(delivery.relayClient.isConnected(), delivery.signal.listening(),
                groupFeed.map(GroupFeed::inSync));
        buzz.scheduled.application.service.OperatorViewService view =
                new buzz.scheduled.application.service.OperatorViewService(
                        new buzz.scheduled.adapters.postgres.PostgresQueueStatistics(pool),
                        new buzz.scheduled.adapters.postgres.PostgresAdminMessageQueries(pool), links);
        buzz.scheduled.bootstrap.metrics.QueueGauges.register(registry, view, () -> DATABASE_UP, links,
                feed.isPresent());
        api.meters(registry, () -> buzz.scheduled.bootstrap.metrics.SidecarMeters.scrape(registry))
                .operatorView(view, view);
        int port = api.start("127.0.0.1", 0);
        return new AccessStack(administration, new SignedClient(port, BASE), feed, delivery, api);
    }

    @Override
    public void close() {
        try {
            api.stop();
            delivery.stop();
        } finally {
            feed.ifPresent(GroupFeed::close);
        }
    }
}
