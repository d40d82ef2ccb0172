package buzz.scheduled.domain.schedule;

/**
 * A relay channel (NIP-29 style group): the value of the event's single {@code h} tag.
 *
 * @param value 1 to 256 characters, no control characters
 */
public record Channel(String value) {
    /** Longest channel id accepted. */
    public static final int MAX_LENGTH = 256;

    public Channel {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("channel must not be empty");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("channel must be at most " + MAX_LENGTH + " characters");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("channel must not contain control characters");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
