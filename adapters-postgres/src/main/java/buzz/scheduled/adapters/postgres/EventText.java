package buzz.scheduled.adapters.postgres;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;

/**
 * The text form of a signed event in the {@code event_json} columns: the event's NIP-01 wire JSON as
 * {@link NostrEventJson} writes it. Every value round-trips exactly (strings, integers, tag order), so the id
 * and signature the author made stay valid; the column is {@code text}, not {@code jsonb}, so PostgreSQL
 * never re-orders, de-duplicates or re-encodes it.
 */
final class EventText {

    private EventText() {
    }

    /** Writes {@code event} as compact NIP-01 wire JSON. */
    static String write(NostrEvent event) {
        return NostrEventJson.write(event);
    }

    /**
     * Reads what {@link #write} wrote, with the same strict reader admission uses.
     *
     * @throws IllegalStateException when the stored text is not a well-formed event (a corrupted row)
     */
    static NostrEvent read(String text) {
        return switch (NostrEventJson.read(text)) {
            case NostrEventJson.Decoded.Event decoded -> decoded.event();
            case NostrEventJson.Decoded.Malformed malformed ->
                    throw new IllegalStateException("stored event is malformed: " + malformed.reason());
        };
    }
}
