package buzz.scheduled.application.port.in;

/**
 * Gives the final answer to kind-5905 requests whose message ended (docs/nostr.md): a kind-6905 result with the
 * published event's id, or a kind-7000 {@code error} saying why delivery failed; a cancelled message gets none.
 */
public interface AnswerFinishedJobsUseCase {

    /** Answers what has ended since the last pass; returns how many requests were answered. */
    int answerFinished();
}
