package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.postgres.PostgresJobRequests;
import buzz.scheduled.adapters.postgres.PostgresNoticeOutbox;
import buzz.scheduled.adapters.postgres.PostgresOwnerSettingsStore;
import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayExchange;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.dvm.DvmFeed;
import buzz.scheduled.adapters.relay.dvm.RelayJobAnswers;
import buzz.scheduled.adapters.relay.encryption.GiftWrap;
import buzz.scheduled.adapters.relay.notice.Nip17DirectMessages;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.in.OwnerSettingsUseCase;
import buzz.scheduled.application.port.out.DirectMessages;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.JobAnswers;
import buzz.scheduled.application.port.out.JobRequests;
import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.application.port.out.OwnerSettingsStore;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.JobRequestService;
import buzz.scheduled.application.service.NoticeService;
import buzz.scheduled.application.service.NoticeSettings;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.OwnerSettingsService;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Binds the Nostr-native features (docs/nostr.md): owners' settings, the NIP-17 notice sender (outbox, gift wraps,
 * inbox relays) and the NIP-90 kind-5905 front door (its request store, the feed on the relay, the answers). The
 * feed, the passes and the relay exchange are started and closed by {@link Sidecar}; with {@code BUZZ_DVM} and
 * {@code BUZZ_NOTICES} off they are never started.
 */
public final class NostrModule extends AbstractModule {

    /** Longest wait for a relay's answer to a notice or a job answer. */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    /** Most events waiting for the front door's worker. */
    static final int DVM_QUEUE = 1_000;

    @Provides
    @Singleton
    OwnerSettingsStore ownerSettingsStore(DataSource dataSource) {
        return new PostgresOwnerSettingsStore(dataSource);
    }

    @Provides
    @Singleton
    NoticeOutbox noticeOutbox(DataSource dataSource) {
        return new PostgresNoticeOutbox(dataSource);
    }

    @Provides
    @Singleton
    JobRequests jobRequests(DataSource dataSource) {
        return new PostgresJobRequests(dataSource);
    }

    /** Owners' settings, rate-limited with the owner's other writes. */
    @Provides
    @Singleton
    OwnerSettingsUseCase ownerSettings(OwnerSettingsStore store, OwnerWriteLimiter writes, SidecarConfig config) {
        return new OwnerSettingsService(store, writes, config.nostr().notices());
    }

    @Provides
    @Singleton
    RelayExchange relayExchange(AuthEventSigner authSigner, WallClock clock) {
        return RelayExchange.create(Optional.of(authSigner), clock);
    }

    @Provides
    @Singleton
    DirectMessages directMessages(SidecarConfig config, SecretKey key, RelayPublisher relay, RelayLimits limits,
                                  RelayExchange exchange, EventSignatures signatures, WallClock clock) {
        return new Nip17DirectMessages(new GiftWrap(key, new SecureRandom()), sidecarRelay(config), relay, limits,
                exchange, signatures, clock, config.nostr().noticePrivateRelays(), ANSWER_TIMEOUT);
    }

    @Provides
    @Singleton
    NoticeService noticeService(NoticeOutbox outbox, DirectMessages messages, SidecarConfig config) {
        NoticeSettings defaults = NoticeSettings.DEFAULT;
        return new NoticeService(outbox, messages, new NoticeSettings(config.nostr().noticesPerOwnerPerHour(),
                defaults.batch(), defaults.lease()));
    }

    @Provides
    @Singleton
    JobAnswers jobAnswers(SecretKey key, RelayPublisher relay, WallClock clock) {
        return new RelayJobAnswers(key, relay, clock, ANSWER_TIMEOUT, new SecureRandom());
    }

    /** The front door admits through the owner service's own create and cancel (the HTTP API's use cases). */
    @Provides
    @Singleton
    JobRequestService jobRequests(OwnerMessagesService owners, JobRequests requests, JobAnswers answers) {
        return new JobRequestService(owners, owners, requests, answers);
    }

    @Provides
    @Singleton
    DvmFeed dvmFeed(SidecarConfig config, SecretKey key, EventSignatures signatures, JobRequestService jobs,
                    RelayPublisher relay, AuthEventSigner authSigner, WallClock clock) {
        SidecarConfig.Nostr nostr = config.nostr();
        OwnerWriteLimiter requesters = new OwnerWriteBuckets(nostr.dvmRequestsPerMinute(),
                nostr.dvmRequestsPerMinute(), OwnerWriteBuckets.DEFAULT_MAX_OWNERS);
        return new DvmFeed(sidecarRelay(config), key, signatures, jobs, requesters, relay, Optional.of(authSigner),
                clock, nostr.dvmMaxRequestBytes(), DVM_QUEUE);
    }

    private static RelaySettings sidecarRelay(SidecarConfig config) {
        return RelaySettings.of(config.relay().url()).withAuthUrl(config.relay().authUrl());
    }
}
