package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE_REVISION;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.select;

import buzz.scheduled.domain.schedule.FailureReason;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;

/**
 * The many-row writes that end pending messages at once — an owner's bulk cancel, a channel deletion, a member's
 * removal — as one domain transition into a terminal state writes each row: the claim cleared (which revokes it),
 * no retry time, the end time {@code now()}, the payload and every revision's payload deleted.
 */
final class TerminalWrites {
    private static final Field<Instant> NOW = DatabaseClock.NOW;

    private TerminalWrites() {
    }

    /**
     * Moves the pending rows matching {@code which} whose state is one of {@code from} into {@code to}, in the
     * transaction of {@code tx}.
     *
     * @param reason the failure reason {@code to} carries, if it is {@code failed}
     * @return the ids of the rows moved
     */
    static List<UUID> end(DSLContext tx, Condition which, List<Field<String>> from, String to,
                          Optional<FailureReason> reason) {
        Condition moving = which.and(StateLiterals.pending(SCHEDULED_MESSAGE)).and(SCHEDULED_MESSAGE.STATE.in(from));
        List<UUID> ended = tx.update(SCHEDULED_MESSAGE)
                .set(SCHEDULED_MESSAGE.STATE, to)
                .set(SCHEDULED_MESSAGE.REASON, reason.map(FailureReason::wireName).orElse(null))
                .setNull(SCHEDULED_MESSAGE.EVENT_JSON)
                .setNull(SCHEDULED_MESSAGE.FENCING_TOKEN)
                .setNull(SCHEDULED_MESSAGE.LEASE_UNTIL)
                .setNull(SCHEDULED_MESSAGE.RETRY_AT)
                .set(SCHEDULED_MESSAGE.FINISHED_AT, NOW)
                .set(SCHEDULED_MESSAGE.UPDATED_AT, NOW)
                .where(moving)
                .and(SCHEDULED_MESSAGE.ID.eq(any(lockedInIdOrder(moving))))
                .returning(SCHEDULED_MESSAGE.ID)
                .fetch(SCHEDULED_MESSAGE.ID);
        if (!ended.isEmpty()) {
            tx.update(SCHEDULED_MESSAGE_REVISION)
                    .setNull(SCHEDULED_MESSAGE_REVISION.EVENT_JSON)
                    .where(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID.in(ended))
                    .and(SCHEDULED_MESSAGE_REVISION.EVENT_JSON.isNotNull())
                    .execute();
        }
        return ended;
    }

    /**
     * The ids of the rows matching {@code which}, locked in id order (an InitPlan, run once) before the
     * statement using them writes: the grouped delivery writes and the lease renewal lock their rows in id
     * order too, so a multi-row write here and one of theirs never wait on each other in a cycle.
     */
    static Field<UUID[]> lockedInIdOrder(Condition which) {
        return array(select(SCHEDULED_MESSAGE.ID)
                .from(SCHEDULED_MESSAGE)
                .where(which)
                .orderBy(SCHEDULED_MESSAGE.ID)
                .forUpdate());
    }
}
