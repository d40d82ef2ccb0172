package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.domain.schedule.AdmissionRules;
import java.time.Duration;

/**
 * Limits the owner operations apply (docs/scheduled-messages.md §4).
 *
 * @param rules        I/O-free admission rules (kinds, content size, horizon)
 * @param limits       pending-per-owner and per-channel-window limits checked with the create
 * @param relayWindow  how far from now the relay accepts a {@code created_at} ({@code BUZZ_RELAY_MAX_FUTURE_SECONDS})
 */
public record SchedulingSettings(AdmissionRules rules, CreateLimits limits, Duration relayWindow) {
    public SchedulingSettings {
        if (rules == null || limits == null || relayWindow == null || relayWindow.isNegative()) {
            throw new IllegalArgumentException("scheduling settings need rules, limits and a relay window");
        }
    }
}
