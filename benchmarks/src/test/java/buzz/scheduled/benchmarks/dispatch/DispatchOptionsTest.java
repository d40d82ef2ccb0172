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
        assertThat(options.warmup()).isEqualTo(2_000);
        assertThat(options.inFlight()).isEqualTo(32);
        assertThat(options.lowerLimit()).isEqualTo(0.5);
        assertThat(options.upperLimit()).isEqualTo(1.0);
        assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(options.rate()).isEqualTo(50);
        assertThat(options.steadyDuration()).isEqualTo(60);
        assertThat(options.steadyMessages()).isEqualTo(3_000);
        assertThat(options.dbSchedulerLateness()).isTrue();
        assertThat(options.timeCap()).isEqualTo(Duration.ofSeconds(900));
        assertThat(options.seed()).isEqualTo(1);
    }

    @Test
    void parse_optionsAndEnvironment_overrideTheDefaults() {
        DispatchOptions options = DispatchOptions.parse(List.of("--messages=500", "--warmup=0", "--in-flight=8",
                        "--dbs-lower=1.0", "--dbs-upper=4", "--dbs-poll-ms=250", "--rate=10", "--steady-seconds=5",
                        "--dbs-lateness=false", "--max-seconds=60", "--seed=7"),
                Map.of("BUZZ_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5433/postgres"));

        assertThat(options.databaseUrl()).isEqualTo("postgres://postgres@127.0.0.1:5433/postgres");
        assertThat(options.messages()).isEqualTo(500);
        assertThat(options.warmup()).isZero();
        assertThat(options.inFlight()).isEqualTo(8);
        assertThat(options.lowerLimit()).isEqualTo(1.0);
        assertThat(options.upperLimit()).isEqualTo(4.0);
        assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(options.steadyMessages()).isEqualTo(50);
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
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-upper=NaN"), Map.of()))
                .hasMessage("--dbs-upper must be a decimal number, got \"NaN\"");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-lateness=yes"), Map.of()))
                .hasMessage("--dbs-lateness must be true or false, got \"yes\"");
    }

    @Test
    void parse_valuesOutOfRange_areRefusedWithTheRange() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--messages=0"), Map.of()))
                .hasMessage("--messages must be 1..1000000, got 0");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--in-flight=1001"), Map.of()))
                .hasMessage("--in-flight must be 1..1000, got 1001");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-poll-ms=5"), Map.of()))
                .hasMessage("--dbs-poll-ms must be 10..60000, got 5");
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--max-seconds=0"), Map.of()))
                .hasMessage("--max-seconds must be at least 1, got 0");
    }

    @Test
    void parse_upperLimitBelowLowerLimit_isRefusedNamingBoth() {
        assertThatThrownBy(() -> DispatchOptions.parse(List.of("--dbs-lower=2", "--dbs-upper=1"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--dbs-upper must be from --dbs-lower (2.0) to 100, got 1.0");
    }
}
