package buzz.scheduled.application.port.out;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The relay's own limits as its NIP-11 relay information document states them (the {@code limitation} object),
 * read at start-up and refreshed periodically. Admission refuses what the relay would refuse, and delivery never
 * sends a frame the relay has said it cannot take.
 */
public interface RelayLimits {

    /** The latest known limitation; {@link Limitation#NONE} when the relay states none or has not answered yet. */
    Limitation current();

    /** A source that never knows any limit (tests, relays without NIP-11). */
    RelayLimits UNKNOWN = () -> Limitation.NONE;

    /**
     * NIP-11 {@code limitation} fields the sidecar acts on; each is empty when the relay does not state it.
     *
     * @param maxMessageLength    {@code max_message_length}: the longest WebSocket message the relay accepts, in
     *                            bytes of UTF-8 (an {@code ["EVENT",…]} frame counts whole)
     * @param maxContentLength    {@code max_content_length}: the most characters an event's {@code content} may have
     * @param maxLimit            {@code max_limit}: the most events the relay returns for one filter
     * @param createdAtLowerLimit {@code created_at_lower_limit}: how many seconds in the past a {@code created_at}
     *                            may lie
     * @param createdAtUpperLimit {@code created_at_upper_limit}: how many seconds in the future a {@code created_at}
     *                            may lie
     */
    record Limitation(OptionalInt maxMessageLength, OptionalInt maxContentLength, OptionalInt maxLimit,
                      OptionalLong createdAtLowerLimit, OptionalLong createdAtUpperLimit) {
        /** Nothing known. */
        public static final Limitation NONE = new Limitation(OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalLong.empty(), OptionalLong.empty());

        public Limitation {
            if (maxMessageLength == null || maxContentLength == null || maxLimit == null
                    || createdAtLowerLimit == null || createdAtUpperLimit == null) {
                throw new IllegalArgumentException("limitation fields must be present or empty, not null");
            }
        }
    }
}
