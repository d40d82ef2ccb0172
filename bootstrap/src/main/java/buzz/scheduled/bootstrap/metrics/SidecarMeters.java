package buzz.scheduled.bootstrap.metrics;

import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.DeliveryCountsUseCase;
import buzz.scheduled.application.port.in.DeliveryCountsUseCase.DeliveryCounts;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.HashSet;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * The sidecar's one meter registry (Micrometer, rendered by {@code GET /metrics} in Prometheus text format) with
 * what every process reports: JVM memory, GC, threads, classes, CPU, file descriptors and uptime (Micrometer's
 * binders), {@code buzz_build_info{version}}, the dispatcher's counters {@code buzz_delivery_*_total}, the relay
 * client's {@code buzz_relay_*_total} and the database watch's {@code buzz_database_up} and
 * {@code buzz_clock_skew_seconds}.
 *
 * <p>One vocabulary (docs/scheduled-messages.md §9, the metrics vocabulary): every recorded delivery outcome is
 * counted once, in {@code buzz_delivery_outcomes_total{outcome,relay}} ({@link DeliveryOutcomes}); the other counters
 * count what no outcome says (claims, lost fences, reaped claims, frames on the relay's connection) and never an
 * outcome again. "Sent" means one thing: an {@code EVENT} frame written to the relay's connection
 * ({@code buzz_relay_events_sent_total}; an outcome's {@code relay="not-sent"} is a frame never written).
 * {@link #scrape} leaves out the {@code _max} gauge Micrometer adds beside each histogram: the buckets already bound
 * the largest value, and a gauge that forgets between scrapes beside a cumulative histogram reads as a second,
 * different figure.
 */
public final class SidecarMeters {
    private SidecarMeters() {
    }

    /** A new registry with the JVM and process meters and {@code buzz_build_info}. */
    public static PrometheusMeterRegistry create(String version) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // Two of Micrometer's processor meters break Prometheus naming (promtool check metrics): a counter in
        // nanoseconds (process_cpu_time_ns_total; process_cpu_usage stays) and a gauge ending in _count.
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public io.micrometer.core.instrument.Meter.Id map(io.micrometer.core.instrument.Meter.Id id) {
                return id.getName().equals("system.cpu.count") ? id.withName("system.cpu.logical.processors") : id;
            }
        });
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        Gauge.builder("buzz.build.info", () -> 1).description("This build of buzz-scheduled-delivery (always 1).")
                .tag("version", version).register(registry);
        return registry;
    }

    /**
     * Registers the dispatcher's counters as {@code buzz_delivery_<name>_total}: claims, lost fences, reaped claims
     * and unexpected errors. Its published, rejected and retried counts are not registered: they are
     * {@code buzz_delivery_outcomes_total}'s.
     */
    public static void deliveryCounters(MeterRegistry registry, DeliveryCountsUseCase source) {
        counter(registry, source, "claims", "Delivery attempts begun: messages claimed by this process.",
                DeliveryCounts::claimed);
        counter(registry, source, "fence_rejections",
                "Outcomes not recorded because the claim was no longer held (reaped or superseded).",
                DeliveryCounts::fenceRejections);
        counter(registry, source, "claims_reaped", "Claims whose lease ran out, taken back by this process's reaper.",
                DeliveryCounts::reaped);
        counter(registry, source, "unexpected_errors", "Unexpected delivery failures (each logged at ERROR).",
                DeliveryCounts::errors);
    }

    /**
     * The registry's Prometheus text (exposition format 0.0.4) without the {@code <histogram>_max} gauges Micrometer
     * writes beside each timer's histogram. Other gauges whose name ends in {@code _max} (a pool's size limit) stay.
     */
    public static String scrape(PrometheusMeterRegistry registry) {
        String text = registry.scrape();
        Set<String> histograms = new HashSet<>();
        for (String line : text.split("\n")) {
            String[] words = line.split(" ");
            if (words.length == 4 && words[0].equals("#") && words[1].equals("TYPE")
                    && (words[3].equals("histogram") || words[3].equals("summary"))) {
                histograms.add(words[2] + "_max");
            }
        }
        StringBuilder kept = new StringBuilder(text.length());
        for (String line : text.split("\n")) {
            String[] words = line.split(" ", 4);
            String family = line.startsWith("#") ? (words.length > 2 ? words[2] : "") : line.split("[{ ]", 2)[0];
            if (!histograms.contains(family)) {
                kept.append(line).append('\n');
            }
        }
        return kept.toString();
    }

    /**
     * Registers the database watch's gauges, read from memory: {@code buzz_database_up} (1 when its last check
     * answered in time) and {@code buzz_clock_skew_seconds} (this host's clock minus the database's, positive when
     * this host is ahead; {@code NaN} before the first answer).
     */
    public static void databaseGauges(MeterRegistry registry, DatabaseStatusUseCase source) {
        Gauge.builder("buzz.database.up", source, status -> status.databaseStatus().reachable() ? 1 : 0)
                .description("Whether the database answered its last check in time (1) or not (0).")
                .strongReference(true).register(registry);
        Gauge.builder("buzz.clock.skew", source, status -> status.databaseStatus().clockSkew()
                        .map(skew -> skew.toNanos() / 1e9).orElse(Double.NaN))
                .description("This host's clock minus the database's clock (positive: this host is ahead), measured "
                        + "around a round trip.")
                .baseUnit("seconds").strongReference(true).register(registry);
    }

    /**
     * Registers the relay client's counters as {@code buzz_relay_<name>_total}: connections, frames on them, answers
     * that did not come, AUTH refusals. What became of each message is {@code buzz_delivery_outcomes_total}'s
     * ({@code relay="found"}, {@code "not-sent"}, {@code "too-large"}), not counted here again.
     */
    public static void relayCounters(MeterRegistry registry, RelayClient client) {
        relayCounter(registry, client, "connections_opened", "Connections to the relay opened.",
                RelayClient.Counts::connections);
        relayCounter(registry, client, "connections_lost", "Connections to the relay lost or ended (half-open, no pong,"
                + " a stalled write).", RelayClient.Counts::drops);
        relayCounter(registry, client, "events_sent", "EVENT frames written to the relay's connection, resends"
                + " included.", RelayClient.Counts::eventsSent);
        relayCounter(registry, client, "events_resent", "EVENT frames written again after a lost connection because"
                + " the relay did not have them.", RelayClient.Counts::resent);
        relayCounter(registry, client, "ok_timeouts", "EVENT frames the relay did not answer with OK within the publish"
                + " timeout (then resolved by asking it for the event).", RelayClient.Counts::timeouts);
        relayCounter(registry, client, "auth_refusals", "NIP-42 AUTH attempts the relay refused.",
                RelayClient.Counts::authRefusals);
        relayCounter(registry, client, "rate_limited", "Frames the relay answered rate-limited (each sent again at the "
                + "pace the relay accepts).", RelayClient.Counts::rateLimited);
        relayCounter(registry, client, "asked_again_after_auth", "Look-up answers the relay gave before NIP-42 AUTH, "
                + "asked again after it.", RelayClient.Counts::askedAgain);
    }

    private static void relayCounter(MeterRegistry registry, RelayClient client, String name, String help,
                                     ToLongFunction<RelayClient.Counts> value) {
        FunctionCounter.builder("buzz.relay." + name, client, c -> value.applyAsLong(c.counts()))
                .description(help).register(registry);
    }

    private static void counter(MeterRegistry registry, DeliveryCountsUseCase source, String name, String help,
                                ToLongFunction<DeliveryCounts> value) {
        FunctionCounter.builder("buzz.delivery." + name, source, counts -> value.applyAsLong(counts.deliveryCounts()))
                .description(help).register(registry);
    }
}
