package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.in.QueueStatsUseCase.LatenessPercentiles;
import buzz.scheduled.application.port.in.QueueStatsUseCase.MinuteFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.RecentFailure;
import buzz.scheduled.application.port.in.QueueStatsUseCase.RecentWindow;
import buzz.scheduled.application.port.out.QueueStatistics;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.TransactionalCallable;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The queue figures of the operator's view on PostgreSQL: six reads in one read-only transaction, so they share
 * one {@code now()} and one snapshot. Lateness is {@code finished_at − due_at} of the messages published in the
 * window (both on the database clock). Never reads event content except the {@code created_at} of overdue rows
 * (for {@code held_before}, as the reservations do).
 */
public final class PostgresQueueStatistics implements QueueStatistics {

    /** Every state's wire name, in lifecycle order. */
    static final List<String> STATES = StateName.wireNames(StateName.all());
    private static final String PENDING_STATES = StateLiterals.list(StateName.where(state -> !state.terminal()));
    private static final String TERMINAL_STATES = StateLiterals.list(StateName.where(StateName::terminal));
    private static final String PUBLISHED = StateLiterals.literal(StateName.PUBLISHED);
    private static final String CANCELLED = StateLiterals.literal(StateName.CANCELLED);
    private static final String FAILED = StateLiterals.literal(StateName.FAILED);

    private static final String BY_STATE = "SELECT state, count(*) FROM scheduled_message GROUP BY state";

    private static final String PENDING = """
            SELECT now(),
                   count(*) FILTER (WHERE due_at <= now()),
                   min(least(due_at, to_timestamp((event_json::json ->> 'created_at')::bigint)))
                       FILTER (WHERE due_at <= now()),
                   min(due_at) FILTER (WHERE due_at <= now()),
                   min(due_at) FILTER (WHERE due_at > now())
              FROM scheduled_message
             WHERE state IN (%s)""".formatted(PENDING_STATES);

    private static final String WINDOW = """
            WITH ended AS (
                SELECT state, finished_at, extract(epoch FROM finished_at - due_at)::float8 AS lateness
                  FROM scheduled_message
                 WHERE state IN (%1$s) AND state <> %3$s
                   AND finished_at > now() - make_interval(secs => ?))
            SELECT date_trunc('minute', finished_at) AS minute,
                   count(*) FILTER (WHERE state = %2$s),
                   count(*) FILTER (WHERE state = %4$s),
                   coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness) FILTER (WHERE state = %2$s), 0),
                   coalesce(max(lateness) FILTER (WHERE state = %2$s), 0)
              FROM ended
             GROUP BY minute
             ORDER BY minute""".formatted(TERMINAL_STATES, PUBLISHED, CANCELLED, FAILED);

    private static final String PERCENTILES = """
            SELECT count(*),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness),
                   percentile_cont(0.9) WITHIN GROUP (ORDER BY lateness),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY lateness),
                   max(lateness)
              FROM (SELECT extract(epoch FROM finished_at - due_at)::float8 AS lateness
                      FROM scheduled_message
                     WHERE state IN (%s) AND state = %s
                       AND finished_at > now() - make_interval(secs => ?)) published""".formatted(TERMINAL_STATES,
            PUBLISHED);

    /** Retried attempts (migration V13's history; V14 indexes it by time for this count). */
    private static final String RETRIED = """
            SELECT count(*)
              FROM delivery_attempt
             WHERE outcome = 'retry'
               AND recorded_at > now() - make_interval(secs => ?)""";

    private static final String FAILURES = """
            SELECT id, owner, channel, reason, last_error, finished_at, attempts
              FROM scheduled_message
             WHERE state IN (%s) AND state = %s
             ORDER BY finished_at DESC, id
             LIMIT ?""".formatted(TERMINAL_STATES, FAILED);

    private final DSLContext dsl;

    /** Over {@code dataSource} (a pool; each call borrows one connection). */
    public PostgresQueueStatistics(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("queue statistics need a data source");
        }
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    @Override
    public QueueFigures figures(Duration window, int recentFailures) {
        if (window == null || window.isNegative() || window.isZero() || recentFailures < 0) {
            throw new IllegalArgumentException("a positive window and a non-negative failure count are needed, got "
                    + window + " and " + recentFailures);
        }
        double windowSeconds = window.toMillis() / 1000.0;
        TransactionalCallable<QueueFigures> read = configuration -> {
            DSLContext tx = configuration.dsl();
            tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            Map<String, Long> byState = new LinkedHashMap<>();
            STATES.forEach(state -> byState.put(state, 0L));
            for (Record row : tx.fetch(BY_STATE)) {
                byState.put(row.get(0, String.class), row.get(1, Long.class));
            }
            Record pending = tx.fetchSingle(PENDING);
            List<MinuteFigures> minutes = new ArrayList<>();
            long published = 0;
            long failed = 0;
            for (Record row : tx.fetch(WINDOW, windowSeconds)) {
                MinuteFigures minute = new MinuteFigures(instant(row.get(0, OffsetDateTime.class)),
                        row.get(1, Long.class), row.get(2, Long.class), row.get(3, Double.class),
                        row.get(4, Double.class));
                published += minute.published();
                failed += minute.failed();
                minutes.add(minute);
            }
            Record percentiles = tx.fetchSingle(PERCENTILES, windowSeconds);
            Optional<LatenessPercentiles> lateness = percentiles.get(0, Long.class) == 0 ? Optional.empty()
                    : Optional.of(new LatenessPercentiles(percentiles.get(1, Double.class),
                    percentiles.get(2, Double.class), percentiles.get(3, Double.class),
                    percentiles.get(4, Double.class)));
            long retried = tx.fetchSingle(RETRIED, windowSeconds).get(0, Long.class);
            List<RecentFailure> failures = new ArrayList<>();
            for (Record row : tx.fetch(FAILURES, recentFailures)) {
                failures.add(new RecentFailure(new ScheduleId(row.get(0, UUID.class)),
                        new PublicKey(row.get(1, String.class)), new Channel(row.get(2, String.class)),
                        row.get(3, String.class), Optional.ofNullable(row.get(4, String.class)),
                        instant(row.get(5, OffsetDateTime.class)), row.get(6, Integer.class)));
            }
            return new QueueFigures(instant(pending.get(0, OffsetDateTime.class)), byState,
                    pending.get(1, Long.class), optionalInstant(pending.get(2, OffsetDateTime.class)),
                    optionalInstant(pending.get(3, OffsetDateTime.class)),
                    optionalInstant(pending.get(4, OffsetDateTime.class)),
                    new RecentWindow(published, failed, retried, lateness, minutes), failures);
        };
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(read));
    }

    private static Instant instant(OffsetDateTime time) {
        return time.toInstant();
    }

    private static Optional<Instant> optionalInstant(OffsetDateTime time) {
        return Optional.ofNullable(time).map(OffsetDateTime::toInstant);
    }
}
