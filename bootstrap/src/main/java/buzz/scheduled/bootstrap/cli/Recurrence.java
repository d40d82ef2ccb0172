package buzz.scheduled.bootstrap.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a series repeats, as {@code schedule --every <step> --count <n>} gives it: {@code n} occurrences (1 to
 * {@value #MAX_COUNT}, so they go in one batch), the first at the due time, each later one a step after the first
 * times its number. Steps are {@code Nd} (days), {@code Nw} (weeks) and {@code Nmo} (months) on the calendar of the
 * {@code --tz} zone — the same local time of day across daylight-saving changes, a month step keeping the day of the
 * month or taking the month's last day when it has no such day — or {@code Nh} (hours) of elapsed time. N is 1 to
 * {@value #MAX_AMOUNT}.
 *
 * <p>Each occurrence is the local start date-time plus its steps, resolved in the zone as {@link DueTime} resolves a
 * local time: one that falls in a spring-forward gap moves later by the gap's length, one in a fall-back overlap is
 * the first (summer-time) of the two. Only that occurrence moves; the next one is again at the start's local time.
 *
 * @param step  the step, as given ({@code 1w})
 * @param count how many occurrences
 */
record Recurrence(String step, int count) {
    /** Most occurrences: one batch. */
    static final int MAX_COUNT = 100;
    /** Largest number in a step. */
    static final int MAX_AMOUNT = 999;

    private static final Pattern STEP = Pattern.compile("([1-9][0-9]{0,2})(d|w|mo|h)");

    Recurrence {
        if (!STEP.matcher(step).matches() || count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("not a recurrence: every " + step + ", " + count + " times");
        }
    }

    /**
     * Parses {@code --every} and {@code --count}.
     *
     * @throws ClientFailure a usage failure naming the option
     */
    static Recurrence parse(String every, String count) {
        String step = every.strip().toLowerCase(Locale.ROOT);
        if (!STEP.matcher(step).matches()) {
            throw ClientFailure.usage("--every takes a step like 1d, 2w, 1mo (the same local time in --tz) or 6h"
                    + " (elapsed hours), the number 1 to " + MAX_AMOUNT + "; got '" + every + "'");
        }
        String n = count.strip();
        if (!n.matches("[1-9][0-9]{0,2}") || Integer.parseInt(n) > MAX_COUNT) {
            throw ClientFailure.usage("--count takes the number of occurrences, 1 to " + MAX_COUNT
                    + " (they are sent as one batch); got '" + count + "'");
        }
        return new Recurrence(step, Integer.parseInt(n));
    }

    /** The occurrences from {@code start} (a local date-time in {@code zone}), in order. */
    List<Instant> occurrences(LocalDateTime start, ZoneId zone) {
        Matcher matcher = STEP.matcher(step);
        if (!matcher.matches()) {
            throw new IllegalStateException("checked step " + step + " no longer matches");
        }
        int amount = Integer.parseInt(matcher.group(1));
        String unit = matcher.group(2);
        ZonedDateTime first = ZonedDateTime.ofLocal(start, zone, null);
        List<Instant> instants = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            long steps = (long) n * amount;
            ZonedDateTime occurrence = switch (unit) {
                case "d" -> ZonedDateTime.ofLocal(start.plus(Period.ofDays(Math.toIntExact(steps))), zone, null);
                case "w" -> ZonedDateTime.ofLocal(start.plusWeeks(steps), zone, null);
                case "mo" -> ZonedDateTime.ofLocal(start.plusMonths(steps), zone, null);
                case "h" -> first.plus(Duration.ofHours(steps));
                default -> throw new IllegalStateException("unit " + unit + " passed the step pattern");
            };
            instants.add(occurrence.toInstant());
        }
        return instants;
    }
}
