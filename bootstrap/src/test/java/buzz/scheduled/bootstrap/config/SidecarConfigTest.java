package buzz.scheduled.bootstrap.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.http.ConnectionLimits;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RetentionSettings;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.bootstrap.config.SidecarConfig.AccessPolicyChoice;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SidecarConfigTest {

    private static final String KEY_A = "a".repeat(64);
    private static final String KEY_B = "0123456789abcdef".repeat(4);

    @Test
    void fromEnvironment_nothingSet_givesTheSpecDefaults() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of());

        assertThat(config.scheduledMessages()).isFalse();
        assertThat(config.dataDirectory()).isEqualTo(Path.of("var"));
        assertThat(config.database().url()).isEmpty();
        assertThat(config.database().poolSize()).isEqualTo(10);
        assertThat(config.relay().url()).isEqualTo(URI.create("ws://127.0.0.1:7777"));
        assertThat(config.http().host()).isEqualTo("127.0.0.1");
        assertThat(config.http().port()).isEqualTo(8088);
        assertThat(config.http().publicBaseUrl()).isEqualTo(URI.create("http://127.0.0.1:8088"));
        assertThat(config.relay().secretKeyFile()).isEqualTo(Path.of("var", "sidecar.key"));
        assertThat(config.access().operators()).isEmpty();
        assertThat(config.access().policy()).isEqualTo(AccessPolicyChoice.RELAY);
        assertThat(config.limits().horizon()).isEqualTo(Duration.ofDays(120));
        assertThat(config.limits().maxLateness()).isEqualTo(Duration.ofSeconds(900));
        assertThat(config.limits().relayMaxFuture()).isEqualTo(Duration.ofSeconds(900));
        assertThat(config.limits().maxPendingPerOwner()).isEqualTo(100);
        assertThat(config.limits().allowedKinds()).containsExactlyInAnyOrder(9, 40002, 40008, 45001, 45003, 1);
        assertThat(config.delivery().lease()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.delivery().publishTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.delivery().retention()).isEqualTo(Duration.ofDays(7));
        assertThat(config.relay().informationRefresh()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.access().nip29PageSize()).isEqualTo(100);
        assertThat(config.http().connections()).isEqualTo(new ConnectionLimits(1024, 64, Duration.ofSeconds(10),
                Duration.ofSeconds(30), Duration.ofSeconds(30)));
    }

    @Test
    void connectionLimits_set_areKept_andZeroSwitchesThePerAddressCapOff() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_HTTP_MAX_CONNECTIONS", "5000",
                "BUZZ_HTTP_MAX_CONNECTIONS_PER_IP", "0", "BUZZ_HTTP_HEADER_TIMEOUT_SECONDS", "5",
                "BUZZ_HTTP_BODY_TIMEOUT_SECONDS", "60"));

        assertThat(config.http().connections()).isEqualTo(new ConnectionLimits(5000, 0, Duration.ofSeconds(5),
                Duration.ofSeconds(60), ConnectionLimits.DEFAULT_IDLE_TIMEOUT));
    }

    @Test
    void nostrFeatures_unset_areOffWithTheirDefaultBounds() {
        SidecarConfig.Nostr nostr = SidecarConfig.fromEnvironment(Map.of()).nostr();

        assertThat(nostr).isEqualTo(new SidecarConfig.Nostr(false, 30, 512 * 1024, false, 12, false));
    }

    @Test
    void nostrFeatures_set_areKept() {
        SidecarConfig.Nostr nostr = SidecarConfig.fromEnvironment(Map.of("BUZZ_SCHEDULED_MESSAGES", "on",
                "BUZZ_DVM", "on", "BUZZ_DVM_REQUESTS_PER_MINUTE", "5", "BUZZ_DVM_MAX_REQUEST_BYTES", "4096",
                "BUZZ_NOTICES", "true", "BUZZ_NOTICES_PER_OWNER_PER_HOUR", "3", "BUZZ_NOTICE_PRIVATE_RELAYS", "1"))
                .nostr();

        assertThat(nostr).isEqualTo(new SidecarConfig.Nostr(true, 5, 4096, true, 3, true));
    }

    @Test
    void dvm_withoutScheduledMessages_stopsStartUpNamingBoth() {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of("BUZZ_DVM", "on")))
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.variable()).isEqualTo("BUZZ_DVM");
                    assertThat(e.getMessage()).contains("BUZZ_SCHEDULED_MESSAGES=on");
                });
    }

    @ParameterizedTest
    @CsvSource({"BUZZ_NOTICES,loud", "BUZZ_DVM_REQUESTS_PER_MINUTE,0", "BUZZ_DVM_MAX_REQUEST_BYTES,10",
            "BUZZ_NOTICES_PER_OWNER_PER_HOUR,0", "BUZZ_NOTICE_PRIVATE_RELAYS,maybe"})
    void nostrFeatures_invalidValue_stopsStartUpNamingTheVariable(String variable, String value) {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of(variable, value)))
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.variable()).isEqualTo(variable));
    }

    @Test
    void relayInformationRefreshAndNip29PageSize_set_areKept() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_RELAY_INFO_REFRESH_SECONDS", "60",
                "BUZZ_NIP29_PAGE_SIZE", "250"));

        assertThat(config.relay().informationRefresh()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.access().nip29PageSize()).isEqualTo(250);
    }

    @Test
    void fromEnvironment_everySpecVariableSet_readsEachOne() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.ofEntries(
                Map.entry("BUZZ_SCHEDULED_MESSAGES", "on"),
                Map.entry("DATABASE_URL", "postgres://u:p@db.internal:5433/buzz"),
                Map.entry("BUZZ_DATA_DIR", "/srv/buzz"),
                Map.entry("RELAY_URL", "wss://relay.example.com/"),
                Map.entry("HTTP_HOST", "0.0.0.0"),
                Map.entry("HTTP_PORT", "9000"),
                Map.entry("PUBLIC_BASE_URL", "https://chat.example.com/sched/"),
                Map.entry("SIDECAR_SECRET_KEY_FILE", "/etc/buzz/key"),
                Map.entry("RELAY_OPERATOR_PUBKEYS", KEY_A + ", " + KEY_B + ","),
                Map.entry("BUZZ_ACCESS_POLICY", "NIP29"),
                Map.entry("BUZZ_MAX_HORIZON_DAYS", "30"),
                Map.entry("BUZZ_MAX_LATENESS_SECONDS", "600"),
                Map.entry("BUZZ_RELAY_MAX_FUTURE_SECONDS", "300"),
                Map.entry("BUZZ_MAX_PENDING_PER_OWNER", "5")));

        assertThat(config.scheduledMessages()).isTrue();
        assertThat(config.database().url()).contains("postgres://u:p@db.internal:5433/buzz");
        assertThat(config.dataDirectory()).isEqualTo(Path.of("/srv/buzz"));
        assertThat(config.relay().url()).isEqualTo(URI.create("wss://relay.example.com/"));
        assertThat(config.http().host()).isEqualTo("0.0.0.0");
        assertThat(config.http().port()).isEqualTo(9000);
        assertThat(config.http().publicBaseUrl()).isEqualTo(URI.create("https://chat.example.com/sched"));
        assertThat(config.relay().secretKeyFile()).isEqualTo(Path.of("/etc/buzz/key"));
        assertThat(config.access().operators()).containsExactlyInAnyOrder(new PublicKey(KEY_A), new PublicKey(KEY_B));
        assertThat(config.access().policy()).isEqualTo(AccessPolicyChoice.NIP29);
        assertThat(config.limits().horizon()).isEqualTo(Duration.ofDays(30));
        assertThat(config.limits().maxLateness()).isEqualTo(Duration.ofSeconds(600));
        assertThat(config.limits().relayMaxFuture()).isEqualTo(Duration.ofSeconds(300));
        assertThat(config.limits().maxPendingPerOwner()).isEqualTo(5);
    }

    @ParameterizedTest
    @CsvSource({"on,true", "ON,true", "true,true", "1,true", "off,false", "False,false", "0,false", "'  ',false"})
    void scheduledMessages_acceptedSpellings_turnTheFeatureOnOrOff(String value, boolean expected) {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_SCHEDULED_MESSAGES", value));

        assertThat(config.scheduledMessages()).isEqualTo(expected);
    }

    @Test
    void operatorPubkeys_npubAndHexMixed_decodeToTheSameKeysAsHex() {
        // NIP-19's example pair.
        String hex = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("RELAY_OPERATOR_PUBKEYS",
                "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg, " + KEY_A + ", " + hex));

        assertThat(config.access().operators()).containsExactlyInAnyOrder(new PublicKey(hex), new PublicKey(KEY_A));
    }

    @Test
    void keyFile_dataDirectorySet_defaultsToSidecarKeyInsideIt() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_DATA_DIR", "/data/buzz"));

        assertThat(config.relay().secretKeyFile()).isEqualTo(Path.of("/data/buzz/sidecar.key"));
    }

    @Test
    void publicBaseUrl_ipv6Host_isBracketedInTheDefault() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("HTTP_HOST", "::1", "HTTP_PORT", "8090"));

        assertThat(config.http().publicBaseUrl()).isEqualTo(URI.create("http://[::1]:8090"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "BUZZ_SCHEDULED_MESSAGES|yes please|must be on or off",
            "DATABASE_URL|mysql://u@h/db|must be postgres://",
            "HTTP_PORT|80a|must be a whole number from 1 to 65535 (TCP port), got '80a'",
            "HTTP_PORT|0|from 1 to 65535",
            "HTTP_PORT|65536|from 1 to 65535",
            "PUBLIC_BASE_URL|ftp://x.example|must be an absolute http(s) URL",
            "PUBLIC_BASE_URL|http://x.example/a?b=c|must not carry a ?query",
            "PUBLIC_BASE_URL|http://u:p@x.example|must not carry user info",
            "RELAY_URL|http://127.0.0.1:7777|must be a WebSocket URL starting with ws:// or wss://",
            "RELAY_URL|ws://|must",
            "RELAY_OPERATOR_PUBKEYS|ABCDEF|'ABCDEF' is not one",
            "RELAY_OPERATOR_PUBKEYS|npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjpth|checksum does not match",
            "RELAY_OPERATOR_PUBKEYS|nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5|64 lowercase hex",
            "BUZZ_ACCESS_POLICY|everyone|must be relay, nip29 or http, got 'everyone'",
            "BUZZ_MAX_HORIZON_DAYS|0|from 1 to 3650",
            "BUZZ_MAX_HORIZON_DAYS|1.5|got '1.5'",
            "BUZZ_MAX_LATENESS_SECONDS|-1|from 1 to",
            "BUZZ_RELAY_MAX_FUTURE_SECONDS|ten|got 'ten'",
            "BUZZ_MAX_PENDING_PER_OWNER|0|from 1 to",
            "BUZZ_ALLOWED_KINDS|9,x|'x' is not one",
            "BUZZ_ALLOWED_KINDS|70000|'70000' is not one",
            "BUZZ_ALLOWED_KINDS|',,'|must name at least one event kind",
            "BUZZ_DB_POOL_SIZE|1|from 2 to 200",
            "BUZZ_LEASE_SECONDS|0|from 1 to",
            "BUZZ_PUBLISH_TIMEOUT_SECONDS|99999|from 1 to 600",
            "BUZZ_REAP_GRACE_SECONDS|x|got 'x'",
            "BUZZ_CLAIM_BATCH_SIZE|0|from 1 to",
            "BUZZ_MAX_IN_FLIGHT|0|from 1 to 10000",
            "BUZZ_POLL_SECONDS|0|from 1 to",
            "BUZZ_RETENTION_DAYS|0|from 1 to",
            "BUZZ_LOG_LEVEL|verbose|must be one of TRACE, DEBUG, INFO, WARN, ERROR, got 'verbose'",
            "BUZZ_LOG_FORMAT|xml|must be text or json, got 'xml'",
            "BUZZ_CORS_ORIGINS|chat.example.com|is not an origin",
            "BUZZ_CORS_ORIGINS|'*,https://a.example'|must stand alone",
            "BUZZ_NIP29_PAGE_SIZE|0|from 1 to 5000 (events)",
            "BUZZ_NIP29_PAGE_SIZE|5001|from 1 to 5000",
            "BUZZ_RELAY_INFO_REFRESH_SECONDS|0|from 1 to 86400",
            "BUZZ_RELAY_INFO_REFRESH_SECONDS|5m|got '5m'",
            "BUZZ_HTTP_MAX_CONNECTIONS|0|from 1 to 1000000 (connections)",
            "BUZZ_HTTP_MAX_CONNECTIONS|many|got 'many'",
            "BUZZ_HTTP_MAX_CONNECTIONS_PER_IP|-1|from 0 to 1000000 (connections; 0: no cap)",
            "BUZZ_HTTP_MAX_CONNECTIONS_PER_IP|2000|must not exceed BUZZ_HTTP_MAX_CONNECTIONS (1024)",
            "BUZZ_HTTP_HEADER_TIMEOUT_SECONDS|0|from 1 to 3600 (seconds)",
            "BUZZ_HTTP_BODY_TIMEOUT_SECONDS|0.5|got '0.5'",
            "BUZZ_MAX_EVENT_BYTES|1023|from 1024 to 1048576 (bytes)",
            "BUZZ_MAX_EVENT_TAGS|0|from 1 to 100000 (tags)",
            "BUZZ_OWNER_WRITES_PER_MINUTE|0|from 1 to 100000",
            "BUZZ_OWNER_WRITE_BURST|lots|got 'lots'",
            "BUZZ_MAX_REVISIONS_KEPT|0|from 1 to 100",
            "BUZZ_LIST_PAGE_MAX_BYTES|1000|from 65536 to",
            "BUZZ_CHANNEL_WINDOW_PER_OWNER|0|from 1 to",
            "BUZZ_CHANNEL_WINDOW_TOTAL|29|must not be below BUZZ_CHANNEL_WINDOW_PER_OWNER (30)"})
    void fromEnvironment_invalidValue_failsNamingTheVariable(String variable, String value, String expected) {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of(variable, value)))
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.variable()).isEqualTo(variable))
                .hasMessageStartingWith(variable)
                .hasMessageContaining(expected);
    }

    @Test
    void operations_setOrDefault_readLevelFormatAndOrigins() {
        SidecarConfig.Operations defaults = SidecarConfig.fromEnvironment(Map.of()).operations();
        SidecarConfig.Operations set = SidecarConfig.fromEnvironment(Map.of("BUZZ_LOG_LEVEL", "debug",
                "BUZZ_LOG_FORMAT", "JSON", "BUZZ_CORS_ORIGINS", "https://chat.example.com, https://b.example:8443"))
                .operations();

        assertThat(defaults.logLevel()).isEqualTo(SidecarConfig.LogLevel.INFO);
        assertThat(defaults.logFormat()).isEqualTo(SidecarConfig.LogFormat.TEXT);
        assertThat(defaults.cors().enabled()).isFalse();
        assertThat(set.logLevel()).isEqualTo(SidecarConfig.LogLevel.DEBUG);
        assertThat(set.logFormat()).isEqualTo(SidecarConfig.LogFormat.JSON);
        assertThat(set.cors().origins()).containsExactlyInAnyOrder("https://chat.example.com", "https://b.example:8443");
    }

    @Test
    void lease_notLongerThanPublishTimeoutPlusMargin_failsNamingBothValues() {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of(
                "BUZZ_LEASE_SECONDS", "10", "BUZZ_PUBLISH_TIMEOUT_SECONDS", "30")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("BUZZ_LEASE_SECONDS (10) must be longer than BUZZ_PUBLISH_TIMEOUT_SECONDS (30) plus"
                        + " BUZZ_LEASE_MARGIN_SECONDS (5): a claim must outlive the longest wait for the relay");
    }

    @Test
    void retryMax_belowRetryBase_failsNamingBoth() {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of(
                "BUZZ_RETRY_BASE_SECONDS", "30", "BUZZ_RETRY_MAX_SECONDS", "10")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("BUZZ_RETRY_MAX_SECONDS (10) must not be below BUZZ_RETRY_BASE_SECONDS (30)");
    }

    @Test
    void claimBatch_largerThanMaxInFlight_failsNamingBoth() {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of(
                "BUZZ_CLAIM_BATCH_SIZE", "50", "BUZZ_MAX_IN_FLIGHT", "10")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("BUZZ_CLAIM_BATCH_SIZE (50) must not exceed BUZZ_MAX_IN_FLIGHT (10)");
    }

    @Test
    void claimBatch_unsetWithSmallMaxInFlight_followsMaxInFlight() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_MAX_IN_FLIGHT", "4"));

        assertThat(config.delivery().claimBatchSize()).isEqualTo(4);
        assertThat(config.delivery().maxInFlight()).isEqualTo(4);
    }

    @Test
    void httpAccessPolicy_withoutAccessUrl_failsNamingBuzzAccessUrl() {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of("BUZZ_ACCESS_POLICY", "http")))
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.variable()).isEqualTo("BUZZ_ACCESS_URL"))
                .hasMessage("BUZZ_ACCESS_URL must be set when BUZZ_ACCESS_POLICY=http (the URL the access callback"
                        + " is sent to)");
    }

    @Test
    void httpAccessPolicy_withAccessUrl_keepsIt() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_ACCESS_POLICY", "http",
                "BUZZ_ACCESS_URL", "https://auth.example.com/check"));

        assertThat(config.access().policy()).isEqualTo(AccessPolicyChoice.HTTP);
        assertThat(config.access().accessUrl()).contains(URI.create("https://auth.example.com/check"));
    }

    @Test
    void accessCallbackUrl_oldName_isNotRead() {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of("BUZZ_ACCESS_POLICY", "http",
                "BUZZ_ACCESS_CALLBACK_URL", "https://auth.example.com/check")))
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.variable()).isEqualTo("BUZZ_ACCESS_URL"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "ftp://auth.example.com/check | BUZZ_ACCESS_URL must be an absolute http(s) URL starting with http:// or https://, got 'ftp://auth.example.com/check'",
            "/check                       | BUZZ_ACCESS_URL must be an absolute http(s) URL starting with http:// or https://, got '/check'",
            "http://user:pw@auth/check     | BUZZ_ACCESS_URL must not carry user info or a #fragment, got 'http://user:pw@auth/check'",
            "http://auth example/         | BUZZ_ACCESS_URL must be an absolute http(s) URL, got 'http://auth example/' (Illegal character in authority at index 11)"})
    void accessUrl_malformed_failsNamingBuzzAccessUrl(String value, String message) {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of("BUZZ_ACCESS_POLICY", "http",
                "BUZZ_ACCESS_URL", value)))
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.variable()).isEqualTo("BUZZ_ACCESS_URL"))
                .hasMessage(message);
    }

    @Test
    void relayPubkey_unset_isEmptySoTheNip11KeyIsUsed() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_ACCESS_POLICY", "nip29"));

        assertThat(config.access().relayPubkey()).isEmpty();
        assertThat(config.access().accessUrl()).isEmpty();
    }

    @Test
    void relayPubkey_set_isKept() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_ACCESS_POLICY", "nip29",
                "BUZZ_RELAY_PUBKEY", " " + KEY_B + " "));

        assertThat(config.access().relayPubkey()).contains(new PublicKey(KEY_B));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "npub1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef00",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg"})
    void relayPubkey_malformed_failsNamingBuzzRelayPubkey(String value) {
        assertThatThrownBy(() -> SidecarConfig.fromEnvironment(Map.of("BUZZ_RELAY_PUBKEY", value)))
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.variable()).isEqualTo("BUZZ_RELAY_PUBKEY"))
                .hasMessage("BUZZ_RELAY_PUBKEY must be the relay's pubkey, 64 lowercase hex characters, got '"
                        + value + "'");
    }

    @Test
    void retentionSettings_fromRetentionDays_keepTheDaysWithDefaultBatches() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_RETENTION_DAYS", "30"));

        RetentionSettings settings = config.retentionSettings();

        assertThat(settings.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(settings.batchSize()).isEqualTo(500);
        assertThat(settings.maxBatchesPerPass()).isEqualTo(RetentionSettings.DEFAULT_MAX_BATCHES_PER_PASS);
        assertThat(SidecarConfig.fromEnvironment(Map.of()).retentionSettings().retention())
                .isEqualTo(Duration.ofDays(7));
    }

    @Test
    void allowedKinds_set_replacesTheDefaults() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_ALLOWED_KINDS", " 9 , 1,"));

        assertThat(config.limits().allowedKinds()).containsExactlyInAnyOrder(9, 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql://127.0.0.1:5432/buzz?user=postgres", "postgresql://h/db"})
    void databaseUrl_acceptedForms_areKept(String url) {
        assertThat(SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", url)).database().url()).isEqualTo(Optional.of(url));
    }

    @Test
    void schedulingSettings_fromLimits_carryKindsHorizonPendingAndRelayWindow() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_ALLOWED_KINDS", "9",
                "BUZZ_MAX_HORIZON_DAYS", "2", "BUZZ_MAX_PENDING_PER_OWNER", "7", "BUZZ_RELAY_MAX_FUTURE_SECONDS", "60"));

        SchedulingSettings settings = config.schedulingSettings();

        assertThat(settings.rules().allowedKinds()).isEqualTo(Set.of(9));
        assertThat(settings.rules().horizon()).isEqualTo(Duration.ofDays(2));
        assertThat(settings.limits().maxPendingPerOwner()).isEqualTo(7);
        assertThat(settings.limits().maxPerOwnerInChannelWindow()).isEqualTo(30);
        assertThat(settings.limits().maxPerChannelWindow()).isEqualTo(300);
        assertThat(settings.limits().channelWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.relayWindow()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void ownerLimits_unset_areTheSafeDefaults_andReachTheSchedulingSettings() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of());

        assertThat(config.ownerLimits()).isEqualTo(new SidecarConfig.OwnerLimits(300 * 1024, 1000, 60, 30, 1,
                1024 * 1024, 30, 300));
        assertThat(config.schedulingSettings().rules().maxEventBytes()).isEqualTo(300 * 1024);
        assertThat(config.schedulingSettings().limits().revisionsKept()).isEqualTo(1);
    }

    @Test
    void ownerLimits_set_areKept() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_MAX_EVENT_BYTES", "100000",
                "BUZZ_MAX_EVENT_TAGS", "50", "BUZZ_OWNER_WRITES_PER_MINUTE", "10", "BUZZ_OWNER_WRITE_BURST", "5",
                "BUZZ_MAX_REVISIONS_KEPT", "3", "BUZZ_LIST_PAGE_MAX_BYTES", "65536",
                "BUZZ_CHANNEL_WINDOW_PER_OWNER", "500"));

        assertThat(config.ownerLimits()).isEqualTo(new SidecarConfig.OwnerLimits(100_000, 50, 10, 5, 3, 65_536, 500,
                500));
        SchedulingSettings settings = config.schedulingSettings();
        assertThat(settings.rules().maxEventTags()).isEqualTo(50);
        assertThat(settings.limits().maxPerOwnerInChannelWindow()).isEqualTo(500);
        assertThat(settings.limits().maxPerChannelWindow()).as("the total follows a larger per-owner count")
                .isEqualTo(500);
        assertThat(settings.limits().revisionsKept()).isEqualTo(3);
    }

    @Test
    void deliverySettings_fromTiming_carryLeaseTimeoutMarginGraceLatenessAndBackoff() {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("BUZZ_LEASE_SECONDS", "40",
                "BUZZ_PUBLISH_TIMEOUT_SECONDS", "8", "BUZZ_LEASE_MARGIN_SECONDS", "4", "BUZZ_REAP_GRACE_SECONDS", "3",
                "BUZZ_MAX_LATENESS_SECONDS", "120", "BUZZ_RETRY_BASE_SECONDS", "1", "BUZZ_RETRY_MAX_SECONDS", "16"));

        DeliverySettings settings = config.deliverySettings(() -> 0.0);

        assertThat(settings.lease()).isEqualTo(Duration.ofSeconds(40));
        assertThat(settings.publishTimeout()).isEqualTo(Duration.ofSeconds(8));
        assertThat(settings.safetyMargin()).isEqualTo(Duration.ofSeconds(4));
        assertThat(settings.reapGrace()).isEqualTo(Duration.ofSeconds(3));
        assertThat(settings.maxLateness()).isEqualTo(Duration.ofSeconds(120));
        assertThat(settings.backoff().delay(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.backoff().delay(10)).isEqualTo(Duration.ofSeconds(8));
    }
}
