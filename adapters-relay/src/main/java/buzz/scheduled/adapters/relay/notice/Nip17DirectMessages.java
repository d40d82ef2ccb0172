package buzz.scheduled.adapters.relay.notice;

import buzz.scheduled.adapters.relay.RelayExchange;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.encryption.GiftWrap;
import buzz.scheduled.application.port.out.DirectMessages;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * NIP-17 direct messages from the sidecar's key (docs/nostr.md, "Notices"): each is a fresh NIP-59 gift wrap
 * ({@link GiftWrap}) sent to the recipient's NIP-17 inbox relays — the {@code relay} tags of their latest kind-10050
 * event on the sidecar's relay, checked, at most {@value #MAX_INBOX_RELAYS} — or, when they published none, to the
 * sidecar's relay. An inbox relay that is the sidecar's relay goes through the delivery's connection; any other is
 * one {@link RelayExchange}, and only on {@code ws}/{@code wss} to a public address unless private addresses are
 * allowed ({@code BUZZ_NOTICE_PRIVATE_RELAYS}), so an owner cannot make the sidecar connect into its own network.
 * The wraps' {@code created_at} is backdated at most two days (NIP-59), less when the sidecar's relay states a
 * {@code created_at_lower_limit}. Delivered when at least one relay took the wrap.
 */
public final class Nip17DirectMessages implements DirectMessages {
    /** NIP-17 list of a user's inbox relays for direct messages. */
    public static final int INBOX_RELAYS_KIND = 10050;
    /** Most inbox relays one message is sent to. */
    public static final int MAX_INBOX_RELAYS = 3;
    /** Kept clear of a relay's {@code created_at_lower_limit}, for clock differences. */
    private static final Duration LOWER_LIMIT_MARGIN = Duration.ofMinutes(5);

    private final GiftWrap wraps;
    private final RelaySettings sidecarRelay;
    private final RelayPublisher sidecarPublisher;
    private final RelayLimits sidecarLimits;
    private final RelayExchange exchange;
    private final EventSignatures signatures;
    private final WallClock clock;
    private final boolean privateRelaysAllowed;
    private final Duration timeout;

    /**
     * @param wraps                makes the gift wraps (the sidecar's key)
     * @param sidecarRelay         the sidecar's relay (where inbox lists are read, and the fallback)
     * @param sidecarPublisher     the delivery's connection to it
     * @param sidecarLimits        its NIP-11 limitation
     * @param exchange             short exchanges with the sidecar's relay (the look-up) and inbox relays
     * @param signatures           checks the kind-10050 events
     * @param privateRelaysAllowed whether inbox relays on loopback, link-local or private addresses are used
     * @param timeout              longest wait for each relay
     */
    public Nip17DirectMessages(GiftWrap wraps, RelaySettings sidecarRelay, RelayPublisher sidecarPublisher,
                               RelayLimits sidecarLimits, RelayExchange exchange, EventSignatures signatures,
                               WallClock clock, boolean privateRelaysAllowed, Duration timeout) {
        if (wraps == null || sidecarRelay == null || sidecarPublisher == null || sidecarLimits == null
                || exchange == null || signatures == null || clock == null || timeout == null) {
            throw new IllegalArgumentException("direct messages need wraps, the sidecar's relay, its publisher and"
                    + " limits, an exchange, signatures, a clock and a timeout");
        }
        this.wraps = wraps;
        this.sidecarRelay = sidecarRelay;
        this.sidecarPublisher = sidecarPublisher;
        this.sidecarLimits = sidecarLimits;
        this.exchange = exchange;
        this.signatures = signatures;
        this.clock = clock;
        this.privateRelaysAllowed = privateRelaysAllowed;
        this.timeout = timeout;
    }

    @Override
    public NostrDelivery send(PublicKey recipient, String text) {
        long now = clock.now().getEpochSecond();
        NostrEvent wrap = wraps.wrap(recipient, text, List.of(), now, backdate());
        List<URI> inboxes = inboxRelays(recipient);
        if (inboxes.isEmpty()) {
            return toSidecarRelay(wrap);
        }
        List<String> failures = new ArrayList<>();
        boolean delivered = false;
        for (URI inbox : inboxes) {
            NostrDelivery delivery = isSidecarRelay(inbox) ? toSidecarRelay(wrap)
                    : exchange.publish(RelaySettings.of(inbox), wrap, timeout);
            switch (delivery) {
                case NostrDelivery.Delivered ok -> delivered = true;
                case NostrDelivery.Undelivered no -> failures.add(no.why());
            }
        }
        return delivered ? new NostrDelivery.Delivered(wrap.id())
                : new NostrDelivery.Undelivered("no inbox relay of " + recipient + " took the notice: "
                + String.join("; ", failures));
    }

    /** Two days, or less to stay inside the sidecar's relay's {@code created_at_lower_limit}. */
    Duration backdate() {
        Duration limit = GiftWrap.NIP59_MAX_BACKDATE;
        var lower = sidecarLimits.current().createdAtLowerLimit();
        if (lower.isPresent()) {
            Duration relays = Duration.ofSeconds(lower.getAsLong()).minus(LOWER_LIMIT_MARGIN);
            limit = relays.isNegative() ? Duration.ZERO : relays.compareTo(limit) < 0 ? relays : limit;
        }
        return limit;
    }

    private NostrDelivery toSidecarRelay(NostrEvent wrap) {
        return switch (sidecarPublisher.publish(wrap, timeout)) {
            case PublishResult.Published published -> new NostrDelivery.Delivered(wrap.id());
            case PublishResult.Rejected rejected -> new NostrDelivery.Undelivered(sidecarRelay.url() + " refused it: "
                    + rejected.kind() + ": " + rejected.message());
            case PublishResult.Transient failed -> new NostrDelivery.Undelivered(sidecarRelay.url() + ": "
                    + failed.reason());
            case PublishResult.NotSent notSent -> new NostrDelivery.Undelivered(sidecarRelay.url() + ": "
                    + notSent.reason());
        };
    }

    /** The recipient's usable inbox relays from their latest valid kind 10050 on the sidecar's relay; empty if none. */
    List<URI> inboxRelays(PublicKey recipient) {
        String filter = "{\"kinds\":[" + INBOX_RELAYS_KIND + "],\"authors\":[\"" + recipient.hex() + "\"],\"limit\":1}";
        Optional<List<NostrEventJson.Decoded>> found = exchange.query(sidecarRelay, filter, timeout);
        Optional<NostrEvent> latest = found.orElse(List.of()).stream()
                .filter(NostrEventJson.Decoded.Event.class::isInstance)
                .map(decoded -> ((NostrEventJson.Decoded.Event) decoded).event())
                .filter(event -> event.kind() == INBOX_RELAYS_KIND && event.pubkey().equals(recipient))
                .filter(event -> signatures.verify(event) instanceof EventSignatures.Verdict.Valid)
                .max(Comparator.comparingLong(NostrEvent::createdAt));
        List<URI> relays = new ArrayList<>();
        for (String value : latest.map(event -> event.tagValues("relay")).orElse(List.of())) {
            usable(value).filter(uri -> !relays.contains(uri)).ifPresent(relays::add);
            if (relays.size() == MAX_INBOX_RELAYS) {
                break;
            }
        }
        return relays;
    }

    /** {@code value} as a relay URL the sidecar may connect to, if it is one. */
    Optional<URI> usable(String value) {
        URI uri;
        try {
            uri = new URI(value.strip());
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("ws") || scheme.equals("wss")) || uri.getHost() == null || uri.getUserInfo() != null) {
            return Optional.empty();
        }
        if (isSidecarRelay(uri) || privateRelaysAllowed) {
            return Optional.of(uri);
        }
        try {
            for (InetAddress address : InetAddress.getAllByName(uri.getHost())) {
                if (address.isLoopbackAddress() || address.isAnyLocalAddress() || address.isLinkLocalAddress()
                        || address.isSiteLocalAddress() || address.isMulticastAddress()
                        || isUniqueLocal(address)) {
                    return Optional.empty();
                }
            }
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
        return Optional.of(uri);
    }

    private static boolean isUniqueLocal(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == 16 && (bytes[0] & 0xfe) == 0xfc;
    }

    private boolean isSidecarRelay(URI uri) {
        return same(uri, sidecarRelay.url()) || same(uri, sidecarRelay.authUrl());
    }

    private static boolean same(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b) && path(a).equals(path(b));
    }

    private static int port(URI uri) {
        return uri.getPort() != -1 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("wss") ? 443 : 80;
    }

    private static String path(URI uri) {
        String path = uri.getPath() == null ? "" : uri.getPath();
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
