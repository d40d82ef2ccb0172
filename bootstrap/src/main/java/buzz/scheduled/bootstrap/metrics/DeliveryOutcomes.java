package buzz.scheduled.bootstrap.metrics;

import buzz.scheduled.application.port.out.DeliveryObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sidecar's {@link DeliveryObserver}: per recorded outcome, the lateness histogram
 * {@code buzz_delivery_lateness_seconds} (published − due on the database clock), the counter
 * {@code buzz_delivery_outcomes_total} by outcome and relay answer kind, one INFO line on the logger
 * {@code buzz.delivery} with the ids, channel, attempts and lateness (never the content). The relay's words on a
 * failed or retried attempt are kept as the message's {@code last_error} by the finishing write itself.
 */
public final class DeliveryOutcomes implements DeliveryObserver {
    private static final Logger LOG = LoggerFactory.getLogger("buzz.delivery");
    /** Bucket bounds of the lateness histogram: from 50 ms to the default lateness limit (15 min). */
    static final Duration[] LATENESS_BUCKETS = {Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5),
            Duration.ofMinutes(15)};

    private final MeterRegistry registry;
    private final Timer lateness;
    /** The outcome counters by outcome and relay answer kind, registered on first use (a few dozen at most). */
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

    /** @param registry where the histogram and counters live */
    public DeliveryOutcomes(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("delivery outcomes need a registry");
        }
        this.registry = registry;
        this.lateness = Timer.builder("buzz.delivery.lateness")
                .description("Delivery lateness: published minus due time on the database clock.")
                .serviceLevelObjectives(LATENESS_BUCKETS)
                .register(registry);
    }

    @Override
    public void outcome(DeliveryReport report) {
        try {
            String outcome = report.outcome().name().toLowerCase(Locale.ROOT);
            counters.computeIfAbsent(outcome + ' ' + report.relayKind(), key -> Counter.builder("buzz.delivery.outcomes")
                    .description("Recorded delivery outcomes, by outcome and by what the relay answered.")
                    .tag("outcome", outcome).tag("relay", report.relayKind())
                    .register(registry)).increment();
            report.lateness().ifPresent(late -> lateness.record(late.isNegative() ? Duration.ZERO : late));
            if (LOG.isInfoEnabled()) {
                LOG.info("{} id={} event={} channel={} revision={} attempts={} relay={}{}{}", outcome, report.id(),
                        report.eventId().hex(), report.channel().value(), report.revision(), report.attempts(),
                        report.relayKind(),
                        report.lateness().map(late -> " lateness=" + late.toMillis() / 1000.0 + "s").orElse(""),
                        report.detail().isEmpty() ? "" : " detail=\"" + report.detail() + "\"");
            }
        } catch (RuntimeException e) {
            LOG.warn("recording the outcome of {} failed: {}", report.id(), e.toString());
        }
    }
}
