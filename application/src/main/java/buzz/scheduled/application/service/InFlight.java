package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;

/**
 * One claim the dispatcher holds, from the claim until its outcome is recorded (or left to the reaper).
 *
 * <p>Times are {@link System#nanoTime()} readings measured from just before the claim was asked, so they can only
 * end before the lease the store granted, never after it.
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
        this.bytes = frameBytes(message.eventJson());
    }

    /** Whether the frame may still be written: the claim was not reported lost. */
    boolean held() {
        return !lost;
    }

    /**
     * UTF-8 length of {@code ["EVENT",<event>]}, the WebSocket message a relay's NIP-11 {@code max_message_length}
     * limits.
     */
    static long frameBytes(String eventJson) {
        long bytes = "[\"EVENT\",]".length();
        for (int i = 0; i < eventJson.length(); i++) {
            char c = eventJson.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < eventJson.length()
                    && Character.isLowSurrogate(eventJson.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
