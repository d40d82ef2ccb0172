package buzz.scheduled.bootstrap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The client commands' command lines: what each parses to, and a clear usage failure for every mistake. */
class ClientCommandLineTest {

    private static final String ID = "0190f3c2-7d4e-7a51-9b3c-2f1e8d7c6b5a";
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void schedule_everyOption_parsesChannelDueKindTagsAndTheWordsAsContent() {
        ClientCommandLine.Parsed.Run run = run("schedule", "--channel", "general", "--in", "1h30m", "--kind", "1",
                "--tag", "subject=a=b", "--tag", "t=x", "--url", "http://h:1", "--key-file", "k", "--json",
                "hello", "world");

        ClientRequest.Schedule schedule = (ClientRequest.Schedule) run.request();
        assertThat(schedule.channel()).isEqualTo("general");
        assertThat(schedule.due().epochSeconds(NOW)).isEqualTo(NOW.plus(Duration.ofMinutes(90)).getEpochSecond());
        assertThat(schedule.kind()).isEqualTo(1);
        assertThat(schedule.tags()).containsExactly(List.of("subject", "a=b"), List.of("t", "x"));
        assertThat(schedule.content()).isEqualTo("hello world");
        assertThat(run.common()).isEqualTo(new ClientCommandLine.Common(Optional.of("http://h:1"), Optional.of("k"), true));
    }

    @Test
    void schedule_equalsFormOptionsAfterTheContent_areOptionsAndKindDefaultsTo9() {
        ClientRequest.Schedule schedule = (ClientRequest.Schedule) run("schedule", "hi", "--channel=ops",
                "--at=1767225600").request();

        assertThat(schedule.channel()).isEqualTo("ops");
        assertThat(schedule.due().epochSeconds(NOW)).isEqualTo(1_767_225_600L);
        assertThat(schedule.kind()).isEqualTo(9);
        assertThat(schedule.content()).isEqualTo("hi");
    }

    @Test
    void schedule_doubleDash_endsTheOptionsSoContentMayLookLikeOne() {
        ClientRequest.Schedule schedule = (ClientRequest.Schedule) run("schedule", "--channel", "c", "--in", "5m",
                "--", "--json", "-h", "is", "text").request();

        assertThat(schedule.content()).isEqualTo("--json -h is text");
    }

    @Test
    void schedule_contentDash_isStandardInputWithoutItsLastNewline() {
        ClientCommandLine.Parsed parsed = ClientCommandLine.parse("schedule",
                List.of("--channel", "c", "--in", "5m", "-"), () -> "line one\nline two\n");

        assertThat(((ClientRequest.Schedule) ((ClientCommandLine.Parsed.Run) parsed).request()).content())
                .isEqualTo("line one\nline two");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1767225600|2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z|2026-01-01T00:00:00Z",
            "2026-01-01T01:00:00+01:00|2026-01-01T00:00:00Z",
            "2025-12-31t19:00:00-05:00|2026-01-01T00:00:00Z",
            "2026-01-01 00:00:00z|2026-01-01T00:00:00Z"})
    void at_unixSecondsOrRfc3339WithOffset_isThatInstant(String text, String instant) {
        assertThat(DueTime.at(text).epochSeconds(NOW)).isEqualTo(Instant.parse(instant).getEpochSecond());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "2026-01-01T00:00:00|it has no offset: add Z or +hh:mm, e.g. 2026-01-01T00:00:00Z",
            "tomorrow|--at takes Unix seconds or an RFC 3339 date-time with an offset",
            "2026-13-01T00:00:00Z|got '2026-13-01T00:00:00Z'",
            "2026-01-01T00:00:00.5Z|has a fraction of a second; a due time is whole seconds",
            "999999999999|is after the year 9999",
            "-5|got '-5'"})
    void at_anythingElse_isAUsageFailureSayingWhatIsAccepted(String text, String message) {
        assertUsage(() -> DueTime.at(text), message);
    }

    @ParameterizedTest
    @CsvSource({"10s,10", "5m,300", "2h,7200", "1d,86400", "1h30m,5400", "2H,7200"})
    void in_durations_countFromNow(String text, long seconds) {
        assertThat(DueTime.in(text).epochSeconds(NOW)).isEqualTo(NOW.getEpochSecond() + seconds);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "10|--in takes a delay like 10s, 5m, 2h, 1d or 1h30m; got '10'",
            "5 m|got '5 m'",
            "1w|got '1w'",
            "-5m|got '-5m'",
            "0s|is no delay",
            "36501d|more than 100 years"})
    void in_anythingElse_isAUsageFailure(String text, String message) {
        assertUsage(() -> DueTime.in(text), message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "schedule --chanel general --in 5m hi|unknown option --chanel for schedule; its options are --at, --channel, --count, --every, --in, --kind, --tag, --tz",
            "get --channel x " + ID + "|unknown option --channel for get",
            "schedule --in 5m hi|schedule needs --channel <h>",
            "schedule --channel c hi|schedule needs --at <time> or --in <delay>",
            "schedule --channel c --in 5m|schedule needs the message content",
            "schedule --channel c --in 5m --at 1767225600 hi|give --at or --in, not both",
            "schedule --channel c --channel d --in 5m hi|--channel is given twice",
            "schedule --in 5m hi --channel|--channel needs a value",
            "schedule --channel --json --in 5m hi|--channel needs a value",
            "schedule --channel c --in 5m --tag h=other hi|--tag h=... is not allowed",
            "schedule --channel c --in 5m --tag subject hi|--tag takes name=value",
            "schedule --channel c --in 5m --kind 70000 hi|--kind takes an event kind from 0 to 65535, got '70000'",
            "schedule --channel c --in 5m --json=yes hi|--json takes no value",
            "get not-an-id|'not-an-id' is not a message id",
            "get|get takes one message id, got none",
            "cancel " + ID + " " + ID + "|cancel takes one message id, got 2",
            "edit " + ID + "|edit needs a new due time (--at or --in), new content, or both",
            "edit|edit needs the message id",
            "list extra|list takes no arguments, got extra",
            "list --limit 0|--limit takes a whole number from 1 to 200, got '0'",
            "list --series 12|--series takes a series id (a UUID",
            "schedule --channel c --in 5m --every 1w hi|a series needs both --every <step> and --count <n>",
            "schedule --channel c --in 5m --count 3 hi|a series needs both --every <step> and --count <n>",
            "schedule --channel c --in 5m --every 1w --count 3 hi|--every needs --tz <zone>",
            "schedule --channel c --in 5m --every 1y --count 3 --tz UTC hi|--every takes a step like 1d, 2w, 1mo",
            "schedule --channel c --in 5m --every 0d --count 3 --tz UTC hi|--every takes a step",
            "schedule --channel c --in 5m --every 1d --count 101 --tz UTC hi|--count takes the number of occurrences, 1 to 100",
            "schedule --channel c --in 5m --every 1d --count 0 --tz UTC hi|--count takes the number of occurrences",
            "schedule --channel c --at 2026-12-07T09:00 --tz Mars/Olympus hi|--tz takes an IANA time zone",
            "schedule --channel c --at 2026-12-07T09:00 hi|or give --tz <zone> for a local time",
            "schedule --channel c --at 2026-02-30T09:00 --tz UTC hi|is not a date and time",
            "cancel|cancel takes one message id, got none",
            "cancel " + ID + " --channel ops|cancel takes either one message id or --series",
            "cancel --tz UTC " + ID + "|--tz goes with --due-after or --due-before",
            "cancel --series nope|--series takes a series id",
            "cancel --due-before soon|--at takes Unix seconds or an RFC 3339 date-time"})
    void parse_mistake_isAUsageFailureNamingIt(String line, String message) {
        List<String> words = List.of(line.split(" "));
        assertUsage(() -> ClientCommandLine.parse(words.get(0), words.subList(1, words.size()), () -> ""), message);
    }

    @Test
    void settings_withAndWithoutNotices_readsOrChangesTheChoice() {
        assertThat(run("settings").request()).isEqualTo(new ClientRequest.Settings(java.util.Optional.empty()));
        assertThat(run("settings", "--notices", "all").request())
                .isEqualTo(new ClientRequest.Settings(java.util.Optional.of("all")));
        assertUsage(() -> run("settings", "--notices", "loud"), "--notices takes none, failures or all");
        assertUsage(() -> run("settings", "extra"), "settings takes no arguments");
    }

    @Test
    void edit_contentOnly_keepsTheDueTimeAndIdIsLowercased() {
        ClientRequest.Edit edit = (ClientRequest.Edit) run("edit", ID.toUpperCase(), "new", "text").request();

        assertThat(edit.id()).isEqualTo(UUID.fromString(ID));
        assertThat(edit.due()).isEmpty();
        assertThat(edit.content()).contains("new text");
    }

    @Test
    void edit_dueOnly_keepsTheContent() {
        ClientRequest.Edit edit = (ClientRequest.Edit) run("edit", ID, "--in", "2h").request();

        assertThat(edit.due().orElseThrow().epochSeconds(NOW)).isEqualTo(NOW.getEpochSecond() + 7200);
        assertThat(edit.content()).isEmpty();
    }

    @Test
    void list_filters_areKeptForTheQuery() {
        ClientRequest.ListItems list = (ClientRequest.ListItems) run("list", "--state", "published,failed",
                "--channel", "ops", "--limit", "200", "--cursor", "abc").request();

        assertThat(list).isEqualTo(new ClientRequest.ListItems(Optional.of("published,failed"), Optional.of("ops"),
                Optional.of(200), Optional.of("abc")));
    }

    @Test
    void schedule_series_keepsTheRecurrenceTheZoneAndALocalStart() {
        ClientRequest.Schedule schedule = (ClientRequest.Schedule) run("schedule", "--channel", "ops", "--at",
                "2026-12-07 09:00", "--tz", "Europe/Berlin", "--every", "1W", "--count", "12", "stand-up").request();

        assertThat(schedule.series()).contains(new ClientRequest.Series(new Recurrence("1w", 12),
                java.time.ZoneId.of("Europe/Berlin")));
        assertThat(schedule.due()).isEqualTo(new DueTime.Local(java.time.LocalDateTime.parse("2026-12-07T09:00"),
                java.time.ZoneId.of("Europe/Berlin")));
        assertThat(schedule.due().epochSeconds(NOW)).isEqualTo(Instant.parse("2026-12-07T08:00:00Z").getEpochSecond());
        assertThat(schedule.content()).isEqualTo("stand-up");
    }

    @Test
    void cancel_selection_keepsEveryPartGiven() {
        UUID series = UUID.fromString(ID);
        ClientRequest.CancelMatching cancel = (ClientRequest.CancelMatching) run("cancel", "--series", ID,
                "--channel", "ops", "--due-after", "2026-12-07 00:00", "--due-before", "1800000000", "--tz",
                "Europe/Berlin").request();

        assertThat(cancel.series()).contains(series);
        assertThat(cancel.channel()).contains("ops");
        assertThat(cancel.dueAfter().orElseThrow().epochSeconds(NOW))
                .isEqualTo(Instant.parse("2026-12-06T23:00:00Z").getEpochSecond());
        assertThat(cancel.dueBefore().orElseThrow().epochSeconds(NOW)).isEqualTo(1_800_000_000L);
        assertThat(run("cancel", ID).request()).isEqualTo(new ClientRequest.Cancel(series));
    }

    @Test
    void help_anywhereBeforeDoubleDash_winsOverMistakesAndNamesTheExitCodes() {
        ClientCommandLine.Parsed parsed = ClientCommandLine.parse("schedule", List.of("--bogus", "-h"), () -> "");

        assertThat(parsed).isInstanceOfSatisfying(ClientCommandLine.Parsed.Help.class, help -> assertThat(help.text())
                .startsWith("usage: java -jar buzz-scheduled-delivery.jar schedule --channel <h>")
                .contains("--key-file <file>").contains("5 refused by the sidecar").contains("2 bad command line"));
        // After --, --help is an argument like any other.
        assertUsage(() -> ClientCommandLine.parse("cancel", List.of("--", "--help"), () -> ""),
                "'--help' is not a message id");
    }

    private static ClientCommandLine.Parsed.Run run(String command, String... args) {
        return (ClientCommandLine.Parsed.Run) ClientCommandLine.parse(command, List.of(args), () -> "");
    }

    private static void assertUsage(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(ClientFailure.class,
                failure -> assertThat(failure.exitCode()).isEqualTo(ClientCommands.EXIT_USAGE))
                .hasMessageContaining(message);
    }

    @Test
    void list_all_asksForEveryState() {
        ClientRequest.ListItems list = (ClientRequest.ListItems) run("list", "--all").request();

        assertThat(list.state()).contains("scheduled,claimed,sending,published,cancelled,failed");
    }

    @Test
    void list_unknownStateOrBothStateAndAll_isRefusedHereNamingTheStates() {
        assertUsage(() -> run("list", "--state", "pending"), "--state takes a comma list of scheduled, claimed, "
                + "sending, published, cancelled, failed (or --all for every state); 'pending' is not a state");
        assertUsage(() -> run("list", "--state", "published,"), "'' is not a state");
        assertUsage(() -> run("list", "--state", "failed", "--all"), "give --state or --all, not both");
        assertUsage(() -> run("list", "--all=yes"), "--all takes no value");
    }

    @Test
    void wait_idAndTimeout_areParsed() {
        ClientRequest.Wait wait = (ClientRequest.Wait) run("wait", ID, "--timeout", "1h30m").request();
        ClientRequest.Wait plain = (ClientRequest.Wait) run("wait", ID).request();

        assertThat(wait.id()).hasToString(ID);
        assertThat(wait.timeout()).contains(java.time.Duration.ofMinutes(90));
        assertThat(plain.timeout()).isEmpty();
        assertUsage(() -> run("wait", ID, "--timeout", "soon"), "--timeout takes a delay like 10s, 5m, 2h, 1d or"
                + " 1h30m; got 'soon'");
        assertUsage(() -> run("wait"), "wait takes one message id, got none");
    }
}
