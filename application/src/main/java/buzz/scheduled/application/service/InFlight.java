package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;

/**
 * One claim the dispatcher holds, from the claim until its outcome is recorded (or left to the reaper).
 *
 * <p>Times are readings of the dispatcher's {@link buzz.scheduled.application.support.MonotonicClock}, measured from
 * just before the claim was asked, so they can only end before the lease the store granted, never after it.
 */
final class InFlight {
    final ClaimedMessage message;
    /** The frame is never written to the relay's socket after this. */
    final long sendBy;
    /** When the claim was asked for. */
    final long claimedAt;
    /** When the lease ends unless renewed again; moved on by every renewal. */
    volatile long leaseEnds;
    /** Bytes of the event frame, counted against the window's byte cap. */
    final long bytes;
    /** Set when a renewal found the claim no longer held: its frame must not be written any more. */
    volatile boolean lost;

    InFlight(ClaimedMessage message, long claimedAt, long sendBy, long leaseEnds) {
        this.message = message;
        this.claimedAt = claimedAt;
        this.sendBy = sendBy;
        this.leaseEnds = leaseEnds;
        this.bytes = FRAME_OVERHEAD + message.eventJsonBytes();
    }

    /** Whether the frame may still be written: the claim was not reported lost. */
    boolean held() {
        return !lost;
    }

    /**
     * The bytes {@code ["EVENT",<event>]} adds around the event: with the event's UTF-8 length, the size of the
     * WebSocket message a relay's NIP-11 {@code max_message_length} limits.
     */
    static final int FRAME_OVERHEAD = "[\"EVENT\",]".length();
}
