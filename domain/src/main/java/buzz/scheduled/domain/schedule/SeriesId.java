package buzz.scheduled.domain.schedule;

import java.util.Locale;
import java.util.UUID;

/**
 * The identity of a series: the messages one batch admitted together with {@code "series": true}
 * (docs/scheduled-messages.md, "Batches, series and bulk cancel"). A UUID chosen by the sidecar, never by the client;
 * the occurrences themselves are events the client signed ahead (the sidecar never signs for an owner).
 *
 * @param value the UUID
 */
public record SeriesId(UUID value) {
    public SeriesId {
        if (value == null) {
            throw new IllegalArgumentException("series id is missing");
        }
    }

    /**
     * Parses the canonical textual form (lowercase or uppercase hex with hyphens).
     *
     * @throws IllegalArgumentException when {@code text} is not a UUID
     */
    public static SeriesId parse(String text) {
        try {
            UUID uuid = UUID.fromString(text);
            if (!uuid.toString().equals(text.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("not a canonical UUID: " + text);
            }
            return new SeriesId(uuid);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("not a series id (a UUID): " + text, e);
        }
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
