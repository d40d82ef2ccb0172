package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;

/**
 * Answers NIP-90 kind-5905 requests on the sidecar's relay, signed by the sidecar's key: kind-7000 feedback and the
 * kind-6905 result, each tagged with the request ({@code e}) and the requester ({@code p}); when the request was
 * encrypted, the answer's status and result are NIP-44 encrypted to the requester (NIP-90 "encrypted" answers, as
 * NDK reads them). Never throws for relay trouble.
 */
public interface JobAnswers {

    /** NIP-90 feedback statuses the front door uses. */
    enum Status {
        PROCESSING("processing"), SUCCESS("success"), ERROR("error");

        private final String wireName;

        Status(String wireName) {
            this.wireName = wireName;
        }

        /** The value of the {@code status} tag. */
        public String wireName() {
            return wireName;
        }
    }

    /**
     * Whom to answer.
     *
     * @param requestId the request event's id
     * @param requester its author
     * @param encrypted whether to encrypt the answer to the requester (NIP-44)
     */
    record Job(EventId requestId, PublicKey requester, boolean encrypted) {
        public Job {
            if (requestId == null || requester == null) {
                throw new IllegalArgumentException("a job needs a request id and a requester");
            }
        }
    }

    /**
     * Kind-7000 feedback: {@code ["status", status, info]}, and for an admitted request
     * {@code ["schedule", scheduleId]}.
     *
     * @param info a sentence: the schedule id on success, {@code "<code>: <message>"} on error
     */
    NostrDelivery feedback(Job job, Status status, String info, java.util.Optional<String> scheduleId);

    /** The kind-6905 result: the published event's id as its content. */
    NostrDelivery result(Job job, EventId published);
}
