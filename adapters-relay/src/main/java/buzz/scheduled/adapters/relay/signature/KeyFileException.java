package buzz.scheduled.adapters.relay.signature;

/**
 * A key file that cannot be used: missing, already there when a new one is to be written, open to other users
 * (the file, or a directory that lets them replace it), or not holding one well-formed key. The message names the
 * file and what to do, never the file's content; callers report it in one line, without a stack trace.
 */
public final class KeyFileException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message the file, what is wrong with it and what to do */
    public KeyFileException(String message) {
        super(message);
    }

    /** @param message the file, what is wrong with it and what to do; {@code cause} the I/O failure behind it */
    public KeyFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
