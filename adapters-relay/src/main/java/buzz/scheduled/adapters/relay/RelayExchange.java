package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One short exchange with a relay on a {@link RelayConnection} of its own, for the rare events the sidecar sends or
 * reads outside delivery (a notice to an owner's inbox relay, the owner's kind-10050 list): connect, publish one event
 * and wait for its {@code OK}, or run one {@code REQ} up to {@code EOSE}, then close. NIP-42: when the relay answers
 * {@code auth-required:} (an {@code OK} or a {@code CLOSED}), the exchange authenticates with the sidecar's key for the
 * relay's challenge and asks once more. A relay that cannot be reached, ends the link, or does not answer within the
 * timeout ends the exchange with the reason; nothing is retried here (the caller decides).
 */
public final class RelayExchange implements AutoCloseable {
    /** Most events one query keeps. */
    public static final int MAX_QUERY_EVENTS = 50;
    private static final String QUERY_ID = "buzz-query";

    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final Optional<AuthEventSigner> authSigner;
    private final WallClock clock;
    private final boolean ownsTimer;

    /**
     * An exchange with its own HTTP client (HTTP/1.1: an HTTP/2 upgrade offer would look like a failed WebSocket
     * upgrade) and timer thread, which {@link #close()} stops.
     */
    public static RelayExchange create(Optional<AuthEventSigner> authSigner, WallClock clock) {
        ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                RelayResources.daemonThreads("relay-exchange-timer"));
        return new RelayExchange(RelayResources.http11(RelaySettings.DEFAULT_CONNECT_TIMEOUT), timer, authSigner,
                clock, true);
    }

    /**
     * @param http       makes the WebSockets
     * @param timer      the connections' timer (the caller's; not shut down here)
     * @param authSigner signs NIP-42 AUTH with the sidecar's key, if there is one
     * @param clock      the AUTH event's {@code created_at}
     */
    public RelayExchange(HttpClient http, ScheduledExecutorService timer, Optional<AuthEventSigner> authSigner,
                         WallClock clock) {
        this(http, timer, authSigner, clock, false);
    }

    private RelayExchange(HttpClient http, ScheduledExecutorService timer, Optional<AuthEventSigner> authSigner,
                          WallClock clock, boolean ownsTimer) {
        if (http == null || timer == null || authSigner == null || clock == null) {
            throw new IllegalArgumentException("a relay exchange needs an HTTP client, a timer, an AUTH option and a"
                    + " clock");
        }
        this.http = http;
        this.timer = timer;
        this.authSigner = authSigner;
        this.clock = clock;
        this.ownsTimer = ownsTimer;
    }

    /** Stops the timer when this exchange made it ({@link #create}); exchanges under way end unanswered. */
    @Override
    public void close() {
        if (ownsTimer) {
            timer.shutdownNow();
        }
    }

    /** Publishes {@code event} to the relay of {@code settings} and waits up to {@code timeout} for its {@code OK}. */
    public NostrDelivery publish(RelaySettings settings, NostrEvent event, Duration timeout) {
        String frame = "[\"EVENT\"," + NostrEventJson.write(event) + "]";
        CompletableFuture<NostrDelivery> answer = new CompletableFuture<>();
        Session session = new Session(settings, frame) {
            @Override
            public void received(RelayConnection.Link link, RelayMessage message) {
                if (message instanceof RelayMessage.Ok ok && ok.eventId().equals(event.id().hex())) {
                    if (ok.accepted()) {
                        answer.complete(new NostrDelivery.Delivered(event.id()));
                    } else if (!authRequired(link, ok.message())) {
                        answer.complete(new NostrDelivery.Undelivered(settings.url() + " refused the event: "
                                + ok.message()));
                    }
                }
            }

            @Override
            void failed(String why) {
                answer.complete(new NostrDelivery.Undelivered(settings.url() + ": " + why));
            }
        };
        return session.run(answer, timeout, () -> new NostrDelivery.Undelivered(settings.url() + " did not answer"
                + " within " + timeout.toMillis() + " ms"));
    }

    /**
     * Runs {@code filter} (one NIP-01 filter object as JSON) on the relay of {@code settings} up to {@code EOSE}.
     *
     * @return the stored events (at most {@value #MAX_QUERY_EVENTS}; not checked here), or empty when the relay could
     *         not be asked (the reason is logged by the caller's choice, not here)
     */
    public Optional<List<NostrEventJson.Decoded>> query(RelaySettings settings, String filter, Duration timeout) {
        String frame = "[\"REQ\",\"" + QUERY_ID + "\"," + filter + "]";
        List<NostrEventJson.Decoded> events = new ArrayList<>();
        CompletableFuture<Optional<List<NostrEventJson.Decoded>>> answer = new CompletableFuture<>();
        Session session = new Session(settings, frame) {
            @Override
            public void received(RelayConnection.Link link, RelayMessage message) {
                switch (message) {
                    case RelayMessage.Event event when event.subscription().equals(QUERY_ID) -> {
                        synchronized (events) {
                            if (events.size() < MAX_QUERY_EVENTS) {
                                events.add(event.event());
                            }
                        }
                    }
                    case RelayMessage.EndOfStoredEvents eose when eose.subscription().equals(QUERY_ID) -> {
                        link.send("[\"CLOSE\",\"" + QUERY_ID + "\"]");
                        synchronized (events) {
                            answer.complete(Optional.of(List.copyOf(events)));
                        }
                    }
                    case RelayMessage.Closed closed when closed.subscription().equals(QUERY_ID) -> {
                        if (!authRequired(link, closed.message())) {
                            answer.complete(Optional.empty());
                        }
                    }
                    default -> {
                        // other messages do not concern the query
                    }
                }
            }

            @Override
            void failed(String why) {
                answer.complete(Optional.empty());
            }
        };
        return session.run(answer, timeout, Optional::empty);
    }

    /** One connection, one frame (sent again once after NIP-42 AUTH when the relay asked for it). */
    private abstract class Session implements RelayConnection.Listener {
        private final RelaySettings settings;
        private final String frame;
        private RelayConnection connection;
        private boolean authWanted;
        private boolean authSent;

        Session(RelaySettings settings, String frame) {
            this.settings = settings;
            this.frame = frame;
        }

        @Override
        public abstract void received(RelayConnection.Link link, RelayMessage message);

        abstract void failed(String why);

        <T> T run(CompletableFuture<T> answer, Duration timeout, java.util.function.Supplier<T> onTimeout) {
            connection = new RelayConnection(settings, http, timer, this);
            try {
                connection.connect();
                return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return onTimeout.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return onTimeout.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("a relay exchange failed unexpectedly", e.getCause());
            } finally {
                connection.close();
            }
        }

        /** The relay wants NIP-42 AUTH ({@code auth-required:}): sent now or on its challenge; false when it cannot be. */
        synchronized boolean authRequired(RelayConnection.Link link, String message) {
            if (!message.startsWith("auth-required:") || authSigner.isEmpty() || authSent) {
                return false;
            }
            authWanted = true;
            authenticate(link);
            return true;
        }

        private synchronized void authenticate(RelayConnection.Link link) {
            Optional<String> auth = link.authEvent(authSigner.orElseThrow(), clock);
            if (auth.isPresent()) {
                authWanted = false;
                authSent = true;
                link.send(auth.get());
            }
        }

        @Override
        public void opened(RelayConnection.Link link) {
            link.send(frame);
        }

        @Override
        public synchronized void challenged(RelayConnection.Link link, String challenge) {
            if (authWanted) {
                authenticate(link);
            }
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            if (accepted) {
                link.send(frame);
            } else {
                failed("the relay refused the sidecar's NIP-42 AUTH: " + message);
            }
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            connection.close();
            failed(why);
        }

        @Override
        public void unreachable(String why, int failures, Duration retryIn) {
            connection.close();
            failed("unreachable (" + why + ")");
        }
    }
}
