package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntToLongFunction;
import java.util.stream.IntStream;

/**
 * Really signed kind-9 channel messages for the dispatch benchmarks, spread over {@value #OWNERS} owners (or as many
 * as asked) and {@value #CHANNELS} channels, each with its due time as {@code created_at} (the due time is the
 * signed {@code created_at}). Signed before any timing starts, on every core.
 */
final class DueEvents {
    /** Owner keys the messages are spread over. */
    static final int OWNERS = 100;
    /** Channels the messages are spread over. */
    static final int CHANNELS = 50;
    private static final String CONTENT = "Reminder: the release train leaves at 16:00 — merge by 15:30 🚂. Notes: "
            + "https://example.com/release?train=42\n";

    private final List<Bip340Signer> owners;
    private final long seed;

    /** {@value #OWNERS} owner keys derived from {@code seed}, so runs with the same seed sign the same events. */
    DueEvents(long seed) {
        this(seed, OWNERS);
    }

    /** {@code ownerCount} owner keys derived from {@code seed}. */
    DueEvents(long seed, int ownerCount) {
        this.owners = IntStream.range(0, ownerCount).parallel()
                .mapToObj(i -> Bip340Signer.withFixedAux(ownerKey(seed, i), new byte[32]))
                .toList();
        this.seed = seed;
    }

    /**
     * One message to deliver: the signed event and its wire JSON (what the sidecar stores in {@code event_json} and
     * db-scheduler in its task data).
     */
    record DueEvent(NostrEvent event, String json) {
        DueEvent {
            if (event == null || json == null || json.isEmpty()) {
                throw new IllegalArgumentException("a due event needs its event and JSON");
            }
        }

        /** The event's id, 64 lowercase hex characters. */
        String id() {
            return event.id().hex();
        }

        /** The due time: the event's {@code created_at}, Unix seconds. */
        long dueSecond() {
            return event.createdAt();
        }

        /** The channel: the event's {@code h} tag. */
        String channel() {
            return event.firstTagValue("h").orElseThrow();
        }
    }

    /**
     * Signs {@code count} distinct events numbered from {@code first} (batches with different numbers never repeat an
     * event), message {@code n} due at {@code dueSecond.applyAsLong(n - first)} (Unix seconds).
     */
    List<DueEvent> sign(int first, int count, IntToLongFunction dueSecond) {
        return IntStream.range(first, first + count).parallel().mapToObj(n -> {
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + n);
            Bip340Signer owner = owners.get(random.nextInt(owners.size()));
            String channel = "bench-channel-%03d".formatted(random.nextInt(CHANNELS));
            NostrEvent event = owner.sign(dueSecond.applyAsLong(n - first), 9,
                    List.of(List.of("h", channel)), "#" + n + " " + CONTENT);
            return new DueEvent(event, NostrEventJson.write(event));
        }).toList();
    }

    private static SecretKey ownerKey(long seed, int index) {
        // SHA-256 of a label is below the curve order n with overwhelming probability; SecretKey checks it.
        return new SecretKey(sha256Hex(("buzz-bench-dispatch-owner-" + seed + "-" + index)
                .getBytes(StandardCharsets.UTF_8)));
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
