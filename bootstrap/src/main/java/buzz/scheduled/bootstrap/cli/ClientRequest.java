package buzz.scheduled.bootstrap.cli;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** What one client command asks of the sidecar's owner API (docs/openapi.yaml), as parsed from its command line. */
sealed interface ClientRequest {

    /**
     * {@code schedule}: sign a new event and {@code POST /v1/scheduled-messages}.
     *
     * @param channel the {@code h} tag
     * @param due     the event's {@code created_at}
     * @param kind    0..65535 (default 9, a NIP-29 chat message)
     * @param tags    extra tags after the {@code h} tag, each {@code [name, value]}
     * @param content the event's content
     */
    record Schedule(String channel, DueTime due, int kind, List<List<String>> tags, String content)
            implements ClientRequest {
        public Schedule {
            tags = tags.stream().map(List::copyOf).toList();
        }
    }

    /**
     * {@code list}: {@code GET /v1/scheduled-messages} with the query parameters given.
     *
     * @param state the states asked for as a comma list of wire names ({@code --state}, or every state with
     *              {@code --all}); empty: the API's default, the pending states
     */
    record ListItems(Optional<String> state, Optional<String> channel, Optional<Integer> limit,
                     Optional<String> cursor) implements ClientRequest {
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
