package buzz.scheduled.bootstrap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ClientCommands} in this JVM: the exit code and message of each way a command can fail before or instead of a
 * refusal (the real sidecar's refusals are in {@code ClientCommandsProcessTest}), and the exact request a command
 * sends. The stand-in sidecar here is the JDK's HTTP server, for answers the real one does not give on demand (503,
 * a proxy's HTML) and to look at the request bytes.
 */
class ClientCommandsTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ID = "0190f3c2-7d4e-7a51-9b3c-2f1e8d7c6b5a";
    private static final SecretKey AUTHOR = new SecretKey("67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa");
    private static final String SERIES = "7b0d1c2e-3f40-4a51-8b62-9c7d8e9fa0b1";
    private static final String ITEM = "{\"id\":\"" + ID + "\",\"revision\":1,\"state\":\"scheduled\",\"reason\":null,"
            + "\"channel\":\"ops\",\"event_id\":\"" + "e".repeat(64) + "\",\"due_at\":1773561600,\"attempts\":0,"
            + "\"created_at\":1772323200,\"updated_at\":1772323200,\"published_at\":null,\"series_id\":\"" + SERIES
            + "\"}";

    @TempDir
    Path work;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<Recorded> requests = new ArrayList<>();
    private HttpServer server;

    /** A request as the stand-in sidecar received it. */
    record Recorded(String method, String pathAndQuery, Map<String, List<String>> headers, byte[] body) {
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void run_noKeyFileGiven_exitsWithTheKeyCodeSayingHowToGiveOne() {
        int code = run(Map.of(), "list");

        assertThat(code).isEqualTo(ClientCommands.EXIT_KEY);
        assertThat(stderr()).isEqualTo("list: no author key: pass --key-file <file> or set BUZZ_AUTHOR_KEY_FILE (the"
                + " file holds the secret key as 64 hex characters or nsec1...)\n");
    }

    @Test
    void run_keyFileMissing_exitsWithTheKeyCodeNamingTheFile() {
        Path missing = work.resolve("nope.key");

        int code = run(Map.of(), "list", "--key-file", missing.toString());

        assertThat(code).isEqualTo(ClientCommands.EXIT_KEY);
        assertThat(stderr()).contains("key file " + missing + " does not exist");
    }

    @Test
    void run_keyFileReadableByItsGroup_isRefusedWithTheChmodToRun() throws IOException {
        Path file = keyFile("author.key", AUTHOR.hex(), "rw-r-----");

        int code = run(Map.of(), "list", "--key-file", file.toString());

        assertThat(code).isEqualTo(ClientCommands.EXIT_KEY);
        assertThat(stderr()).contains("is accessible to its group or other users (mode rw-r-----); run: chmod 600 " + file);
    }

    @Test
    void run_keyFileNotAKey_isRefusedWithoutShowingItsContent() throws IOException {
        Path file = keyFile("author.key", "hunter2", "rw-------");
        Path badNsec = keyFile("author.nsec", "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe6", "rw-------");

        int code = run(Map.of(), "list", "--key-file", file.toString());
        int nsecCode = run(Map.of(), "list", "--key-file", badNsec.toString());

        assertThat(code).isEqualTo(ClientCommands.EXIT_KEY);
        assertThat(nsecCode).isEqualTo(ClientCommands.EXIT_KEY);
        assertThat(stderr()).contains("does not hold a key: it has 7 characters (expected one line: the secret key as"
                        + " 64 hex characters or nsec1...)")
                .contains("holds an nsec that does not decode: bech32 checksum does not match")
                .doesNotContain("hunter2").doesNotContain("vl029");
    }

    @Test
    void authorKey_hexUppercaseHexAndNsec_areTheSameKey() throws IOException {
        SecretKey hex = AuthorKey.read(keyFile("a.key", AUTHOR.hex(), "rw-------"));
        SecretKey upper = AuthorKey.read(keyFile("b.key", AUTHOR.hex().toUpperCase() + "\n", "rw-------"));
        SecretKey nsec = AuthorKey.read(keyFile("c.key", Nip19.nsec(AUTHOR.hex()) + "\n", "rw-------"));

        assertThat(List.of(hex, upper, nsec)).containsOnly(AUTHOR);
    }

    @Test
    void run_badUrl_isAUsageFailure() throws IOException {
        int code = run(Map.of(ClientCommands.BUZZ_URL, "127.0.0.1:8088"), "list", "--key-file",
                keyFile("a.key", AUTHOR.hex(), "rw-------").toString());

        assertThat(code).isEqualTo(ClientCommands.EXIT_USAGE);
        assertThat(stderr()).startsWith("list: --url (or BUZZ_URL) must be the sidecar's absolute http(s) URL")
                .contains("see: java -jar buzz-scheduled-delivery.jar list --help");
    }

    @Test
    void run_unknownOption_isAUsageFailureBeforeTheKeyIsRead() {
        int code = run(Map.of(), "cancel", ID, "--force");

        assertThat(code).isEqualTo(ClientCommands.EXIT_USAGE);
        assertThat(stderr()).startsWith("cancel: unknown option --force for cancel; its options are --channel,"
                + " --due-after, --due-before, --series, --tz\n");
    }

    @Test
    void run_help_printsTheUsageOnStdoutAndSucceeds() {
        int code = run(Map.of(), "send-now", "--help");

        assertThat(code).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(stdout()).startsWith("usage: java -jar buzz-scheduled-delivery.jar send-now <id>");
        assertThat(stderr()).isEmpty();
    }

    @Test
    void run_nothingListening_exitsUnreachable() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }

        int code = run(environment("http://127.0.0.1:" + port), "get", ID);

        assertThat(code).isEqualTo(ClientCommands.EXIT_UNREACHABLE);
        assertThat(stderr()).isEqualTo("get: cannot connect to the sidecar at http://127.0.0.1:" + port
                + " (is serve running there? check --url or BUZZ_URL)\n");
    }

    @Test
    void run_unavailable503_exitsUnreachableWithTheApiMessageAndRetryAfter() throws IOException {
        String answer = "{\"error\":\"unavailable\",\"message\":\"the database did not answer in time\"}";
        String url = serve(503, "application/json", answer, Map.of("Retry-After", "2"));

        int code = run(environment(url), "get", ID, "--json");

        assertThat(code).isEqualTo(ClientCommands.EXIT_UNREACHABLE);
        assertThat(stdout()).isEqualTo(answer + "\n");
        assertThat(stderr()).isEqualTo("get: the sidecar is unavailable (HTTP 503 unavailable: the database did not"
                + " answer in time); try again in 2 s\n");
    }

    @Test
    void run_answerThatIsNotTheApis_exitsFailedAskingWhetherTheUrlIsTheSidecar() throws IOException {
        String url = serve(404, "text/html", "<html>Not Found</html>", Map.of());

        int code = run(environment(url), "list");

        assertThat(code).isEqualTo(ClientCommands.EXIT_FAILED);
        assertThat(stderr()).isEqualTo("list: unexpected answer to GET " + url + "/v1/scheduled-messages: HTTP 404"
                + " text/html: <html>Not Found</html> (is --url the sidecar?)\n");
    }

    @Test
    void schedule_request_isTheSignedEventWithANip98HeaderForItsExactBytes() throws Exception {
        String item = "{\"id\":\"" + ID + "\",\"revision\":1,\"state\":\"scheduled\",\"reason\":null,\"channel\":"
                + "\"general\",\"event_id\":\"" + "e".repeat(64) + "\",\"due_at\":1893456600,\"attempts\":0,"
                + "\"created_at\":1893456000,\"updated_at\":1893456000,\"published_at\":null}";
        String url = serve(201, "application/json", item, Map.of());
        Path nsecFile = keyFile("author.nsec", Nip19.nsec(AUTHOR.hex()), "rw-------");

        int code = run(Map.of(ClientCommands.BUZZ_URL, url + "/"), "schedule", "--channel", "general", "--in", "10m",
                "--tag", "subject=plans", "--key-file", nsecFile.toString(), "see", "you");

        assertThat(code).as(stderr()).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(stdout()).isEqualTo("scheduled " + ID + "  scheduled  due 2030-01-01T00:10:00Z (in 10m 0s)  channel"
                + " general  revision 1\n");
        Recorded request = requests.getFirst();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.pathAndQuery()).isEqualTo("/v1/scheduled-messages");
        assertThat(request.headers().get("Content-type")).containsExactly("application/json");
        String body = new String(request.body(), StandardCharsets.UTF_8);
        assertThat(body).startsWith("{\"event\":{").endsWith("}}");
        NostrEvent event = event(body.substring("{\"event\":".length(), body.length() - 1));
        assertThat(event.pubkey()).isEqualTo(AUTHOR.publicKey());
        assertThat(event.createdAt()).isEqualTo(NOW.getEpochSecond() + 600);
        assertThat(event.kind()).isEqualTo(9);
        assertThat(event.tags()).containsExactly(List.of("h", "general"), List.of("subject", "plans"));
        assertThat(event.content()).isEqualTo("see you");
        assertThat(new Bip340EventSignatures().verify(event)).isInstanceOf(EventSignatures.Verdict.Valid.class);

        String header = request.headers().get("Authorization").getFirst();
        assertThat(header).startsWith("Nostr ");
        NostrEvent auth = event(new String(Base64.getDecoder().decode(header.substring(6)), StandardCharsets.UTF_8));
        assertThat(auth.kind()).isEqualTo(27235);
        assertThat(auth.createdAt()).isEqualTo(NOW.getEpochSecond());
        assertThat(auth.pubkey()).isEqualTo(AUTHOR.publicKey());
        assertThat(auth.firstTagValue("u")).contains(url + "/v1/scheduled-messages");
        assertThat(auth.firstTagValue("method")).contains("POST");
        assertThat(auth.firstTagValue("payload")).contains(Hex.encode(
                MessageDigest.getInstance("SHA-256").digest(request.body())));
        assertThat(auth.firstTagValue("nonce")).hasValueSatisfying(nonce -> assertThat(nonce).matches("[0-9a-f]{32}"));
        assertThat(new Bip340EventSignatures().verify(auth)).isInstanceOf(EventSignatures.Verdict.Valid.class);
    }

    @Test
    void list_filters_goIntoTheQueryAndTheNip98UrlAndNoPayloadTag() throws Exception {
        String url = serve(200, "application/json", "{\"items\":[],\"next_cursor\":null}", Map.of());

        int code = run(environment(url), "list", "--state", "published,failed", "--channel", "a b", "--limit", "5");

        assertThat(code).as(stderr()).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(stdout()).isEqualTo("no messages in state published, failed in channel a b\n");
        Recorded request = requests.getFirst();
        assertThat(request.pathAndQuery()).isEqualTo("/v1/scheduled-messages?state=published,failed&channel=a%20b&limit=5");
        NostrEvent auth = event(new String(Base64.getDecoder().decode(
                request.headers().get("Authorization").getFirst().substring(6)), StandardCharsets.UTF_8));
        assertThat(auth.firstTagValue("u")).contains(url + request.pathAndQuery());
        assertThat(auth.firstTagValue("method")).contains("GET");
        assertThat(auth.tagValues("payload")).isEmpty();
    }

    @Test
    void schedule_weeklySeriesInBerlin_signsEachOccurrenceAtNineLocalAcrossBothChangesInOneSeriesBatch()
            throws Exception {
        String items = String.join(",", java.util.Collections.nCopies(4, "{\"status\":201,\"item\":" + ITEM + "}"));
        String url = serve(200, "application/json", "{\"results\":[" + items + "],\"series_id\":\"" + SERIES
                + "\"}", Map.of());

        int march = runAt(Instant.parse("2026-03-01T00:00:00Z"), environment(url), "schedule", "--channel", "ops",
                "--at", "2026-03-15 09:00", "--tz", "Europe/Berlin", "--every", "1w", "--count", "4", "stand-up");
        int october = runAt(Instant.parse("2026-10-01T00:00:00Z"), environment(url), "schedule", "--channel", "ops",
                "--at", "2026-10-11T09:00", "--tz", "Europe/Berlin", "--every", "1w", "--count", "4", "stand-up");

        assertThat(march).as(stderr()).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(october).as(stderr()).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(requests).extracting(Recorded::method, Recorded::pathAndQuery).containsOnly(
                org.assertj.core.groups.Tuple.tuple("POST", "/v1/scheduled-messages/batch"));
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        List<List<NostrEvent>> series = requests.stream().map(request -> batchEvents(request.body())).toList();
        for (List<NostrEvent> occurrences : series) {
            assertThat(occurrences).hasSize(4).allSatisfy(event -> {
                assertThat(Instant.ofEpochSecond(event.createdAt()).atZone(berlin).toLocalTime())
                        .as("09:00 in Berlin").isEqualTo(java.time.LocalTime.of(9, 0));
                assertThat(event.content()).isEqualTo("stand-up");
                assertThat(event.tags()).containsExactly(List.of("h", "ops"));
                assertThat(new Bip340EventSignatures().verify(event)).isInstanceOf(EventSignatures.Verdict.Valid.class);
            });
        }
        assertThat(series.get(0)).extracting(event -> Instant.ofEpochSecond(event.createdAt())).containsExactly(
                Instant.parse("2026-03-15T08:00:00Z"), Instant.parse("2026-03-22T08:00:00Z"),
                Instant.parse("2026-03-29T07:00:00Z"), Instant.parse("2026-04-05T07:00:00Z"));
        assertThat(series.get(1)).extracting(event -> Instant.ofEpochSecond(event.createdAt())).containsExactly(
                Instant.parse("2026-10-11T07:00:00Z"), Instant.parse("2026-10-18T07:00:00Z"),
                Instant.parse("2026-10-25T08:00:00Z"), Instant.parse("2026-11-01T08:00:00Z"));
        String body = new String(requests.getFirst().body(), StandardCharsets.UTF_8);
        assertThat(body).startsWith("{\"events\":[{").endsWith("}],\"series\":true}");
        NostrEvent auth = event(new String(Base64.getDecoder().decode(
                requests.getFirst().headers().get("Authorization").getFirst().substring(6)), StandardCharsets.UTF_8));
        assertThat(auth.firstTagValue("payload")).as("one header covering the whole batch").contains(Hex.encode(
                MessageDigest.getInstance("SHA-256").digest(requests.getFirst().body())));
        assertThat(stdout()).startsWith("series " + SERIES + ": 4 of 4 scheduled, every 1w in Europe/Berlin\n  " + ID);
    }

    @Test
    void schedule_seriesWithARefusedOccurrence_printsTheRestAndExitsRefusedNamingIt() throws IOException {
        String url = serve(200, "application/json", "{\"results\":[{\"status\":201,\"item\":" + ITEM + "},"
                + "{\"status\":422,\"error\":\"time_too_far\",\"message\":\"created_at is more than 120 days"
                + " ahead\"}],\"series_id\":\"" + SERIES + "\"}", Map.of());

        int code = run(environment(url), "schedule", "--channel", "ops", "--in", "1d", "--tz", "UTC", "--every",
                "20w", "--count", "2", "far");

        assertThat(code).isEqualTo(ClientCommands.EXIT_REFUSED);
        assertThat(stdout()).startsWith("series " + SERIES + ": 1 of 2 scheduled")
                .contains("occurrence 2 refused: time_too_far: created_at is more than 120 days ahead");
        assertThat(stderr()).isEqualTo("schedule: occurrence 2 refused: HTTP 422 time_too_far: created_at is more"
                + " than 120 days ahead\n");
    }

    @Test
    void cancel_bySeriesAndByDueRange_postsTheSelectionAndPrintsTheCounts() throws IOException {
        String url = serve(200, "application/json", "{\"cancelled\":11,\"sending\":1}", Map.of());

        int bySeries = run(environment(url), "cancel", "--series", SERIES);
        int byRange = run(environment(url), "cancel", "--channel", "ops", "--due-before", "2030-01-08 00:00", "--tz",
                "Europe/Berlin");

        assertThat(bySeries).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(byRange).isEqualTo(ClientCommands.EXIT_OK);
        assertThat(requests).extracting(Recorded::pathAndQuery).containsOnly("/v1/scheduled-messages/cancel");
        assertThat(new String(requests.get(0).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"series\":\"" + SERIES + "\"}");
        assertThat(new String(requests.get(1).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"channel\":\"ops\",\"due_before\":" + Instant.parse("2030-01-07T23:00:00Z").getEpochSecond()
                        + "}");
        assertThat(stdout()).isEqualTo("cancelled 11 pending messages; 1 being sent right now could not be stopped\n"
                .repeat(2));
    }

    private static List<NostrEvent> batchEvents(byte[] body) {
        try {
            com.fasterxml.jackson.databind.JsonNode events = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(body).get("events");
            List<NostrEvent> parsed = new ArrayList<>();
            events.forEach(event -> parsed.add(event(event.toString())));
            return parsed;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private int runAt(Instant now, Map<String, String> environment, String command, String... args) {
        return new ClientCommands(environment, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                InstantSource.fixed(now)).run(command, List.of(args));
    }

    private int run(Map<String, String> environment, String command, String... args) {
        return new ClientCommands(environment, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                InstantSource.fixed(NOW)).run(command, List.of(args));
    }

    private Map<String, String> environment(String url) throws IOException {
        return Map.of(ClientCommands.BUZZ_URL, url, ClientCommands.BUZZ_AUTHOR_KEY_FILE,
                keyFile("env.key", AUTHOR.hex(), "rw-------").toString());
    }

    /** Starts the stand-in sidecar answering every request with {@code status} and {@code body}; returns its URL. */
    private String serve(int status, String contentType, String body, Map<String, String> headers) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] received = exchange.getRequestBody().readAllBytes();
            synchronized (requests) {
                requests.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath()
                        + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery()),
                        Map.copyOf(exchange.getRequestHeaders()), received));
            }
            byte[] answer = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", contentType);
            headers.forEach(exchange.getResponseHeaders()::add);
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private Path keyFile(String name, String content, String mode) throws IOException {
        Path file = work.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static NostrEvent event(String json) {
        return ((NostrEventJson.Decoded.Event) NostrEventJson.read(json)).event();
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
