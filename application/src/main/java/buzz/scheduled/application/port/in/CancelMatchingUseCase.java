package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Cancels every pending message of one owner that matches a selection — a channel, a series, a due range, or several
 * of them together — in one request (docs/openapi.yaml {@code cancelScheduledMessages}). Each message is cancelled as
 * {@link CancelMessageUseCase} cancels one: from {@code scheduled} or {@code claimed} (revoking the claim), its event
 * deleted at once, never published afterwards; a message being sent right now ({@code sending}) is left to finish
 * and counted apart.
 */
public interface CancelMatchingUseCase {

    /** Takes one of the owner's writes, then cancels what matches. */
    CancelMatchingResult cancelMatching(CancelMatchingCommand command);

    /**
     * Which of the owner's messages: every given part must match (at least one is given).
     *
     * @param channel   only this channel
     * @param series    only this series
     * @param dueAfter  due at or after this instant (inclusive)
     * @param dueBefore due before this instant (exclusive)
     */
    record Selection(Optional<Channel> channel, Optional<SeriesId> series, Optional<Instant> dueAfter,
                     Optional<Instant> dueBefore) {
        public Selection {
            if (channel == null || series == null || dueAfter == null || dueBefore == null) {
                throw new IllegalArgumentException("a selection needs its four options");
            }
            if (channel.isEmpty() && series.isEmpty() && dueAfter.isEmpty() && dueBefore.isEmpty()) {
                throw new IllegalArgumentException("a selection needs a channel, a series or a due range");
            }
            if (dueAfter.isPresent() && dueBefore.isPresent() && !dueAfter.get().isBefore(dueBefore.get())) {
                throw new IllegalArgumentException("due_after " + dueAfter.get().getEpochSecond()
                        + " is not before due_before " + dueBefore.get().getEpochSecond());
            }
        }

        /** Whether a message of {@code channel} in {@code messageSeries}, due at {@code dueAt}, matches. */
        public boolean matches(Channel messageChannel, Optional<SeriesId> messageSeries, Instant dueAt) {
            return channel.map(messageChannel::equals).orElse(true)
                    && series.map(s -> messageSeries.equals(Optional.of(s))).orElse(true)
                    && dueAfter.map(after -> !dueAt.isBefore(after)).orElse(true)
                    && dueBefore.map(dueAt::isBefore).orElse(true);
        }
    }

    /**
     * Whose messages and which.
     *
     * @param owner the authenticated pubkey; nothing of another owner's is ever touched
     */
    record CancelMatchingCommand(PublicKey owner, Selection selection) {
        public CancelMatchingCommand {
            if (owner == null || selection == null) {
                throw new IllegalArgumentException("a bulk cancel needs an owner and a selection");
            }
        }
    }

    /** The outcome of a bulk cancel. */
    sealed interface CancelMatchingResult {
        /**
         * Done.
         *
         * @param cancelled matching messages this call cancelled (from {@code scheduled} or {@code claimed})
         * @param sending   matching messages being sent right now, not cancelled: they will end {@code published}
         *                  or {@code failed}
         */
        record Cancelled(int cancelled, int sending) implements CancelMatchingResult {
            public Cancelled {
                if (cancelled < 0 || sending < 0) {
                    throw new IllegalArgumentException("counts cannot be negative");
                }
            }
        }

        /**
         * The owner wrote more often than the per-owner rate allows; nothing was changed.
         *
         * @param retryAfter how long until the owner's next write is allowed (positive)
         * @param message    a sentence saying so and when to retry
         */
        record RateLimited(Duration retryAfter, String message) implements CancelMatchingResult {
        }
    }
}
