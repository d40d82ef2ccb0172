package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.DatabaseAvailability;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher following the database watch (docs/failure-scenarios.md F27, F32): while the database takes no
 * writes (read-only after a failover, or unreachable) it claims and reaps nothing instead of failing each time, and
 * claims again as soon as it does; its answered statements are reported, and its reaper runs in the watch's check
 * slots when the watch takes it.
 */
class DispatcherDatabaseOutageTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final SteppedDeliveryStore delivery = fx.stepped();

    /** A watch's stand-in the test switches by hand; counts what the dispatcher tells it. */
    private static final class SwitchedAvailability implements DatabaseAvailability {
        final AtomicBoolean writable = new AtomicBoolean(true);
        final AtomicInteger looks = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();
        volatile BooleanSupplier slotStatement;

        @Override
        public boolean takesWrites() {
            looks.incrementAndGet();
            return writable.get();
        }

        @Override
        public void answered() {
            answered.incrementAndGet();
        }

        @Override
        public boolean runInCheckSlots(Duration period, BooleanSupplier statement) {
            slotStatement = statement;
            return true;
        }
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void databaseTakesNoWrites_nothingIsClaimedOrReaped_thenClaimedAtOnceWhenItDoes() {
        SwitchedAvailability database = new SwitchedAvailability();
        database.writable.set(false);
        ScheduledMessage due = fx.schedule(T0, "due during the outage");

        Dispatcher dispatcher = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(
                DispatchFixture.deliverySettings()), database);
        Poll.until("the claim loop to look at the database a few times", () -> database.looks.get() >= 5);
        assertThat(database.slotStatement).as("the reaper runs in the watch's check slots").isNotNull();
        boolean reapedDuringOutage = database.slotStatement.getAsBoolean();

        assertThat(delivery.claimCalls).as("claims while the database takes no writes").hasValue(0);
        assertThat(reapedDuringOutage).as("a reap in the outage is skipped, so the watch checks itself").isFalse();
        assertThat(delivery.reapsDone).hasValue(0);
        assertThat(fx.state(due)).isEqualTo("scheduled");
        assertThat(dispatcher.counts().errors()).as("an outage the watch knows of is no error").isZero();

        database.writable.set(true);
        Poll.until("the due message published once the database takes writes", Duration.ofSeconds(5),
                () -> fx.state(due).equals("published"));
        assertThat(database.slotStatement.getAsBoolean()).as("a reap once it takes writes").isTrue();
        assertThat(delivery.reapsDone).hasValue(1);
        assertThat(database.answered.get()).as("the claim, the look-up and the reap were reported")
                .isGreaterThanOrEqualTo(3);
    }
}
