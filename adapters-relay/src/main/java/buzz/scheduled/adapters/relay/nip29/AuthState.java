package buzz.scheduled.adapters.relay.nip29;

/** Where NIP-42 stands on one connection of the feed ({@link FeedConnection}). */
sealed interface AuthState {

    /** The relay has not asked for AUTH. */
    record NotAsked() implements AuthState {
    }

    /** A subscription was closed with {@code auth-required:}: AUTH goes out once the relay's challenge is there. */
    record Wanted() implements AuthState {
    }

    /** AUTH is sent; the relay's {@code OK} is awaited. */
    record Sent() implements AuthState {
    }

    /** The relay accepted AUTH: another {@code auth-required:} gives the connection up. */
    record Accepted() implements AuthState {
    }
}
