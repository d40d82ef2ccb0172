package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.CHANNEL_TOMBSTONE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE_REVISION;
import static org.jooq.impl.DSL.val;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.adapters.postgres.jooq.tables.records.ScheduledMessageRecord;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingResult;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.Selection;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Select;
import org.jooq.impl.DSL;

/**
 * The owner side's compare-and-set changes ({@link OwnerMessageChanges}) on PostgreSQL with jOOQ. Every write is one
 * short transaction and a compare-and-set whose row count is checked; a re-admitted revision is checked against the
 * channel's tombstone and due windows under the channel's lock, as a create is. No connection is held between
 * calls; a call that meets an ended or read-only pooled session runs once more on a new one
 * ({@link SessionFaults#retriedOnce}). The dispatcher's statements are in {@link PostgresDeliveryStore}.
 */
public final class PostgresOwnerMessageChanges implements OwnerMessageChanges {

    private static final ScheduledMessageTable M = OwnerMessageRows.M;
    private static final int OWNER_LOCK = OwnerMessageRows.OWNER_LOCK;
    private static final int CHANNEL_LOCK = OwnerMessageRows.CHANNEL_LOCK;

    private final DSLContext dsl;

    /** Changes over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresOwnerMessageChanges(DataSource dataSource) {
        this.dsl = OwnerMessageRows.jooq(dataSource);
    }

    @Override
    public boolean replace(ScheduledMessage expected,
                           ScheduledMessage next) {
        return SessionFaults.retriedOnce(() -> replaceRow(expected, next));
    }

    private boolean replaceRow(ScheduledMessage expected, ScheduledMessage next) {
        if (!expected.id().equals(next.id())) {
            throw new IllegalArgumentException("replace must keep the id: " + expected.id() + " vs " + next.id());
        }
        boolean newRevision = !next.revision().equals(expected.revision());
        boolean purge = next.event().isEmpty();
        if (!newRevision && !purge) {
            // One statement (the delivery path: pre-send step, publish, retry): autocommit, no transaction
            // round trips.
            return compareAndSet(dsl, expected, next);
        }
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            if (!compareAndSet(tx, expected, next)) {
                return false;
            }
            if (newRevision) {
                insertRevision(tx, next);
            }
            if (purge) {
                // Purged (cancel, terminal failure): no copy of any revision's event may stay behind.
                tx.update(SCHEDULED_MESSAGE_REVISION)
                        .setNull(SCHEDULED_MESSAGE_REVISION.EVENT_JSON)
                        .where(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID.eq(next.id().value()))
                        .and(SCHEDULED_MESSAGE_REVISION.EVENT_JSON.isNotNull())
                        .execute();
            }
            return true;
        });
    }

    @Override
    public ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next, CreateLimits limits) {
        if (!expected.id().equals(next.id())) {
            throw new IllegalArgumentException("replace must keep the id: " + expected.id() + " vs " + next.id());
        }
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            String channel = next.channel().value();
            if (expected.state().terminal() && !next.state().terminal()) {
                // A requeue adds to the owner's pending messages: under the owner's lock, which creates and batches
                // take first, so a batch's pending count (migration V17) cannot miss it.
                OwnerMessageRows.advisoryLock(tx, OWNER_LOCK, next.owner().hex());
            }
            // The lock creates and channel deletions take: a deletion either sees this revision (and fails it) or
            // this revision sees the tombstone.
            OwnerMessageRows.advisoryLock(tx, CHANNEL_LOCK, channel);
            if (tx.fetchExists(CHANNEL_TOMBSTONE, CHANNEL_TOMBSTONE.CHANNEL.eq(channel))) {
                return new ReviseResult.ChannelDeleted();
            }
            Instant windowStart = limits.windowStart(next.dueAt());
            Instant windowEnd = windowStart.plus(limits.channelWindow());
            Optional<UUID> self = Optional.of(next.id().value());
            Record2<Integer, Integer> counts = tx.select(
                    DSL.field(windowCount(tx, channel, Optional.of(next.owner().hex()), windowStart, windowEnd, self)),
                    DSL.field(windowCount(tx, channel, Optional.empty(), windowStart, windowEnd, self)))
                    .fetchSingle();
            Optional<WindowScope> full = limits.fullWindow(counts.value1(), counts.value2());
            if (full.isPresent()) {
                return new ReviseResult.ChannelWindowFull(limits.limit(full.get()), windowStart, full.get());
            }
            if (!compareAndSet(tx, expected, next)) {
                return new ReviseResult.Lost();
            }
            if (!next.revision().equals(expected.revision())) {
                insertRevision(tx, next);
                // Only the latest revisionsKept revisions keep their event (the primary key finds them); the
                // older ones keep their number, event id and time until retention deletes the message.
                tx.update(SCHEDULED_MESSAGE_REVISION)
                        .setNull(SCHEDULED_MESSAGE_REVISION.EVENT_JSON)
                        .where(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID.eq(next.id().value()))
                        .and(SCHEDULED_MESSAGE_REVISION.REVISION.le(next.revision().number() - limits.revisionsKept()))
                        .and(SCHEDULED_MESSAGE_REVISION.EVENT_JSON.isNotNull())
                        .execute();
            }
            return new ReviseResult.Replaced();
        }));
    }

    /** The conditional UPDATE on (id, state, revision, token) with its row-count check. */
    private static boolean compareAndSet(DSLContext ctx, ScheduledMessage expected, ScheduledMessage next) {
        ScheduledMessageRecord values = OwnerMessageRows.toRecord(next);
        values.changed(M.ID, false);
        values.changed(M.CREATED_AT, false);
        Condition stillAsRead = M.ID.eq(expected.id().value())
                .and(M.STATE.eq(expected.state().wireName()))
                .and(M.REVISION.eq(expected.revision().number()))
                .and(expected.token().isPresent()
                        ? M.FENCING_TOKEN.eq(expected.token().get().value())
                        : M.FENCING_TOKEN.isNull());
        // Same claim before and after (the pre-send step): a lease renewed since `expected` was read must not
        // be shortened by writing back the older lease end.
        boolean sameClaim = expected.token().isPresent() && expected.token().equals(next.token());
        int changed;
        if (sameClaim) {
            values.changed(M.LEASE_UNTIL, false);
            changed = ctx.update(M).set(values)
                    .set(M.LEASE_UNTIL, DSL.greatest(M.LEASE_UNTIL, val(values.getLeaseUntil())))
                    .where(stillAsRead).execute();
        } else {
            changed = ctx.update(M).set(values).where(stillAsRead).execute();
        }
        if (changed > 1) {
            throw new IllegalStateException("compare-and-set on " + expected.id() + " changed " + changed + " rows");
        }
        return changed == 1;
    }

    /**
     * One UPDATE of the matching rows in the states the domain's table lets an owner cancel, writing what
     * {@link ScheduledMessage#cancel} writes ({@link TerminalWrites}; checked state by state against it by the
     * transition contract test), then the count of matching rows being sent — one transaction.
     */
    @Override
    public CancelMatchingResult.Cancelled cancelMatching(PublicKey owner, Selection selection) {
        Condition matching = M.OWNER.eq(owner.hex());
        if (selection.channel().isPresent()) {
            matching = matching.and(M.CHANNEL.eq(selection.channel().get().value()));
        }
        if (selection.series().isPresent()) {
            matching = matching.and(M.SERIES_ID.eq(selection.series().get().value()));
        }
        if (selection.dueAfter().isPresent()) {
            matching = matching.and(M.DUE_AT.ge(selection.dueAfter().get()));
        }
        if (selection.dueBefore().isPresent()) {
            matching = matching.and(M.DUE_AT.lt(selection.dueBefore().get()));
        }
        Condition where = matching;
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            List<UUID> cancelled = TerminalWrites.end(tx, where, StateLiterals.CANCELLABLE,
                    StateLiterals.CANCELLED_INTO, Optional.empty());
            int sending = tx.select(DSL.count()).from(M)
                    .where(where.and(M.STATE.in(StateLiterals.DISPATCHING)))
                    .fetchSingle().value1();
            return new CancelMatchingResult.Cancelled(cancelled.size(), sending);
        });
    }

    /** Pending messages due in {@code channel}'s window, of {@code owner} if given, not counting {@code except}. */
    private static Select<Record1<Integer>> windowCount(DSLContext dsl, String channel, Optional<String> owner,
                                                        Instant windowStart, Instant windowEnd,
                                                        Optional<UUID> except) {
        Condition where = M.CHANNEL.eq(channel).and(StateLiterals.pending(M))
                .and(M.DUE_AT.ge(windowStart)).and(M.DUE_AT.lt(windowEnd));
        if (owner.isPresent()) {
            where = where.and(M.OWNER.eq(owner.get()));
        }
        if (except.isPresent()) {
            where = where.and(M.ID.ne(except.get()));
        }
        return dsl.select(DSL.count()).from(M).where(where);
    }

    private static void insertRevision(DSLContext tx, ScheduledMessage message) {
        revisionInsert(tx, message).execute();
    }

    private static Query revisionInsert(DSLContext tx, ScheduledMessage message) {
        NostrEvent event = message.event().orElseThrow(() -> new IllegalArgumentException(
                "revision " + message.revision() + " of " + message.id() + " has no event"));
        return tx.insertInto(SCHEDULED_MESSAGE_REVISION)
                .set(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID, message.id().value())
                .set(SCHEDULED_MESSAGE_REVISION.REVISION, message.revision().number())
                .set(SCHEDULED_MESSAGE_REVISION.EVENT_ID, message.eventId().hex())
                .set(SCHEDULED_MESSAGE_REVISION.EVENT_JSON, EventText.write(event))
                .set(SCHEDULED_MESSAGE_REVISION.CREATED_AT, message.updatedAt());
    }

}
