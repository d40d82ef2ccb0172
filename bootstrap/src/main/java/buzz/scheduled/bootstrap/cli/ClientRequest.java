package buzz.scheduled.bootstrap.cli;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** What one client command asks of the sidecar's owner API (docs/openapi.yaml), as parsed from its command line. */
sealed interface ClientRequest {

    /**
     * {@code schedule}: sign a new event and {@code POST /v1/scheduled-messages}; with a recurrence, sign every
     * occurrence and {@code POST /v1/scheduled-messages/batch} them as one series.
     *
     * @param channel    the {@code h} tag
     * @param due        the event's {@code created_at} (the first occurrence's)
     * @param kind       0..65535 (default 9, a NIP-29 chat message)
     * @param tags       extra tags after the {@code h} tag, each {@code [name, value]}
     * @param content    the event's content
     * @param series     with {@code --every} and {@code --count}: how it repeats, and in which zone ({@code --tz})
     */
    record Schedule(String channel, DueTime due, int kind, List<List<String>> tags, String content,
                    Optional<Series> series) implements ClientRequest {
        public Schedule {
            tags = tags.stream().map(List::copyOf).toList();
        }

        Schedule(String channel, DueTime due, int kind, List<List<String>> tags, String content) {
            this(channel, due, kind, tags, content, Optional.empty());
        }
    }

    /** A series to sign: its repetition on the calendar of {@code zone}. */
    record Series(Recurrence recurrence, ZoneId zone) {
    }

    /**
     * {@code list}: {@code GET /v1/scheduled-messages} with the query parameters given.
     *
     * @param state the states asked for as a comma list of wire names ({@code --state}, or every state with
     *              {@code --all}); empty: the API's default, the pending states
     */
    record ListItems(Optional<String> state, Optional<String> channel, Optional<Integer> limit,
                     Optional<String> cursor, Optional<UUID> series) implements ClientRequest {
        ListItems(Optional<String> state, Optional<String> channel, Optional<Integer> limit, Optional<String> cursor) {
            this(state, channel, limit, cursor, Optional.empty());
        }
    }

    /** {@code get}: {@code GET /v1/scheduled-messages/{id}}. */
    record Get(UUID id) implements ClientRequest {
    }

    /**
     * {@code edit}: read the message, sign its next revision (new due time and/or content, the stored kind and tags)
     * and {@code PUT} it with {@code If-Match}. At least one of the two is present.
     */
    record Edit(UUID id, Optional<DueTime> due, Optional<String> content) implements ClientRequest {
        public Edit {
            if (due.isEmpty() && content.isEmpty()) {
                throw new IllegalArgumentException("an edit changes the due time, the content or both");
            }
        }
    }

    /** {@code cancel}: {@code DELETE /v1/scheduled-messages/{id}}. */
    record Cancel(UUID id) implements ClientRequest {
    }

    /**
     * {@code cancel} with a selection: {@code POST /v1/scheduled-messages/cancel} for the author's pending messages
     * matching every part given (at least one).
     */
    record CancelMatching(Optional<String> channel, Optional<UUID> series, Optional<DueTime> dueAfter,
                          Optional<DueTime> dueBefore) implements ClientRequest {
        public CancelMatching {
            if (channel.isEmpty() && series.isEmpty() && dueAfter.isEmpty() && dueBefore.isEmpty()) {
                throw new IllegalArgumentException("a bulk cancel selects by channel, series or due range");
            }
        }
    }

    /**
     * {@code wait}: read the message until it is {@code published} (done), {@code failed} or {@code cancelled} (not
     * delivered), or {@code timeout} has passed.
     *
     * @param timeout how long to wait; empty: until 15 minutes past its due time (the default lateness limit)
     */
    record Wait(UUID id, Optional<Duration> timeout) implements ClientRequest {
    }

    /**
     * {@code send-now}: {@code POST /v1/scheduled-messages/{id}/send-now}; when the sidecar answers
     * {@code 409 resign_required} the stored event is signed again for now and sent along.
     */
    record SendNow(UUID id) implements ClientRequest {
    }

    /**
     * {@code settings}: {@code GET /v1/owner/settings}, or with {@code --notices} a {@code PUT} of the new choice.
     *
     * @param notices the new notice choice ({@code none}, {@code failures}, {@code all}), if any
     */
    record Settings(Optional<String> notices) implements ClientRequest {
    }
}
