package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * One {@code REQ} by id that asks the relay whether it has the events of some frames whose outcome is unknown (no
 * {@code OK} in time, a lost connection, an earlier claim, a look-up), from asked until the relay ends it
 * (docs/delivery.md, "Unknown outcomes"). Guarded by the owner's lock.
 */
final class LookUp {
    /** Most ids asked for in one {@code REQ}. */
    static final int IDS_PER_REQ = 100;

    final String subscription;
    /** Why the outcomes are unknown, for the answers ({@code timeout}, {@code dropped}, …). */
    final String why;
    /** When the relay's {@code EOSE} or {@code CLOSED} is no longer waited for. */
    final long answerBy;
    private final Map<String, Frame> frames = new HashMap<>();
    /** The ids asked for, in the order asked. */
    private final List<String> ids = new ArrayList<>();
    private final Set<String> found = new HashSet<>();

    private LookUp(String subscription, String why, long answerBy) {
        this.subscription = subscription;
        this.why = why;
        this.answerBy = answerBy;
    }

    /**
     * The look-ups that ask about {@code asked}, {@value #IDS_PER_REQ} ids each, their subscriptions numbered by
     * {@code numbers}; each frame is {@link FrameState.Resolving} after this.
     */
    static List<LookUp> of(List<Frame> asked, String why, long answerBy, LongSupplier numbers) {
        List<LookUp> all = new ArrayList<>();
        for (int from = 0; from < asked.size(); from += IDS_PER_REQ) {
            LookUp lookUp = new LookUp("buzz-resolve-" + numbers.getAsLong(), why, answerBy);
            for (Frame frame : asked.subList(from, Math.min(asked.size(), from + IDS_PER_REQ))) {
                frame.asked(lookUp.subscription);
                lookUp.frames.put(frame.eventId(), frame);
                lookUp.ids.add(frame.eventId());
            }
            all.add(lookUp);
        }
        return all;
    }

    /** The {@code ["REQ", …]} text that asks the relay. */
    String request() {
        StringBuilder req = new StringBuilder("[\"REQ\",\"").append(subscription).append("\",{\"ids\":[");
        for (int i = 0; i < ids.size(); i++) {
            req.append(i == 0 ? "\"" : ",\"").append(ids.get(i)).append('"');
        }
        return req.append("],\"limit\":").append(ids.size()).append("}]").toString();
    }

    /** The {@code ["CLOSE", …]} text that ends the subscription at the relay. */
    String closeRequest() {
        return "[\"CLOSE\",\"" + subscription + "\"]";
    }

    /** The frames asked about. */
    Collection<Frame> frames() {
        return frames.values();
    }

    /** The relay sent the event {@code eventId} on this subscription. */
    void found(String eventId) {
        found.add(eventId);
    }

    /**
     * What the frames' answers are once the relay ended the look-up with {@code end} (not {@link LookUpEnd.AuthFirst}):
     * found is published; absent after a lost connection or an earlier claim is written again (as if it had waited);
     * the rest are answered with what is known.
     */
    List<Decision> settle(LookUpEnd end, long now, RelayCounters counters) {
        List<Decision> decisions = new ArrayList<>();
        List<Frame> missing = new ArrayList<>();
        for (Frame frame : frames.values()) {
            if (found.contains(frame.eventId())) {
                counters.found.incrementAndGet();
                decisions.add(new Decision.Answer(frame, new PublishResult.Published(PublishResult.Acceptance.FOUND,
                        "the relay's answer was lost (" + why + "); it has the event")));
            } else if (end instanceof LookUpEnd.Complete && frame.resendIfAbsent(now)) {
                counters.resent.incrementAndGet();
                decisions.add(new Decision.Resend(frame));
            } else {
                missing.add(frame);
            }
        }
        String unknown = switch (end) {
            case LookUpEnd.Unknown why -> why.why();
            case LookUpEnd.Complete complete -> "";
            case LookUpEnd.AuthFirst authFirst -> throw new IllegalStateException(
                    "look-up " + subscription + " must be asked again after AUTH, not settled");
        };
        for (Frame frame : missing) {
            boolean complete = end instanceof LookUpEnd.Complete;
            decisions.add(new Decision.Answer(frame, new PublishResult.Transient(frame.lookUpOnly
                    ? (complete ? "not-found: the relay does not have the event"
                    : "unknown: asking the relay for the event " + unknown)
                    : why + ": no answer from the relay" + (complete ? ", and it does not have the event"
                    : ", and asking it for the event " + unknown))));
        }
        return decisions;
    }
}
