package buzz.scheduled.benchmarks.admission;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time used so far by a process and every process below it (user + system from {@code /proc/<pid>/stat}, in
 * 10 ms ticks), for black-box benchmarks that watch another process: a {@code serve} JVM, or the embedded
 * PostgreSQL's postmaster with its backends and background workers. Processes that already ended are not counted
 * (their time is only in their parent's {@code cutime}, which is read only when the parent waits for them).
 */
final class ProcessTreeCpu {
    private static final long TICK_NANOS = 10_000_000L;

    private ProcessTreeCpu() {
    }

    /** Nanoseconds of CPU of {@code root} and its descendants; 0 when {@code /proc} cannot be read. */
    static long nanos(long root) {
        Map<Long, List<Long>> children = new HashMap<>();
        Map<Long, Long> ticks = new HashMap<>();
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            processes.filter(p -> p.getFileName().toString().matches("[0-9]+")).forEach(p -> {
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    // After the parenthesised command name: state, ppid, ...; utime and stime are fields 14 and 15.
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long pid = Long.parseLong(p.getFileName().toString());
                    children.computeIfAbsent(Long.parseLong(fields[1]), k -> new ArrayList<>()).add(pid);
                    ticks.put(pid, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                } catch (IOException | RuntimeException e) {
                    // A process that ended while being read: its time is not counted.
                }
            });
        } catch (IOException e) {
            return 0;
        }
        long total = 0;
        Deque<Long> pending = new ArrayDeque<>(List.of(root));
        while (!pending.isEmpty()) {
            long pid = pending.pop();
            total += ticks.getOrDefault(pid, 0L);
            pending.addAll(children.getOrDefault(pid, List.of()));
        }
        return total * TICK_NANOS;
    }
}
