package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/failure-scenarios.md F1 with real PostgreSQL and the real test relay. The relay accepts {@code E(r1)}, then the
 * write that records {@code published} fails. When the database is back within seconds (connections dropped under the
 * write), the finisher writes it again within the lease: published once, sent once. When it stays out past the lease
 * and the reaper's grace, the reaper returns the item, it is claimed and sent again, the relay answers
 * {@code duplicate:}, and it ends {@code published} once; no other event id reaches the relay.
 */
class LostFinishingWriteTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static TestRelay relay;

    @BeforeAll
    static void startRelay() {
        relay = TestRelay.start();
    }

    @AfterAll
    static void stopRelay() {
        relay.close();
    }

    private static final DeliverySettings DELIVERY = new DeliverySettings(Duration.ofSeconds(5), Duration.ofSeconds(3),
            Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(900),
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Math::random));
    private static final DispatcherSettings SETTINGS = new DispatcherSettings(DELIVERY, 8, 8,
            DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(30), Duration.ofMillis(500), Duration.ofMillis(200));

    @Test
    void finishingWriteFailsTwiceOnDroppedConnections_writtenAgainWithinTheLease_sentOnce() {
        CuttableDataSource pool = new CuttableDataSource(db.dataSource());
        List<RecordingPublisher.Send> sends = new CopyOnWriteArrayList<>();
        AtomicInteger cuts = new AtomicInteger();
        Authors author = new Authors();

        try (DeliveryNode node = DeliveryNode.on(pool, db.jdbcUrl(), relay.url()).named("brief").settings(SETTINGS)
                .recording(sends).wrapping(inner -> new ForwardingDeliveryStore(inner) {
                    @Override
                    public List<FinishResult> finish(List<Finish> outcomes) {
                        if (outcomes.stream().anyMatch(Finish.Publish.class::isInstance)
                                && cuts.getAndIncrement() < 2) {
                            pool.dropNextConnectionOfThisThread();
                        }
                        return super.finish(outcomes);
                    }
                }).start()) {
            node.warmUp();
            NostrEvent r1 = author.message(node.nextSecond(), "accepted, then two finishing writes are lost");
            ScheduledMessage message = Authors.schedule(node.store, r1);

            Poll.until("publication", Duration.ofSeconds(15),
                    () -> node.state(message).equals("published"));

            ScheduledMessage done = node.store.find(message.id()).orElseThrow();
            assertThat(sends).extracting(RecordingPublisher.Send::eventId).containsExactly(r1.id());
            assertThat(done.attempts()).isEqualTo(1);
            assertThat(done.publishedAt().orElseThrow()).as("not held for a lease")
                    .isBefore(r1Due(r1).plus(DELIVERY.lease()));
            assertThat(node.dispatcher.counts().writeFailures()).isEqualTo(2);
            assertThat(node.dispatcher.counts().reaped()).isZero();
        }
    }

    @Test
    void f1_finishingWriteFailsPastTheLease_reaperReturnsIt_resentAsDuplicate_publishedOnce() {
        List<RecordingPublisher.Send> sends = new CopyOnWriteArrayList<>();
        AtomicBoolean databaseOut = new AtomicBoolean();
        Authors author = new Authors();

        try (DeliveryNode node = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), relay.url()).named("one")
                .settings(SETTINGS).recording(sends).wrapping(inner -> new ForwardingDeliveryStore(inner) {
                    @Override
                    public List<FinishResult> finish(List<Finish> outcomes) {
                        if (databaseOut.get()) {
                            throw new IllegalStateException("recording failed: the database is unreachable (test)");
                        }
                        return super.finish(outcomes);
                    }
                }).start()) {
            node.warmUp();
            databaseOut.set(true);
            NostrEvent r1 = author.message(node.nextSecond(), "F1: accepted, then the finishing write is lost");
            ScheduledMessage message = Authors.schedule(node.store, r1);

            Poll.until("the second send, after the reaper", Duration.ofSeconds(30),
                    () -> sends.stream().filter(send -> send.eventId().equals(r1.id())).count() == 2);
            databaseOut.set(false);
            Poll.until("publication", Duration.ofSeconds(15),
                    () -> node.state(message).equals("published"));

            ScheduledMessage done = node.store.find(message.id()).orElseThrow();
            assertThat(sends).extracting(RecordingPublisher.Send::eventId).containsExactly(r1.id(), r1.id());
            assertThat(done.attempts()).isEqualTo(2);
            assertThat(sends.get(0).duplicate()).isFalse();
            assertThat(sends.get(1).duplicate()).isTrue();
            assertThat(sends).allSatisfy(send -> assertThat(send.sentAt()).isAfterOrEqualTo(send.dueAt()));
            assertThat(node.dispatcher.counts().reaped()).isEqualTo(1);
            assertThat(node.dispatcher.counts().published()).isEqualTo(1);
            List<String> atRelay = relay.events("{\"authors\":[\"" + author.pubkey() + "\"]}");
            assertThat(atRelay).hasSize(1).allSatisfy(json -> assertThat(json).contains(r1.id().hex()));
        }
    }

    private static Instant r1Due(NostrEvent event) {
        return Instant.ofEpochSecond(event.createdAt());
    }
}
