package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.StateName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The dispatcher's storage on PostgreSQL (docs/delivery.md, "The hot path"), in plain JDBC: each statement is a
 * constant string, so nothing is built or rendered per call, pgjdbc keeps it prepared on each pooled connection, and
 * every call is one autocommitted statement on a connection borrowed for that statement only.
 *
 * <p>The claim is a HOT update: it changes {@code state}, {@code fencing_token}, {@code lease_until},
 * {@code attempts} and {@code updated_at}, none of which any index mentions (migration V4). It locks its candidates
 * with {@code FOR UPDATE SKIP LOCKED} in an InitPlan ({@code = ANY(ARRAY(…))}, run exactly once) and addresses them by
 * {@code ctid}, so the update itself is a TID scan, not one primary-key probe per row; a row changed by someone else
 * between the lock and the update fails the re-checked {@code ctid} and {@code state} conditions and is simply not
 * claimed this time. One fencing token is drawn per claim statement: a token names a claim of a row, and no row is
 * claimed twice by one statement. Every decision on time is {@code now()} inside the statement. The claim also
 * returns each event's UTF-8 length and kind, read from the stored text by PostgreSQL, so the dispatcher neither
 * counts nor parses the event it sends. The kind is the number after the text's {@code "kind"} key: a NIP-01 event has
 * no other object, and inside a JSON string a quote is escaped, so no other {@code "kind":} can occur; a regular
 * expression, unlike a cast to {@code json}, cannot fail the whole claim on one stored text it cannot read.
 *
 * <p>{@link #finish} writes a whole set of outcomes as one statement over {@code unnest} of arrays (with the relay's
 * words of a failure or retry in {@code last_error}, for the operator's view); when that
 * statement fails for a reason other than the connection, the set is split in halves and each tried again, down to
 * the one outcome whose write fails ({@link Written#FAILED_TO_WRITE}), so one bad row never fails its neighbours.
 * The clock, the claim, the next due time and the reap run once more on a new session when their pooled one was
 * ended or refused writes ({@link SessionFaults#retriedOnce}); finishing writes and renewals have retries of their
 * own in the dispatcher.
 */
public final class PostgresDeliveryStore implements DeliveryStore {

    static final String CLAIM = """
            UPDATE scheduled_message m
               SET state = %s, fencing_token = (SELECT nextval('fencing_token_seq')),
                   lease_until = now() + ? * interval '1 microsecond', attempts = m.attempts + 1, updated_at = now()
             WHERE m.ctid = ANY(ARRAY(
                       SELECT c.ctid FROM scheduled_message c
                        WHERE c.finished_at IS NULL
                          AND greatest(c.due_at, c.retry_at) <= now()
                          AND c.state = %s
                        ORDER BY greatest(c.due_at, c.retry_at), c.id
                        LIMIT ?
                        FOR UPDATE SKIP LOCKED))
               AND m.state = %s
            RETURNING m.id, m.fencing_token, m.revision, m.event_id, m.event_json, m.owner, m.channel, m.due_at,
                      m.lease_until, m.attempts, now(),
                      EXISTS (SELECT 1 FROM channel_tombstone t WHERE t.channel = m.channel),
                      octet_length(m.event_json), m.outcome_unknown,
                      substring(m.event_json FROM '"kind"[[:space:]]*:[[:space:]]*([0-9]{1,5})')::int""".formatted(
            StateLiterals.CLAIMED_INTO, StateLiterals.CLAIMABLE, StateLiterals.CLAIMABLE);

    /**
     * Outcomes by position ({@code WITH ORDINALITY}): {@code publish}, {@code retry} (rescheduled at now() + delay, or
     * failed {@code expired} when that is past the lateness limit), {@code fail} (with a reason), {@code release}
     * (claimable again at once) and {@code unresolved} (claimable again at once, its outcome unknown:
     * {@code outcome_unknown}, migration V9). A failed message keeps its event for an operator's requeue, unless its
     * reason purges it ({@code FailureReason.purgesEvent}: the payload of every revision goes). A retry or a failure
     * also adds a row to
     * {@code delivery_attempt} (migration V13), up to {@link AttemptHistory#MAX_RECORDED} per message; a publication
     * adds none (the message's own row tells it).
     */
    static final String FINISH = """
            WITH w AS (
                SELECT * FROM unnest(?::uuid[], ?::bigint[], ?::integer[], ?::text[], ?::bigint[], ?::bigint[], ?::text[],
                                     ?::text[])
                    WITH ORDINALITY AS w(id, token, revision, outcome, delay_us, max_lateness_us, reason, why, ord)
            ), u AS (
                UPDATE scheduled_message m
                   SET state = CASE
                           WHEN w.outcome = 'publish' THEN %1$s
                           WHEN w.outcome = 'fail' THEN %2$s
                           WHEN w.outcome = 'retry' AND now() + w.delay_us * interval '1 microsecond'
                                > m.due_at + w.max_lateness_us * interval '1 microsecond' THEN %2$s
                           ELSE %3$s END,
                       reason = CASE
                           WHEN w.outcome = 'fail' THEN w.reason
                           WHEN w.outcome = 'retry' AND now() + w.delay_us * interval '1 microsecond'
                                > m.due_at + w.max_lateness_us * interval '1 microsecond' THEN 'expired'
                           END,
                       finished_at = CASE
                           WHEN w.outcome IN ('publish', 'fail') THEN now()
                           WHEN w.outcome = 'retry' AND now() + w.delay_us * interval '1 microsecond'
                                > m.due_at + w.max_lateness_us * interval '1 microsecond' THEN now()
                           END,
                       retry_at = CASE
                           WHEN w.outcome = 'retry' THEN now() + w.delay_us * interval '1 microsecond'
                           END,
                       event_json = CASE
                           WHEN w.outcome = 'fail' AND w.reason IN (%6$s) THEN NULL
                           ELSE m.event_json END,
                       last_error = CASE WHEN w.why IS NOT NULL THEN w.why ELSE m.last_error END,
                       outcome_unknown = m.outcome_unknown OR w.outcome = 'unresolved',
                       fencing_token = NULL, lease_until = NULL, updated_at = now()
                  FROM w
                 WHERE m.id = w.id
                   AND m.state = %4$s
                   AND m.fencing_token = w.token
                   AND m.revision = w.revision
                RETURNING w.ord, m.id, m.state, now() AS written_at, w.outcome AS asked, m.attempts, m.revision,
                          m.reason, w.why
            ), attempted AS (
                INSERT INTO delivery_attempt (message_id, attempt, revision, recorded_at, outcome, reason,
                                              relay_message)
                SELECT u.id, u.attempts, u.revision, u.written_at,
                       CASE WHEN u.state = %2$s THEN 'failed' ELSE 'retry' END, u.reason, u.why
                  FROM u
                 WHERE u.asked IN ('retry', 'fail') AND u.attempts <= %5$d
            ), purged AS (
                UPDATE scheduled_message_revision r
                   SET event_json = NULL
                  FROM u
                 WHERE r.message_id = u.id AND u.state = %2$s AND u.reason IN (%6$s) AND r.event_json IS NOT NULL
            )
            SELECT ord, state, written_at FROM u""".formatted(StateLiterals.PUBLISHED, StateLiterals.FAILED,
            StateLiterals.RESCHEDULED, StateLiterals.FINISHABLE, AttemptHistory.MAX_RECORDED,
            StateLiterals.PURGING_REASONS);

    static final String RENEW = """
            UPDATE scheduled_message m
               SET lease_until = now() + ? * interval '1 microsecond'
              FROM unnest(?::uuid[], ?::bigint[]) AS w(id, token)
             WHERE m.id = w.id
               AND m.fencing_token = w.token
               AND m.state IN (%s)
            RETURNING m.id""".formatted(StateLiterals.RENEWABLE);

    /**
     * Rows in flight are pending and already claimable by time, so the claimable index's due range holds them all; rows
     * another writer holds (their claimant finishing them) are skipped, not waited for.
     */
    static final String REAP = """
            UPDATE scheduled_message m
               SET state = %1$s, fencing_token = NULL, lease_until = NULL, retry_at = NULL, updated_at = now()
             WHERE m.ctid = ANY(ARRAY(
                       SELECT e.ctid FROM scheduled_message e
                        WHERE e.finished_at IS NULL
                          AND greatest(e.due_at, e.retry_at) <= now()
                          AND e.state IN (%2$s)
                          AND e.lease_until < now() - ? * interval '1 microsecond'
                        FOR NO KEY UPDATE SKIP LOCKED))
               AND m.state IN (%2$s)
               AND m.lease_until < now() - ? * interval '1 microsecond'""".formatted(StateLiterals.REAPED_INTO,
            StateLiterals.REAPABLE);

    static final String NEXT_DUE = """
            SELECT greatest(due_at, retry_at)
              FROM scheduled_message
             WHERE finished_at IS NULL
               AND state = %s
             ORDER BY greatest(due_at, retry_at)
             LIMIT 1""".formatted(StateLiterals.CLAIMABLE);

    private static final String NOW = "SELECT now()";
    private static final int DEADLOCK_RETRIES = 3;
    /** Longest {@code last_error} kept, in characters. */
    static final int LAST_ERROR_LENGTH = 500;

    private final DataSource dataSource;

    /** A store over {@code dataSource} (a pool; each call borrows a connection for one statement). */
    public PostgresDeliveryStore(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("a data source is required");
        }
        this.dataSource = dataSource;
    }

    @Override
    public Instant now() {
        return SessionFaults.retriedOnce(this::readNow);
    }

    private Instant readNow() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(NOW);
             ResultSet row = statement.executeQuery()) {
            row.next();
            return instant(row, 1);
        } catch (SQLException e) {
            throw failed("reading the database clock", e);
        }
    }

    @Override
    public ClaimedBatch claim(int limit, Duration lease) {
        if (limit < 1) {
            throw new IllegalArgumentException("claim limit must be at least 1, got " + limit);
        }
        requirePositive("lease", lease);
        return SessionFaults.retriedOnce(() -> claimDue(limit, lease));
    }

    private ClaimedBatch claimDue(int limit, Duration lease) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(CLAIM)) {
            statement.setLong(1, DatabaseClock.micros(lease));
            statement.setInt(2, limit);
            List<ClaimedMessage> claimed = new ArrayList<>(limit);
            Instant now = null;
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    now = instant(rows, 11);
                    claimed.add(new ClaimedMessage(
                            new Claim(new ScheduleId(rows.getObject(1, UUID.class)), new FencingToken(rows.getLong(2))),
                            new Revision(rows.getInt(3)), new EventId(rows.getString(4)), rows.getString(5),
                            rows.getInt(13), kind(rows), new PublicKey(rows.getString(6)),
                            new Channel(rows.getString(7)), instant(rows, 8),
                            instant(rows, 9), rows.getInt(10), rows.getBoolean(12),
                            rows.getBoolean(14) ? EarlierSend.OUTCOME_UNKNOWN : EarlierSend.NONE));
                }
            }
            return new ClaimedBatch(Optional.ofNullable(now), claimed);
        } catch (SQLException e) {
            throw failed("claiming due messages", e);
        }
    }

    /** The claimed event's kind, or {@link ClaimedMessage#UNKNOWN_KIND} when its stored text names none it may have. */
    private static int kind(ResultSet rows) throws SQLException {
        Integer kind = rows.getObject(15, Integer.class);
        return kind == null || kind > NostrEvent.MAX_KIND ? ClaimedMessage.UNKNOWN_KIND : kind;
    }

    @Override
    public List<FinishResult> finish(List<Finish> outcomes) {
        if (outcomes.isEmpty()) {
            return List.of();
        }
        FinishResult[] answers = new FinishResult[outcomes.size()];
        finishIsolating(outcomes, 0, answers);
        return List.of(answers);
    }

    /** Writes {@code outcomes[from…]} into {@code answers[from…]}, halving the set around a write that fails. */
    private void finishIsolating(List<Finish> outcomes, int from, FinishResult[] answers) {
        try {
            finishOnce(outcomes, from, answers);
        } catch (SQLException e) {
            if (connectionLost(e)) {
                throw failed("recording " + outcomes.size() + " delivery outcomes", e);
            }
            if (outcomes.size() == 1) {
                answers[from] = new FinishResult(Written.FAILED_TO_WRITE, Optional.empty());
                return;
            }
            int half = outcomes.size() / 2;
            finishIsolating(outcomes.subList(0, half), from, answers);
            finishIsolating(outcomes.subList(half, outcomes.size()), from + half, answers);
        }
    }

    private void finishOnce(List<Finish> outcomes, int from, FinishResult[] answers) throws SQLException {
        int n = outcomes.size();
        UUID[] ids = new UUID[n];
        Long[] tokens = new Long[n];
        Integer[] revisions = new Integer[n];
        String[] kinds = new String[n];
        Long[] delays = new Long[n];
        Long[] lateness = new Long[n];
        String[] reasons = new String[n];
        String[] whys = new String[n];
        for (int i = 0; i < n; i++) {
            Finish finish = outcomes.get(i);
            ids[i] = finish.claim().id().value();
            tokens[i] = finish.claim().token().value();
            revisions[i] = finish.revision().number();
            delays[i] = 0L;
            lateness[i] = 0L;
            switch (finish) {
                case Finish.Publish publish -> kinds[i] = "publish";
                case Finish.Retry retry -> {
                    kinds[i] = "retry";
                    delays[i] = DatabaseClock.micros(retry.delay());
                    lateness[i] = DatabaseClock.micros(retry.maxLateness());
                    whys[i] = lastError(retry.why());
                }
                case Finish.Fail fail -> {
                    kinds[i] = "fail";
                    reasons[i] = fail.reason().wireName();
                    whys[i] = lastError(fail.why());
                }
                case Finish.Release release -> kinds[i] = "release";
                case Finish.Unresolved unresolved -> kinds[i] = "unresolved";
            }
        }
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection();
                 PreparedStatement statement = connection.prepareStatement(FINISH)) {
                statement.setArray(1, connection.createArrayOf("uuid", ids));
                statement.setArray(2, connection.createArrayOf("bigint", tokens));
                statement.setArray(3, connection.createArrayOf("integer", revisions));
                statement.setArray(4, connection.createArrayOf("text", kinds));
                statement.setArray(5, connection.createArrayOf("bigint", delays));
                statement.setArray(6, connection.createArrayOf("bigint", lateness));
                statement.setArray(7, connection.createArrayOf("text", reasons));
                statement.setArray(8, connection.createArrayOf("text", whys));
                for (int i = 0; i < n; i++) {
                    answers[from + i] = new FinishResult(Written.LOST, Optional.empty());
                }
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        int position = Math.toIntExact(rows.getLong(1)) - 1;
                        Instant at = instant(rows, 3);
                        Written written = written(rows.getString(2), outcomes.get(position));
                        answers[from + position] = new FinishResult(written, Optional.of(at));
                    }
                }
                return;
            } catch (SQLException e) {
                if (attempt > DEADLOCK_RETRIES || !"40P01".equals(e.getSQLState())) {
                    throw e;
                }
            }
        }
    }

    /** What a finish came to, by the state it left the row in. */
    private static Written written(String state, Finish finish) {
        StateName left = StateName.fromWireName(state);
        if (left == StateLiterals.PUBLISH_TARGET) {
            return Written.PUBLISHED;
        }
        if (left == StateLiterals.RETRY_TARGET) {
            return Written.RESCHEDULED;
        }
        if (left == StateLiterals.FAIL_TARGET) {
            return finish instanceof Finish.Retry ? Written.EXPIRED : Written.FAILED;
        }
        throw new IllegalStateException("a finish left state " + state);
    }

    /**
     * The words kept in {@code last_error} for the operator (never event content): at most 500 characters, never
     * ending in half a surrogate pair, and U+0000 shown as U+FFFD — a relay's message is any JSON string, and
     * PostgreSQL text cannot hold U+0000, so written as it came it would fail the finishing write and leave the row in
     * {@code sending} until the reaper, again at every resend.
     */
    private static String lastError(String why) {
        if (why.isEmpty()) {
            return null;
        }
        int end = Math.min(why.length(), LAST_ERROR_LENGTH);
        if (end < why.length() && Character.isHighSurrogate(why.charAt(end - 1))) {
            end--;
        }
        return why.substring(0, end).replace('\u0000', '\uFFFD');
    }

    @Override
    public Set<ScheduleId> renew(Collection<Claim> claims, Duration lease) {
        requirePositive("lease", lease);
        if (claims.isEmpty()) {
            return Set.of();
        }
        UUID[] ids = new UUID[claims.size()];
        Long[] tokens = new Long[claims.size()];
        int i = 0;
        for (Claim claim : claims) {
            ids[i] = claim.id().value();
            tokens[i] = claim.token().value();
            i++;
        }
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(RENEW)) {
            statement.setLong(1, DatabaseClock.micros(lease));
            statement.setArray(2, connection.createArrayOf("uuid", ids));
            statement.setArray(3, connection.createArrayOf("bigint", tokens));
            Set<ScheduleId> renewed = new HashSet<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    renewed.add(new ScheduleId(rows.getObject(1, UUID.class)));
                }
            }
            return renewed;
        } catch (SQLException e) {
            throw failed("renewing " + claims.size() + " leases", e);
        }
    }

    @Override
    public int reap(Duration grace) {
        if (grace == null || grace.isNegative()) {
            throw new IllegalArgumentException("grace must be zero or more, got " + grace);
        }
        return SessionFaults.retriedOnce(() -> reapExpired(grace));
    }

    private int reapExpired(Duration grace) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(REAP)) {
            statement.setLong(1, DatabaseClock.micros(grace));
            statement.setLong(2, DatabaseClock.micros(grace));
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw failed("reaping expired leases", e);
        }
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return SessionFaults.retriedOnce(this::readNextDue);
    }

    private Optional<Instant> readNextDue() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(NEXT_DUE);
             ResultSet row = statement.executeQuery()) {
            return row.next() ? Optional.of(instant(row, 1)) : Optional.empty();
        } catch (SQLException e) {
            throw failed("reading the next due time", e);
        }
    }

    private static Instant instant(ResultSet row, int column) throws SQLException {
        return row.getObject(column, OffsetDateTime.class).toInstant();
    }

    /**
     * Whether the failure is the connection's (or the pool's), not this statement's: class 08 (connection exception),
     * 57P01–57P03 (the server shutting down or starting), or no connection in time.
     */
    static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLTransientConnectionException
                || (state != null && (state.startsWith("08") || state.startsWith("57P")));
    }

    private static IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException(what + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")",
                e);
    }

    private static void requirePositive(String name, Duration duration) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + duration);
        }
    }
}
