package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 3986 §6.2.2/§6.2.3 normalisation for the NIP-98 {@code u} comparison. */
class RequestUrlTest {

    @ParameterizedTest(name = "{0} ~ {1}")
    @CsvSource({
            "https://Sched.Example.COM:443/v1/x?limit=5, https://sched.example.com/v1/x?limit=5",
            "HTTP://Example.com:80/a, http://example.com/a",
            "https://example.com, https://example.com/",
            "https://example.com?x=1, https://example.com/?x=1",
            "https://example.com/%7euser/%2f, https://example.com/~user/%2F",
            "http://[::1]:80/v1, http://[::1]/v1",
            "http://[::1]:8088/v1, http://[::1]:8088/v1",
            "https://User@Example.com/p, https://User@example.com/p",
    })
    void normalized_equivalentUrls_compareEqual(String one, String other) {
        assertThat(RequestUrl.normalized(one)).isEqualTo(RequestUrl.normalized(other));
    }

    @ParameterizedTest(name = "{0} != {1}")
    @CsvSource({
            "https://example.com:8443/v1, https://example.com/v1",
            "http://example.com:443/v1, https://example.com/v1",
            "https://example.com/v1/, https://example.com/v1",
            "https://example.com/V1, https://example.com/v1",
            "https://example.com/v1?a=1&b=2, https://example.com/v1?b=2&a=1",
            "https://example.com/v1?limit=10, https://example.com/v1?limit=20",
            "https://example.com/a%2Fb, https://example.com/a/b",
            "https://user@example.com/v1, https://User@example.com/v1",
    })
    void normalized_differentResources_stayDifferent(String one, String other) {
        assertThat(RequestUrl.normalized(one)).isNotEqualTo(RequestUrl.normalized(other));
    }

    @Test
    void normalized_mixedCaseConfiguredBase_isTheFormBrowsersSign() {
        assertThat(RequestUrl.normalized("https://Sched.Example.COM:443/v1/scheduled-messages"))
                .isEqualTo("https://sched.example.com/v1/scheduled-messages");
    }

    @Test
    void normalized_notAnHttpUrl_isKeptAsItIs() {
        assertThat(RequestUrl.normalized("Sched.Example.COM/v1")).isEqualTo("Sched.Example.COM/v1");
        assertThat(RequestUrl.normalized("FTP://Example.com/x")).isEqualTo("FTP://Example.com/x");
    }

    @Test
    void asciiLowercase_foldsOnlyAsciiLetters() {
        assertThat(RequestUrl.asciiLowercase("PoSt")).isEqualTo("post");
        assertThat(RequestUrl.asciiLowercase("\u017f\u212a")).isEqualTo("\u017f\u212a");
    }
}
