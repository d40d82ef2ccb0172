package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.port.out.WallClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests set and advance by hand, as this host's clock and as the store's (no skew). Thread-safe. */
public final class SettableClock implements WallClock, StoreClock {
    private final AtomicReference<Instant> now;

    public SettableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    @Override
    public Instant now() {
        return now.get();
    }

    /** Moves the clock to {@code instant}. */
    public void set(Instant instant) {
        now.set(instant);
    }

    /** Moves the clock forward by {@code step}. */
    public Instant advance(Duration step) {
        return now.updateAndGet(current -> current.plus(step));
    }
}
