package buzz.scheduled.bootstrap.logging;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.bootstrap.config.SidecarConfig.LogFormat;
import buzz.scheduled.bootstrap.config.SidecarConfig.LogLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Outside text cannot forge a log line in the text format. */
class EscapedMessageConverterTest {

    @Test
    void textFormat_relayWordsWithANewline_stayOnOneLineWithTheNewlineEscaped() {
        String forged = "rate-limited\n2026-12-02T14:00:00.000Z INFO  RelayClient - published id=" + "ab".repeat(32);
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            LogSetup.apply(LogLevel.INFO, LogFormat.TEXT);
            LoggerFactory.getLogger("buzz.scheduled.adapters.relay.RelayClient")
                    .info("NOTICE from relay {}: {}", "ws://127.0.0.1:7777", forged);
        } finally {
            System.setErr(original);
            LogSetup.apply(LogLevel.INFO, LogFormat.TEXT);
        }
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(output.lines()).hasSize(1);
        assertThat(output).contains("NOTICE from relay ws://127.0.0.1:7777: rate-limited\\n2026-12-02T14:00:00.000Z"
                + " INFO  RelayClient - published id=");
    }

    @Test
    void escape_controlsSeparatorsAndBidiOverrides_areEscapedAndPlainTextIsKeptAsItIs() {
        String plain = "published id=abc in 12 ms: ünïcödé ✓";

        assertThat(EscapedMessageConverter.escape("a\r\nb\tc\u0000d\u001be\u007ff\u0085g\u2028h\u202ei\u2066j"))
                .isEqualTo("a\\r\\nb\\tc\\u0000d\\u001be\\u007ff\\u0085g\\u2028h\\u202ei\\u2066j");
        assertThat(EscapedMessageConverter.escape(plain)).isSameAs(plain);
        assertThat(EscapedMessageConverter.escape(null)).isNull();
    }
}
