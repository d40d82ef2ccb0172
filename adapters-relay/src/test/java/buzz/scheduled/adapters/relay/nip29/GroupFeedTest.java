package buzz.scheduled.adapters.relay.nip29;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.LoggedLines;
import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import ch.qos.logback.classic.Level;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The NIP-29 feed and policy against the real test relay serving relay-signed group state. */
class GroupFeedTest {
    private static final PublicKey ALICE = new SecretKey("a1".repeat(32)).publicKey();
    private static final PublicKey BOB = new SecretKey("b2".repeat(32)).publicKey();
    private static final PublicKey CAROL = new SecretKey("c3".repeat(32)).publicKey();
    private static final Duration WAIT = Duration.ofSeconds(20);

    private Nip29TestRelay relay;
    private GroupFeed feed;
    private final List<String> carriedOut = new CopyOnWriteArrayList<>();
    private final AtomicInteger deletionFailuresLeft = new AtomicInteger();

    @BeforeEach
    void startRelay() {
        relay = Nip29TestRelay.start();
    }

    @AfterEach
    void stop() {
        if (feed != null) {
            feed.close();
        }
        relay.close();
    }

    private AccessPolicy follow(Optional<PublicKey> configuredRelayKey) {
        return follow(configuredRelayKey, Nip29Settings.DEFAULT_PAGE_SIZE);
    }

    private AccessPolicy follow(Optional<PublicKey> configuredRelayKey, int pageSize) {
        return follow(configuredRelayKey, pageSize, Optional.empty());
    }

    private AccessPolicy follow(Optional<PublicKey> configuredRelayKey, int pageSize,
                                Optional<AuthEventSigner> authSigner) {
        RelaySettings settings = new RelaySettings(relay.url(), Duration.ofSeconds(2), Duration.ofMillis(50),
                Duration.ofMillis(500));
        feed = new GroupFeed(new Nip29Settings(settings, configuredRelayKey, Duration.ofMillis(500), pageSize),
                new Bip340EventSignatures(),
                channel -> {
                    if (deletionFailuresLeft.getAndDecrement() > 0) {
                        throw new IllegalStateException("database unavailable");
                    }
                    carriedOut.add("deleted " + channel.value());
                    return new ChannelDeleted(0, 0, 0, true);
                },
                (channel, member) -> {
                    carriedOut.add("removed " + member.hex().substring(0, 4) + " from " + channel.value());
                    return new MemberRemoved(0, 0);
                },
                authSigner, Instant::now);
        feed.start();
        return new Nip29AccessPolicy(feed);
    }

    private static <T> T await(Supplier<T> value, java.util.function.Predicate<T> done, String what) {
        return Poll.until(what, WAIT, value::get, done);
    }

    private static AccessDecision decisionOf(AccessPolicy policy, PublicKey who, String group) {
        return policy.check(who, new Channel(group), 9);
    }

    private static boolean denied(AccessDecision decision, RefusalCode code) {
        return decision instanceof AccessDecision.Denied denied && denied.code() == code;
    }

    @Test
    void check_groupsOnTheRelay_decidesFromTheRelaySignedState() {
        relay.createGroup("closed-one", true);
        relay.addMember("closed-one", ALICE);
        relay.createGroup("open-one", false);
        relay.createGroup("old-one", true);
        relay.addMember("old-one", ALICE);
        relay.editGroup("old-one", "archived");

        AccessPolicy policy = follow(Optional.empty());
        await(feed::inSync, Boolean::booleanValue, "the feed to sync (relay pubkey from NIP-11)");

        assertThat(decisionOf(policy, ALICE, "closed-one")).isEqualTo(new AccessDecision.Allowed());
        assertThat(decisionOf(policy, relay.adminPubkey(), "closed-one")).isEqualTo(new AccessDecision.Allowed());
        assertThat(denied(decisionOf(policy, BOB, "closed-one"), RefusalCode.NOT_IN_CHANNEL)).isTrue();
        assertThat(decisionOf(policy, BOB, "open-one")).isEqualTo(new AccessDecision.Allowed());
        assertThat(denied(decisionOf(policy, ALICE, "old-one"), RefusalCode.IS_ARCHIVED)).isTrue();
        assertThat(denied(decisionOf(policy, ALICE, "no-such-group"), RefusalCode.CHANNEL_NOT_FOUND)).isTrue();
    }

    @Test
    void check_beforeTheFirstSync_isUnavailable() {
        relay.createGroup("g", true);
        relay.relay().stop();

        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()));

        assertThat(decisionOf(policy, ALICE, "g")).isInstanceOf(AccessDecision.Unavailable.class);
    }

    @Test
    void liveRemoval_carriesOutTheRemovalAndDeniesTheMember() {
        relay.createGroup("g", true);
        relay.addMember("g", ALICE);
        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()));
        await(() -> decisionOf(policy, ALICE, "g"), d -> d instanceof AccessDecision.Allowed, "alice allowed");

        relay.removeMember("g", ALICE);

        await(() -> carriedOut, list -> list.contains("removed " + ALICE.hex().substring(0, 4) + " from g"),
                "the removal to be carried out");
        await(() -> decisionOf(policy, ALICE, "g"), d -> denied(d, RefusalCode.NOT_IN_CHANNEL), "alice denied");
        assertThat(carriedOut).containsExactly("removed " + ALICE.hex().substring(0, 4) + " from g");
    }

    @Test
    void liveDeletion_isCarriedOutAfterAStoreFailureAndTheGroupIsNotFound() {
        relay.createGroup("doomed", true);
        relay.addMember("doomed", ALICE);
        deletionFailuresLeft.set(2);
        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()));
        await(feed::inSync, Boolean::booleanValue, "the feed to sync");

        relay.deleteGroup("doomed");

        await(() -> carriedOut, list -> list.contains("deleted doomed"), "the deletion to be carried out");
        assertThat(denied(decisionOf(policy, ALICE, "doomed"), RefusalCode.CHANNEL_NOT_FOUND)).isTrue();
        assertThat(deletionFailuresLeft.get()).isNegative();
        assertThat(carriedOut).containsExactly("deleted doomed");
    }

    @Test
    void backlog_isCarriedOutOnceAfterEoseAndSkipsAMemberAddedBack() {
        relay.createGroup("g", true);
        relay.addMember("g", ALICE);
        relay.addMember("g", CAROL);
        relay.removeMember("g", ALICE);
        relay.removeMember("g", CAROL);
        relay.addMember("g", CAROL);
        relay.createGroup("gone", true);
        relay.deleteGroup("gone");

        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()));
        await(feed::inSync, Boolean::booleanValue, "the feed to sync");
        await(() -> carriedOut, list -> list.size() >= 2, "the backlog to be carried out");

        assertThat(carriedOut).containsExactlyInAnyOrder("removed " + ALICE.hex().substring(0, 4) + " from g",
                "deleted gone");
        assertThat(decisionOf(policy, CAROL, "g")).isEqualTo(new AccessDecision.Allowed());
        assertThat(denied(decisionOf(policy, ALICE, "g"), RefusalCode.NOT_IN_CHANNEL)).isTrue();
    }

    @Test
    void relayDown_isUnavailableAndBackInSyncAfterRestartWithoutRepeatingModeration() {
        relay.createGroup("g", true);
        relay.addMember("g", ALICE);
        relay.addMember("g", BOB);
        relay.removeMember("g", BOB);
        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()));
        await(() -> decisionOf(policy, ALICE, "g"), d -> d instanceof AccessDecision.Allowed, "alice allowed");
        await(() -> carriedOut, list -> !list.isEmpty(), "the backlog removal");

        relay.relay().stop();
        AccessDecision whileDown = await(() -> decisionOf(policy, ALICE, "g"),
                d -> d instanceof AccessDecision.Unavailable, "unavailable while the relay is down");
        relay.relay().restart();
        await(() -> decisionOf(policy, ALICE, "g"), d -> d instanceof AccessDecision.Allowed, "allowed again");

        assertThat(((AccessDecision.Unavailable) whileDown).message()).contains("not available");
        assertThat(carriedOut).containsExactly("removed " + BOB.hex().substring(0, 4) + " from g");
    }

    @Test
    void configuredKeyThatSignedNothing_isUnavailableNamingTheKeyThatDid_notChannelNotFoundForEveryone() {
        relay.createGroup("g", false);
        SecretKey notTheRelay = new SecretKey("99".repeat(32));

        AccessPolicy policy = follow(Optional.of(notTheRelay.publicKey()));
        AccessDecision decision = await(() -> decisionOf(policy, ALICE, "g"),
                d -> d instanceof AccessDecision.Unavailable u && u.message().contains("no group state signed by"),
                "the feed to report the unconfirmed key");

        assertThat(((AccessDecision.Unavailable) decision).message())
                .contains("the relay has no group state signed by " + notTheRelay.publicKey().hex())
                .contains("group state on the relay is signed by [" + relay.relayPubkey().hex() + "]");
        assertThat(feed.inSync()).isFalse();
    }

    @Test
    void configuredKeyTheRelayDoesNotConfirm_emptyBacklog_isUnavailableUntilItsFirstGroupStateArrives() {
        relay.close();
        relay = Nip29TestRelay.start(mode -> mode.env("TEST_RELAY_NIP29_SELF", "off"));

        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()));
        await(() -> decisionOf(policy, ALICE, "g"),
                d -> d instanceof AccessDecision.Unavailable u && u.message().contains("no group state signed by"),
                "the feed to wait for a positive signal");
        relay.createGroup("g", true);
        relay.addMember("g", ALICE);

        await(() -> decisionOf(policy, ALICE, "g"), d -> d instanceof AccessDecision.Allowed, "alice allowed");
        assertThat(feed.inSync()).isTrue();
    }

    @Test
    void relayKeyFromNip11Self_noGroupsYet_isInSyncAndAnswersChannelNotFound() {
        AccessPolicy policy = follow(Optional.empty());
        await(feed::inSync, Boolean::booleanValue, "the feed to sync on the relay's own word (self)");

        assertThat(denied(decisionOf(policy, ALICE, "nowhere"), RefusalCode.CHANNEL_NOT_FOUND)).isTrue();
    }

    @Test
    void nip11WithoutSelfAndNoConfiguredKey_isUnavailableSayingToSetTheKey() {
        relay.close();
        PublicKey contact = new SecretKey("cc".repeat(32)).publicKey();
        relay = Nip29TestRelay.start(mode -> mode.env("TEST_RELAY_NIP29_SELF", "off")
                .env("TEST_RELAY_NIP29_CONTACT_PUBKEY", contact.hex()));
        relay.createGroup("g", false);

        AccessPolicy policy = follow(Optional.empty());
        AccessDecision decision = await(() -> decisionOf(policy, ALICE, "g"),
                d -> d instanceof AccessDecision.Unavailable u && u.message().contains("self"),
                "the feed to say what is missing");

        assertThat(((AccessDecision.Unavailable) decision).message())
                .contains("has no \"self\"")
                .contains("set BUZZ_RELAY_PUBKEY")
                .contains("its \"pubkey\" " + contact.hex() + " is the operator's contact key");
        assertThat(feed.inSync()).isFalse();
    }

    @Test
    void nip11WithoutSelf_reconnectingAgainAndAgain_warnsOnceNotAtEveryAttempt() {
        relay.close();
        relay = Nip29TestRelay.start(mode -> mode.env("TEST_RELAY_NIP29_SELF", "off"));
        try (LoggedLines lines = LoggedLines.of(GroupFeed.class, Level.DEBUG)) {
            follow(Optional.empty());
            await(() -> lines.at(Level.DEBUG).stream().filter(line -> line.contains("is still down")).count(),
                    attempts -> attempts >= 3, "three more attempts");

            List<String> warnings = lines.at(Level.WARN);
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0)).contains("is down").contains("self").contains("said once until it recovers");
        }
    }

    @Test
    void backlog_600GroupsBehindASilent500ResultCapAndSelfNotPubkey_isPagedToTheEndBeforeInSync() {
        relay.close();
        PublicKey contact = new SecretKey("cc".repeat(32)).publicKey();
        relay = Nip29TestRelay.start(mode -> mode.env("TEST_RELAY_MAX_RESULTS", "500")
                .env("TEST_RELAY_NIP29_CONTACT_PUBKEY", contact.hex())
                .env("TEST_RELAY_NIP29_GROUP_COUNT", "600")
                .env("TEST_RELAY_NIP29_GROUP_MEMBERS", ALICE.hex()));
        assertThat(relay.relay().events("{\"kinds\":[39000]}")).as("the relay caps a filter at 500").hasSize(500);

        AccessPolicy policy = follow(Optional.empty());
        await(feed::inSync, Boolean::booleanValue, "the feed to sync");

        assertThat(feed.directory().groupCount()).as("every group known when in sync is first reported")
                .isEqualTo(600);
        for (int i = 1; i <= 600; i++) {
            String group = "g%04d".formatted(i);
            assertThat(decisionOf(policy, ALICE, group)).as(group).isEqualTo(new AccessDecision.Allowed());
        }
        assertThat(denied(decisionOf(policy, BOB, "g0001"), RefusalCode.NOT_IN_CHANNEL)).isTrue();
        assertThat(denied(decisionOf(policy, BOB, "g0600"), RefusalCode.NOT_IN_CHANNEL)).isTrue();
    }

    @Test
    void backlog_maxLimitInNip11_isPagedAtThatSize() {
        relay.close();
        relay = Nip29TestRelay.start(mode -> mode.env("TEST_RELAY_MAX_RESULTS", "50")
                .plugin("plugins/limitation.js").env("TEST_RELAY_LIMITATION", "{\"max_limit\":50}")
                .env("TEST_RELAY_NIP29_GROUP_COUNT", "60")
                .env("TEST_RELAY_NIP29_GROUP_MEMBERS", ALICE.hex()));

        AccessPolicy policy = follow(Optional.empty(), 1_000); // larger than the relay returns: max_limit must win
        await(feed::inSync, Boolean::booleanValue, "the feed to sync");

        assertThat(feed.directory().groupCount()).isEqualTo(60);
        assertThat(decisionOf(policy, ALICE, "g0001")).isEqualTo(new AccessDecision.Allowed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"notice", "closed"})
    void backlog_relayRefusingPagesOverItsUnstatedLimit_isPagedAtALowerSizeToTheEnd_warningOnce(String answer) {
        relay.close();
        relay = Nip29TestRelay.start(mode -> mode.mode("--max-limit", "50", "--max-limit-answer", answer)
                .env("TEST_RELAY_NIP29_GROUP_COUNT", "120")
                .env("TEST_RELAY_NIP29_GROUP_MEMBERS", ALICE.hex()));

        try (LoggedLines lines = LoggedLines.of(GroupFeed.class, Level.WARN)) {
            AccessPolicy policy = follow(Optional.empty(), Nip29Settings.DEFAULT_PAGE_SIZE);
            await(feed::inSync, Boolean::booleanValue, "the feed to sync at a lower page size");

            assertThat(feed.directory().groupCount()).as("every group known").isEqualTo(120);
            assertThat(decisionOf(policy, ALICE, "g0001")).isEqualTo(new AccessDecision.Allowed());
            assertThat(decisionOf(policy, ALICE, "g0120")).isEqualTo(new AccessDecision.Allowed());
            assertThat(lines.at(Level.WARN)).filteredOn(line -> line.contains("backlog page"))
                    .singleElement().satisfies(line -> assertThat(line)
                            .contains("refused a NIP-29 backlog page of 100 events").contains("pages of 50"));
        }
    }

    @Test
    void backlog_moreEventsInOneSecondThanAPage_isNeverReportedInSync() {
        relay.createGroup("g", true); // 39000, 39001 and 39002 signed in the same second

        AccessPolicy policy = follow(Optional.of(relay.relayPubkey()), 2);
        AccessDecision decision = await(() -> decisionOf(policy, ALICE, "g"),
                d -> d instanceof AccessDecision.Unavailable u && u.message().contains("cannot tell whether it reached the rest"),
                "the feed to give up on the truncated backlog");

        assertThat(((AccessDecision.Unavailable) decision).message()).contains("at least 2 events share created_at");
        assertThat(feed.inSync()).isFalse();
    }

    @Test
    void backlog_relayThatServesOnlyAuthenticatedReads_isPagedAfterNip42Auth() {
        relay.close();
        relay = Nip29TestRelay.start(mode -> mode.auth(true).plugin("plugins/auth-reads.js")
                .env("TEST_RELAY_NIP29_GROUP_COUNT", "5")
                .env("TEST_RELAY_NIP29_GROUP_MEMBERS", ALICE.hex()));
        AuthEventSigner sidecar = AuthEventSigner.with(
                new Bip340Signer(SecretKey.generate(new SecureRandom()), new SecureRandom()));

        AccessPolicy policy = follow(Optional.empty(), 4, Optional.of(sidecar)); // 3 state events a second: pages of 4
        await(feed::inSync, Boolean::booleanValue, "the feed to sync after AUTH");

        assertThat(feed.directory().groupCount()).isEqualTo(5);
        assertThat(decisionOf(policy, ALICE, "g0005")).isEqualTo(new AccessDecision.Allowed());
    }
}
