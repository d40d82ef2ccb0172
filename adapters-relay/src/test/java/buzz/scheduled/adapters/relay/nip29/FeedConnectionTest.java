package buzz.scheduled.adapters.relay.nip29;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.RelayMessage;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the group feed's connection decides, step by step, without a relay: the sync's phases, page refusals and
 * NIP-42 as {@link FeedStep}s ({@code GroupFeedTest} runs the same against a real relay).
 */
class FeedConnectionTest {
    private static final PublicKey RELAY = new PublicKey("7e".repeat(32));
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final EventSignatures ALL_VALID = event -> new EventSignatures.Verdict.Valid();

    private static FeedConnection connection(boolean confirmed, boolean canAuthenticate) {
        return new FeedConnection(new SigningKey(RELAY, "test", confirmed), 100, new PageSize(), new GroupDirectory(),
                ALL_VALID, canAuthenticate, TIMEOUT);
    }

    private static String page(int n) {
        return FeedSubscription.PAGE_PREFIX + n;
    }

    @Test
    void startSync_opensTheLiveSubscriptionThenAsksForTheFirstPageWatchingIt() {
        List<FeedStep> steps = connection(true, false).startSync();

        assertThat(steps).hasSize(3);
        assertThat(((FeedStep.Send) steps.get(0)).text()).startsWith("[\"REQ\",\"buzz-nip29\",");
        assertThat(steps.get(1)).isEqualTo(new FeedStep.WatchPage(page(1), TIMEOUT.toMillis(),
                new PageRefusal.Unanswered(TIMEOUT)));
        assertThat(((FeedStep.Send) steps.get(2)).text()).startsWith("[\"REQ\",\"" + page(1) + "\",")
                .contains("\"limit\":100");
    }

    @Test
    void emptyBacklog_confirmedKey_isInSyncAfterBothFilters() {
        FeedConnection connection = connection(true, false);
        connection.startSync();

        List<FeedStep> afterState = connection.received(new RelayMessage.EndOfStoredEvents(page(1)));
        List<FeedStep> afterModeration = connection.received(new RelayMessage.EndOfStoredEvents(page(2)));

        assertThat(afterState.get(0)).isEqualTo(new FeedStep.Send("[\"CLOSE\",\"" + page(1) + "\"]"));
        assertThat(afterState).hasSize(3);
        assertThat(afterModeration).containsExactly(new FeedStep.Send("[\"CLOSE\",\"" + page(2) + "\"]"),
                new FeedStep.BacklogInSync(new SigningKey(RELAY, "test", true), 0, 2, 100));
        assertThat(connection.received(new RelayMessage.EndOfStoredEvents(page(2)))).as("an ended page").isEmpty();
    }

    @Test
    void emptyBacklog_unconfirmedKey_probesForOtherSignersThenSaysSo() {
        FeedConnection connection = connection(false, false);
        connection.startSync();
        connection.received(new RelayMessage.EndOfStoredEvents(page(1)));

        List<FeedStep> read = connection.received(new RelayMessage.EndOfStoredEvents(page(2)));
        List<FeedStep> probed = connection.received(new RelayMessage.EndOfStoredEvents(FeedSubscription.PROBE_ID));

        assertThat(read).hasSize(2);
        assertThat(((FeedStep.Send) read.get(1)).text()).startsWith("[\"REQ\",\"" + FeedSubscription.PROBE_ID + "\"");
        assertThat(probed.get(0)).isEqualTo(new FeedStep.Send("[\"CLOSE\",\"" + FeedSubscription.PROBE_ID + "\"]"));
        assertThat(((FeedStep.Unconfirmed) probed.get(1)).why()).contains("no group state signed by " + RELAY)
                .contains("no group state is signed by any other key either");
        assertThat(connection.received(new RelayMessage.EndOfStoredEvents(FeedSubscription.PROBE_ID)))
                .as("the probe is over").isEmpty();
    }

    @Test
    void pageClosedByTheRelay_isAskedAgainAtHalfTheSize() {
        FeedConnection connection = connection(true, false);
        connection.startSync();

        List<FeedStep> steps = connection.received(new RelayMessage.Closed(page(1), "error: limit too high"));

        PageRefusal refusal = new PageRefusal.Closed("error: limit too high");
        assertThat(steps).hasSize(4);
        assertThat(steps.get(0)).isEqualTo(new FeedStep.Send("[\"CLOSE\",\"" + page(1) + "\"]"));
        assertThat(steps.get(1)).isEqualTo(new FeedStep.PageSizeLowered(100, new PageSize.Lowered(50, true), refusal));
        assertThat(steps.get(2)).isEqualTo(new FeedStep.WatchPage(page(2), TIMEOUT.toMillis(),
                new PageRefusal.Unanswered(TIMEOUT)));
        assertThat(((FeedStep.Send) steps.get(3)).text()).contains("\"limit\":50");
        assertThat(refusal.why()).isEqualTo("CLOSED error: limit too high");
    }

    @Test
    void pageWatch_afterANotice_refusesOnlyAPageThatBroughtNothing() {
        FeedConnection connection = connection(true, false);
        connection.startSync();

        List<FeedStep> notice = connection.received(new RelayMessage.Notice("too many"));
        connection.received(new RelayMessage.Event(page(1), new NostrEventJson.Decoded.Malformed("broken")));
        List<FeedStep> watched = connection.watchEnded(page(1), new PageRefusal.AfterNotice("too many"));

        assertThat(notice).contains(new FeedStep.WatchPage(page(1), FeedConnection.NOTICE_GRACE_MILLIS,
                new PageRefusal.AfterNotice("too many")));
        assertThat(watched).as("the page brought an event").isEmpty();
    }

    @Test
    void authRequired_authenticatesOnceThenRestartsTheSyncAndGivesUpIfAskedAgain() {
        FeedConnection connection = connection(true, true);
        connection.startSync();
        RelayMessage authRequired = new RelayMessage.Closed(FeedSubscription.LIVE_ID, "auth-required: members only");

        assertThat(connection.received(authRequired)).containsExactly(new FeedStep.Authenticate());
        assertThat(connection.challenged()).containsExactly(new FeedStep.Authenticate());
        connection.authSent();
        assertThat(connection.received(authRequired)).as("AUTH already sent").isEmpty();
        assertThat(connection.challenged()).isEmpty();
        assertThat(connection.authAnswered(true, "")).hasSize(3);
        assertThat(connection.received(authRequired)).containsExactly(new FeedStep.GiveUp(
                "the relay still wants NIP-42 AUTH after accepting the sidecar's: auth-required: members only"));
    }

    @Test
    void authRequired_withoutASigner_givesTheConnectionUp_andAStaleSubscriptionIsIgnored() {
        FeedConnection connection = connection(true, false);
        connection.startSync();

        assertThat(connection.received(new RelayMessage.Closed("someone-else", "auth-required: no"))).isEmpty();
        assertThat(connection.received(new RelayMessage.Closed(FeedSubscription.LIVE_ID, "auth-required: no")))
                .containsExactly(new FeedStep.GiveUp("the relay closed the group subscription buzz-nip29:"
                        + " auth-required: no"));
    }
}
