package buzz.scheduled.domain.schedule;

import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Every state a scheduled message can be in, by wire name, with what each state holds: the one list of states. The
 * store's literals and CHECK constraints, the API's filters and enums (docs/openapi.yaml) and the metrics are built
 * from it or tested against it; which operation leads from which state to which is {@link Transition}'s table.
 *
 * <p>"Pending" in the limits and the store means not {@link #terminal()}.
 */
public enum StateName {
    /** Waiting for its due time (and, after a transient failure, for a retry time). */
    SCHEDULED("scheduled"),
    /** Claimed by a dispatcher whose checks have not run yet; entered only by earlier versions. */
    CLAIMED("claimed"),
    /** Claimed and on its way to the relay. */
    SENDING("sending"),
    /** The relay accepted it; the event stays for the API to show. */
    PUBLISHED("published"),
    /** Cancelled by its owner; the event is purged. */
    CANCELLED("cancelled"),
    /**
     * Not delivered, for a {@link FailureReason}; the event stays until retention (unless the reason
     * {@linkplain FailureReason#purgesEvent() purges it}) so that an operator may requeue it.
     */
    FAILED("failed");

    private final String wireName;

    StateName(String wireName) {
        this.wireName = wireName;
    }

    /** The name in the API, the database and the metrics. */
    public String wireName() {
        return wireName;
    }

    // Each property is a switch without default, so a new state does not compile until it has said each one.

    /**
     * Whether it ended: it has the time it ended ({@code finished_at}), counts against no limit and is pruned after
     * retention. No owner or delivery transition leaves it; only an operator's {@link Transition#REQUEUE} takes a
     * failed message back to {@code scheduled}.
     */
    public boolean terminal() {
        return switch (this) {
            case SCHEDULED, CLAIMED, SENDING -> false;
            case PUBLISHED, CANCELLED, FAILED -> true;
        };
    }

    /** Whether a claim (fencing token and lease end) is held in it. */
    public boolean holdsClaim() {
        return switch (this) {
            case CLAIMED, SENDING -> true;
            case SCHEDULED, PUBLISHED, CANCELLED, FAILED -> false;
        };
    }

    /**
     * Whether the event payload may stay in it; entering a state that does not keep it purges every revision's. A
     * failed message keeps it unless its reason purges it ({@link ScheduleState#keepsEvent()}).
     */
    public boolean keepsEvent() {
        return switch (this) {
            case SCHEDULED, CLAIMED, SENDING, PUBLISHED, FAILED -> true;
            case CANCELLED -> false;
        };
    }

    /** Whether it may carry a retry time ("not before"). */
    public boolean waitsForRetry() {
        return switch (this) {
            case SCHEDULED -> true;
            case CLAIMED, SENDING, PUBLISHED, CANCELLED, FAILED -> false;
        };
    }

    /** Whether it carries a {@link FailureReason}. */
    public boolean hasReason() {
        return switch (this) {
            case FAILED -> true;
            case SCHEDULED, CLAIMED, SENDING, PUBLISHED, CANCELLED -> false;
        };
    }

    /** Every state, in lifecycle order. */
    public static List<StateName> all() {
        return List.of(values());
    }

    /** The states that match {@code test}, in lifecycle order. */
    public static Set<StateName> where(Predicate<StateName> test) {
        EnumSet<StateName> matching = EnumSet.noneOf(StateName.class);
        Arrays.stream(values()).filter(test).forEach(matching::add);
        return matching;
    }

    /** The wire names of {@code states}, in lifecycle order. */
    public static List<String> wireNames(Collection<StateName> states) {
        return Arrays.stream(values()).filter(states::contains).map(StateName::wireName).toList();
    }

    /**
     * Reads a wire name.
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static StateName fromWireName(String name) {
        return Arrays.stream(values())
                .filter(state -> state.wireName.equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown state: " + name));
    }
}
