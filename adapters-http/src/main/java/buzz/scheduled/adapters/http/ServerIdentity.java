package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.PublicKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Optional;
import java.util.Properties;

/**
 * What the NIP-11 document says about this server: {@code software} (a URL naming the project), {@code version}
 * (this build's) and {@code pubkey} (the sidecar's own key, the one it authenticates to the relay with under
 * NIP-42, so the relay operator knows which key to trust).
 *
 * @param software the project's URL
 * @param version  this build's version ({@code 0.1.0-SNAPSHOT})
 * @param pubkey   the sidecar's public key, when known
 */
public record ServerIdentity(URI software, String version, Optional<PublicKey> pubkey) {
    private static final String BUILD_RESOURCE = "/buzz/scheduled/adapters/http/build.properties";

    public ServerIdentity {
        if (software == null || !software.isAbsolute() || version == null || version.isBlank() || pubkey == null) {
            throw new IllegalArgumentException("a server identity needs an absolute software URL, a version and a "
                    + "pubkey option");
        }
    }

    /** This build's software URL and version (from the build), with {@code pubkey}. */
    public static ServerIdentity of(Optional<PublicKey> pubkey) {
        Properties build = build();
        return new ServerIdentity(URI.create(build.getProperty("software")), build.getProperty("version"), pubkey);
    }

    /** This build's version, as the build wrote it. */
    public static String buildVersion() {
        return build().getProperty("version");
    }

    private static Properties build() {
        Properties build = new Properties();
        try (InputStream in = ServerIdentity.class.getResourceAsStream(BUILD_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(BUILD_RESOURCE + " is missing from the classpath (a build fault)");
            }
            build.load(in);
            return build;
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + BUILD_RESOURCE, e);
        }
    }
}
