package buzz.scheduled.adapters.http;

import java.time.Duration;

/**
 * The owner limits the HTTP API applies itself or advertises in {@code /v1/info} {@code limitation}
 * (docs/scheduled-messages.md §3 and §4). The admission rules and the write rate themselves are the application's;
 * these are the same values, for clients to see.
 *
 * @param maxEventBytes         largest whole event as JSON in UTF-8 bytes ({@code max_event_bytes})
 * @param maxEventTags          most tags one event may have ({@code max_event_tags})
 * @param writesPerMinute       an owner's write rate per node ({@code owner_writes_per_minute})
 * @param writeBurst            an owner's writes at once ({@code owner_write_burst})
 * @param channelWindowPerOwner one owner's messages due in a channel in one window
 *                              ({@code max_per_owner_channel_window})
 * @param channelWindowTotal    every owner's together ({@code max_per_channel_window})
 * @param channelWindow         the window's length ({@code channel_window_seconds})
 * @param listPageMaxBytes      the list page's JSON budget in bytes (a single larger item still makes a page)
 */
public record OwnerApiLimits(int maxEventBytes, int maxEventTags, int writesPerMinute, int writeBurst,
                             int channelWindowPerOwner, int channelWindowTotal, Duration channelWindow,
                             int listPageMaxBytes) {
    /** The defaults (docs/scheduled-messages.md §4). */
    public static final OwnerApiLimits DEFAULTS = new OwnerApiLimits(300 * 1024, 1000, 60, 30, 30, 300,
            Duration.ofMinutes(5), 1024 * 1024);

    public OwnerApiLimits {
        if (maxEventBytes < 1 || maxEventTags < 1 || writesPerMinute < 1 || writeBurst < 1
                || channelWindowPerOwner < 1 || channelWindowTotal < 1 || listPageMaxBytes < 1
                || channelWindow == null || channelWindow.toSeconds() < 1) {
            throw new IllegalArgumentException("owner API limits must be positive");
        }
    }
}
