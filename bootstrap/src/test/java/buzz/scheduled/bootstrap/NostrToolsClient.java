package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * nostr-tools' own NIP-98 helper ({@code nip98.getToken}, with {@code finalizeEvent} signing) as the client, run by
 * Node from {@code bootstrap/src/test/nostr-tools/nip98-token.mjs} (packages pinned by its lockfile, installed with
 * {@code npm ci} on first use). See that script for the request fields.
 */
final class NostrToolsClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_SECONDS = 60;

    private NostrToolsClient() {
    }

    /**
     * What the script made.
     *
     * @param u       the {@code u} tag: {@code new URL(url).href}
     * @param body    the exact request body text the payload hash covers, or null without an event
     * @param headers {@code Authorization} values, {@code Nostr <base64>}
     */
    record Tokens(String u, String body, List<String> headers) {
        /** The auth event inside header {@code index}, parsed. */
        JsonNode event(int index) {
            try {
                return JSON.readTree(Base64.getDecoder().decode(headers.get(index).substring("Nostr ".length())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Runs the script with {@code request} (see {@code nip98-token.mjs}). */
    static Tokens tokens(Map<String, Object> request) {
        Path directory = directory();
        TestRelay.installPackages(directory, "nostr-tools");
        try {
            Process node = new ProcessBuilder("node", "nip98-token.mjs", JSON.writeValueAsString(request))
                    .directory(directory.toFile()).redirectErrorStream(true).start();
            node.getOutputStream().close();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = node.getInputStream()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            if (!node.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                node.destroyForcibly();
                throw new IllegalStateException("nip98-token.mjs did not finish within " + TIMEOUT_SECONDS + " s");
            }
            String text = output.join();
            if (node.exitValue() != 0) {
                throw new IllegalStateException("nip98-token.mjs failed (exit " + node.exitValue() + "): " + text);
            }
            JsonNode answer = JSON.readTree(text);
            List<String> headers = new ArrayList<>();
            answer.get("headers").forEach(header -> headers.add(header.asText()));
            return new Tokens(answer.get("u").asText(),
                    answer.get("body").isNull() ? null : answer.get("body").asText(), List.copyOf(headers));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run node (Node 20+ must be on the PATH): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running nip98-token.mjs", e);
        }
    }

    /** {@code bootstrap/src/test/nostr-tools}, from this module's or the project's directory. */
    static Path directory() {
        Path here = Path.of("").toAbsolutePath();
        for (Path candidate : List.of(here.resolve("src/test/nostr-tools"), here.resolve("bootstrap/src/test/nostr-tools"))) {
            if (Files.isRegularFile(candidate.resolve("nip98-token.mjs"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("cannot find bootstrap/src/test/nostr-tools/nip98-token.mjs from " + here);
    }
}
