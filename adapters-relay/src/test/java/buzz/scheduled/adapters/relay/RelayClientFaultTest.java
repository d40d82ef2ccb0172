package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.testing.FakeRelay;
import buzz.scheduled.adapters.relay.testing.FakeRelay.Answer;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** The relay client against the in-JVM fake relay, for the faults a real relay will not produce on demand. */
class RelayClientFaultTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Scheduling slack on a busy 2-core machine; a result "within the timeout" may take this much longer. */
    private static final Duration SLACK = Duration.ofSeconds(2);
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String AUTHOR_PUBKEY = "c62114bce8f2c856c34c059f19aa69c05bd7c42c727791879652d6b206817036";

    private FakeRelay relay;
    private RelayClient client;

    @BeforeEach
    void start() {
        relay = FakeRelay.start();
        client = new RelayClient(
                new RelaySettings(relay.url(), Duration.ofSeconds(2), Duration.ofMillis(20), Duration.ofMillis(200)),
                AuthEventSigner.with(TestSigners.SIDECAR), () -> NOW);
    }

    @AfterEach
    void stop() {
        client.close();
        relay.close();
    }

    @Test
    void publish_relayAccepts_isPublished() {
        assertThat(client.publish(event(1), TIMEOUT)).isEqualTo(new PublishResult.Published(false, ""));
        assertThat(relay.received("EVENT")).singleElement()
                .satisfies(received -> assertThat(received.eventId()).isEqualTo(event(1).id().hex()));
    }

    @Test
    void publish_relayAnswersRateLimitedUntilTheDeadline_isSentAgainAtAPaceThenTransientWithTheRelaysMessage() {
        relay.answerEvents(Answer.reply(false, "rate-limited: slow down"));

        PublishResult result = client.publish(event(1), TIMEOUT);

        assertThat(result).isEqualTo(new PublishResult.Transient(
                "rate-limited: slow down (not written again before its send deadline)"));
        assertThat(relay.received("EVENT").size()).as("sent again, with growing pauses (100 ms, 150 ms, ...)")
                .isBetween(2, 12);
        assertThat(client.counts().rateLimited()).isEqualTo(relay.received("EVENT").size());
    }

    @Test
    void publish_relayAnswersError_isTransient() {
        relay.answerEvents(Answer.reply(false, "error: database is down"));

        assertThat(client.publish(event(1), TIMEOUT)).isEqualTo(new PublishResult.Transient("error: database is down"));
    }

    @Test
    void publish_relayAnswersUnknownPrefix_isTransient() {
        relay.answerEvents(Answer.reply(false, "shrug: no idea"));

        assertThat(client.publish(event(1), TIMEOUT)).isEqualTo(new PublishResult.Transient("shrug: no idea"));
    }

    @Test
    void publish_relayAnswersBlocked_isRejected() {
        relay.answerEvents(Answer.reply(false, "blocked: you are banned"));

        assertThat(client.publish(event(1), TIMEOUT)).isEqualTo(new PublishResult.Rejected("blocked", "you are banned"));
    }

    @Test
    void publish_relayNeverAnswers_asksTheRelayForTheEventThenIsTransientWithinTheTimeout() {
        relay.answerEvents(Answer.accept(), Answer.silence());
        connected();
        Duration timeout = Duration.ofMillis(900);

        long start = System.nanoTime();
        PublishResult result = client.publish(event(1), timeout);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(result).isInstanceOfSatisfying(PublishResult.Transient.class, t -> assertThat(t.reason())
                .isEqualTo("timeout: no answer from the relay, and it does not have the event"));
        assertThat(took).isBetween(timeout.multipliedBy(2).dividedBy(3), timeout.plus(SLACK));
        assertThat(relay.received("EVENT")).hasSize(2);
        assertThat(relay.received("REQ")).singleElement().satisfies(req -> assertThat(req.json().path(2).path("ids")
                .get(0).asText()).isEqualTo(event(1).id().hex()));
        assertThat(client.counts().timeouts()).isEqualTo(1);
    }

    @Test
    void publish_relayAnswersAfterTheTimeout_isTransientAndTheLateOkIsHarmless() throws Exception {
        relay.answerEvents(Answer.accept(), Answer.late(Duration.ofMillis(600), true, ""), Answer.accept());
        connected();

        PublishResult first = client.publish(event(1), Duration.ofMillis(200));
        relay.awaitSent(text -> text.contains(event(1).id().hex()), TIMEOUT);
        PublishResult next = client.publish(event(2), TIMEOUT);

        assertThat(first).isInstanceOfSatisfying(PublishResult.Transient.class,
                t -> assertThat(t.reason()).startsWith("timeout: no answer from the relay"));
        assertThat(next).isEqualTo(new PublishResult.Published(false, ""));
        assertThat(relay.connectionCount()).isEqualTo(1);
    }

    @Test
    void publish_relayAnswersLateWithinTheTimeout_isPublished() {
        relay.answerEvents(Answer.late(Duration.ofMillis(300), true, "duplicate: already have it"));

        long start = System.nanoTime();
        PublishResult result = client.publish(event(1), TIMEOUT);

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(result).isEqualTo(new PublishResult.Published(true, "duplicate: already have it"));
    }

    @Test
    void publish_relayDropsTheSocketAfterTheFrame_asksTheNextConnectionThenSendsItAgainWithoutPenalty() {
        relay.answerEvents(Answer.drop(), Answer.accept());

        PublishResult result = client.publish(event(1), TIMEOUT);

        assertThat(result).isEqualTo(new PublishResult.Published(false, ""));
        assertThat(relay.connectionCount()).isEqualTo(2);
        assertThat(relay.received()).extracting(FakeRelay.Received::type, FakeRelay.Received::connection)
                .containsExactly(tuple("EVENT", 1), tuple("REQ", 2), tuple("CLOSE", 2), tuple("EVENT", 2));
        assertThat(client.counts().resent()).isEqualTo(1);
        assertThat(client.counts().drops()).isEqualTo(1);
    }

    @Test
    void publish_relayChallengesOnConnect_firstEventGoesAtOnce_isRefused_authenticatesAndSendsItAgain() {
        relay.requireAuth("challenge-42");

        PublishResult result = client.publish(event(1), TIMEOUT);

        assertThat(result).isEqualTo(new PublishResult.Published(false, ""));
        // Never held for a challenge (docs/failure-scenarios.md F38): the first event frame costs one more frame here.
        assertThat(relay.received()).extracting(FakeRelay.Received::type).containsExactly("EVENT", "AUTH", "EVENT");
        JsonNode auth = relay.received("AUTH").getFirst().event();
        assertThat(auth.get("kind").asInt()).isEqualTo(22242);
        assertThat(auth.get("pubkey").asText()).isEqualTo(TestSigners.SIDECAR.publicKey().hex());
        assertThat(auth.get("created_at").asLong()).isEqualTo(NOW.getEpochSecond());
        assertThat(auth.get("tags").toString())
                .isEqualTo("[[\"relay\",\"" + relay.url() + "\"],[\"challenge\",\"challenge-42\"]]");
    }

    @Test
    void publish_afterAuthOnThisConnection_sendsNoSecondAuth() {
        relay.requireAuth("challenge-42");

        client.publish(event(1), TIMEOUT);
        PublishResult second = client.publish(event(2), TIMEOUT);

        // The first event frame goes at once and may beat the challenge (then it is refused and sent again).
        List<String> types = relay.received().stream().map(FakeRelay.Received::type).toList();
        assertThat(second).isEqualTo(new PublishResult.Published(false, ""));
        assertThat(types).containsOnlyOnce("AUTH");
        assertThat(types.subList(types.indexOf("AUTH") + 1, types.size())).containsExactly("EVENT", "EVENT");
    }

    @Test
    void publish_authRefused_isTransientAuthRequiredWithoutRetry() {
        relay.requireAuth("challenge-42");
        relay.refuseAuth("restricted: this key is not trusted");

        PublishResult result = client.publish(event(1), TIMEOUT);

        assertThat(result).isEqualTo(new PublishResult.Transient(
                "auth-required: the relay refused our AUTH (restricted: this key is not trusted)"));
        assertThat(relay.received()).as("not sent again after the refused AUTH").extracting(FakeRelay.Received::type)
                .containsExactly("EVENT", "AUTH");
        assertThat(client.counts().authRefusals()).isEqualTo(1);
    }

    @Test
    void publish_manyInFlight_eachGetsTheAnswerForItsOwnId() throws Exception {
        relay.answerEvents(Answer.late(Duration.ofMillis(500), false, "error: the first one is slow"), Answer.accept());
        int count = 8;
        Map<String, PublishResult> results = new ConcurrentHashMap<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(count)) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                NostrEvent event = event(i);
                done.add(pool.submit(() -> results.put(event.id().hex(), client.publish(event, TIMEOUT))));
            }
            for (Future<?> future : done) {
                future.get();
            }
        }

        String first = relay.received("EVENT").getFirst().eventId();
        assertThat(results).hasSize(count);
        assertThat(results.get(first)).isEqualTo(new PublishResult.Transient("error: the first one is slow"));
        results.forEach((id, result) -> {
            if (!id.equals(first)) {
                assertThat(result).as(id).isEqualTo(new PublishResult.Published(false, ""));
            }
        });
    }

    @Test
    void publish_nothingListens_isNotSentUnreachableBeforeTheTimeout() {
        relay.close();

        long start = System.nanoTime();
        PublishResult result = client.publish(event(1), TIMEOUT);

        assertThat(result).isInstanceOfSatisfying(PublishResult.NotSent.class,
                t -> assertThat(t.reason()).startsWith("unreachable: "));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT);
    }

    @Test
    void publish_afterClose_isNotSentAndDoesNotConnect() {
        client.close();

        assertThat(client.publish(event(1), TIMEOUT)).isInstanceOf(PublishResult.NotSent.class);
        assertThat(relay.connectionCount()).isZero();
    }

    /** Publishes a first event so that the connection exists before a test with a short timeout. */
    private void connected() {
        assertThat(client.publish(event(0), TIMEOUT)).isInstanceOf(PublishResult.Published.class);
    }

    /** A well-shaped event with a distinct id; the fake relay checks neither id nor signature. */
    private static NostrEvent event(int n) {
        return new NostrEvent(new EventId(sha256("event " + n)), new PublicKey(AUTHOR_PUBKEY), NOW.getEpochSecond(),
                9, List.of(List.of("h", "channel-1")), "message " + n, new Signature("00".repeat(64)));
    }

    private static String sha256(String text) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
