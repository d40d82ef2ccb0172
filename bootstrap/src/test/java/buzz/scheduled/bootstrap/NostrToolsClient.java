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
 * nostr-tools' own functions as the client, run by Node from {@code bootstrap/src/test/nostr-tools} (packages pinned
 * by its lockfile, installed with {@code npm ci} on first use): its NIP-98 helper ({@code nip98.getToken}, with
 * {@code finalizeEvent} signing) in {@code nip98-token.mjs}, and its NIP-44, NIP-04 and NIP-17/NIP-59 functions in
 * {@code nostr-crypto.mjs}. See each script for the request fields.
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
        JsonNode answer = run(directory(), "nip98-token.mjs", "nostr-tools", request);
        List<String> headers = new ArrayList<>();
        answer.get("headers").forEach(header -> headers.add(header.asText()));
        return new Tokens(answer.get("u").asText(),
                answer.get("body").isNull() ? null : answer.get("body").asText(), List.copyOf(headers));
    }

    /**
     * Runs nostr-tools' own NIP-44, NIP-04 and NIP-17/NIP-59 functions ({@code nostr-crypto.mjs}, see its header for
     * the operations) and answers its JSON line.
     */
    static JsonNode crypto(Map<String, Object> request) {
        return run(directory(), "nostr-crypto.mjs", "nostr-tools", request);
    }

    /**
     * Runs {@code script} in {@code directory} with {@code request} as its one argument (packages pinned by the
     * folder's lockfile, installed with {@code npm ci} on first use when {@code module} is missing) and answers the
     * last JSON line it prints.
     */
    static JsonNode run(Path directory, String script, String module, Map<String, Object> request) {
        TestRelay.installPackages(directory, module);
        try {
            Process node = new ProcessBuilder("node", script, JSON.writeValueAsString(request))
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
                throw new IllegalStateException(script + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
            String text = output.join();
            if (node.exitValue() != 0) {
                throw new IllegalStateException(script + " failed (exit " + node.exitValue() + "): " + text);
            }
            String last = text.strip().lines().reduce((first, second) -> second).orElse("");
            return JSON.readTree(last);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run node (Node 20+ must be on the PATH): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + script, e);
        }
    }

    /** {@code bootstrap/src/test/nostr-tools}, from this module's or the project's directory. */
    static Path directory() {
        return testFolder("nostr-tools", "nip98-token.mjs");
    }

    /** {@code bootstrap/src/test/<name>} (holding {@code file}), from this module's or the project's directory. */
    static Path testFolder(String name, String file) {
        Path here = Path.of("").toAbsolutePath();
        for (Path candidate : List.of(here.resolve("src/test/" + name), here.resolve("bootstrap/src/test/" + name))) {
            if (Files.isRegularFile(candidate.resolve(file))) {
                return candidate;
            }
        }
        throw new IllegalStateException("cannot find bootstrap/src/test/" + name + "/" + file + " from " + here);
    }
}
