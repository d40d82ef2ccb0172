package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Admission;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.AdmissionRules.Timing;
import buzz.scheduled.domain.schedule.AdmissionVerdict;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * The owner side's admission up to the stored limits, in the admission order of docs/openapi.yaml: the signature,
 * the I/O-free rules, what the relay's NIP-11 limitation refuses ({@link RelayAdmission}), then the channel's tombstone
 * and the access policy. {@link OwnerMessagesService} asks it for every create, edit and send-now with a new event;
 * the store then checks the limits atomically with the write.
 */
final class AdmissionChecks {
    private final EventSignatures signatures;
    private final AccessPolicy access;
    private final AdmissionRules rules;
    private final RelayAdmission relay;
    private final MessageAdmission admissions;

    AdmissionChecks(EventSignatures signatures, AccessPolicy access, AdmissionRules rules, RelayAdmission relay,
                    MessageAdmission admissions) {
        this.signatures = signatures;
        this.access = access;
        this.rules = rules;
        this.relay = relay;
        this.admissions = admissions;
    }

    /**
     * Event validity, the I/O-free rules, the relay's limits, the tombstone, then access: everything but the
     * stored limits.
     */
    Admit admit(PublicKey owner, NostrEvent event, Timing timing, Instant now) {
        return switch (screen(owner, event, timing, now)) {
            case Admit.Ok ok -> decide(owner, ok.admission(), admissions::channelDeleted,
                    (channel, kind) -> access.check(owner, channel, kind));
            case Admit.No no -> no;
            case Admit.Down down -> down;
        };
    }

    /**
     * The checks that need neither storage nor the access policy: signature, the I/O-free rules, the relay's limits.
     */
    Admit screen(PublicKey owner, NostrEvent event, Timing timing, Instant now) {
        return screen(owner, event, signatures.verify(event), timing, now);
    }

    /** The signature verdicts of a batch's events, in order ({@link EventSignatures#verifyAll}). */
    List<EventSignatures.Verdict> verifyAll(List<NostrEvent> events) {
        List<EventSignatures.Verdict> verdicts = signatures.verifyAll(events);
        if (verdicts.size() != events.size()) {
            throw new IllegalStateException("the signature check answered " + verdicts.size() + " of "
                    + events.size() + " events");
        }
        return verdicts;
    }

    /** {@link #screen(PublicKey, NostrEvent, Timing, Instant)} with the event's signature verdict already known. */
    Admit screen(PublicKey owner, NostrEvent event, EventSignatures.Verdict signature, Timing timing, Instant now) {
        if (signature instanceof EventSignatures.Verdict.Invalid invalid) {
            return new Admit.No(new Refusal(RefusalCode.INVALID_EVENT, invalid.reason()));
        }
        AdmissionVerdict verdict = rules.check(event, owner, timing, now);
        if (verdict instanceof AdmissionVerdict.Refused refused) {
            return new Admit.No(refused.refusal());
        }
        Admission admission = ((AdmissionVerdict.Admitted) verdict).admission();
        Optional<Refusal> relayRefusal = relay.refusal(event, timing, now);
        if (relayRefusal.isPresent()) {
            return new Admit.No(relayRefusal.get());
        }
        return new Admit.Ok(admission);
    }

    /**
     * The tombstone, then access, for an admission {@link #screen} let through.
     *
     * @param deleted  whether a channel has a tombstone
     * @param decision the access policy's answer for a channel and kind
     */
    static Admit decide(PublicKey owner, Admission admission, Predicate<Channel> deleted,
                                BiFunction<Channel, Integer, AccessDecision> decision) {
        if (deleted.test(admission.channel())) {
            return new Admit.No(new Refusal(RefusalCode.CHANNEL_NOT_FOUND,
                    "channel " + admission.channel() + " was deleted"));
        }
        return switch (decision.apply(admission.channel(), admission.event().kind())) {
            case AccessDecision.Allowed allowed -> new Admit.Ok(admission);
            case AccessDecision.Denied denied -> new Admit.No(new Refusal(denied.code(), denied.message()));
            case AccessDecision.Unavailable unavailable -> new Admit.Down(unavailable.message());
        };
    }

    /** How far an event got through admission before the stored limits. */
    sealed interface Admit {
        record Ok(Admission admission) implements Admit {
        }

        record No(Refusal refusal) implements Admit {
        }

        record Down(String message) implements Admit {
        }
    }
}
