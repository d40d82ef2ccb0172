package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.List;
import java.util.Optional;

/**
 * Reads the delivery attempts of one of an owner's messages ({@code GET /v1/scheduled-messages/{id}/attempts},
 * docs/openapi.yaml): when each was recorded, what it came to and the relay's words. Another owner's id is as missing
 * as an unknown one.
 */
public interface MessageAttemptsUseCase {

    /** The attempts, oldest first, if the message exists and belongs to {@code owner}; empty otherwise. */
    Optional<List<DeliveryAttempt>> attempts(PublicKey owner, ScheduleId id);
}
