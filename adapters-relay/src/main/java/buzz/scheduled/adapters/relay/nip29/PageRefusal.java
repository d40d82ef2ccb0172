package buzz.scheduled.adapters.relay.nip29;

import java.time.Duration;

/**
 * Why a backlog page counts as refused by the relay: the page is then asked again at half the size
 * ({@link PageSize}), or the connection is given up when even one event was refused.
 */
sealed interface PageRefusal {

    /** The refusal as log lines and the reason of a given-up connection say it. */
    String why();

    /** The relay closed the page's subscription, for another reason than NIP-42 AUTH. */
    record Closed(String message) implements PageRefusal {
        @Override
        public String why() {
            return "CLOSED " + (message.isEmpty() ? "(no reason)" : message);
        }
    }

    /** Nothing of the page arrived within {@link FeedConnection#NOTICE_GRACE_MILLIS} of a {@code NOTICE}. */
    record AfterNotice(String notice) implements PageRefusal {
        @Override
        public String why() {
            return "NOTICE " + notice;
        }
    }

    /** Nothing of the page arrived within the connect timeout. */
    record Unanswered(Duration timeout) implements PageRefusal {
        @Override
        public String why() {
            return "no answer within " + timeout;
        }
    }
}
