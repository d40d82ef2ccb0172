package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.adapters.postgres.jooq.tables.records.ScheduledMessageRecord;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * What the owner side's PostgreSQL ports share ({@link PostgresMessageAdmission}, {@link PostgresOwnerMessageQueries},
 * {@link PostgresOwnerMessageChanges}): the jOOQ context they build, the channel lock creates, edits and channel
 * deletions serialise on, and the mapping between a {@code scheduled_message} row and the aggregate.
 */
final class OwnerMessageRows {

    static final ScheduledMessageTable M = SCHEDULED_MESSAGE;

    /**
     * Advisory-lock namespace (first key of pg_advisory_xact_lock(int, int)) serialising an owner's creates and
     * whatever else adds to the owner's pending messages (an operator's requeue); always taken before a channel's.
     */
    static final int OWNER_LOCK = 0x6275_0001;
    /** Advisory-lock namespace (first key of pg_advisory_xact_lock(int, int)) of a channel's creates and edits. */
    static final int CHANNEL_LOCK = 0x6275_0002;

    private OwnerMessageRows() {
    }

    /**
     * Takes the transaction-scoped advisory lock {@code (namespace, hashtext(key))} in {@code tx}, waiting for it.
     *
     * @param namespace {@link #OWNER_LOCK} or {@link #CHANNEL_LOCK} (an owner's always before a channel's)
     * @param key       the owner's hex key or the channel's name
     */
    static void advisoryLock(DSLContext tx, int namespace, String key) {
        tx.select(DSL.field("pg_advisory_xact_lock({0}, hashtext({1}))", Object.class, DSL.val(namespace),
                DSL.val(key))).fetch();
    }

    /** The jOOQ context over {@code dataSource}, without per-statement execute logging. */
    static DSLContext jooq(DataSource dataSource) {
        return DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    /** The message with {@code id}, read through {@code ctx}. */
    static Optional<ScheduledMessage> find(DSLContext ctx, ScheduleId id) {
        return ctx.selectFrom(M).where(M.ID.eq(id.value())).fetchOptional().map(OwnerMessageRows::toMessage);
    }

    /** The row that stores {@code message}. */
    static ScheduledMessageRecord toRecord(ScheduledMessage message) {
        ScheduledMessageRecord r = new ScheduledMessageRecord();
        r.setId(message.id().value());
        r.setOwner(message.owner().hex());
        r.setChannel(message.channel().value());
        r.setRevision(message.revision().number());
        r.setState(message.state().wireName());
        r.setEventId(message.eventId().hex());
        r.setEventJson(message.event().map(EventText::write).orElse(null));
        r.setDueAt(message.dueAt());
        r.setAttempts(message.attempts());
        r.setCreatedAt(message.createdAt());
        r.setUpdatedAt(message.updatedAt());
        ScheduleState.Fields state = message.state().fields();
        r.setRetryAt(state.retryAt().orElse(null));
        r.setFencingToken(state.token().map(FencingToken::value).orElse(null));
        r.setLeaseUntil(state.leaseUntil().orElse(null));
        r.setFinishedAt(state.finishedAt().orElse(null));
        r.setReason(state.reason().map(FailureReason::wireName).orElse(null));
        r.setSeriesId(message.series().map(SeriesId::value).orElse(null));
        return r;
    }

    /** Rebuilds the aggregate through its own constructors, so a row that breaks a rule fails loudly. */
    static ScheduledMessage toMessage(ScheduledMessageRecord r) {
        StateName name = StateName.fromWireName(r.getState());
        // The claim leaves retry_at as it was (it keys the claimable index; a HOT update changes no key), so only a
        // state that waits for a retry reads it.
        Optional<Instant> retryAt = name.waitsForRetry() ? Optional.ofNullable(r.getRetryAt()) : Optional.empty();
        ScheduleState state = ScheduleState.of(new ScheduleState.Fields(name,
                retryAt, Optional.ofNullable(r.getFencingToken()).map(FencingToken::new),
                Optional.ofNullable(r.getLeaseUntil()), Optional.ofNullable(r.getFinishedAt()),
                Optional.ofNullable(r.getReason()).map(FailureReason::fromWireName)));
        return new ScheduledMessage(
                new ScheduleId(r.getId()),
                new PublicKey(r.getOwner()),
                new Channel(r.getChannel()),
                new Revision(r.getRevision()),
                new EventId(r.getEventId()),
                r.getDueAt(),
                Optional.ofNullable(r.getEventJson()).map(EventText::read),
                state,
                r.getAttempts(),
                r.getCreatedAt(),
                r.getUpdatedAt(),
                Optional.ofNullable(r.getSeriesId()).map(SeriesId::new));
    }

}
