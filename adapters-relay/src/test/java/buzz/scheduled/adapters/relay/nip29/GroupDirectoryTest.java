package buzz.scheduled.adapters.relay.nip29;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.nip29.GroupDirectory.Moderation;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the relay's NIP-29 events mean for access and moderation, event by event (no network). */
class GroupDirectoryTest {
    private static final Bip340Signer RELAY = new Bip340Signer(new SecretKey("7e".repeat(32)), new SecureRandom());
    private static final Bip340Signer ADMIN = new Bip340Signer(new SecretKey("ad".repeat(32)), new SecureRandom());
    private static final Bip340Signer STRANGER = new Bip340Signer(new SecretKey("5a".repeat(32)), new SecureRandom());
    private static final PublicKey ALICE = new PublicKey("a1".repeat(32));
    private static final PublicKey BOB = new PublicKey("b2".repeat(32));
    private static final Channel GROUP = new Channel("pizza");
    private static final long T = 1_800_000_000L;

    private final GroupDirectory directory = new GroupDirectory();

    @BeforeEach
    void knowTheRelay() {
        directory.relayPubkey(RELAY.publicKey());
    }

    private static NostrEvent metadata(Bip340Signer signer, long at, String... flags) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("d", GROUP.value()));
        tags.add(List.of("name", "Pizza"));
        for (String flag : flags) {
            tags.add(List.of(flag));
        }
        return signer.sign(at, GroupDirectory.METADATA, tags, "");
    }

    private static NostrEvent roster(Bip340Signer signer, int kind, long at, PublicKey... pubkeys) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("d", GROUP.value()));
        for (PublicKey pubkey : pubkeys) {
            tags.add(List.of("p", pubkey.hex()));
        }
        return signer.sign(at, kind, tags, "");
    }

    private static NostrEvent moderation(Bip340Signer signer, int kind, long at, PublicKey... pubkeys) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("h", GROUP.value()));
        for (PublicKey pubkey : pubkeys) {
            tags.add(List.of("p", pubkey.hex()));
        }
        return signer.sign(at, kind, tags, "");
    }

    /** A closed group administered by ADMIN with ALICE as member, in sync. */
    private void closedGroupWithAlice() {
        directory.acceptState(metadata(RELAY, T, "closed", "private"));
        directory.acceptState(roster(RELAY, GroupDirectory.ADMINS, T, ADMIN.publicKey()));
        directory.acceptState(roster(RELAY, GroupDirectory.MEMBERS, T, ADMIN.publicKey(), ALICE));
        directory.synced();
    }

    @Test
    void decide_beforeTheFirstSync_isUnavailable() {
        directory.acceptState(metadata(RELAY, T, "open"));

        assertThat(directory.decide(ALICE, GROUP)).isInstanceOf(AccessDecision.Unavailable.class);
    }

    @Test
    void decide_afterLosingTheRelay_isUnavailableUntilTheNextSync() {
        closedGroupWithAlice();

        directory.unsynced("the relay closed the connection");
        AccessDecision lost = directory.decide(ALICE, GROUP);
        directory.synced();

        assertThat(lost).isEqualTo(new AccessDecision.Unavailable("the relay closed the connection"));
        assertThat(directory.decide(ALICE, GROUP)).isEqualTo(new AccessDecision.Allowed());
    }

    @Test
    void decide_closedGroup_allowsMembersAndAdminsAndDeniesOthersNotInChannel() {
        closedGroupWithAlice();

        assertThat(directory.decide(ALICE, GROUP)).isEqualTo(new AccessDecision.Allowed());
        assertThat(directory.decide(ADMIN.publicKey(), GROUP)).isEqualTo(new AccessDecision.Allowed());
        assertThat(directory.decide(BOB, GROUP)).isInstanceOfSatisfying(AccessDecision.Denied.class,
                denied -> assertThat(denied.code()).isEqualTo(RefusalCode.NOT_IN_CHANNEL));
    }

    @Test
    void decide_openGroup_allowsNonMembers() {
        directory.acceptState(metadata(RELAY, T, "public", "open"));
        directory.synced();

        assertThat(directory.decide(BOB, GROUP)).isEqualTo(new AccessDecision.Allowed());
    }

    @Test
    void decide_restrictedOrPrivateGroup_deniesNonMembersEvenWhenOpen() {
        directory.acceptState(metadata(RELAY, T, "open", "restricted"));
        directory.synced();
        AccessDecision restricted = directory.decide(BOB, GROUP);
        directory.acceptState(metadata(RELAY, T + 1, "open", "private"));

        assertThat(restricted).isInstanceOf(AccessDecision.Denied.class);
        assertThat(directory.decide(BOB, GROUP)).isInstanceOf(AccessDecision.Denied.class);
    }

    @Test
    void decide_archivedGroup_isArchivedEvenForMembers() {
        closedGroupWithAlice();
        directory.acceptState(metadata(RELAY, T + 5, "closed", "archived"));

        assertThat(directory.decide(ALICE, GROUP)).isInstanceOfSatisfying(AccessDecision.Denied.class,
                denied -> assertThat(denied.code()).isEqualTo(RefusalCode.IS_ARCHIVED));
    }

    @Test
    void decide_unknownGroupOrRosterWithoutMetadata_isChannelNotFound() {
        directory.acceptState(roster(RELAY, GroupDirectory.MEMBERS, T, ALICE));
        directory.synced();

        assertThat(directory.decide(ALICE, GROUP)).isInstanceOfSatisfying(AccessDecision.Denied.class,
                denied -> assertThat(denied.code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
        assertThat(directory.decide(ALICE, new Channel("nowhere"))).isInstanceOfSatisfying(AccessDecision.Denied.class,
                denied -> assertThat(denied.code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
    }

    @Test
    void acceptState_notSignedByTheRelay_isIgnored() {
        closedGroupWithAlice();

        boolean forgedMembers = directory.acceptState(roster(STRANGER, GroupDirectory.MEMBERS, T + 9, BOB));
        boolean forgedMetadata = directory.acceptState(metadata(STRANGER, T + 9, "open"));

        assertThat(forgedMembers).isFalse();
        assertThat(forgedMetadata).isFalse();
        assertThat(directory.decide(BOB, GROUP)).isInstanceOf(AccessDecision.Denied.class);
    }

    @Test
    void acceptState_olderReplacement_isIgnoredAndATieGoesToTheLowerId() {
        closedGroupWithAlice();

        boolean older = directory.acceptState(roster(RELAY, GroupDirectory.MEMBERS, T - 1, BOB));
        NostrEvent first = roster(RELAY, GroupDirectory.MEMBERS, T + 1, BOB);
        NostrEvent second = roster(RELAY, GroupDirectory.MEMBERS, T + 1, ALICE);
        directory.acceptState(first);
        directory.acceptState(second);
        NostrEvent lower = first.id().hex().compareTo(second.id().hex()) < 0 ? first : second;

        assertThat(older).isFalse();
        assertThat(directory.group(GROUP.value()).orElseThrow().members().orElseThrow().version().eventId())
                .isEqualTo(lower.id());
    }

    @Test
    void acceptModeration_deleteByAdmin_deletesForGood() {
        closedGroupWithAlice();

        Optional<Moderation> moderation = directory.acceptModeration(
                moderation(ADMIN, GroupDirectory.DELETE_GROUP, T + 2), true);
        directory.acceptState(metadata(RELAY, T + 3, "open"));

        assertThat(moderation).contains(new Moderation.GroupDeleted(GROUP));
        assertThat(directory.decide(ALICE, GROUP)).isInstanceOfSatisfying(AccessDecision.Denied.class,
                denied -> assertThat(denied.code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
    }

    @Test
    void acceptModeration_byANonAdmin_isIgnored() {
        closedGroupWithAlice();

        Optional<Moderation> deletion = directory.acceptModeration(
                moderation(STRANGER, GroupDirectory.DELETE_GROUP, T + 2), true);
        Optional<Moderation> removal = directory.acceptModeration(
                moderation(STRANGER, GroupDirectory.REMOVE_USER, T + 2, ALICE), true);

        assertThat(deletion).isEmpty();
        assertThat(removal).isEmpty();
        assertThat(directory.decide(ALICE, GROUP)).isEqualTo(new AccessDecision.Allowed());
    }

    @Test
    void acceptModeration_removalSignedByTheRelay_counts() {
        closedGroupWithAlice();

        Optional<Moderation> removal = directory.acceptModeration(
                moderation(RELAY, GroupDirectory.REMOVE_USER, T + 2, ALICE), true);

        assertThat(removal).contains(new Moderation.MembersRemoved(GROUP, Set.of(ALICE)));
    }

    @Test
    void acceptModeration_liveRemovalBeforeTheNewRoster_counts() {
        closedGroupWithAlice();
        directory.acceptState(roster(RELAY, GroupDirectory.MEMBERS, T + 5, ADMIN.publicKey(), ALICE));

        Optional<Moderation> removal = directory.acceptModeration(
                moderation(ADMIN, GroupDirectory.REMOVE_USER, T + 3, ALICE), true);

        assertThat(removal).contains(new Moderation.MembersRemoved(GROUP, Set.of(ALICE)));
    }

    @Test
    void acceptModeration_backlogRemovalOfAMemberListedAgainLater_isSkipped() {
        closedGroupWithAlice();
        directory.acceptState(roster(RELAY, GroupDirectory.MEMBERS, T + 10, ADMIN.publicKey(), ALICE));

        Optional<Moderation> oldRemoval = directory.acceptModeration(
                moderation(ADMIN, GroupDirectory.REMOVE_USER, T + 3, ALICE, BOB), false);

        assertThat(oldRemoval).contains(new Moderation.MembersRemoved(GROUP, Set.of(BOB)));
    }
}
