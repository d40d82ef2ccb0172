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
     * NIP-11 {@code limitation} fields that decide whether the relay accepts a signed event; each number is empty when
     * the relay does not state it or states 0 (relays publish 0 for "no limit"), each flag false when absent.
     *
     * @param maxMessageLength    {@code max_message_length}: the longest WebSocket message the relay accepts, in
     *                            bytes of UTF-8 (an {@code ["EVENT",…]} frame counts whole)
     * @param maxContentLength    {@code max_content_length}: the most characters an event's {@code content} may have
     * @param maxLimit            {@code max_limit}: the most events the relay returns for one filter
     * @param createdAtLowerLimit {@code created_at_lower_limit}: how many seconds in the past a {@code created_at}
     *                            may lie
     * @param createdAtUpperLimit {@code created_at_upper_limit}: how many seconds in the future a {@code created_at}
     *                            may lie
     * @param maxEventTags        {@code max_event_tags}: the most tags an event may have
     * @param minPowDifficulty    {@code min_pow_difficulty}: the NIP-13 difficulty (leading zero bits of the id) an
     *                            event needs
     * @param authRequired        {@code auth_required}: the relay wants NIP-42 AUTH before it takes anything
     * @param restrictedWrites    {@code restricted_writes}: the relay accepts events only under a condition it does
     *                            not state (membership, payment, ...)
     */
    record Limitation(OptionalInt maxMessageLength, OptionalInt maxContentLength, OptionalInt maxLimit,
                      OptionalLong createdAtLowerLimit, OptionalLong createdAtUpperLimit, OptionalInt maxEventTags,
                      OptionalInt minPowDifficulty, boolean authRequired, boolean restrictedWrites) {
        /** Nothing known. */
        public static final Limitation NONE = new Limitation(OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalLong.empty(), OptionalLong.empty());

        public Limitation {
            if (maxMessageLength == null || maxContentLength == null || maxLimit == null
                    || createdAtLowerLimit == null || createdAtUpperLimit == null || maxEventTags == null
                    || minPowDifficulty == null) {
                throw new IllegalArgumentException("limitation fields must be present or empty, not null");
            }
            maxMessageLength = limit(maxMessageLength);
            maxContentLength = limit(maxContentLength);
            maxLimit = limit(maxLimit);
            createdAtLowerLimit = limit(createdAtLowerLimit);
            createdAtUpperLimit = limit(createdAtUpperLimit);
            maxEventTags = limit(maxEventTags);
            minPowDifficulty = limit(minPowDifficulty);
        }

        /** The five size and time fields; no tag limit, no proof of work, no AUTH or write restriction stated. */
        public Limitation(OptionalInt maxMessageLength, OptionalInt maxContentLength, OptionalInt maxLimit,
                          OptionalLong createdAtLowerLimit, OptionalLong createdAtUpperLimit) {
            this(maxMessageLength, maxContentLength, maxLimit, createdAtLowerLimit, createdAtUpperLimit,
                    OptionalInt.empty(), OptionalInt.empty(), false, false);
        }

        /** This limitation with {@code max_event_tags} as given. */
        public Limitation withMaxEventTags(OptionalInt tags) {
            return new Limitation(maxMessageLength, maxContentLength, maxLimit, createdAtLowerLimit,
                    createdAtUpperLimit, tags, minPowDifficulty, authRequired, restrictedWrites);
        }

        /** This limitation with {@code min_pow_difficulty} as given. */
        public Limitation withMinPowDifficulty(OptionalInt bits) {
            return new Limitation(maxMessageLength, maxContentLength, maxLimit, createdAtLowerLimit,
                    createdAtUpperLimit, maxEventTags, bits, authRequired, restrictedWrites);
        }

        /** This limitation with {@code auth_required} and {@code restricted_writes} as given. */
        public Limitation withWriteConditions(boolean auth, boolean restricted) {
            return new Limitation(maxMessageLength, maxContentLength, maxLimit, createdAtLowerLimit,
                    createdAtUpperLimit, maxEventTags, minPowDifficulty, auth, restricted);
        }

        /** A zero or negative limit is no limit. */
        private static OptionalInt limit(OptionalInt value) {
            return value.isPresent() && value.getAsInt() <= 0 ? OptionalInt.empty() : value;
        }

        private static OptionalLong limit(OptionalLong value) {
            return value.isPresent() && value.getAsLong() <= 0 ? OptionalLong.empty() : value;
        }
    }
}
