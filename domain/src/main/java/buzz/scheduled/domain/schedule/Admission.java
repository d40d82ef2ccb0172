package buzz.scheduled.domain.schedule;

import buzz.scheduled.domain.nostr.NostrEvent;
import java.time.Instant;

/**
 * An event that passed the admission rules that need no I/O (see {@link AdmissionRules}).
 *
 * @param event   the exact signed event
 * @param channel its single {@code h} tag
 * @param dueAt   its {@code created_at}
 */
public record Admission(NostrEvent event, Channel channel, Instant dueAt) {
    public Admission {
        if (event == null) {
            throw new IllegalArgumentException("an admission needs an event");
        }
        if (channel == null) {
            throw new IllegalArgumentException("an admission needs a channel");
        }
        if (dueAt == null) {
            throw new IllegalArgumentException("an admission needs a due time");
        }
    }
}
