package buzz.scheduled.domain.schedule;

/**
 * A refused admission: the code the API answers and a sentence saying what is wrong.
 *
 * @param code    admission refusal code (docs/openapi.yaml)
 * @param message human sentence naming the offending value
 */
public record Refusal(RefusalCode code, String message) {
    public Refusal {
        if (code == null) {
            throw new IllegalArgumentException("a refusal needs a code");
        }
        if (message == null || message.isBlank()) {
            throw new IllegalArgumentException("refusal " + code.wireName() + " needs a message");
        }
    }
}
