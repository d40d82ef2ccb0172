package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.domain.schedule.StateName;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Parses a client command's arguments: options as {@code --name value} or {@code --name=value}, anywhere before a
 * lone {@code --}; everything else is positional. Every mistake is a usage {@link ClientFailure} with a sentence
 * naming the option or argument.
 */
final class ClientCommandLine {

    /** The common options every client command takes, with their values as given. */
    record Common(Optional<String> url, Optional<String> keyFile, boolean json) {
    }

    /** A parsed command line: help to print, or a request to run. */
    sealed interface Parsed {
        /** {@code --help}: the command's usage text. */
        record Help(String text) implements Parsed {
        }

        /** A request with its common options. */
        record Run(Common common, ClientRequest request) implements Parsed {
        }
    }

    private static final Set<String> COMMON_WITH_VALUE = Set.of("--url", "--key-file");
    private static final Map<String, Set<String>> OPTIONS = Map.of(
            "schedule", Set.of("--channel", "--at", "--in", "--kind", "--tag", "--tz", "--every", "--count"),
            "list", Set.of("--state", "--channel", "--limit", "--cursor", "--series"),
            "get", Set.of(),
            "edit", Set.of("--at", "--in", "--tz"),
            "cancel", Set.of("--series", "--channel", "--due-after", "--due-before", "--tz"),
            "send-now", Set.of(),
            "wait", Set.of("--timeout"),
            "settings", Set.of("--notices"));
    /** Options that take no value, by command. */
    private static final Map<String, Set<String>> FLAGS = Map.of("list", Set.of("--all"));
    private static final Set<String> REPEATABLE = Set.of("--tag");

    private static final String JAR = "java -jar buzz-scheduled-delivery.jar";
    private static final Map<String, String> USAGE = Map.of(
            "schedule", """
                    usage: %s schedule --channel <h> (--at <time> | --in <delay>) [--tz <zone>]
                               [--every <step> --count <n>] [--kind 9] [--tag k=v]... <content>
                    Signs a message for the channel with the due time as its created_at and schedules it; with --every
                    and --count, signs every occurrence of a series and sends them as one batch (one series id).
                      --channel <h>   the channel: the event's h tag
                      --at <time>     Unix seconds, or RFC 3339 with an offset (2026-03-01T09:30:00Z, 2026-03-01T10:30:00+01:00),
                                      or with --tz a local time (2026-12-07 09:00)
                      --in <delay>    from now: 10s, 5m, 2h, 1d, 1h30m
                      --tz <zone>     an IANA time zone (Europe/Berlin): where --at is a local time and where a series
                                      keeps its time of day; a local time skipped by a daylight-saving change moves
                                      later by the gap (02:30 -> 03:30), one that happens twice is the first of the two
                      --every <step>  a series: 1d, 2w, 1mo (same local time in --tz, across daylight-saving
                                      changes) or 6h (elapsed hours); needs --tz and --count
                      --count <n>     how many occurrences, 1 to 100 (one batch)
                      --kind <n>      the event kind (default 9, a chat message)
                      --tag <k=v>     an extra tag ["k","v"]; repeat it for more
                      <content>       the message (words are joined with spaces; - reads it from stdin)
                    e.g. schedule --channel ops --at "2026-12-07 09:00" --tz Europe/Berlin --every 1w --count 12 stand-up""",
            "list", """
                    usage: %s list [--state s1,s2 | --all] [--channel <h>] [--series <id>] [--limit n] [--cursor c]
                    Lists your messages by due time; by default the pending ones (%2$s).
                      --state <list>  states to list, a comma list of: %3$s
                      --all           every state
                      --channel <h>   only this channel
                      --series <id>   only this series (as schedule --every printed it), then how many remain and
                                      when the last is due
                      --limit <n>     at most n (1 to 200, default 50); the next page is --cursor <next_cursor>
                      --cursor <c>    continue where the previous page ended""",
            "get", """
                    usage: %s get <id>
                    Shows one of your messages: state, due time, channel, revision, the event.""",
            "edit", """
                    usage: %s edit <id> [--at <time> | --in <delay>] [--tz <zone>] [<content>]
                    Signs the next revision of a pending message (same kind and tags) with a new due time, new
                    content, or both, and replaces the stored one (If-Match on the revision it read).
                      --at <time>     Unix seconds, or RFC 3339 with an offset, or with --tz a local time
                      --in <delay>    from now: 10s, 5m, 2h, 1d, 1h30m
                      --tz <zone>     an IANA time zone (Europe/Berlin) for a local --at
                      <content>       the new message (- reads it from stdin); left out, the content stays""",
            "cancel", """
                    usage: %s cancel <id>
                           %1$s cancel [--series <id>] [--channel <h>] [--due-after <time>] [--due-before <time>]
                    Cancels a pending message; its stored event is deleted at once (one already cancelled is
                    reported as such, exit 0). With options instead of an id, cancels every pending message of
                    yours that matches all of them, in one request, and prints how many; messages being sent right
                    now cannot be stopped and are counted apart.
                      --series <id>       the occurrences of a series (as schedule --every printed it)
                      --channel <h>       a channel's
                      --due-after <time>  due at or after this time (as --at takes it)
                      --due-before <time> due before this time
                      --tz <zone>         an IANA time zone for local due times""",
            "wait", """
                    usage: %s wait <id> [--timeout <delay>]
                    Waits until the relay has the message: exit 0 once it is published; exit 7 with the reason
                    (and the relay's words) if it failed or was cancelled; exit 8 if it is still pending when the
                    timeout ends.
                      --timeout <delay>  how long to wait: 30s, 10m, 2h (default: until 15 minutes past its due
                                         time, the sidecar's default lateness limit)""",
            "send-now", """
                    usage: %s send-now <id>
                    Makes a pending message due now. When its created_at is further ahead than the relay accepts,
                    the sidecar asks for a new signature (resign_required): the stored content is signed again with
                    created_at = now and sent instead.""",
            "settings", """
                    usage: %s settings [--notices none|failures|all]
                    Shows your settings, or changes which NIP-17 direct messages the sidecar sends you about your
                    messages: none, failures (every message that fails; the default) or all (also each publication).
                    The sidecar sends them only when its operator switched notices on (BUZZ_NOTICES).
                      --notices <choice>  none, failures or all""");

    /** The options and exit codes every client command shares, appended to each usage text. */
    static final String COMMON_USAGE = """
            common options:
              --url <url>        the sidecar's PUBLIC_BASE_URL (default: BUZZ_URL, else http://127.0.0.1:8088)
              --key-file <file>  the author's secret key, 64 hex characters or nsec1... (default: BUZZ_AUTHOR_KEY_FILE)
              --json             print the sidecar's JSON answer instead of a summary
              -h, --help         this text
            exit codes: 0 done; 1 unexpected answer (is --url the sidecar?); 2 bad command line; 4 author key missing
            or unusable; 5 refused by the sidecar (its error code and message on stderr); 6 sidecar unreachable or
            answering 503 unavailable (try again later); wait: 7 failed or cancelled, 8 timed out""";

    private ClientCommandLine() {
    }

    /** The usage text of {@code command} (one of {@link ClientCommands#NAMES}). */
    static String usage(String command) {
        return USAGE.get(command).formatted(JAR, String.join(", ", StateName.wireNames(StateName.where(
                state -> !state.terminal()))), String.join(", ", StateName.wireNames(StateName.all())))
                + "\n" + COMMON_USAGE;
    }

    /**
     * Parses {@code args} of {@code command}.
     *
     * @param stdin reads standard input, for a content of {@code -}
     * @throws ClientFailure a usage failure naming the mistake
     */
    static Parsed parse(String command, List<String> args, Supplier<String> stdin) {
        Set<String> own = OPTIONS.get(command);
        if (own == null) {
            throw new IllegalArgumentException("not a client command: " + command);
        }
        int end = args.indexOf("--");
        List<String> optionPart = end < 0 ? args : args.subList(0, end);
        if (optionPart.contains("--help") || optionPart.contains("-h")) {
            return new Parsed.Help(usage(command));
        }
        Map<String, List<String>> options = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        Set<String> flags = FLAGS.getOrDefault(command, Set.of());
        boolean json = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (i == end) {
                positional.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                positional.add(arg);
                continue;
            }
            int equals = arg.indexOf('=');
            String name = arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
            if (name.equals("--json")) {
                if (equals > 0) {
                    throw ClientFailure.usage("--json takes no value");
                }
                json = true;
                continue;
            }
            if (flags.contains(name)) {
                if (equals > 0) {
                    throw ClientFailure.usage(name + " takes no value");
                }
                options.computeIfAbsent(name, n -> new ArrayList<>()).add("");
                continue;
            }
            if (!own.contains(name) && !COMMON_WITH_VALUE.contains(name)) {
                Set<String> all = new TreeSet<>(own);
                all.addAll(flags);
                throw ClientFailure.usage("unknown option " + name + " for " + command
                        + (all.isEmpty() ? "" : "; its options are " + String.join(", ", all)));
            }
            String value;
            if (equals > 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.size() && i + 1 != end && !args.get(i + 1).startsWith("--")) {
                value = args.get(++i);
            } else {
                throw ClientFailure.usage(name + " needs a value");
            }
            List<String> values = options.computeIfAbsent(name, n -> new ArrayList<>());
            if (!values.isEmpty() && !REPEATABLE.contains(name)) {
                throw ClientFailure.usage(name + " is given twice; give it once");
            }
            values.add(value);
        }
        Common common = new Common(single(options, "--url"), single(options, "--key-file"), json);
        ClientRequest request = switch (command) {
            case "schedule" -> schedule(options, positional, stdin);
            case "list" -> list(options, positional);
            case "get" -> new ClientRequest.Get(onlyId(command, positional));
            case "edit" -> edit(options, positional, stdin);
            case "cancel" -> cancel(options, positional);
            case "send-now" -> new ClientRequest.SendNow(onlyId(command, positional));
            case "wait" -> new ClientRequest.Wait(onlyId(command, positional),
                    single(options, "--timeout").map(text -> DueTime.delay("--timeout", text)));
            case "settings" -> settings(options, positional);
            default -> throw new IllegalStateException("no parser for " + command);
        };
        return new Parsed.Run(common, request);
    }

    private static ClientRequest settings(Map<String, List<String>> options, List<String> positional) {
        if (!positional.isEmpty()) {
            throw ClientFailure.usage("settings takes no arguments, got " + String.join(" ", positional));
        }
        Optional<String> notices = single(options, "--notices");
        if (notices.isPresent() && !Set.of("none", "failures", "all").contains(notices.get())) {
            throw ClientFailure.usage("--notices takes none, failures or all; got '" + notices.get() + "'");
        }
        return new ClientRequest.Settings(notices);
    }

    private static ClientRequest schedule(Map<String, List<String>> options, List<String> positional,
                                          Supplier<String> stdin) {
        String channel = single(options, "--channel").orElseThrow(() -> ClientFailure.usage(
                "schedule needs --channel <h>: the channel the message is for"));
        if (channel.isEmpty()) {
            throw ClientFailure.usage("--channel is empty; name the channel (the h tag)");
        }
        Optional<ZoneId> zone = zone(options);
        DueTime due = due(options, zone).orElseThrow(() -> ClientFailure.usage(
                "schedule needs --at <time> or --in <delay>: when the message is due"));
        int kind = single(options, "--kind").map(ClientCommandLine::kind).orElse(9);
        List<List<String>> tags = options.getOrDefault("--tag", List.of()).stream().map(ClientCommandLine::tag).toList();
        Optional<String> every = single(options, "--every");
        Optional<String> count = single(options, "--count");
        Optional<ClientRequest.Series> series = Optional.empty();
        if (every.isPresent() || count.isPresent()) {
            if (every.isEmpty() || count.isEmpty()) {
                throw ClientFailure.usage("a series needs both --every <step> and --count <n>");
            }
            Recurrence recurrence = Recurrence.parse(every.get(), count.get());
            series = Optional.of(new ClientRequest.Series(recurrence, zone.orElseThrow(() -> ClientFailure.usage(
                    "--every needs --tz <zone> (an IANA time zone such as Europe/Berlin): the occurrences keep their"
                            + " local time of day there across daylight-saving changes"))));
        }
        if (positional.isEmpty()) {
            throw ClientFailure.usage("schedule needs the message content after the options (- reads it from stdin)");
        }
        return new ClientRequest.Schedule(channel, due, kind, tags, content(positional, stdin), series);
    }

    private static ClientRequest cancel(Map<String, List<String>> options, List<String> positional) {
        Optional<ZoneId> zone = zone(options);
        Optional<String> channel = single(options, "--channel");
        Optional<UUID> series = single(options, "--series").map(text -> id("--series", text));
        Optional<DueTime> after = single(options, "--due-after").map(text -> DueTime.at(text, zone));
        Optional<DueTime> before = single(options, "--due-before").map(text -> DueTime.at(text, zone));
        boolean selecting = channel.isPresent() || series.isPresent() || after.isPresent() || before.isPresent();
        if (!selecting) {
            if (zone.isPresent()) {
                throw ClientFailure.usage("--tz goes with --due-after or --due-before");
            }
            return new ClientRequest.Cancel(onlyId("cancel", positional));
        }
        if (!positional.isEmpty()) {
            throw ClientFailure.usage("cancel takes either one message id or --series/--channel/--due-after/"
                    + "--due-before, not both; got " + String.join(" ", positional));
        }
        if (channel.isPresent() && channel.get().isEmpty()) {
            throw ClientFailure.usage("--channel is empty; name the channel (the h tag)");
        }
        return new ClientRequest.CancelMatching(channel, series, after, before);
    }

    private static ClientRequest list(Map<String, List<String>> options, List<String> positional) {
        if (!positional.isEmpty()) {
            throw ClientFailure.usage("list takes no arguments, got " + String.join(" ", positional));
        }
        Optional<Integer> limit = single(options, "--limit").map(text -> {
            if (!text.matches("[1-9][0-9]{0,2}")) {
                throw ClientFailure.usage("--limit takes a whole number from 1 to 200, got '" + text + "'");
            }
            return Integer.parseInt(text);
        });
        Optional<String> state = single(options, "--state");
        if (options.containsKey("--all")) {
            if (state.isPresent()) {
                throw ClientFailure.usage("give --state or --all, not both");
            }
            state = Optional.of(String.join(",", StateName.wireNames(StateName.all())));
        }
        state.ifPresent(ClientCommandLine::states);
        return new ClientRequest.ListItems(state, single(options, "--channel"), limit, single(options, "--cursor"),
                single(options, "--series").map(text -> id("--series", text)));
    }

    /** Checks a {@code --state} comma list: each one a state's wire name. */
    private static void states(String list) {
        List<String> known = StateName.wireNames(StateName.all());
        for (String name : list.split(",", -1)) {
            if (!known.contains(name)) {
                throw ClientFailure.usage("--state takes a comma list of " + String.join(", ", known)
                        + " (or --all for every state); '" + name + "' is not a state");
            }
        }
    }

    private static ClientRequest edit(Map<String, List<String>> options, List<String> positional,
                                      Supplier<String> stdin) {
        if (positional.isEmpty()) {
            throw ClientFailure.usage("edit needs the message id (as schedule and list print it)");
        }
        UUID id = id(positional.get(0));
        List<String> words = positional.subList(1, positional.size());
        Optional<DueTime> due = due(options, zone(options));
        Optional<String> content = words.isEmpty() ? Optional.empty() : Optional.of(content(words, stdin));
        if (due.isEmpty() && content.isEmpty()) {
            throw ClientFailure.usage("edit needs a new due time (--at or --in), new content, or both");
        }
        return new ClientRequest.Edit(id, due, content);
    }

    private static Optional<DueTime> due(Map<String, List<String>> options, Optional<ZoneId> zone) {
        Optional<String> at = single(options, "--at");
        Optional<String> in = single(options, "--in");
        if (at.isPresent() && in.isPresent()) {
            throw ClientFailure.usage("give --at or --in, not both");
        }
        return at.map(text -> DueTime.at(text, zone)).or(() -> in.map(DueTime::in));
    }

    /** {@code --tz}: an IANA time zone id such as {@code Europe/Berlin} (or {@code UTC}). */
    private static Optional<ZoneId> zone(Map<String, List<String>> options) {
        return single(options, "--tz").map(text -> {
            try {
                return ZoneId.of(text.strip());
            } catch (DateTimeException e) {
                throw ClientFailure.usage("--tz takes an IANA time zone such as Europe/Berlin or America/New_York;"
                        + " got '" + text + "'");
            }
        });
    }

    private static int kind(String text) {
        if (!text.matches("[0-9]{1,5}") || Integer.parseInt(text) > 65_535) {
            throw ClientFailure.usage("--kind takes an event kind from 0 to 65535, got '" + text + "'");
        }
        return Integer.parseInt(text);
    }

    private static List<String> tag(String text) {
        int equals = text.indexOf('=');
        if (equals <= 0) {
            throw ClientFailure.usage("--tag takes name=value, e.g. --tag subject=hello; got '" + text + "'");
        }
        String name = text.substring(0, equals);
        if (name.equals("h")) {
            throw ClientFailure.usage("--tag h=... is not allowed: the channel is --channel (one h tag per message)");
        }
        return List.of(name, text.substring(equals + 1));
    }

    private static UUID onlyId(String command, List<String> positional) {
        if (positional.size() != 1) {
            throw ClientFailure.usage(command + " takes one message id, got "
                    + (positional.isEmpty() ? "none" : positional.size() + ": " + String.join(" ", positional)));
        }
        return id(positional.get(0));
    }

    private static UUID id(String option, String text) {
        if (!text.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            throw ClientFailure.usage(option + " takes a series id (a UUID, as schedule --every printed it); got '"
                    + text + "'");
        }
        return UUID.fromString(text.toLowerCase(Locale.ROOT));
    }

    private static UUID id(String text) {
        if (!text.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            throw ClientFailure.usage("'" + text + "' is not a message id (a UUID such as"
                    + " 0190f3c2-7d4e-7a51-9b3c-2f1e8d7c6b5a, as schedule and list print it)");
        }
        return UUID.fromString(text.toLowerCase(Locale.ROOT));
    }

    private static String content(List<String> words, Supplier<String> stdin) {
        if (words.equals(List.of("-"))) {
            String text = stdin.get();
            return text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                    : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        }
        return String.join(" ", words);
    }

    private static Optional<String> single(Map<String, List<String>> options, String name) {
        List<String> values = options.get(name);
        return values == null ? Optional.empty() : Optional.of(values.get(0));
    }

}
