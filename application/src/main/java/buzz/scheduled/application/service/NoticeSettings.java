package buzz.scheduled.application.service;

import java.time.Duration;

/**
 * How the notice sender works (docs/nostr.md, "Notices").
 *
 * @param perOwnerPerHour most notices one owner is sent in any hour ({@code BUZZ_NOTICES_PER_OWNER_PER_HOUR}); each
 *                        notice tells of up to {@link buzz.scheduled.domain.notice.NoticeText#MAX_OUTCOMES} outcomes,
 *                        and what is over the bound waits for the hour to make room (never dropped)
 * @param batch           most queued outcomes one pass takes
 * @param lease           how long taken outcomes are kept from other senders (longer than a send can take)
 */
public record NoticeSettings(int perOwnerPerHour, int batch, Duration lease) {
    /** The window the per-owner bound counts in. */
    public static final Duration WINDOW = Duration.ofHours(1);
    /** The defaults: 12 notices an owner an hour, 200 outcomes a pass, a 2-minute lease. */
    public static final NoticeSettings DEFAULT = new NoticeSettings(12, 200, Duration.ofMinutes(2));

    public NoticeSettings {
        if (perOwnerPerHour < 1 || batch < 1 || lease == null || lease.toSeconds() < 1) {
            throw new IllegalArgumentException("notice settings need a positive per-owner bound, batch and lease");
        }
    }

    /** How long outcomes held back by the bound wait before they are looked at again. */
    public Duration deferral() {
        return WINDOW.dividedBy(perOwnerPerHour);
    }
}
