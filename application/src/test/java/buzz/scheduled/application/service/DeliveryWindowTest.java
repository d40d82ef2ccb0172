package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.DeliveryStore.Claim;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.EarlierSend;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's window on its own: room by count (at least {@code claimWhenFree} places) and by bytes (under the
 * cap), claims sized by the average frame seen, waiters woken by the removal that makes room, and a stop or a
 * deadline ending every wait.
 */
class DeliveryWindowTest {
    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");
    private static final long NO_BYTE_CAP = Long.MAX_VALUE;

    private final AtomicBoolean stop = new AtomicBoolean();
    private long tokens;

    @Test
    void awaitRoom_emptyWindow_answersEveryPlaceAtOnce() {
        DeliveryWindow window = new DeliveryWindow(8, 4, NO_BYTE_CAP);

        assertThat(window.awaitRoom(stop::get)).isEqualTo(8);
    }

    @Test
    void addAndRemove_countEachClaimOnce_andRemoveOnlyWhatIsHeld() {
        DeliveryWindow window = new DeliveryWindow(8, 4, NO_BYTE_CAP);
        InFlight first = item(100);
        InFlight second = item(100);

        window.add(first);
        window.add(first);
        window.add(second);

        assertThat(window.count()).isEqualTo(2);
        assertThat(window.snapshot()).containsExactlyInAnyOrder(first, second);
        assertThat(window.remove(first)).isTrue();
        assertThat(window.remove(first)).isFalse();
        assertThat(window.count()).isEqualTo(1);
        assertThat(window.awaitRoom(stop::get)).isEqualTo(7);
    }

    @Test
    void awaitRoom_fewerPlacesFreeThanClaimWhenFree_waitsForTheRemovalThatMakesRoom() throws Exception {
        DeliveryWindow window = new DeliveryWindow(4, 2, NO_BYTE_CAP);
        InFlight[] items = {item(10), item(10), item(10), item(10)};
        for (InFlight item : items) {
            window.add(item);
        }
        Waiter room = Waiter.awaitRoom(window, stop);
        room.blocked();

        window.remove(items[0]);
        room.blocked();
        assertThat(room.answer.isDone()).as("one free place is less than claimWhenFree").isFalse();
        window.remove(items[1]);

        assertThat(room.answer.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void awaitRoom_bytesAtTheCap_waitUntilTheyFallUnderItWhateverThePlacesFree() throws Exception {
        long frame = item(1_000).bytes;
        DeliveryWindow window = new DeliveryWindow(100, 1, 2 * frame);
        InFlight first = item(1_000);
        window.add(first);
        window.add(item(1_000));
        Waiter room = Waiter.awaitRoom(window, stop);

        room.blocked();
        assertThat(room.answer.isDone()).as("98 places free, but the bytes are at the cap").isFalse();
        window.remove(first);

        assertThat(room.answer.get(10, TimeUnit.SECONDS)).isEqualTo(99);
    }

    @Test
    void awaitRoom_stopRequested_endsTheWaitWithNoRoom() throws Exception {
        DeliveryWindow window = new DeliveryWindow(1, 1, NO_BYTE_CAP);
        window.add(item(10));
        Waiter room = Waiter.awaitRoom(window, stop);
        room.blocked();

        stop.set(true);
        window.wake();

        assertThat(room.answer.get(10, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void fitting_beforeAnyFrame_takesOne_thenSizesByTheAverageFrameAndTheBytesLeft() {
        long frame = item(1_000).bytes;
        DeliveryWindow window = new DeliveryWindow(100, 1, 10 * frame);

        assertThat(window.fitting(50)).isEqualTo(1);
        assertThat(window.fitting(0)).isZero();

        window.add(item(1_000));
        window.add(item(1_000));
        // Eight average frames fit in what is left under the cap.
        assertThat(window.fitting(50)).isEqualTo(8);
        assertThat(window.fitting(3)).isEqualTo(3);
    }

    @Test
    void fitting_bytesOverTheCap_stillTakesOne() {
        long frame = item(1_000).bytes;
        DeliveryWindow window = new DeliveryWindow(100, 1, frame);
        window.add(item(1_000));
        window.add(item(1_000));

        assertThat(window.fitting(50)).isEqualTo(1);
    }

    @Test
    void awaitEmpty_answersWhetherEverythingWasRemovedBeforeTheDeadline() throws Exception {
        DeliveryWindow window = new DeliveryWindow(4, 1, NO_BYTE_CAP);
        assertThat(window.awaitEmpty(System.nanoTime())).isTrue();
        InFlight held = item(10);
        window.add(held);

        assertThat(window.awaitEmpty(System.nanoTime())).as("a passed deadline with a claim held").isFalse();

        CompletableFuture<Boolean> empty = CompletableFuture.supplyAsync(
                () -> window.awaitEmpty(System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
        window.remove(held);
        assertThat(empty.get(10, TimeUnit.SECONDS)).isTrue();
    }

    /** A thread waiting in {@link DeliveryWindow#awaitRoom} and the room it answers. */
    private record Waiter(Thread thread, CompletableFuture<Integer> answer) {
        static Waiter awaitRoom(DeliveryWindow window, AtomicBoolean stop) {
            CompletableFuture<Integer> answer = new CompletableFuture<>();
            Thread thread = Thread.ofPlatform().daemon().start(() -> answer.complete(window.awaitRoom(stop::get)));
            return new Waiter(thread, answer);
        }

        /** Waits until the thread is parked in the window's wait (or has answered, which the caller then sees). */
        void blocked() {
            Poll.until("the claim loop to wait for room", () -> answer.isDone()
                    || thread.getState() == Thread.State.WAITING);
        }
    }

    /** A claim whose event is {@code eventBytes} UTF-8 bytes long. */
    private InFlight item(int eventBytes) {
        String eventJson = "{}";
        ClaimedMessage message = new ClaimedMessage(
                new Claim(new ScheduleId(UUID.randomUUID()), new FencingToken(++tokens)), Revision.FIRST,
                new EventId("e".repeat(64)), eventJson, eventBytes, 1, TestEvents.ALICE, new Channel("general"),
                T, T.plusSeconds(60), 1, false, EarlierSend.NONE);
        return new InFlight(message, 0, 0, 0);
    }
}
