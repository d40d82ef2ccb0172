package buzz.scheduled.bootstrap.config;

import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_ALLOWED_KINDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_CHANNEL_WINDOW_PER_OWNER;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_CHANNEL_WINDOW_TOTAL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_LIST_PAGE_MAX_BYTES;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_EVENT_BYTES;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_EVENT_TAGS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_HORIZON_DAYS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_LATENESS_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_PENDING_PER_OWNER;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_REVISIONS_KEPT;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_OWNER_WRITES_PER_MINUTE;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_OWNER_WRITE_BURST;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RELAY_MAX_FUTURE_SECONDS;

import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.bootstrap.config.SidecarConfig.Limits;
import buzz.scheduled.bootstrap.config.SidecarConfig.OwnerLimits;
import buzz.scheduled.domain.schedule.AdmissionRules;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the admission limits and what one owner may use (docs/scheduled-messages.md §4). Part of
 * {@link SidecarConfig#fromEnvironment}.
 */
final class LimitsConfigReader {
    private LimitsConfigReader() {
    }

    /** The admission limits (docs/scheduled-messages.md §4): horizon, lateness, relay future, pending, kinds. */
    static Limits limits(EnvironmentReader env) {
        return new Limits(
                Duration.ofDays(env.integer(BUZZ_MAX_HORIZON_DAYS, 120, 1, 3650, "days")),
                env.seconds(BUZZ_MAX_LATENESS_SECONDS, 900, 1, 7 * 86_400),
                env.seconds(BUZZ_RELAY_MAX_FUTURE_SECONDS, 900, 0, 86_400),
                (int) env.integer(BUZZ_MAX_PENDING_PER_OWNER, 100, 1, 1_000_000, "messages"),
                allowedKinds(env));
    }

    /** What one owner may use (docs/scheduled-messages.md §4): sizes, write rate, revisions, page, windows. */
    static OwnerLimits ownerLimits(EnvironmentReader env) {
        int eventBytes = (int) env.integer(BUZZ_MAX_EVENT_BYTES, AdmissionRules.DEFAULT_MAX_EVENT_BYTES, 1024,
                1024 * 1024, "bytes");
        int eventTags = (int) env.integer(BUZZ_MAX_EVENT_TAGS, AdmissionRules.DEFAULT_MAX_EVENT_TAGS, 1, 100_000,
                "tags");
        int perMinute = (int) env.integer(BUZZ_OWNER_WRITES_PER_MINUTE, 60, 1, 100_000, "writes a minute");
        int burst = (int) env.integer(BUZZ_OWNER_WRITE_BURST, 30, 1, 100_000, "writes");
        int revisionsKept = (int) env.integer(BUZZ_MAX_REVISIONS_KEPT, CreateLimits.DEFAULT_REVISIONS_KEPT, 1, 100,
                "revisions");
        int pageBytes = (int) env.integer(BUZZ_LIST_PAGE_MAX_BYTES, ListQuery.DEFAULT_MAX_BYTES, 64 * 1024,
                64 * 1024 * 1024, "bytes");
        int perOwner = (int) env.integer(BUZZ_CHANNEL_WINDOW_PER_OWNER,
                CreateLimits.DEFAULT_PER_OWNER_IN_CHANNEL_WINDOW, 1, 1_000_000, "messages");
        int total = (int) env.integer(BUZZ_CHANNEL_WINDOW_TOTAL, Math.max(perOwner,
                CreateLimits.DEFAULT_PER_CHANNEL_WINDOW), 1, 10_000_000, "messages");
        if (total < perOwner) {
            throw new InvalidConfigurationException(BUZZ_CHANNEL_WINDOW_TOTAL, BUZZ_CHANNEL_WINDOW_TOTAL + " (" + total
                    + ") must not be below " + BUZZ_CHANNEL_WINDOW_PER_OWNER + " (" + perOwner
                    + "): the channel-wide count includes every owner's");
        }
        return new OwnerLimits(eventBytes, eventTags, perMinute, burst, revisionsKept, pageBytes, perOwner, total);
    }

    private static Set<Integer> allowedKinds(EnvironmentReader env) {
        Optional<String> raw = env.text(BUZZ_ALLOWED_KINDS);
        if (raw.isEmpty()) {
            return AdmissionRules.DEFAULT_KINDS;
        }
        Set<Integer> kinds = new LinkedHashSet<>();
        for (String item : raw.get().split(",")) {
            String text = item.strip();
            if (text.isEmpty()) {
                continue;
            }
            int kind;
            try {
                kind = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                kind = -1;
            }
            if (kind < 0 || kind > 65_535) {
                throw new InvalidConfigurationException(BUZZ_ALLOWED_KINDS, BUZZ_ALLOWED_KINDS
                        + " must be comma-separated event kinds from 0 to 65535; '" + text + "' is not one");
            }
            kinds.add(kind);
        }
        if (kinds.isEmpty()) {
            throw new InvalidConfigurationException(BUZZ_ALLOWED_KINDS, BUZZ_ALLOWED_KINDS
                    + " must name at least one event kind, got '" + raw.get() + "'");
        }
        return Set.copyOf(kinds);
    }
}
