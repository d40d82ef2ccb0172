package buzz.scheduled.application.port.in;

import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Admits up to {@value #MAX_EVENTS} signed events of one owner in one transaction, each checked exactly as a single
 * create is ({@link ScheduleMessageUseCase}) and answered on its own, in order; optionally as one series
 * (docs/openapi.yaml {@code createScheduledMessageBatch}, docs/scheduled-messages.md "Batches, series and bulk
 * cancel").
 */
public interface ScheduleBatchUseCase {

    /** Most events one batch may hold. */
    int MAX_EVENTS = 100;

    /**
     * Takes the batch's writes from the owner's rate (one per item, all or none), then admits each item in order:
     * earlier items of the batch count against the limits of later ones, as if they had been created one after the
     * other, and an item repeating an earlier one's idempotency key is answered as a retry of it. Items refused store
     * nothing; the admitted ones are stored together in one transaction.
     */
    BatchResult scheduleBatch(ScheduleBatchCommand command);

    /**
     * A batch.
     *
     * @param owner  the authenticated pubkey (NIP-98, whose {@code payload} covered the whole body)
     * @param items  1 to {@value #MAX_EVENTS} items in the order they were sent
     * @param series whether the admitted items form one series
     */
    record ScheduleBatchCommand(PublicKey owner, List<BatchItem> items, boolean series) {
        public ScheduleBatchCommand {
            if (owner == null || items == null) {
                throw new IllegalArgumentException("a batch needs an owner and its items");
            }
            if (items.isEmpty() || items.size() > MAX_EVENTS) {
                throw new IllegalArgumentException("a batch holds 1 to " + MAX_EVENTS + " events, got "
                        + items.size());
            }
            items = List.copyOf(items);
        }
    }

    /** One item of a batch as the request gave it. */
    sealed interface BatchItem {
        /**
         * A strictly parsed event (its signature is checked here).
         *
         * @param idempotencyKey the item's key ({@code idempotency_keys}); its event id when absent
         */
        record Signed(NostrEvent event, Optional<String> idempotencyKey) implements BatchItem {
            public Signed {
                if (event == null || idempotencyKey == null) {
                    throw new IllegalArgumentException("a signed item needs an event and a key option");
                }
            }
        }

        /**
         * An item that is not a well-formed NIP-01 event; answered {@code invalid_event} without being read further.
         *
         * @param reason what is wrong with it
         */
        record Malformed(String reason) implements BatchItem {
            public Malformed {
                if (reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("a malformed item needs the reason");
                }
            }

            /** The item's answer: {@code invalid_event} with the reason. */
            public Refusal refusal() {
                return new Refusal(RefusalCode.INVALID_EVENT, "the event is malformed: " + reason);
            }
        }
    }

    /** The outcome of a batch. */
    sealed interface BatchResult {
        /**
         * Every item answered, in the order sent: {@link ScheduleResult.Created}, {@link ScheduleResult.Replayed},
         * {@link ScheduleResult.Refused}, {@link ScheduleResult.IdempotencyConflict} or
         * {@link ScheduleResult.Unavailable} (a dependency could not decide that item; retry it), never
         * {@link ScheduleResult.RateLimited} (the rate is the whole batch's, {@link RateLimited}).
         *
         * @param series the series of the items this batch created, when it asked for one and created any; else the
         *               series of its first replayed item that has one (a retried series batch); else empty
         */
        record Answered(List<ScheduleResult> results, Optional<SeriesId> series) implements BatchResult {
            public Answered {
                if (results == null || series == null) {
                    throw new IllegalArgumentException("an answered batch needs its results and series option");
                }
                results = List.copyOf(results);
                if (results.stream().anyMatch(ScheduleResult.RateLimited.class::isInstance)) {
                    throw new IllegalArgumentException("a batch item is never rate limited on its own");
                }
            }
        }

        /**
         * The owner's write rate cannot cover the batch; nothing was checked or stored.
         *
         * @param retryAfter how long until it can (positive)
         * @param message    a sentence saying so and when to retry
         */
        record RateLimited(Duration retryAfter, String message) implements BatchResult {
        }
    }
}
