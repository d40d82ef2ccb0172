package buzz.scheduled.adapters.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import java.util.List;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The Javalin set-up: Jetty with virtual threads, the connection limits of {@link ConnectionLimits} (on the one
 * connector, {@link ConnectionGuard}), the body and header limits of {@link HttpSettings} (Jetty's own
 * refusals in the API's error shape, {@link JsonErrorPages}), no server banner or version, {@code 405} before
 * {@code 404}, the request logger ({@link RequestMetrics}), every route of {@link Routes}, and the error mapping of
 * {@link ErrorAnswers}. A request to an owner or operator route passes {@link RequestAuthentication} and then runs
 * under the {@link DeadlineRunner}; an owner route's answer, refusals included, carries its CORS headers.
 */
final class ApiServer {
    private final HttpSettings settings;
    private final Routes routes;
    private final RequestAuthentication authentication;
    private final DeadlineRunner deadline;
    private final ErrorAnswers errors;
    private final AnswerWriter writer;
    private final RequestMetrics metrics;

    ApiServer(HttpSettings settings, Routes routes, RequestAuthentication authentication, DeadlineRunner deadline,
              ErrorAnswers errors, AnswerWriter writer, RequestMetrics metrics) {
        this.settings = settings;
        this.routes = routes;
        this.authentication = authentication;
        this.deadline = deadline;
        this.errors = errors;
        this.writer = writer;
        this.metrics = metrics;
    }

    /**
     * A configured Javalin application, not yet started, on one connector bound to {@code host}:{@code port}
     * (0: an ephemeral port) with the connection limits of {@link HttpSettings#connections()}: Jetty's idle
     * timeout and global cap, the per-address cap and header timeout of {@link ConnectionGuard}.
     */
    Javalin create(String host, int port) {
        ConnectionLimits limits = settings.connections();
        return Javalin.create(config -> {
            config.jetty.addConnector((server, http) -> {
                ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
                connector.setHost(host);
                connector.setPort(port);
                connector.setIdleTimeout(limits.idleTimeout().toMillis());
                connector.setAcceptQueueSize(ConnectionLimits.ACCEPT_QUEUE);
                ConnectionGuard guard = new ConnectionGuard(limits, connector.getScheduler(), metrics);
                connector.addBean(guard);
                server.addBean(guard.globalCap(connector));
                metrics.connectionsOpen(guard::openConnections);
                return connector;
            });
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.concurrency.useVirtualThreads = true;
            config.http.maxRequestSize = settings.maxBodyBytes();
            config.http.prefer405over404 = true;
            config.jetty.modifyHttpConfiguration(http -> {
                http.setRequestHeaderSize(settings.maxHeaderBytes());
                http.setSendServerVersion(false);
            });
            config.jetty.modifyServer(server -> {
                server.setErrorHandler(new JsonErrorPages(settings.maxHeaderBytes()));
                server.setHandler(ConnectionGuard.completions());
            });
            config.requestLogger.http(metrics::finished);
            for (Routes.Entry entry : routes.entries()) {
                config.routes.addHttpHandler(HandlerType.findOrCreate(entry.route().method()), entry.route().path(),
                        ctx -> {
                            ctx.attribute(RequestMetrics.ROUTE_ATTRIBUTE, entry.route().path());
                            writer.write(ctx, serve(entry.handler(), ctx));
                        });
            }
            config.routes.exception(HttpResponseException.class,
                    (e, ctx) -> writer.write(ctx, errors.framework(e, ctx)));
            config.routes.exception(Exception.class, (e, ctx) -> writer.write(ctx, errors.failure(e, ctx)));
        });
    }

    /** The routes {@code app} actually registered ({@code METHOD path}). */
    static List<Route> registered(Javalin app) {
        return app.unsafe.internalRouter.allHttpHandlers().stream()
                .map(parsed -> new Route(parsed.endpoint.method.toString(), parsed.endpoint.path))
                .toList();
    }

    private Answer serve(Routes.Handler handler, Context ctx) {
        return switch (handler) {
            case Routes.Handler.Public route -> route.answer().apply(ctx);
            case Routes.Handler.Owner route -> (switch (authentication.owner(ctx, route.payloadRequired())) {
                case RequestAuthentication.Checked.Refused<OwnerRequest> refused -> refused.problem();
                case RequestAuthentication.Checked.Allowed<OwnerRequest> allowed ->
                        deadline.run(() -> route.answer().apply(allowed.request()), allowed.deadline());
            }).withHeaders(routes.ownerCorsHeaders(ctx.header("Origin")));
            case Routes.Handler.Operator route -> switch (authentication.operator(ctx)) {
                case RequestAuthentication.Checked.Refused<OperatorRequest> refused -> refused.problem();
                case RequestAuthentication.Checked.Allowed<OperatorRequest> allowed ->
                        deadline.run(() -> route.answer().apply(allowed.request()), allowed.deadline());
            };
        };
    }
}
