package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host clock five minutes off the database's: {@code serve} runs under libfaketime (the Debian package
 * {@code faketime}, which {@code .ci/run} installs) with its clock 300 s ahead or behind, on the real PostgreSQL (not
 * faked) and the real Node relay. Every due-time decision must follow the database's clock: an event due in two
 * minutes is admitted and one due ten seconds ago refused, and a send-now is published at once, neither 300 s late nor
 * expired (the lateness limit is 60 s here, so a send-now dated 300 s in the past would expire). The skew is measured,
 * exposed as {@code buzz_clock_skew_seconds} and warned about once. NIP-98's 60 s window is judged on the same
 * corrected clock (docs/failure-scenarios.md F31): a client on true time is served, one whose headers are dated by the
 * sidecar's host clock is refused {@code 401}.
 */
class ClockSkewTest {

    private static final Duration SKEW = Duration.ofSeconds(300);
    private static final Duration SEND_NOW_LIMIT = Duration.ofSeconds(1);
    /** How long a serve under libfaketime may take to answer {@code /healthz}. */
    private static final Duration FAKED_START = Duration.ofSeconds(240);

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void f31_hostClockFiveMinutesAhead_dueTimesAndNip98FollowTheDatabaseClock_andTheSkewIsReportedAndWarned()
            throws Exception {
        runWithHostClockOff(SKEW);
    }

    @Test
    void f31_hostClockFiveMinutesBehind_dueTimesAndNip98FollowTheDatabaseClock_andTheSkewIsReportedAndWarned()
            throws Exception {
        runWithHostClockOff(SKEW.negated());
    }

    private void runWithHostClockOff(Duration offset) throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        try (TestRelay relay = TestRelay.start()) {
            Process serve = processes.start(Map.of(
                    "LD_PRELOAD", libfaketime().toString(),
                    "FAKETIME", (offset.isNegative() ? "-" : "+") + offset.abs().toSeconds() + "s",
                    "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                    "BUZZ_DATA_DIR", work.resolve("var").toString(), "HTTP_PORT", Integer.toString(httpPort),
                    "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.url().toString(),
                    "DATABASE_URL", db.postgresUrl(), "BUZZ_MAX_LATENESS_SECONDS", "60"), log);
            // Under libfaketime every clock read is a system call, so the JVM starts slowly: 77 s to listen on a
            // clean-clone run with the machine busy, against the 90 s other tests give a serve. Its speed is not
            // what this test is about.
            ServeProcesses.awaitHealthy(serve, httpPort, log, FAKED_START);
            // The client is on true time, as a client app's clock is; the sidecar's host is the one that is off.
            OwnerClient owner = new OwnerClient(httpPort);
            warmUp(owner);
            OwnerClient.Reply byHostClock = new OwnerClient(httpPort, offset).get(
                    java.util.UUID.randomUUID().toString());
            assertThat(byHostClock.status()).as("a header dated by the sidecar host's wrong clock").isEqualTo(401);
            assertThat(byHostClock.json().get("message").asText()).contains("the server clock");

            double skew = skewSeconds(httpPort);
            assertThat(skew).as("buzz_clock_skew_seconds").isBetween(offset.toSeconds() - 2.0, offset.toSeconds() + 2.0);
            String direction = offset.isNegative() ? "behind" : "ahead of";
            Poll.until("the skew warning", Duration.ofSeconds(5),
                    () -> ServeProcesses.output(log).contains("s " + direction + " the database's"));
            assertThat(ServeProcesses.occurrences(ServeProcesses.output(log), "s " + direction + " the database's")).as("warned once").isEqualTo(1);

            NostrEvent inTwoMinutes = owner.message("skew", "due in two minutes", Duration.ofMinutes(2));
            NostrEvent tenSecondsAgo = owner.message("skew", "due ten seconds ago", Duration.ofSeconds(-10));
            OwnerClient.Reply admitted = owner.schedule(inTwoMinutes);
            OwnerClient.Reply refused = owner.schedule(tenSecondsAgo);
            assertThat(admitted.status()).as(admitted.text()).isEqualTo(201);
            assertThat(refused.json().get("error").asText()).as(refused.text()).isEqualTo("time_in_past");

            // A first send-now loads and compiles the whole delivery path, which takes seconds in a JVM whose every
            // clock read is a system call; it must still go out (not 300 s late, not expired), the measured one fast.
            NostrEvent warmUp = owner.message("skew", "warm-up", Duration.ofMinutes(3));
            OwnerClient.Reply warm = owner.schedule(warmUp);
            assertThat(warm.status()).as(warm.text()).isEqualTo(201);
            try (LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"ids\":[\"" + warmUp.id().hex() + "\"]}")) {
                assertThat(owner.sendNow(warm.json().get("id").asText()).status()).isEqualTo(202);
                live.await(1, Duration.ofSeconds(30));
            }

            String id = admitted.json().get("id").asText();
            try (LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"ids\":[\"" + inTwoMinutes.id().hex() + "\"]}")) {
                Instant asked = Instant.now();
                OwnerClient.Reply sent = owner.sendNow(id);
                Instant answered = Instant.now();
                assertThat(sent.status()).as(sent.text()).isEqualTo(202);
                long dueAt = sent.json().get("due_at").asLong();
                assertThat(Math.abs(dueAt - asked.getEpochSecond())).as("send-now is due now by the database clock, s")
                        .isLessThanOrEqualTo(1);

                List<LiveEvents.Arrival> arrivals = live.await(1, Duration.ofSeconds(30));

                // Measured from the answer: the message is due once the send-now has committed.
                Duration took = Duration.between(answered, arrivals.get(0).at());
                System.out.printf("clock %+d s: skew reported %.3f s; send-now answered in %d ms, published %d ms"
                        + " after the answer%n", offset.toSeconds(), skew, Duration.between(asked, answered).toMillis(),
                        took.toMillis());
                assertThat(took).as("send-now published promptly after it was accepted")
                        .isLessThanOrEqualTo(SEND_NOW_LIMIT);
                Poll.until("the message to be recorded published", Duration.ofSeconds(10), () -> {
                    try {
                        return "published".equals(owner.get(id).json().get("state").asText());
                    } catch (IOException | InterruptedException e) {
                        return false;
                    }
                });
            }
        }
    }

    /**
     * Under libfaketime every clock read is a real system call, so a cold JVM answers its first NIP-98 requests
     * slowly (seconds on a busy machine): ask for a missing message until one answer comes within the client's
     * timeout, then for a create it refuses, so the assertions measure the sidecar's decisions, not its warm-up.
     */
    private static void warmUp(OwnerClient owner) {
        String missing = java.util.UUID.randomUUID().toString();
        Poll.until("a warm answer", Duration.ofSeconds(90), () -> {
            try {
                return owner.get(missing).status() == 404;
            } catch (IOException | InterruptedException e) {
                return false;
            }
        });
        // The admission path too (event verification, the rules, the database clock): a create it refuses stores
        // nothing, so it can be asked again until it answers in time.
        Poll.until("a warm refusal", Duration.ofSeconds(90), () -> {
            try {
                OwnerClient.Reply refused = owner.schedule(owner.message("skew", "warm-up", Duration.ofMinutes(-1)));
                return refused.json() != null && "time_in_past".equals(refused.json().get("error").asText());
            } catch (IOException | InterruptedException e) {
                return false;
            }
        });
    }

    /** libfaketime's preload library (Debian: {@code /usr/lib/<triplet>/faketime/libfaketime.so.1}). */
    private static Path libfaketime() throws IOException {
        try (DirectoryStream<Path> libs = Files.newDirectoryStream(Path.of("/usr/lib"))) {
            for (Path lib : libs) {
                Path candidate = lib.resolve("faketime").resolve("libfaketime.so.1");
                if (Files.isReadable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("libfaketime is not installed (apt-get install faketime; .ci/run does it)");
    }

    private static double skewSeconds(int port) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            Matcher matcher = Pattern.compile("(?m)^buzz_clock_skew_seconds (-?[0-9.]+)$").matcher(metrics);
            assertThat(matcher.find()).as(metrics).isTrue();
            return Double.parseDouble(matcher.group(1));
        }
    }

}
