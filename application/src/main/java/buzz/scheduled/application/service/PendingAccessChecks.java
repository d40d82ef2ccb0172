package buzz.scheduled.application.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The claims whose second access check (a policy that asks again before delivery, such as the {@code http}
 * callback, which may take its whole timeout) is under way. A graceful stop takes them and gives their claims back at
 * once instead of waiting for the checks (docs/failure-scenarios.md F40); a check that ends after its claim was taken
 * learns that its answer no longer counts. Each claim is settled once: by its check or by the stop. Thread-safe.
 */
final class PendingAccessChecks {
    private final Set<InFlight> running = ConcurrentHashMap.newKeySet();

    /** The check of {@code item} was handed to its thread. */
    void started(InFlight item) {
        running.add(item);
    }

    /** The check of {@code item} answered; true when its answer still counts (a stop did not take the claim). */
    boolean finished(InFlight item) {
        return running.remove(item);
    }

    /** Takes every claim whose check is still under way; their checks' answers will not count. */
    List<InFlight> takeAll() {
        List<InFlight> taken = new ArrayList<>();
        for (InFlight item : List.copyOf(running)) {
            if (running.remove(item)) {
                taken.add(item);
            }
        }
        return taken;
    }
}
