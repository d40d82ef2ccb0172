package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.NostrEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Stable create retries (docs/openapi.yaml {@code createScheduledMessage}, docs/failure-scenarios.md F14). */
class IdempotentCreateTest {
    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private ApiFixture.Reply create(buzz.scheduled.domain.nostr.PublicKey owner, NostrEvent event, String key) {
        ApiFixture.Call call = api.call("POST", "/v1/scheduled-messages").as(owner).body(envelope(event));
        if (key != null) {
            call.header("Idempotency-Key", key);
        }
        return call.send();
    }

    @Test
    void create_fiftyConcurrentIdenticalCreates_storeOneRowAndAnswerOneId() throws Exception {
        NostrEvent event = api.message(ALICE, Duration.ofHours(1));
        CountDownLatch go = new CountDownLatch(1);
        List<Future<ApiFixture.Reply>> replies = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(50)) {
            for (int i = 0; i < 50; i++) {
                replies.add(pool.submit(() -> {
                    go.await();
                    return create(ALICE, event, "retry-key-1");
                }));
            }
            go.countDown();
            List<ApiFixture.Reply> answers = new ArrayList<>();
            for (Future<ApiFixture.Reply> reply : replies) {
                answers.add(reply.get());
            }

            assertThat(answers).extracting(ApiFixture.Reply::status).containsOnly(200, 201);
            assertThat(answers).filteredOn(reply -> reply.status() == 201).hasSize(1);
            assertThat(answers).extracting(reply -> reply.json().get("id").asText()).containsOnly(
                    answers.get(0).json().get("id").asText());
            assertThat(answers).extracting(ApiFixture.Reply::text).as("identical bodies")
                    .containsOnly(answers.get(0).text());
            assertThat(api.store.size()).isEqualTo(1);
        }

        ApiFixture.Reply conflict = create(ALICE, api.message(ALICE, Duration.ofHours(2)), "retry-key-1");

        assertThat(conflict.status()).as(conflict.text()).isEqualTo(422);
        assertThat(conflict.error()).isEqualTo("idempotency_conflict");
        assertThat(conflict.json().get("message").asText()).contains(event.id().hex());
        assertThat(api.store.size()).isEqualTo(1);
    }

    @Test
    void create_sameEventWithoutKey_isReplayedByEventId() {
        NostrEvent event = api.message(ALICE, Duration.ofHours(1));
        ApiFixture.Reply first = create(ALICE, event, null);

        ApiFixture.Reply again = create(ALICE, event, null);

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text()).isEqualTo(first.text());
        assertThat(again.header("Location")).isEqualTo(first.header("Location"));
        assertThat(api.store.size()).isEqualTo(1);
    }

    @Test
    void create_sameKeyForAnotherOwner_isAnotherMessage() {
        create(ALICE, api.message(ALICE, Duration.ofHours(1)), "shared-key");

        ApiFixture.Reply bobs = create(BOB, api.message(BOB, Duration.ofHours(2)), "shared-key");

        assertThat(bobs.status()).as(bobs.text()).isEqualTo(201);
        assertThat(api.store.count(BOB)).isEqualTo(1);
        assertThat(api.store.size()).isEqualTo(2);
    }

    @Test
    void create_badIdempotencyKey_answers400InvalidRequest() {
        ApiFixture.Reply tooLong = create(ALICE, api.message(ALICE, Duration.ofHours(1)), "k".repeat(256));

        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.error()).isEqualTo("invalid_request");
        assertThat(tooLong.json().get("message").asText()).contains("255");
        assertThat(api.store.size()).isZero();
    }
}
