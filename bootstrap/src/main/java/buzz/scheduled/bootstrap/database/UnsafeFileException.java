package buzz.scheduled.bootstrap.database;

/**
 * A file or directory the sidecar relies on (the data directory, the embedded binaries, a secret file) could have
 * been changed or read by another user: an operator's matter with a plain remedy (the message names the path and
 * the {@code chmod} or removal to do), reported in one line without a stack trace.
 */
public final class UnsafeFileException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message the path, what is wrong with it and what to do */
    public UnsafeFileException(String message) {
        super(message);
    }
}
