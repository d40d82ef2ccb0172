package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.application.port.in.DeliveryUseCase;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Forwards every delivery step; tests override the one they interfere with. */
class ForwardingDelivery implements DeliveryUseCase {
    private final DeliveryUseCase inner;

    ForwardingDelivery(DeliveryUseCase inner) {
        this.inner = inner;
    }

    @Override
    public List<ClaimedWork> claimDue(int limit) {
        return inner.claimDue(limit);
    }

    @Override
    public GateResult startSending(ClaimedWork work) {
        return inner.startSending(work);
    }

    @Override
    public boolean published(ClaimedWork work) {
        return inner.published(work);
    }

    @Override
    public boolean retryLater(ClaimedWork work, String why) {
        return inner.retryLater(work, why);
    }

    @Override
    public boolean failed(ClaimedWork work, FailureReason reason, String why) {
        return inner.failed(work, reason, why);
    }

    @Override
    public boolean release(ClaimedWork work) {
        return inner.release(work);
    }

    @Override
    public Set<ScheduleId> renewLeases(Collection<ClaimedWork> claims) {
        return inner.renewLeases(claims);
    }

    @Override
    public int reapExpiredLeases() {
        return inner.reapExpiredLeases();
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return inner.nextDueAt();
    }

    @Override
    public Instant now() {
        return inner.now();
    }
}
