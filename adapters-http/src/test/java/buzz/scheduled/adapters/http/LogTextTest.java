package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void controlCharacters_areEscaped_soNoLineCanBeForged() {
        assertThat(LogText.escape("/v1/x\n2026-01-01T00:00:00Z ERROR HttpApi - forged\r\tend"))
                .isEqualTo("/v1/x\\n2026-01-01T00:00:00Z ERROR HttpApi - forged\\r\\tend")
                .doesNotContain("\n", "\r", "\t");
        assertThat(LogText.escape("a\u0000b\u001bc\u007fd\u0085e\u2028f")).isEqualTo("a\\u0000b\\u001bc\\u007fd\\u0085e\\u2028f");
    }

    @Test
    void backslashes_areDoubled_soAnEscapeCannotBeFaked() {
        assertThat(LogText.escape("a\\nb")).isEqualTo("a\\\\nb");
    }

    @Test
    void plainText_isReturnedAsItIs() {
        String path = "/v1/scheduled-messages/abc?x=1&y=%0a";
        assertThat(LogText.escape(path)).isSameAs(path);
        assertThat(LogText.escape(null)).isEqualTo("null");
    }
}
