package buzz.scheduled.domain.notice;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.FailureReason;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * The words of a notice (docs/nostr.md, "Notices"): for each message, which one (its id, channel and event id), when it
 * was due (UTC), and what happened, with the reason in words a person reads and the relay's own words when there are
 * any. One notice speaks of one owner's messages only.
 */
public final class NoticeText {
    /** Most messages one notice tells of; more outcomes of one owner make more notices. */
    public static final int MAX_OUTCOMES = 20;
    /** Longest relay words quoted for one message, in characters (the stored words are already cut shorter). */
    static final int MAX_RELAY_WORDS = 500;

    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private NoticeText() {
    }

    /**
     * The notice for {@code outcomes}, in their order.
     *
     * @throws IllegalArgumentException when there are none, more than {@value #MAX_OUTCOMES}, or they are not all of
     *                                  one owner
     */
    public static String of(List<MessageOutcome> outcomes) {
        if (outcomes.isEmpty() || outcomes.size() > MAX_OUTCOMES) {
            throw new IllegalArgumentException("a notice tells of 1 to " + MAX_OUTCOMES + " messages, got "
                    + outcomes.size());
        }
        PublicKey owner = outcomes.get(0).owner();
        if (outcomes.stream().anyMatch(outcome -> !outcome.owner().equals(owner))) {
            throw new IllegalArgumentException("a notice tells one owner of their own messages only");
        }
        long failed = outcomes.stream().filter(o -> o.result() instanceof MessageOutcome.Result.Failed).count();
        long published = outcomes.size() - failed;
        StringBuilder text = new StringBuilder(headline(failed, published)).append('\n');
        for (MessageOutcome outcome : outcomes) {
            text.append('\n').append(entry(outcome));
        }
        return text.toString();
    }

    private static String headline(long failed, long published) {
        if (published == 0) {
            return failed == 1 ? "Your scheduled message could not be sent."
                    : failed + " of your scheduled messages could not be sent.";
        }
        if (failed == 0) {
            return published == 1 ? "Your scheduled message was published."
                    : published + " of your scheduled messages were published.";
        }
        return failed + " of your scheduled messages could not be sent and " + published + " were published.";
    }

    private static String entry(MessageOutcome outcome) {
        String head = "Message " + outcome.id() + " in channel " + outcome.channel().value() + " (event "
                + outcome.eventId().hex() + "), due " + UTC.format(outcome.dueAt()) + ":\n";
        return head + switch (outcome.result()) {
            case MessageOutcome.Result.Published published -> "published at " + UTC.format(outcome.finishedAt())
                    + ".\n";
            case MessageOutcome.Result.Failed failed -> "not sent: " + why(failed.reason()) + " ("
                    + failed.reason().wireName() + ", " + UTC.format(outcome.finishedAt()) + ")."
                    + failed.relayWords().filter(words -> !words.isBlank())
                    .map(words -> " Details from the last attempt: \"" + cut(words) + "\".").orElse("") + "\n";
        };
    }

    /** The reason as a person would say it (a clause: no capital, no full stop). */
    public static String why(FailureReason reason) {
        return switch (reason) {
            case ACCESS_DENIED -> "when it was due, you were no longer allowed to post in that channel";
            case RELAY_REJECTED -> "the relay refused it, and sending it again would not change that";
            case EXPIRED -> "it could not be delivered in time (the relay was unreachable or kept asking to wait), and"
                    + " a message is never sent later than the lateness limit allows";
            case CHANNEL_DELETED -> "the channel was deleted before it was due";
            case MEMBER_REMOVED -> "you were removed from the channel before it was due";
        };
    }

    private static String cut(String words) {
        return words.length() <= MAX_RELAY_WORDS ? words : words.substring(0, MAX_RELAY_WORDS) + "…";
    }

    /** {@code instant} as the notices write it: {@code 2026-01-05 09:00:00 UTC}. */
    public static String utc(Instant instant) {
        return UTC.format(instant);
    }
}
