package buzz.scheduled.domain.schedule;

import java.util.UUID;

/**
 * The identity of a scheduled message, a UUID chosen by the sidecar (never by the client).
 *
 * @param value the UUID
 */
public record ScheduleId(UUID value) {
    public ScheduleId {
        if (value == null) {
            throw new IllegalArgumentException("schedule id is missing");
        }
    }

    /**
     * Parses the canonical textual form.
     *
     * @throws IllegalArgumentException when {@code text} is not a UUID
     */
    public static ScheduleId parse(String text) {
        try {
            UUID uuid = UUID.fromString(text);
            if (!uuid.toString().equals(text.toLowerCase(java.util.Locale.ROOT))) {
                throw new IllegalArgumentException("not a canonical UUID: " + text);
            }
            return new ScheduleId(uuid);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("not a UUID: " + text, e);
        }
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
