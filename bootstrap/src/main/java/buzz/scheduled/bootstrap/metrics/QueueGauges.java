package buzz.scheduled.bootstrap.metrics;

import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.Links;
import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueStats;
import buzz.scheduled.application.port.out.LinkStatus;
import buzz.scheduled.domain.schedule.StateName;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The queue as Prometheus gauges, read from {@link QueueStatsUseCase} at most once per {@link #MAX_AGE_NANOS} however
 * many gauges a scrape reads: {@code buzz_messages{state}}, the late-delivery reservation
 * ({@code buzz_reservations_overdue}, {@code buzz_reservations_held_before_timestamp_seconds},
 * {@code buzz_reservations_held_lag_seconds}, {@code buzz_reservations_next_due_timestamp_seconds}), the oldest
 * overdue due time {@code buzz_oldest_overdue_due_timestamp_seconds}, and the connections
 * ({@code buzz_relay_connected}, {@code buzz_due_listener_active}, {@code buzz_nip29_in_sync}). A timestamp with
 * nothing to show (nothing overdue, nothing waiting) is {@code NaN}. A store that cannot answer gives
 * {@code buzz_reservations_up 0} and {@code NaN} figures instead of failing the scrape; while the database watch
 * says the database is down the figures are not asked for, and a read that takes longer than {@link #READ_WAIT_NANOS}
 * is left to finish for a later scrape, so a scrape never waits for the pool's timeout.
 */
public final class QueueGauges {
    /** How long one read of the figures serves the gauges: one second. */
    static final long MAX_AGE_NANOS = 1_000_000_000L;
    /** Longest a scrape waits for the figures: half a second. */
    static final long READ_WAIT_NANOS = 500_000_000L;
    private static final Executor VIRTUAL = command -> Thread.ofVirtual().name("queue-gauges").start(command);
    private static final List<String> STATES = StateName.wireNames(StateName.all());

    private final QueueStatsUseCase source;
    private final DatabaseStatusUseCase database;
    private final LongSupplier nanoTime;
    private Optional<QueueStats> cached = Optional.empty();
    private long readAt;
    private boolean fresh;
    private CompletableFuture<QueueStats> reading;

    QueueGauges(QueueStatsUseCase source, DatabaseStatusUseCase database, LongSupplier nanoTime) {
        this.source = source;
        this.database = database;
        this.nanoTime = nanoTime;
    }

    /**
     * Registers the gauges on {@code registry}.
     *
     * @param nip29 whether the NIP-29 feed gauge applies (the access policy is {@code nip29})
     */
    public static QueueGauges register(MeterRegistry registry, QueueStatsUseCase source,
                                       DatabaseStatusUseCase database, LinkStatus links, boolean nip29) {
        QueueGauges gauges = new QueueGauges(source, database, System::nanoTime);
        for (String state : STATES) {
            gauges.gauge(registry, "buzz.messages", "Scheduled messages in the store, by state.",
                    figures -> figures.byState().getOrDefault(state, 0L)).tag("state", state).register(registry);
        }
        gauges.gauge(registry, "buzz.reservations.up",
                "Whether the queue figures could be read from the database (1) or not (0).", figures -> 1)
                .register(registry);
        gauges.gauge(registry, "buzz.reservations.overdue", "Non-terminal scheduled messages already due.",
                QueueFigures::overdue).register(registry);
        gauges.gauge(registry, "buzz.reservations.held.before.timestamp",
                        "Unix time from which an overdue scheduled event may still land (NaN when nothing is overdue).",
                        figures -> seconds(figures.heldBefore()))
                .baseUnit("seconds").register(registry);
        gauges.gauge(registry, "buzz.reservations.held.lag",
                        "Seconds between held_before and the database clock (0 when nothing is overdue).",
                        figures -> figures.heldBefore().map(held -> Math.max(0,
                                figures.now().getEpochSecond() - held.getEpochSecond())).orElse(0L))
                .baseUnit("seconds").register(registry);
        gauges.gauge(registry, "buzz.reservations.next.due.timestamp",
                        "Unix time the next pending scheduled message is due (NaN when none is waiting).",
                        figures -> seconds(figures.nextDue()))
                .baseUnit("seconds").register(registry);
        gauges.gauge(registry, "buzz.oldest.overdue.due.timestamp",
                        "Due time of the oldest non-terminal message already due, as Unix time (NaN when none is).",
                        figures -> seconds(figures.oldestOverdue()))
                .baseUnit("seconds").register(registry);
        link(registry, "buzz.relay.connected", "Whether the relay WebSocket is open (1) or not (0).",
                links, now -> now.relayConnected() ? 1 : 0);
        link(registry, "buzz.due.listener.active",
                "Whether the due-work LISTEN connection to PostgreSQL is up (1) or not (0).",
                links, now -> now.listening() ? 1 : 0);
        if (nip29) {
            link(registry, "buzz.nip29.in.sync",
                    "Whether the NIP-29 group state read from the relay is in sync (1) or not (0).",
                    links, now -> now.groupFeed().orElse(false) ? 1 : 0);
        }
        return gauges;
    }

    private Gauge.Builder<QueueGauges> gauge(MeterRegistry registry, String name, String help,
                                            ToDoubleFunction<QueueFigures> value) {
        return Gauge.builder(name, this, gauges -> gauges.current()
                        .map(stats -> value.applyAsDouble(stats.figures()))
                        .orElse(name.equals("buzz.reservations.up") ? 0 : Double.NaN))
                .description(help).strongReference(true);
    }

    private static void link(MeterRegistry registry, String name, String help, LinkStatus links,
                             ToDoubleFunction<Links> value) {
        Gauge.builder(name, links, status -> value.applyAsDouble(status.links())).description(help)
                .strongReference(true).register(registry);
    }

    /**
     * The figures, read again when the last read is older than a second; empty when the database is known to be down,
     * the read failed, or it did not answer within {@link #READ_WAIT_NANOS} (it then goes on, and a later scrape takes
     * its answer instead of starting another).
     */
    synchronized Optional<QueueStats> current() {
        long now = nanoTime.getAsLong();
        if (fresh && now - readAt <= MAX_AGE_NANOS) {
            return cached;
        }
        readAt = now;
        fresh = true;
        if (reading == null && database.databaseStatus().health() == DatabaseStatusUseCase.Health.DOWN) {
            cached = Optional.empty();
            return cached;
        }
        if (reading == null) {
            reading = CompletableFuture.supplyAsync(source::stats, VIRTUAL);
        }
        try {
            cached = Optional.of(reading.get(READ_WAIT_NANOS, TimeUnit.NANOSECONDS));
            reading = null;
        } catch (TimeoutException e) {
            cached = Optional.empty();
        } catch (ExecutionException e) {
            cached = Optional.empty();
            reading = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cached = Optional.empty();
        }
        return cached;
    }

    private static double seconds(Optional<Instant> instant) {
        return instant.map(time -> (double) time.getEpochSecond()).orElse(Double.NaN);
    }
}
