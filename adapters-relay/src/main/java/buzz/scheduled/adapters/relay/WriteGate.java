package buzz.scheduled.adapters.relay;

/**
 * What one connection may write besides control frames, as far as NIP-42 is concerned. A relay may send its AUTH
 * challenge on connect, only after refusing something ({@code auth-required:}), or never; a client that waits for
 * one before sending waits in vain at the second kind (docs/failure-scenarios.md F38). So a fresh connection sends
 * its first event frame at once and holds only the rest until the relay has said anything about it: its answer, a
 * challenge, or {@link RelaySettings#authChallengeWait()} of silence. Once the relay asks for AUTH, nothing but AUTH
 * goes until the relay answers it (or the connect timeout passes).
 *
 * <p>Not thread-safe: the relay client holds its lock around every call. Times are {@link System#nanoTime()}.
 */
final class WriteGate {

    /** Where a connection stands. */
    enum State {
        /** Fresh: one event frame may go at once; the rest wait for the relay's first word about it. */
        PROBING,
        /** Event frames and questions flow. */
        OPEN,
        /** The relay asked for AUTH: only the AUTH event goes until the relay answers it. */
        AUTHENTICATING
    }

    private State state = State.PROBING;
    /** When the current {@link State#PROBING} or {@link State#AUTHENTICATING} wait gives up and opens. */
    private long until;
    private int eventsWritten;

    /** A gate for a connection opened at {@code now} that probes for {@code probeNanos}. */
    WriteGate(long now, long probeNanos) {
        this.until = now + probeNanos;
    }

    State state() {
        return state;
    }

    /** Whether an event frame may be written now. */
    boolean mayWriteEvent() {
        return switch (state) {
            case OPEN -> true;
            case PROBING -> eventsWritten == 0;
            case AUTHENTICATING -> false;
        };
    }

    /** Whether a question ({@code REQ}) may be written now: not while AUTH is under way (it would be refused). */
    boolean mayAsk() {
        return state != State.AUTHENTICATING;
    }

    /** An event frame was handed to the socket. */
    void eventWritten() {
        eventsWritten++;
    }

    /** The relay answered an event frame without asking for AUTH: it takes frames as they come. */
    void answered() {
        if (state == State.PROBING) {
            state = State.OPEN;
        }
    }

    /** The relay asked for AUTH (a challenge, or an {@code auth-required:} answer): hold until {@code deadline}. */
    void authenticating(long deadline) {
        state = State.AUTHENTICATING;
        until = deadline;
    }

    /** The relay answered our AUTH, either way: frames flow again. */
    void authAnswered() {
        state = State.OPEN;
    }

    /** Opens a wait that has run out; true when it did. */
    boolean expire(long now) {
        if (state != State.OPEN && now - until > 0) {
            state = State.OPEN;
            return true;
        }
        return false;
    }
}
