package buzz.scheduled.adapters.relay.nip29;

/**
 * How many events the backlog asks for per page (NIP-01 {@code limit}), lowered when the relay refuses a page. Some
 * relays refuse a {@code REQ} whose {@code limit} is over their own, by {@code NOTICE}, by {@code CLOSED} or by not
 * answering, without stating a {@code max_limit} in NIP-11; a page size the relay refuses would leave the backlog
 * unread for as long as the sidecar runs (docs/failure-scenarios.md F37). Each refusal halves the size, down to 1;
 * the lowest size reached is kept for later connections, so the relay is asked too much once per process, not once
 * per connection. Thread-safe.
 */
final class PageSize {

    /** What a refused page leads to. */
    sealed interface Refused permits Lowered, AtOne {
    }

    /**
     * Ask again with {@code size} events per page.
     *
     * @param first whether this is the first time the relay made the feed lower its pages (worth a WARN)
     */
    record Lowered(int size, boolean first) implements Refused {
    }

    /** A page of one event was refused: the relay's reason is not its page size. */
    record AtOne() implements Refused {
    }

    private int ceiling = Integer.MAX_VALUE;
    private boolean lowered;

    /** The page size for a new connection, given the size the relay's NIP-11 document or the settings call for. */
    synchronized int forConnection(int wanted) {
        return Math.max(1, Math.min(wanted, ceiling));
    }

    /** The relay refused a page of {@code size} events. */
    synchronized Refused refused(int size) {
        if (size <= 1) {
            return new AtOne();
        }
        ceiling = Math.min(ceiling, size / 2);
        boolean first = !lowered;
        lowered = true;
        return new Lowered(ceiling, first);
    }
}
