package buzz.scheduled.adapters.http;

import java.util.OptionalInt;

/**
 * What the relay's NIP-11 {@code limitation} states that admission applies besides the server's own limits, so that
 * {@code GET /v1/info} advertises the limits a client actually meets (docs/openapi.yaml {@code getInfo}). Each is
 * empty when the relay states none (or 0).
 *
 * @param maxContentLength {@code max_content_length}: content bytes
 * @param maxMessageLength {@code max_message_length}: bytes of the {@code ["EVENT",<event>]} message
 * @param maxEventTags     {@code max_event_tags}: tags of one event
 * @param minPowDifficulty {@code min_pow_difficulty}: NIP-13 leading zero bits of the event id
 */
public record RelayStatedLimits(OptionalInt maxContentLength, OptionalInt maxMessageLength, OptionalInt maxEventTags,
                                OptionalInt minPowDifficulty) {
    /** The relay states nothing (or has not been asked yet). */
    public static final RelayStatedLimits NONE = new RelayStatedLimits(OptionalInt.empty(), OptionalInt.empty(),
            OptionalInt.empty(), OptionalInt.empty());

    public RelayStatedLimits {
        if (maxContentLength == null || maxMessageLength == null || maxEventTags == null || minPowDifficulty == null) {
            throw new IllegalArgumentException("relay limits must be present or empty, not null");
        }
    }
}
