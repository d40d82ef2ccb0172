package buzz.scheduled.domain.schedule;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;

/**
 * The admission rules (admission order of docs/openapi.yaml) that need no I/O, checked in a fixed order: ownership,
 * kind, channel, size (content, tag count, whole event), NIP-70 protection, expiration, then time. Signature validity comes before (the signature port); access, tombstones
 * and limits after (they need storage or the relay).
 *
 * @param allowedKinds     kinds an owner may schedule (default 9, 40002, 40008, 45001, 45003, 1)
 * @param maxContentBytes  largest content in UTF-8 bytes (default 256 KiB)
 * @param horizon          how far ahead a due time may be (default 120 days)
 * @param maxEventBytes    largest whole event in UTF-8 bytes, as its compact NIP-01 JSON object (id, pubkey,
 *                         created_at, kind, tags, content, sig; default 300 KiB), so tags count too
 * @param maxEventTags     most tags one event may carry (default 1000)
 */
public record AdmissionRules(Set<Integer> allowedKinds, int maxContentBytes, Duration horizon, int maxEventBytes,
                             int maxEventTags) {
    /** The default allowed kinds (docs/scheduled-messages.md §4). */
    public static final Set<Integer> DEFAULT_KINDS = Set.of(9, 40002, 40008, 45001, 45003, 1);
    /** The default content limit: 256 KiB (docs/scheduled-messages.md §4). */
    public static final int DEFAULT_MAX_CONTENT_BYTES = 256 * 1024;
    /**
     * The default whole-event limit: 300 KiB, room for the largest content plus signature, ids and a few KiB of tags
     * (docs/scheduled-messages.md §4).
     */
    public static final int DEFAULT_MAX_EVENT_BYTES = 300 * 1024;
    /**
     * NIP-70: an event with a tag named {@code "-"} (the NIP writes it {@code ["-"]}) is protected; any tag of that
     * name counts, as relays that implement NIP-70 look only at the tag's name.
     */
    static final String PROTECTED_TAG = "-";
    /** The default tag limit: 1000 tags (strfry's default is 2000; a chat message needs a handful). */
    public static final int DEFAULT_MAX_EVENT_TAGS = 1000;

    /** Rules with the default whole-event and tag limits ({@value #DEFAULT_MAX_EVENT_BYTES} bytes, 1000 tags). */
    public AdmissionRules(Set<Integer> allowedKinds, int maxContentBytes, Duration horizon) {
        this(allowedKinds, maxContentBytes, horizon, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_EVENT_TAGS);
    }

    public AdmissionRules {
        if (allowedKinds == null || allowedKinds.isEmpty()) {
            throw new IllegalArgumentException("at least one kind must be allowed");
        }
        if (maxContentBytes < 1) {
            throw new IllegalArgumentException("content limit must be positive, got " + maxContentBytes);
        }
        if (horizon == null || horizon.isNegative() || horizon.isZero()) {
            throw new IllegalArgumentException("horizon must be positive, got " + horizon);
        }
        if (maxEventBytes < 1 || maxEventTags < 1) {
            throw new IllegalArgumentException("event size and tag limits must be positive, got " + maxEventBytes
                    + " bytes and " + maxEventTags + " tags");
        }
        allowedKinds = Set.copyOf(allowedKinds);
    }

    /** Which time rule applies. */
    public enum Timing {
        /** Create and edit: due strictly after now and within the horizon. */
        FUTURE,
        /** Send now with a new event: the relay-window check happens on the aggregate; due is now. */
        IMMEDIATE
    }

    /**
     * Checks {@code event}, submitted by {@code authenticated}, at {@code now}.
     *
     * @return the admission, or the first refusal in the admission order of docs/openapi.yaml
     */
    public AdmissionVerdict check(NostrEvent event, PublicKey authenticated, Timing timing, Instant now) {
        if (!event.pubkey().equals(authenticated)) {
            return refuse(RefusalCode.PUBKEY_MISMATCH, "event pubkey " + event.pubkey()
                    + " is not the authenticated pubkey " + authenticated);
        }
        if (!allowedKinds.contains(event.kind())) {
            return refuse(RefusalCode.KIND_NOT_ALLOWED, "kind " + event.kind() + " cannot be scheduled; allowed: "
                    + allowedKinds.stream().sorted().toList());
        }
        List<String> channels = event.tagValues("h");
        if (channels.size() != 1) {
            return refuse(RefusalCode.MISSING_CHANNEL, "the event needs exactly one h tag naming the channel, it has "
                    + channels.size());
        }
        Channel channel;
        try {
            channel = new Channel(channels.get(0));
        } catch (IllegalArgumentException e) {
            return refuse(RefusalCode.MISSING_CHANNEL, "the h tag is not a channel: " + e.getMessage());
        }
        int bytes = event.content().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxContentBytes) {
            return refuse(RefusalCode.TOO_LARGE, "content is " + bytes + " bytes, the limit is " + maxContentBytes);
        }
        if (event.tags().size() > maxEventTags) {
            return refuse(RefusalCode.TOO_LARGE, "the event has " + event.tags().size() + " tags, the limit is "
                    + maxEventTags + " tags");
        }
        int eventBytes = NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8).length;
        if (eventBytes > maxEventBytes) {
            return refuse(RefusalCode.TOO_LARGE, "the whole event (id, pubkey, created_at, kind, tags, content and sig"
                    + " as JSON) is " + eventBytes + " bytes, the limit is " + maxEventBytes + " bytes");
        }
        if (event.tags().stream().anyMatch(tag -> tag.getFirst().equals(PROTECTED_TAG))) {
            return refuse(RefusalCode.PROTECTED_EVENT, "the event carries a NIP-70 [\"-\"] tag: a relay accepts a"
                    + " protected event only from its author's own authenticated connection, never from the sidecar"
                    + " publishing it later; sign it without the \"-\" tag to schedule it");
        }
        Instant dueAt = timing == Timing.FUTURE ? Instant.ofEpochSecond(event.createdAt()) : now;
        for (String expiration : event.tagValues("expiration")) {
            // NIP-40: a decimal string of ASCII digits. Long.parseLong alone would also read "+1796172879" and
            // other scripts' digits ("٣٤٥" as 345), which relays do not read the same way.
            long expiresAt;
            try {
                if (expiration.isEmpty() || !expiration.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    throw new NumberFormatException(expiration);
                }
                expiresAt = Long.parseLong(expiration);
            } catch (NumberFormatException e) {
                return refuse(RefusalCode.INVALID_EVENT, "the expiration tag is not Unix seconds: " + expiration);
            }
            if (expiresAt <= dueAt.getEpochSecond()) {
                return refuse(RefusalCode.EXPIRES_BEFORE_DUE, "the event expires at " + expiresAt
                        + ", not after its due time " + dueAt.getEpochSecond());
            }
        }
        if (timing == Timing.FUTURE) {
            if (event.createdAt() <= now.getEpochSecond()) {
                return refuse(RefusalCode.TIME_IN_PAST, "created_at " + event.createdAt() + " ("
                        + Instant.ofEpochSecond(event.createdAt()) + ") is not after now (" + now.getEpochSecond()
                        + ", " + now.truncatedTo(ChronoUnit.SECONDS) + "): a scheduled event is"
                        + " signed with the future time it is due");
            }
            if (event.createdAt() > now.plus(horizon).getEpochSecond()) {
                return refuse(RefusalCode.TIME_TOO_FAR, "created_at " + event.createdAt() + " ("
                        + Instant.ofEpochSecond(event.createdAt()) + ") is more than " + describe(horizon)
                        + " ahead of now (" + now.getEpochSecond() + "), the furthest this server schedules");
            }
        }
        return new AdmissionVerdict.Admitted(new Admission(event, channel, dueAt));
    }

    /** {@code 120 days} for whole days, else seconds ({@code 90 s}). */
    private static String describe(Duration duration) {
        return duration.toSecondsPart() == 0 && duration.toMinutesPart() == 0 && duration.toHoursPart() == 0
                && duration.toDays() > 0 ? duration.toDays() + " days" : duration.toSeconds() + " s";
    }

    private static AdmissionVerdict refuse(RefusalCode code, String message) {
        return new AdmissionVerdict.Refused(new Refusal(code, message));
    }
}
