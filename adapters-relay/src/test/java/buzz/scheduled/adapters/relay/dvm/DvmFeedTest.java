package buzz.scheduled.adapters.relay.dvm;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.encryption.Nip44;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.in.JobRequestUseCase;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.StrictJson;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The front door's relay side against the project's Node relay: what it reads (NIP-44 encrypted and plain requests
 * addressed to the sidecar, deletions tagged k 5905, nothing from before its start), what it drops (over the size
 * bound, over a requester's rate), that a reconnect's catch-up hands nothing on twice, and its NIP-89 announcement.
 */
class DvmFeedTest {
    private static final SecretKey SIDECAR = new SecretKey("5c".repeat(32));
    private static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    private static final SecretKey BOB = new SecretKey("b2".repeat(32));
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Two ping intervals (RelaySettings.DEFAULT_PING_INTERVAL) and a margin: the longest a lost link may go unseen. */
    private static final Duration RECONNECT_WAIT = RelaySettings.DEFAULT_PING_INTERVAL.multipliedBy(2).plusSeconds(15);

    private final Recording jobs = new Recording();
    private TestRelay relay;
    private RelayClient client;
    private DvmFeed feed;

    /** The use case's side: what the feed handed on. */
    static final class Recording implements JobRequestUseCase {
        final List<JobRequestCommand> requests = new CopyOnWriteArrayList<>();
        final List<List<EventId>> deletions = new CopyOnWriteArrayList<>();

        @Override
        public JobOutcome handle(JobRequestCommand command) {
            requests.add(command);
            return new JobOutcome.Admitted(new ScheduleId(UUID.randomUUID()), false);
        }

        @Override
        public DeletionOutcome delete(PublicKey author, List<EventId> deleted) {
            deletions.add(deleted);
            return new DeletionOutcome(deleted.size(), 0, 0, Optional.empty());
        }
    }

    private void start(OwnerWriteLimiter requesters, int maxRequestBytes) {
        relay = TestRelay.builder().start();
        client = new RelayClient(RelaySettings.of(relay.url()), (url, challenge, at) -> {
            throw new IllegalStateException("the test relay asks for no AUTH");
        }, Instant::now);
        client.connect();
        feed = new DvmFeed(RelaySettings.of(relay.url()), SIDECAR, new Bip340EventSignatures(), jobs, requesters,
                client, Optional.empty(), Instant::now, maxRequestBytes, 100);
    }

    @AfterEach
    void stop() {
        if (feed != null) {
            feed.close();
        }
        if (client != null) {
            client.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    private static NostrEvent request(SecretKey requester, long createdAt, boolean encrypted, String content) {
        List<List<String>> job = List.of(List.of("i", content, "text"), List.of("relays", "wss://relay.example"));
        List<List<String>> tags = new java.util.ArrayList<>();
        tags.add(List.of("p", SIDECAR.publicKey().hex()));
        String body = "";
        if (encrypted) {
            tags.add(List.of("encrypted"));
            body = Nip44.encrypt(StrictJson.write(job), Nip44.conversationKey(requester, SIDECAR.publicKey()),
                    new SecureRandom());
        } else {
            tags.addAll(job);
        }
        return new Bip340Signer(requester, new SecureRandom()).sign(createdAt, DvmFeed.REQUEST_KIND, tags, body);
    }

    private void publish(NostrEvent event) {
        assertThat(client.publish(event, WAIT)).isInstanceOf(PublishResult.Published.class);
    }

    private void awaitSubscribed() {
        Poll.until("the feed's NIP-89 announcement (sent once it is connected)", WAIT,
                () -> !relay.events("{\"kinds\":[31990],\"authors\":[\"" + SIDECAR.publicKey().hex() + "\"]}")
                        .isEmpty());
    }

    @Test
    void requests_encryptedAndPlain_areReadAndHandedOnOnce_evenAfterAReconnectsCatchUp() throws Exception {
        start(OwnerWriteLimiter.UNLIMITED, DvmFeed.REQUEST_KIND * 100);
        long now = Instant.now().getEpochSecond();
        NostrEvent old = request(ALICE, now - 3600, false, "{\"before\":\"start\"}");
        publish(old);
        feed.start();
        awaitSubscribed();
        // Signed at the time the test began, before the feed started: a client clock a little behind still counts.
        NostrEvent encrypted = request(ALICE, now, true, "{\"the\":\"event\"}");
        NostrEvent plain = request(BOB, now, false, "{\"plain\":true}");
        NostrEvent toSomeoneElse = new Bip340Signer(ALICE, new SecureRandom()).sign(now, DvmFeed.REQUEST_KIND,
                List.of(List.of("p", BOB.publicKey().hex())), "");

        publish(encrypted);
        publish(plain);
        publish(toSomeoneElse);
        Poll.until("both requests handed on", WAIT, () -> jobs.requests.stream()
                .map(command -> command.requestId().hex().substring(0, 8)).toList(), handed -> handed.size() >= 2);
        relay.restart();
        NostrEvent afterRestart = request(BOB, Instant.now().getEpochSecond(), true, "{\"after\":\"restart\"}");
        // On a time-out the last value says which side stood still: the client's publish, the relay's store, or the
        // feed (what it handled and dropped). The wait covers the feed's liveness check too (a ping every 30 s, no
        // pong by the next ends the link): a close the feed did not hear is then found within a minute. A
        // clean-clone run once timed out after 30 s here with no feed warning in its log.
        Poll.until("the feed to reconnect and take a request", RECONNECT_WAIT, () -> {
            PublishResult result = client.publish(afterRestart, Duration.ofSeconds(2));
            boolean stored = !relay.events("{\"ids\":[\"" + afterRestart.id().hex() + "\"]}").isEmpty();
            return "publish: " + result + "; stored at the relay: " + stored + "; feed handled " + feed.handled() + ", dropped " + feed.dropped()
                    + "; handed on: " + jobs.requests.size();
        }, state -> jobs.requests.size() >= 3);

        assertThat(jobs.requests).extracting(JobRequestUseCase.JobRequestCommand::requestId)
                .containsExactly(encrypted.id(), plain.id(), afterRestart.id());
        JobRequestUseCase.JobRequestCommand first = jobs.requests.get(0);
        assertThat(first.encrypted()).isTrue();
        assertThat(first.requester()).isEqualTo(ALICE.publicKey());
        assertThat(first.input()).isEqualTo(new JobRequestUseCase.Input.Tags(List.of(
                List.of("i", "{\"the\":\"event\"}", "text"), List.of("relays", "wss://relay.example"))));
        assertThat(jobs.requests.get(1).encrypted()).isFalse();
        assertThat(((JobRequestUseCase.Input.Tags) jobs.requests.get(1).input()).tags())
                .contains(List.of("i", "{\"plain\":true}", "text"));
    }

    @Test
    void requests_overTheSizeBoundOrTheRequestersRate_areDroppedUnanswered() {
        Map<PublicKey, AtomicInteger> taken = new ConcurrentHashMap<>();
        OwnerWriteLimiter twoEach = (owner, count) -> taken.computeIfAbsent(owner, o -> new AtomicInteger()).incrementAndGet()
                > 2 ? Optional.of(Duration.ofSeconds(30)) : Optional.empty();
        start(twoEach, 2_000);
        feed.start();
        awaitSubscribed();
        long now = Instant.now().getEpochSecond();

        publish(request(BOB, now, true, "x".repeat(3_000)));
        for (int i = 0; i < 4; i++) {
            publish(request(ALICE, now, true, "{\"n\":" + i + "}"));
        }
        // A request is handed on and a drop counted on their own threads: wait for both, in whatever order.
        Poll.until("three drops counted and two requests handed on", WAIT,
                () -> feed.dropped() == 3 && jobs.requests.size() >= 2);

        assertThat(jobs.requests).hasSize(2).allSatisfy(command ->
                assertThat(command.requester()).isEqualTo(ALICE.publicKey()));
    }

    @Test
    void deletion_taggedK5905_isHandedOnWithTheIdsItNames_andTheAnnouncementNamesKind5905() throws Exception {
        start(OwnerWriteLimiter.UNLIMITED, 100_000);
        feed.start();
        awaitSubscribed();
        NostrEvent request = request(ALICE, Instant.now().getEpochSecond(), true, "{}");
        publish(request);
        Poll.until("the request", WAIT, () -> jobs.requests.size() == 1);

        publish(new Bip340Signer(ALICE, new SecureRandom()).sign(Instant.now().getEpochSecond(),
                DvmFeed.DELETION_KIND, List.of(List.of("e", request.id().hex()), List.of("k", "5905")), ""));
        Poll.until("the deletion", WAIT, () -> jobs.deletions.size() == 1);

        assertThat(jobs.deletions.get(0)).containsExactly(request.id());
        String announcement = relay.events("{\"kinds\":[31990]}").get(0);
        NostrEvent handler = ((NostrEventJson.Decoded.Event) NostrEventJson.read(announcement)).event();
        assertThat(handler.pubkey()).isEqualTo(SIDECAR.publicKey());
        assertThat(handler.tags()).contains(List.of("k", "5905"), List.of("d", DvmFeed.HANDLER_ID));
        assertThat(relay.events("{\"ids\":[\"" + request.id().hex() + "\"]}"))
                .as("the relay removed the deleted request (NIP-09)").isEmpty();
    }
}
