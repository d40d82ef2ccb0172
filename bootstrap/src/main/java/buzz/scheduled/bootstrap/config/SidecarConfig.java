package buzz.scheduled.bootstrap.config;

import buzz.scheduled.adapters.http.ConnectionLimits;
import buzz.scheduled.adapters.http.CorsOrigins;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RetentionSettings;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Backoff;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * The sidecar's whole configuration, read from environment variables (README.md "Configuration") by
 * {@link #fromEnvironment(Map)}. Every invalid value stops start-up with an {@link InvalidConfigurationException}
 * naming the variable.
 *
 * @param scheduledMessages {@code BUZZ_SCHEDULED_MESSAGES}: whether owner routes are served and advertised
 * @param dataDirectory     {@code BUZZ_DATA_DIR}: embedded database files, generated keys (default {@code ./var})
 * @param database          where the database is and how many connections to open
 * @param http              listen address and the public URL NIP-98 {@code u} tags are checked against
 * @param relay             relay URL and the sidecar's key file for NIP-42 AUTH
 * @param access            who may use operator routes and which access policy decides channel access
 * @param limits            admission limits (docs/scheduled-messages.md §4)
 * @param delivery          delivery timing (docs/delivery.md)
 * @param operations        log level and format, browser origins for the owner routes
 * @param nostr             the kind-5905 front door and NIP-17 notices (docs/nostr.md)
 */
public record SidecarConfig(boolean scheduledMessages, Path dataDirectory, Database database, Http http, Relay relay,
                            Access access, Limits limits, Delivery delivery, Operations operations,
                            OwnerLimits ownerLimits, Nostr nostr) {

    public static final String BUZZ_SCHEDULED_MESSAGES = "BUZZ_SCHEDULED_MESSAGES";
    public static final String DATABASE_URL = "DATABASE_URL";
    public static final String BUZZ_DIRECT_DATABASE_URL = "BUZZ_DIRECT_DATABASE_URL";
    public static final String BUZZ_DATA_DIR = "BUZZ_DATA_DIR";
    public static final String RELAY_URL = "RELAY_URL";
    public static final String BUZZ_RELAY_AUTH_URL = "BUZZ_RELAY_AUTH_URL";
    public static final String HTTP_HOST = "HTTP_HOST";
    public static final String HTTP_PORT = "HTTP_PORT";
    public static final String PUBLIC_BASE_URL = "PUBLIC_BASE_URL";
    public static final String BUZZ_HTTP_MAX_CONNECTIONS = "BUZZ_HTTP_MAX_CONNECTIONS";
    public static final String BUZZ_HTTP_MAX_CONNECTIONS_PER_IP = "BUZZ_HTTP_MAX_CONNECTIONS_PER_IP";
    public static final String BUZZ_HTTP_HEADER_TIMEOUT_SECONDS = "BUZZ_HTTP_HEADER_TIMEOUT_SECONDS";
    public static final String BUZZ_HTTP_BODY_TIMEOUT_SECONDS = "BUZZ_HTTP_BODY_TIMEOUT_SECONDS";
    public static final String SIDECAR_SECRET_KEY_FILE = "SIDECAR_SECRET_KEY_FILE";
    public static final String RELAY_OPERATOR_PUBKEYS = "RELAY_OPERATOR_PUBKEYS";
    public static final String BUZZ_ACCESS_POLICY = "BUZZ_ACCESS_POLICY";
    public static final String BUZZ_ACCESS_URL = "BUZZ_ACCESS_URL";
    public static final String BUZZ_RELAY_PUBKEY = "BUZZ_RELAY_PUBKEY";
    public static final String BUZZ_NIP29_PAGE_SIZE = "BUZZ_NIP29_PAGE_SIZE";
    public static final String BUZZ_RELAY_INFO_REFRESH_SECONDS = "BUZZ_RELAY_INFO_REFRESH_SECONDS";
    public static final String BUZZ_MAX_HORIZON_DAYS = "BUZZ_MAX_HORIZON_DAYS";
    public static final String BUZZ_MAX_LATENESS_SECONDS = "BUZZ_MAX_LATENESS_SECONDS";
    public static final String BUZZ_RELAY_MAX_FUTURE_SECONDS = "BUZZ_RELAY_MAX_FUTURE_SECONDS";
    public static final String BUZZ_MAX_PENDING_PER_OWNER = "BUZZ_MAX_PENDING_PER_OWNER";
    public static final String BUZZ_ALLOWED_KINDS = "BUZZ_ALLOWED_KINDS";
    public static final String BUZZ_DB_POOL_SIZE = "BUZZ_DB_POOL_SIZE";
    public static final String BUZZ_LEASE_SECONDS = "BUZZ_LEASE_SECONDS";
    public static final String BUZZ_PUBLISH_TIMEOUT_SECONDS = "BUZZ_PUBLISH_TIMEOUT_SECONDS";
    public static final String BUZZ_LEASE_MARGIN_SECONDS = "BUZZ_LEASE_MARGIN_SECONDS";
    public static final String BUZZ_REAP_GRACE_SECONDS = "BUZZ_REAP_GRACE_SECONDS";
    public static final String BUZZ_RETRY_BASE_SECONDS = "BUZZ_RETRY_BASE_SECONDS";
    public static final String BUZZ_RETRY_MAX_SECONDS = "BUZZ_RETRY_MAX_SECONDS";
    public static final String BUZZ_CLAIM_BATCH_SIZE = "BUZZ_CLAIM_BATCH_SIZE";
    public static final String BUZZ_MAX_IN_FLIGHT = "BUZZ_MAX_IN_FLIGHT";
    public static final String BUZZ_POLL_SECONDS = "BUZZ_POLL_SECONDS";
    public static final String BUZZ_SHUTDOWN_GRACE_SECONDS = "BUZZ_SHUTDOWN_GRACE_SECONDS";
    public static final String BUZZ_RETENTION_DAYS = "BUZZ_RETENTION_DAYS";
    public static final String BUZZ_LOG_LEVEL = "BUZZ_LOG_LEVEL";
    public static final String BUZZ_LOG_FORMAT = "BUZZ_LOG_FORMAT";
    public static final String BUZZ_CORS_ORIGINS = "BUZZ_CORS_ORIGINS";
    public static final String BUZZ_MAX_EVENT_BYTES = "BUZZ_MAX_EVENT_BYTES";
    public static final String BUZZ_MAX_EVENT_TAGS = "BUZZ_MAX_EVENT_TAGS";
    public static final String BUZZ_OWNER_WRITES_PER_MINUTE = "BUZZ_OWNER_WRITES_PER_MINUTE";
    public static final String BUZZ_OWNER_WRITE_BURST = "BUZZ_OWNER_WRITE_BURST";
    public static final String BUZZ_MAX_REVISIONS_KEPT = "BUZZ_MAX_REVISIONS_KEPT";
    public static final String BUZZ_LIST_PAGE_MAX_BYTES = "BUZZ_LIST_PAGE_MAX_BYTES";
    public static final String BUZZ_CHANNEL_WINDOW_PER_OWNER = "BUZZ_CHANNEL_WINDOW_PER_OWNER";
    public static final String BUZZ_CHANNEL_WINDOW_TOTAL = "BUZZ_CHANNEL_WINDOW_TOTAL";
    public static final String BUZZ_DVM = "BUZZ_DVM";
    public static final String BUZZ_DVM_REQUESTS_PER_MINUTE = "BUZZ_DVM_REQUESTS_PER_MINUTE";
    public static final String BUZZ_DVM_MAX_REQUEST_BYTES = "BUZZ_DVM_MAX_REQUEST_BYTES";
    public static final String BUZZ_NOTICES = "BUZZ_NOTICES";
    public static final String BUZZ_NOTICES_PER_OWNER_PER_HOUR = "BUZZ_NOTICES_PER_OWNER_PER_HOUR";
    public static final String BUZZ_NOTICE_PRIVATE_RELAYS = "BUZZ_NOTICE_PRIVATE_RELAYS";

    /** Every variable this configuration reads, for documentation and diagnostics. */
    public static final Set<String> VARIABLES = Set.of(BUZZ_SCHEDULED_MESSAGES, DATABASE_URL, BUZZ_DIRECT_DATABASE_URL,
            BUZZ_DATA_DIR, RELAY_URL, BUZZ_RELAY_AUTH_URL,
            HTTP_HOST, HTTP_PORT, PUBLIC_BASE_URL, SIDECAR_SECRET_KEY_FILE, RELAY_OPERATOR_PUBKEYS, BUZZ_ACCESS_POLICY,
            BUZZ_ACCESS_URL, BUZZ_RELAY_PUBKEY, BUZZ_MAX_HORIZON_DAYS, BUZZ_MAX_LATENESS_SECONDS, BUZZ_RELAY_MAX_FUTURE_SECONDS,
            BUZZ_MAX_PENDING_PER_OWNER, BUZZ_ALLOWED_KINDS, BUZZ_DB_POOL_SIZE, BUZZ_LEASE_SECONDS,
            BUZZ_PUBLISH_TIMEOUT_SECONDS, BUZZ_LEASE_MARGIN_SECONDS, BUZZ_REAP_GRACE_SECONDS, BUZZ_RETRY_BASE_SECONDS,
            BUZZ_RETRY_MAX_SECONDS, BUZZ_CLAIM_BATCH_SIZE, BUZZ_MAX_IN_FLIGHT, BUZZ_POLL_SECONDS, BUZZ_SHUTDOWN_GRACE_SECONDS,
            BUZZ_RETENTION_DAYS, BUZZ_LOG_LEVEL, BUZZ_LOG_FORMAT, BUZZ_CORS_ORIGINS, BUZZ_NIP29_PAGE_SIZE,
            BUZZ_RELAY_INFO_REFRESH_SECONDS, BUZZ_HTTP_MAX_CONNECTIONS, BUZZ_HTTP_MAX_CONNECTIONS_PER_IP,
            BUZZ_HTTP_HEADER_TIMEOUT_SECONDS, BUZZ_HTTP_BODY_TIMEOUT_SECONDS, BUZZ_MAX_EVENT_BYTES, BUZZ_MAX_EVENT_TAGS,
            BUZZ_OWNER_WRITES_PER_MINUTE, BUZZ_OWNER_WRITE_BURST, BUZZ_MAX_REVISIONS_KEPT, BUZZ_LIST_PAGE_MAX_BYTES,
            BUZZ_CHANNEL_WINDOW_PER_OWNER, BUZZ_CHANNEL_WINDOW_TOTAL, BUZZ_DVM, BUZZ_DVM_REQUESTS_PER_MINUTE,
            BUZZ_DVM_MAX_REQUEST_BYTES, BUZZ_NOTICES, BUZZ_NOTICES_PER_OWNER_PER_HOUR, BUZZ_NOTICE_PRIVATE_RELAYS);

    /** The window the channel limits count in (docs/scheduled-messages.md §4): 5 minutes, aligned to the epoch. */
    public static final Duration CHANNEL_WINDOW = CreateLimits.DEFAULT_CHANNEL_WINDOW;

    public SidecarConfig {
        if (dataDirectory == null || database == null || http == null || relay == null || access == null
                || limits == null || delivery == null || operations == null || ownerLimits == null || nostr == null) {
            throw new IllegalArgumentException("configuration has a missing part");
        }
    }

    /**
     * Reads and validates the configuration from {@code environment} (normally {@code System.getenv()}; tests
     * pass their own map and never touch the real environment). Unset and blank variables take their defaults.
     *
     * @throws InvalidConfigurationException naming the first variable that is malformed or inconsistent
     */
    public static SidecarConfig fromEnvironment(Map<String, String> environment) {
        EnvironmentReader env = new EnvironmentReader(environment);
        // Read area by area in this order, so the first malformed variable is the one reported.
        boolean enabled = env.onOff(BUZZ_SCHEDULED_MESSAGES, false);
        Path dataDirectory = env.path(BUZZ_DATA_DIR, Path.of("var"));
        Database database = ConnectionConfigReader.database(env);
        Http http = ConnectionConfigReader.http(env);
        Relay relay = ConnectionConfigReader.relay(env, dataDirectory);
        Access access = AccessConfigReader.access(env);
        Limits limits = LimitsConfigReader.limits(env);
        OwnerLimits ownerLimits = LimitsConfigReader.ownerLimits(env);
        Delivery delivery = DeliveryConfigReader.delivery(env);
        Operations operations = OperationsConfigReader.operations(env);
        Nostr nostr = OperationsConfigReader.nostr(env, enabled);
        return new SidecarConfig(enabled, dataDirectory, database, http, relay, access, limits, delivery, operations,
                ownerLimits, nostr);
    }

    /**
     * The Nostr-native features (docs/nostr.md).
     *
     * @param dvm                    {@code BUZZ_DVM}: admit NIP-90 kind-5905 requests addressed to the sidecar's key
     * @param dvmRequestsPerMinute   {@code BUZZ_DVM_REQUESTS_PER_MINUTE}: requests (and deletions) read per requester
     *                               a minute, a burst of as many; more are dropped unanswered
     * @param dvmMaxRequestBytes     {@code BUZZ_DVM_MAX_REQUEST_BYTES}: the largest request read (content plus tags, in
     *                               characters)
     * @param notices                {@code BUZZ_NOTICES}: NIP-17 notices to owners
     * @param noticesPerOwnerPerHour {@code BUZZ_NOTICES_PER_OWNER_PER_HOUR}: notices one owner is sent in an hour
     * @param noticePrivateRelays    {@code BUZZ_NOTICE_PRIVATE_RELAYS}: whether inbox relays on loopback or private
     *                               addresses are used
     */
    public record Nostr(boolean dvm, int dvmRequestsPerMinute, int dvmMaxRequestBytes, boolean notices,
                        int noticesPerOwnerPerHour, boolean noticePrivateRelays) {
        /** 512 KiB: an event at the default BUZZ_MAX_EVENT_BYTES, quoted inside a request's i tag. */
        public static final int DEFAULT_MAX_REQUEST_BYTES = 512 * 1024;
    }

    /**
     * Only the logging variables, for the commands that log before (or without) the rest of the configuration.
     *
     * @throws InvalidConfigurationException naming {@code BUZZ_LOG_LEVEL} or {@code BUZZ_LOG_FORMAT}
     */
    public static Operations operationsFromEnvironment(Map<String, String> environment) {
        return OperationsConfigReader.operations(new EnvironmentReader(environment));
    }

    /**
     * How the sidecar reports and whom browsers may call it from.
     *
     * @param logLevel  {@code BUZZ_LOG_LEVEL}: the threshold of every logger (SLF4J, System.Logger and
     *                  java.util.logging alike)
     * @param logFormat {@code BUZZ_LOG_FORMAT}: {@code text} lines or one JSON object a line
     * @param cors      {@code BUZZ_CORS_ORIGINS}: the origins allowed to call the owner routes from a browser
     */
    public record Operations(LogLevel logLevel, LogFormat logFormat, CorsOrigins cors) {
        public Operations {
            if (logLevel == null || logFormat == null || cors == null) {
                throw new IllegalArgumentException("operations settings have a missing part");
            }
        }
    }

    /** A log threshold. */
    public enum LogLevel {
        TRACE, DEBUG, INFO, WARN, ERROR;

        /** The level named by {@code text} (any case), if it is one. */
        public static Optional<LogLevel> parse(String text) {
            for (LogLevel level : values()) {
                if (level.name().equalsIgnoreCase(text.strip())) {
                    return Optional.of(level);
                }
            }
            return Optional.empty();
        }
    }

    /** How log lines are written. */
    public enum LogFormat {
        /** {@code 2026-01-01T00:00:00.000Z INFO  Logger - message}. */
        TEXT,
        /** One JSON object a line (Logback's {@code JsonEncoder}). */
        JSON
    }

    /** The owner side's settings (admission rules, create limits, relay window). */
    public SchedulingSettings schedulingSettings() {
        return new SchedulingSettings(
                new AdmissionRules(limits.allowedKinds(), AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, limits.horizon(),
                        ownerLimits.maxEventBytes(), ownerLimits.maxEventTags()),
                new CreateLimits(limits.maxPendingPerOwner(), ownerLimits.channelWindowPerOwner(),
                        ownerLimits.channelWindowTotal(), CHANNEL_WINDOW, ownerLimits.revisionsKept()),
                limits.relayMaxFuture());
    }

    /**
     * Retention pruning (docs/scheduled-messages.md §6): {@code BUZZ_RETENTION_DAYS}, with the default batch size (500
     * rows per transaction) and batch budget per pass.
     */
    public RetentionSettings retentionSettings() {
        return new RetentionSettings(delivery.retention(), RetentionSettings.DEFAULT_BATCH_SIZE,
                RetentionSettings.DEFAULT_MAX_BATCHES_PER_PASS);
    }

    /** The delivery side's settings, with {@code jitter} (uniform in [0, 1)) spreading retries. */
    public DeliverySettings deliverySettings(DoubleSupplier jitter) {
        return new DeliverySettings(delivery.lease(), delivery.publishTimeout(), delivery.leaseMargin(),
                delivery.reapGrace(), limits.maxLateness(), new Backoff(delivery.retryBase(), delivery.retryMax(), jitter));
    }

    /** Which access policy decides whether an owner may post in a channel ({@code BUZZ_ACCESS_POLICY}). */
    public enum AccessPolicyChoice {
        /** The relay decides at publish; admission allows. */
        RELAY,
        /** NIP-29 roster events read from the relay. */
        NIP29,
        /** An HTTP callback ({@code BUZZ_ACCESS_URL}). */
        HTTP;

        /** Parses {@code relay}, {@code nip29} or {@code http} (any case). */
        static AccessPolicyChoice parse(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "relay" -> RELAY;
                case "nip29" -> NIP29;
                case "http" -> HTTP;
                default -> throw new InvalidConfigurationException(BUZZ_ACCESS_POLICY, BUZZ_ACCESS_POLICY
                        + " must be relay, nip29 or http, got '" + text + "'");
            };
        }

        /** The wire name, as written in {@code BUZZ_ACCESS_POLICY}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param url       {@code DATABASE_URL}, or empty for the embedded PostgreSQL under the data directory; the pool's
     *                  connections, which may go through a transaction-mode pooler such as PgBouncer
     * @param directUrl {@code BUZZ_DIRECT_DATABASE_URL}: a direct (session) connection for {@code LISTEN} and
     *                  migrations; empty: {@code url} is direct too. Only with {@code url}
     * @param poolSize  {@code BUZZ_DB_POOL_SIZE}: most connections the pool opens (default 10)
     */
    public record Database(Optional<String> url, Optional<String> directUrl, int poolSize) {
        public Database {
            if (url == null || directUrl == null || poolSize < 1) {
                throw new IllegalArgumentException("database configuration needs url options and a positive pool size");
            }
            if (directUrl.isPresent() && url.isEmpty()) {
                throw new IllegalArgumentException("a direct database URL needs a database URL");
            }
        }
    }

    /**
     * @param host          {@code HTTP_HOST} (default 127.0.0.1)
     * @param port          {@code HTTP_PORT} (default 8088)
     * @param publicBaseUrl {@code PUBLIC_BASE_URL} without a trailing slash (default {@code http://host:port})
     * @param connections   {@code BUZZ_HTTP_MAX_CONNECTIONS} (default 1024), {@code BUZZ_HTTP_MAX_CONNECTIONS_PER_IP}
     *                      (default 64; 0: none), {@code BUZZ_HTTP_HEADER_TIMEOUT_SECONDS} (default 10 s),
     *                      {@code BUZZ_HTTP_BODY_TIMEOUT_SECONDS} (default 30 s); the idle timeout is 30 s
     */
    public record Http(String host, int port, URI publicBaseUrl, ConnectionLimits connections) {
        public Http {
            if (host == null || host.isBlank() || port < 1 || port > 65_535 || publicBaseUrl == null
                    || connections == null) {
                throw new IllegalArgumentException("http configuration needs a host, a port 1..65535, a base URL and"
                        + " connection limits");
            }
        }
    }

    /**
     * @param url                {@code RELAY_URL}, a ws:// or wss:// URL (default ws://127.0.0.1:7777)
     * @param authUrl            {@code BUZZ_RELAY_AUTH_URL}: the relay's public URL for the NIP-42 AUTH {@code relay}
     *                           tag (default {@code RELAY_URL})
     * @param secretKeyFile      {@code SIDECAR_SECRET_KEY_FILE} (default {@code BUZZ_DATA_DIR/sidecar.key})
     * @param informationRefresh {@code BUZZ_RELAY_INFO_REFRESH_SECONDS} (default 300 s): how often the relay's NIP-11
     *                           document (its {@code limitation}) is read again
     */
    public record Relay(URI url, URI authUrl, Path secretKeyFile, Duration informationRefresh) {
        public Relay {
            if (url == null || authUrl == null || secretKeyFile == null || informationRefresh == null
                    || informationRefresh.isNegative() || informationRefresh.isZero()) {
                throw new IllegalArgumentException("relay configuration needs a URL, an AUTH URL, a key file and a "
                        + "positive refresh");
            }
        }
    }

    /**
     * @param operators   {@code RELAY_OPERATOR_PUBKEYS}: pubkeys allowed on operator routes (may be empty), given as
     *                    hex or NIP-19 npub
     * @param policy      {@code BUZZ_ACCESS_POLICY}
     * @param accessUrl   {@code BUZZ_ACCESS_URL}: where the http policy POSTs its question; required for that policy
     * @param relayPubkey {@code BUZZ_RELAY_PUBKEY}: the key the nip29 policy expects on the relay's group state
     *                    events; empty: the {@code self} of the relay's NIP-11 document, read on every connect
     * @param nip29PageSize {@code BUZZ_NIP29_PAGE_SIZE} (default 100): events per page when the nip29 policy reads the
     *                    relay's group backlog and the relay's NIP-11 document states no {@code max_limit}
     */
    public record Access(Set<PublicKey> operators, AccessPolicyChoice policy, Optional<URI> accessUrl,
                         Optional<PublicKey> relayPubkey, int nip29PageSize) {
        public Access {
            if (operators == null || policy == null || accessUrl == null || relayPubkey == null || nip29PageSize < 1) {
                throw new IllegalArgumentException("access configuration has a missing part");
            }
            operators = Set.copyOf(operators);
        }
    }

    /**
     * @param horizon            {@code BUZZ_MAX_HORIZON_DAYS} (default 120 days)
     * @param maxLateness        {@code BUZZ_MAX_LATENESS_SECONDS} (default 900 s)
     * @param relayMaxFuture     {@code BUZZ_RELAY_MAX_FUTURE_SECONDS} (default 900 s)
     * @param maxPendingPerOwner {@code BUZZ_MAX_PENDING_PER_OWNER} (default 100)
     * @param allowedKinds       {@code BUZZ_ALLOWED_KINDS} (default 9, 40002, 40008, 45001, 45003, 1)
     */
    public record Limits(Duration horizon, Duration maxLateness, Duration relayMaxFuture, int maxPendingPerOwner,
                         Set<Integer> allowedKinds) {
        public Limits {
            if (horizon == null || maxLateness == null || relayMaxFuture == null || allowedKinds == null
                    || allowedKinds.isEmpty() || maxPendingPerOwner < 1) {
                throw new IllegalArgumentException("limits have a missing or non-positive value");
            }
            allowedKinds = Set.copyOf(allowedKinds);
        }
    }

    /**
     * What one owner (one key) may use (docs/scheduled-messages.md §4, issue 17).
     *
     * @param maxEventBytes         {@code BUZZ_MAX_EVENT_BYTES} (default 300 KiB): the whole event as JSON, tags included
     * @param maxEventTags          {@code BUZZ_MAX_EVENT_TAGS} (default 1000): tags one event may carry
     * @param writesPerMinute       {@code BUZZ_OWNER_WRITES_PER_MINUTE} (default 60): the rate an owner's writes
     *                              (create, edit, cancel, send-now) refill at, per node
     * @param writeBurst            {@code BUZZ_OWNER_WRITE_BURST} (default 30): writes an owner may make at once
     * @param revisionsKept         {@code BUZZ_MAX_REVISIONS_KEPT} (default 1): latest revisions of a message whose
     *                              signed event is stored, the current one included
     * @param listPageMaxBytes      {@code BUZZ_LIST_PAGE_MAX_BYTES} (default 1 MiB): the largest list page's JSON,
     *                              but for a single item larger than that alone
     * @param channelWindowPerOwner {@code BUZZ_CHANNEL_WINDOW_PER_OWNER} (default 30): messages one owner may have due
     *                              in one channel in one 5-minute window
     * @param channelWindowTotal    {@code BUZZ_CHANNEL_WINDOW_TOTAL} (default 300): the same for all owners together
     */
    public record OwnerLimits(int maxEventBytes, int maxEventTags, int writesPerMinute, int writeBurst,
                              int revisionsKept, int listPageMaxBytes, int channelWindowPerOwner,
                              int channelWindowTotal) {
        public OwnerLimits {
            if (maxEventBytes < 1 || maxEventTags < 1 || writesPerMinute < 1 || writeBurst < 1 || revisionsKept < 1
                    || listPageMaxBytes < 1 || channelWindowPerOwner < 1 || channelWindowTotal < channelWindowPerOwner) {
                throw new IllegalArgumentException("owner limits must be positive, the channel total at least the"
                        + " per-owner count");
            }
        }
    }

    /**
     * @param lease          {@code BUZZ_LEASE_SECONDS} (default 60 s): how long a claim lasts unless renewed
     * @param publishTimeout {@code BUZZ_PUBLISH_TIMEOUT_SECONDS} (default 10 s): longest wait for the relay's OK
     * @param leaseMargin    {@code BUZZ_LEASE_MARGIN_SECONDS} (default 5 s): lease kept in reserve beyond the
     *                       publish timeout before a send may start
     * @param reapGrace      {@code BUZZ_REAP_GRACE_SECONDS} (default 10 s): wait after a lease ends before reaping
     * @param retryBase      {@code BUZZ_RETRY_BASE_SECONDS} (default 2 s): first retry delay before jitter
     * @param retryMax       {@code BUZZ_RETRY_MAX_SECONDS} (default 120 s): largest retry delay before jitter
     * @param claimBatchSize {@code BUZZ_CLAIM_BATCH_SIZE} (default 500, at most {@code maxInFlight}): most messages
     *                       claimed in one statement
     * @param maxInFlight    {@code BUZZ_MAX_IN_FLIGHT} (default 1000): the window, most event frames this node has
     *                       waiting for the relay's answer at once
     * @param pollInterval   {@code BUZZ_POLL_SECONDS} (default 30 s): the dispatcher's backstop poll
     * @param shutdownGrace  {@code BUZZ_SHUTDOWN_GRACE_SECONDS} (default 15 s): how long in-flight sends may
     *                       finish on shutdown
     * @param retention      {@code BUZZ_RETENTION_DAYS} (default 7 days): how long terminal messages are kept
     */
    public record Delivery(Duration lease, Duration publishTimeout, Duration leaseMargin, Duration reapGrace,
                           Duration retryBase, Duration retryMax, int claimBatchSize, int maxInFlight,
                           Duration pollInterval,
                           Duration shutdownGrace, Duration retention) {
        public Delivery {
            if (lease == null || publishTimeout == null || leaseMargin == null || reapGrace == null
                    || retryBase == null || retryMax == null || pollInterval == null || shutdownGrace == null
                    || retention == null || claimBatchSize < 1 || maxInFlight < claimBatchSize) {
                throw new IllegalArgumentException("delivery timing has a missing or non-positive value");
            }
        }
    }
}
