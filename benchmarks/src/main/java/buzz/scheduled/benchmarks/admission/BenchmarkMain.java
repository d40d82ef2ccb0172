package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * What every load driver's {@code main} does around its run: parse the options, refuse a database that is not
 * on this machine, run, and exit with the driver's status — 2 for bad options (with the usage), 1 when the run
 * threw (with the stack trace).
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    /**
     * Parses, runs and exits; never returns.
     *
     * @param name        the benchmark's name in the failure message
     * @param args        the {@code --name=value} options
     * @param parse       options from the arguments and the environment ({@code IllegalArgumentException} when bad)
     * @param databaseUrl the admin database URL the options name
     * @param usage       what to print after a bad option
     * @param run         the run, answering its exit status
     * @param <O>         the driver's options
     */
    public static <O> void exitWith(String name, String[] args, BiFunction<List<String>, Map<String, String>, O> parse,
                                    Function<O, String> databaseUrl, String usage, ToIntFunction<O> run) {
        O options;
        try {
            options = parse.apply(List.of(args), System.getenv());
            ScratchDatabase.requireLoopback(DatabaseUrl.parse(databaseUrl.apply(options)));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(usage);
            System.exit(2);
            return;
        }
        int status;
        try {
            status = run.applyAsInt(options);
        } catch (RuntimeException e) {
            System.err.println(name + " failed: " + e);
            e.printStackTrace(System.err);
            status = 1;
        }
        System.exit(status);
    }

    /**
     * One {@code --name=value} argument as its name and value.
     *
     * @throws IllegalArgumentException when {@code arg} is not of that form
     */
    public static Map.Entry<String, String> option(String arg) {
        int equals = arg.indexOf('=');
        if (!arg.startsWith("--") || equals < 0) {
            throw new IllegalArgumentException("expected --name=value, got \"" + arg + "\"");
        }
        return Map.entry(arg.substring(2, equals), arg.substring(equals + 1));
    }
}
