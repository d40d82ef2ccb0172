package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.util.Optional;

/** Reads one of an owner's messages (docs/openapi.yaml, info: another owner's id is as missing as an unknown one). */
public interface GetMessageUseCase {

    /** The message if it exists and belongs to {@code owner}. */
    Optional<ScheduledMessage> get(PublicKey owner, ScheduleId id);
}
