package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.AuthenticationResult;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who may call an owner or an operator route, checked in this order: the feature flag (owner routes only,
 * {@code 404 feature_disabled}), a declared body length over the cap ({@code 413 too_large}, nothing read), the
 * NIP-98 header alone — method, public URL, time window, signature — ({@code 401 unauthorized} with
 * {@code WWW-Authenticate: Nostr}, the body left unread), the database's last known status ({@code 503 unavailable}
 * at once while it is down), then the body, read up to the cap ({@code 413}, see {@link BodyCap}), its
 * {@code payload} hash and the replay guard ({@code 401}) and, for operator routes, the pubkey's place in
 * {@code RELAY_OPERATOR_PUBKEYS} ({@code 403 forbidden}). So nothing large is read from a caller who cannot sign.
 * A route that needs its body signed (the batch) refuses a header without a {@code payload} tag ({@code 401}) right
 * after the header checks.
 * A caller let through is copied out of the exchange as an {@link OwnerRequest} or {@link OperatorRequest}, so its
 * route can run on another thread. The request's deadline ({@link HttpSettings#requestTimeout()}) starts as its checks
 * begin, the time its body took to arrive added: the header check, the replay guard (which asks the database) and
 * then the route share it, so a pool that cannot lend a connection answers {@code 503} within one request timeout,
 * not one for the guard and another for the route.
 */
final class RequestAuthentication {
    private final HttpSettings settings;
    private final AuthenticateRequestUseCase authentication;
    private final OperatorAccess operators;
    private final BodyCap bodyCap;
    private final DeadlineRunner deadline;
    private volatile Optional<DatabaseStatusUseCase> database = Optional.empty();

    RequestAuthentication(HttpSettings settings, AuthenticateRequestUseCase authentication, OperatorAccess operators,
                          BodyCap bodyCap, DeadlineRunner deadline) {
        this.deadline = deadline;
        this.settings = settings;
        this.authentication = authentication;
        this.operators = operators;
        this.bodyCap = bodyCap;
    }

    /** What a check gave: the request to hand its route, or the answer that refuses it. */
    sealed interface Checked<R> {
        /**
         * Let through.
         *
         * @param deadline when the request's time is up, on {@link System#nanoTime()}: its route gets what is left
         */
        record Allowed<R>(R request, long deadline) implements Checked<R> {
        }

        /** Refused with {@code problem}; the route is not called. */
        record Refused<R>(Answer.Problem problem) implements Checked<R> {
        }
    }

    /** Refuses callers at once while {@code status} says the database is down. */
    void reportDatabase(DatabaseStatusUseCase status) {
        this.database = Optional.of(status);
    }

    /**
     * Checks a call of an owner route.
     *
     * @param payloadRequired whether the NIP-98 header must carry a {@code payload} tag; one without is refused
     *                        before the body is read
     */
    Checked<OwnerRequest> owner(Context ctx, boolean payloadRequired) {
        if (!settings.scheduledMessages()) {
            return new Checked.Refused<>(new Answer.Problem(404, "feature_disabled",
                    "scheduled messages are switched off on this server (BUZZ_SCHEDULED_MESSAGES)"));
        }
        return switch (authenticate(ctx, payloadRequired)) {
            case Checked.Refused<Caller> refused -> new Checked.Refused<>(refused.problem());
            case Checked.Allowed<Caller> allowed -> new Checked.Allowed<>(new OwnerRequest(allowed.request().result()
                    .pubkey(), Map.copyOf(ctx.pathParamMap()), queryParameters(ctx), headers(ctx),
                    allowed.request().body()), allowed.deadline());
        };
    }

    /** Checks a call of an operator route; answered whatever the feature flag says. */
    Checked<OperatorRequest> operator(Context ctx) {
        return switch (authenticate(ctx, false)) {
            case Checked.Refused<Caller> refused -> new Checked.Refused<>(refused.problem());
            case Checked.Allowed<Caller> allowed -> {
                AuthenticationResult.Authenticated caller = allowed.request().result();
                if (!operators.isOperator(caller.pubkey()) || operators.useCases().isEmpty()) {
                    yield new Checked.Refused<>(new Answer.Problem(403, "forbidden", "pubkey "
                            + caller.pubkey().hex() + " is not an operator of this sidecar (RELAY_OPERATOR_PUBKEYS)"));
                }
                yield new Checked.Allowed<>(new OperatorRequest(caller.pubkey(), Map.copyOf(ctx.pathParamMap()),
                        queryParameters(ctx), headers(ctx), allowed.request().body()), allowed.deadline());
            }
        };
    }

    /** An authenticated caller and the body its signature covers. */
    private record Caller(AuthenticationResult.Authenticated result, byte[] body) {
    }

    private Checked<Caller> authenticate(Context ctx, boolean payloadRequired) {
        long begun = System.nanoTime();
        long declared = ctx.req().getContentLengthLong();
        if (declared > settings.maxBodyBytes()) {
            return new Checked.Refused<>(bodyCap.tooLarge(declared));
        }
        String query = ctx.queryString();
        String url = settings.publicBaseUrl() + ctx.req().getRequestURI() + (query == null ? "" : "?" + query);
        AuthenticateRequestUseCase.HeaderCheck.Verified header;
        switch (authentication.checkHeader(ctx.req().getMethod(), url, ctx.header("Authorization"))) {
            case AuthenticateRequestUseCase.HeaderCheck.Refused refused -> {
                return unauthorized(refused.message());
            }
            case AuthenticateRequestUseCase.HeaderCheck.Verified verified -> header = verified;
        }
        if (payloadRequired && header.event().tagValues("payload").isEmpty()) {
            return unauthorized("this route needs a payload tag (the hex SHA-256 of the whole request body), so that"
                    + " the one signature covers every event in it");
        }
        Optional<String> down = databaseDown();
        if (down.isPresent()) {
            return new Checked.Refused<>(Answer.Problem.unavailable(down.get(), settings.retryAfter().toSeconds()));
        }
        // Only now, for a caller whose signed header checks out, is the body read (up to the cap).
        byte[] body;
        long reading = System.nanoTime();
        switch (bodyCap.read(ctx)) {
            case BodyCap.Read.TooLarge tooLarge -> {
                return new Checked.Refused<>(tooLarge.problem());
            }
            case BodyCap.Read.Bytes bytes -> body = bytes.body();
        }
        // The request's own work and waits count against its deadline; the client's upload does not (it has the body
        // timeout of its own).
        long until = begun + settings.requestTimeout().toNanos() + (System.nanoTime() - reading);
        return switch (deadline.within(() -> authentication.checkBody(header, body), until)) {
            case DeadlineRunner.Outcome.Late<AuthenticationResult> late -> new Checked.Refused<>(late.problem());
            case DeadlineRunner.Outcome.Done<AuthenticationResult> done -> switch (done.value()) {
                case AuthenticationResult.Refused refused -> unauthorized(refused.message());
                case AuthenticationResult.Authenticated caller -> new Checked.Allowed<>(new Caller(caller, body),
                        until);
            };
        };
    }

    private static <R> Checked<R> unauthorized(String message) {
        return new Checked.Refused<>(new Answer.Problem(401, "unauthorized", "NIP-98 authentication failed: "
                + message, Map.of("WWW-Authenticate", "Nostr")));
    }

    /**
     * Why the database cannot serve a request now (its last check failed or found it read-only; read from memory,
     * without waiting), or empty. A database that is only slow to answer its check is still tried.
     */
    private Optional<String> databaseDown() {
        return database.map(DatabaseStatusUseCase::databaseStatus)
                .filter(DatabaseStatusUseCase.DatabaseStatus::outage)
                .map(status -> (status.health() == DatabaseStatusUseCase.Health.READ_ONLY
                        ? "the database takes no writes (" : "the database is unreachable (")
                        + status.problem().orElse("no answer") + "); nothing was stored or changed, try again");
    }

    private static Map<String, List<String>> queryParameters(Context ctx) {
        Map<String, List<String>> query = new LinkedHashMap<>();
        ctx.queryParamMap().forEach((name, values) -> query.put(name, List.copyOf(values)));
        return Collections.unmodifiableMap(query);
    }

    private static Map<String, List<String>> headers(Context ctx) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : OwnerRequest.HEADERS) {
            List<String> values = new ArrayList<>();
            ctx.req().getHeaders(name).asIterator().forEachRemaining(values::add);
            if (!values.isEmpty()) {
                headers.put(name, List.copyOf(values));
            }
        }
        return Collections.unmodifiableMap(headers);
    }
}
