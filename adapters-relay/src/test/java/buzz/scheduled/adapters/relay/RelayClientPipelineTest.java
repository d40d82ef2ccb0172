package buzz.scheduled.adapters.relay;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.testing.FakeRelay;
import buzz.scheduled.adapters.relay.testing.LoggedLines;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher.Publication;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import ch.qos.logback.classic.Level;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The pipelined publish path against relays that behave the way real ones do (the Node test relay in its modes)
 * and against faults only the fake can produce: lost answers and relays that never answer duplicates
 * (docs/failure-scenarios.md F17), a message size limit that closes the connection (F18), AUTH bound to the relay's
 * public URL (F19), a relay that stops reading, a half-open connection, and an oversized message from the relay.
 */
class RelayClientPipelineTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void firstOkLostAndDuplicatesNeverAnswered_theRelayIsAskedForTheId_andTheEventIsFound() throws Exception {
        try (TestRelay relay = TestRelay.builder().mode("--lose-first-ok", "--silent-duplicates").logReceived().start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            NostrEvent event = TestSigners.message(TestSigners.ALICE, "channel-1");

            PublishResult result = publish(client, event, Duration.ofSeconds(30), Duration.ofMillis(700))
                    .get(20, TimeUnit.SECONDS);

            assertThat(result).isEqualTo(new PublishResult.Published(PublishResult.Acceptance.FOUND,
                    "the relay's answer was lost (timeout); it has the event"));
            assertThat(relay.receivedEvents()).extracting(TestRelay.ReceivedEvent::id)
                    .as("asked, not sent again").containsExactly(event.id().hex());
            assertThat(relay.event(event.id().hex())).contains(NostrEventJson.write(event));
            assertThat(client.counts().found()).isEqualTo(1);
        }
    }

    @Test
    void relayClosesTheConnectionOnAnOversizedFrame_thatOneFailsTooLargeAtOnce_theOthersArePublished()
            throws Exception {
        try (TestRelay relay = TestRelay.builder().mode("--max-message-length", "131072").logReceived().start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            client.connect();
            awaitConnected(client);
            NostrEvent oversized = TestSigners.ALICE.sign(Instant.now().getEpochSecond(), 9,
                    List.of(List.of("h", "channel-1")), "x".repeat(200_000));
            List<NostrEvent> small = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                small.add(TestSigners.message(TestSigners.BOB, "channel-1"));
            }
            List<CompletableFuture<PublishResult>> answers = new ArrayList<>();
            answers.add(publish(client, small.get(0), Duration.ofSeconds(30), TIMEOUT));
            answers.add(publish(client, oversized, Duration.ofSeconds(30), TIMEOUT));
            for (NostrEvent event : small.subList(1, small.size())) {
                answers.add(publish(client, event, Duration.ofSeconds(30), TIMEOUT));
            }

            PublishResult big = answers.get(1).get(20, TimeUnit.SECONDS);
            List<PublishResult> others = new ArrayList<>();
            for (int i = 0; i < answers.size(); i++) {
                if (i != 1) {
                    others.add(answers.get(i).get(20, TimeUnit.SECONDS));
                }
            }
            PublishResult again = publish(client, oversized, Duration.ofSeconds(30), TIMEOUT).get(5, TimeUnit.SECONDS);

            assertThat(big).isInstanceOfSatisfying(PublishResult.Rejected.class, rejected -> {
                assertThat(rejected.prefix()).isEqualTo("too-large");
                assertThat(rejected.message()).contains("1009");
            });
            assertThat(others).allSatisfy(result -> assertThat(result).isInstanceOf(PublishResult.Published.class));
            for (NostrEvent event : small) {
                assertThat(relay.event(event.id().hex())).as("stored").isPresent();
            }
            assertThat(client.counts().drops()).as("one reconnect").isEqualTo(1);
            assertThat(again).as("refused before sending from then on").isInstanceOf(PublishResult.Rejected.class);
            assertThat(relay.receivedEvents()).extracting(TestRelay.ReceivedEvent::id)
                    .doesNotContain(oversized.id().hex());
        }
    }

    @Test
    void relayRequiresItsPublicUrlInAuth_withTheAuthUrlSet_authenticatesAndPublishes() throws Exception {
        try (TestRelay relay = TestRelay.builder().mode("--auth-hostname", "relay.example.com").start();
             RelayClient client = new RelayClient(settings(relay.url())
                     .withAuthUrl(URI.create("wss://relay.example.com")), signer(), Instant::now)) {
            NostrEvent event = TestSigners.message(TestSigners.ALICE, "channel-1");

            PublishResult result = client.publish(event, TIMEOUT);

            assertThat(result).isEqualTo(new PublishResult.Published(false, ""));
            assertThat(client.counts().authRefusals()).isZero();
        }
    }

    @Test
    void relayRequiresItsPublicUrlInAuth_withTheInternalAddress_theRefusalIsCountedWithTheRelaysWords()
            throws Exception {
        try (TestRelay relay = TestRelay.builder().mode("--auth-hostname", "relay.example.com").start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now);
             LoggedLines lines = LoggedLines.of(RelayClient.class, Level.WARN)) {
            NostrEvent event = TestSigners.message(TestSigners.ALICE, "channel-1");

            PublishResult result = client.publish(event, TIMEOUT);

            assertThat(result).isEqualTo(new PublishResult.Transient(
                    "auth-required: the relay refused our AUTH (invalid: the relay url is wrong)"));
            assertThat(client.counts().authRefusals()).isEqualTo(1);
            assertThat(lines.at(Level.WARN)).anySatisfy(line -> assertThat(line)
                    .contains("refused our NIP-42 AUTH").contains("invalid: the relay url is wrong")
                    .contains("BUZZ_RELAY_AUTH_URL"));
            assertThat(relay.event(event.id().hex())).isEmpty();
        }
    }

    @Test
    void relayStopsReading_noFrameIsWrittenAfterItsDeadline_andThoseNeverReachTheRelay() throws Exception {
        try (TestRelay relay = TestRelay.builder().mode("--stall-after", "2", "--stall-ms", "4000").logReceived()
                .start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            client.connect();
            awaitConnected(client);
            List<NostrEvent> events = new ArrayList<>();
            // Far more than the loopback socket buffers on both ends hold (tens of MiB).
            for (int i = 0; i < 400; i++) {
                events.add(TestSigners.ALICE.sign(Instant.now().getEpochSecond(), 9,
                        List.of(List.of("h", "channel-1")), i + ":" + "y".repeat(120_000)));
            }
            List<CompletableFuture<PublishResult>> answers = new ArrayList<>();
            for (NostrEvent event : events) {
                answers.add(publish(client, event, Duration.ofMillis(1500), Duration.ofMillis(1000)));
            }
            List<PublishResult> results = new ArrayList<>();
            for (CompletableFuture<PublishResult> answer : answers) {
                results.add(answer.get(30, TimeUnit.SECONDS));
            }
            Set<String> notSent = new HashSet<>();
            for (int i = 0; i < events.size(); i++) {
                if (results.get(i) instanceof PublishResult.NotSent) {
                    notSent.add(events.get(i).id().hex());
                }
            }
            // The relay reads again after its stall; give it the time to read whatever reached its socket.
            long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
            int seen = -1;
            while (System.nanoTime() < until) {
                int now = relay.receivedEvents().size();
                if (now == seen && Duration.ofNanos(until - System.nanoTime()).compareTo(Duration.ofSeconds(3)) < 0) {
                    break;
                }
                seen = now;
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
            }
            Set<String> received = relay.receivedEvents().stream().map(TestRelay.ReceivedEvent::id)
                    .collect(Collectors.toSet());

            assertThat(notSent).as("frames still queued at their deadline").isNotEmpty();
            assertThat(received).as("no frame answered not-sent ever reached the relay").doesNotContainAnyElementsOf(notSent);
            assertThat(client.counts().notSent()).isEqualTo(notSent.size());
            assertThat(client.counts().drops()).as("the connection with a write stuck at its deadline was ended")
                    .isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void halfOpenConnection_repeatedTimeoutsWithNothingHeard_endItAndTheNextConnectionDelivers() throws Exception {
        try (FakeRelay relay = FakeRelay.start();
             RelayClient client = new RelayClient(new RelaySettings(relay.url(), relay.url(), Duration.ofMillis(600),
                     Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofMillis(50), Duration.ofSeconds(30),
                     RelaySettings.DEFAULT_MAX_INBOUND, 3), signer(), Instant::now)) {
            client.connect();
            awaitConnected(client);
            relay.blackholeOpenConnections();
            List<CompletableFuture<PublishResult>> lost = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                lost.add(publish(client, TestSigners.message(TestSigners.ALICE, "c"), Duration.ofSeconds(20),
                        Duration.ofMillis(300)));
            }

            relay.awaitConnections(2, TIMEOUT);
            List<PublishResult> results = new ArrayList<>();
            for (CompletableFuture<PublishResult> answer : lost) {
                results.add(answer.get(20, TimeUnit.SECONDS));
            }

            assertThat(client.counts().drops()).isGreaterThanOrEqualTo(1);
            assertThat(results).allSatisfy(result -> assertThat(result).isInstanceOf(PublishResult.Published.class));
            assertThat(relay.received("EVENT").stream().filter(r -> r.connection() == 2).count())
                    .as("sent again on the fresh connection after the relay said it did not have them")
                    .isEqualTo(3);
        }
    }

    @Test
    void relaySendsAMessageLongerThanTheCap_theConnectionIsEndedAndANewOneIsMade() throws Exception {
        try (FakeRelay relay = FakeRelay.start();
             RelayClient client = new RelayClient(settings(relay.url()).withMaxInboundBytes(100_000), signer(),
                     Instant::now)) {
            client.connect();
            awaitConnected(client);

            relay.sendToClients("[\"NOTICE\",\"" + "z".repeat(200_000) + "\"]");
            relay.awaitConnections(2, TIMEOUT);
            PublishResult result = client.publish(TestSigners.message(TestSigners.ALICE, "c"), TIMEOUT);

            assertThat(result).isEqualTo(new PublishResult.Published(false, ""));
            assertThat(client.counts().drops()).isEqualTo(1);
        }
    }

    @Test
    void pongMissing_theConnectionIsEndedAtTheNextPing() throws Exception {
        try (FakeRelay relay = FakeRelay.start();
             RelayClient client = new RelayClient(settings(relay.url()).withPingInterval(Duration.ofMillis(300)),
                     signer(), Instant::now)) {
            client.connect();
            awaitConnected(client);
            relay.blackholeOpenConnections();

            relay.awaitConnections(2, TIMEOUT);

            assertThat(client.counts().drops()).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void claimLostBeforeTheFrameLeaves_nothingIsWrittenAndTheAnswerIsNotSent() throws Exception {
        try (FakeRelay relay = FakeRelay.start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            NostrEvent event = TestSigners.message(TestSigners.ALICE, "c");
            CompletableFuture<PublishResult> answer = new CompletableFuture<>();

            client.publish(new Publication(event.id(), NostrEventJson.write(event),
                    System.nanoTime() + TIMEOUT.toNanos(), () -> false, TIMEOUT), answer::complete);

            assertThat(answer.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(PublishResult.NotSent.class,
                    notSent -> assertThat(notSent.reason()).startsWith("lost: "));
            assertThat(relay.received("EVENT")).isEmpty();
        }
    }

    @Test
    void lookUp_asksTheRelayForTheIdWithoutSendingIt_foundWhenItHasTheEvent_notFoundOtherwise() throws Exception {
        try (TestRelay relay = TestRelay.builder().logReceived().start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            NostrEvent published = TestSigners.message(TestSigners.ALICE, "channel-1");
            NostrEvent neverSent = TestSigners.message(TestSigners.BOB, "channel-1");
            assertThat(publish(client, published, TIMEOUT, TIMEOUT).get(20, TimeUnit.SECONDS))
                    .isInstanceOf(PublishResult.Published.class);

            PublishResult found = lookUp(client, published).get(20, TimeUnit.SECONDS);
            PublishResult missing = lookUp(client, neverSent).get(20, TimeUnit.SECONDS);

            assertThat(found).isInstanceOfSatisfying(PublishResult.Published.class,
                    p -> assertThat(p.acceptance()).isEqualTo(PublishResult.Acceptance.FOUND));
            assertThat(missing).isEqualTo(new PublishResult.Transient("not-found: the relay does not have the event"));
            assertThat(relay.receivedEvents()).extracting(TestRelay.ReceivedEvent::id)
                    .as("only the published one was ever sent").containsExactly(published.id().hex());
            assertThat(relay.event(neverSent.id().hex())).isEmpty();
        }
    }

    @Test
    void lookUp_ofManyAtOnce_atARelayLimitingOpenSubscriptions_everyOneIsAnsweredByTheRelay_noneRefused()
            throws Exception {
        try (TestRelay relay = TestRelay.builder()
                .mode("--max-subscriptions", Integer.toString(RelayClient.MAX_OPEN_RESOLUTIONS)).logReceived().start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            NostrEvent published = TestSigners.message(TestSigners.ALICE, "channel-1");
            assertThat(publish(client, published, TIMEOUT, TIMEOUT).get(20, TimeUnit.SECONDS))
                    .isInstanceOf(PublishResult.Published.class);
            List<NostrEvent> asked = new ArrayList<>();
            asked.add(published);
            for (int i = 0; i < 249; i++) {
                asked.add(TestSigners.message(TestSigners.BOB, "channel-1"));
            }

            List<CompletableFuture<PublishResult>> answers = asked.stream().map(e -> lookUp(client, e)).toList();

            List<PublishResult> results = new ArrayList<>();
            for (CompletableFuture<PublishResult> answer : answers) {
                results.add(answer.get(30, TimeUnit.SECONDS));
            }
            assertThat(results.get(0)).isInstanceOf(PublishResult.Published.class);
            assertThat(results.subList(1, results.size())).as("each one asked, and told the relay does not have it")
                    .allSatisfy(result -> assertThat(result)
                            .isEqualTo(new PublishResult.Transient("not-found: the relay does not have the event")));
            assertThat(relay.receivedEvents()).hasSize(1);
        }
    }

    @Test
    void lookUp_relayUnreachable_isAnsweredNotSentAtItsDeadline_neverAsked() throws Exception {
        try (FakeRelay relay = FakeRelay.start()) {
            URI url = relay.url();
            relay.close();
            try (RelayClient client = new RelayClient(settings(url), signer(), Instant::now)) {
                NostrEvent event = TestSigners.message(TestSigners.ALICE, "c");
                CompletableFuture<PublishResult> answer = new CompletableFuture<>();

                client.lookUp(new Publication(event.id(), NostrEventJson.write(event),
                        System.nanoTime() + Duration.ofMillis(500).toNanos(), () -> true, TIMEOUT), answer::complete);

                assertThat(answer.get(20, TimeUnit.SECONDS)).isInstanceOf(PublishResult.NotSent.class);
            }
        }
    }

    @Test
    void resolveThenPublish_asksTheRelayFirst_foundIsNotSentAgain_missingIsWrittenOnce() throws Exception {
        try (TestRelay relay = TestRelay.builder().logReceived().start();
             RelayClient client = new RelayClient(settings(relay.url()), signer(), Instant::now)) {
            NostrEvent alreadyThere = TestSigners.message(TestSigners.ALICE, "channel-1");
            NostrEvent missing = TestSigners.message(TestSigners.BOB, "channel-1");
            assertThat(publish(client, alreadyThere, TIMEOUT, TIMEOUT).get(20, TimeUnit.SECONDS))
                    .isInstanceOf(PublishResult.Published.class);

            CompletableFuture<PublishResult> found = new CompletableFuture<>();
            CompletableFuture<PublishResult> sent = new CompletableFuture<>();
            client.resolveThenPublish(new Publication(alreadyThere.id(), NostrEventJson.write(alreadyThere),
                    System.nanoTime() + TIMEOUT.toNanos(), () -> true, TIMEOUT), found::complete);
            client.resolveThenPublish(new Publication(missing.id(), NostrEventJson.write(missing),
                    System.nanoTime() + TIMEOUT.toNanos(), () -> true, TIMEOUT), sent::complete);

            assertThat(found.get(20, TimeUnit.SECONDS)).isInstanceOfSatisfying(PublishResult.Published.class,
                    published -> assertThat(published.acceptance()).isEqualTo(PublishResult.Acceptance.FOUND));
            assertThat(sent.get(20, TimeUnit.SECONDS)).isEqualTo(new PublishResult.Published(false, ""));
            assertThat(relay.receivedEvents()).extracting(TestRelay.ReceivedEvent::id)
                    .containsExactly(alreadyThere.id().hex(), missing.id().hex());
        }
    }

    private static CompletableFuture<PublishResult> lookUp(RelayClient client, NostrEvent event) {
        CompletableFuture<PublishResult> answer = new CompletableFuture<>();
        client.lookUp(new Publication(event.id(), NostrEventJson.write(event), System.nanoTime() + TIMEOUT.toNanos(),
                () -> true, TIMEOUT), answer::complete);
        return answer;
    }

    private static CompletableFuture<PublishResult> publish(RelayClient client, NostrEvent event, Duration sendWithin,
                                                            Duration timeout) {
        CompletableFuture<PublishResult> answer = new CompletableFuture<>();
        client.publish(new Publication(event.id(), NostrEventJson.write(event), System.nanoTime() + sendWithin.toNanos(),
                () -> true, timeout), answer::complete);
        return answer;
    }

    private static RelaySettings settings(URI url) {
        return new RelaySettings(url, Duration.ofSeconds(5), Duration.ofMillis(20), Duration.ofMillis(250));
    }

    private static AuthEventSigner signer() {
        return AuthEventSigner.with(TestSigners.SIDECAR);
    }

    private static void awaitConnected(RelayClient client) {
        Poll.until("the client to connect", TIMEOUT, client::isConnected);
    }
}
