package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetentionServiceTest {

    /** Pretends to hold {@code backlog} prunable rows and records every batch asked for. */
    private static final class Backlog implements ChannelAdministration {
        int backlog;
        final List<String> calls = new ArrayList<>();

        Backlog(int backlog) {
            this.backlog = backlog;
        }

        @Override
        public int pruneTerminal(Duration olderThan, int batch) {
            calls.add(olderThan + "/" + batch);
            int deleted = Math.min(batch, backlog);
            backlog -= deleted;
            return deleted;
        }

        @Override
        public ChannelDeleted deleteChannel(Channel channel) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MemberRemoved removeMember(Channel channel, PublicKey member) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int purgeOwner(PublicKey owner) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int purgeAll() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Reservations reservations() {
            return new Reservations(Optional.empty(), 0, Optional.empty(), java.time.Instant.EPOCH);
        }
    }

    @Test
    void prune_backlogSpanningBatches_deletesBatchByBatchUntilAShortOne() {
        Backlog backlog = new Backlog(25);

        int pruned = new RetentionService(backlog, new RetentionSettings(Duration.ofDays(7), 10, 100)).prune();

        assertThat(pruned).isEqualTo(25);
        assertThat(backlog.calls).containsExactly("PT168H/10", "PT168H/10", "PT168H/10");
    }

    @Test
    void prune_backlogLargerThanThePassBudget_stopsAfterTheBudgetAndLeavesTheRestForTheNextPass() {
        Backlog backlog = new Backlog(100);
        RetentionService retention = new RetentionService(backlog, new RetentionSettings(Duration.ofDays(7), 10, 3));

        int firstPass = retention.prune();

        assertThat(firstPass).isEqualTo(30);
        assertThat(backlog.backlog).isEqualTo(70);
        assertThat(backlog.calls).hasSize(3);
    }

    @Test
    void prune_exactMultipleOfTheBatch_endsWithOneEmptyBatch() {
        Backlog backlog = new Backlog(20);

        int pruned = new RetentionService(backlog, new RetentionSettings(Duration.ofDays(1), 10, 100)).prune();

        assertThat(pruned).isEqualTo(20);
        assertThat(backlog.calls).hasSize(3);
    }

    @Test
    void settings_badValues_areRefusedNamingTheValue() {
        assertThatThrownBy(() -> new RetentionSettings(Duration.ofDays(-1), 10, 1))
                .hasMessageContaining("retention must be zero or more");
        assertThatThrownBy(() -> new RetentionSettings(Duration.ofDays(7), 0, 1))
                .hasMessageContaining("batch size must be 1..10000, got 0");
        assertThatThrownBy(() -> new RetentionSettings(Duration.ofDays(7), 10, 0))
                .hasMessageContaining("batches per pass must be at least 1, got 0");
        assertThat(RetentionSettings.defaults().retention()).isEqualTo(Duration.ofDays(7));
    }
}
