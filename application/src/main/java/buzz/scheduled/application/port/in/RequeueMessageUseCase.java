package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.Optional;

/**
 * An operator makes a failed message due again with its owner's stored, signed event
 * ({@code POST /v1/admin/messages/{id}/requeue}, docs/openapi.yaml; docs/scheduled-messages.md §8), e.g. after
 * fixing the setting that failed it. Refused ({@link OwnerChangeResult.StateConflict}) when it
 * did not fail ({@code not_failed}, {@code already_sent}), when its event was purged ({@code event_purged}), or when
 * its {@code created_at} is older than the lateness limit ({@code resign_required}); a newer revision than the one the
 * operator saw is a {@link OwnerChangeResult.RevisionConflict}; a deleted channel or a full channel window is
 * {@link OwnerChangeResult.Refused}.
 */
public interface RequeueMessageUseCase {

    /** Requeues; the message as it is now on success. */
    OwnerChangeResult requeue(RequeueMessageCommand command);

    /**
     * Which message, by which operator.
     *
     * @param operator the authenticated operator, named in the log line
     * @param ifMatch  the revision the operator saw ({@code If-Match}), when given
     */
    record RequeueMessageCommand(PublicKey operator, ScheduleId id, Optional<Revision> ifMatch) {
        public RequeueMessageCommand {
            if (operator == null || id == null || ifMatch == null) {
                throw new IllegalArgumentException("a requeue needs the operator, the id and an If-Match option");
            }
        }
    }
}
