package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.AuthenticateRequestCommand;
import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.AuthenticationResult;
import buzz.scheduled.application.port.in.AdminMessagesUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sidecar's HTTP API (SPEC §4) on Javalin over Jetty with virtual threads: the owner routes (NIP-98
 * authenticated, scoped to the authenticated pubkey, {@code 404 feature_disabled} while the feature is off), the
 * NIP-11 style info document, health, readiness, metrics and the OpenAPI document.
 *
 * <p>Every owner request goes: feature flag → body size cap ({@code 413 too_large}) → NIP-98 authentication
 * ({@code 401 unauthorized}) → strict body parse ({@code 400 invalid_request} / {@code 400 invalid_event}) → the use
 * case, which applies the rest of SPEC §3.1 in order. Use cases run under a deadline: a store or access policy that
 * cannot answer within {@link HttpSettings#requestTimeout()} (or throws a timeout/connection failure) gives
 * {@code 503 unavailable} with {@code Retry-After}, never a hung request.
 *
 * <p>Operator routes (SPEC §4) are the third {@link Access} kind: NIP-98 authentication as for owners
 * ({@code 401 unauthorized}), then the pubkey must be in {@code RELAY_OPERATOR_PUBKEYS} ({@code 403 forbidden}
 * otherwise). They answer whether or not the feature flag is on: deletion and reservations matter for messages
 * already accepted. The operators' read routes ({@link AdminRoutes}) and the operator page ({@link OperatorPage})
 * are wired with {@link #operatorView}.
 *
 * <p>Browsers: the NIP-11 document carries the CORS headers NIP-11 requires and answers {@code OPTIONS}
 * preflights; the owner routes answer the origins of {@link #cors} ({@code BUZZ_CORS_ORIGINS}), see {@link Cors}.
 * Metrics are Micrometer's ({@link #meters}); every request is counted and timed and written as one access-log
 * line (logger {@code buzz.access}: method, path, route, status, milliseconds; never a header).
 */
public final class HttpApi {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    private static final Logger ACCESS = LoggerFactory.getLogger("buzz.access");
    private static final String ROUTE_ATTRIBUTE = "buzz.route";
    private static final String OPENAPI_RESOURCE = "/buzz/scheduled/adapters/http/openapi.yaml";
    private static final String NOSTR_JSON = "application/nostr+json";

    /** Who may call a route. */
    enum Access {
        /** Anyone (info, health, readiness, metrics, OpenAPI). */
        PUBLIC,
        /** NIP-98 authenticated owners, only while the feature is on. */
        OWNER,
        /** NIP-98 authenticated operators ({@code RELAY_OPERATOR_PUBKEYS}), whatever the feature flag says. */
        OPERATOR
    }

    /** A route of the API: method and path template as registered ({@code /v1/scheduled-messages/{id}}). */
    public record Route(String method, String path) {
        public Route {
            if (method == null || path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("a route needs a method and an absolute path template");
            }
        }
    }

    private record Entry(Route route, Access access, Function<OwnerRequest, Answer> ownerHandler,
                         Function<Context, Answer> publicHandler, Function<OperatorRequest, Answer> operatorHandler) {
    }

    private final AuthenticateRequestUseCase authentication;
    private final ReadinessCheck readiness;
    private final HttpSettings settings;
    private final OwnerRoutes owner;
    private final OperatorAccess operatorAccess;
    private final Optional<OperatorRoutes> operator;
    private volatile HttpMetrics metrics = new HttpMetrics(new SimpleMeterRegistry());
    private volatile Supplier<String> metricsText = () -> "";
    private volatile Cors cors = new Cors(CorsOrigins.none());
    private volatile ServerIdentity identity = ServerIdentity.of(Optional.empty());
    private volatile Optional<AdminRoutes> admin = Optional.empty();
    private final OperatorPage page;
    private volatile Optional<DatabaseStatusUseCase> database = Optional.empty();
    private volatile HealthCheck health = HealthCheck.ALWAYS;
    private final ObjectMapper json = new ObjectMapper();
    private final String openApi;
    private final List<Entry> entries;
    private Javalin app;
    private ExecutorService calls;

    /**
     * @param useCases       the owner use cases (typically one {@code OwnerMessagesService})
     * @param authentication NIP-98 request authentication
     * @param readiness      what {@code GET /readyz} asks (e.g. a database ping)
     * @param settings       feature flag, public base URL, limits
     * @throws IllegalStateException when the OpenAPI document is missing from the classpath (a build fault)
     */
    public HttpApi(OwnerUseCases useCases, AuthenticateRequestUseCase authentication, ReadinessCheck readiness,
                   HttpSettings settings) {
        this(useCases, OperatorAccess.none(), authentication, readiness, settings);
    }

    /**
     * @param useCases       the owner use cases (typically one {@code OwnerMessagesService})
     * @param operatorAccess the operator pubkeys and use cases ({@link OperatorAccess#none()}: every operator
     *                       request is forbidden)
     * @param authentication NIP-98 request authentication
     * @param readiness      what {@code GET /readyz} asks (e.g. a database ping)
     * @param settings       feature flag, public base URL, limits
     * @throws IllegalStateException when the OpenAPI document is missing from the classpath (a build fault)
     */
    public HttpApi(OwnerUseCases useCases, OperatorAccess operatorAccess, AuthenticateRequestUseCase authentication,
                   ReadinessCheck readiness, HttpSettings settings) {
        if (useCases == null || operatorAccess == null || authentication == null || readiness == null
                || settings == null) {
            throw new IllegalArgumentException(
                    "HTTP API needs use cases, operator access, authentication, readiness and settings");
        }
        this.authentication = authentication;
        this.readiness = readiness;
        this.settings = settings;
        this.owner = new OwnerRoutes(useCases, settings);
        this.operatorAccess = operatorAccess;
        this.operator = operatorAccess.useCases().map(OperatorRoutes::new);
        this.openApi = readOpenApi();
        this.page = new OperatorPage(settings.publicBaseUrl().toString());
        this.entries = List.of(
                ownerRoute("POST", OwnerRoutes.COLLECTION, owner::create),
                ownerRoute("GET", OwnerRoutes.COLLECTION, owner::list),
                ownerRoute("GET", OwnerRoutes.COLLECTION + "/{id}", owner::get),
                ownerRoute("PUT", OwnerRoutes.COLLECTION + "/{id}", owner::revise),
                ownerRoute("DELETE", OwnerRoutes.COLLECTION + "/{id}", owner::cancel),
                ownerRoute("POST", OwnerRoutes.COLLECTION + "/{id}/send-now", owner::sendNow),
                ownerPreflight(OwnerRoutes.COLLECTION, "GET, POST"),
                ownerPreflight(OwnerRoutes.COLLECTION + "/{id}", "GET, PUT, DELETE"),
                ownerPreflight(OwnerRoutes.COLLECTION + "/{id}/send-now", "POST"),
                publicRoute("GET", "/v1/info", ctx -> info(ctx, false)),
                publicRoute("GET", "/", ctx -> info(ctx, true)),
                publicRoute("OPTIONS", "/v1/info", ctx -> Cors.infoPreflight()),
                publicRoute("OPTIONS", "/", ctx -> Cors.infoPreflight()),
                publicRoute("GET", "/healthz", ctx -> healthz()),
                publicRoute("GET", "/readyz", ctx -> ready()),
                publicRoute("GET", "/metrics", ctx -> new Answer.Text(200, "text/plain; version=0.0.4; charset=utf-8",
                        metricsText.get(), Map.of())),
                publicRoute("GET", "/openapi.yaml", ctx -> new Answer.Text(200, "application/yaml; charset=utf-8",
                        openApi, Map.of())),
                operatorRoute("GET", OperatorRoutes.RESERVATIONS, OperatorRoutes::reservations),
                operatorRoute("POST", OperatorRoutes.CHANNEL_DELETED, OperatorRoutes::channelDeleted),
                operatorRoute("POST", OperatorRoutes.MEMBER_REMOVED, OperatorRoutes::memberRemoved),
                operatorRoute("DELETE", OperatorRoutes.OWNER, OperatorRoutes::purgeOwner),
                operatorRoute("DELETE", OperatorRoutes.ALL_MESSAGES, OperatorRoutes::purgeAll),
                adminRoute(AdminRoutes.MESSAGES, AdminRoutes::messages),
                adminRoute(AdminRoutes.STATS, AdminRoutes::stats),
                publicRoute("GET", OperatorPage.PAGE, ctx -> page.page()),
                publicRoute("GET", OperatorPage.SCRIPT, ctx -> page.script()),
                publicRoute("GET", OperatorPage.STYLE, ctx -> page.style()));
    }

    /**
     * Records request metrics on {@code registry} and serves {@code prometheusText} at {@code GET /metrics}
     * (Prometheus text exposition format 0.0.4). Call before {@link #start}; without it nothing is exported.
     *
     * @return this API
     */
    public HttpApi meters(MeterRegistry registry, Supplier<String> prometheusText) {
        if (registry == null || prometheusText == null) {
            throw new IllegalArgumentException("metrics need a registry and its text");
        }
        this.metrics = new HttpMetrics(registry);
        this.metricsText = prometheusText;
        return this;
    }

    /**
     * Lets the browser origins of {@code origins} call the owner routes ({@code BUZZ_CORS_ORIGINS}).
     *
     * @return this API
     */
    public HttpApi cors(CorsOrigins origins) {
        if (origins == null) {
            throw new IllegalArgumentException("CORS origins are missing (use CorsOrigins.none())");
        }
        this.cors = new Cors(origins);
        return this;
    }

    /**
     * Makes the API database-aware: while {@code status} says the database is down (its last check failed), owner and
     * operator routes answer {@code 503 unavailable} with {@code Retry-After} at once instead of waiting for the pool's
     * timeout. Call before {@link #start}.
     *
     * @return this API
     */
    public HttpApi reportDatabase(DatabaseStatusUseCase status) {
        if (status == null) {
            throw new IllegalArgumentException("database status source is missing");
        }
        this.database = Optional.of(status);
        return this;
    }

    /**
     * What the NIP-11 document says about this server (software URL, version, the sidecar's pubkey).
     *
     * @return this API
     */
    public HttpApi identity(ServerIdentity serverIdentity) {
        if (serverIdentity == null) {
            throw new IllegalArgumentException("the server identity is missing");
        }
        this.identity = serverIdentity;
        return this;
    }

    /**
     * Serves the operators' read routes ({@code GET /v1/admin/messages}, {@code GET /v1/admin/stats}) from these
     * use cases; without them those routes answer {@code 503 unavailable}.
     *
     * @return this API
     */
    public HttpApi operatorView(QueueStatsUseCase stats, AdminMessagesUseCase messages) {
        if (stats == null || messages == null) {
            throw new IllegalArgumentException("the operator view needs its stats and message use cases");
        }
        this.admin = Optional.of(new AdminRoutes(stats, messages));
        return this;
    }

    /**
     * What {@code GET /healthz} asks: a failure answers {@code 503 unhealthy} with the reason (default: always
     * healthy). Call before {@link #start}.
     *
     * @return this API
     */
    public HttpApi reportHealth(HealthCheck check) {
        if (check == null) {
            throw new IllegalArgumentException("health check is missing");
        }
        this.health = check;
        return this;
    }

    /** Every route this API serves, in registration order (the OpenAPI document lists exactly these). */
    public List<Route> routes() {
        return entries.stream().map(Entry::route).toList();
    }

    /**
     * Starts listening.
     *
     * @param host interface to bind, e.g. {@code 127.0.0.1}
     * @param port TCP port, 0 for an ephemeral one
     * @return the bound port
     * @throws IllegalStateException when already started
     */
    public synchronized int start(String host, int port) {
        if (app != null) {
            throw new IllegalStateException("HTTP API already started on port " + app.port());
        }
        calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("http-call-", 0).factory());
        Javalin created = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.concurrency.useVirtualThreads = true;
            config.http.maxRequestSize = settings.maxBodyBytes();
            config.http.prefer405over404 = true;
            config.jetty.modifyHttpConfiguration(http -> {
                http.setRequestHeaderSize(settings.maxHeaderBytes());
                http.setSendServerVersion(false);
            });
            config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorPages(settings.maxHeaderBytes())));
            config.requestLogger.http((ctx, millis) -> {
                String route = ctx.attribute(ROUTE_ATTRIBUTE);
                String template = route == null ? "unmatched" : route;
                metrics.request(ctx.req().getMethod(), template, ctx.statusCode(),
                        java.time.Duration.ofNanos((long) (millis * 1_000_000)));
                if (ACCESS.isInfoEnabled()) {
                    ACCESS.info("{} {} {} {} {} ms", ctx.req().getMethod(), ctx.req().getRequestURI(), template,
                            ctx.statusCode(), String.format(Locale.ROOT, "%.1f", millis));
                }
            });
            for (Entry entry : entries) {
                config.routes.addHttpHandler(HandlerType.findOrCreate(entry.route().method()), entry.route().path(),
                        ctx -> {
                            ctx.attribute(ROUTE_ATTRIBUTE, entry.route().path());
                            Answer answer = serve(entry, ctx);
                            if (entry.access() == Access.OWNER) {
                                answer = withHeaders(answer, cors.ownerHeaders(ctx.header("Origin")));
                            }
                            write(ctx, answer);
                        });
            }
            config.routes.exception(HttpResponseException.class, (e, ctx) -> write(ctx, frameworkProblem(e, ctx)));
            config.routes.exception(Exception.class, (e, ctx) -> write(ctx, failure(e, ctx)));
        });
        try {
            created.start(host, port);
        } catch (RuntimeException e) {
            calls.shutdownNow();
            calls = null;
            throw e;
        }
        app = created;
        LOG.info("HTTP API listening on {}:{} (scheduled messages {}, public base URL {})", host, created.port(),
                settings.scheduledMessages() ? "on" : "off", settings.publicBaseUrl());
        return created.port();
    }

    /** Stops listening and abandons in-flight use-case calls; a stopped API may not be started again. */
    public synchronized void stop() {
        if (app != null) {
            app.stop();
            app = null;
        }
        if (calls != null) {
            calls.shutdownNow();
            calls = null;
        }
    }

    /** Package-private for tests: the routes Javalin actually registered ({@code METHOD path}). */
    synchronized List<Route> registeredRoutes() {
        if (app == null) {
            throw new IllegalStateException("not started");
        }
        return app.unsafe.internalRouter.allHttpHandlers().stream()
                .map(parsed -> new Route(parsed.endpoint.method.toString(), parsed.endpoint.path))
                .toList();
    }

    /** Package-private for tests: a request count by method, route template and status. */
    long requestCount(String method, String route, int status) {
        return metrics.count(method, route, status);
    }

    // ---------------------------------------------------------------------------------------------------------

    private Answer serve(Entry entry, Context ctx) {
        if (entry.access() == Access.PUBLIC) {
            return entry.publicHandler().apply(ctx);
        }
        boolean operatorRoute = entry.access() == Access.OPERATOR;
        if (!operatorRoute && !settings.scheduledMessages()) {
            return new Answer.Problem(404, "feature_disabled",
                    "scheduled messages are switched off on this server (BUZZ_SCHEDULED_MESSAGES)");
        }
        byte[] body;
        switch (readBody(ctx)) {
            case BodyRead.TooLarge tooLarge -> {
                return tooLarge.problem();
            }
            case BodyRead.Bytes bytes -> body = bytes.body();
        }
        String query = ctx.queryString();
        String url = settings.publicBaseUrl() + ctx.req().getRequestURI() + (query == null ? "" : "?" + query);
        AuthenticationResult authenticated = authentication.authenticate(new AuthenticateRequestCommand(
                ctx.req().getMethod(), url, body, ctx.header("Authorization")));
        Optional<String> down = databaseDown();
        return switch (authenticated) {
            case AuthenticationResult.Refused refused -> new Answer.Problem(401, "unauthorized",
                    "NIP-98 authentication failed: " + refused.message(), Map.of("WWW-Authenticate", "Nostr"));
            case AuthenticationResult.Authenticated caller when down.isPresent() ->
                    Answer.Problem.unavailable(down.get(), settings.retryAfter().toSeconds());
            case AuthenticationResult.Authenticated caller when operatorRoute -> {
                if (!operatorAccess.isOperator(caller.pubkey()) || operator.isEmpty()) {
                    yield new Answer.Problem(403, "forbidden", "pubkey " + caller.pubkey().hex()
                            + " is not an operator of this sidecar (RELAY_OPERATOR_PUBKEYS)");
                }
                OperatorRequest request = new OperatorRequest(caller.pubkey(), Map.copyOf(ctx.pathParamMap()),
                        queryParameters(ctx), body);
                yield withinDeadline(() -> entry.operatorHandler().apply(request));
            }
            case AuthenticationResult.Authenticated caller -> {
                OwnerRequest request = new OwnerRequest(caller.pubkey(), Map.copyOf(ctx.pathParamMap()),
                        queryParameters(ctx), headers(ctx), body);
                yield withinDeadline(() -> entry.ownerHandler().apply(request));
            }
        };
    }

    private sealed interface BodyRead {
        record Bytes(byte[] body) implements BodyRead {
        }

        record TooLarge(Answer.Problem problem) implements BodyRead {
        }
    }

    /** Reads at most the body cap; a declared or actual length over it is refused unread. */
    private BodyRead readBody(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > settings.maxBodyBytes()) {
            return new BodyRead.TooLarge(tooLarge(declared));
        }
        try (InputStream in = ctx.req().getInputStream()) {
            byte[] body = in.readNBytes(settings.maxBodyBytes() + 1);
            if (body.length > settings.maxBodyBytes()) {
                return new BodyRead.TooLarge(tooLarge(-1));
            }
            return new BodyRead.Bytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the request body", e);
        }
    }

    private Answer.Problem tooLarge(long declared) {
        return new Answer.Problem(413, "too_large", "the request body "
                + (declared >= 0 ? "is " + declared + " bytes; " : "is too large; ")
                + "at most " + settings.maxBodyBytes() + " bytes are read (event content may be up to "
                + settings.maxContentBytes() + " bytes)");
    }

    /** Runs a route on its own virtual thread and gives up after the request timeout. */
    private Answer withinDeadline(Callable<Answer> route) {
        Future<Answer> future;
        try {
            future = calls.submit(route);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return Answer.Problem.unavailable("the server is shutting down", settings.retryAfter().toSeconds());
        }
        try {
            return future.get(settings.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            return Answer.Problem.unavailable("the store did not answer within "
                    + settings.requestTimeout().toMillis() + " ms; try again (a create retried with the same "
                    + "Idempotency-Key or event is never stored twice)", settings.retryAfter().toSeconds());
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            return Answer.Problem.unavailable("the request was interrupted", settings.retryAfter().toSeconds());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("route failed", cause);
        }
    }

    private Answer info(Context ctx, boolean root) {
        String accept = ctx.header("Accept");
        boolean nostrJson = accept != null && accept.toLowerCase(Locale.ROOT).contains(NOSTR_JSON);
        if (root && !nostrJson) {
            return new Answer.Problem(406, "not_acceptable",
                    "GET / answers only Accept: application/nostr+json (NIP-11); the API is under /v1");
        }
        Map<String, String> headers = Cors.infoHeaders();
        headers.put("Content-Type", nostrJson ? NOSTR_JSON : "application/json");
        return new Answer.Json(200, InfoDocument.of(settings, identity), headers);
    }

    /**
     * Why the database cannot serve a request now (its last check failed; read from memory, without waiting), or
     * empty. A database that is only slow to answer its check is still tried.
     */
    private Optional<String> databaseDown() {
        return database.map(DatabaseStatusUseCase::databaseStatus)
                .filter(status -> status.health() == DatabaseStatusUseCase.Health.DOWN)
                .map(status -> "the database is unreachable (" + status.problem().orElse("no answer")
                        + "); nothing was stored or changed, try again");
    }

    private Answer healthz() {
        Optional<String> failure;
        try {
            failure = health.failure();
        } catch (RuntimeException e) {
            failure = Optional.of("the health check failed: " + e);
        }
        return failure.<Answer>map(reason -> new Answer.Problem(503, "unhealthy", reason))
                .orElseGet(() -> new Answer.Json(200, Map.of("status", "up")));
    }

    private Answer ready() {
        Answer answer = withinDeadline(() -> switch (readinessCheck()) {
            case ReadinessCheck.Readiness.Ready ready -> new Answer.Json(200, Map.of("status", "ready"));
            case ReadinessCheck.Readiness.NotReady notReady -> notReady(notReady.reason());
        });
        if (answer instanceof Answer.Problem problem && problem.status() == 503
                && !"not_ready".equals(problem.code())) {
            return notReady("the readiness check did not answer within " + settings.requestTimeout().toMillis()
                    + " ms");
        }
        return answer;
    }

    private ReadinessCheck.Readiness readinessCheck() {
        try {
            ReadinessCheck.Readiness readinessAnswer = readiness.check();
            return readinessAnswer == null ? new ReadinessCheck.Readiness.NotReady("readiness check gave no answer")
                    : readinessAnswer;
        } catch (RuntimeException e) {
            return new ReadinessCheck.Readiness.NotReady("readiness check failed: " + e);
        }
    }

    private Answer notReady(String reason) {
        return new Answer.Problem(503, "not_ready", reason,
                Map.of("Retry-After", Long.toString(settings.retryAfter().toSeconds())));
    }

    private Answer frameworkProblem(HttpResponseException e, Context ctx) {
        String request = ctx.req().getMethod() + " " + ctx.req().getRequestURI();
        return switch (e.getStatus()) {
            case 404 -> Answer.Problem.notFound("no route " + request);
            case 405 -> new Answer.Problem(405, "method_not_allowed", "method not allowed: " + request);
            case 413 -> tooLarge(-1);
            default -> new Answer.Problem(e.getStatus(), e.getStatus() >= 500 ? "internal_error" : "invalid_request",
                    e.getMessage() == null ? "request failed with status " + e.getStatus() : e.getMessage());
        };
    }

    private Answer failure(Exception e, Context ctx) {
        if (UnavailableCauses.unavailable(e)) {
            LOG.warn("{} {}: a dependency is unavailable: {}", ctx.req().getMethod(), ctx.req().getRequestURI(),
                    e.toString());
            return Answer.Problem.unavailable("a dependency of the server is unavailable; try again",
                    settings.retryAfter().toSeconds());
        }
        LOG.error("{} {} failed", ctx.req().getMethod(), ctx.req().getRequestURI(), e);
        return new Answer.Problem(500, "internal_error", "the server failed to answer this request; it was logged");
    }

    private void write(Context ctx, Answer answer) {
        ctx.status(answer.status());
        String contentType = switch (answer) {
            case Answer.Json j -> "application/json";
            case Answer.Problem p -> "application/json";
            case Answer.Text t -> t.contentType();
            case Answer.Empty e -> null;
        };
        if (contentType != null) {
            ctx.contentType(contentType);
        }
        answer.headers().forEach(ctx::header);
        try {
            byte[] bytes = switch (answer) {
                case Answer.Json j -> json.writeValueAsBytes(j.body());
                case Answer.Problem p -> json.writeValueAsBytes(p.body());
                case Answer.Text t -> t.body().getBytes(StandardCharsets.UTF_8);
                case Answer.Empty e -> new byte[0];
            };
            ctx.result(bytes);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write a JSON answer", e);
        }
        if (answer instanceof Answer.Problem problem) {
            metrics.refusal(problem.code());
        }
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

    private static Entry ownerRoute(String method, String path, Function<OwnerRequest, Answer> handler) {
        return new Entry(new Route(method, path), Access.OWNER, handler, null, null);
    }

    /** A copy of {@code answer} with {@code extra} headers added. */
    private static Answer withHeaders(Answer answer, Map<String, String> extra) {
        if (extra.isEmpty()) {
            return answer;
        }
        Map<String, String> headers = new LinkedHashMap<>(answer.headers());
        headers.putAll(extra);
        return switch (answer) {
            case Answer.Json j -> new Answer.Json(j.status(), j.body(), headers);
            case Answer.Problem p -> new Answer.Problem(p.status(), p.code(), p.message(), headers);
            case Answer.Text t -> new Answer.Text(t.status(), t.contentType(), t.body(), headers);
            case Answer.Empty e -> new Answer.Empty(e.status(), headers);
        };
    }

    /** The CORS preflight of an owner path ({@code OPTIONS}); public, and answered whatever the feature flag. */
    private Entry ownerPreflight(String path, String methods) {
        return publicRoute("OPTIONS", path, ctx -> cors.ownerPreflight(ctx.header("Origin"), methods));
    }

    private Entry adminRoute(String path, java.util.function.BiFunction<AdminRoutes, OperatorRequest, Answer> handler) {
        return new Entry(new Route("GET", path), Access.OPERATOR, null, null, request -> admin
                .map(routes -> handler.apply(routes, request))
                .orElseGet(() -> Answer.Problem.unavailable("the operator view is not configured on this server",
                        settings.retryAfter().toSeconds())));
    }

    private static Entry publicRoute(String method, String path, Function<Context, Answer> handler) {
        return new Entry(new Route(method, path), Access.PUBLIC, null, handler, null);
    }

    private Entry operatorRoute(String method, String path,
                                java.util.function.BiFunction<OperatorRoutes, OperatorRequest, Answer> handler) {
        // Only reached after the operator check, which needs operator use cases to pass.
        return new Entry(new Route(method, path), Access.OPERATOR, null, null,
                request -> handler.apply(operator.orElseThrow(), request));
    }

    private static String readOpenApi() {
        try (InputStream in = HttpApi.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document " + OPENAPI_RESOURCE
                        + " is missing from the classpath (the build copies docs/openapi.yaml there)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the OpenAPI document", e);
        }
    }
}
