package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DatabaseUrlTest {

    @Test
    void parse_libpqUrlWithEverything_splitsCredentialsFromJdbcUrl() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://buzz:s3cret@db.example.org:6543/scheduled?sslmode=require");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.org:6543/scheduled?sslmode=require");
        assertThat(url.user()).contains("buzz");
        assertThat(url.password()).contains("s3cret");
    }

    @Test
    void parse_postgresqlSchemeWithoutPort_usesDefaultPort() {
        DatabaseUrl url = DatabaseUrl.parse("postgresql://buzz@localhost/scheduled");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/scheduled");
        assertThat(url.user()).contains("buzz");
        assertThat(url.password()).isEmpty();
    }

    @Test
    void parse_percentEncodedCredentials_decodesThemAndKeepsPlusLiteral() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://us%40er:p%3Aa%2Fss+word%25@127.0.0.1:5432/db");

        assertThat(url.user()).contains("us@er");
        assertThat(url.password()).contains("p:a/ss+word%");
    }

    @Test
    void parse_ipv6Host_keepsBrackets() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://u:p@[::1]:5433/db");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5433/db");
    }

    @Test
    void parse_jdbcUrl_takesItAsItIs() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

        assertThat(url).isEqualTo(new DatabaseUrl("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres",
                Optional.empty(), Optional.empty()));
    }

    @Test
    void parse_otherScheme_namesTheSchemeButNotThePassword() {
        assertThatThrownBy(() -> DatabaseUrl.parse("mysql://root:hunter2@localhost/db"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start with postgres://, postgresql:// or jdbc:postgresql:")
                .hasMessageContaining("scheme was mysql")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void parse_noDatabase_saysSo() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres://u:hunter2@localhost:5432"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no database")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void parse_noHost_saysSo() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres:///db"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no host");
    }

    @Test
    void parse_badPercentEscapeInPassword_saysWhereWithoutThePassword() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres://u:hun%zzter2@localhost/db"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("hunter2")
                .hasMessageNotContaining("hun%zzter2");
    }

    @Test
    void parse_blank_saysEmpty() {
        assertThatThrownBy(() -> DatabaseUrl.parse("  "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("database URL is empty");
    }

    @Test
    void toString_withPasswords_masksThem() {
        assertThat(DatabaseUrl.parse("postgres://u:hunter2@localhost/db").toString()).doesNotContain("hunter2");
        assertThat(DatabaseUrl.parse("jdbc:postgresql://h/db?user=u&password=hunter2&ssl=true").toString())
                .doesNotContain("hunter2")
                .contains("password=***&ssl=true");
    }

    @Test
    void withDefaultParameter_urlWithoutIt_appendsItToTheQuery() {
        assertThat(DatabaseUrl.parse("postgres://u@h:6432/db").withDefaultParameter("prepareThreshold", "0").jdbcUrl())
                .isEqualTo("jdbc:postgresql://h:6432/db?prepareThreshold=0");
        assertThat(DatabaseUrl.parse("postgres://u@h:6432/db?sslmode=require")
                .withDefaultParameter("prepareThreshold", "0").jdbcUrl())
                .isEqualTo("jdbc:postgresql://h:6432/db?sslmode=require&prepareThreshold=0");
    }

    @Test
    void withDefaultParameter_operatorSetItAlready_keepsTheOperatorsValue() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://h:6432/db?user=u&prepareThreshold=5");

        assertThat(url.withDefaultParameter("prepareThreshold", "0")).isEqualTo(url);
        assertThat(url.hasParameter("prepareThreshold")).isTrue();
        assertThat(url.hasParameter("prepare")).isFalse();
    }

    @Test
    void withDefaultParameter_valueNeedingEscapes_isRefused() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres://u@h/db").withDefaultParameter("options", "a&b"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
