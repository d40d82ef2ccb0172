package buzz.scheduled.benchmarks.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DispatchOptionsTest {

    @Test
    void parse_noArguments_givesTheDocumentedDefaults() {
        DispatchOptions options = DispatchOptions.parse(List.of(), Map.of());

        assertThat(options.databaseUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        assertThat(options.messages()).isEqualTo(20_000);
        assertThat(options.warmup()).isEqualTo(20_000);
        assertThat(options.window()).isEqualTo(1_000);
        assertThat(options.claimBatch()).isEqualTo(500);
        assertThat(options.dbSchedulers()).containsExactly(
                new DispatchOptions.DbSchedulerConfiguration(32, 0.5, 1.0),
                new DispatchOptions.DbSchedulerConfiguration(32, 1.0, 4.0),
                new DispatchOptions.DbSchedulerConfiguration(64, 0.5, 1.0),
                new DispatchOptions.DbSchedulerConfiguration(64, 1.0, 4.0));
        assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(options.rates()).containsExactly(50, 1_000);
        assertThat(options.steadyDuration()).isEqualTo(60);
        assertThat(options.steadyMessages(50)).isEqualTo(3_000);
        assertThat(options.steadyMessages(1_000)).isEqualTo(60_000);
        assertThat(options.dbSchedulerLateness()).isTrue();
        assertThat(options.timeCap()).isEqualTo(Duration.ofSeconds(900));
        assertThat(options.seed()).isEqualTo(1);
    }

    @Test
    void parse_optionsAndEnvironment_overrideTheDefaults() {
        DispatchOptions options = DispatchOptions.parse(List.of("--messages=500", "--warmup=0", "--window=8",
                        "--claim=4", "--dbs-threads=16", "--dbs-limits=1.0:4", "--dbs-poll-ms=250", "--rates=10",
                        "--steady-seconds=5", "--dbs-lateness=false", "--max-seconds=60", "--seed=7"),
                Map.of("BUZZ_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5433/postgres"));

        assertThat(options.databaseUrl()).isEqualTo("postgres://postgres@127.0.0.1:5433/postgres");
        assertThat(options.messages()).isEqualTo(500);
        assertThat(options.warmup()).isZero();
        assertThat(options.window()).isEqualTo(8);
        assertThat(options.claimBatch()).isEqualTo(4);
        assertThat(options.dbSchedulers()).containsExactly(new DispatchOptions.DbSchedulerConfiguration(16, 1.0, 4.0));
        assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(options.rates()).containsExactly(10);
        assertThat(options.steadyMessages(10)).isEqualTo(50);
        assertThat(options.dbSchedulerLateness()).isFalse();
        assertThat(options.timeCap()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.seed()).isEqualTo(7);
    }

    @Test
    void parse_unknownOption_isRefusedNamingIt() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--threads=4"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown option --threads");
    }

    @Test
    void parse_argumentWithoutValue_isRefused() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--messages"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected --name=value, got \"--messages\"");
    }

    @Test
    void parse_valuesOfTheWrongKind_areRefusedNamingTheOption() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--messages=lots"), Map.of()))
                .hasMessage("--messages must be a whole number, got \"lots\"");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-limits=0.5:NaN"), Map.of()))
                .hasMessage("--dbs-limits must be a decimal number, got \"NaN\"");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-limits=0.5"), Map.of()))
                .hasMessage("--dbs-limits must be lower:upper pairs separated by commas, got \"0.5\"");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-lateness=yes"), Map.of()))
                .hasMessage("--dbs-lateness must be true or false, got \"yes\"");
    }

    @Test
    void parse_valuesOutOfRange_areRefusedWithTheRange() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--messages=0"), Map.of()))
                .hasMessage("--messages must be 1..1000000, got 0");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--window=10001"), Map.of()))
                .hasMessage("--window must be 1..10000, got 10001");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--window=10", "--claim=11"), Map.of()))
                .hasMessage("--claim must be 1..10, got 11");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-poll-ms=5"), Map.of()))
                .hasMessage("--dbs-poll-ms must be 10..60000, got 5");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--max-seconds=0"), Map.of()))
                .hasMessage("--max-seconds must be at least 1, got 0");
    }

    @Test
    void parse_upperLimitBelowLowerLimit_isRefusedNamingBoth() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-limits=2:1"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--dbs-limits: the upper limit must be from the lower (2.0) to 100, got 1.0");
    }
}
