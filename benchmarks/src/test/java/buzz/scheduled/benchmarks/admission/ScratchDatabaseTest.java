package buzz.scheduled.benchmarks.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ScratchDatabaseTest {

    @Test
    void scratchUrl_jdbcUrlWithQuery_replacesOnlyTheDatabase() {
        DatabaseUrl scratch = ScratchDatabase.scratchUrl(
                DatabaseUrl.parse("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&ssl=false"), "buzz_bench_x");

        assertThat(scratch.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/buzz_bench_x?user=postgres&ssl=false");
    }

    @Test
    void scratchUrl_libpqUrlWithPassword_keepsTheCredentials() {
        DatabaseUrl scratch = ScratchDatabase.scratchUrl(
                DatabaseUrl.parse("postgres://bench:s3cret@127.0.0.1:5433/postgres"), "buzz_bench_y");

        assertThat(scratch.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5433/buzz_bench_y");
        assertThat(scratch.user()).isEqualTo(Optional.of("bench"));
        assertThat(scratch.password()).isEqualTo(Optional.of("s3cret"));
    }

    @Test
    void requireLoopback_loopbackAddress_passes() {
        ScratchDatabase.requireLoopback(DatabaseUrl.parse("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres"));
        ScratchDatabase.requireLoopback(DatabaseUrl.parse("jdbc:postgresql://127.0.0.1/postgres"));
    }

    @Test
    void requireLoopback_otherHost_isRefusedNamingIt() {
        assertThatThrownBy(() -> ScratchDatabase.requireLoopback(
                DatabaseUrl.parse("postgres://postgres@db.example.com:5432/postgres")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must point at 127.0.0.1")
                .hasMessageContaining("db.example.com:5432");
    }

    @Test
    void requireLoopback_secondHostAfterLoopback_isRefused() {
        assertThatThrownBy(() -> ScratchDatabase.requireLoopback(
                DatabaseUrl.parse("jdbc:postgresql://127.0.0.1:5432,10.0.0.2:5432/postgres")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10.0.0.2");
    }

    @Test
    void requireLoopback_urlWithoutHost_isRefused() {
        assertThatThrownBy(() -> ScratchDatabase.requireLoopback(DatabaseUrl.parse("jdbc:postgresql:postgres")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must name host 127.0.0.1 explicitly");
    }
}
