package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The route table: every method and path template the API serves, in registration order, with who may call it
 * and what answers it. docs/openapi.yaml documents exactly these routes (a test holds the two together).
 *
 * <ul>
 *   <li>owner routes under {@value OwnerRoutes#COLLECTION} — the batch, the bulk cancel and the series summary
 *       ({@link OwnerBulkRoutes}) before the routes of one message ({@link OwnerRoutes}), so their fixed paths are
 *       never read as a message id — and their CORS preflights ({@link Cors});</li>
 *   <li>public documents and probes: {@code /v1/info} and {@code /} (NIP-11), {@code /healthz}, {@code /readyz},
 *       {@code /metrics}, {@code /openapi.yaml} and the operator page under {@value OperatorPage#PAGE};</li>
 *   <li>operator routes: reservations, deletion reports and purges ({@link OperatorRoutes}) and the operators'
 *       read routes ({@link AdminRoutes}, {@code 503 unavailable} until {@link #operatorView} gives them);</li>
 *   <li>a message's delivery attempts for its owner and for operators ({@link AttemptRoutes}, {@code 503
 *       unavailable} until {@link #deliveryHistory} gives them);</li>
 *   <li>an operator's cancel and requeue of one message ({@link MessageActionRoutes}, {@code 503 unavailable} until
 *       {@link #operatorActions} gives them).</li>
 * </ul>
 */
final class Routes {

    /** A route and what answers it. */
    record Entry(Route route, Handler handler) {
    }

    /** What answers a route; who may call it follows from the kind. */
    sealed interface Handler {
        /** Anyone; answered from the exchange itself. */
        record Public(Function<Context, Answer> answer) implements Handler {
        }

        /**
         * NIP-98 authenticated owners, only while the feature is on.
         *
         * @param payloadRequired whether the NIP-98 header must carry a {@code payload} tag (the batch, whose one
         *                        signature covers every event in it); without one the request is {@code 401}
         */
        record Owner(Function<OwnerRequest, Answer> answer, boolean payloadRequired) implements Handler {
            Owner(Function<OwnerRequest, Answer> answer) {
                this(answer, false);
            }
        }

        /** NIP-98 authenticated operators ({@code RELAY_OPERATOR_PUBKEYS}), whatever the feature flag says. */
        record Operator(Function<OperatorRequest, Answer> answer) implements Handler {
        }
    }

    private final HttpSettings settings;
    private final Optional<OperatorRoutes> operator;
    private final List<Entry> entries;
    private volatile Cors cors = new Cors(CorsOrigins.none());
    private volatile Optional<AdminRoutes> admin = Optional.empty();
    private volatile Optional<AttemptRoutes> history = Optional.empty();
    private volatile Optional<MessageActionRoutes> actions = Optional.empty();

    Routes(HttpSettings settings, OwnerRoutes owner, OwnerBulkRoutes bulk, OwnerSettingsRoutes ownerSettings,
           Optional<OperatorRoutes> operator, PublicDocuments documents, ProbeAnswers probes, RequestMetrics metrics,
           OperatorPage page) {
        this.settings = settings;
        this.operator = operator;
        this.entries = List.of(
                ownerRoute("POST", OwnerRoutes.COLLECTION, owner::create),
                ownerRoute("GET", OwnerRoutes.COLLECTION, owner::list),
                new Entry(new Route("POST", OwnerBulkRoutes.BATCH), new Handler.Owner(bulk::batch, true)),
                ownerRoute("POST", OwnerBulkRoutes.CANCEL_MATCHING, bulk::cancelMatching),
                ownerRoute("GET", OwnerBulkRoutes.SERIES + "/{series}", bulk::series),
                ownerRoute("GET", OwnerRoutes.COLLECTION + "/{id}", owner::get),
                ownerRoute("PUT", OwnerRoutes.COLLECTION + "/{id}", owner::revise),
                ownerRoute("DELETE", OwnerRoutes.COLLECTION + "/{id}", owner::cancel),
                ownerRoute("POST", OwnerRoutes.COLLECTION + "/{id}/send-now", owner::sendNow),
                new Entry(new Route("GET", AttemptRoutes.OWNER), new Handler.Owner(request -> history
                        .map(routes -> routes.owner(request))
                        .orElseGet(() -> historyUnavailable()))),
                ownerPreflight(OwnerRoutes.COLLECTION, "GET, POST"),
                ownerPreflight(OwnerBulkRoutes.BATCH, "POST"),
                ownerPreflight(OwnerBulkRoutes.CANCEL_MATCHING, "POST"),
                ownerPreflight(OwnerBulkRoutes.SERIES + "/{series}", "GET"),
                ownerPreflight(OwnerRoutes.COLLECTION + "/{id}", "GET, PUT, DELETE"),
                ownerPreflight(OwnerRoutes.COLLECTION + "/{id}/send-now", "POST"),
                ownerPreflight(AttemptRoutes.OWNER, "GET"),
                ownerRoute("GET", OwnerSettingsRoutes.PATH, ownerSettings::get),
                ownerRoute("PUT", OwnerSettingsRoutes.PATH, ownerSettings::put),
                ownerPreflight(OwnerSettingsRoutes.PATH, "GET, PUT"),
                publicRoute("GET", "/v1/info", ctx -> documents.info(ctx, false)),
                publicRoute("GET", "/", ctx -> documents.info(ctx, true)),
                publicRoute("OPTIONS", "/v1/info", ctx -> Cors.infoPreflight()),
                publicRoute("OPTIONS", "/", ctx -> Cors.infoPreflight()),
                publicRoute("GET", "/healthz", ctx -> probes.health()),
                publicRoute("GET", "/readyz", ctx -> probes.readiness()),
                publicRoute("GET", "/metrics", ctx -> metrics.text()),
                publicRoute("GET", "/openapi.yaml", ctx -> documents.openApi()),
                operatorRoute("GET", OperatorRoutes.RESERVATIONS, OperatorRoutes::reservations),
                operatorRoute("POST", OperatorRoutes.CHANNEL_DELETED, OperatorRoutes::channelDeleted),
                operatorRoute("POST", OperatorRoutes.MEMBER_REMOVED, OperatorRoutes::memberRemoved),
                operatorRoute("DELETE", OperatorRoutes.OWNER, OperatorRoutes::purgeOwner),
                operatorRoute("DELETE", OperatorRoutes.ALL_MESSAGES, OperatorRoutes::purgeAll),
                adminRoute(AdminRoutes.MESSAGES, AdminRoutes::messages),
                adminRoute(AdminRoutes.STATS, AdminRoutes::stats),
                new Entry(new Route("GET", AttemptRoutes.OPERATOR), new Handler.Operator(request -> history
                        .map(routes -> routes.operator(request))
                        .orElseGet(() -> historyUnavailable()))),
                actionRoute(MessageActionRoutes.CANCEL, MessageActionRoutes::cancel),
                actionRoute(MessageActionRoutes.REQUEUE, MessageActionRoutes::requeue),
                publicRoute("GET", OperatorPage.PAGE, ctx -> ctx.path().endsWith("/") ? OperatorPage.canonical() : page.page()),
                publicRoute("GET", OperatorPage.SCRIPT, ctx -> page.script()),
                publicRoute("GET", OperatorPage.STYLE, ctx -> page.style()));
    }

    /** Every route, in registration order. */
    List<Entry> entries() {
        return entries;
    }

    /** Which browser origins may call the owner routes from now on. */
    void cors(Cors origins) {
        this.cors = origins;
    }

    /** The CORS headers an owner route's answer to a request from {@code origin} carries (none when not allowed). */
    Map<String, String> ownerCorsHeaders(String origin) {
        return cors.ownerHeaders(origin);
    }

    /** Serves the operators' read routes from {@code routes} from now on. */
    void operatorView(AdminRoutes routes) {
        this.admin = Optional.of(routes);
    }

    /** Serves the attempt routes (owner and operator) from {@code routes} from now on. */
    void deliveryHistory(AttemptRoutes routes) {
        this.history = Optional.of(routes);
    }

    /** Serves the operator's message actions from {@code routes} from now on. */
    void operatorActions(MessageActionRoutes routes) {
        this.actions = Optional.of(routes);
    }

    private Entry actionRoute(String path, BiFunction<MessageActionRoutes, OperatorRequest, Answer> handler) {
        return new Entry(new Route("POST", path), new Handler.Operator(request -> actions
                .map(routes -> handler.apply(routes, request))
                .orElseGet(() -> Answer.Problem.unavailable("operator actions are not configured on this server",
                        settings.retryAfter().toSeconds()))));
    }

    private Answer historyUnavailable() {
        return Answer.Problem.unavailable("delivery attempts are not configured on this server",
                settings.retryAfter().toSeconds());
    }

    private static Entry ownerRoute(String method, String path, Function<OwnerRequest, Answer> handler) {
        return new Entry(new Route(method, path), new Handler.Owner(handler));
    }

    /** The CORS preflight of an owner path ({@code OPTIONS}); public, and answered whatever the feature flag. */
    private Entry ownerPreflight(String path, String methods) {
        return publicRoute("OPTIONS", path, ctx -> cors.ownerPreflight(ctx.header("Origin"), methods));
    }

    private static Entry publicRoute(String method, String path, Function<Context, Answer> handler) {
        return new Entry(new Route(method, path), new Handler.Public(handler));
    }

    private Entry operatorRoute(String method, String path, BiFunction<OperatorRoutes, OperatorRequest, Answer> handler) {
        // Only reached after the operator check, which needs operator use cases to pass.
        return new Entry(new Route(method, path),
                new Handler.Operator(request -> handler.apply(operator.orElseThrow(), request)));
    }

    private Entry adminRoute(String path, BiFunction<AdminRoutes, OperatorRequest, Answer> handler) {
        return new Entry(new Route("GET", path), new Handler.Operator(request -> admin
                .map(routes -> handler.apply(routes, request))
                .orElseGet(() -> Answer.Problem.unavailable("the operator view is not configured on this server",
                        settings.retryAfter().toSeconds()))));
    }
}
