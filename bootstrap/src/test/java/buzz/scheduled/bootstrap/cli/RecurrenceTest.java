package buzz.scheduled.bootstrap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A series' occurrences on the calendar of its zone (java.time's tz database), across daylight-saving changes. */
class RecurrenceTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static List<String> local(List<Instant> instants, ZoneId zone) {
        return instants.stream().map(at -> ZonedDateTime.ofInstant(at, zone).toOffsetDateTime().toString()).toList();
    }

    @Test
    void weekly_acrossBothBerlinChanges_staysAtNineLocalWhileTheUtcTimeMoves() {
        List<Instant> march = new Recurrence("1w", 3).occurrences(LocalDateTime.parse("2026-03-22T09:00"), BERLIN);
        List<Instant> october = new Recurrence("1w", 3).occurrences(LocalDateTime.parse("2026-10-18T09:00"), BERLIN);

        assertThat(local(march, BERLIN)).containsExactly("2026-03-22T09:00+01:00", "2026-03-29T09:00+02:00",
                "2026-04-05T09:00+02:00");
        assertThat(march).containsExactly(Instant.parse("2026-03-22T08:00:00Z"), Instant.parse("2026-03-29T07:00:00Z"),
                Instant.parse("2026-04-05T07:00:00Z"));
        assertThat(local(october, BERLIN)).containsExactly("2026-10-18T09:00+02:00", "2026-10-25T09:00+01:00",
                "2026-11-01T09:00+01:00");
        assertThat(october.get(1)).isEqualTo(Instant.parse("2026-10-25T08:00:00Z"));
    }

    @Test
    void daily_aLocalTimeInTheSpringGap_movesThatDayOnlyByTheGap() {
        List<Instant> days = new Recurrence("1d", 3).occurrences(LocalDateTime.parse("2026-03-28T02:30"), BERLIN);

        assertThat(local(days, BERLIN)).containsExactly("2026-03-28T02:30+01:00", "2026-03-29T03:30+02:00",
                "2026-03-30T02:30+02:00");
    }

    @Test
    void daily_aLocalTimeInTheAutumnOverlap_isTheFirstOfTheTwo() {
        List<Instant> days = new Recurrence("1d", 2).occurrences(LocalDateTime.parse("2026-10-25T02:30"), BERLIN);

        assertThat(local(days, BERLIN)).containsExactly("2026-10-25T02:30+02:00", "2026-10-26T02:30+01:00");
        assertThat(days.get(0)).isEqualTo(Instant.parse("2026-10-25T00:30:00Z"));
    }

    @Test
    void monthly_fromTheThirtyFirst_takesEachMonthsLastDayWhenShorterAndComesBack() {
        List<Instant> months = new Recurrence("1mo", 3).occurrences(LocalDateTime.parse("2027-01-31T18:00"), BERLIN);

        assertThat(local(months, BERLIN)).containsExactly("2027-01-31T18:00+01:00", "2027-02-28T18:00+01:00",
                "2027-03-31T18:00+02:00");
    }

    @Test
    void hourly_isElapsedTime_soTheLocalClockJumpsWithTheChange() {
        List<Instant> hours = new Recurrence("1h", 3).occurrences(LocalDateTime.parse("2026-03-29T01:30"), BERLIN);

        assertThat(local(hours, BERLIN)).containsExactly("2026-03-29T01:30+01:00", "2026-03-29T03:30+02:00",
                "2026-03-29T04:30+02:00");
    }

    @Test
    void twelveWeeklyStandUps_fromTheIssuesExample_areTwelveMondaysAtNine() {
        List<Instant> standUps = new Recurrence("1w", 12).occurrences(LocalDateTime.parse("2026-12-07T09:00"), BERLIN);

        assertThat(standUps).hasSize(12);
        assertThat(standUps).allSatisfy(at -> {
            ZonedDateTime local = at.atZone(BERLIN);
            assertThat(local.getDayOfWeek()).isEqualTo(java.time.DayOfWeek.MONDAY);
            assertThat(local.toLocalTime()).isEqualTo(java.time.LocalTime.of(9, 0));
        });
        assertThat(standUps.get(11).atZone(BERLIN).toLocalDate()).isEqualTo(java.time.LocalDate.parse("2027-02-22"));
    }
}
