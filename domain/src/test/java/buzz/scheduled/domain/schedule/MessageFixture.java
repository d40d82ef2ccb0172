package buzz.scheduled.domain.schedule;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One scheduled message on a fixed timeline, rebuilt in any state through the public constructor (the way a
 * repository rebuilds a row), plus the admissions that revise it. All times are fixed: nothing reads a clock.
 */
final class MessageFixture {
    static final ScheduleId ID = new ScheduleId(UUID.fromString("0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c77"));
    /** The original event's {@code created_at}. */
    static final Instant DUE = Instant.ofEpochSecond(1_900_000_000L);
    /** When it was admitted. */
    static final Instant ADMITTED = DUE.minus(Duration.ofDays(1));
    /** When terminal states were entered, before {@link #NOW}. */
    static final Instant EARLIER = DUE.plusSeconds(5);
    /** When the operations under test happen (the database clock): ten seconds past due. */
    static final Instant NOW = DUE.plusSeconds(10);

    static final FencingToken TOKEN = new FencingToken(7);
    static final FencingToken OTHER_TOKEN = new FencingToken(8);
    static final Instant LEASE_UNTIL = NOW.plusSeconds(60);

    static final Duration RELAY_WINDOW = Duration.ofSeconds(900);
    static final Duration MAX_LATENESS = Duration.ofSeconds(900);

    static final AdmissionRules RULES = new AdmissionRules(
            AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, Duration.ofDays(120));

    /** Revision 1's event, due at {@link #DUE}. */
    static final NostrEvent ORIGINAL = EventFixture.event().createdAt(DUE.getEpochSecond()).build();

    /** An edit to another channel, an hour later than the original. */
    static final Admission REVISED = admitted(EventFixture.event()
            .createdAt(DUE.plusSeconds(3600).getEpochSecond()).channel("general-2").content("moved to 11:00")
            .build(), Timing.FUTURE, NOW);

    /** A send-now event signed at {@link #NOW}. */
    static final Admission SENT_NOW = admitted(EventFixture.event()
            .createdAt(NOW.getEpochSecond()).content("now, please").build(), Timing.IMMEDIATE, NOW);

    private MessageFixture() {
    }

    /** The message in {@code state} with revision 1 and its event kept. */
    static ScheduledMessage in(ScheduleState state, int attempts) {
        return new ScheduledMessage(ID, EventFixture.OWNER, new Channel(EventFixture.CHANNEL), Revision.FIRST,
                ORIGINAL.id(), DUE, Optional.of(ORIGINAL), state, attempts, ADMITTED, ADMITTED);
    }

    /** The message in a terminal {@code state} with its payload purged. */
    static ScheduledMessage purgedIn(ScheduleState state, int attempts) {
        return new ScheduledMessage(ID, EventFixture.OWNER, new Channel(EventFixture.CHANNEL), Revision.FIRST,
                ORIGINAL.id(), DUE, Optional.empty(), state, attempts, ADMITTED, EARLIER);
    }

    static ScheduledMessage scheduled() {
        return in(ScheduleState.Scheduled.NOW, 0);
    }

    static ScheduledMessage claimed() {
        return in(new ScheduleState.Claimed(TOKEN, LEASE_UNTIL), 1);
    }

    static ScheduledMessage sending() {
        return in(new ScheduleState.Sending(TOKEN, LEASE_UNTIL), 1);
    }

    /** Runs the I/O-free admission rules and insists they pass. */
    static Admission admitted(NostrEvent event, Timing timing, Instant now) {
        AdmissionVerdict verdict = RULES.check(event, event.pubkey(), timing, now);
        if (verdict instanceof AdmissionVerdict.Admitted admitted) {
            return admitted.admission();
        }
        throw new IllegalStateException("fixture event was refused: " + verdict);
    }

    /** The next value of an owner operation that must have changed the message. */
    static ScheduledMessage changed(OwnerOutcome outcome) {
        if (outcome instanceof OwnerOutcome.Changed changed) {
            return changed.message();
        }
        throw new AssertionError("expected Changed, got " + outcome);
    }
}
