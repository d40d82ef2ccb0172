package buzz.scheduled.adapters.postgres;

import static org.jooq.impl.DSL.val;

import buzz.scheduled.application.port.out.ScheduleStore.Claim;
import buzz.scheduled.application.port.out.ScheduleStore.SendingStarted;
import buzz.scheduled.domain.schedule.Revision;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.SQLDataType;

/**
 * The two per-message writes of the delivery path, the pre-send step ({@code claimed → sending}) and the
 * publish ({@code sending → published}), each grouped across concurrent senders (see {@link GroupCommit}): a
 * batch is one {@code UPDATE … FROM unnest(ids, tokens, revisions, …)} whose conditions are exactly those of
 * the single-row write, evaluated per row on {@code now()}, so each request gets the answer it would have got
 * alone. Under load this turns dozens of transactions into one; alone, a request is written at once.
 *
 * <p>Each batch first locks its rows in id order ({@code = ANY(ARRAY(SELECT … ORDER BY id FOR NO KEY UPDATE))},
 * an InitPlan run once), as the lease renewal and the channel administration's multi-row writes do, so none of
 * them waits on another in a cycle. Should PostgreSQL still report a deadlock, the batch (one autocommitted
 * statement, rolled back whole) runs again, at most three more times.
 */
final class GroupedDeliveryWrites {
    /** The most messages one grouped write carries. */
    static final int MAX_BATCH = 128;
    private static final int DEADLOCK_RETRIES = 3;
    private static final String DEADLOCK_DETECTED = "40P01";

    private static final String START_SENDING = """
            UPDATE scheduled_message m
               SET state = 'sending', updated_at = now()
              FROM unnest({0}::uuid[], {1}::bigint[], {2}::integer[], {3}::bigint[], {4}::bigint[])
                   WITH ORDINALITY AS w(id, token, revision, min_lease_left_us, max_lateness_us, ord)
             WHERE m.id = w.id
               AND m.state = 'claimed'
               AND m.fencing_token = w.token
               AND m.revision = w.revision
               AND m.due_at <= now()
               AND m.due_at >= now() - w.max_lateness_us * interval '1 microsecond'
               AND m.lease_until >= now() + w.min_lease_left_us * interval '1 microsecond'
               AND NOT EXISTS (SELECT 1 FROM channel_tombstone t WHERE t.channel = m.channel)
               AND m.id = ANY(ARRAY(SELECT l.id FROM scheduled_message l
                                     WHERE l.id = ANY({0}::uuid[]) AND l.state = 'claimed'
                                     ORDER BY l.id FOR NO KEY UPDATE))
            RETURNING w.ord, now(), m.lease_until""";

    private static final String MARK_PUBLISHED = """
            UPDATE scheduled_message m
               SET state = 'published', finished_at = now(), fencing_token = NULL, lease_until = NULL,
                   retry_at = NULL, updated_at = now()
              FROM unnest({0}::uuid[], {1}::bigint[], {2}::integer[]) WITH ORDINALITY AS w(id, token, revision, ord)
             WHERE m.id = w.id
               AND m.state = 'sending'
               AND m.fencing_token = w.token
               AND m.revision = w.revision
               AND m.id = ANY(ARRAY(SELECT l.id FROM scheduled_message l
                                     WHERE l.id = ANY({0}::uuid[]) AND l.state = 'sending'
                                     ORDER BY l.id FOR NO KEY UPDATE))
            RETURNING w.ord""";

    private final DSLContext dsl;
    private final GroupCommit<StartSending, Optional<SendingStarted>> startSending;
    private final GroupCommit<Publish, Boolean> markPublished;

    GroupedDeliveryWrites(DSLContext dsl) {
        this.dsl = dsl;
        this.startSending = new GroupCommit<>(this::startSendingBatch, MAX_BATCH);
        this.markPublished = new GroupCommit<>(this::markPublishedBatch, MAX_BATCH);
    }

    /**
     * One pre-send step's request: the claim held, its revision, and the limits it is checked against in
     * microseconds (converted by the caller, so a duration out of range fails that caller and not its batch).
     */
    record StartSending(Claim claim, Revision revision, long minLeaseLeftMicros, long maxLatenessMicros) {
        StartSending(Claim claim, Revision revision, Duration minLeaseLeft, Duration maxLateness) {
            this(claim, revision, DatabaseClock.micros(minLeaseLeft), DatabaseClock.micros(maxLateness));
        }
    }

    /** One publish's request: the claim held and its revision. */
    record Publish(Claim claim, Revision revision) {
    }

    Optional<SendingStarted> startSending(StartSending request) {
        return startSending.submit(request);
    }

    boolean markPublished(Publish request) {
        return markPublished.submit(request);
    }

    /** One grouped pre-send write (package-private so a test can send it a known batch). */
    List<Optional<SendingStarted>> startSendingBatch(List<StartSending> batch) {
        int n = batch.size();
        UUID[] ids = new UUID[n];
        Long[] tokens = new Long[n];
        Integer[] revisions = new Integer[n];
        Long[] minLeaseLeft = new Long[n];
        Long[] maxLateness = new Long[n];
        for (int i = 0; i < n; i++) {
            StartSending request = batch.get(i);
            ids[i] = request.claim().id().value();
            tokens[i] = request.claim().token().value();
            revisions[i] = request.revision().number();
            minLeaseLeft[i] = request.minLeaseLeftMicros();
            maxLateness[i] = request.maxLatenessMicros();
        }
        // Answers go by the request's position (WITH ORDINALITY), not by claim: when one row is named twice in a
        // batch, PostgreSQL updates it once, through one of the requests, and only that one is told so; the
        // other is answered as if written after it, finding the row moved.
        SendingStarted[] started = new SendingStarted[n];
        retryingDeadlocks(() -> dsl.resultQuery(START_SENDING,
                        val(ids, SQLDataType.UUID.array()), val(tokens, SQLDataType.BIGINT.array()),
                        val(revisions, SQLDataType.INTEGER.array()), val(minLeaseLeft, SQLDataType.BIGINT.array()),
                        val(maxLateness, SQLDataType.BIGINT.array()))
                .fetch())
                .forEach(row -> started[position(row)] =
                        new SendingStarted(row.get(1, Instant.class), row.get(2, Instant.class)));
        List<Optional<SendingStarted>> answers = new ArrayList<>(n);
        for (SendingStarted answer : started) {
            answers.add(Optional.ofNullable(answer));
        }
        return answers;
    }

    /** One grouped publish write (package-private so a test can send it a known batch). */
    List<Boolean> markPublishedBatch(List<Publish> batch) {
        int n = batch.size();
        UUID[] ids = new UUID[n];
        Long[] tokens = new Long[n];
        Integer[] revisions = new Integer[n];
        for (int i = 0; i < n; i++) {
            Publish request = batch.get(i);
            ids[i] = request.claim().id().value();
            tokens[i] = request.claim().token().value();
            revisions[i] = request.revision().number();
        }
        boolean[] published = new boolean[n];
        retryingDeadlocks(() -> dsl.resultQuery(MARK_PUBLISHED,
                        val(ids, SQLDataType.UUID.array()), val(tokens, SQLDataType.BIGINT.array()),
                        val(revisions, SQLDataType.INTEGER.array()))
                .fetch())
                .forEach(row -> published[position(row)] = true);
        List<Boolean> answers = new ArrayList<>(n);
        for (boolean answer : published) {
            answers.add(answer);
        }
        return answers;
    }

    /** A batch is one statement in autocommit, so a deadlock rolled all of it back and it can simply run again. */
    private static <T> T retryingDeadlocks(Supplier<T> statement) {
        for (int attempt = 1; ; attempt++) {
            try {
                return statement.get();
            } catch (DataAccessException e) {
                if (attempt > DEADLOCK_RETRIES || !DEADLOCK_DETECTED.equals(e.sqlState())) {
                    throw e;
                }
            }
        }
    }

    /** The 0-based position in the batch of the request a returned row answers (ordinality counts from 1). */
    private static int position(Record row) {
        return Math.toIntExact(row.get(0, Long.class)) - 1;
    }
}
