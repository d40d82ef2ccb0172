package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import buzz.scheduled.domain.schedule.StateName;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;

/**
 * The client subcommands of the jar — {@code schedule}, {@code list}, {@code get}, {@code edit}, {@code cancel},
 * {@code send-now}, {@code wait} — which talk to a running sidecar's owner API (docs/openapi.yaml) as the author: each event and
 * each NIP-98 header is signed with the author's key ({@code --key-file} or {@code BUZZ_AUTHOR_KEY_FILE}) by the
 * project's BIP-340 signer. A series ({@code schedule --every --count}) is every occurrence signed ahead and sent as
 * one batch; {@code cancel} with options is the bulk cancel. Output is a short summary, or with {@code --json} the
 * API's JSON answer as it came (a series with refused occurrences still exits {@value #EXIT_REFUSED}).
 *
 * <p>Exit codes, for scripts: {@value #EXIT_OK} done; {@value #EXIT_FAILED} an answer that is not the API's (or an
 * unexpected failure); {@value #EXIT_USAGE} bad command line; {@value #EXIT_KEY} the author's key is missing or
 * unusable; {@value #EXIT_REFUSED} the sidecar refused (its error code and message on stderr, its JSON on stdout with
 * {@code --json}); {@value #EXIT_UNREACHABLE} the sidecar could not be reached, did not answer in time or answered
 * {@code 503 unavailable} — trying again later may succeed; {@code wait}: {@value #EXIT_NOT_DELIVERED} the message
 * failed or was cancelled, {@value #EXIT_TIMED_OUT} it was still pending when the timeout ended.
 */
public final class ClientCommands {

    /** Done. */
    public static final int EXIT_OK = 0;
    /** The sidecar's answer was not the API's, or something unexpected failed. */
    public static final int EXIT_FAILED = 1;
    /** Bad command line (the same code as the jar's other commands). */
    public static final int EXIT_USAGE = 2;
    /** The author's key is missing, unreadable, open to other users or not a key. */
    public static final int EXIT_KEY = 4;
    /** The sidecar refused the request with {@code {"error","message"}}. */
    public static final int EXIT_REFUSED = 5;
    /** The sidecar could not be reached, did not answer in time, or answered {@code 503 unavailable}. */
    public static final int EXIT_UNREACHABLE = 6;

    /** {@code wait}: the message ended {@code failed} or {@code cancelled}; the relay will not get it. */
    public static final int EXIT_NOT_DELIVERED = 7;
    /** {@code wait}: the message was still pending when the timeout ended. */
    public static final int EXIT_TIMED_OUT = 8;

    /** The subcommands handled here. */
    public static final Set<String> NAMES = Set.of("schedule", "list", "get", "edit", "cancel", "send-now", "wait",
            "settings");
    /** How long past its due time {@code wait} waits by default: the sidecar's default lateness limit. */
    static final Duration WAIT_PAST_DUE = Duration.ofMinutes(15);
    /** The sidecar's URL when {@code --url} is not given. */
    public static final String BUZZ_URL = "BUZZ_URL";
    /** The author's key file when {@code --key-file} is not given. */
    public static final String BUZZ_AUTHOR_KEY_FILE = "BUZZ_AUTHOR_KEY_FILE";
    /** The environment variables the client commands read. */
    public static final Set<String> VARIABLES = Set.of(BUZZ_URL, BUZZ_AUTHOR_KEY_FILE);
    /** The URL used when neither {@code --url} nor {@code BUZZ_URL} is set: the sidecar's default listen address. */
    public static final String DEFAULT_URL = "http://127.0.0.1:8088";
    /** The client commands' part of the jar's usage text. */
    public static final String SUMMARY = """
            client commands (talk to a running sidecar as the author; <command> --help for each):
              schedule --channel <h> (--at <time> | --in <delay>) [--tz <zone>] [--every <step> --count <n>]
                       [--kind 9] [--tag k=v]... <content>
              list [--state s1,s2 | --all] [--channel <h>] [--series <id>] [--limit n] [--cursor c]
              get <id>
              edit <id> [--at <time> | --in <delay>] [--tz <zone>] [<content>]
              cancel <id> | cancel [--series <id>] [--channel <h>] [--due-after <time>] [--due-before <time>]
              send-now <id>
              wait <id> [--timeout <delay>]   until published (exit 0), failed or cancelled (7), timed out (8)
              settings [--notices none|failures|all]
              common: --url <url> (or BUZZ_URL), --key-file <file> (or BUZZ_AUTHOR_KEY_FILE), --json""";

    private static final String COLLECTION = "/v1/scheduled-messages";
    private static final String SETTINGS = "/v1/owner/settings";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An occurrence's local time in its series' zone: {@code Mon 2026-12-07 09:00 CET}. */
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm zzz", Locale.ROOT);
    /** The longest pause between two reads of {@code wait}. */
    private static final Duration LONGEST_POLL = Duration.ofSeconds(15);

    private final Map<String, String> environment;
    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param environment where {@code BUZZ_URL} and {@code BUZZ_AUTHOR_KEY_FILE} are read
     * @param in          standard input, read for a content of {@code -}
     * @param out         summaries, or the API's JSON with {@code --json}
     * @param err         refusals, failures and usage mistakes
     * @param clock       the time events and NIP-98 headers are signed at, and {@code --in} counts from
     */
    public ClientCommands(Map<String, String> environment, InputStream in, PrintStream out, PrintStream err,
                          InstantSource clock) {
        this.environment = Map.copyOf(environment);
        this.in = in;
        this.out = out;
        this.err = err;
        this.clock = clock;
    }

    /**
     * Runs {@code command} (one of {@link #NAMES}) with {@code args}.
     *
     * @return the exit code, one of the {@code EXIT_*} constants
     */
    public int run(String command, List<String> args) {
        boolean json = false;
        try {
            ClientCommandLine.Parsed parsed = ClientCommandLine.parse(command, args, this::readStandardInput);
            if (parsed instanceof ClientCommandLine.Parsed.Help help) {
                out.println(help.text());
                return EXIT_OK;
            }
            ClientCommandLine.Parsed.Run run = (ClientCommandLine.Parsed.Run) parsed;
            json = run.common().json();
            String base = baseUrl(run.common().url().or(() -> variable(BUZZ_URL)).orElse(DEFAULT_URL));
            SecretKey key = AuthorKey.read(keyFile(run.common().keyFile()));
            Bip340Signer signer = new Bip340Signer(key, random);
            try (SidecarApi api = new SidecarApi(base, new Nip98Authorization(signer, random), clock)) {
                SidecarApi.Answer answer = perform(run.request(), api, signer);
                out.println(json ? answer.text() : summary(run.request(), answer));
                if (!json && run.request() instanceof ClientRequest.ListItems list && list.series().isPresent()) {
                    out.println(seriesLine(api, list.series().get()));
                }
                return refusedItems(command, answer);
            }
        } catch (ClientFailure failure) {
            if (json) {
                failure.answerJson().ifPresent(out::println);
            }
            err.println(command + ": " + failure.getMessage());
            if (failure.exitCode() == EXIT_USAGE) {
                err.println("see: java -jar buzz-scheduled-delivery.jar " + command + " --help");
            }
            return failure.exitCode();
        } catch (IllegalArgumentException e) {
            // The signer refuses an event NIP-01 does not allow (e.g. a lone surrogate in the content).
            err.println(command + ": cannot make the event: " + e.getMessage());
            return EXIT_USAGE;
        } catch (UncheckedIOException e) {
            err.println(command + ": " + e.getMessage() + ": " + e.getCause().getMessage());
            return EXIT_FAILED;
        }
    }

    private SidecarApi.Answer perform(ClientRequest request, SidecarApi api, Bip340Signer signer) {
        return switch (request) {
            case ClientRequest.Schedule schedule -> {
                List<List<String>> tags = new ArrayList<>();
                tags.add(List.of("h", schedule.channel()));
                tags.addAll(schedule.tags());
                if (schedule.series().isPresent()) {
                    yield api.send("POST", COLLECTION + "/batch", seriesBatch(schedule, tags, signer), Map.of())
                            .requireSuccess();
                }
                NostrEvent event = signer.sign(schedule.due().epochSeconds(clock.instant()), schedule.kind(), tags,
                        schedule.content());
                yield api.send("POST", COLLECTION, envelope(event), Map.of()).requireSuccess();
            }
            case ClientRequest.CancelMatching cancel -> api.send("POST", COLLECTION + "/cancel", selection(cancel),
                    Map.of()).requireSuccess();
            case ClientRequest.ListItems list -> api.get(COLLECTION + query(list)).requireSuccess();
            case ClientRequest.Get get -> api.get(item(get.id().toString())).requireSuccess();
            case ClientRequest.Edit edit -> {
                SidecarApi.Answer current = api.get(item(edit.id().toString())).requireSuccess();
                NostrEvent revision = nextRevision(signer, current.body(), edit);
                String ifMatch = current.etag().orElse("\"" + current.body().path("revision").asText() + "\"");
                yield api.send("PUT", item(edit.id().toString()), envelope(revision), Map.of("If-Match", ifMatch))
                        .requireSuccess();
            }
            case ClientRequest.Cancel cancel -> {
                // Cancelling a cancelled message answers it again (200): read it first to say "already cancelled".
                SidecarApi.Answer current = api.get(item(cancel.id().toString())).requireSuccess();
                yield "cancelled".equals(current.body().path("state").asText()) ? current
                        : api.send("DELETE", item(cancel.id().toString()), new byte[0], Map.of()).requireSuccess();
            }
            case ClientRequest.Wait wait -> awaitEnd(api, wait);
            case ClientRequest.SendNow sendNow -> {
                String path = item(sendNow.id().toString()) + "/send-now";
                SidecarApi.Answer answer = api.send("POST", path, new byte[0], Map.of());
                if (answer.status() == 409 && answer.error().equals(Optional.of("resign_required"))) {
                    JsonNode stored = api.get(item(sendNow.id().toString())).requireSuccess().body();
                    NostrEvent now = resign(signer, stored, clock.instant().getEpochSecond());
                    err.println("send-now: the stored event is due further ahead than the relay accepts;"
                            + " signed it again with created_at " + now.createdAt() + " (event " + now.id() + ")");
                    answer = api.send("POST", path, envelope(now), Map.of());
                }
                yield answer.requireSuccess();
            }
            case ClientRequest.Settings settings -> settings.notices()
                    .map(choice -> api.send("PUT", SETTINGS, ("{\"notices\":\"" + choice + "\"}")
                            .getBytes(StandardCharsets.UTF_8), Map.of()))
                    .orElseGet(() -> api.get(SETTINGS)).requireSuccess();
        };
    }

    /**
     * The batch of a series: every occurrence signed, each with the schedule's kind, tags and content, as
     * {@code {"events":[…],"series":true}}.
     */
    private byte[] seriesBatch(ClientRequest.Schedule schedule, List<List<String>> tags, Bip340Signer signer) {
        ClientRequest.Series series = schedule.series().orElseThrow();
        List<Instant> occurrences = series.recurrence().occurrences(schedule.due().local(series.zone(),
                clock.instant()), series.zone());
        StringJoiner events = new StringJoiner(",", "{\"events\":[", "],\"series\":true}");
        for (Instant at : occurrences) {
            events.add(NostrEventJson.write(signer.sign(at.getEpochSecond(), schedule.kind(), tags,
                    schedule.content())));
        }
        return events.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The bulk cancel's body: the parts of the selection given, due bounds in Unix seconds. */
    private byte[] selection(ClientRequest.CancelMatching cancel) {
        Instant now = clock.instant();
        Map<String, Object> body = new LinkedHashMap<>();
        cancel.channel().ifPresent(channel -> body.put("channel", channel));
        cancel.series().ifPresent(series -> body.put("series", series.toString()));
        cancel.dueAfter().ifPresent(due -> body.put("due_after", due.epochSeconds(now)));
        cancel.dueBefore().ifPresent(due -> body.put("due_before", due.epochSeconds(now)));
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a selection of strings and numbers is always JSON", e);
        }
    }

    /**
     * The exit code of an answer the API gave with success: {@link #EXIT_OK}, or {@link #EXIT_REFUSED} when it is a
     * batch with refused items (each then named on stderr).
     */
    private int refusedItems(String command, SidecarApi.Answer answer) {
        JsonNode results = answer.body().path("results");
        int refused = 0;
        for (int i = 0; i < results.size(); i++) {
            JsonNode result = results.get(i);
            if (result.path("status").asInt() >= 300) {
                refused++;
                err.println(command + ": occurrence " + (i + 1) + " refused: HTTP " + result.path("status").asInt() + " "
                        + result.path("error").asText() + ": " + result.path("message").asText());
            }
        }
        return refused == 0 ? EXIT_OK : EXIT_REFUSED;
    }

    /** How a series stands, from {@code GET /v1/scheduled-messages/series/{id}}. */
    private String seriesLine(SidecarApi api, UUID series) {
        SidecarApi.Answer answer = api.get(COLLECTION + "/series/" + series);
        if (answer.status() == 404) {
            return "series " + series + ": none of its messages is stored";
        }
        JsonNode summary = answer.requireSuccess().body();
        Instant now = clock.instant();
        return "series " + series + ": " + summary.path("pending").asInt() + " of " + summary.path("total").asInt()
                + " pending" + (summary.path("pending").asInt() > 0 ? ", next due "
                + ItemText.time(summary.path("next_due_at"), now) + ", last due "
                + ItemText.time(summary.path("last_due_at"), now) : "");
    }

    /**
     * {@code wait}: reads the message until it ends or the timeout passes, sooner while it is due or nearly due and
     * less often while its due time is far (at most every {@link #LONGEST_POLL}).
     *
     * @return the published item
     * @throws ClientFailure {@link #EXIT_NOT_DELIVERED} with the reason and the relay's words when it failed or was
     *                       cancelled, {@link #EXIT_TIMED_OUT} when the timeout ended first
     */
    private SidecarApi.Answer awaitEnd(SidecarApi api, ClientRequest.Wait wait) {
        String path = item(wait.id().toString());
        long started = System.nanoTime();
        SidecarApi.Answer answer = api.get(path).requireSuccess();
        Duration untilDue = Duration.ofSeconds(answer.body().path("due_at").asLong()
                - clock.instant().getEpochSecond());
        Duration timeout = wait.timeout().orElse((untilDue.isNegative() ? Duration.ZERO : untilDue)
                .plus(WAIT_PAST_DUE));
        while (true) {
            JsonNode item = answer.body();
            String state = item.path("state").asText();
            switch (state) {
                case "published" -> {
                    return answer;
                }
                case "failed", "cancelled" -> throw new ClientFailure(EXIT_NOT_DELIVERED, wait.id() + " "
                        + state + (item.path("reason").isTextual() ? " " + item.get("reason").asText() : "")
                        + relayWords(api, path, item).map(words -> " (relay: " + words + ")").orElse("")
                        + "; the relay will not get it", Optional.of(answer.text()));
                default -> {
                }
            }
            Duration left = timeout.minusNanos(System.nanoTime() - started);
            if (left.isNegative() || left.isZero()) {
                throw new ClientFailure(EXIT_TIMED_OUT, wait.id() + " is still " + state + " after "
                        + ItemText.span(timeout) + " (due " + ItemText.time(item.path("due_at"), clock.instant())
                        + ")", Optional.of(answer.text()));
            }
            long dueIn = item.path("due_at").asLong() - clock.instant().getEpochSecond();
            Duration pause = Duration.ofSeconds(Math.clamp(dueIn / 2, 1, LONGEST_POLL.toSeconds()));
            try {
                Thread.sleep(pause.compareTo(left) < 0 ? pause : left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClientFailure(EXIT_FAILED, "interrupted while waiting for " + wait.id());
            }
            answer = api.get(path).requireSuccess();
        }
    }

    /**
     * The relay's words on the message's last failed or retried attempt: the item's {@code last_error}, else the
     * last {@code relay_message} of {@code GET …/attempts} (docs/openapi.yaml); empty when neither has any.
     */
    private static Optional<String> relayWords(SidecarApi api, String path, JsonNode item) {
        if (item.path("last_error").isTextual() && !item.get("last_error").asText().isEmpty()) {
            return Optional.of(item.get("last_error").asText());
        }
        try {
            SidecarApi.Answer attempts = api.get(path + "/attempts");
            JsonNode list = attempts.status() == 200 ? JSON.readTree(attempts.text()) : null;
            JsonNode entries = list != null && list.isObject() ? list.path("attempts") : list;
            if (entries == null || !entries.isArray()) {
                return Optional.empty();
            }
            for (int i = entries.size() - 1; i >= 0; i--) {
                JsonNode words = entries.get(i).path("relay_message");
                if (words.isTextual() && !words.asText().isEmpty()) {
                    return Optional.of(words.asText());
                }
            }
            return Optional.empty();
        } catch (ClientFailure | IOException e) {
            // The words are a courtesy; the outcome is already known.
            return Optional.empty();
        }
    }

    /** The next revision: the stored event's kind and tags, with the new due time and/or content. */
    private NostrEvent nextRevision(Bip340Signer signer, JsonNode item, ClientRequest.Edit edit) {
        JsonNode event = item.path("event");
        long createdAt = edit.due().map(due -> due.epochSeconds(clock.instant()))
                .orElse(event.path("created_at").asLong(item.path("due_at").asLong()));
        String content = edit.content().orElse(event.path("content").asText(""));
        return signer.sign(createdAt, event.path("kind").asInt(9), storedTags(item), content);
    }

    /** The stored event signed again for {@code createdAt} (send-now after {@code resign_required}). */
    private static NostrEvent resign(Bip340Signer signer, JsonNode item, long createdAt) {
        JsonNode event = item.path("event");
        return signer.sign(createdAt, event.path("kind").asInt(9), storedTags(item), event.path("content").asText(""));
    }

    /**
     * The stored event's tags, or just the {@code h} tag when the event is gone (a terminal message: the sidecar
     * then answers the edit with its own refusal).
     */
    private static List<List<String>> storedTags(JsonNode item) {
        JsonNode tags = item.path("event").path("tags");
        if (!tags.isArray()) {
            return List.of(List.of("h", item.path("channel").asText()));
        }
        List<List<String>> result = new ArrayList<>();
        for (JsonNode tag : tags) {
            List<String> values = new ArrayList<>();
            tag.forEach(value -> values.add(value.asText()));
            result.add(values);
        }
        return result;
    }

    private String summary(ClientRequest request, SidecarApi.Answer answer) {
        Instant now = clock.instant();
        JsonNode body = answer.body();
        return switch (request) {
            case ClientRequest.Schedule schedule when schedule.series().isPresent() ->
                    seriesSummary(schedule.series().get(), body, now);
            case ClientRequest.Schedule schedule -> "scheduled " + ItemText.line(body, now);
            case ClientRequest.CancelMatching cancel -> {
                int sending = body.path("sending").asInt();
                yield "cancelled " + body.path("cancelled").asInt() + " pending message"
                        + (body.path("cancelled").asInt() == 1 ? "" : "s") + (sending == 0 ? "" : "; " + sending
                        + " being sent right now could not be stopped");
            }
            case ClientRequest.ListItems list -> {
                StringJoiner lines = new StringJoiner("\n");
                String which = list.state().map(states -> states.equals(String.join(",",
                                StateName.wireNames(StateName.all()))) ? "messages in any state"
                                : "messages in state " + states.replace(",", ", "))
                        .orElse("pending messages (" + String.join(", ", StateName.wireNames(
                                StateName.where(state -> !state.terminal()))) + ")")
                        + list.channel().map(channel -> " in channel " + channel).orElse("");
                if (body.path("items").isEmpty()) {
                    lines.add("no " + which + (list.state().isEmpty() ? "; list --all shows every state" : ""));
                } else {
                    lines.add(which + ", by due time:");
                }
                body.path("items").forEach(item -> lines.add(ItemText.line(item, now)));
                if (body.path("next_cursor").isTextual()) {
                    lines.add("more: list --cursor " + body.get("next_cursor").asText());
                }
                yield lines.toString();
            }
            case ClientRequest.Get get -> ItemText.details(body, now);
            case ClientRequest.Edit edit -> "edited " + ItemText.line(body, now);
            case ClientRequest.Cancel cancel -> (answer.method().equals("GET") ? "already cancelled "
                    : "cancelled ") + ItemText.line(body, now);
            case ClientRequest.SendNow sendNow -> "sending now " + ItemText.line(body, now);
            case ClientRequest.Wait wait -> "published " + ItemText.line(body, now)
                    + (body.path("published_at").isNumber() ? "  at " + ItemText.time(body.get("published_at"), now)
                    : "");
            case ClientRequest.Settings settings -> "notices: " + body.path("notices").asText()
                    + (body.path("notices_enabled").asBoolean() ? "" : " (this sidecar sends no notices: its operator"
                    + " has not switched them on)");
        };
    }

    /**
     * A series batch's answer: its id and how many were scheduled, then each occurrence with its local time in the
     * series' zone, or its refusal.
     */
    private static String seriesSummary(ClientRequest.Series series, JsonNode body, Instant now) {
        JsonNode results = body.path("results");
        long scheduled = 0;
        StringJoiner lines = new StringJoiner("\n");
        for (int i = 0; i < results.size(); i++) {
            JsonNode result = results.get(i);
            if (result.has("item")) {
                scheduled++;
                JsonNode item = result.get("item");
                lines.add("  " + ItemText.line(item, now) + "  " + LOCAL.format(Instant.ofEpochSecond(
                        item.path("due_at").asLong()).atZone(series.zone())));
            } else {
                lines.add("  occurrence " + (i + 1) + " refused: " + result.path("error").asText() + ": "
                        + result.path("message").asText());
            }
        }
        String id = body.path("series_id").isTextual() ? body.get("series_id").asText() : "(none)";
        return "series " + id + ": " + scheduled + " of " + results.size() + " scheduled, every "
                + series.recurrence().step() + " in " + series.zone() + "\n" + lines;
    }

    private static byte[] envelope(NostrEvent event) {
        return ("{\"event\":" + NostrEventJson.write(event) + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static String item(String id) {
        return COLLECTION + "/" + id;
    }

    private static String query(ClientRequest.ListItems list) {
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        list.state().ifPresent(value -> query.add("state=" + encode(value)));
        list.channel().ifPresent(value -> query.add("channel=" + encode(value)));
        list.limit().ifPresent(value -> query.add("limit=" + value));
        list.cursor().ifPresent(value -> query.add("cursor=" + encode(value)));
        list.series().ifPresent(value -> query.add("series=" + value));
        return query.toString();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%2C", ",");
    }

    /** {@code text} as an absolute http(s) base URL without a trailing slash. */
    private static String baseUrl(String text) {
        String expected = "--url (or " + BUZZ_URL + ") must be the sidecar's absolute http(s) URL, e.g. "
                + DEFAULT_URL + "; got '" + text + "'";
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw ClientFailure.usage(expected + " (" + e.getMessage() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw ClientFailure.usage(expected);
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw ClientFailure.usage("--url (or " + BUZZ_URL + ") must not have a ?query or #fragment; got '"
                    + text + "'");
        }
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }

    private Path keyFile(Optional<String> option) {
        String file = option.or(() -> variable(BUZZ_AUTHOR_KEY_FILE)).orElseThrow(() -> ClientFailure.key(
                "no author key: pass --key-file <file> or set " + BUZZ_AUTHOR_KEY_FILE + " (the file holds the"
                        + " secret key as 64 hex characters or nsec1...)"));
        try {
            return Path.of(file);
        } catch (InvalidPathException e) {
            throw ClientFailure.key("key file '" + file + "' is not a path: " + e.getMessage());
        }
    }

    private Optional<String> variable(String name) {
        return Optional.ofNullable(environment.get(name)).map(String::strip).filter(value -> !value.isEmpty());
    }

    private String readStandardInput() {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the content from standard input", e);
        }
    }
}
