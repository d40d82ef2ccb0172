package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.List;

/**
 * Reads the delivery attempts recorded for a message (docs/delivery.md, "What an attempt leaves behind"): every
 * transient or final failure as the finishing write recorded it, and the publication of a published message. The
 * finishing write of {@link DeliveryStore} records them; implementations: PostgreSQL (production) and the in-memory
 * delivery store (tests).
 */
public interface AttemptHistory {

    /**
     * The attempts of message {@code id}, oldest first; empty for an unknown id or a message never attempted. At most
     * {@value #MAX_RECORDED} failed or retried attempts are recorded per message (a publication is always shown).
     */
    List<DeliveryAttempt> attempts(ScheduleId id);

    /** The most failed or retried attempts recorded for one message; later ones only update its last error. */
    int MAX_RECORDED = 100;
}
