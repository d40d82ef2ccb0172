package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Allows everything unless a test sets a decision for an (owner, channel) pair. */
public final class ScriptedAccessPolicy implements AccessPolicy {
    private final Map<String, AccessDecision> decisions = new ConcurrentHashMap<>();

    /** From now on, {@code owner} in {@code channel} gets {@code decision}. */
    public void set(PublicKey owner, Channel channel, AccessDecision decision) {
        decisions.put(owner.hex() + "|" + channel.value(), decision);
    }

    @Override
    public AccessDecision check(PublicKey owner, Channel channel, int kind) {
        return decisions.getOrDefault(owner.hex() + "|" + channel.value(), new AccessDecision.Allowed());
    }
}
