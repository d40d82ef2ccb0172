package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.RelayPublisher.Publication;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.PreSendCheck;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalInt;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The {@link Dispatcher}'s way from one claimed message to the relay or straight to its outcome: the pre-send check on
 * the claim's database clock, the access policy's second opinion (on its own thread), the relay's size limit, the
 * publication or, for a claim whose earlier send may have reached the relay, the look-up first; and what to record for
 * each answer, handed to the {@link Finisher}. Every message it takes is in the {@link DeliveryWindow} until the
 * finisher records it.
 */
final class ClaimRouter {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final RelayPublisher relay;
    private final AccessPolicy access;
    private final RelayLimits relayLimits;
    private final DeliverySettings delivery;
    private final long marginNanos;
    private final Tally tally;
    private final DeliveryWindow window;
    private final Finisher finisher;
    private final PendingAccessChecks checking;
    private final Executor accessChecks;
    private final BooleanSupplier stopping;

    /**
     * A router feeding {@code finisher}.
     *
     * @param accessChecks runs each access check on a thread of its own
     * @param stopping     whether a stop was requested: claims met then are given back unsent
     */
    ClaimRouter(RelayPublisher relay, AccessPolicy access, RelayLimits relayLimits, DeliverySettings delivery,
                Tally tally, DeliveryWindow window, Finisher finisher, PendingAccessChecks checking,
                Executor accessChecks, BooleanSupplier stopping) {
        this.relay = relay;
        this.access = access;
        this.relayLimits = relayLimits;
        this.delivery = delivery;
        this.marginNanos = delivery.safetyMargin().toNanos();
        this.tally = tally;
        this.window = window;
        this.finisher = finisher;
        this.checking = checking;
        this.accessChecks = accessChecks;
        this.stopping = stopping;
    }

    /**
     * Takes one claimed message into the window and on towards the relay (or straight to its outcome). A failure
     * here (a bug: the relay port must not throw) retries that message later and never strands its neighbours.
     */
    void admit(ClaimedMessage message, Instant storeNow, long asked) {
        long leaseLeft = Duration.between(storeNow, message.leaseUntil()).toNanos();
        InFlight item = new InFlight(message, asked, asked + leaseLeft - marginNanos, asked + leaseLeft);
        window.add(item);
        try {
            route(item, storeNow);
        } catch (RuntimeException e) {
            failedToHandOver(item, e);
        }
    }

    private void route(InFlight item, Instant storeNow) {
        ClaimedMessage message = item.message;
        if (stopping.getAsBoolean()) {
            release(item);
            return;
        }
        switch (PreSendCheck.verdict(message.dueAt(), message.channelDeleted(), delivery.maxLateness(), storeNow)) {
            case PreSendCheck.Verdict.Fail fail when fail.reason() == FailureReason.EXPIRED && message.attempts() > 1 ->
                    askTheRelayBeforeExpiring(item);
            case PreSendCheck.Verdict.Fail fail -> finisher.offer(new Finisher.Done(item,
                    new Finish.Fail(message.claim(), message.revision(), fail.reason(), ""), "none"));
            case PreSendCheck.Verdict.Send send -> {
                if (access.checksBeforeDelivery()) {
                    checking.started(item);
                    accessChecks.execute(() -> {
                        try {
                            checkAccessThenSend(item);
                        } catch (RuntimeException e) {
                            failedToHandOver(item, e);
                        }
                    });
                } else {
                    send(item);
                }
            }
        }
    }

    /** The access policy's second opinion (it may call out over the network, so it runs on its own thread). */
    private void checkAccessThenSend(InFlight item) {
        ClaimedMessage message = item.message;
        AccessDecision decision;
        try {
            decision = message.kind() == ClaimedMessage.UNKNOWN_KIND
                    ? new AccessDecision.Unavailable("the access policy failed: the stored event names no kind")
                    : access.check(message.owner(), message.channel(), message.kind());
        } catch (RuntimeException e) {
            decision = new AccessDecision.Unavailable("the access policy failed: " + e);
        }
        if (!checking.finished(item)) {
            return; // a stop gave the claim back while the check was under way
        }
        switch (decision) {
            case AccessDecision.Allowed allowed -> send(item);
            case AccessDecision.Denied denied -> finisher.offer(new Finisher.Done(item, new Finish.Fail(
                    message.claim(), message.revision(), FailureReason.ACCESS_DENIED,
                    denied.code().wireName() + ": " + denied.message()), "none"));
            case AccessDecision.Unavailable unavailable -> {
                tally.deferred.incrementAndGet();
                finisher.offer(new Finisher.Done(item, retry(message, "access policy unavailable: "
                        + unavailable.message()), "none"));
            }
        }
    }

    /** Something threw on the way to the relay: the message is retried later, and the error is counted and logged. */
    private void failedToHandOver(InFlight item, RuntimeException e) {
        tally.errors.incrementAndGet();
        LOG.log(Level.ERROR, "handing " + item.message.claim().id() + " to the relay failed; it is retried later", e);
        finisher.offer(new Finisher.Done(item, retry(item.message, "not sent: " + e), "not-sent"));
    }

    /** Hands the stored event to the relay connection; its answer goes to the finisher. */
    private void send(InFlight item) {
        ClaimedMessage message = item.message;
        if (stopping.getAsBoolean()) {
            release(item);
            return;
        }
        OptionalInt limit = relayLimits.current().maxMessageLength();
        if (limit.isPresent() && item.bytes > limit.getAsInt()) {
            finisher.offer(new Finisher.Done(item, new Finish.Fail(message.claim(), message.revision(),
                    FailureReason.RELAY_REJECTED, "too-large: the relay takes messages of at most " + limit.getAsInt()
                    + " bytes (NIP-11 max_message_length); this event's is " + item.bytes), "too-large"));
            return;
        }
        tally.sent.incrementAndGet();
        Publication publication = new Publication(message.eventId(), message.eventJson(), item.sendBy, item::held,
                delivery.publishTimeout());
        Consumer<PublishResult> answer = result -> finisher.offer(new Finisher.Done(item, outcome(item, result),
                result.kind()));
        switch (message.earlierSend()) {
            case NONE -> relay.publish(publication, answer);
            // An earlier claim may have reached the relay unrecorded: asked first, sent only if it is not there.
            case OUTCOME_UNKNOWN -> relay.resolveThenPublish(publication, answer);
        }
    }

    /**
     * Too late to send, but claimed before: an earlier claim may have written the frame and then been lost (the
     * process or the database's writes gone until the lease was reaped past the lateness limit). The relay is asked
     * for the event first, so a message its channel can read is recorded {@code published}, never failed.
     */
    private void askTheRelayBeforeExpiring(InFlight item) {
        ClaimedMessage message = item.message;
        relay.lookUp(new Publication(message.eventId(), message.eventJson(), item.sendBy, item::held,
                        delivery.publishTimeout()),
                result -> finisher.offer(new Finisher.Done(item, switch (result) {
                    case PublishResult.Published published -> new Finish.Publish(message.claim(), message.revision());
                    case PublishResult.NotSent notSent when stopping.getAsBoolean() ->
                            new Finish.Release(message.claim(), message.revision());
                    case PublishResult.NotSent notSent -> expired(message, "not asked: " + notSent.reason());
                    case PublishResult.Transient unknown -> expired(message, unknown.reason());
                    case PublishResult.Rejected rejected ->
                            expired(message, rejected.prefix() + ": " + rejected.message());
                }, result.kind())));
    }

    private static Finish expired(ClaimedMessage message, String why) {
        return new Finish.Fail(message.claim(), message.revision(), FailureReason.EXPIRED,
                "past the lateness limit; " + why);
    }

    /** What to record for the relay's answer. */
    private Finish outcome(InFlight item, PublishResult result) {
        ClaimedMessage message = item.message;
        return switch (result) {
            case PublishResult.Published published -> new Finish.Publish(message.claim(), message.revision());
            case PublishResult.Rejected rejected -> new Finish.Fail(message.claim(), message.revision(),
                    FailureReason.RELAY_REJECTED, rejected.prefix() + ": " + rejected.message());
            case PublishResult.Transient failure -> retry(message, failure.reason());
            case PublishResult.NotSent notSent -> {
                tally.notSent.incrementAndGet();
                yield stopping.getAsBoolean() ? new Finish.Release(message.claim(), message.revision())
                        : retry(message, "not sent: " + notSent.reason());
            }
        };
    }

    private Finish retry(ClaimedMessage message, String why) {
        return new Finish.Retry(message.claim(), message.revision(), delivery.backoff().delay(message.attempts()),
                delivery.maxLateness(), why);
    }

    /** Gives the claim back unsent (claimable again at once). */
    void release(InFlight item) {
        finisher.offer(new Finisher.Done(item, new Finish.Release(item.message.claim(), item.message.revision()),
                "none"));
    }
}
