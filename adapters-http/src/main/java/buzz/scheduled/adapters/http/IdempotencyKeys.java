package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import java.util.Optional;

/**
 * The form of an idempotency key, whether given as the {@code Idempotency-Key} header of a create or as an entry of a
 * batch's {@code idempotency_keys}: 1 to {@value ScheduleMessageCommand#MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII
 * characters.
 */
final class IdempotencyKeys {
    private IdempotencyKeys() {
    }

    /**
     * Why {@code key} is refused, if it is.
     *
     * @param name    how the request named it ({@code Idempotency-Key}, {@code idempotency_keys[3]})
     * @param absence how to ask for the event id instead ({@code leave it out}, {@code give null})
     */
    static Optional<String> problem(String name, String key, String absence) {
        if (key.isEmpty()) {
            return Optional.of(name + " is empty; " + absence + " to use the event id as the key");
        }
        if (key.length() > ScheduleMessageCommand.MAX_IDEMPOTENCY_KEY_LENGTH) {
            return Optional.of(name + " is " + key.length() + " characters; at most "
                    + ScheduleMessageCommand.MAX_IDEMPOTENCY_KEY_LENGTH + " are accepted");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return Optional.of(name + " must be printable ASCII; the character at index " + i + " is not");
            }
        }
        return Optional.empty();
    }
}
