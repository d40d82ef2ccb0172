package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryAdminMessageQueries;
import buzz.scheduled.application.fakes.FakeOwnerWriteLimiter;
import buzz.scheduled.application.fakes.InMemoryChannelAdministration;
import buzz.scheduled.application.fakes.InMemoryDeliveryStore;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.port.in.ReservationsUseCase;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.service.AttemptsService;
import buzz.scheduled.application.service.OperatorActionsService;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.application.service.InProcessReplayStore;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.ReservationsService;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The real HTTP API on an ephemeral loopback port over the application's in-memory fakes, with a client that
 * signs NIP-98 headers. Signatures are fake ({@link FakeEventSignatures} accepts every event a test does not mark
 * invalid) but ids are real (computed from the canonical serialization), so the NIP-98 service, the strict reader
 * and admission see well-formed events. Real BIP-340 end to end is bootstrap's test.
 */
final class ApiFixture implements AutoCloseable {
    /** 2026-01-01T00:00:00Z. */
    static final Instant START = Instant.ofEpochSecond(1_767_225_600L);
    static final URI BASE = URI.create("https://sched.example.test");
    static final PublicKey ALICE = new PublicKey("a1".repeat(32));
    static final PublicKey BOB = new PublicKey("b2".repeat(32));
    /** The one pubkey in the operator set (RELAY_OPERATOR_PUBKEYS). */
    static final PublicKey OPERATOR = new PublicKey("0e".repeat(32));
    static final String CHANNEL = "general";
    /** Small limits so tests reach them quickly. */
    static final int MAX_CONTENT_BYTES = 2048;
    static final int MAX_PENDING = 5;
    static final int MAX_PER_WINDOW = 3;
    /** Every owner's messages due in one channel window together (the backstop). */
    static final int MAX_WINDOW_TOTAL = 4;
    /** The whole-event limit (tags count): small enough to reach under the body cap. */
    static final int MAX_EVENT_BYTES = 6000;
    static final int MAX_EVENT_TAGS = 20;
    /** The lateness limit an operator's requeue is checked against. */
    static final Duration MAX_LATENESS = Duration.ofSeconds(900);

    private static final ObjectMapper JSON = new ObjectMapper();

    final SettableClock clock = new SettableClock(START);
    final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    final InMemoryDeliveryStore delivery = new InMemoryDeliveryStore(store, clock);
    final FaultyScheduleStore faults = new FaultyScheduleStore(store);
    final FakeEventSignatures signatures = new FakeEventSignatures();
    final ScriptedAccessPolicy access = new ScriptedAccessPolicy();
    final InMemoryChannelAdministration administration = new InMemoryChannelAdministration(store);
    /** Unlimited unless a test gives an owner a number of writes. */
    final FakeOwnerWriteLimiter writes = new FakeOwnerWriteLimiter();
    /** The NIP-98 replay guard's store, which a test may slow down (a pool with no connection to lend). */
    final SlowReplayStore replays = new SlowReplayStore(new InProcessReplayStore(10_000, clock));
    final HttpSettings settings;
    final HttpApi api;
    final io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
            new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                    io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
    final int port;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicLong nonce = new AtomicLong();

    ApiFixture() {
        this(settings -> settings, () -> new ReadinessCheck.Readiness.Ready());
    }

    ApiFixture(UnaryOperator<HttpSettings> tune, ReadinessCheck readiness) {
        this(tune, readiness, null, api -> api);
    }

    /**
     * @param reservations what the operator routes read reservations from; null: the in-memory
     *                     channel administration's
     * @param configure    applied to the API before it starts ({@code reportDatabase}, {@code reportHealth})
     */
    ApiFixture(UnaryOperator<HttpSettings> tune, ReadinessCheck readiness, ReservationsUseCase reservations,
               UnaryOperator<HttpApi> configure) {
        SchedulingSettings scheduling = new SchedulingSettings(
                new AdmissionRules(AdmissionRules.DEFAULT_KINDS, MAX_CONTENT_BYTES, Duration.ofDays(120),
                        MAX_EVENT_BYTES, MAX_EVENT_TAGS),
                new CreateLimits(MAX_PENDING, MAX_PER_WINDOW, MAX_WINDOW_TOTAL, Duration.ofMinutes(5), 1),
                Duration.ofSeconds(900));
        OwnerMessagesService service = new OwnerMessagesService(faults, faults, faults, signatures, access,
                new SequentialScheduleIds(), clock, DueWorkNotice.NONE, scheduling, RelayLimits.UNKNOWN, writes);
        AttemptsService attempts = new AttemptsService(store, new InMemoryAdminMessageQueries(store), delivery);
        OperatorActionsService actions = new OperatorActionsService(store, store, clock, DueWorkNotice.NONE,
                scheduling, MAX_LATENESS);
        settings = tune.apply(HttpSettings.of(true, BASE, Duration.ofDays(120), MAX_CONTENT_BYTES, MAX_PENDING));
        api = configure.apply(new HttpApi(OwnerUseCases.of(service), OperatorAccess.of(java.util.Set.of(OPERATOR),
                OperatorUseCases.of(reservations == null ? new ReservationsService(administration) : reservations,
                        new DeletionService(administration))),
                new AuthenticateRequestService(signatures, clock, AuthenticateRequestService.DEFAULT_WINDOW, replays),
                readiness, settings)
                .meters(registry, registry::scrape)
                .deliveryHistory(attempts, attempts)
                .operatorActions(actions, actions, attempts));
        port = api.start("127.0.0.1", 0);
    }

    @Override
    public void close() {
        faults.release();
        api.stop();
    }

    // ---- events ----------------------------------------------------------------------------------------------

    /** A kind-9 message by {@code author} in {@link #CHANNEL}, due {@code dueIn} from the clock. */
    NostrEvent message(PublicKey author, Duration dueIn, String content) {
        return event(author, clock.now().plus(dueIn).getEpochSecond(), 9, List.of(List.of("h", CHANNEL)), content);
    }

    NostrEvent message(PublicKey author, Duration dueIn) {
        return message(author, dueIn, "hello " + nonce.incrementAndGet());
    }

    /**
     * An event with a stand-in signature that differs per event as real ones do (the NIP-98 replay guard remembers
     * signatures): its id twice.
     */
    static NostrEvent event(PublicKey author, long createdAt, int kind, List<List<String>> tags, String content) {
        UnsignedEvent unsigned = new UnsignedEvent(author, createdAt, kind, tags, content);
        return unsigned.withSignature(new Signature(unsigned.computeId().hex().repeat(2)));
    }

    /** {@code {"event":<wire JSON>}}. */
    static String envelope(NostrEvent event) {
        return "{\"event\":" + NostrEventJson.write(event) + "}";
    }

    // ---- requests --------------------------------------------------------------------------------------------

    /** An HTTP answer with its body parsed when it is JSON. */
    record Reply(int status, HttpResponse<String> response, JsonNode json) {
        String error() {
            return json == null || json.get("error") == null ? null : json.get("error").asText();
        }

        String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }

        String text() {
            return response.body();
        }
    }

    /** A request builder: method, path (with query), optional body, signer, extra headers. */
    final class Call {
        private final String method;
        private final String path;
        private String body;
        private PublicKey signer;
        private final List<String> headers = new ArrayList<>();
        private String authorization;
        private boolean payloadTag = true;

        Call(String method, String path) {
            this.method = method;
            this.path = path;
        }

        Call body(String text) {
            this.body = text;
            return this;
        }

        Call as(PublicKey owner) {
            this.signer = owner;
            return this;
        }

        Call header(String name, String value) {
            headers.add(name);
            headers.add(value);
            return this;
        }

        /** Sends this exact Authorization header instead of signing one. */
        Call authorization(String value) {
            this.authorization = value;
            return this;
        }

        Call withoutPayloadTag() {
            this.payloadTag = false;
            return this;
        }

        Reply send() {
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(20))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(bytes));
            if (body != null) {
                request.header("Content-Type", "application/json");
            }
            if (bytes.length > settings.maxBodyBytes()) {
                // As a client uploading a body this large should (RFC 9110 §10.1.1): the server answers 413 from the
                // declared length and closes the connection unread, and a client still sending the body may then get
                // a reset instead of that answer (RFC 9112 §9.6); with Expect it gets the answer before it sends.
                request.expectContinue(true);
            }
            for (int i = 0; i < headers.size(); i += 2) {
                request.header(headers.get(i), headers.get(i + 1));
            }
            String auth = authorization != null ? authorization
                    : signer != null ? nip98(signer, method, BASE + path, bytes, payloadTag) : null;
            if (auth != null) {
                request.header("Authorization", auth);
            }
            try {
                HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
                JsonNode json = null;
                String type = response.headers().firstValue("Content-Type").orElse("");
                if (type.contains("json") && !response.body().isEmpty()) {
                    json = JSON.readTree(response.body());
                }
                return new Reply(response.statusCode(), response, json);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    Call call(String method, String path) {
        return new Call(method, path);
    }

    /** Creates {@code event} as its author and expects 201. */
    Reply create(NostrEvent event) {
        Reply reply = call("POST", "/v1/scheduled-messages").as(event.pubkey()).body(envelope(event)).send();
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply;
    }

    /** A NIP-98 header for the request (a unique nonce tag keeps each header's id fresh for the replay guard). */
    String nip98(PublicKey signer, String method, String url, byte[] body, boolean payloadTag) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("u", url));
        tags.add(List.of("method", method));
        if (payloadTag && body.length > 0) {
            tags.add(List.of("payload", sha256(body)));
        }
        tags.add(List.of("nonce", Long.toString(nonce.incrementAndGet())));
        NostrEvent auth = event(signer, clock.now().getEpochSecond(), 27235, tags, "");
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(auth).getBytes(StandardCharsets.UTF_8));
    }

    static String sha256(byte[] body) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Leaves the message {@code claimed}, as a dispatcher of an earlier version did (its claim went through a
     * separate pre-send step); today's claim goes straight to {@code sending}, but such rows may still be stored.
     */
    ScheduledMessage claim(String id) {
        ScheduledMessage message = stored(id);
        if (clock.now().isBefore(message.dueAt())) {
            clock.set(message.dueAt());
        }
        ScheduledMessage claimed = new ScheduledMessage(message.id(), message.owner(), message.channel(),
                message.revision(), message.eventId(), message.dueAt(), message.event(),
                new ScheduleState.Claimed(new FencingToken(1), clock.now().plus(Duration.ofMinutes(5))),
                message.attempts() + 1, message.createdAt(), clock.now());
        assertThat(store.replace(message, claimed)).isTrue();
        return stored(id);
    }

    /** Claims it the way the dispatcher does, straight into {@code sending}. */
    ScheduledMessage sending(String id) {
        ScheduledMessage message = stored(id);
        if (clock.now().isBefore(message.dueAt())) {
            clock.set(message.dueAt());
        }
        assertThat(delivery.claim(100, Duration.ofMinutes(5)).messages())
                .extracting(m -> m.claim().id()).contains(message.id());
        ScheduledMessage sending = stored(id);
        assertThat(sending.state()).isInstanceOf(ScheduleState.Sending.class);
        return sending;
    }

    /** Claims, sends and records the relay's acceptance: {@code published}. */
    ScheduledMessage published(String id) {
        ScheduledMessage sending = sending(id);
        return finish(new DeliveryStore.Finish.Publish(claimOf(sending), sending.revision()));
    }

    /** Claims and fails it for {@code reason}. */
    ScheduledMessage failed(String id, FailureReason reason) {
        ScheduledMessage sending = sending(id);
        return finish(new DeliveryStore.Finish.Fail(claimOf(sending), sending.revision(), reason, ""));
    }

    private ScheduledMessage finish(DeliveryStore.Finish finish) {
        assertThat(delivery.finish(List.of(finish)).get(0).recorded()).isTrue();
        return stored(finish.claim().id().toString());
    }

    private static DeliveryStore.Claim claimOf(ScheduledMessage sending) {
        return new DeliveryStore.Claim(sending.id(), sending.token().orElseThrow());
    }

    /** The stored message with this item id. */
    ScheduledMessage stored(String id) {
        return store.find(buzz.scheduled.domain.schedule.ScheduleId.parse(id)).orElseThrow();
    }
}
