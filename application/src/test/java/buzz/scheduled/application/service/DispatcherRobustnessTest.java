package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What keeps the pipeline whole when something misbehaves: a renewed lease keeps a slow send's outcome writable
 * after the first lease is over, the bytes in flight stay near their cap however large the frames, and a relay
 * adapter that throws (breaking its promise) neither strands a claim nor its neighbours.
 */
class DispatcherRobustnessTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final SteppedDeliveryStore delivery = fx.stepped();

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void slowRelayKeptAliveByRenewals_finishingWriteFailsOnceAfterTheFirstLease_isWrittenAgainNotAbandoned()
            throws Exception {
        DeliverySettings short600 = new DeliverySettings(Duration.ofMillis(600), Duration.ofMillis(300),
                Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(900),
                new buzz.scheduled.domain.schedule.Backoff(Duration.ofMillis(50), Duration.ofMillis(100), () -> 0.5));
        ScheduledMessage message = fx.schedule(T0, "slow but alive");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.stalled(entered, release));
        fx.stepTime();

        Dispatcher dispatcher = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(short600));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        long firstLeaseOver = delivery.lastClaimAskedNanos + Duration.ofMillis(800).toNanos();
        // The first lease (600 ms) and the grace (200 ms) pass in four steps of a third of the lease, each followed by
        // a renewal round (the finisher's own schedule of them is DispatcherFencingTest's).
        for (int renewal = 1; renewal <= 4; renewal++) {
            fx.ticks.advance(short600.lease().dividedBy(3));
            dispatcher.renewLeases();
        }
        fx.ticks.advance(Duration.ofNanos(1));
        assertThat(delivery.renewCalls.get()).isGreaterThanOrEqualTo(4);
        assertThat(fx.ticks.nanoTime() - firstLeaseOver).as("past the first lease and the grace").isPositive();
        delivery.failFinishes(1);
        release.countDown();
        Poll.until("the failed finishing write", () -> dispatcher.counts().writeFailures() == 1);
        fx.advance(Duration.ofMillis(50));
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().abandoned()).isZero();
        assertThat(dispatcher.counts().writeFailures()).isEqualTo(1);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }

    @Test
    void largeFrames_aClaimIsSizedSoTheBytesInFlightStayNearTheCap() throws Exception {
        String big = "b".repeat(20_000);
        List<ScheduledMessage> messages = IntStream.range(0, 8).mapToObj(i -> fx.schedule(T0, i + big)).toList();
        fx.relay.pause();
        DispatcherSettings capped = new DispatcherSettings(DispatchFixture.deliverySettings(), 8, 8,
                DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(30), Duration.ofHours(1), Duration.ofMillis(50));

        fx.start(delivery, signal, capped);
        Poll.until("the first claims", () -> fx.relay.waiting() >= 1);
        Poll.until("the claim loop to wait for room", () -> delivery.claimCalls.get() >= 2
                || fx.relay.waiting() == 8);
        long frame = InFlight.FRAME_OVERHEAD + fx.row(messages.get(0)).event().map(
                buzz.scheduled.domain.nostr.NostrEventJson::write).orElseThrow()
                .getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

        assertThat(fx.relay.waiting() * frame).as("bytes in flight (%d frames of %d bytes)", fx.relay.waiting(), frame)
                .isLessThanOrEqualTo(DispatcherSettings.MIN_QUEUED_BYTES + frame);
        fx.relay.resume();
        Poll.until("all published", () -> messages.stream().allMatch(m -> fx.state(m).equals("published")));
        assertThat(delivery.claimSizes).as("the first claim of one (nothing seen yet), then sized by bytes")
                .allSatisfy(size -> assertThat(size * frame).isLessThanOrEqualTo(DispatcherSettings.MIN_QUEUED_BYTES
                        + frame));
    }

    @Test
    void relayAdapterThrows_theClaimIsRetriedAndItsNeighboursAreSent() {
        List<ScheduledMessage> messages = IntStream.range(0, 3).mapToObj(i -> fx.schedule(T0, "n" + i)).toList();
        AtomicInteger throwsLeft = new AtomicInteger(1);
        RelayPublisher throwingOnce = new RelayPublisher() {
            @Override
            public PublishResult publish(NostrEvent event, Duration timeout) {
                return fx.relay.publish(event, timeout);
            }

            @Override
            public void publish(Publication publication, Consumer<PublishResult> answer) {
                if (throwsLeft.getAndDecrement() > 0) {
                    throw new IllegalStateException("a broken adapter (test)");
                }
                fx.relay.publish(publication, answer);
            }

            @Override
            public void lookUp(Publication publication, Consumer<PublishResult> answer) {
                fx.relay.lookUp(publication, answer);
            }

            @Override
            public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
                fx.relay.resolveThenPublish(publication, answer);
            }

            @Override
            public int withdrawUnsent() {
                return fx.relay.withdrawUnsent();
            }
        };

        Dispatcher dispatcher = fx.start(delivery, throwingOnce, signal, DispatchFixture.dispatcherSettings(
                DispatchFixture.deliverySettings()));
        Poll.until("two published and one retried", () -> messages.stream()
                .filter(m -> fx.state(m).equals("published")).count() == 2
                && messages.stream().anyMatch(m -> fx.row(m).state() instanceof
                buzz.scheduled.domain.schedule.ScheduleState.Scheduled s && s.retryAt().isPresent()));
        // The finisher lets go of a claim just after its write returns, so the window empties a moment later.
        Poll.until("the window to empty", () -> dispatcher.inFlight() == 0);

        assertThat(dispatcher.counts().errors()).isEqualTo(1);
        ScheduledMessage retried = messages.stream().filter(m -> !fx.state(m).equals("published")).findFirst()
                .orElseThrow();
        fx.moveToRetryTime(retried, signal);
        Poll.until("the retried one published", () -> fx.state(retried).equals("published"));
        assertThat(messages).allSatisfy(m -> assertThat(fx.relay.sends(m.eventId())).isEqualTo(1));
    }
}
