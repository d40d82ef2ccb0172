package buzz.scheduled.bootstrap.cli;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a message is due, as the command line gives it: {@code --at} an instant (Unix seconds, or RFC 3339 date-time
 * with an offset, e.g. {@code 2026-03-01T09:30:00+01:00}), or with {@code --tz} a local date-time in that zone
 * ({@code 2026-12-07 09:00}); or {@code --in} a delay from now ({@code 10s}, {@code 5m}, {@code 2h}, {@code 1d}, or
 * several together like {@code 1h30m}). The due time is the event's {@code created_at}, so it is whole seconds.
 *
 * <p>A local time the zone skips (the spring-forward gap) is moved later by the gap's length, {@code 02:30} becoming
 * {@code 03:30}; one the zone passes twice (the fall-back overlap) is the first of the two, at the summer-time offset.
 * Both are java.time's own resolution ({@link ZonedDateTime#ofLocal} without a preferred offset).
 */
sealed interface DueTime {

    /** The latest instant accepted: 9999-12-31T23:59:59Z. */
    long MAX_SECONDS = 253_402_300_799L;
    /** The longest {@code --in} accepted (the sidecar's own horizon is far shorter and says so). */
    Duration MAX_DELAY = Duration.ofDays(36_500);

    /** A fixed instant. */
    record At(Instant instant) implements DueTime {
        @Override
        public long epochSeconds(Instant now) {
            return instant.getEpochSecond();
        }
    }

    /** A local date-time in a time zone (IANA), resolved as the class says. */
    record Local(LocalDateTime local, ZoneId zone) implements DueTime {
        @Override
        public long epochSeconds(Instant now) {
            return ZonedDateTime.ofLocal(local, zone, null).toEpochSecond();
        }
    }

    /** A delay from the moment the event is signed. */
    record In(Duration delay) implements DueTime {
        @Override
        public long epochSeconds(Instant now) {
            return now.plus(delay).getEpochSecond();
        }
    }

    /** The due time in Unix seconds, given the current instant. */
    long epochSeconds(Instant now);

    /** The due time as a local date-time in {@code zone}, given the current instant (where a series starts). */
    default LocalDateTime local(ZoneId zone, Instant now) {
        return this instanceof Local local && local.zone().equals(zone) ? local.local()
                : Instant.ofEpochSecond(epochSeconds(now)).atZone(zone).toLocalDateTime();
    }

    /**
     * Parses an {@code --at} value without a zone.
     *
     * @throws ClientFailure a usage failure saying which forms are accepted
     */
    static DueTime at(String text) {
        return at(text, Optional.empty());
    }

    /**
     * Parses an {@code --at} value; with {@code zone} ({@code --tz}) a local date-time without offset is accepted too,
     * as {@code 2026-12-07 09:00}, {@code 2026-12-07T09:00} or with seconds.
     *
     * @throws ClientFailure a usage failure saying which forms are accepted
     */
    static DueTime at(String text, Optional<ZoneId> zone) {
        String value = text.strip();
        if (value.matches("[0-9]{1,12}")) {
            long seconds = Long.parseLong(value);
            if (seconds > MAX_SECONDS) {
                throw ClientFailure.usage("--at " + text + " is after the year 9999");
            }
            return new At(Instant.ofEpochSecond(seconds));
        }
        // RFC 3339 §5.6 allows a lowercase t and z, and a space between date and time.
        String normalized = value.toUpperCase(Locale.ROOT).replaceFirst("^([0-9]{4}-[0-9]{2}-[0-9]{2}) ", "$1T");
        if (zone.isPresent() && normalized.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?")) {
            try {
                return new Local(LocalDateTime.parse(normalized, DateTimeFormatter.ISO_LOCAL_DATE_TIME), zone.get());
            } catch (DateTimeException e) {
                throw ClientFailure.usage("--at " + text + " is not a date and time: " + e.getMessage());
            }
        }
        OffsetDateTime dateTime;
        try {
            dateTime = OffsetDateTime.parse(normalized, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        } catch (DateTimeException e) {
            String hint = normalized.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+")
                    ? " (it has no offset: add Z or +hh:mm, e.g. " + value + "Z, or give --tz <zone> for a local"
                    + " time)" : "";
            throw ClientFailure.usage("--at takes Unix seconds or an RFC 3339 date-time with an offset, e.g."
                    + " 1767225600 or 2026-01-01T00:00:00Z or 2026-01-01T01:00:00+01:00; got '" + text + "'" + hint);
        }
        if (dateTime.getNano() != 0) {
            throw ClientFailure.usage("--at " + text + " has a fraction of a second; a due time is whole seconds"
                    + " (the event's created_at)");
        }
        return new At(dateTime.toInstant());
    }

    /**
     * Parses an {@code --in} value: one or more {@code <number><unit>} with unit {@code s}, {@code m}, {@code h} or
     * {@code d}, adding up to more than zero.
     *
     * @throws ClientFailure a usage failure showing the accepted form
     */
    static DueTime in(String text) {
        return new In(delay("--in", text));
    }

    /**
     * A delay as {@code option} takes it: whole numbers with a unit each ({@code 10s}, {@code 5m}, {@code 2h},
     * {@code 1d}, {@code 1h30m}), more than zero and at most 100 years.
     *
     * @throws ClientFailure a usage failure naming {@code option} and showing the accepted form
     */
    static Duration delay(String option, String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        Matcher part = Pattern.compile("([0-9]{1,9})([smhd])").matcher(value);
        Duration total = Duration.ZERO;
        int end = 0;
        while (part.lookingAt()) {
            long amount = Long.parseLong(part.group(1));
            total = total.plus(switch (part.group(2)) {
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            });
            end = part.end();
            part.region(end, value.length());
        }
        if (value.isEmpty() || end != value.length()) {
            throw ClientFailure.usage(option + " takes a delay like 10s, 5m, 2h, 1d or 1h30m; got '" + text + "'");
        }
        if (total.compareTo(MAX_DELAY) > 0) {
            throw ClientFailure.usage(option + " " + text + " is more than 100 years ahead");
        }
        if (total.isZero()) {
            throw ClientFailure.usage(option + " " + text + " is no delay" + (option.equals("--in")
                    ? "; a message is due after now" : ""));
        }
        return total;
    }
}
