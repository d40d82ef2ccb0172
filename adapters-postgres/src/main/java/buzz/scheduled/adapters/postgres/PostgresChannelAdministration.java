package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.CHANNEL_TOMBSTONE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE_REVISION;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.least;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;

import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record4;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The channel administration port on PostgreSQL with jOOQ (docs/scheduled-messages.md §5, §6). Every operation is one
 * short transaction (a full purge and pruning: one per batch); "now" is the database's {@code now()}. Deletion takes
 * the same per-channel advisory lock as a create, so no create can slip a row into a channel between its
 * tombstone check and the deletion.
 */
public final class PostgresChannelAdministration implements ChannelAdministration {

    private static final Field<Instant> NOW = DatabaseClock.NOW;
    /** Rows one full-purge statement deletes. */
    private static final int PURGE_BATCH = 1_000;

    private final DSLContext dsl;

    /** Over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresChannelAdministration(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("channel administration needs a data source");
        }
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    @Override
    public ChannelDeleted deleteChannel(Channel channel) {
        String name = channel.value();
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            OwnerMessageRows.advisoryLock(tx, OwnerMessageRows.CHANNEL_LOCK, name);
            boolean newlyDeleted = tx.insertInto(CHANNEL_TOMBSTONE)
                    .set(CHANNEL_TOMBSTONE.CHANNEL, name)
                    .set(CHANNEL_TOMBSTONE.DELETED_AT, NOW)
                    .onConflictDoNothing()
                    .execute() == 1;
            Condition inChannel = SCHEDULED_MESSAGE.CHANNEL.eq(name);
            int failed = revoke(tx, inChannel, FailureReason.CHANNEL_DELETED);
            int purgedTerminal = tx.update(SCHEDULED_MESSAGE)
                    .setNull(SCHEDULED_MESSAGE.EVENT_JSON)
                    .where(inChannel)
                    .and(StateLiterals.terminal(SCHEDULED_MESSAGE))
                    .and(SCHEDULED_MESSAGE.EVENT_JSON.isNotNull())
                    .execute();
            purgeHistory(tx, inChannel.and(SCHEDULED_MESSAGE.STATE.notIn(StateLiterals.IN_FLIGHT)));
            int inFlight = tx.fetchCount(SCHEDULED_MESSAGE, inChannel.and(StateLiterals.pending(SCHEDULED_MESSAGE))
                    .and(SCHEDULED_MESSAGE.STATE.in(StateLiterals.IN_FLIGHT)));
            return new ChannelDeleted(failed, failed + purgedTerminal, inFlight, newlyDeleted);
        }));
    }

    @Override
    public MemberRemoved removeMember(Channel channel, PublicKey member) {
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            Condition theirs = SCHEDULED_MESSAGE.CHANNEL.eq(channel.value())
                    .and(SCHEDULED_MESSAGE.OWNER.eq(member.hex()));
            int failed = revoke(tx, theirs, FailureReason.MEMBER_REMOVED);
            int inFlight = tx.fetchCount(SCHEDULED_MESSAGE, theirs.and(StateLiterals.pending(SCHEDULED_MESSAGE))
                    .and(SCHEDULED_MESSAGE.STATE.in(StateLiterals.IN_FLIGHT)));
            return new MemberRemoved(failed, inFlight);
        }));
    }

    /**
     * Fails the revocable rows matching {@code which} for {@code reason}, as {@code Transition.REVOKE}'s row of the
     * domain's table says ({@code scheduled}, {@code claimed} → {@code failed}): claim cleared (which revokes it),
     * payload and history purged.
     */
    private static int revoke(DSLContext tx, Condition which, FailureReason reason) {
        return TerminalWrites.end(tx, which, StateLiterals.REVOCABLE, StateLiterals.REVOKED_INTO,
                Optional.of(reason)).size();
    }

    private static void purgeHistory(DSLContext tx, Condition messages) {
        tx.update(SCHEDULED_MESSAGE_REVISION)
                .setNull(SCHEDULED_MESSAGE_REVISION.EVENT_JSON)
                .where(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID.in(
                        select(SCHEDULED_MESSAGE.ID).from(SCHEDULED_MESSAGE).where(messages)))
                .and(SCHEDULED_MESSAGE_REVISION.EVENT_JSON.isNotNull())
                .execute();
    }

    @Override
    public int purgeOwner(PublicKey owner) {
        // Revisions and idempotency keys go with their message (ON DELETE CASCADE).
        Condition theirs = SCHEDULED_MESSAGE.OWNER.eq(owner.hex());
        return SessionFaults.retriedOnce(() -> dsl.deleteFrom(SCHEDULED_MESSAGE)
                .where(theirs)
                .and(SCHEDULED_MESSAGE.ID.eq(any(TerminalWrites.lockedInIdOrder(theirs))))
                .execute());
    }

    @Override
    public int purgeAll() {
        int total = 0;
        while (true) {
            int deleted = dsl.deleteFrom(SCHEDULED_MESSAGE)
                    .where(SCHEDULED_MESSAGE.ID.eq(any(array(select(SCHEDULED_MESSAGE.ID)
                            .from(SCHEDULED_MESSAGE)
                            .orderBy(SCHEDULED_MESSAGE.ID)
                            .limit(PURGE_BATCH)
                            .forUpdate()))))
                    .execute();
            total += deleted;
            if (deleted < PURGE_BATCH) {
                return total;
            }
        }
    }

    @Override
    public int pruneTerminal(Duration olderThan, int batch) {
        if (olderThan == null || olderThan.isNegative()) {
            throw new IllegalArgumentException("retention must be zero or more, got " + olderThan);
        }
        if (batch < 1) {
            throw new IllegalArgumentException("prune batch must be at least 1, got " + batch);
        }
        return SessionFaults.retriedOnce(() -> pruneStatement(olderThan, batch).execute());
    }

    /**
     * One pruning batch as a statement (package-private so a test can EXPLAIN it). It walks
     * {@code scheduled_message_terminal_idx} (finished_at) oldest first; SKIP LOCKED keeps two pruners (or a
     * pruner and an operator purge) from waiting on each other.
     */
    org.jooq.DeleteConditionStep<?> pruneStatement(Duration olderThan, int batch) {
        Field<Instant> cutoff = DatabaseClock.nowMinus(olderThan);
        return dsl.deleteFrom(SCHEDULED_MESSAGE)
                .where(SCHEDULED_MESSAGE.ID.eq(any(array(select(SCHEDULED_MESSAGE.ID)
                        .from(SCHEDULED_MESSAGE)
                        .where(StateLiterals.terminal(SCHEDULED_MESSAGE))
                        .and(SCHEDULED_MESSAGE.FINISHED_AT.lt(cutoff))
                        .orderBy(SCHEDULED_MESSAGE.FINISHED_AT)
                        .limit(batch)
                        .forUpdate()
                        .skipLocked()))));
    }

    @Override
    public Reservations reservations() {
        Record4<Integer, Instant, Instant, Instant> figures = SessionFaults.retriedOnce(
                () -> reservationsQuery().fetchSingle());
        return new Reservations(Optional.ofNullable(figures.value2()), figures.value1(),
                Optional.ofNullable(figures.value3()), figures.value4());
    }

    /** The reservation figures as one query over the pending rows (package-private so a test can EXPLAIN it). */
    org.jooq.SelectConditionStep<Record4<Integer, Instant, Instant, Instant>> reservationsQuery() {
        Condition due = SCHEDULED_MESSAGE.DUE_AT.le(NOW);
        // The instant an overdue event lands at is its created_at, which is earlier than the due time only after
        // a send-now with a newly signed event; read it from the stored event of the (few) overdue rows.
        Field<Instant> signedAt = DSL.field("to_timestamp(({0}::json ->> 'created_at')::bigint)", SQLDataType.INSTANT,
                SCHEDULED_MESSAGE.EVENT_JSON);
        return dsl.select(
                        count().filterWhere(due),
                        min(least(SCHEDULED_MESSAGE.DUE_AT, signedAt)).filterWhere(due),
                        min(SCHEDULED_MESSAGE.DUE_AT).filterWhere(SCHEDULED_MESSAGE.DUE_AT.gt(NOW)),
                        NOW)
                .from(SCHEDULED_MESSAGE)
                .where(StateLiterals.pending(SCHEDULED_MESSAGE));
    }

}
