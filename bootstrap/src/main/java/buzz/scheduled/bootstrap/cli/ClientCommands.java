package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.NostrEvent;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The client subcommands of the jar — {@code schedule}, {@code list}, {@code get}, {@code edit}, {@code cancel},
 * {@code send-now}, {@code wait} — which talk to a running sidecar's owner API (docs/openapi.yaml) as the author:
 * each event and each NIP-98 header is signed with the author's key ({@code --key-file} or
 * {@code BUZZ_AUTHOR_KEY_FILE}) by the project's BIP-340 signer. A series ({@code schedule --every --count}) is
 * every occurrence signed ahead and sent as one batch; {@code cancel} with options is the bulk cancel. Output is a short summary, or with {@code --json} the
 * API's JSON answer as it came (a series with refused occurrences still exits {@value #EXIT_REFUSED}). What is sent
 * is made by {@link RequestBodies}, what is printed by {@link AnswerSummary}; {@code wait} is {@link WaitCommand}.
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

    /** The owner API's collection of scheduled messages. */
    static final String COLLECTION = "/v1/scheduled-messages";
    private static final String SETTINGS = "/v1/owner/settings";
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
                out.println(json ? answer.text() : AnswerSummary.summary(run.request(), answer, clock));
                if (!json && run.request() instanceof ClientRequest.ListItems list && list.series().isPresent()) {
                    out.println(AnswerSummary.seriesLine(api, list.series().get(), clock));
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
                    yield api.send("POST", COLLECTION + "/batch", RequestBodies.seriesBatch(schedule, tags, signer, clock),
                            Map.of())
                            .requireSuccess();
                }
                NostrEvent event = signer.sign(schedule.due().epochSeconds(clock.instant()), schedule.kind(), tags,
                        schedule.content());
                yield api.send("POST", COLLECTION, RequestBodies.envelope(event), Map.of()).requireSuccess();
            }
            case ClientRequest.CancelMatching cancel -> api.send("POST", COLLECTION + "/cancel",
                    RequestBodies.selection(cancel, clock), Map.of()).requireSuccess();
            case ClientRequest.ListItems list -> api.get(COLLECTION + RequestBodies.query(list)).requireSuccess();
            case ClientRequest.Get get -> api.get(item(get.id().toString())).requireSuccess();
            case ClientRequest.Edit edit -> {
                SidecarApi.Answer current = api.get(item(edit.id().toString())).requireSuccess();
                NostrEvent revision = RequestBodies.nextRevision(signer, current.body(), edit, clock);
                String ifMatch = current.etag().orElse("\"" + current.body().path("revision").asText() + "\"");
                yield api.send("PUT", item(edit.id().toString()), RequestBodies.envelope(revision),
                        Map.of("If-Match", ifMatch))
                        .requireSuccess();
            }
            case ClientRequest.Cancel cancel -> {
                // Cancelling a cancelled message answers it again (200): read it first to say "already cancelled".
                SidecarApi.Answer current = api.get(item(cancel.id().toString())).requireSuccess();
                yield "cancelled".equals(current.body().path("state").asText()) ? current
                        : api.send("DELETE", item(cancel.id().toString()), new byte[0], Map.of()).requireSuccess();
            }
            case ClientRequest.Wait wait -> WaitCommand.awaitEnd(api, wait, clock);
            case ClientRequest.SendNow sendNow -> {
                String path = item(sendNow.id().toString()) + "/send-now";
                SidecarApi.Answer answer = api.send("POST", path, new byte[0], Map.of());
                if (answer.status() == 409 && answer.error().equals(Optional.of("resign_required"))) {
                    JsonNode stored = api.get(item(sendNow.id().toString())).requireSuccess().body();
                    NostrEvent now = RequestBodies.resign(signer, stored, clock.instant().getEpochSecond());
                    err.println("send-now: the stored event is due further ahead than the relay accepts;"
                            + " signed it again with created_at " + now.createdAt() + " (event " + now.id() + ")");
                    answer = api.send("POST", path, RequestBodies.envelope(now), Map.of());
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

    /** The path of one message. */
    static String item(String id) {
        return COLLECTION + "/" + id;
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
