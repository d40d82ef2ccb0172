package buzz.scheduled.bootstrap.cli;

import java.util.Optional;

/**
 * Why a client command stopped: the exit code it ends with (one of {@link ClientCommands}' {@code EXIT_*}), a
 * sentence for stderr, and for an answer of the sidecar its JSON text, which {@code --json} prints on stdout.
 */
final class ClientFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final transient Optional<String> answerJson;

    ClientFailure(int exitCode, String message) {
        this(exitCode, message, Optional.empty());
    }

    ClientFailure(int exitCode, String message, Optional<String> answerJson) {
        super(message);
        this.exitCode = exitCode;
        this.answerJson = answerJson;
    }

    /** A bad command line ({@link ClientCommands#EXIT_USAGE}). */
    static ClientFailure usage(String message) {
        return new ClientFailure(ClientCommands.EXIT_USAGE, message);
    }

    /** The author's key cannot be used ({@link ClientCommands#EXIT_KEY}). */
    static ClientFailure key(String message) {
        return new ClientFailure(ClientCommands.EXIT_KEY, message);
    }

    int exitCode() {
        return exitCode;
    }

    /** The sidecar's JSON answer behind this failure, when there is one. */
    Optional<String> answerJson() {
        return answerJson;
    }
}
