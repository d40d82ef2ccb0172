package buzz.scheduled.adapters.relay;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The frames of a {@link RelayClient} that wait for a connection: to be written, written again, asked about, or
 * resolved after a lost connection. Kept across connections; guarded by the client's lock.
 */
final class FrameQueues {
    /** Event frames not yet written, oldest first. */
    private final ArrayDeque<Frame> queued = new ArrayDeque<>();
    /** Frames the relay refused for now ({@code auth-required:}, {@code rate-limited:}) or lost, to write first. */
    private final ArrayDeque<Frame> resends = new ArrayDeque<>();
    /** Look-ups waiting to be asked. */
    private final ArrayDeque<Frame> lookUps = new ArrayDeque<>();
    /** Frames whose outcome is unknown, to ask the next connection that may ask about. */
    final List<Frame> unresolved = new ArrayList<>();

    /** A new frame: a look-up joins the look-ups, an event frame the queue. */
    void add(Frame frame) {
        (frame.lookUpOnly ? lookUps : queued).addLast(frame);
    }

    /** {@code frame} is written again before the frames not written yet; true. */
    boolean resend(Frame frame) {
        return resends.add(frame);
    }

    /**
     * {@code frames} are asked about again: look-ups back at the front of the look-ups in their order, other frames
     * among the unresolved ones.
     */
    void askAgain(List<Frame> frames) {
        List<Frame> lookUpsAgain = new ArrayList<>();
        for (Frame frame : frames) {
            switch (frame.state()) {
                case FrameState.Queued queued -> lookUpsAgain.add(frame);
                case FrameState.Unresolved unresolved -> this.unresolved.add(frame);
                case FrameState.Answered answered -> {
                    // answered meanwhile: nothing to ask
                }
                case FrameState.Written written -> throw new IllegalStateException(
                        "frame " + frame.eventId() + " cannot be asked about again when " + written);
                case FrameState.Resolving resolving -> throw new IllegalStateException(
                        "frame " + frame.eventId() + " cannot be asked about again when " + resolving);
            }
        }
        for (int i = lookUpsAgain.size() - 1; i >= 0; i--) {
            lookUps.addFirst(lookUpsAgain.get(i));
        }
    }

    /** Empties the queues of frames and look-ups not yet written; their order is kept. */
    List<Frame> takeWaiting() {
        List<Frame> all = new ArrayList<>(resends.size() + queued.size() + lookUps.size());
        all.addAll(resends);
        all.addAll(queued);
        all.addAll(lookUps);
        resends.clear();
        queued.clear();
        lookUps.clear();
        return all;
    }

    /** Empties the queues and the unresolved frames, for the answers at close. */
    List<Frame> takeAll() {
        List<Frame> all = takeWaiting();
        all.addAll(unresolved);
        unresolved.clear();
        return all;
    }

    /** Takes out the frames waiting to be written again after an {@code auth-required:} refusal. */
    List<Frame> takeAuthRefused() {
        List<Frame> refused = new ArrayList<>();
        for (Iterator<Frame> it = resends.iterator(); it.hasNext(); ) {
            Frame frame = it.next();
            Frame.Refusal refusal = frame.refusal();
            if (refusal != null && refusal.reason() == Frame.Refusal.Reason.AUTH_REQUIRED) {
                it.remove();
                refused.add(frame);
            }
        }
        return refused;
    }

    /**
     * Up to {@value LookUp#IDS_PER_REQ} look-ups to ask in one {@code REQ}, oldest first; those past their deadline
     * or whose claim was lost go to {@code unsent} instead.
     */
    List<Frame> takeLookUps(long now, List<Frame> unsent) {
        List<Frame> asks = new ArrayList<>();
        Frame next;
        while (asks.size() < LookUp.IDS_PER_REQ && (next = lookUps.pollFirst()) != null) {
            if (now - next.publication.sendBy() > 0 || !next.publication.held().getAsBoolean()) {
                unsent.add(next);
                continue;
            }
            asks.add(next);
        }
        return asks;
    }

    /**
     * The next event frame to write: one the relay refused for now first, then the oldest queued; those past their
     * deadline or whose claim was lost go to {@code unsent} instead.
     */
    Frame takeEvent(long now, List<Frame> unsent) {
        Frame next;
        while ((next = resends.isEmpty() ? queued.pollFirst() : resends.pollFirst()) != null) {
            if (now - next.publication.sendBy() > 0 || !next.publication.held().getAsBoolean()) {
                unsent.add(next);
                continue;
            }
            return next;
        }
        return null;
    }

    /**
     * Takes out the frames whose send deadline passed: those never (again) written go to {@code notSent}; unresolved
     * ones, with no connection since to ask, go to {@code unknown} (the dispatcher retries; a resend is a duplicate
     * at worst).
     */
    void expire(long now, List<Frame> notSent, List<Frame> unknown) {
        for (ArrayDeque<Frame> waiting : List.of(resends, queued, lookUps)) {
            for (Iterator<Frame> it = waiting.iterator(); it.hasNext(); ) {
                Frame frame = it.next();
                if (now - frame.publication.sendBy() > 0) {
                    it.remove();
                    notSent.add(frame);
                }
            }
        }
        for (Iterator<Frame> it = unresolved.iterator(); it.hasNext(); ) {
            Frame frame = it.next();
            if (now - frame.publication.sendBy() > 0) {
                it.remove();
                unknown.add(frame);
            }
        }
    }
}
