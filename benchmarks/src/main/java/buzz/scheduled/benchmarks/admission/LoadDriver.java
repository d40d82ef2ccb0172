package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.benchmarks.admission.SignedCreates.Create;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;

/**
 * Sends pre-signed creates to the API from N virtual-thread clients over one {@link HttpClient} (HTTP/1.1,
 * keep-alive), in rounds: before each round the NIP-98 headers of its requests are signed (on every core, with the
 * clients idle, so signing is neither in the latencies nor competing with the server), then the clients drain the
 * round. Throughput counts only the time the clients were sending. Rounds are sized from the previous round's rate
 * so that each lasts about the target length, far inside NIP-98's ±60 s window.
 */
final class LoadDriver {
    /** Longest wait for one answer; a request that takes longer counts as failed (status 0). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** Status recorded for a request that got no HTTP answer (timeout, reset connection). */
    static final int NO_ANSWER = 0;
    private static final int MAX_ROUND = 20_000;

    private final URI target;
    private final SignedCreates creates;
    private final Duration roundTarget;
    private final AdmissionTarget server;

    /**
     * @param baseUrl     where the API listens
     * @param creates     signs the NIP-98 headers
     * @param roundTarget how long a round should last
     * @param server      where the API runs: its CPU, the database's CPU and statements are read before and after
     *                    each round
     */
    LoadDriver(URI baseUrl, SignedCreates creates, Duration roundTarget, AdmissionTarget server) {
        this.target = URI.create(baseUrl + SignedCreates.PATH);
        this.creates = creates;
        this.roundTarget = roundTarget;
        this.server = server;
    }

    /**
     * What one load run saw.
     *
     * @param clients       concurrent clients
     * @param sent          requests sent (fewer than asked only when the time cap stopped the run)
     * @param createdNanos  latency of every {@code 201} answer, nanoseconds, first {@code created} entries valid
     * @param created       {@code 201} answers
     * @param statuses      answers by HTTP status ({@value #NO_ANSWER}: no answer)
     * @param loadNanos     time the clients were sending, summed over rounds (header signing excluded)
     * @param cpuNanos      CPU time the server's JVM used while the clients were sending (in process: server and
     *                      clients together; PostgreSQL not included)
     * @param databaseNanos CPU time of the database meanwhile (10 ms resolution)
     * @param statements    statements the sidecar's database role executed meanwhile, or -1 when unknown
     * @param rounds        rounds run
     * @param oldestHeader  the largest age a header could reach before use: signing start to round end
     * @param stoppedAtCap  true when the time cap stopped the run early
     * @param firstFailure  the first answer other than {@code 201} (status and body, or the exception), or null
     */
    record Result(int clients, int sent, long[] createdNanos, int created, Map<Integer, Long> statuses,
                  long loadNanos, long cpuNanos, long databaseNanos, long statements, int rounds, Duration oldestHeader, boolean stoppedAtCap, String firstFailure) {

        /** Creates answered {@code 201} per second of load. */
        double createsPerSecond() {
            return loadNanos == 0 ? 0 : created * 1e9 / loadNanos;
        }

        /** Statements per {@code 201}, or NaN when unknown. */
        double statementsPerCreate() {
            return statements < 0 || created == 0 ? Double.NaN : statements / (double) created;
        }

        /** CPU time of the server's JVM per {@code 201}, milliseconds (PostgreSQL not included). */
        double cpuMillisPerCreate() {
            return created == 0 ? 0 : cpuNanos / 1e6 / created;
        }

        /** CPU time of the PostgreSQL backends per {@code 201}, milliseconds. */
        double databaseMillisPerCreate() {
            return created == 0 ? 0 : databaseNanos / 1e6 / created;
        }

        /** Latency percentiles of the {@code 201} answers. */
        LatencySummary latency() {
            return LatencySummary.of(createdNanos, created);
        }
    }

    /**
     * Sends every create in {@code batch} from {@code clients} concurrent clients, unless {@code deadlineNanos}
     * (on {@link System#nanoTime()}) passes first: then no further round starts.
     */
    Result run(List<Create> batch, int clients, long deadlineNanos) {
        long[] nanos = new long[batch.size()];
        AtomicInteger created = new AtomicInteger();
        Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        long loadNanos = 0;
        long cpuNanos = 0;
        long databaseNanos = 0;
        long statements = server.statements().isPresent() ? 0 : -1;
        int rounds = 0;
        long oldestHeader = 0;
        int sent = 0;
        // A short first round measures the rate on this (shared, possibly busy) machine; later rounds follow it.
        int roundSize = Math.max(clients * 5, 50);
        boolean stopped = false;
        try (ExecutorService clientExecutor = Executors.newVirtualThreadPerTaskExecutor();
             HttpClient client = HttpClient.newBuilder()
                     .version(HttpClient.Version.HTTP_1_1)
                     .connectTimeout(Duration.ofSeconds(5))
                     .executor(clientExecutor)
                     .build()) {
            while (sent < batch.size()) {
                if (System.nanoTime() - deadlineNanos > 0) {
                    stopped = true;
                    break;
                }
                List<Create> round = batch.subList(sent, Math.min(batch.size(), sent + roundSize));
                long signingStart = System.nanoTime();
                String[] headers = IntStream.range(0, round.size()).parallel()
                        .mapToObj(i -> creates.authorization(round.get(i), Instant.now().getEpochSecond()))
                        .toArray(String[]::new);
                int offset = sent;
                AtomicInteger next = new AtomicInteger();
                long statementsStart = server.statements().orElse(0);
                long databaseStart = server.databaseCpuNanos();
                long cpuStart = server.serverCpuNanos();
                long roundStart = System.nanoTime();
                try (ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor()) {
                    for (int c = 0; c < clients; c++) {
                        senders.submit(() -> {
                            for (int i = next.getAndIncrement(); i < round.size(); i = next.getAndIncrement()) {
                                send(client, round.get(i).body(), headers[i], nanos, created, statuses, firstFailure);
                            }
                        });
                    }
                }
                long roundEnd = System.nanoTime();
                cpuNanos += server.serverCpuNanos() - cpuStart;
                databaseNanos += server.databaseCpuNanos() - databaseStart;
                if (statements >= 0) {
                    statements += server.statements().orElse(0) - statementsStart;
                }
                loadNanos += roundEnd - roundStart;
                oldestHeader = Math.max(oldestHeader, roundEnd - signingStart);
                rounds++;
                sent = offset + round.size();
                double perSecond = round.size() * 1e9 / Math.max(1, roundEnd - roundStart);
                roundSize = (int) Math.max(clients * 2L, Math.min(MAX_ROUND, perSecond * roundTarget.toSeconds()));
            }
        }
        Map<Integer, Long> counts = new TreeMap<>();
        statuses.forEach((status, count) -> counts.put(status, count.sum()));
        return new Result(clients, sent, nanos, created.get(), counts, loadNanos, cpuNanos, databaseNanos, statements,
                rounds,
                Duration.ofNanos(oldestHeader), stopped, firstFailure.get());
    }

    private void send(HttpClient client, byte[] body, String authorization, long[] nanos, AtomicInteger created,
                      Map<Integer, LongAdder> statuses, AtomicReference<String> firstFailure) {
        HttpRequest request = HttpRequest.newBuilder(target)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        int status;
        String failure = null;
        long start = System.nanoTime();
        try {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            long elapsed = System.nanoTime() - start;
            status = response.statusCode();
            if (status == 201) {
                nanos[created.getAndIncrement()] = elapsed;
            } else {
                String text = new String(response.body(), StandardCharsets.UTF_8);
                failure = status + " " + (text.length() > 300 ? text.substring(0, 300) + "…" : text);
            }
        } catch (IOException e) {
            status = NO_ANSWER;
            failure = "no answer: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = NO_ANSWER;
            failure = "interrupted";
        }
        statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
        if (failure != null) {
            firstFailure.compareAndSet(null, failure);
        }
    }
}
