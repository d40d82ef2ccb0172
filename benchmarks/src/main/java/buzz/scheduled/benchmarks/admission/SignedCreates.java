package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * What the clients send: really signed kind-9 channel messages spread over many owners, channels and due times
 * (signed once, ahead of the load), and a NIP-98 {@code Authorization} header per request (kind 27235 with
 * {@code u}, {@code method} and {@code payload} tags), signed by the message's owner just before its round.
 */
final class SignedCreates {
    /** The create route. */
    static final String PATH = "/v1/scheduled-messages";
    private static final int HTTP_AUTH_KIND = 27235;
    private static final String CONTENT = "Standup moved to 10:30 — bring the Q3 numbers 📈. Café order: 2× flat white, "
            + "1× tea. Link: https://example.com/agenda?week=42&team=core\n";
    /** Earliest due time after the run's start, so no event falls into the past while the run lasts. */
    private static final Duration EARLIEST = Duration.ofHours(1);
    /** Latest due time, a day inside the 120-day horizon. */
    private static final Duration LATEST = AdmissionStack.HORIZON.minusDays(1);

    private final List<Bip340Signer> owners;
    private final int channels;
    private final String url;
    private final long seed;

    /**
     * @param owners   number of owner keys, derived deterministically from {@code seed}
     * @param channels number of channels ({@code bench-channel-0000} …)
     * @param baseUrl  the API's {@code PUBLIC_BASE_URL}
     */
    SignedCreates(int owners, int channels, URI baseUrl, long seed) {
        this.owners = IntStream.range(0, owners).parallel()
                .mapToObj(i -> Bip340Signer.withFixedAux(ownerKey(seed, i), new byte[32]))
                .toList();
        this.channels = channels;
        this.url = baseUrl + PATH;
        this.seed = seed;
    }

    /** One create: the owner's index and the exact request body {@code {"event":{…}}}. */
    record Create(int owner, byte[] body) {
        Create {
            if (owner < 0 || body == null || body.length == 0) {
                throw new IllegalArgumentException("a create needs an owner index and a body");
            }
        }
    }

    /**
     * Signs {@code count} distinct events, numbered from {@code first} (so separate batches never repeat one), due
     * between one hour and 119 days after {@code now}; uses every core.
     */
    List<Create> prepare(int first, int count, Instant now) {
        long window = LATEST.minus(EARLIEST).toSeconds();
        long earliest = now.plus(EARLIEST).getEpochSecond();
        return IntStream.range(first, first + count).parallel().mapToObj(n -> {
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + n);
            int owner = random.nextInt(owners.size());
            String channel = "bench-channel-%04d".formatted(random.nextInt(channels));
            String mention = owners.get(random.nextInt(owners.size())).publicKey().hex();
            NostrEvent event = owners.get(owner).sign(earliest + random.nextLong(window), 9,
                    List.of(List.of("h", channel), List.of("p", mention)), "#" + n + " " + CONTENT.repeat(2));
            byte[] body = ("{\"event\":" + NostrEventJson.write(event) + "}").getBytes(StandardCharsets.UTF_8);
            return new Create(owner, body);
        }).toList();
    }

    /** A fresh NIP-98 header for {@code create}, dated {@code createdAt} (Unix seconds). */
    String authorization(Create create, long createdAt) {
        NostrEvent auth = owners.get(create.owner()).sign(createdAt, HTTP_AUTH_KIND, List.of(
                List.of("u", url), List.of("method", "POST"), List.of("payload", sha256Hex(create.body()))), "");
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(auth).getBytes(StandardCharsets.UTF_8));
    }

    private static SecretKey ownerKey(long seed, int index) {
        // SHA-256 of a label is below the curve order n with overwhelming probability; SecretKey checks it.
        return new SecretKey(sha256Hex(("buzz-bench-owner-" + seed + "-" + index).getBytes(StandardCharsets.UTF_8)));
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
