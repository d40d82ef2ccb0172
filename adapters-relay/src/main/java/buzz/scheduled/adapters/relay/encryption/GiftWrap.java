package buzz.scheduled.adapters.relay.encryption;

import buzz.scheduled.adapters.relay.encryption.Nip44.Opened;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.StrictJson;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * NIP-17 private direct messages in NIP-59 gift wraps: a kind-14 <em>rumor</em> (an unsigned event: whoever leaks it
 * cannot prove who wrote it) is NIP-44-encrypted from the sender to the recipient inside a kind-13 <em>seal</em>
 * signed by the sender (no tags), which is NIP-44-encrypted again inside a kind-1059 <em>gift wrap</em> signed by a
 * fresh random key made for that one wrap, whose only tag is {@code ["p", recipient]}. The seal's and the wrap's
 * {@code created_at} are each drawn uniformly from the last {@code maxBackdate} (NIP-59: up to two days in the past),
 * so neither the relay nor anyone reading it learns the sender, the content, or when it was written; the rumor keeps
 * the real time.
 */
public final class GiftWrap {
    /** NIP-17 chat message. */
    public static final int RUMOR_KIND = 14;
    /** NIP-59 seal. */
    public static final int SEAL_KIND = 13;
    /** NIP-59 gift wrap. */
    public static final int WRAP_KIND = 1059;
    /** How far back NIP-59 lets {@code created_at} be moved. */
    public static final Duration NIP59_MAX_BACKDATE = Duration.ofDays(2);

    private final SecretKey sender;
    private final Bip340Signer senderSigner;
    private final SecureRandom random;

    /**
     * @param sender the key that signs the seals (the sidecar's)
     * @param random nonces, wrap keys, tweaked times and BIP-340 aux randomness
     */
    public GiftWrap(SecretKey sender, SecureRandom random) {
        if (sender == null || random == null) {
            throw new IllegalArgumentException("a gift wrap needs the sender's key and a random source");
        }
        this.sender = sender;
        this.senderSigner = new Bip340Signer(sender, random);
        this.random = random;
    }

    /** The sender's public key (the rumor's and the seal's author). */
    public PublicKey sender() {
        return senderSigner.publicKey();
    }

    /**
     * Wraps a NIP-17 chat message {@code text} for {@code recipient}.
     *
     * @param now         Unix seconds: the rumor's {@code created_at} and the end of the window the others are drawn
     *                    from
     * @param maxBackdate how far back the seal's and the wrap's {@code created_at} may be moved (at most
     *                    {@link #NIP59_MAX_BACKDATE}; less when the relay refuses older events)
     * @param extraTags   tags of the rumor after its {@code ["p", recipient]} (e.g. a {@code subject})
     * @return the signed kind-1059 event to publish
     * @throws IllegalArgumentException when the text does not fit one NIP-44 payload
     */
    public NostrEvent wrap(PublicKey recipient, String text, List<List<String>> extraTags, long now,
                           Duration maxBackdate) {
        if (maxBackdate.isNegative() || maxBackdate.compareTo(NIP59_MAX_BACKDATE) > 0) {
            throw new IllegalArgumentException("a gift wrap may be backdated 0 to 2 days, not " + maxBackdate);
        }
        List<List<String>> tags = new java.util.ArrayList<>();
        tags.add(List.of("p", recipient.hex()));
        tags.addAll(extraTags);
        UnsignedEvent rumor = new UnsignedEvent(sender(), now, RUMOR_KIND, tags, text);
        String sealed = Nip44.encrypt(rumorJson(rumor), Nip44.conversationKey(sender, recipient), random);
        NostrEvent seal = senderSigner.sign(tweaked(now, maxBackdate), SEAL_KIND, List.of(), sealed);
        SecretKey wrapKey = SecretKey.generate(random);
        String wrapped = Nip44.encrypt(NostrEventJson.write(seal), Nip44.conversationKey(wrapKey, recipient), random);
        return new Bip340Signer(wrapKey, random).sign(tweaked(now, maxBackdate), WRAP_KIND,
                List.of(List.of("p", recipient.hex())), wrapped);
    }

    /**
     * What a recipient reads from a gift wrap: the seal's author and the rumor inside, or empty when this is not a
     * wrap for {@code recipient} that opens cleanly (wrong kind, unreadable layer, or a rumor whose author is not the
     * seal's signer). Signatures are not checked here.
     */
    public static Optional<Unwrapped> unwrap(NostrEvent wrap, SecretKey recipient) {
        if (wrap.kind() != WRAP_KIND) {
            return Optional.empty();
        }
        if (!(Nip44.decrypt(wrap.content(), Nip44.conversationKey(recipient, wrap.pubkey()))
                instanceof Opened.Plaintext sealText)
                || !(NostrEventJson.read(sealText.text()) instanceof NostrEventJson.Decoded.Event sealRead)) {
            return Optional.empty();
        }
        NostrEvent seal = sealRead.event();
        if (seal.kind() != SEAL_KIND || !(Nip44.decrypt(seal.content(), Nip44.conversationKey(recipient, seal.pubkey()))
                instanceof Opened.Plaintext rumorText)) {
            return Optional.empty();
        }
        if (!(StrictJson.parse(rumorText.text()) instanceof StrictJson.Parsed.Value value)
                || !(value.value() instanceof Map<?, ?> rumor)
                || !seal.pubkey().hex().equals(rumor.get("pubkey"))
                || !(rumor.get("content") instanceof String content)
                || !(rumor.get("kind") instanceof Long kind)) {
            return Optional.empty();
        }
        return Optional.of(new Unwrapped(seal, kind.intValue(), content));
    }

    /**
     * A gift wrap opened by its recipient.
     *
     * @param seal    the kind-13 seal (its {@code pubkey} is the sender)
     * @param kind    the rumor's kind
     * @param content the rumor's content
     */
    public record Unwrapped(NostrEvent seal, int kind, String content) {
    }

    private long tweaked(long now, Duration maxBackdate) {
        long seconds = maxBackdate.toSeconds();
        return seconds == 0 ? now : now - random.nextLong(seconds + 1);
    }

    /** The rumor as NIP-59 has it: the event with its id and without a signature. */
    private static String rumorJson(UnsignedEvent rumor) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", rumor.computeId().hex());
        json.put("pubkey", rumor.pubkey().hex());
        json.put("created_at", rumor.createdAt());
        json.put("kind", (long) rumor.kind());
        json.put("tags", rumor.tags());
        json.put("content", rumor.content());
        return StrictJson.write(json);
    }
}
