package buzz.scheduled.adapters.relay;

/**
 * How a {@code REQ} that asks the relay whether it has some events ended, and so what the events it did not send
 * mean (docs/delivery.md, "Unknown outcomes"). Only an {@code EOSE} from a relay that serves this connection's reads
 * says "not there": a relay that wants NIP-42 AUTH before it serves a read answers an unauthenticated one with
 * {@code CLOSED "auth-required: …"}, or with its challenge and an empty {@code EOSE} (docs/failure-scenarios.md F35),
 * and such an answer must never count as "not found".
 */
sealed interface LookUpEnd {

    /** {@code EOSE} on a connection whose reads the relay serves: an event it did not send is not on the relay. */
    record Complete() implements LookUpEnd {
    }

    /** The relay wants AUTH before it answers: authenticate, then ask again. */
    record AuthFirst(String why) implements LookUpEnd {
    }

    /** Nothing can be concluded: refused for another reason, no answer in time. */
    record Unknown(String why) implements LookUpEnd {
    }

    /**
     * What an {@code EOSE} means on a connection where the relay sent an AUTH challenge ({@code challenged}) and
     * {@code authenticated} says whether it accepted ours: an {@code EOSE} given while a challenge stands unanswered
     * is the relay withholding what an unauthenticated reader may not see.
     */
    static LookUpEnd endOfStoredEvents(boolean challenged, boolean authenticated) {
        return challenged && !authenticated
                ? new AuthFirst("the relay sent an AUTH challenge and answered before we authenticated")
                : new Complete();
    }

    /** What a {@code CLOSED} with {@code message} means. */
    static LookUpEnd closed(String message) {
        return message.startsWith("auth-required:") ? new AuthFirst(message)
                : new Unknown("was refused (" + message + ")");
    }
}
