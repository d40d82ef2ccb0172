package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;

/**
 * The default access policy ({@code BUZZ_ACCESS_POLICY=relay}): admission allows, and at delivery the relay's
 * own {@code restricted:}/{@code blocked:} answer decides (it fails the message {@code relay_rejected}).
 */
public final class RelayDecidesAccess implements AccessPolicy {
    @Override
    public AccessDecision check(PublicKey owner, Channel channel, int kind) {
        return new AccessDecision.Allowed();
    }

    /** The relay decides at publish time; there is nothing to ask before. */
    @Override
    public boolean checksBeforeDelivery() {
        return false;
    }
}
