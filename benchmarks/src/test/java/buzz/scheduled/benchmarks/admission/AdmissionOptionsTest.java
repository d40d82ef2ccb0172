package buzz.scheduled.benchmarks.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionOptionsTest {

    @Test
    void parse_noArguments_givesTheDocumentedDefaults() {
        AdmissionOptions options = AdmissionOptions.parse(List.of(), Map.of());

        assertThat(options.databaseUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        assertThat(options.concurrency()).containsExactly(16, 64);
        assertThat(options.requests()).isEqualTo(20_000);
        assertThat(options.warmup()).isEqualTo(20_000);
        assertThat(options.owners()).isEqualTo(1_000);
        assertThat(options.channels()).isEqualTo(200);
        assertThat(options.round()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.timeCap()).isEqualTo(Duration.ofMinutes(20));
        assertThat(options.maxConcurrency()).isEqualTo(64);
    }

    @Test
    void parse_optionsAndEnvironment_overrideTheDefaults() {
        AdmissionOptions options = AdmissionOptions.parse(
                List.of("--concurrency=8,32,4", "--requests=500", "--warmup=0", "--round-seconds=5", "--seed=7"),
                Map.of("BUZZ_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5433/postgres"));

        assertThat(options.databaseUrl()).isEqualTo("postgres://postgres@127.0.0.1:5433/postgres");
        assertThat(options.concurrency()).containsExactly(8, 32, 4);
        assertThat(options.maxConcurrency()).isEqualTo(32);
        assertThat(options.requests()).isEqualTo(500);
        assertThat(options.warmup()).isZero();
        assertThat(options.round()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.seed()).isEqualTo(7);
    }

    @Test
    void parse_unknownOption_namesIt() {
        assertThatThrownBy(() -> AdmissionOptions.parse(List.of("--clients=4"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown option --clients");
    }

    @Test
    void parse_notANumber_namesOptionAndValue() {
        assertThatThrownBy(() -> AdmissionOptions.parse(List.of("--concurrency=16,lots"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--concurrency must be a whole number, got \"lots\"");
    }

    @Test
    void parse_roundLongerThanTheNip98Window_isRefused() {
        assertThatThrownBy(() -> AdmissionOptions.parse(List.of("--round-seconds=55"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--round-seconds must be 1..40");
    }

    @Test
    void parse_argumentWithoutValue_isRefused() {
        assertThatThrownBy(() -> AdmissionOptions.parse(List.of("--requests"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected --name=value, got \"--requests\"");
    }
}
