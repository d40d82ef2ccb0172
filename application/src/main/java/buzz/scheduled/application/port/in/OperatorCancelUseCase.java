package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;

/**
 * An operator cancels any owner's pending message ({@code POST /v1/admin/messages/{id}/cancel}, docs/openapi.yaml)
 * with the owner's guarantee (docs/delivery.md): once the cancel committed it is never published, and its event is
 * deleted at once. Refused like the owner's cancel in {@code sending} ({@code dispatching}), {@code published}
 * ({@code already_sent}) and {@code failed} ({@code not_pending}); a cancelled message is answered again.
 */
public interface OperatorCancelUseCase {

    /** Cancels; the message as it is now on success. */
    OwnerChangeResult cancel(OperatorCancelCommand command);

    /**
     * Which message, by which operator.
     *
     * @param operator the authenticated operator, named in the log line
     */
    record OperatorCancelCommand(PublicKey operator, ScheduleId id) {
        public OperatorCancelCommand {
            if (operator == null || id == null) {
                throw new IllegalArgumentException("an operator's cancel needs the operator and the id");
            }
        }
    }
}
