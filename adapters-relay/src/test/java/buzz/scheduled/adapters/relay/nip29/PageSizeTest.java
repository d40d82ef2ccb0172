package buzz.scheduled.adapters.relay.nip29;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The backlog's page size halves on each refusal, down to one, and later connections keep the lowest. */
class PageSizeTest {

    @Test
    void refused_halvesTheSize_firstTimeSaysSo_laterTimesDoNot() {
        PageSize sizes = new PageSize();

        PageSize.Refused first = sizes.refused(100);
        PageSize.Refused second = sizes.refused(50);

        assertThat(first).isEqualTo(new PageSize.Lowered(50, true));
        assertThat(second).isEqualTo(new PageSize.Lowered(25, false));
    }

    @Test
    void forConnection_afterARefusal_neverAsksForMoreThanTheLowestSizeReached() {
        PageSize sizes = new PageSize();
        int before = sizes.forConnection(100);

        sizes.refused(100);

        assertThat(before).isEqualTo(100);
        assertThat(sizes.forConnection(100)).isEqualTo(50);
        assertThat(sizes.forConnection(20)).as("a smaller max_limit stated later wins").isEqualTo(20);
    }

    @Test
    void refused_aPageOfOne_cannotGoLower() {
        assertThat(new PageSize().refused(1)).isEqualTo(new PageSize.AtOne());
        assertThat(new PageSize().refused(2)).isEqualTo(new PageSize.Lowered(1, true));
    }
}
