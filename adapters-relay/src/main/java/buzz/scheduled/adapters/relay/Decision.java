package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;

/**
 * What a {@link Session} decided about a relay message or a tick, for the {@link RelayClient} to carry out: the
 * session changes only its own connection's state and leaves the client's queues, the AUTH event and the callbacks
 * to the client. No decisions means nothing to do.
 */
sealed interface Decision {

    /**
     * Give {@code frame} its answer (outside the client's lock).
     *
     * @param frame  the frame
     * @param result its answer
     */
    record Answer(Frame frame, PublishResult result) implements Decision {
    }

    /**
     * Write {@code frame} again, after the frames refused before it and before new ones.
     *
     * @param frame the frame, {@link FrameState.Queued} again
     */
    record Resend(Frame frame) implements Decision {
    }

    /**
     * Ask about {@code frame} again once the relay has answered our AUTH: a look-up goes back to the front of the
     * look-ups (in the order given), another frame joins the unresolved ones.
     *
     * @param frame the frame, {@link FrameState.Queued} or {@link FrameState.Unresolved} again
     */
    record AskAgain(Frame frame) implements Decision {
    }

    /** Sign AUTH for the connection's latest challenge and write it before anything else (NIP-42). */
    record Authenticate() implements Decision {
    }

    /** Frames for the relay were queued on the session (a {@code CLOSE}): write what may be written. */
    record Write() implements Decision {
    }

    /**
     * End the connection (it looks dead); what waits on it is carried to the next.
     *
     * @param why for the log
     */
    record EndConnection(String why) implements Decision {
    }
}
