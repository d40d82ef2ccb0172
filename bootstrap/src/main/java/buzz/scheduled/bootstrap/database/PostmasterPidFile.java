package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The {@code postmaster.pid} lock file PostgreSQL keeps in its data directory while it runs: line 1 is the
 * postmaster's process id, line 2 the data directory, line 4 the port. A run killed with SIGKILL leaves it behind,
 * naming either a postmaster that is still running (an orphan) or a process that is gone.
 *
 * @param file          where the file is
 * @param pid           the postmaster's process id
 * @param dataDirectory the data directory the postmaster was started on, as written by PostgreSQL
 * @param port          the port it listened on, or 0 when the file does not say
 */
public record PostmasterPidFile(Path file, long pid, String dataDirectory, int port) {

    /** The file name inside a data directory. */
    public static final String NAME = "postmaster.pid";

    public PostmasterPidFile {
        if (file == null || dataDirectory == null) {
            throw new IllegalArgumentException("postmaster.pid needs a file and a data directory");
        }
        if (pid < 1) {
            throw new IllegalArgumentException("postmaster.pid names no process, got pid " + pid);
        }
    }

    /**
     * Reads the pid file of {@code pgdata}.
     *
     * @return empty when there is none
     * @throws IOException when it exists but cannot be read
     * @throws IllegalStateException when it exists but its first line is not a process id (a torn write)
     */
    public static Optional<PostmasterPidFile> read(Path pgdata) throws IOException {
        Path file = pgdata.resolve(NAME);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (lines.isEmpty() || !lines.get(0).strip().matches("[0-9]{1,10}")) {
            throw new IllegalStateException(file + " does not start with a process id");
        }
        long pid = Long.parseLong(lines.get(0).strip());
        if (pid < 1) {
            throw new IllegalStateException(file + " does not start with a process id");
        }
        String dir = lines.size() > 1 ? lines.get(1).strip() : "";
        int port = 0;
        if (lines.size() > 3 && lines.get(3).strip().matches("[0-9]{1,5}")) {
            port = Integer.parseInt(lines.get(3).strip());
        }
        return Optional.of(new PostmasterPidFile(file, pid, dir, port));
    }
}
