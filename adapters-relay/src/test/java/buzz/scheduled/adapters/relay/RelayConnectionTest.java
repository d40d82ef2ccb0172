package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared connection layer against the real Node test relay (adapters-relay/src/test/relay/relay.js). */
class RelayConnectionTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String REQ = "[\"REQ\",\"all\",{\"kinds\":[9]}]";

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final HttpClient http = HttpClient.newHttpClient();
    private final Recorder recorder = new Recorder();
    private TestRelay relay;
    private RelayConnection connection;

    @AfterEach
    void stop() {
        if (connection != null) {
            connection.close();
        }
        timer.shutdownNow();
        http.close();
        if (relay != null) {
            relay.close();
        }
    }

    private RelaySettings settings(URI url) {
        return new RelaySettings(url, url, Duration.ofSeconds(5), Duration.ofMillis(20), Duration.ofMillis(200),
                RelaySettings.DEFAULT_AUTH_CHALLENGE_WAIT, RelaySettings.DEFAULT_PING_INTERVAL,
                RelaySettings.DEFAULT_MAX_INBOUND, RelaySettings.DEFAULT_TIMEOUTS_BEFORE_RECONNECT);
    }

    private RelayConnection connect(RelaySettings settings) {
        connection = new RelayConnection(settings, http, timer, recorder);
        connection.connect();
        return connection;
    }

    @Test
    void relayDropsTheSocket_theLinkEndsOnceAndANewLinkOpensThatWorks() {
        relay = TestRelay.builder().mode("--drop-first-after", "1").start();
        recorder.onOpen = (link, n) -> link.send(REQ);

        connect(settings(relay.url()));

        Poll.until("a second link", WAIT, () -> recorder.opened.size() == 2);
        Poll.until("EOSE on the second link", WAIT, () -> recorder.received.contains(
                new Received(recorder.opened.get(1), new RelayMessage.EndOfStoredEvents("all"))));
        assertThat(recorder.ended).singleElement().satisfies(end -> {
            assertThat(end.link()).isSameAs(recorder.opened.get(0));
            assertThat(end.retryIn()).isLessThan(Duration.ofMillis(20));
        });
        assertThat(recorder.opened.get(0).isEnded()).isTrue();
        assertThat(recorder.opened.get(1).isEnded()).isFalse();
        assertThat(connection.link()).containsSame(recorder.opened.get(1));
        assertThat(recorder.received).noneMatch(received -> received.link() == recorder.opened.get(0));
        assertThat(recorder.unreachable).isEmpty();
    }

    @Test
    void challenge_answeredWithTheAuthUrlTag_theRelayAcceptsAndItsOkIsNotAMessage() {
        relay = TestRelay.builder().mode("--auth-hostname", "relay.example").start();
        AuthEventSigner sidecar = AuthEventSigner.with(TestSigners.SIDECAR);
        recorder.onChallenge = link -> link.authEvent(sidecar, Instant::now).ifPresent(link::send);
        NostrEvent event = TestSigners.message(TestSigners.ALICE, "channel-1");
        recorder.onAuth = (link, accepted) -> link.send("[\"EVENT\"," + NostrEventJson.write(event) + "]");

        connect(settings(relay.url()).withAuthUrl(URI.create("ws://relay.example")));

        Poll.until("the event's OK", WAIT, () -> recorder.received.size() == 1);
        assertThat(recorder.auths).containsExactly(new AuthAnswer(true, ""));
        assertThat(recorder.challenges).singleElement().satisfies(challenge ->
                assertThat(recorder.opened.get(0).challenge()).contains(challenge));
        assertThat(recorder.received).extracting(Received::message)
                .containsExactly(new RelayMessage.Ok(event.id().hex(), true, ""));
        assertThat(recorder.opened.get(0).authPending()).isFalse();
    }

    @Test
    void challenge_answeredWithTheConnectAddressWhereTheRelayWantsItsOwn_isRefusedWithTheRelaysWords() {
        relay = TestRelay.builder().mode("--auth-hostname", "relay.example").start();
        AuthEventSigner sidecar = AuthEventSigner.with(TestSigners.SIDECAR);
        recorder.onChallenge = link -> link.authEvent(sidecar, Instant::now).ifPresent(link::send);

        connect(settings(relay.url()));

        Poll.until("the AUTH answer", WAIT, () -> !recorder.auths.isEmpty());
        assertThat(recorder.auths).singleElement().satisfies(answer -> {
            assertThat(answer.accepted()).isFalse();
            assertThat(answer.message()).startsWith("invalid:");
        });
        assertThat(recorder.received).isEmpty();
    }

    @Test
    void storedEvents_eachRelayMessageReachesTheListenerOnceParsedAndInOrder() {
        relay = TestRelay.start();
        long now = Instant.now().getEpochSecond();
        List<NostrEvent> events = List.of(0, 1, 2).stream().map(i -> TestSigners.ALICE.sign(now - 2 + i, 9,
                List.of(List.of("h", "c")), "message " + i)).toList();
        recorder.onOpen = (link, n) -> events.forEach(event -> link.send("[\"EVENT\"," + NostrEventJson.write(event)
                + "]"));
        connect(settings(relay.url()));
        Poll.until("three OKs", WAIT, () -> recorder.received.size() == 3);
        RelayConnection.Link link = recorder.opened.get(0);

        link.send("[\"REQ\",\"ids\",{\"ids\":[\"" + events.get(1).id().hex() + "\",\"" + events.get(2).id().hex()
                + "\"]}]");

        Poll.until("EOSE", WAIT, () -> recorder.received.size() == 6);
        assertThat(recorder.received).extracting(Received::message).containsExactly(
                new RelayMessage.Ok(events.get(0).id().hex(), true, ""),
                new RelayMessage.Ok(events.get(1).id().hex(), true, ""),
                new RelayMessage.Ok(events.get(2).id().hex(), true, ""),
                new RelayMessage.Event("ids", new NostrEventJson.Decoded.Event(events.get(2))),
                new RelayMessage.Event("ids", new NostrEventJson.Decoded.Event(events.get(1))),
                new RelayMessage.EndOfStoredEvents("ids")); // newest first (NIP-01)
        assertThat(recorder.received).allMatch(received -> received.link() == link);
    }

    @Test
    void messageLongerThanTheCap_endsTheLinkSayingSoAndANewOneOpens() {
        relay = TestRelay.start();
        NostrEvent large = TestSigners.ALICE.sign(Instant.now().getEpochSecond(), 9, List.of(),
                "x".repeat(70_000));
        recorder.onOpen = (link, n) -> {
            if (n == 1) {
                link.send("[\"EVENT\"," + NostrEventJson.write(large) + "]");
                link.send("[\"REQ\",\"large\",{\"ids\":[\"" + large.id().hex() + "\"]}]");
            }
        };

        connect(settings(relay.url()).withMaxInboundBytes(65_536));

        Poll.until("a second link", WAIT, () -> recorder.opened.size() == 2);
        assertThat(recorder.ended).singleElement().satisfies(end -> {
            assertThat(end.statusCode()).isEqualTo(RelayConnection.ABNORMAL_CLOSURE);
            assertThat(end.why()).isEqualTo("the relay sent a message longer than 65536 characters");
        });
        assertThat(recorder.received).extracting(Received::message)
                .containsExactly(new RelayMessage.Ok(large.id().hex(), true, ""));
    }

    @Test
    void relayThatBreaksTheProtocolOnEveryHealthyLink_isReconnectedToWithAGrowingBackoff() {
        relay = TestRelay.start();
        NostrEvent large = TestSigners.ALICE.sign(Instant.now().getEpochSecond(), 9, List.of(),
                "x".repeat(70_000));
        recorder.onOpen = (link, n) -> {
            // The link works (the owner marks it healthy), then the relay floods it with an oversized message.
            link.healthy();
            link.send("[\"EVENT\"," + NostrEventJson.write(large) + "]");
            link.send("[\"REQ\",\"large-" + n + "\",{\"ids\":[\"" + large.id().hex() + "\"]}]");
        };

        connect(settings(relay.url()).withMaxInboundBytes(65_536));

        Poll.until("three links ended by the oversized message", WAIT, () -> recorder.ended.size() >= 3);
        List<Ended> ended = List.copyOf(recorder.ended).subList(0, 3);
        assertThat(ended).allSatisfy(end -> assertThat(end.why()).contains("longer than 65536 characters"));
        // 20 ms doubled per violation, with jitter in [half, whole]: 20-40, 40-80, 80-160 ms (before: 10-20 each).
        assertThat(ended.get(2).retryIn()).isBetween(Duration.ofMillis(80), Duration.ofMillis(160));
    }

    @Test
    void relayUnreachable_attemptsAreCountedAndBackOff_untilItListens() {
        relay = TestRelay.start();
        relay.stop();

        connect(settings(relay.url()));

        Poll.until("three failed attempts", WAIT, () -> recorder.unreachable.size() >= 3);
        assertThat(List.copyOf(recorder.unreachable).subList(0, 3)).extracting(Unreachable::failures)
                .containsExactly(1, 2, 3);
        assertThat(recorder.unreachable.get(0).why()).startsWith("ConnectException");
        assertThat(recorder.unreachable.get(2).retryIn()).isBetween(Duration.ofMillis(40), Duration.ofMillis(80));
        relay.restart();
        Poll.until("a link once the relay listens", WAIT, () -> recorder.opened.size() == 1);
    }

    @Test
    void beforeConnectRefuses_noSocketIsMadeAndTheReasonIsAFailedAttempt() {
        relay = TestRelay.start();
        recorder.refusal = Optional.of("no key to follow");

        connect(settings(relay.url()));

        Poll.until("two refused attempts", WAIT, () -> recorder.unreachable.size() >= 2);
        assertThat(recorder.unreachable.get(0)).satisfies(first -> {
            assertThat(first.why()).isEqualTo("no key to follow");
            assertThat(first.failures()).isEqualTo(1);
        });
        assertThat(recorder.opened).isEmpty();
    }

    @Test
    void close_endsTheOpenLinkAndMakesNoOther() {
        relay = TestRelay.start();
        connect(settings(relay.url()));
        Poll.until("a link", WAIT, () -> recorder.opened.size() == 1);

        connection.close();

        Poll.until("the link's end", WAIT, () -> recorder.ended.size() == 1);
        assertThat(recorder.ended.get(0).why()).isEqualTo("the connection is closing");
        assertThat(connection.link()).isEmpty();
        connection.connect();
        assertThat(recorder.opened).hasSize(1);
        assertThat(recorder.unreachable).isEmpty();
    }

    private record Received(RelayConnection.Link link, RelayMessage message) {
    }

    private record Ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
    }

    private record Unreachable(String why, int failures, Duration retryIn) {
    }

    private record AuthAnswer(boolean accepted, String message) {
    }

    /** Records what the layer tells its owner; optional reactions stand in for the owner's logic. */
    private static final class Recorder implements RelayConnection.Listener {
        final List<RelayConnection.Link> opened = new CopyOnWriteArrayList<>();
        final List<Received> received = new CopyOnWriteArrayList<>();
        final List<String> challenges = new CopyOnWriteArrayList<>();
        final List<AuthAnswer> auths = new CopyOnWriteArrayList<>();
        final List<Ended> ended = new CopyOnWriteArrayList<>();
        final List<Unreachable> unreachable = new CopyOnWriteArrayList<>();
        volatile Optional<String> refusal = Optional.empty();
        volatile BiConsumer<RelayConnection.Link, Integer> onOpen = (link, n) -> { };
        volatile java.util.function.Consumer<RelayConnection.Link> onChallenge = link -> { };
        volatile BiConsumer<RelayConnection.Link, Boolean> onAuth = (link, accepted) -> { };

        @Override
        public Optional<String> beforeConnect() {
            return refusal;
        }

        @Override
        public void opened(RelayConnection.Link link) {
            opened.add(link);
            onOpen.accept(link, opened.size());
        }

        @Override
        public void received(RelayConnection.Link link, RelayMessage message) {
            received.add(new Received(link, message));
        }

        @Override
        public void challenged(RelayConnection.Link link, String challenge) {
            challenges.add(challenge);
            onChallenge.accept(link);
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            auths.add(new AuthAnswer(accepted, message));
            onAuth.accept(link, accepted);
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            ended.add(new Ended(link, statusCode, why, retryIn));
        }

        @Override
        public void unreachable(String why, int failures, Duration retryIn) {
            unreachable.add(new Unreachable(why, failures, retryIn));
        }
    }
}
