package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Sequences.FENCING_TOKEN_SEQ;
import static buzz.scheduled.adapters.postgres.jooq.Tables.CHANNEL_TOMBSTONE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE_REVISION;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.adapters.postgres.jooq.tables.records.ScheduledMessageRecord;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Row2;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The owner side's storage ports on PostgreSQL with jOOQ: its reads ({@link OwnerMessageQueries}), admission's
 * create ({@link MessageAdmission}) and its compare-and-set changes ({@link OwnerMessageChanges}). Every write is one
 * short transaction and a compare-and-set whose
 * row count is checked; every "is it due / has the lease expired" decision is {@code now()} inside the
 * statement that acts on it. No connection is held between calls. The dispatcher's statements are in
 * {@link PostgresDeliveryStore}.
 */
public final class PostgresScheduleStore implements OwnerMessageQueries, MessageAdmission, OwnerMessageChanges {

    private static final ScheduledMessageTable M = SCHEDULED_MESSAGE;
    private static final Field<Instant> NOW = DatabaseClock.NOW;
    // Advisory-lock namespaces (first key of pg_advisory_xact_lock(int, int)) serialising creates.
    private static final int OWNER_LOCK = 0x6275_0001;
    static final int CHANNEL_LOCK = 0x6275_0002;
    private static final Comparator<ScheduledMessage> BY_DUE = Comparator.comparing(ScheduledMessage::dueAt)
            .thenComparing(m -> m.id().value().toString());

    /**
     * A create in one statement and one round trip, on an autocommit connection (migration V10 says what it
     * checks, in the order of docs/openapi.yaml).
     */
    private static final String ADMIT = "SELECT outcome, existing_id, existing_event_id FROM admit_scheduled_message("
            + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private static final String CHANNEL_DELETED = "SELECT 1 FROM channel_tombstone WHERE channel = ?";

    private final DataSource dataSource;
    private final DSLContext dsl;

    /** A store over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresScheduleStore(DataSource dataSource) {
        this.dataSource = dataSource;
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    /**
     * The database clock ({@code now()}), for tools and tests that act on this store; the services read the store's
     * clock through their own ports ({@code StoreClock}, {@code DeliveryStore.now()}).
     */
    public Instant now() {
        return dsl.select(NOW).fetchSingle().value1();
    }

    @Override
    public CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        if (!(message.state() instanceof ScheduleState.Scheduled) || message.attempts() != 0
                || message.state().fields().retryAt().isPresent()) {
            throw new IllegalArgumentException("a create stores a new scheduled message, got " + message.state());
        }
        Instant windowStart = limits.windowStart(message.dueAt());
        String eventJson = EventText.write(message.event().orElseThrow(() -> new IllegalArgumentException(
                "message " + message.id() + " has no event to store")));
        String outcome;
        UUID existingId;
        String existingEventId;
        try (Connection connection = dataSource.getConnection();
             PreparedStatement admit = connection.prepareStatement(ADMIT)) {
            int i = 0;
            admit.setInt(++i, OWNER_LOCK);
            admit.setInt(++i, CHANNEL_LOCK);
            admit.setObject(++i, message.id().value());
            admit.setString(++i, message.owner().hex());
            admit.setString(++i, message.channel().value());
            admit.setInt(++i, message.revision().number());
            admit.setString(++i, message.state().wireName());
            admit.setString(++i, message.eventId().hex());
            admit.setString(++i, eventJson);
            admit.setObject(++i, utc(message.dueAt()));
            admit.setObject(++i, utc(message.createdAt()));
            admit.setString(++i, key.key());
            admit.setObject(++i, utc(windowStart));
            admit.setObject(++i, utc(windowStart.plus(limits.channelWindow())));
            admit.setInt(++i, limits.maxPendingPerOwner());
            admit.setInt(++i, limits.limit(WindowScope.OWNER));
            admit.setInt(++i, limits.limit(WindowScope.CHANNEL));
            try (ResultSet row = admit.executeQuery()) {
                row.next();
                outcome = row.getString(1);
                existingId = row.getObject(2, UUID.class);
                existingEventId = row.getString(3);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("admitting message " + message.id() + " failed: " + e.getMessage(), e);
        }
        // After the connection went back: a replay reads the stored message on a connection of its own.
        return switch (outcome) {
            case "created" -> new CreateResult.Created(message);
            case "replayed" -> new CreateResult.Replayed(find(new ScheduleId(existingId)).orElseThrow(
                    () -> new IllegalStateException("idempotency key of " + message.owner()
                            + " names missing message " + existingId)));
            case "idempotency_conflict" -> new CreateResult.IdempotencyConflict(new ScheduleId(existingId),
                    new EventId(existingEventId));
            case "channel_deleted" -> new CreateResult.ChannelDeleted();
            case "too_many_pending" -> new CreateResult.TooManyPending(limits.maxPendingPerOwner());
            case "owner_window_full" -> new CreateResult.ChannelWindowFull(limits.limit(WindowScope.OWNER),
                    windowStart, WindowScope.OWNER);
            case "channel_window_full" -> new CreateResult.ChannelWindowFull(limits.limit(WindowScope.CHANNEL),
                    windowStart, WindowScope.CHANNEL);
            default -> throw new IllegalStateException("admit_scheduled_message answered " + outcome);
        };
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
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

    @Override
    public Optional<ScheduledMessage> find(ScheduleId id) {
        return find(dsl, id);
    }

    private static Optional<ScheduledMessage> find(DSLContext ctx, ScheduleId id) {
        return ctx.selectFrom(M).where(M.ID.eq(id.value())).fetchOptional().map(PostgresScheduleStore::toMessage);
    }

    @Override
    public Page list(ListQuery query) {
        Condition where = M.OWNER.eq(query.owner().hex()).and(M.STATE.in(query.states()));
        if (query.channel().isPresent()) {
            where = where.and(M.CHANNEL.eq(query.channel().get().value()));
        }
        if (query.after().isPresent()) {
            Cursor after = query.after().get();
            where = where.and(row(M.DUE_AT, M.ID).gt(after.dueAt(), after.id().value()));
        }
        // First the positions and sizes only (octet_length reads a stored value's length without its text), then
        // the whole rows of those that fit the page's byte budget: an owner's page never loads more events than
        // the budget plus one, however large each is.
        List<Record3<Instant, UUID, Integer>> positions = dsl.select(M.DUE_AT, M.ID,
                        DSL.coalesce(DSL.octetLength(M.EVENT_JSON), 0))
                .from(M)
                .where(where)
                .orderBy(M.DUE_AT, M.ID)
                .limit(query.limit() + 1)
                .fetch();
        int taken = Math.min(query.limit(), Page.fitting(positions.stream()
                .map(p -> (long) p.value3() + ListQuery.ITEM_OVERHEAD_BYTES).toList(), query.maxBytes()));
        List<UUID> ids = positions.subList(0, taken).stream().map(Record3::value2).toList();
        List<ScheduledMessage> rows = ids.isEmpty() ? List.of() : dsl.selectFrom(M)
                .where(where.and(M.ID.in(ids)))
                .orderBy(M.DUE_AT, M.ID)
                .fetch(PostgresScheduleStore::toMessage);
        if (taken == positions.size()) {
            return new Page(rows, Optional.empty());
        }
        Record3<Instant, UUID, Integer> last = positions.get(taken - 1);
        return new Page(rows, Optional.of(new Cursor(last.value1(), new ScheduleId(last.value2()))));
    }

    @Override
    public boolean replace(ScheduledMessage expected,
                           ScheduledMessage next) {
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
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            String channel = next.channel().value();
            // The lock creates and channel deletions take: a deletion either sees this revision (and fails it) or
            // this revision sees the tombstone.
            tx.select(DSL.field("pg_advisory_xact_lock({0}, hashtext({1}))", Object.class, val(CHANNEL_LOCK), val(channel)))
                    .fetch();
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
        });
    }

    /** The conditional UPDATE on (id, state, revision, token) with its row-count check. */
    private static boolean compareAndSet(DSLContext ctx, ScheduledMessage expected, ScheduledMessage next) {
        ScheduledMessageRecord values = toRecord(next);
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

    @Override
    public boolean channelDeleted(Channel channel) {
        // Asked by every create before its access check: plain JDBC, no SQL rendered per call.
        try (Connection connection = dataSource.getConnection();
             PreparedStatement deleted = connection.prepareStatement(CHANNEL_DELETED)) {
            deleted.setString(1, channel.value());
            try (ResultSet row = deleted.executeQuery()) {
                return row.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the tombstone of channel " + channel + " failed: "
                    + e.getMessage(), e);
        }
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

    private static ScheduledMessageRecord toRecord(ScheduledMessage message) {
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
        return r;
    }

    /** Rebuilds the aggregate through its own constructors, so a row that breaks a rule fails loudly. */
    private static ScheduledMessage toMessage(ScheduledMessageRecord r) {
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
                r.getUpdatedAt());
    }

    private static void requirePositive(String name, Duration duration) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + duration);
        }
    }
}
