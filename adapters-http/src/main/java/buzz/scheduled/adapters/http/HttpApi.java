package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.AdminMessageDetailUseCase;
import buzz.scheduled.application.port.in.AdminMessagesUseCase;
import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.MessageAttemptsUseCase;
import buzz.scheduled.application.port.in.OperatorCancelUseCase;
import buzz.scheduled.application.port.in.OwnerSettingsUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase;
import buzz.scheduled.application.port.in.RequeueMessageUseCase;
import io.javalin.Javalin;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sidecar's HTTP API (docs/openapi.yaml) on Javalin over Jetty with virtual threads: the owner routes (NIP-98
 * authenticated, scoped to the authenticated pubkey, {@code 404 feature_disabled} while the feature is off), the
 * NIP-11 style info document, health, readiness, metrics and the OpenAPI document.
 *
 * <p>Every owner request goes: feature flag → body size cap ({@code 413 too_large}) → NIP-98 authentication
 * ({@code 401 unauthorized}) → strict body parse ({@code 400 invalid_request} / {@code 400 invalid_event}) → the use
 * case, which applies the rest of the admission order of docs/openapi.yaml. Use cases run under a deadline: a store or
 * access policy that cannot answer within {@link HttpSettings#requestTimeout()} (or throws a timeout/connection
 * failure) gives {@code 503 unavailable} with {@code Retry-After}, never a hung request.
 *
 * <p>Operator routes (docs/openapi.yaml, tag operator) are the third kind of route ({@link Routes.Handler}): NIP-98
 * authentication as for owners ({@code 401 unauthorized}), then the pubkey must be in {@code RELAY_OPERATOR_PUBKEYS}
 * ({@code 403 forbidden} otherwise). They answer whether or not the feature flag is on: deletion and reservations
 * matter for messages already accepted. The operators' read routes ({@link AdminRoutes}) and the operator page
 * ({@link OperatorPage}) are wired with {@link #operatorView}.
 *
 * <p>Browsers: the NIP-11 document carries the CORS headers NIP-11 requires and answers {@code OPTIONS}
 * preflights; the owner routes answer the origins of {@link #cors} ({@code BUZZ_CORS_ORIGINS}), see {@link Cors}.
 * Metrics are Micrometer's ({@link #meters}); every request is counted and timed and written as one access-log
 * line (logger {@code buzz.access}: method, path, route, status, milliseconds; never a header).
 *
 * <p>This class wires the parts together and keeps their lifecycle: the route table ({@link Routes}), the checks
 * before an owner or operator route ({@link RequestAuthentication}, with the body cap of {@link BodyCap}), the
 * deadline ({@link DeadlineRunner}), the probes ({@link ProbeAnswers}), the public documents
 * ({@link PublicDocuments}), metrics and the access log ({@link RequestMetrics}), the error mapping
 * ({@link ErrorAnswers}), the writing of answers ({@link AnswerWriter}) and the Javalin set-up ({@link ApiServer}).
 */
public final class HttpApi {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);

    private final HttpSettings settings;
    private final RequestMetrics metrics = new RequestMetrics();
    private final DeadlineRunner deadline;
    private final RequestAuthentication authentication;
    private final ProbeAnswers probes;
    private final PublicDocuments documents;
    private final Routes routes;
    private final OwnerSettingsRoutes ownerSettings;
    private final ApiServer server;
    private Javalin app;

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
        this.settings = settings;
        BodyCap bodyCap = new BodyCap(settings);
        this.deadline = new DeadlineRunner(settings);
        this.authentication = new RequestAuthentication(settings, authentication, operatorAccess, bodyCap, deadline);
        this.probes = new ProbeAnswers(readiness, deadline, settings);
        this.documents = new PublicDocuments(settings);
        this.ownerSettings = new OwnerSettingsRoutes(settings);
        OwnerRoutes owner = new OwnerRoutes(useCases, settings);
        this.routes = new Routes(settings, owner, new OwnerBulkRoutes(owner, useCases, metrics::refusal), ownerSettings,
                operatorAccess.useCases().map(OperatorRoutes::new), documents, probes, metrics,
                new OperatorPage(settings.publicBaseUrl().toString()));
        this.server = new ApiServer(settings, routes, this.authentication, deadline,
                new ErrorAnswers(settings, bodyCap), new AnswerWriter(metrics), metrics);
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
        metrics.use(registry, prometheusText);
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
        routes.cors(new Cors(origins));
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
        authentication.reportDatabase(status);
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
        documents.identify(serverIdentity);
        return this;
    }

    /**
     * Where the relay's own limits come from: what its NIP-11 {@code limitation} states. {@code GET /v1/info} then
     * advertises the limits admission actually applies: the smaller of the relay's and the server's content and tag
     * limits, and the relay's {@code max_message_length} and {@code min_pow_difficulty}.
     *
     * @return this API
     */
    public HttpApi relayLimits(Supplier<RelayStatedLimits> limits) {
        if (limits == null) {
            throw new IllegalArgumentException("the relay limits source is missing");
        }
        documents.relayLimits(limits);
        return this;
    }

    /**
     * Serves {@code GET/PUT /v1/owner/settings} from {@code settings}; without it those routes answer
     * {@code 503 unavailable}.
     *
     * @return this API
     */
    public HttpApi ownerSettings(OwnerSettingsUseCase settings) {
        if (settings == null) {
            throw new IllegalArgumentException("the owner settings use case is missing");
        }
        ownerSettings.use(settings);
        return this;
    }

    /**
     * Which Nostr-native features this server runs, for the NIP-11 document: the kind-5905 front door
     * ({@code BUZZ_DVM}) and NIP-17 notices ({@code BUZZ_NOTICES}).
     *
     * @return this API
     */
    public HttpApi nostrFeatures(boolean dvm, boolean notices) {
        documents.nostrFeatures(dvm, notices);
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
        routes.operatorView(new AdminRoutes(stats, messages));
        return this;
    }

    /**
     * Serves a message's delivery attempts ({@code GET /v1/scheduled-messages/{id}/attempts} to its owner,
     * {@code GET /v1/admin/messages/{id}} to operators) from these use cases; without them those routes answer
     * {@code 503 unavailable}.
     *
     * @return this API
     */
    public HttpApi deliveryHistory(MessageAttemptsUseCase owners, AdminMessageDetailUseCase operators) {
        if (owners == null || operators == null) {
            throw new IllegalArgumentException("the delivery history needs its owner and operator use cases");
        }
        routes.deliveryHistory(new AttemptRoutes(owners, operators));
        return this;
    }

    /**
     * Serves an operator's actions on one message ({@code POST /v1/admin/messages/{id}/cancel} and
     * {@code .../requeue}) from these use cases, answering with {@code detail}'s view of the message; without them
     * those routes answer {@code 503 unavailable}.
     *
     * @return this API
     */
    public HttpApi operatorActions(OperatorCancelUseCase cancel, RequeueMessageUseCase requeue,
                                   AdminMessageDetailUseCase detail) {
        if (cancel == null || requeue == null || detail == null) {
            throw new IllegalArgumentException("operator actions need cancel, requeue and the message detail");
        }
        routes.operatorActions(new MessageActionRoutes(cancel, requeue, detail, settings.retryAfter()));
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
        probes.reportHealth(check);
        return this;
    }

    /** Every route this API serves, in registration order (the OpenAPI document lists exactly these). */
    public List<Route> routes() {
        return routes.entries().stream().map(Routes.Entry::route).toList();
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
        deadline.start();
        Javalin created = server.create(host, port);
        try {
            created.start();
        } catch (RuntimeException e) {
            deadline.stop();
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
        deadline.stop();
    }

    /** Package-private for tests: the routes Javalin actually registered ({@code METHOD path}). */
    synchronized List<Route> registeredRoutes() {
        if (app == null) {
            throw new IllegalStateException("not started");
        }
        return ApiServer.registered(app);
    }

    /** Package-private for tests: a request count by method, route template and status. */
    long requestCount(String method, String route, int status) {
        return metrics.count(method, route, status);
    }
}
