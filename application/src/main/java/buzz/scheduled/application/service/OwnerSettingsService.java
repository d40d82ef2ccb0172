package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.OwnerSettingsUseCase;
import buzz.scheduled.application.port.out.OwnerSettingsStore;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.Optional;

/**
 * An owner's settings (docs/openapi.yaml, tag owner): reads answer the stored choice or the default; a change is an
 * owner write, rate-limited like a create.
 */
public final class OwnerSettingsService implements OwnerSettingsUseCase {
    private final OwnerSettingsStore store;
    private final OwnerWriteLimiter writes;
    private final boolean noticesEnabled;

    /**
     * @param writes         the per-owner write rate the owner's other writes share
     * @param noticesEnabled whether the operator switched notices on ({@code BUZZ_NOTICES})
     */
    public OwnerSettingsService(OwnerSettingsStore store, OwnerWriteLimiter writes, boolean noticesEnabled) {
        if (store == null || writes == null) {
            throw new IllegalArgumentException("owner settings need a store and the write limiter");
        }
        this.store = store;
        this.writes = writes;
        this.noticesEnabled = noticesEnabled;
    }

    @Override
    public OwnerSettings settings(PublicKey owner) {
        return new OwnerSettings(store.notices(owner).orElse(NoticeChoice.DEFAULT), noticesEnabled);
    }

    @Override
    public SettingsResult changeNotices(PublicKey owner, NoticeChoice choice) {
        Optional<Duration> wait = writes.tryWrite(owner);
        if (wait.isPresent()) {
            long seconds = Math.max(1, (wait.get().toMillis() + 999) / 1000);
            return new SettingsResult.RateLimited(wait.get(), "too many writes from this owner; the next write is"
                    + " allowed in " + seconds + " s (retry after " + seconds + " s)");
        }
        store.saveNotices(owner, choice);
        return new SettingsResult.Changed(new OwnerSettings(choice, noticesEnabled));
    }
}
