package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.ScriptedRelayPublisher;
import buzz.scheduled.application.port.out.DeliveryObserver.DeliveryReport;
import buzz.scheduled.application.port.out.DeliveryObserver.Outcome;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's own promises (docs/delivery.md, "The hot path"), in memory: a window of frames with mixed answers
 * records each item once with its outcome; a grouped write with one failing row finishes the others at once and
 * retries that row alone; frames never written are given back at a graceful stop for another node to send; a frame
 * longer than the relay's NIP-11 {@code max_message_length} and a message past the lateness limit end without being
 * sent; and the observer hears one report per recorded outcome, with lateness on the store's clock.
 */
class DispatcherPipelineTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final DeliverySettings deliverySettings = DispatchFixture.deliverySettings();
    private final SteppedDeliveryStore delivery = fx.stepped();

    @AfterEach
    void stop() {
        delivery.releaseFinish();
        fx.relay.resume();
        fx.close();
    }

    /** What one item of the mixed window is answered, and what must be recorded for it. */
    private record Expected(PublishResult answer, Outcome outcome, String kind, String state) {
    }

    @Test
    void oneWindowWithMixedAnswers_recordsEachItemExactlyOnce_withItsOutcomeAndKind() throws Exception {
        Map<String, Expected> cases = new LinkedHashMap<>();
        cases.put("ok", new Expected(new PublishResult.Published(false, ""), Outcome.PUBLISHED, "ok", "published"));
        cases.put("duplicate", new Expected(new PublishResult.Published(true, "duplicate: already have this event"),
                Outcome.PUBLISHED, "duplicate", "published"));
        cases.put("found", new Expected(new PublishResult.Published(PublishResult.Acceptance.FOUND, ""),
                Outcome.PUBLISHED, "found", "published"));
        cases.put("invalid", new Expected(new PublishResult.Rejected("invalid", "bad signature"), Outcome.REJECTED,
                "invalid", "failed"));
        cases.put("auth-required", new Expected(new PublishResult.Transient(
                "auth-required: we only accept events from authenticated users"), Outcome.RETRIED, "auth-required",
                "scheduled"));
        cases.put("dropped", new Expected(new PublishResult.Transient("dropped: connection closed (1006)"),
                Outcome.RETRIED, "dropped", "scheduled"));
        cases.put("not-sent", new Expected(new PublishResult.NotSent("reconnect: the frame was never written"),
                Outcome.RETRIED, "not-sent", "scheduled"));
        Map<String, ScheduledMessage> messages = new LinkedHashMap<>();
        cases.keySet().forEach(content -> messages.put(content, fx.schedule(T0, content)));
        CountDownLatch written = new CountDownLatch(cases.size() - 1);
        CountDownLatch answer = new CountDownLatch(1);
        fx.relay.always((event, timeout) -> {
            written.countDown();
            answer.await(10, TimeUnit.SECONDS);
            return cases.get(event.content()).answer();
        });
        RelayPublisher relay = new NotWritten(fx.relay, Set.of(messages.get("not-sent").eventId()),
                cases.get("not-sent").answer());

        Dispatcher dispatcher = fx.start(delivery, relay, signal, DispatchFixture.dispatcherSettings(
                deliverySettings, 8));
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(delivery.claimSizes.stream().mapToInt(Integer::intValue).sum())
                .as("all seven claimed before any written frame was answered: one window").isEqualTo(7);
        assertThat(dispatcher.counts().claimed()).isEqualTo(7);
        answer.countDown();
        messages.values().forEach(message -> fx.awaitReports(message, 1));
        int claimsBefore = delivery.claimCalls.get();
        signal.wakeUp();
        Poll.until("another pass of the claim loop", () -> delivery.claimCalls.get() > claimsBefore);

        assertThat(fx.observer.reports()).hasSize(7);
        cases.forEach((content, expected) -> {
            ScheduledMessage message = messages.get(content);
            assertThat(fx.observer.reportsOf(message.id())).as(content).singleElement().satisfies(report -> {
                assertThat(report.outcome()).as(content).isEqualTo(expected.outcome());
                assertThat(report.relayKind()).as(content).isEqualTo(expected.kind());
                assertThat(report.attempts()).as(content).isEqualTo(1);
            });
            assertThat(fx.state(message)).as(content).isEqualTo(expected.state());
            assertThat(fx.relay.sends(message.eventId())).as(content).isEqualTo(content.equals("not-sent") ? 0 : 1);
        });
        assertThat(fx.row(messages.get("invalid")).failureReason()).contains(FailureReason.RELAY_REJECTED);
        assertThat(fx.row(messages.get("invalid")).event()).as("kept for an operator's requeue").isPresent();
        for (String retried : List.of("auth-required", "dropped", "not-sent")) {
            assertThat(fx.row(messages.get(retried)).state()).isEqualTo(new ScheduleState.Scheduled(
                    Optional.of(T0.plus(deliverySettings.backoff().delay(1)))));
        }
        DispatcherCounts counts = dispatcher.counts();
        assertThat(List.of(counts.published(), counts.rejected(), counts.retried(), counts.notSent()))
                .containsExactly(3L, 1L, 3L, 1L);
        assertThat(counts.lostAfterSend()).isZero();
        assertThat(counts.writeFailures()).isZero();
    }

    /** Answers chosen events with {@code result} without writing them (a frame never written); passes on the rest. */
    private record NotWritten(RelayPublisher inner, Set<EventId> ids, PublishResult result) implements RelayPublisher {
        @Override
        public PublishResult publish(NostrEvent event, Duration timeout) {
            return inner.publish(event, timeout);
        }

        @Override
        public void publish(Publication publication, Consumer<PublishResult> answer) {
            if (ids.contains(publication.eventId())) {
                answer.accept(result);
            } else {
                inner.publish(publication, answer);
            }
        }

        @Override
        public void lookUp(Publication publication, Consumer<PublishResult> answer) {
            inner.lookUp(publication, answer);
        }

        @Override
        public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
            inner.resolveThenPublish(publication, answer);
        }

        @Override
        public int withdrawUnsent() {
            return inner.withdrawUnsent();
        }
    }

    /** Passes every publication on and counts answers once the dispatcher has taken them. */
    private record CountingAnswers(RelayPublisher inner, AtomicInteger answered) implements RelayPublisher {
        @Override
        public PublishResult publish(NostrEvent event, Duration timeout) {
            return inner.publish(event, timeout);
        }

        @Override
        public void publish(Publication publication, Consumer<PublishResult> answer) {
            inner.publish(publication, result -> {
                answer.accept(result);
                answered.incrementAndGet();
            });
        }

        @Override
        public void lookUp(Publication publication, Consumer<PublishResult> answer) {
            inner.lookUp(publication, answer);
        }

        @Override
        public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
            inner.resolveThenPublish(publication, answer);
        }

        @Override
        public int withdrawUnsent() {
            return inner.withdrawUnsent();
        }
    }

    @Test
    void groupedWriteWithOneFailingRow_finishesTheOthersAtOnce_retriesThatRowAloneUntilItLands_andNeverResendsIt()
            throws Exception {
        ScheduledMessage first = fx.schedule(T0, "first");
        ScheduledMessage b = fx.schedule(T0.plusSeconds(1), "b");
        ScheduledMessage c = fx.schedule(T0.plusSeconds(1), "c");
        ScheduledMessage failing = fx.schedule(T0.plusSeconds(1), "failing");
        fx.clock.set(T0.plusSeconds(1));
        CountDownLatch rest = new CountDownLatch(1);
        fx.relay.always((event, timeout) -> {
            if (!event.id().equals(first.eventId())) {
                rest.await(10, TimeUnit.SECONDS);
            }
            return new PublishResult.Published(false, "");
        });
        AtomicInteger failuresLeft = new AtomicInteger(3);
        Map<String, String> neighboursWhenItFailedAlone = new ConcurrentHashMap<>();
        fx.deliveryStore.failWritesOf(finish -> {
            if (!finish.claim().id().equals(failing.id()) || failuresLeft.get() == 0) {
                return false;
            }
            if (failuresLeft.getAndDecrement() == 2) {
                neighboursWhenItFailedAlone.put("b", fx.state(b));
                neighboursWhenItFailedAlone.put("c", fx.state(c));
            }
            return true;
        });
        AtomicInteger answered = new AtomicInteger();
        delivery.holdNextFinish();

        fx.stepTime();
        Dispatcher dispatcher = fx.start(delivery, new CountingAnswers(fx.relay, answered), signal,
                DispatchFixture.dispatcherSettings(deliverySettings));
        delivery.awaitFinishHeld();
        rest.countDown();
        Poll.until("the three other answers to wait behind the held write", () -> answered.get() == 4);
        delivery.releaseFinish();
        // The failing row is tried again alone after 50 ms, 100 ms and 200 ms on the monotonic clock.
        for (int failure = 1; failure <= 3; failure++) {
            int seen = failure;
            Poll.until("failed write " + failure, () -> dispatcher.counts().writeFailures() == seen);
            assertThat(delivery.finishes).hasSize(failure + 1);
            fx.advance(Duration.ofMillis(50L << (failure - 1)));
        }
        fx.awaitReports(failing, 1);

        List<List<Finish>> writes = delivery.finishes;
        assertThat(writes).hasSize(5);
        assertThat(ids(writes.get(0))).containsExactly(first.id().toString());
        assertThat(ids(writes.get(1))).as("one grouped write").containsExactlyInAnyOrder(b.id().toString(),
                c.id().toString(), failing.id().toString());
        assertThat(writes.subList(2, 5)).as("the failing row tried again alone")
                .allSatisfy(write -> assertThat(ids(write)).containsExactly(failing.id().toString()));
        assertThat(neighboursWhenItFailedAlone).containsEntry("b", "published").containsEntry("c", "published");
        assertThat(List.of(first, b, c, failing)).allSatisfy(message -> {
            assertThat(fx.state(message)).isEqualTo("published");
            assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
            assertThat(fx.row(message).attempts()).isEqualTo(1);
            assertThat(fx.observer.reportsOf(message.id())).hasSize(1);
        });
        assertThat(dispatcher.counts().writeFailures()).isEqualTo(3);
        assertThat(dispatcher.counts().published()).isEqualTo(4);
        assertThat(dispatcher.counts().abandoned()).isZero();
    }

    private static List<String> ids(List<Finish> write) {
        return write.stream().map(finish -> finish.claim().id().toString()).toList();
    }

    @Test
    void stopWithFramesHeldUnwritten_givesThemBackAtOnce_andAnotherDispatcherClaimsAndPublishesThem() {
        List<ScheduledMessage> messages = IntStream.range(0, 3).mapToObj(i -> fx.schedule(T0, "handed over " + i))
                .toList();
        fx.relay.pause();
        Dispatcher leaving = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(deliverySettings));
        Poll.until("three frames waiting to be written", () -> fx.relay.waiting() == 3);

        Dispatcher.Shutdown shutdown = fx.stop(leaving, Duration.ofSeconds(10));
        assertThat(shutdown.withdrawn()).isEqualTo(3);
        assertThat(shutdown.released()).isEqualTo(3);
        assertThat(shutdown.unfinished()).isZero();
        assertThat(messages).allSatisfy(m -> assertThat(fx.row(m).state()).isEqualTo(ScheduleState.Scheduled.NOW));
        fx.relay.resume();
        Dispatcher other = fx.start(fx.stepped(), new RecordingSignal(),
                DispatchFixture.dispatcherSettings(deliverySettings));
        messages.forEach(message -> fx.awaitReports(message, 1));

        assertThat(messages).allSatisfy(message -> {
            assertThat(fx.state(message)).isEqualTo("published");
            assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
            assertThat(fx.row(message).attempts()).isEqualTo(2);
            assertThat(fx.observer.reportsOf(message.id())).singleElement()
                    .satisfies(report -> assertThat(report.lateness()).contains(Duration.ZERO));
        });
        assertThat(fx.clock.now()).as("claimable at once: the store's clock never moved").isEqualTo(T0);
        assertThat(other.counts().published()).isEqualTo(3);
        assertThat(leaving.counts().published()).isZero();
        assertThat(leaving.counts().notSent()).isEqualTo(3);
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void frameLongerThanTheRelaysMaxMessageLength_failsRelayRejectedTooLarge_unsent_whileItsNeighboursArePublished() {
        ScheduledMessage small = fx.schedule(T0, "small a");
        ScheduledMessage atTheLimit = fx.schedule(T0, "small b");
        ScheduledMessage large = fx.schedule(T0, "large " + "x".repeat(2_000));
        int limit = Math.toIntExact(frameBytes(atTheLimit));
        assertThat(frameBytes(small)).isEqualTo(limit);
        fx.limitation = new RelayLimits.Limitation(OptionalInt.of(limit), OptionalInt.empty(), OptionalInt.empty(),
                OptionalLong.empty(), OptionalLong.empty());

        Dispatcher dispatcher = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(deliverySettings));
        List.of(small, atTheLimit, large).forEach(message -> fx.awaitReports(message, 1));

        assertThat(fx.row(large).failureReason()).contains(FailureReason.RELAY_REJECTED);
        assertThat(fx.row(large).event()).isPresent();
        assertThat(fx.relay.sends(large.eventId())).isZero();
        assertThat(fx.observer.reportsOf(large.id())).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(Outcome.REJECTED);
            assertThat(report.relayKind()).isEqualTo("too-large");
            assertThat(report.detail()).startsWith("too-large: ").contains(Integer.toString(limit))
                    .contains(Long.toString(frameBytes(large)));
        });
        assertThat(List.of(small, atTheLimit)).allSatisfy(message -> {
            assertThat(fx.state(message)).isEqualTo("published");
            assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        });
        assertThat(dispatcher.counts().rejected()).isEqualTo(1);
        assertThat(dispatcher.counts().sent()).isEqualTo(2);
    }

    /** Bytes of the {@code ["EVENT",…]} frame of a message's event as admitted. */
    private static long frameBytes(ScheduledMessage message) {
        return InFlight.FRAME_OVERHEAD + NostrEventJson.write(message.event().orElseThrow())
                .getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    @Test
    void messageDueLongerAgoThanTheLatenessLimit_failsExpiredUnsent_whileOneJustWithinItIsPublished() {
        ScheduledMessage expired = fx.schedule(T0, "too late");
        ScheduledMessage justInTime = fx.schedule(T0.plusSeconds(1), "just in time");
        fx.clock.set(T0.plusSeconds(1).plus(deliverySettings.maxLateness()));

        Dispatcher dispatcher = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(deliverySettings));
        fx.awaitReports(expired, 1);
        fx.awaitReports(justInTime, 1);

        assertThat(fx.row(expired).failureReason()).contains(FailureReason.EXPIRED);
        assertThat(fx.row(expired).event()).isPresent();
        assertThat(fx.relay.sends(expired.eventId())).isZero();
        assertThat(fx.observer.reportsOf(expired.id())).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(Outcome.EXPIRED);
            assertThat(report.relayKind()).isEqualTo("none");
            assertThat(report.lateness()).isEmpty();
        });
        assertThat(fx.state(justInTime)).isEqualTo("published");
        assertThat(fx.observer.reportsOf(justInTime.id())).singleElement()
                .satisfies(report -> assertThat(report.lateness()).contains(deliverySettings.maxLateness()));
        assertThat(dispatcher.counts().expired()).isEqualTo(1);
        assertThat(dispatcher.counts().sent()).isEqualTo(1);
    }

    @Test
    void claimLostAfterASendAndReapedPastTheLatenessLimit_theRelayIsAskedFirst_publishedWhenItHasTheEvent() {
        ScheduledMessage sentBefore = fx.schedule(T0, "sent by a process that died");
        ScheduledMessage neverArrived = fx.schedule(T0, "claimed by a process that died before sending");
        ScheduledMessage firstClaim = fx.schedule(T0, "claimed for the first time, too late");
        fx.clock.set(T0);
        // A process claimed two of them and died (one frame had reached the relay); nobody reaped the leases
        // until the lateness limit had passed.
        assertThat(delivery.claim(2, deliverySettings.lease()).messages()).hasSize(2);
        fx.relay.has(sentBefore.eventId());
        fx.clock.set(T0.plus(deliverySettings.maxLateness()).plusSeconds(1)
                .plus(deliverySettings.lease()).plus(deliverySettings.reapGrace()));
        assertThat(delivery.reap(deliverySettings.reapGrace())).isEqualTo(2);

        Dispatcher dispatcher = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(deliverySettings));
        fx.awaitReports(sentBefore, 1);
        fx.awaitReports(neverArrived, 1);
        fx.awaitReports(firstClaim, 1);

        assertThat(fx.state(sentBefore)).isEqualTo("published");
        assertThat(fx.row(neverArrived).failureReason()).contains(FailureReason.EXPIRED);
        assertThat(fx.observer.reportsOf(sentBefore.id())).singleElement()
                .satisfies(report -> assertThat(report.outcome()).isEqualTo(Outcome.PUBLISHED));
        assertThat(fx.observer.reportsOf(neverArrived.id())).singleElement()
                .satisfies(report -> assertThat(report.outcome()).isEqualTo(Outcome.EXPIRED));
        assertThat(fx.row(firstClaim).failureReason()).contains(FailureReason.EXPIRED);
        // Asked only about the two that had been claimed before; none of the three was sent again.
        assertThat(fx.relay.lookUps()).containsExactlyInAnyOrder(sentBefore.eventId(), neverArrived.eventId());
        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(dispatcher.counts().sent()).isZero();
    }

    @Test
    void claimGivenBackUnresolvedByAStoppedNode_theRelayIsAskedFirst_foundIsPublishedUnsent_missingIsSentOnce() {
        ScheduledMessage sentBefore = fx.schedule(T0, "written by a node whose stop ended before the answer");
        ScheduledMessage neverArrived = fx.schedule(T0, "written too, and lost on the way");
        fx.clock.set(T0);
        List<ClaimedMessage> claimed = delivery.claim(2, deliverySettings.lease()).messages();
        assertThat(delivery.finish(claimed.stream().<Finish>map(m -> new Finish.Unresolved(m.claim(), m.revision()))
                .toList())).hasSize(2);
        fx.relay.has(sentBefore.eventId());

        fx.start(delivery, signal, DispatchFixture.dispatcherSettings(deliverySettings));
        fx.awaitReports(sentBefore, 1);
        fx.awaitReports(neverArrived, 1);

        assertThat(fx.state(sentBefore)).isEqualTo("published");
        assertThat(fx.state(neverArrived)).isEqualTo("published");
        assertThat(fx.relay.lookUps()).containsExactlyInAnyOrder(sentBefore.eventId(), neverArrived.eventId());
        assertThat(fx.relay.receipts()).extracting(receipt -> receipt.event().id())
                .as("only the one the relay did not have is sent").containsExactly(neverArrived.eventId());
    }

    @Test
    void observer_hearsOneReportPerRecordedOutcome_withLatenessPublishedMinusDueOnTheStoreClock() {
        ScheduledMessage onTime = fx.schedule(T0, "due first");
        ScheduledMessage later = fx.schedule(T0.plusSeconds(2), "due second");
        ScheduledMessage latest = fx.schedule(T0.plusSeconds(5), "due third");
        ScheduledMessage retried = fx.schedule(T0.plusSeconds(1), "rate limited once");
        AtomicInteger retriedAnswers = new AtomicInteger();
        ScriptedRelayPublisher.Answer relayLike = fx.relay.relayLike();
        fx.relay.always((event, timeout) -> event.id().equals(retried.eventId())
                && retriedAnswers.getAndIncrement() == 0
                ? new PublishResult.Transient("rate-limited: slow down")
                : relayLike.answer(event, timeout));
        fx.clock.set(T0.minusSeconds(1));

        fx.start(delivery, signal, DispatchFixture.dispatcherSettings(deliverySettings));
        Poll.until("the dispatcher to sleep until the first due time", signal::sleeping);
        Instant woke = T0.plusSeconds(10);
        fx.clock.set(woke);
        signal.notifyDue(Optional.empty());
        // Every first outcome is recorded on the clock at "woke" before the clock moves on for the retry.
        List.of(onTime, later, latest, retried).forEach(message -> fx.awaitReports(message, 1));
        fx.moveToRetryTime(retried, signal);
        List<DeliveryReport> retriedReports = fx.awaitReports(retried, 2);

        assertThat(fx.observer.reports()).hasSize(5);
        assertThat(List.of(onTime, later, latest)).allSatisfy(message ->
                assertThat(fx.observer.reportsOf(message.id())).singleElement().satisfies(report -> {
                    assertThat(report.outcome()).isEqualTo(Outcome.PUBLISHED);
                    assertThat(report.lateness()).contains(Duration.between(message.dueAt(), woke));
                    assertThat(report.lateness()).contains(Duration.between(message.dueAt(),
                            fx.row(message).publishedAt().orElseThrow()));
                    assertThat(report.eventId()).isEqualTo(message.eventId());
                    assertThat(report.channel()).isEqualTo(message.channel());
                    assertThat(report.revision()).isEqualTo(1);
                    assertThat(report.attempts()).isEqualTo(1);
                    assertThat(report.relayKind()).isEqualTo("ok");
                }));
        assertThat(retriedReports).extracting(DeliveryReport::outcome)
                .containsExactly(Outcome.RETRIED, Outcome.PUBLISHED);
        assertThat(retriedReports.get(0).lateness()).isEmpty();
        assertThat(retriedReports.get(0).relayKind()).isEqualTo("rate-limited");
        assertThat(retriedReports.get(0).detail()).isEqualTo("rate-limited: slow down");
        Instant retryAt = woke.plus(deliverySettings.backoff().delay(1));
        assertThat(fx.row(retried).publishedAt()).contains(retryAt);
        assertThat(retriedReports.get(1).lateness()).contains(Duration.between(retried.dueAt(), retryAt));
        assertThat(retriedReports.get(1).attempts()).isEqualTo(2);
    }
}
