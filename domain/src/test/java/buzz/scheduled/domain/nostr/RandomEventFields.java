package buzz.scheduled.domain.nostr;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random event fields for generated tests, biased towards what breaks serializers: C0 controls, quotes and
 * backslashes, U+2028/U+2029, HTML characters, astral code points (surrogate pairs), BOM and noncharacters.
 * Seeded, so a failing seed reproduces.
 */
public final class RandomEventFields {
    private static final int[] TRICKY = {
        0x00, 0x01, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1a, 0x1f, '"', '\\', '/', '<', '>', '&', '\'', 0x7f, 0x80, 0x9f,
        0xa0, 0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff, 0x1f355, 0x1f469, 0x200d, 0x20bb7, 0x10ffff, 0xe9, 0x65e5,
    };

    private final SplittableRandom random;

    public RandomEventFields(long seed) {
        this.random = new SplittableRandom(seed);
    }

    public String text(int maxLength) {
        int length = random.nextInt(maxLength + 1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < length; i++) {
            out.appendCodePoint(codePoint());
        }
        return out.toString();
    }

    public int codePoint() {
        return switch (random.nextInt(4)) {
            case 0 -> TRICKY[random.nextInt(TRICKY.length)];
            case 1 -> 0x20 + random.nextInt(0x5f);
            default -> {
                int cp;
                do {
                    cp = random.nextInt(0x110000);
                } while (cp >= 0xd800 && cp <= 0xdfff);
                yield cp;
            }
        };
    }

    public List<List<String>> tags() {
        int count = random.nextInt(6);
        List<List<String>> tags = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int size = 1 + random.nextInt(4);
            List<String> tag = new ArrayList<>();
            for (int j = 0; j < size; j++) {
                tag.add(text(12));
            }
            tags.add(tag);
        }
        return tags;
    }

    public long createdAt() {
        return random.nextBoolean() ? 1_700_000_000L + random.nextInt(100_000_000) : random.nextLong(Long.MAX_VALUE);
    }

    public int kind() {
        return random.nextInt(NostrEvent.MAX_KIND + 1);
    }

    public String hex(int bytes) {
        byte[] out = new byte[bytes];
        random.nextBytes(out);
        return Hex.encode(out);
    }

    public UnsignedEvent unsignedEvent() {
        return new UnsignedEvent(new PublicKey(hex(32)), createdAt(), kind(), tags(), text(80));
    }

    /** A uniform int in [0, bound), from the same seeded source. */
    public int nextInt(int bound) {
        return random.nextInt(bound);
    }
}
