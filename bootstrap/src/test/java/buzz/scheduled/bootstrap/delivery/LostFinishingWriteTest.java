package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.in.DeliveryUseCase;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.bootstrap.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SCENARIOS F1 with real PostgreSQL and the real test relay: the relay accepts {@code E(r1)}, then the write
 * that records {@code published} fails on a dropped database connection. The lease runs out, the reaper
 * returns the item, it is claimed and sent again, the relay answers {@code duplicate:}, and it ends
 * {@code published} once; no other event id reaches the relay.
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

    @Test
    void f1_publishedWriteLostOnADroppedConnection_resentAsDuplicate_publishedOnce() {
        DeliverySettings delivery = new DeliverySettings(Duration.ofSeconds(5), Duration.ofSeconds(3),
                Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(900),
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Math::random));
        DispatcherSettings settings = new DispatcherSettings(delivery, 8, 8, Duration.ofSeconds(30),
                Duration.ofMillis(500), Duration.ofMillis(200));
        CuttableDataSource pool = new CuttableDataSource(db.dataSource());
        List<RecordingPublisher.Send> sends = new CopyOnWriteArrayList<>();
        AtomicBoolean cut = new AtomicBoolean();
        Authors author = new Authors();

        try (Sidecar sidecar = Sidecar.start("one", pool, db.jdbcUrl(), relay.url(), settings, sends,
                inner -> new ForwardingDelivery(inner) {
                    @Override
                    public boolean published(DeliveryUseCase.ClaimedWork work) {
                        if (cut.compareAndSet(false, true)) {
                            pool.dropNextConnectionOfThisThread();
                        }
                        return super.published(work);
                    }
                })) {
            // The relay's first signature check is slow (JIT); keep that out of the publish budget.
            assertThat(sidecar.relayClient.publish(new Authors().message(Instant.now(), "warm-up"),
                    Duration.ofSeconds(20))).isInstanceOf(PublishResult.Published.class);
            Instant due = sidecar.store.now().plusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            NostrEvent r1 = author.message(due, "F1: accepted, then the finishing write is lost");
            ScheduledMessage message = Authors.schedule(sidecar.store, r1);

            Poll.until("publication after the reaper", Duration.ofSeconds(30),
                    () -> sidecar.store.find(message.id()).orElseThrow().state().wireName().equals("published"));

            ScheduledMessage done = sidecar.store.find(message.id()).orElseThrow();
            assertThat(sends).extracting(RecordingPublisher.Send::eventId).containsExactly(r1.id(), r1.id());
            assertThat(done.attempts()).isEqualTo(2);
            assertThat(sends.get(0).duplicate()).isFalse();
            assertThat(sends.get(1).duplicate()).isTrue();
            assertThat(sends).allSatisfy(send -> assertThat(send.sentAt()).isAfterOrEqualTo(send.dueAt()));
            assertThat(sidecar.dispatcher.counts().errors()).isEqualTo(1);
            assertThat(sidecar.dispatcher.counts().reaped()).isEqualTo(1);
            assertThat(sidecar.dispatcher.counts().published()).isEqualTo(1);
            List<String> atRelay = relay.events("{\"authors\":[\"" + author.pubkey() + "\"]}");
            assertThat(atRelay).hasSize(1).allSatisfy(json -> assertThat(json).contains(r1.id().hex()));
        }
    }
}
