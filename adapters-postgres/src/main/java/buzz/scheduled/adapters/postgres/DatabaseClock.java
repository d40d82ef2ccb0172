package buzz.scheduled.adapters.postgres;

import static org.jooq.impl.DSL.val;

import java.time.Duration;
import java.time.Instant;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The database clock in statements (docs/delivery.md "Time": every "is it due / has the lease expired" decision is
 * taken on it): {@code now()}, and {@code now()} moved by a duration, bound as whole microseconds (PostgreSQL's
 * timestamp resolution).
 */
final class DatabaseClock {
    /** {@code now()}: the start of the statement's transaction. */
    static final Field<Instant> NOW = DSL.field("now()", SQLDataType.INSTANT);

    private DatabaseClock() {
    }

    /** {@code now() + duration}. */
    static Field<Instant> nowPlus(Duration duration) {
        return DSL.field("(now() + {0} * interval '1 microsecond')", SQLDataType.INSTANT, val(micros(duration)));
    }

    /** {@code now() - duration}. */
    static Field<Instant> nowMinus(Duration duration) {
        return DSL.field("(now() - {0} * interval '1 microsecond')", SQLDataType.INSTANT, val(micros(duration)));
    }

    /**
     * {@code duration} in whole microseconds (sub-microsecond parts dropped).
     *
     * @throws ArithmeticException when it does not fit in a long
     */
    static long micros(Duration duration) {
        return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1_000);
    }
}
