package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;

/** Whether an event the sidecar made and signed (a notice, a job answer) reached a relay. */
public sealed interface NostrDelivery {

    /** A relay took it ({@code OK true}, or {@code duplicate:}). */
    record Delivered(EventId eventId) implements NostrDelivery {
    }

    /** No relay took it; {@code why} says what happened (escaped, for a log line). */
    record Undelivered(String why) implements NostrDelivery {
    }
}
