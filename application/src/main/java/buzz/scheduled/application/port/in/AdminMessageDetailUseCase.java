package buzz.scheduled.application.port.in;

import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminMessage;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.List;
import java.util.Optional;

/**
 * One message's detail for operators ({@code GET /v1/admin/messages/{id}}, docs/openapi.yaml): its metadata and its
 * delivery attempts with the relay's words, never the event content.
 */
public interface AdminMessageDetailUseCase {

    /** The message's detail, whoever owns it; empty for an unknown id. */
    Optional<AdminMessageDetail> detail(ScheduleId id);

    /**
     * A message's metadata and its attempts, oldest first.
     *
     * @param message  what the operators' list shows of it
     * @param attempts its recorded delivery attempts
     */
    record AdminMessageDetail(AdminMessage message, List<DeliveryAttempt> attempts) {
        public AdminMessageDetail {
            if (message == null || attempts == null) {
                throw new IllegalArgumentException("a message detail needs the message and its attempts");
            }
            attempts = List.copyOf(attempts);
        }
    }
}
