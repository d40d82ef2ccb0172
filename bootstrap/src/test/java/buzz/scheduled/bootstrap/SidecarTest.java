package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.nip29.GroupFeed;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import buzz.scheduled.application.port.in.PruneRetentionUseCase;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.application.service.RetentionService;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.nostr.NostrEvent;
import com.google.inject.Key;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve}'s parts against an external database ({@code DATABASE_URL} set), in this JVM. */
class SidecarTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    @TempDir
    Path dataDir;

    @Test
    void start_externalDatabase_migratesCreatesTheKeyWiresAndAnswersHealthAndReadiness() throws Exception {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(freePort())));

        try (Sidecar sidecar = new Sidecar()) {
            sidecar.start(config);

            assertThat(get(sidecar.httpPort(), "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(sidecar.httpPort(), "/healthz").body()).contains("up");
            HttpResponse<String> ready = get(sidecar.httpPort(), "/readyz");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).contains("ready");
            assertThat(get(sidecar.httpPort(), "/nothing-here").statusCode()).isEqualTo(404);
            assertThat(appliedMigrations()).isPositive();
            assertThat(sidecar.injector().getInstance(WallClock.class)).isInstanceOf(SystemWallClock.class);
            assertThat(sidecar.injector().getInstance(ScheduleIdSource.class).next())
                    .isNotEqualTo(sidecar.injector().getInstance(ScheduleIdSource.class).next());
            assertThat(sidecar.injector().getInstance(AccessPolicy.class)).isInstanceOf(RelayDecidesAccess.class);
            assertThat(sidecar.injector().getExistingBinding(Key.get(GroupFeed.class)))
                    .as("no NIP-29 feed unless BUZZ_ACCESS_POLICY=nip29").isNull();
            assertThat(sidecar.injector().getInstance(DeliverySettings.class).lease()).isEqualTo(Duration.ofSeconds(60));
            assertThat(sidecar.injector().getInstance(EventSignatures.class)).isInstanceOf(Bip340EventSignatures.class);
            assertThat(sidecar.injector().getInstance(SecretKey.class))
                    .isEqualTo(SecretKeyFile.read(dataDir.resolve("sidecar.key")));
        }
    }

    @Test
    void ownerRoutes_realSignatures_scheduleAndReadBackAndRefuseAForgedSignature() throws Exception {
        int port = freePort();
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port), "BUZZ_SCHEDULED_MESSAGES", "on"));

        try (Sidecar sidecar = new Sidecar()) {
            sidecar.start(config);
            OwnerClient owner = new OwnerClient(port);
            NostrEvent event = owner.message("general", "standup in an hour", Duration.ofHours(1));

            OwnerClient.Reply created = owner.schedule(event);
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            OwnerClient.Reply read = owner.get(created.json().get("id").asText());
            assertThat(read.status()).as(read.text()).isEqualTo(200);
            assertThat(read.json().get("event_id").asText()).isEqualTo(event.id().hex());
            assertThat(read.json().get("state").asText()).isEqualTo("scheduled");

            NostrEvent other = owner.message("general", "another text", Duration.ofHours(2));
            NostrEvent forged = new NostrEvent(other.id(), other.pubkey(), other.createdAt(), other.kind(), other.tags(),
                    other.content(), event.sig());
            OwnerClient.Reply refused = owner.schedule(forged);
            assertThat(refused.status()).as(refused.text()).isEqualTo(400);
            assertThat(refused.json().get("error").asText()).isEqualTo("invalid_event");
        }
    }

    @Test
    void serve_portAlreadyTaken_exitsWith1NamingTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Main main = new Main(Map.of("DATABASE_URL", DATABASE.jdbcUrl(), "BUZZ_DATA_DIR", dataDir.toString(),
                    "HTTP_PORT", Integer.toString(taken.getLocalPort())),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

            int code = main.run(new String[] {"serve"});

            assertThat(code).isEqualTo(Main.EXIT_FAILED);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("serve failed")
                    .contains("cannot listen on 127.0.0.1:" + taken.getLocalPort() + " (HTTP_HOST, HTTP_PORT)")
                    .contains("already in use");
        }
    }

    @Test
    void migrate_externalDatabase_reportsTheSchemaVersion() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Main main = new Main(Map.of("DATABASE_URL", DATABASE.jdbcUrl(), "BUZZ_DATA_DIR", dataDir.toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        int code = main.run(new String[] {"migrate"});

        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).matches("(?s)schema at version \\d+, \\d+ migration\\(s\\) applied\\R");
    }

    @Test
    void run_invalidConfiguration_exitsWith2NamingTheVariable() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(Map.of("HTTP_PORT", "eighty"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int code = main.run(new String[] {"serve"});

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("serve: invalid configuration: HTTP_PORT must be a whole number");
    }

    @Test
    void serve_httpPolicyWithoutAccessUrl_exitsWith2BeforeTouchingTheDatabase() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(Map.of("BUZZ_ACCESS_POLICY", "http", "BUZZ_DATA_DIR", dataDir.toString()),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int code = main.run(new String[] {"serve"});

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("serve: invalid configuration: BUZZ_ACCESS_URL must be set when BUZZ_ACCESS_POLICY=http");
        assertThat(dataDir.resolve("pgdata")).doesNotExist();
    }

    @Test
    void retention_configuredDays_prunesOnlyTerminalMessagesThatEndedEarlier() throws Exception {
        SidecarConfig config = SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(freePort()),
                "BUZZ_RETENTION_DAYS", "3"));

        try (Sidecar sidecar = new Sidecar()) {
            sidecar.start(config);
            String old = terminalMessage(Duration.ofDays(4));
            String recent = terminalMessage(Duration.ofDays(2));
            PruneRetentionUseCase retention = sidecar.injector().getInstance(PruneRetentionUseCase.class);

            int pruned = retention.prune();

            assertThat(retention).isInstanceOf(RetentionService.class);
            assertThat(pruned).isEqualTo(1);
            assertThat(messageIds()).contains(recent).doesNotContain(old);
        }
    }

    @Test
    void run_unknownCommandOrNone_printsUsageAndExitsWith2() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(Map.of(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(main.run(new String[] {"launch"})).isEqualTo(Main.EXIT_USAGE);
        assertThat(main.run(new String[] {})).isEqualTo(Main.EXIT_USAGE);
        assertThat(main.run(new String[] {"serve", "--now"})).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'launch'").contains("usage:")
                .contains("serve takes no options");
    }

    /** A cancelled message whose end lies {@code ago} in the past; returns its id. */
    private static String terminalMessage(Duration ago) throws Exception {
        String id = UUID.randomUUID().toString();
        try (Connection connection = DATABASE.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO scheduled_message"
                     + " (id, owner, channel, revision, state, event_id, due_at, finished_at)"
                     + " VALUES (?::uuid, ?, 'general', 1, 'cancelled', ?, now() - ? * interval '1 second',"
                     + " now() - ? * interval '1 second')")) {
            insert.setString(1, id);
            insert.setString(2, "a".repeat(64));
            insert.setString(3, id.replace("-", "").repeat(2));
            insert.setLong(4, ago.toSeconds() + 3_600);
            insert.setLong(5, ago.toSeconds());
            insert.executeUpdate();
        }
        return id;
    }

    private static List<String> messageIds() throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection connection = DATABASE.dataSource().getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT id::text FROM scheduled_message")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    private static int appliedMigrations() throws Exception {
        try (Connection connection = DATABASE.dataSource().getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT count(*) FROM flyway_schema_history WHERE success")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}
