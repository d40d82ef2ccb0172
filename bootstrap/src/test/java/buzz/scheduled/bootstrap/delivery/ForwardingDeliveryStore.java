package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Forwards every call to the delivery store; tests override the one they interfere with. */
class ForwardingDeliveryStore implements DeliveryStore {
    private final DeliveryStore inner;

    ForwardingDeliveryStore(DeliveryStore inner) {
        this.inner = inner;
    }

    @Override
    public Instant now() {
        return inner.now();
    }

    @Override
    public ClaimedBatch claim(int limit, Duration lease) {
        return inner.claim(limit, lease);
    }

    @Override
    public List<FinishResult> finish(List<Finish> outcomes) {
        return inner.finish(outcomes);
    }

    @Override
    public Set<ScheduleId> renew(Collection<Claim> claims, Duration lease) {
        return inner.renew(claims, lease);
    }

    @Override
    public int reap(Duration grace) {
        return inner.reap(grace);
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return inner.nextDueAt();
    }
}
