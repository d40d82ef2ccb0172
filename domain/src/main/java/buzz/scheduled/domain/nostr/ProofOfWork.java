package buzz.scheduled.domain.nostr;

import java.util.List;
import java.util.OptionalInt;

/**
 * An event's NIP-13 proof of work: the number of leading zero bits of its id ({@code difficulty}) and the target
 * difficulty its {@code nonce} tag commits to (the tag's third entry), if it names one.
 *
 * <p>NIP-13 lets a relay refuse an event whose committed target is below what it requires even when the id happens
 * to have more zero bits ("a spammer targeting a lower difficulty got lucky"), so what the event counts for is the
 * smaller of the two ({@link #credited()}). A third entry that is not a decimal number commits to nothing a relay
 * could accept: it counts as a target of 0.
 *
 * @param difficulty      leading zero bits of the id, 0 to 256
 * @param committedTarget the first {@code nonce} tag's third entry, when it has one
 */
public record ProofOfWork(int difficulty, OptionalInt committedTarget) {

    public ProofOfWork {
        if (difficulty < 0 || difficulty > 256 || committedTarget == null) {
            throw new IllegalArgumentException("difficulty is 0..256 bits and a target present or empty, got "
                    + difficulty);
        }
    }

    /** The proof of work of {@code event} (NIP-13). */
    public static ProofOfWork of(NostrEvent event) {
        return new ProofOfWork(leadingZeroBits(event.id()), committedTarget(event.tags()));
    }

    /** What the event counts for: its difficulty, but never more than the target it committed to. */
    public int credited() {
        return committedTarget.isPresent() ? Math.min(difficulty, committedTarget.getAsInt()) : difficulty;
    }

    /** NIP-13 difficulty: the leading zero bits of the 256-bit id. */
    public static int leadingZeroBits(EventId id) {
        String hex = id.hex();
        int bits = 0;
        for (int i = 0; i < hex.length(); i++) {
            int nibble = Character.digit(hex.charAt(i), 16);
            if (nibble != 0) {
                return bits + Integer.numberOfLeadingZeros(nibble) - 28;
            }
            bits += 4;
        }
        return bits;
    }

    private static OptionalInt committedTarget(List<List<String>> tags) {
        for (List<String> tag : tags) {
            if (tag.getFirst().equals("nonce")) {
                if (tag.size() < 3) {
                    return OptionalInt.empty();
                }
                String target = tag.get(2);
                boolean decimal = !target.isEmpty() && target.length() <= 9
                        && target.chars().allMatch(c -> c >= '0' && c <= '9');
                return OptionalInt.of(decimal ? Math.min(256, Integer.parseInt(target)) : 0);
            }
        }
        return OptionalInt.empty();
    }
}
