package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.OwnerSettingsStore;
import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Owners' settings in memory, for application tests. */
public final class InMemoryOwnerSettingsStore implements OwnerSettingsStore {
    private final Map<PublicKey, NoticeChoice> notices = new ConcurrentHashMap<>();

    @Override
    public Optional<NoticeChoice> notices(PublicKey owner) {
        return Optional.ofNullable(notices.get(owner));
    }

    @Override
    public void saveNotices(PublicKey owner, NoticeChoice choice) {
        notices.put(owner, choice);
    }
}
