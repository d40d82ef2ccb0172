package buzz.scheduled.benchmarks;

import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.util.List;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.BIP340Signer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of accepting one signed event (NIP-01, BIP-340): the full {@link EventSignatures} check (recompute the id,
 * decode the pubkey, BIP-340 verify with the sidecar's {@code Secp256k1Schnorr}), the same with BouncyCastle's
 * verifier as the peer, its id part alone, and strict wire reading plus the check, for a typical kind-9 channel
 * message (about 280 characters, mixed ASCII and non-ASCII, three tags).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SignatureVerificationBenchmark {

    /** More distinct keys than the verifier keeps tables for, so that {@link #verifyEventByANewKey} misses. */
    private static final int KEYS = 16_384;
    /** Events in a batch create (the most one request may hold). */
    private static final int BATCH = 100;

    private EventSignatures signatures;
    private NostrEvent event;
    private String wireText;
    private NostrEvent[] byManyKeys;
    private List<NostrEvent> batchByOneKey;
    private int next;

    /** Signs the benchmark event once, deterministically, and checks it is valid before measuring. */
    @Setup
    public void signEvent() {
        SecretKey key = new SecretKey("bfc8054fd72c3a3d2815e4a0b377c8b5bba4978057cd98580522d3ab82ebe292");
        Bip340Signer signer = Bip340Signer.withFixedAux(key, new byte[32]);
        String content = ("Standup moved to 10:30 — bring the Q3 numbers 📈. Café order: 2× flat white, 1× tea. "
                + "Link: https://example.com/agenda?week=42&team=core\n").repeat(2);
        event = signer.sign(1_767_225_600L, 9, List.of(
                List.of("h", "b5c8e3a0-9f1d-4c7e-8a2b-3d4e5f607182"),
                List.of("p", "472790b449df646a75a889d2c6404a3254fc5754179e023aca6b5ad8b499a42b"),
                List.of("e", "86dfc35469de4f65c629ba0e990a7d56ddd4ba116531f9ae55d945284359d8b3", "", "reply")),
                content);
        wireText = NostrEventJson.write(event);
        signatures = new Bip340EventSignatures();
        if (!(signatures.verify(event) instanceof EventSignatures.Verdict.Valid)) {
            throw new IllegalStateException("benchmark event does not verify");
        }
        batchByOneKey = java.util.stream.IntStream.range(0, BATCH)
                .mapToObj(i -> signer.sign(1_767_225_600L + i, 9, List.of(List.of("h", "general")), content))
                .toList();
        if (!signatures.verifyAll(batchByOneKey).stream().allMatch(EventSignatures.Verdict.Valid.class::isInstance)) {
            throw new IllegalStateException("benchmark batch does not verify");
        }
        byManyKeys = java.util.stream.IntStream.range(0, KEYS).parallel()
                .mapToObj(i -> Bip340Signer.withFixedAux(new SecretKey(String.format("%064x", 7_919L * (i + 1))),
                        new byte[32]).sign(1_767_225_600L, 9, List.of(List.of("h", "general")), "event " + i))
                .toArray(NostrEvent[]::new);
    }

    /** The signature port: id recomputation + pubkey decoding + BIP-340 verification. */
    @Benchmark
    public EventSignatures.Verdict verifyEvent() {
        return signatures.verify(event);
    }

    /**
     * The same port on events by {@value #KEYS} keys in turn: almost every verification meets a key whose tables
     * ({@code Secp256k1Schnorr.KeyTables}, 4 096 direct-mapped slots) are not cached, as for a client seen for the
     * first time (about 2 % still hit: a key's slot survives the next 16 383 keys with probability e^−4).
     */
    @Benchmark
    public EventSignatures.Verdict verifyEventByANewKey() {
        NostrEvent e = byManyKeys[next];
        next = (next + 1) % KEYS;
        return signatures.verify(e);
    }

    /**
     * The peer the sidecar's own verifier replaced, on the same event: id recomputation, then BouncyCastle 1.87's
     * {@code BIP340Signer} (pubkey decoding and verification over the custom secp256k1 curve with GLV).
     */
    @Benchmark
    public boolean verifyEventBouncyCastle() {
        if (!event.idMatchesContent()) {
            return false;
        }
        ECPublicKeyParameters key = BIP340Signer.decodePublicKey(Hex.decode(event.pubkey().hex()));
        if (key == null) {
            return false;
        }
        BIP340Signer verifier = new BIP340Signer();
        verifier.init(false, key);
        byte[] id = Hex.decode(event.id().hex());
        verifier.update(id, 0, id.length);
        return verifier.verifySignature(Hex.decode(event.sig().hex()));
    }

    /**
     * A batch create's {@value #BATCH} events by one key through {@link EventSignatures#verifyAll} (ids, then one
     * BIP-340 batch verification); divide by {@value #BATCH} for the cost per event, against {@link #verifyEvent}.
     */
    @Benchmark
    public List<EventSignatures.Verdict> verifyBatchOfAHundredByOneKey() {
        return signatures.verifyAll(batchByOneKey);
    }

    /** The same {@value #BATCH} events verified one by one, as before batch verification. */
    @Benchmark
    public int verifyAHundredByOneKeyOneByOne() {
        int valid = 0;
        for (NostrEvent e : batchByOneKey) {
            valid += signatures.verify(e) instanceof EventSignatures.Verdict.Valid ? 1 : 0;
        }
        return valid;
    }

    /** The id part alone: canonical serialization + SHA-256. */
    @Benchmark
    public EventId computeId() {
        return event.unsigned().computeId();
    }

    /** What an HTTP create costs for the event: strict JSON reading, then the signature port. */
    @Benchmark
    public EventSignatures.Verdict readAndVerifyEvent() {
        NostrEventJson.Decoded decoded = NostrEventJson.read(wireText);
        return signatures.verify(((NostrEventJson.Decoded.Event) decoded).event());
    }
}
