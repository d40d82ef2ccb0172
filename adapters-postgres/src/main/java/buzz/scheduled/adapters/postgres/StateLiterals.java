package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import java.util.List;
import java.util.stream.Stream;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * How queries name groups of {@code scheduled_message.state} values. "Pending" and "terminal" are said with
 * {@code finished_at}, which a CHECK constraint ties to the state (NULL exactly while scheduled, claimed or sending),
 * because the partial indexes are defined on it (migration V4: no index mentions {@code state}, so a claim is a HOT
 * update). Where a state is compared directly it is an SQL literal, not a bind value: pgjdbc prepares a statement on
 * the server after a few uses, and PostgreSQL's generic plan for {@code state = $1} could not use a partial index's
 * predicate, nor estimate the few rows in a rare state.
 */
final class StateLiterals {
    static final Field<String> SENDING = DSL.inline("sending");
    /** Claimed or sending: a claim is held. */
    static final List<Field<String>> IN_FLIGHT = of("claimed", "sending");
    /** What a channel deletion or member removal fails before it is sent. */
    static final List<Field<String>> REVOCABLE = of("scheduled", "claimed");

    private StateLiterals() {
    }

    /** Not yet ended ({@code scheduled}, {@code claimed}, {@code sending}): counted against the limits. */
    static Condition pending(ScheduledMessageTable table) {
        return table.FINISHED_AT.isNull();
    }

    /** Ended ({@code published}, {@code cancelled}, {@code failed}). */
    static Condition terminal(ScheduledMessageTable table) {
        return table.FINISHED_AT.isNotNull();
    }

    private static List<Field<String>> of(String... states) {
        return Stream.of(states).<Field<String>>map(DSL::inline).toList();
    }
}
