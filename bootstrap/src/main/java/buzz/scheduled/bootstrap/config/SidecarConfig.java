package buzz.scheduled.bootstrap.config;

import buzz.scheduled.adapters.http.ConnectionLimits;
import buzz.scheduled.adapters.http.CorsOrigins;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RetentionSettings;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Backoff;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
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

        boolean enabled = env.onOff(BUZZ_SCHEDULED_MESSAGES, false);
        Path dataDirectory = env.path(BUZZ_DATA_DIR, Path.of("var"));

        Optional<String> databaseUrl = env.text(DATABASE_URL);
        databaseUrl.ifPresent(url -> requirePostgresUrl(DATABASE_URL, url, " (unset it to use the embedded database"
                + " under " + BUZZ_DATA_DIR + ")"));
        Optional<String> directUrl = env.text(BUZZ_DIRECT_DATABASE_URL);
        directUrl.ifPresent(url -> requirePostgresUrl(BUZZ_DIRECT_DATABASE_URL, url, ""));
        if (directUrl.isPresent() && databaseUrl.isEmpty()) {
            throw new InvalidConfigurationException(BUZZ_DIRECT_DATABASE_URL, BUZZ_DIRECT_DATABASE_URL
                    + " is set but " + DATABASE_URL + " is not: the direct URL is the unpooled way to the database"
                    + " that " + DATABASE_URL + " names (the embedded database needs neither)");
        }
        int poolSize = (int) env.integer(BUZZ_DB_POOL_SIZE, 10, 2, 200, "connections");

        String host = env.text(HTTP_HOST, "127.0.0.1");
        int port = (int) env.integer(HTTP_PORT, 8088, 1, 65535, "TCP port");
        String hostInUrl = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        String baseText = env.text(PUBLIC_BASE_URL, "http://" + hostInUrl + ":" + port);
        URI publicBase = env.uri(PUBLIC_BASE_URL, baseText, Set.of("http", "https"), "an absolute http(s) URL");
        if (publicBase.getRawQuery() != null) {
            throw new InvalidConfigurationException(PUBLIC_BASE_URL, PUBLIC_BASE_URL
                    + " must not carry a ?query (it is a prefix that request paths are appended to), got '"
                    + baseText + "'");
        }
        String withoutSlash = baseText.endsWith("/") ? baseText.substring(0, baseText.length() - 1) : baseText;
        ConnectionLimits connections = connectionLimits(env);

        URI relayUrl = env.uri(RELAY_URL, env.text(RELAY_URL, "ws://127.0.0.1:7777"), Set.of("ws", "wss"),
                "a WebSocket URL");
        URI relayAuthUrl = env.text(BUZZ_RELAY_AUTH_URL)
                .map(url -> env.uri(BUZZ_RELAY_AUTH_URL, url, Set.of("ws", "wss"), "a WebSocket URL"))
                .orElse(relayUrl);
        Path keyFile = env.path(SIDECAR_SECRET_KEY_FILE, dataDirectory.resolve("sidecar.key"));
        Duration informationRefresh = env.seconds(BUZZ_RELAY_INFO_REFRESH_SECONDS, 300, 1, 86_400);

        Set<PublicKey> operators = operatorKeys(env);
        AccessPolicyChoice policy = AccessPolicyChoice.parse(env.text(BUZZ_ACCESS_POLICY, "relay"));
        Optional<URI> accessUrl = env.text(BUZZ_ACCESS_URL)
                .map(url -> env.uri(BUZZ_ACCESS_URL, url, Set.of("http", "https"), "an absolute http(s) URL"));
        if (policy == AccessPolicyChoice.HTTP && accessUrl.isEmpty()) {
            throw new InvalidConfigurationException(BUZZ_ACCESS_URL, BUZZ_ACCESS_URL
                    + " must be set when " + BUZZ_ACCESS_POLICY + "=http (the URL the access callback is sent to)");
        }
        Optional<PublicKey> relayPubkey = env.text(BUZZ_RELAY_PUBKEY).map(hex -> {
            try {
                return new PublicKey(hex);
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(BUZZ_RELAY_PUBKEY, BUZZ_RELAY_PUBKEY
                        + " must be the relay's pubkey, 64 lowercase hex characters, got '" + hex + "'");
            }
        });
        int nip29PageSize = (int) env.integer(BUZZ_NIP29_PAGE_SIZE, 100, 1, 5_000, "events");

        Limits limits = new Limits(
                Duration.ofDays(env.integer(BUZZ_MAX_HORIZON_DAYS, 120, 1, 3650, "days")),
                env.seconds(BUZZ_MAX_LATENESS_SECONDS, 900, 1, 7 * 86_400),
                env.seconds(BUZZ_RELAY_MAX_FUTURE_SECONDS, 900, 0, 86_400),
                (int) env.integer(BUZZ_MAX_PENDING_PER_OWNER, 100, 1, 1_000_000, "messages"),
                allowedKinds(env));

        OwnerLimits ownerLimits = ownerLimits(env);

        Duration lease = env.seconds(BUZZ_LEASE_SECONDS, 60, 1, 3_600);
        Duration publishTimeout = env.seconds(BUZZ_PUBLISH_TIMEOUT_SECONDS, 10, 1, 600);
        Duration margin = env.seconds(BUZZ_LEASE_MARGIN_SECONDS, 5, 0, 600);
        if (lease.compareTo(publishTimeout.plus(margin)) <= 0) {
            throw new InvalidConfigurationException(BUZZ_LEASE_SECONDS, BUZZ_LEASE_SECONDS + " (" + lease.toSeconds()
                    + ") must be longer than " + BUZZ_PUBLISH_TIMEOUT_SECONDS + " (" + publishTimeout.toSeconds()
                    + ") plus " + BUZZ_LEASE_MARGIN_SECONDS + " (" + margin.toSeconds()
                    + "): a claim must outlive the longest wait for the relay");
        }
        Duration retryBase = env.seconds(BUZZ_RETRY_BASE_SECONDS, 2, 1, 3_600);
        Duration retryMax = env.seconds(BUZZ_RETRY_MAX_SECONDS, 120, 1, 86_400);
        if (retryMax.compareTo(retryBase) < 0) {
            throw new InvalidConfigurationException(BUZZ_RETRY_MAX_SECONDS, BUZZ_RETRY_MAX_SECONDS + " ("
                    + retryMax.toSeconds() + ") must not be below " + BUZZ_RETRY_BASE_SECONDS + " ("
                    + retryBase.toSeconds() + ")");
        }
        int maxInFlight = (int) env.integer(BUZZ_MAX_IN_FLIGHT, 1_000, 1, 10_000, "frames");
        int claimBatch = (int) env.integer(BUZZ_CLAIM_BATCH_SIZE, Math.min(500, maxInFlight), 1, 10_000, "messages");
        if (claimBatch > maxInFlight) {
            throw new InvalidConfigurationException(BUZZ_CLAIM_BATCH_SIZE, BUZZ_CLAIM_BATCH_SIZE + " (" + claimBatch
                    + ") must not exceed " + BUZZ_MAX_IN_FLIGHT + " (" + maxInFlight + ")");
        }
        Delivery delivery = new Delivery(lease, publishTimeout, margin,
                env.seconds(BUZZ_REAP_GRACE_SECONDS, 10, 0, 3_600),
                retryBase, retryMax, claimBatch, maxInFlight,
                env.seconds(BUZZ_POLL_SECONDS, 30, 1, 3_600),
                env.seconds(BUZZ_SHUTDOWN_GRACE_SECONDS, 15, 0, 600),
                Duration.ofDays(env.integer(BUZZ_RETENTION_DAYS, 7, 1, 3650, "days")));

        return new SidecarConfig(enabled, dataDirectory, new Database(databaseUrl, directUrl, poolSize),
                new Http(host, port, URI.create(withoutSlash), connections), new Relay(relayUrl, relayAuthUrl, keyFile,
                        informationRefresh),
                new Access(operators, policy, accessUrl, relayPubkey, nip29PageSize), limits, delivery, operations(env),
                ownerLimits, nostr(env, enabled));
    }

    private static Nostr nostr(EnvironmentReader env, boolean scheduledMessages) {
        boolean dvm = env.onOff(BUZZ_DVM, false);
        if (dvm && !scheduledMessages) {
            throw new InvalidConfigurationException(BUZZ_DVM, BUZZ_DVM + "=on needs " + BUZZ_SCHEDULED_MESSAGES
                    + "=on: the kind-5905 front door admits messages as the owner API does");
        }
        return new Nostr(dvm,
                (int) env.integer(BUZZ_DVM_REQUESTS_PER_MINUTE, 30, 1, 100_000, "requests a minute"),
                (int) env.integer(BUZZ_DVM_MAX_REQUEST_BYTES, Nostr.DEFAULT_MAX_REQUEST_BYTES, 1024, 16 << 20,
                        "characters"),
                env.onOff(BUZZ_NOTICES, false),
                (int) env.integer(BUZZ_NOTICES_PER_OWNER_PER_HOUR, 12, 1, 3_600, "notices an hour"),
                env.onOff(BUZZ_NOTICE_PRIVATE_RELAYS, false));
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

    private static OwnerLimits ownerLimits(EnvironmentReader env) {
        int eventBytes = (int) env.integer(BUZZ_MAX_EVENT_BYTES, AdmissionRules.DEFAULT_MAX_EVENT_BYTES, 1024,
                1024 * 1024, "bytes");
        int eventTags = (int) env.integer(BUZZ_MAX_EVENT_TAGS, AdmissionRules.DEFAULT_MAX_EVENT_TAGS, 1, 100_000,
                "tags");
        int perMinute = (int) env.integer(BUZZ_OWNER_WRITES_PER_MINUTE, 60, 1, 100_000, "writes a minute");
        int burst = (int) env.integer(BUZZ_OWNER_WRITE_BURST, 30, 1, 100_000, "writes");
        int revisionsKept = (int) env.integer(BUZZ_MAX_REVISIONS_KEPT, CreateLimits.DEFAULT_REVISIONS_KEPT, 1, 100,
                "revisions");
        int pageBytes = (int) env.integer(BUZZ_LIST_PAGE_MAX_BYTES, ListQuery.DEFAULT_MAX_BYTES, 64 * 1024,
                64 * 1024 * 1024, "bytes");
        int perOwner = (int) env.integer(BUZZ_CHANNEL_WINDOW_PER_OWNER,
                CreateLimits.DEFAULT_PER_OWNER_IN_CHANNEL_WINDOW, 1, 1_000_000, "messages");
        int total = (int) env.integer(BUZZ_CHANNEL_WINDOW_TOTAL, Math.max(perOwner,
                CreateLimits.DEFAULT_PER_CHANNEL_WINDOW), 1, 10_000_000, "messages");
        if (total < perOwner) {
            throw new InvalidConfigurationException(BUZZ_CHANNEL_WINDOW_TOTAL, BUZZ_CHANNEL_WINDOW_TOTAL + " (" + total
                    + ") must not be below " + BUZZ_CHANNEL_WINDOW_PER_OWNER + " (" + perOwner
                    + "): the channel-wide count includes every owner's");
        }
        return new OwnerLimits(eventBytes, eventTags, perMinute, burst, revisionsKept, pageBytes, perOwner, total);
    }

    private static ConnectionLimits connectionLimits(EnvironmentReader env) {
        int max = (int) env.integer(BUZZ_HTTP_MAX_CONNECTIONS, ConnectionLimits.DEFAULT_MAX_CONNECTIONS, 1, 1_000_000,
                "connections");
        int perAddress = (int) env.integer(BUZZ_HTTP_MAX_CONNECTIONS_PER_IP,
                ConnectionLimits.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 0, 1_000_000, "connections; 0: no cap");
        if (perAddress > max) {
            throw new InvalidConfigurationException(BUZZ_HTTP_MAX_CONNECTIONS_PER_IP, BUZZ_HTTP_MAX_CONNECTIONS_PER_IP
                    + " (" + perAddress + ") must not exceed " + BUZZ_HTTP_MAX_CONNECTIONS + " (" + max
                    + "); 0 switches the per-address cap off");
        }
        Duration header = env.seconds(BUZZ_HTTP_HEADER_TIMEOUT_SECONDS,
                ConnectionLimits.DEFAULT_HEADER_TIMEOUT.toSeconds(), 1, 3_600);
        Duration body = env.seconds(BUZZ_HTTP_BODY_TIMEOUT_SECONDS, ConnectionLimits.DEFAULT_BODY_TIMEOUT.toSeconds(),
                1, 3_600);
        return new ConnectionLimits(max, perAddress, header, body, ConnectionLimits.DEFAULT_IDLE_TIMEOUT);
    }

    /**
     * Only the logging variables, for the commands that log before (or without) the rest of the configuration.
     *
     * @throws InvalidConfigurationException naming {@code BUZZ_LOG_LEVEL} or {@code BUZZ_LOG_FORMAT}
     */
    public static Operations operationsFromEnvironment(Map<String, String> environment) {
        return operations(new EnvironmentReader(environment));
    }

    private static Operations operations(EnvironmentReader env) {
        String levelText = env.text(BUZZ_LOG_LEVEL, "INFO");
        LogLevel level = LogLevel.parse(levelText).orElseThrow(() -> new InvalidConfigurationException(
                BUZZ_LOG_LEVEL, BUZZ_LOG_LEVEL + " must be one of TRACE, DEBUG, INFO, WARN, ERROR, got '"
                + levelText + "'"));
        String formatText = env.text(BUZZ_LOG_FORMAT, "text");
        LogFormat format = switch (formatText.toLowerCase(Locale.ROOT)) {
            case "text" -> LogFormat.TEXT;
            case "json" -> LogFormat.JSON;
            default -> throw new InvalidConfigurationException(BUZZ_LOG_FORMAT, BUZZ_LOG_FORMAT
                    + " must be text or json, got '" + formatText + "'");
        };
        CorsOrigins cors;
        try {
            cors = CorsOrigins.parse(env.text(BUZZ_CORS_ORIGINS, ""));
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(BUZZ_CORS_ORIGINS, BUZZ_CORS_ORIGINS
                    + " must be empty, * or a comma list of origins such as https://chat.example.com: "
                    + e.getMessage());
        }
        return new Operations(level, format, cors);
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

    private static void requirePostgresUrl(String variable, String url, String hint) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("postgres://") && !lower.startsWith("postgresql://")
                && !lower.startsWith("jdbc:postgresql:")) {
            throw new InvalidConfigurationException(variable, variable
                    + " must be postgres://user:pass@host:port/db or a jdbc:postgresql: URL" + hint);
        }
    }

    private static Set<PublicKey> operatorKeys(EnvironmentReader env) {
        Set<PublicKey> keys = new LinkedHashSet<>();
        for (String item : env.text(RELAY_OPERATOR_PUBKEYS, "").split(",")) {
            String key = item.strip();
            if (key.isEmpty()) {
                continue;
            }
            try {
                // NIP-19: people copy keys as npub; the wire and the routes compare hex.
                keys.add(key.regionMatches(true, 0, Nip19.NPUB + "1", 0, 5) ? Nip19.publicKey(key) : new PublicKey(key));
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(RELAY_OPERATOR_PUBKEYS, RELAY_OPERATOR_PUBKEYS
                        + " must be comma-separated pubkeys, each 64 lowercase hex characters or an npub1...; '" + key
                        + "' is not one (" + e.getMessage() + ")");
            }
        }
        return Set.copyOf(keys);
    }

    private static Set<Integer> allowedKinds(EnvironmentReader env) {
        Optional<String> raw = env.text(BUZZ_ALLOWED_KINDS);
        if (raw.isEmpty()) {
            return AdmissionRules.DEFAULT_KINDS;
        }
        Set<Integer> kinds = new LinkedHashSet<>();
        for (String item : raw.get().split(",")) {
            String text = item.strip();
            if (text.isEmpty()) {
                continue;
            }
            int kind;
            try {
                kind = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                kind = -1;
            }
            if (kind < 0 || kind > 65_535) {
                throw new InvalidConfigurationException(BUZZ_ALLOWED_KINDS, BUZZ_ALLOWED_KINDS
                        + " must be comma-separated event kinds from 0 to 65535; '" + text + "' is not one");
            }
            kinds.add(kind);
        }
        if (kinds.isEmpty()) {
            throw new InvalidConfigurationException(BUZZ_ALLOWED_KINDS, BUZZ_ALLOWED_KINDS
                    + " must name at least one event kind, got '" + raw.get() + "'");
        }
        return Set.copyOf(kinds);
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
