package buzz.scheduled.adapters.postgres;

import static org.jooq.impl.DSL.val;

import buzz.scheduled.application.port.out.ScheduleStore.Claim;
import buzz.scheduled.application.port.out.ScheduleStore.SendingStarted;
import buzz.scheduled.domain.schedule.Revision;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Each batch first locks its rows in id order ({@code = ANY(ARRAY(SELECT … ORDER BY id FOR UPDATE))}, an
 * InitPlan run once), as the lease renewal does, so grouped writes and renewals never wait on each other in a
 * cycle. Other multi-row writers (channel deletion, member removal) do not order their locks; a deadlock with
 * them is detected by PostgreSQL within {@code deadlock_timeout} and the batch is retried a few times.
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
                   AS w(id, token, revision, min_lease_left_us, max_lateness_us)
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
                                     ORDER BY l.id FOR UPDATE))
            RETURNING m.id, w.token, now(), m.lease_until""";

    private static final String MARK_PUBLISHED = """
            UPDATE scheduled_message m
               SET state = 'published', finished_at = now(), fencing_token = NULL, lease_until = NULL,
                   retry_at = NULL, updated_at = now()
              FROM unnest({0}::uuid[], {1}::bigint[], {2}::integer[]) AS w(id, token, revision)
             WHERE m.id = w.id
               AND m.state = 'sending'
               AND m.fencing_token = w.token
               AND m.revision = w.revision
               AND m.id = ANY(ARRAY(SELECT l.id FROM scheduled_message l
                                     WHERE l.id = ANY({0}::uuid[]) AND l.state = 'sending'
                                     ORDER BY l.id FOR UPDATE))
            RETURNING m.id, w.token""";

    private final DSLContext dsl;
    private final GroupCommit<StartSending, Optional<SendingStarted>> startSending;
    private final GroupCommit<Publish, Boolean> markPublished;

    GroupedDeliveryWrites(DSLContext dsl) {
        this.dsl = dsl;
        this.startSending = new GroupCommit<>(this::startSendingBatch, MAX_BATCH);
        this.markPublished = new GroupCommit<>(this::markPublishedBatch, MAX_BATCH);
    }

    /** One pre-send step's request: the claim held, its revision, and the limits it is checked against. */
    record StartSending(Claim claim, Revision revision, Duration minLeaseLeft, Duration maxLateness) {
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
            minLeaseLeft[i] = PostgresScheduleStore.micros(request.minLeaseLeft());
            maxLateness[i] = PostgresScheduleStore.micros(request.maxLateness());
        }
        Map<ClaimKey, SendingStarted> started = new HashMap<>();
        retryingDeadlocks(() -> dsl.resultQuery(START_SENDING,
                        val(ids, SQLDataType.UUID.array()), val(tokens, SQLDataType.BIGINT.array()),
                        val(revisions, SQLDataType.INTEGER.array()), val(minLeaseLeft, SQLDataType.BIGINT.array()),
                        val(maxLateness, SQLDataType.BIGINT.array()))
                .fetch())
                .forEach(row -> started.put(key(row),
                        new SendingStarted(row.get(2, Instant.class), row.get(3, Instant.class))));
        // remove, not get: the same claim twice in one batch is answered as if written one after the other,
        // the first moving the row and the second finding it moved.
        return batch.stream()
                .map(request -> Optional.ofNullable(started.remove(new ClaimKey(request.claim().id().value(),
                        request.claim().token().value()))))
                .toList();
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
        Map<ClaimKey, Boolean> published = new HashMap<>();
        retryingDeadlocks(() -> dsl.resultQuery(MARK_PUBLISHED,
                        val(ids, SQLDataType.UUID.array()), val(tokens, SQLDataType.BIGINT.array()),
                        val(revisions, SQLDataType.INTEGER.array()))
                .fetch())
                .forEach(row -> published.put(key(row), Boolean.TRUE));
        return batch.stream()
                .map(request -> published.remove(new ClaimKey(request.claim().id().value(),
                        request.claim().token().value())) != null)
                .toList();
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

    private static ClaimKey key(Record row) {
        return new ClaimKey(row.get(0, UUID.class), row.get(1, Long.class));
    }

    private record ClaimKey(UUID id, long token) {
    }
}
