package buzz.scheduled.domain.nostr;

import java.util.List;

/** The NIP-01 rules shared by signed and unsigned events, so both refuse the same malformed values. */
final class EventFields {
    private EventFields() {
    }

    /**
     * Checks created_at, kind, tags and content, and returns an unmodifiable deep copy of {@code tags}.
     *
     * @throws IllegalArgumentException naming the field (and tag index) that is malformed
     */
    static List<List<String>> check(long createdAt, int kind, List<List<String>> tags, String content) {
        if (createdAt < 0) {
            throw new IllegalArgumentException("created_at must not be negative, got " + createdAt);
        }
        if (kind < 0 || kind > NostrEvent.MAX_KIND) {
            throw new IllegalArgumentException("kind must be between 0 and " + NostrEvent.MAX_KIND + ", got " + kind);
        }
        if (tags == null) {
            throw new IllegalArgumentException("tags is missing");
        }
        if (content == null) {
            throw new IllegalArgumentException("content is missing");
        }
        JsonText.requireWellFormed("content", content);
        for (int i = 0; i < tags.size(); i++) {
            List<String> tag = tags.get(i);
            if (tag == null) {
                throw new IllegalArgumentException("tags[" + i + "] must be an array of strings, got null");
            }
            if (tag.isEmpty()) {
                throw new IllegalArgumentException("tags[" + i + "] is empty: a tag has one or more strings");
            }
            for (int j = 0; j < tag.size(); j++) {
                String value = tag.get(j);
                if (value == null) {
                    throw new IllegalArgumentException("tags[" + i + "][" + j + "] must be a string, got null");
                }
                JsonText.requireWellFormed("tags[" + i + "][" + j + "]", value);
            }
        }
        return tags.stream().map(List::copyOf).toList();
    }
}
