package buzz.scheduled.domain.schedule;

/**
 * A claim's fencing token: drawn from a database sequence, so tokens only grow. Every write made on behalf
 * of a claim is conditional on the token still being the row's token.
 *
 * @param value 1 or more
 */
public record FencingToken(long value) {
    public FencingToken {
        if (value < 1) {
            throw new IllegalArgumentException("fencing token must be 1 or more, got " + value);
        }
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
