package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/failure-scenarios.md F16 end to end, compressed in time (lateness limit 20 s instead of 900 s, backoff 0.5 s to
 * 2 s): the real test relay is down around a message's due time; the dispatcher retries with backoff, and publishes
 * once the relay is back within the lateness limit; a message whose relay stays down past the limit fails
 * {@code expired}. Nothing reaches the relay before its due time.
 */
class RelayOutageTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    /**
     * The compressed lateness limit. The first message must still be inside it after three failed attempts
     * (about 3 s), a restart of the Node relay and the next retry (up to 2 s). With 12 s, one loaded run saw the
     * first message end {@code failed} about 10 s after its due time, which a slow restart explains: a retry
     * planned past the limit fails the message {@code expired}.
     */
    private static final int LATENESS_SECONDS = 20;

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
    void f16_relayDownAroundTheDueTime_retriedWithBackoff_publishedWhenBack_orExpiredPastTheLimit() {
        DeliverySettings delivery = new DeliverySettings(Duration.ofSeconds(6), Duration.ofSeconds(2),
                Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(LATENESS_SECONDS),
                new Backoff(Duration.ofMillis(500), Duration.ofSeconds(2), Math::random));
        DispatcherSettings settings = new DispatcherSettings(delivery, 8, 8, DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(30),
                Duration.ofSeconds(1), Duration.ofMillis(200));
        List<RecordingPublisher.Send> sends = new CopyOnWriteArrayList<>();
        Authors author = new Authors();

        // The relay client's reconnect backoff must be short next to the compressed lateness limit (in
        // production: at most 30 s against 900 s).
        RelaySettings relaySettings = new RelaySettings(relay.url(), Duration.ofSeconds(5), Duration.ofMillis(100),
                Duration.ofMillis(500));

        try (DeliveryNode sidecar = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), relaySettings).named("outage")
                .settings(settings).recording(sends).start()) {
            sidecar.warmUp();

            relay.stop();
            NostrEvent back = author.message(sidecar.nextSecond(), "published when the relay is back");
            ScheduledMessage recovered = Authors.schedule(sidecar.store, back);
            Poll.until("three failed attempts", Duration.ofSeconds(20), () -> sends.stream()
                    .filter(send -> send.eventId().equals(back.id()) && !(send.result() instanceof PublishResult.Published))
                    .count() >= 3);
            relay.restart();
            Poll.until("the end of the outage", Duration.ofSeconds(20),
                    () -> sidecar.store.find(recovered.id()).orElseThrow().state().terminal());
            assertThat(sidecar.state(recovered)).as("the recovered message (reason %s) after these sends: %s",
                    sidecar.store.find(recovered.id()).orElseThrow().failureReason(), sends).isEqualTo("published");

            relay.stop();
            NostrEvent late = author.message(sidecar.nextSecond(), "the relay stays down too long");
            ScheduledMessage expired = Authors.schedule(sidecar.store, late);
            Poll.until("expiry", Duration.ofSeconds(LATENESS_SECONDS + 20L),
                    () -> sidecar.state(expired).equals("failed"));
            relay.restart();

            assertThat(sidecar.store.find(expired.id()).orElseThrow().failureReason()).contains(FailureReason.EXPIRED);
            List<RecordingPublisher.Send> forRecovered = sends.stream()
                    .filter(send -> send.eventId().equals(back.id())).toList();
            assertThat(forRecovered.size()).isGreaterThanOrEqualTo(4);
            // While the relay is down a frame cannot be written (not sent) or its answer is lost (transient).
            assertThat(forRecovered.subList(0, forRecovered.size() - 1)).allSatisfy(send -> assertThat(send.result())
                    .isInstanceOfAny(PublishResult.Transient.class, PublishResult.NotSent.class));
            assertThat(forRecovered.getLast().result()).isInstanceOf(PublishResult.Published.class);
            assertThat(forRecovered.getLast().lateness()).isLessThanOrEqualTo(delivery.maxLateness());
            for (int i = 2; i < forRecovered.size(); i++) {
                // Each retry waited at least half its backoff step (equal jitter) after the previous answer.
                assertThat(Duration.between(forRecovered.get(i - 1).sentAt(), forRecovered.get(i).sentAt()))
                        .isGreaterThanOrEqualTo(Duration.ofMillis(250));
            }
            assertThat(sends.stream().filter(send -> send.eventId().equals(late.id())))
                    .isNotEmpty()
                    .allSatisfy(send -> assertThat(send.sentAt())
                            .isBefore(send.dueAt().plus(delivery.maxLateness()).plusSeconds(1)));
            assertThat(sends).allSatisfy(send -> assertThat(send.sentAt()).isAfterOrEqualTo(send.dueAt()));
            assertThat(relay.events("{\"authors\":[\"" + author.pubkey() + "\"]}"))
                    .hasSize(1).allSatisfy(json -> assertThat(json).contains(back.id().hex()));
        }
    }
}
