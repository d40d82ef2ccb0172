package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The request body cap ({@link HttpSettings#maxBodyBytes()}): a body is read up to the cap and no further, and a
 * declared or actual length over it is answered {@code 413 too_large} with nothing stored.
 */
final class BodyCap {
    private final HttpSettings settings;

    BodyCap(HttpSettings settings) {
        this.settings = settings;
    }

    /** What reading a body gave. */
    sealed interface Read {
        /** The whole body, at most the cap (empty when none). */
        record Bytes(byte[] body) implements Read {
        }

        /** Over the cap; the rest was left unread. */
        record TooLarge(Answer.Problem problem) implements Read {
        }
    }

    /** Reads at most the cap; a declared ({@code Content-Length}) or actual length over it is refused unread. */
    Read read(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > settings.maxBodyBytes()) {
            return new Read.TooLarge(tooLarge(declared));
        }
        try (InputStream in = ctx.req().getInputStream()) {
            byte[] body = in.readNBytes(settings.maxBodyBytes() + 1);
            if (body.length > settings.maxBodyBytes()) {
                return new Read.TooLarge(tooLarge(-1));
            }
            return new Read.Bytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the request body", e);
        }
    }

    /**
     * The {@code 413 too_large} answer.
     *
     * @param declared the body's declared length in bytes, or -1 when it is not known
     */
    Answer.Problem tooLarge(long declared) {
        return new Answer.Problem(413, "too_large", "the request body "
                + (declared >= 0 ? "is " + declared + " bytes; " : "is too large; ")
                + "at most " + settings.maxBodyBytes() + " bytes are read (event content may be up to "
                + settings.maxContentBytes() + " bytes)");
    }
}
