package buzz.scheduled.adapters.relay;

/**
 * Where one publication's frame stands on the {@link RelayClient}'s connections, from queued until answered
 * (docs/delivery.md). Each state holds only what belongs to it, so that a frame cannot be, say, both waiting for its
 * {@code OK} and asked about; {@link Frame} moves it from one to the next with a {@code switch} over these.
 */
sealed interface FrameState {

    /**
     * Waiting to be written (an event frame) or asked about (a look-up): never written yet, or refused by the relay
     * for now and to be written again.
     *
     * @param askedBefore a look-up whose question was asked already and is asked again after AUTH
     */
    record Queued(boolean askedBefore) implements FrameState {
    }

    /**
     * Written to the open connection and waiting for its {@code OK}.
     *
     * @param at       {@link System#nanoTime()} when it was written
     * @param answerBy when the wait for the {@code OK} ends and the relay is asked instead
     */
    record Written(long at, long answerBy) implements FrameState {
    }

    /**
     * The outcome is unknown, and no connection may ask the relay yet (the connection was lost, or the relay wants AUTH
     * before it answers).
     *
     * @param origin how the outcome came to be unknown
     */
    record Unresolved(Origin origin) implements FrameState {
    }

    /**
     * Asked about in a look-up ({@code REQ} by id) on the open connection.
     *
     * @param origin       how the outcome came to be unknown
     * @param subscription the look-up's subscription id
     */
    record Resolving(Origin origin, String subscription) implements FrameState {
    }

    /** Answered: later news about it (a late {@code OK}) is ignored. */
    record Answered() implements FrameState {
    }

    /** How a frame's outcome came to be unknown, which says what an event the relay does not have means. */
    enum Origin {
        /** Never written by this client; an earlier claim may have sent it. Absent: written now. */
        EARLIER_CLAIM(false, true),
        /** Written, then the connection was lost before the relay answered. Absent: written again. */
        LOST_CONNECTION(true, true),
        /** Written (or, for a look-up, asked) and not answered in time. Absent: answered as such. */
        NO_ANSWER(true, false);

        private final boolean written;
        private final boolean resendIfAbsent;

        Origin(boolean written, boolean resendIfAbsent) {
            this.written = written;
            this.resendIfAbsent = resendIfAbsent;
        }

        /** Whether this client wrote the frame (or asked its question). */
        boolean written() {
            return written;
        }

        /** Whether an event frame the relay turns out not to have is written again. */
        boolean resendIfAbsent() {
            return resendIfAbsent;
        }
    }
}
