package buzz.scheduled.benchmarks.admission;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of processes on this host from {@code /proc/<pid>/stat} (Linux; user + system time in clock ticks of
 * 10 ms), for figures about a process the benchmark did not run in its own JVM: a {@code serve} process and the
 * PostgreSQL server under it.
 */
public final class ProcessCpu {
    /** Nanoseconds per clock tick ({@code USER_HZ} is 100 on Linux). */
    private static final long TICK_NANOS = 10_000_000L;

    private ProcessCpu() {
    }

    /**
     * User + system CPU time {@code pid} has used, nanoseconds; with {@code withReapedChildren} also the time of
     * its children that ended and were waited for ({@code cutime}, {@code cstime}). 0 when the process is gone or
     * {@code /proc} cannot be read.
     */
    public static long nanos(long pid, boolean withReapedChildren) {
        String[] fields = statFields(pid);
        if (fields == null) {
            return 0;
        }
        // Fields after "(comm) ": state is [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14].
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        if (withReapedChildren) {
            ticks += Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
        }
        return ticks * TICK_NANOS;
    }

    /**
     * CPU time of a PostgreSQL server, nanoseconds: the postmaster (with the children it has reaped) and every live
     * child — backends, WAL writer, checkpointer, background writer, autovacuum. A backend that ended between two
     * readings is counted once the postmaster has reaped it, which it does at once.
     */
    public static long serverTreeNanos(long postmasterPid) {
        long total = nanos(postmasterPid, true);
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                long pid = Long.parseLong(process.getFileName().toString());
                String[] fields = statFields(pid);
                if (fields != null && Long.parseLong(fields[1]) == postmasterPid) {
                    total += nanos(pid, false);
                }
            }
        } catch (IOException | RuntimeException e) {
            return total;
        }
        return total;
    }

    private static String[] statFields(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
