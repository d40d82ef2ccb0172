package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Batch admission as a client sees it: {@code POST /v1/scheduled-messages/batch} with 100 pre-signed events each
 * (docs/openapi.yaml {@code createScheduledMessageBatch}) against a real {@code serve} process on its embedded
 * PostgreSQL, from several clients at once, black box (only HTTP and the processes' CPU counters in {@code /proc} are
 * looked at). In the same run, as the peer the batch is compared with, the same clients then send single creates
 * ({@code POST /v1/scheduled-messages}) of events like them, one owner each. Each phase is warmed up first, untimed
 * ({@code --warmup-batches}, default 200 batches, 20 000 events: on two cores the serve JVM's C2 compiler is still
 * compiling the request path after a few thousand; {@code --warmup-singles}, default 5 000 single creates).
 *
 * <p>Every event is really signed (BIP-340) before the timed phase, each owner in a channel of its own with its due
 * times ten minutes apart, so the default limits of {@code serve} (100 pending per owner, 30 per owner and channel
 * window, the owner write rate) never refuse one; each batch is a different owner's. Its NIP-98 header (with the
 * body's {@code payload}) is signed just before its round, since a header is accepted within 60 s of its
 * {@code created_at} only. Every answer must be {@code 200} with every item {@code 201} (single creates: {@code 201});
 * anything else is counted and reported.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.admission.BatchesThroughServe \
 *     [--jar bootstrap/target/buzz-scheduled-delivery.jar] [--batches 300] [--clients 8] [--singles 3000] \
 *     [--warmup-batches 200] [--warmup-singles 5000] [--jfr f]
 * }</pre>
 */
public final class BatchesThroughServe {
    private static final PrintStream OUT = System.out;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS_PER_BATCH = 100;
    private static final int HTTP_AUTH_KIND = 27235;
    /** Batches per round: their headers are signed together just before the round starts. */
    private static final int ROUND = 64;
    private static final String CONTENT = "Stand-up at nine — agenda in the doc, bring the release numbers. ";
    private static final Duration READY_LIMIT = Duration.ofMinutes(3);

    private BatchesThroughServe() {
    }

    /** What a run was asked for. */
    record Options(Path jar, int batches, int clients, int singles, int warmUpBatches, int warmUpSingles,
                   Optional<Path> jfr) {
        Options {
            if (batches < 1 || clients < 1 || singles < 0 || warmUpBatches < 0 || warmUpSingles < 0) {
                throw new IllegalArgumentException("--batches and --clients must be at least 1, --singles,"
                        + " --warmup-batches and --warmup-singles at least 0");
            }
        }

        static Options parse(String[] args) {
            Map<String, String> given = new HashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) {
                given.put(args[i], args[i + 1]);
            }
            return new Options(Path.of(given.getOrDefault("--jar", "bootstrap/target/buzz-scheduled-delivery.jar")),
                    Integer.parseInt(given.getOrDefault("--batches", "300")),
                    Integer.parseInt(given.getOrDefault("--clients", "8")),
                    Integer.parseInt(given.getOrDefault("--singles", "3000")),
                    Integer.parseInt(given.getOrDefault("--warmup-batches", "200")),
                    Integer.parseInt(given.getOrDefault("--warmup-singles", "5000")),
                    Optional.ofNullable(given.get("--jfr")).map(Path::of));
        }
    }

    /** One owner's signed events and the exact request bodies that carry them. */
    private record Owner(Bip340Signer signer, List<NostrEvent> events) {
        byte[] batchBody() {
            StringBuilder body = new StringBuilder("{\"events\":[");
            for (int i = 0; i < events.size(); i++) {
                body.append(i == 0 ? "" : ",").append(NostrEventJson.write(events.get(i)));
            }
            return body.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** A request ready to send: path, body and its NIP-98 header. */
    private record Request(String path, byte[] body, String authorization, int events) {
    }

    /** What one phase came to. */
    record Phase(String name, int requests, int events, long nanos, long refusedItems, Map<Integer, Integer> statuses,
                 LatencySummary latency, long serveCpuNanos, long databaseCpuNanos) {
        double eventsPerSecond() {
            return events / (nanos / 1e9);
        }

        String row() {
            return String.format(Locale.ROOT, "%-14s %6d requests %7d events in %6.2f s: %8.0f events/s; latency p50"
                            + " %6.1f ms p99 %6.1f ms; CPU per event: serve JVM %.3f ms, PostgreSQL %.3f ms; statuses %s;"
                            + " items not 201: %d", name, requests, events, nanos / 1e9, eventsPerSecond(),
                    latency.p50() / 1e6, latency.p99() / 1e6, serveCpuNanos / 1e6 / events,
                    databaseCpuNanos / 1e6 / events, statuses, refusedItems);
        }
    }

    /**
     * Runs the benchmark; exit 0 when every request was answered as expected, 3 otherwise.
     *
     * @param args {@code --jar}, {@code --batches}, {@code --clients}, {@code --singles}, {@code --warmup-batches},
     *             {@code --warmup-singles}, {@code --jfr} (see above)
     */
    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        OUT.println("load average before: " + loadAverage());
        Path data = Files.createTempDirectory("buzz-batches-");
        int port = freePort();
        URI base = URI.create("http://127.0.0.1:" + port);
        Process serve = startServe(options, data, port);
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build()) {
            awaitReady(http, base, serve);
            long started = System.nanoTime();
            long first = Instant.now().plus(Duration.ofHours(1)).getEpochSecond();
            List<Owner> warmUp = sign(0, options.warmUpBatches(), EVENTS_PER_BATCH, first);
            List<Owner> timed = sign(options.warmUpBatches(), options.batches(), EVENTS_PER_BATCH, first);
            // The peer's events one owner each, so the owner write rate (a burst of 30) never refuses one.
            int singlesWarmUp = options.singles() == 0 ? 0 : options.warmUpSingles();
            List<Owner> singles = sign(options.warmUpBatches() + options.batches(), singlesWarmUp + options.singles(), 1,
                    first);
            OUT.printf(Locale.ROOT, "signed %d events in %.1f s%n", (options.warmUpBatches() + options.batches())
                    * EVENTS_PER_BATCH + singles.size(), (System.nanoTime() - started) / 1e9);
            long postmaster = postmaster(data);
            if (!warmUp.isEmpty()) {
                run(http, base, "warm-up", warmUp, options.clients(), serve.pid(), postmaster);
            }
            Phase batch = run(http, base, "batches of 100", timed, options.clients(), serve.pid(), postmaster);
            OUT.println(batch.row());
            boolean clean = batch.refusedItems() == 0 && batch.statuses().keySet().equals(java.util.Set.of(200));
            if (options.singles() > 0) {
                if (singlesWarmUp > 0) {
                    run(http, base, "warm-up", singles.subList(0, singlesWarmUp), options.clients(), serve.pid(),
                            postmaster);
                }
                Phase single = run(http, base, "single creates", singles.subList(singlesWarmUp, singles.size()),
                        options.clients(), serve.pid(), postmaster);
                OUT.println(single.row());
                OUT.printf(Locale.ROOT, "batch / single: %.1f× the events per second, %.1f× less serve CPU and"
                                + " %.1f× less PostgreSQL CPU per event%n",
                        batch.eventsPerSecond() / single.eventsPerSecond(),
                        perEvent(single.serveCpuNanos(), single) / perEvent(batch.serveCpuNanos(), batch),
                        perEvent(single.databaseCpuNanos(), single) / perEvent(batch.databaseCpuNanos(), batch));
                clean &= single.refusedItems() == 0 && single.statuses().keySet().equals(java.util.Set.of(201));
            }
            OUT.println("load average after: " + loadAverage());
            stop(serve);
            System.exit(clean ? 0 : 3);
        } finally {
            stop(serve);
            deleteTree(data);
        }
    }

    private static Process startServe(Options options, Path data, int port) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        options.jfr().ifPresent(file -> command.add("-XX:StartFlightRecording=filename=" + file.toAbsolutePath()
                + ",settings=profile,dumponexit=true"));
        if (Files.isRegularFile(options.jar())) {
            command.addAll(List.of("-jar", options.jar().toString(), "serve"));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), "buzz.scheduled.bootstrap.Main",
                    "serve"));
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = builder.environment();
        environment.put("BUZZ_SCHEDULED_MESSAGES", "on");
        environment.put("BUZZ_DATA_DIR", data.toString());
        environment.put("HTTP_PORT", Integer.toString(port));
        // No relay: nothing falls due during the run; the relay client just keeps retrying in the background.
        environment.put("RELAY_URL", "ws://127.0.0.1:" + freePort());
        environment.put("BUZZ_LOG_LEVEL", "WARN");
        environment.remove("DATABASE_URL");
        builder.redirectErrorStream(true).redirectOutput(data.resolve("serve.log").toFile());
        OUT.println("serve: " + String.join(" ", command));
        return builder.start();
    }

    private static void awaitReady(HttpClient http, URI base, Process serve) throws Exception {
        long deadline = System.nanoTime() + READY_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!serve.isAlive()) {
                throw new IllegalStateException("serve exited with " + serve.exitValue());
            }
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(base.resolve("/readyz"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("serve was not ready within " + READY_LIMIT);
    }

    /**
     * Owners {@code from} to {@code from + owners - 1}, each with its own key and channel and {@code events} events
     * due ten minutes apart from {@code first}.
     */
    private static List<Owner> sign(int from, int owners, int events, long first) {
        return IntStream.range(from, from + owners).parallel().mapToObj(o -> {
            Bip340Signer signer = Bip340Signer.withFixedAux(new SecretKey(sha256Hex(("buzz-batch-owner-" + first + "-"
                    + o).getBytes(StandardCharsets.UTF_8))), new byte[32]);
            List<NostrEvent> signed = new ArrayList<>(events);
            for (int i = 0; i < events; i++) {
                signed.add(signer.sign(first + 600L * i, 9, List.of(List.of("h", "bench-" + o)),
                        CONTENT + "#" + o + "/" + i));
            }
            return new Owner(signer, signed);
        }).toList();
    }

    private static double perEvent(long nanos, Phase phase) {
        return (double) nanos / phase.events();
    }

    /** Sends every request of {@code owners} (a batch each, or a single create for one-event owners). */
    private static Phase run(HttpClient http, URI base, String name, List<Owner> owners, int clients, long servePid,
                             long postmaster) throws Exception {
        long[] latencies = new long[owners.size()];
        Map<Integer, Integer> statuses = new TreeMap<>();
        AtomicInteger refused = new AtomicInteger();
        long serveBefore = ProcessTreeCpu.nanos(servePid);
        long databaseBefore = ProcessTreeCpu.nanos(postmaster);
        long elapsed = 0;
        int events = 0;
        for (int from = 0; from < owners.size(); from += ROUND) {
            List<Request> round = new ArrayList<>();
            long now = Instant.now().getEpochSecond();
            for (Owner owner : owners.subList(from, Math.min(owners.size(), from + ROUND))) {
                boolean single = owner.events().size() == 1;
                String path = single ? "/v1/scheduled-messages" : "/v1/scheduled-messages/batch";
                byte[] body = single ? ("{\"event\":" + NostrEventJson.write(owner.events().get(0)) + "}")
                        .getBytes(StandardCharsets.UTF_8) : owner.batchBody();
                round.add(new Request(path, body, authorization(owner.signer(), base + path, body, now),
                        owner.events().size()));
            }
            int offset = from;
            AtomicInteger next = new AtomicInteger();
            long roundStart = System.nanoTime();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    done.add(threads.submit(() -> {
                        for (int i = next.getAndIncrement(); i < round.size(); i = next.getAndIncrement()) {
                            Request request = round.get(i);
                            long sent = System.nanoTime();
                            HttpResponse<String> answer = send(http, base, request);
                            latencies[offset + i] = System.nanoTime() - sent;
                            synchronized (statuses) {
                                statuses.merge(answer.statusCode(), 1, Integer::sum);
                            }
                            refused.addAndGet(itemsNotCreated(answer, request.events()));
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get();
                }
            }
            elapsed += System.nanoTime() - roundStart;
            events += round.stream().mapToInt(Request::events).sum();
        }
        return new Phase(name, owners.size(), events, elapsed, refused.get(), statuses,
                LatencySummary.of(latencies, latencies.length), ProcessTreeCpu.nanos(servePid) - serveBefore,
                ProcessTreeCpu.nanos(postmaster) - databaseBefore);
    }

    private static HttpResponse<String> send(HttpClient http, URI base, Request request) {
        try {
            return http.send(HttpRequest.newBuilder(base.resolve(request.path()))
                    .timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json")
                    .header("Authorization", request.authorization())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(request.body()))
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Items of the answer that are not {@code 201}: all of them when the request itself was refused. */
    private static int itemsNotCreated(HttpResponse<String> answer, int events) {
        if (events == 1) {
            return answer.statusCode() == 201 ? 0 : 1;
        }
        if (answer.statusCode() != 200) {
            return events;
        }
        try {
            JsonNode results = JSON.readTree(answer.body()).get("results");
            int refused = 0;
            for (JsonNode result : results) {
                refused += result.get("status").asInt() == 201 ? 0 : 1;
            }
            return refused;
        } catch (IOException e) {
            return events;
        }
    }

    private static String authorization(Bip340Signer signer, String url, byte[] body, long createdAt) {
        NostrEvent auth = signer.sign(createdAt, HTTP_AUTH_KIND, List.of(List.of("u", url), List.of("method", "POST"),
                List.of("payload", sha256Hex(body))), "");
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(auth).getBytes(StandardCharsets.UTF_8));
    }

    /** The embedded PostgreSQL's postmaster: the process whose command line names the data directory's cluster. */
    private static long postmaster(Path data) throws IOException {
        String cluster = data.resolve("pgdata").toString();
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes.filter(p -> p.getFileName().toString().matches("[0-9]+"))
                    .filter(p -> {
                        try {
                            return new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                                    .replace('\0', ' ').contains(cluster);
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .min(Comparator.naturalOrder())
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL process for " + cluster));
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void stop(Process serve) throws InterruptedException {
        if (serve.isAlive()) {
            serve.destroy();
            if (!serve.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                serve.destroyForcibly().waitFor();
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
