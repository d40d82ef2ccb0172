package buzz.scheduled.benchmarks.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LoopbackRelayTest {
    private static final Instant RECEIVED_AT = Instant.ofEpochSecond(1_800_000_000L, 123_456_789);
    private List<DueEvent> events;
    private LoopbackRelay relay;
    private RelayClient client;

    @BeforeEach
    void start() {
        // Signed here, not in a static initializer: the parallel signing calls back into this class's lambda.
        events = new DueEvents(3).sign(0, 3, n -> 1_700_000_000L + n);
        relay = LoopbackRelay.start(() -> RECEIVED_AT);
        SecureRandom random = new SecureRandom();
        client = new RelayClient(RelaySettings.of(relay.url()),
                AuthEventSigner.with(new Bip340Signer(SecretKey.generate(random), random)), Instant::now);
    }

    @AfterEach
    void stop() {
        client.close();
        relay.close();
    }

    @Test
    void publish_throughTheSidecarsRelayClient_isAcceptedAndRecordedWithItsArrivalTime() {
        LoopbackRelay.Recording recording = relay.record();

        for (DueEvent due : events) {
            assertThat(client.publish(due.event(), Duration.ofSeconds(5)))
                    .isEqualTo(new PublishResult.Published(false, ""));
        }

        assertThat(recording.distinct()).isEqualTo(3);
        assertThat(recording.events()).isEqualTo(3);
        assertThat(recording.firstArrival(events.get(1).id())).isEqualTo(1_800_000_000_123_456_789L);
        assertThat(recording.firstArrival("f".repeat(64))).isEqualTo(-1);
        assertThat(relay.unexpectedMessages()).isZero();
    }

    @Test
    void publish_sameEventTwice_isOneIdArrivingTwice() {
        LoopbackRelay.Recording recording = relay.record();

        client.publish(events.get(0).event(), Duration.ofSeconds(5));
        client.publish(events.get(0).event(), Duration.ofSeconds(5));

        assertThat(recording.distinct()).isEqualTo(1);
        assertThat(recording.events()).isEqualTo(2);
        assertThat(recording.receipts().get(events.get(0).id()).count()).isEqualTo(2);
    }

    @Test
    void record_afterAPhase_sendsLaterArrivalsToTheNewRecordingOnly() {
        LoopbackRelay.Recording first = relay.record();
        client.publish(events.get(0).event(), Duration.ofSeconds(5));

        LoopbackRelay.Recording second = relay.record();
        client.publish(events.get(1).event(), Duration.ofSeconds(5));

        assertThat(first.receipts()).containsOnlyKeys(events.get(0).id());
        assertThat(second.receipts()).containsOnlyKeys(events.get(1).id());
    }

    @Test
    void message_fragmentedOverTwoFrames_isReassembledAndAnswered() throws Exception {
        String wire = "[\"EVENT\"," + events.get(2).json() + "]";
        LoopbackRelay.Recording recording = relay.record();
        try (HttpClient http = HttpClient.newHttpClient()) {
            FirstText answer = new FirstText();
            WebSocket socket = http.newWebSocketBuilder().buildAsync(relay.url(), answer).get(5, TimeUnit.SECONDS);
            socket.sendText(wire.substring(0, 40), false).get(5, TimeUnit.SECONDS);
            socket.sendText(wire.substring(40), true).get(5, TimeUnit.SECONDS);

            assertThat(answer.text.get(5, TimeUnit.SECONDS))
                    .isEqualTo("[\"OK\",\"" + events.get(2).id() + "\",true,\"\"]");
            assertThat(recording.distinct()).isEqualTo(1);
            socket.abort();
        }
    }

    @Test
    void message_otherThanEvent_getsANoticeAndIsCounted() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            FirstText answer = new FirstText();
            WebSocket socket = http.newWebSocketBuilder().buildAsync(relay.url(), answer).get(5, TimeUnit.SECONDS);
            socket.sendText("[\"REQ\",\"sub\",{}]", true).get(5, TimeUnit.SECONDS);

            assertThat(answer.text.get(5, TimeUnit.SECONDS)).startsWith("[\"NOTICE\",");
            assertThat(relay.unexpectedMessages()).isEqualTo(1);
            socket.abort();
        }
    }

    @Test
    void eventIdOf_eventMessageAsTheRelayClientWritesIt_givesTheId() {
        String id = "0123456789abcdef".repeat(4);

        assertThat(LoopbackRelay.eventIdOf(bytes("[\"EVENT\",{\"id\":\"" + id + "\",\"pubkey\":\"x\"}]"))).isEqualTo(id);
    }

    @Test
    void eventIdOf_otherShapes_giveNull() {
        String id = "0123456789abcdef".repeat(4);

        assertThat(LoopbackRelay.eventIdOf(bytes("[\"AUTH\",{\"id\":\"" + id + "\"}]"))).isNull();
        assertThat(LoopbackRelay.eventIdOf(bytes("[\"EVENT\",{\"id\":\"" + id.toUpperCase() + "\"}]"))).isNull();
        assertThat(LoopbackRelay.eventIdOf(bytes("[\"EVENT\",{\"id\":\"" + id.substring(1) + "\"}]"))).isNull();
        assertThat(LoopbackRelay.eventIdOf(bytes("[\"EVENT\",{\"id\":\"" + id + "\"}"))).isNull();
        assertThat(LoopbackRelay.eventIdOf(bytes(""))).isNull();
    }

    @Test
    void acceptKey_rfc6455Example_givesItsAnswer() {
        // RFC 6455 §1.3.
        assertThat(LoopbackRelay.acceptKey("dGhlIHNhbXBsZSBub25jZQ==")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Completes with the first text message the relay sends. */
    private static final class FirstText implements WebSocket.Listener {
        final CompletableFuture<String> text = new CompletableFuture<>();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.complete(data.toString());
            webSocket.request(1);
            return null;
        }
    }
}
