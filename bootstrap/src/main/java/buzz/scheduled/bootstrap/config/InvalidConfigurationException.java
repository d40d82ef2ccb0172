package buzz.scheduled.bootstrap.config;

/**
 * A configuration value from the environment is missing, malformed or inconsistent; start-up stops with this
 * message, which names the variable (README.md "Configuration").
 */
public final class InvalidConfigurationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String variable;

    /**
     * @param variable the environment variable at fault (the first one, when several are inconsistent)
     * @param message  a sentence naming the variable, what was given and what is expected
     */
    public InvalidConfigurationException(String variable, String message) {
        super(message);
        this.variable = variable;
    }

    /** The environment variable at fault. */
    public String variable() {
        return variable;
    }
}
