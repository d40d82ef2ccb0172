package buzz.scheduled.adapters.postgres;

import java.util.List;
import java.util.stream.Stream;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The {@code scheduled_message.state} values that queries compare against, as SQL literals rather than bind
 * values. The partial indexes ({@code WHERE state = 'scheduled'}, {@code WHERE state IN ('scheduled',
 * 'claimed', 'sending')}, …) can serve a plan only when the planner sees the literal: pgjdbc prepares a
 * statement on the server after a few uses, and PostgreSQL's generic plan for {@code state = $1} could not use
 * them, so it would keep re-planning every execution (or, when it settles for the generic plan, scan the
 * table). With literals the generic plan is the good one.
 */
final class StateLiterals {
    static final Field<String> SCHEDULED = DSL.inline("scheduled");
    static final Field<String> SENDING = DSL.inline("sending");
    /** Claimed or sending: a claim is held. */
    static final List<Field<String>> IN_FLIGHT = of("claimed", "sending");
    /** Not yet ended: counted against the limits. */
    static final List<Field<String>> PENDING = of("scheduled", "claimed", "sending");
    /** What a channel deletion or member removal fails before it is sent. */
    static final List<Field<String>> REVOCABLE = of("scheduled", "claimed");
    /** Ended. */
    static final List<Field<String>> TERMINAL = of("published", "cancelled", "failed");

    private StateLiterals() {
    }

    private static List<Field<String>> of(String... states) {
        return Stream.of(states).<Field<String>>map(DSL::inline).toList();
    }
}
