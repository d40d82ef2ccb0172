package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Everything the repository's comments, tests and docs point at lives in the repository: no citation of documents
 * kept outside it (the product brief's specification, scenario list, delivery notes and style guide, or the folder
 * beside the checkout they came in), every {@code docs/…} path and every relative Markdown link names a file that
 * exists, every section a pointer names ({@code README.md "Layout"}, {@code docs/scheduled-messages.md §6},
 * {@code docs/openapi.yaml} with an operation id) is there, and docs/failure-scenarios.md names only tests that exist.
 */
class RepositoryReferencesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static Map<Path, String> files;

    /**
     * Citations of documents outside the repository. Built from pieces so that this file does not match itself: a
     * capitalised specification or scenario word, the delivery notes' or style guide's file name, the delivery notes
     * cited by a quoted section, and the sibling folder.
     */
    private static final Pattern OUTSIDE = Pattern.compile(String.join("|",
            "\\b" + "SP" + "EC" + "\\b",
            "\\b" + "SCEN" + "ARIOS?" + "\\b",
            "\\b" + "DELIV" + "ERY" + "(?:\\.md|\\s+\")",
            "\\b" + "STY" + "LE" + "\\.md",
            "\\.\\./" + "sha" + "red"));

    private static final Pattern DOCS_PATH = Pattern.compile("(?<![\\w./-])docs/[\\w./-]*\\w");
    private static final Pattern MARKDOWN_LINK = Pattern.compile("\\]\\(([^)\\s#]+)(?:#[^)]*)?\\)");
    private static final Pattern QUOTED_SECTION =
            Pattern.compile("(?<![\\w/.-])((?:docs/)?[\\w-]+\\.md)\\)?,? \"([^\"]+)\"");
    private static final Pattern NUMBERED_SECTION =
            Pattern.compile("(?<![\\w/.-])((?:docs/)?[\\w-]+\\.md)\\)?,? §(\\d+)");
    private static final String OPENAPI = Pattern.quote("docs/openapi.yaml");
    /** An operation id or schema after the OpenAPI document, as in {@code (docs/openapi.yaml {@code getInfo})}. */
    private static final Pattern OPERATION = Pattern.compile(OPENAPI + ",? \\{@code (\\w+)}");
    private static final Pattern COMPONENT = Pattern.compile(OPENAPI + ", (?:schema|response) \\{@code (\\w+)}");
    private static final Pattern TAG = Pattern.compile(OPENAPI + ", tag (\\w+)");

    @Test
    void repositoryFiles_citeNothingOutsideTheRepository() {
        Map<Path, String> read = textFiles();
        assertThat(read).as("files read").containsKeys(Path.of("README.md"), Path.of("docs", "delivery.md"),
                Path.of("bootstrap", "src", "test", "java", "buzz", "scheduled", "bootstrap",
                        "RepositoryReferencesTest.java"));

        List<String> citations = new ArrayList<>();
        read.forEach((file, text) -> eachLine(file, text, (where, line) -> {
            if (OUTSIDE.matcher(line).find()) {
                citations.add(where + ": " + line.strip());
            }
        }));
        assertThat(citations).as("citations of documents outside the repository").isEmpty();
    }

    @Test
    void outsideCitations_areRecognised() {
        assertThat(List.of("(" + "SP" + "EC §3.1)", "SCEN" + "ARIOS F11", "SCEN" + "ARIO F6", "DELIV" + "ERY.md step 2",
                "DELIV" + "ERY \"Time\"", "STY" + "LE.md", "build without `../" + "shared`"))
                .allSatisfy(line -> assertThat(OUTSIDE.matcher(line).find()).as(line).isTrue());
        assertThat(List.of("private static final DeliverySettings DELIVERY = …", "docs/failure-scenarios.md F11",
                "the spec of NIP-98"))
                .allSatisfy(line -> assertThat(OUTSIDE.matcher(line).find()).as(line).isFalse());
    }

    @Test
    void docsPathsAndMarkdownLinks_nameFilesThatExist() {
        List<String> missing = new ArrayList<>();
        textFiles().forEach((file, text) -> eachLine(file, text, (where, line) -> {
            Matcher path = DOCS_PATH.matcher(line);
            while (path.find()) {
                if (!Files.exists(ROOT.resolve(path.group()))) {
                    missing.add(where + ": " + path.group());
                }
            }
            if (file.toString().endsWith(".md")) {
                Matcher link = MARKDOWN_LINK.matcher(line);
                while (link.find()) {
                    String target = link.group(1);
                    if (!target.contains(":") && !Files.exists(ROOT.resolve(file).resolveSibling(target))) {
                        missing.add(where + ": " + target);
                    }
                }
            }
        }));
        assertThat(missing).as("docs/ paths and Markdown links to files that do not exist").isEmpty();
    }

    @Test
    void sectionsPointersName_existInTheirDocuments() {
        String openApi = read(ROOT.resolve("docs/openapi.yaml"));
        List<String> missing = new ArrayList<>();
        textFiles().forEach((file, text) -> eachLine(file, text, (where, line) -> {
            Matcher quoted = QUOTED_SECTION.matcher(line);
            while (quoted.find()) {
                List<String> headings = headings(document(file, quoted.group(1)));
                if (headings != null && headings.stream().noneMatch(heading -> heading.contains(quoted.group(2)))) {
                    missing.add(where + ": " + quoted.group());
                }
            }
            Matcher numbered = NUMBERED_SECTION.matcher(line);
            while (numbered.find()) {
                List<String> headings = headings(document(file, numbered.group(1)));
                if (headings != null && headings.stream().noneMatch(h -> h.startsWith(numbered.group(2) + ". "))) {
                    missing.add(where + ": " + numbered.group());
                }
            }
            check(OPERATION, line, name -> openApi.contains("operationId: " + name + "\n")
                    || openApi.contains("\n    " + name + ":\n"), where, missing);
            check(COMPONENT, line, name -> openApi.contains("\n    " + name + ":\n"), where, missing);
            check(TAG, line, name -> openApi.contains("- name: " + name + "\n"), where, missing);
        }));
        assertThat(missing).as("sections, operations, schemas and tags that are not in the document named").isEmpty();
    }

    @Test
    void failureScenarios_listEveryScenario_andOnlyTestsThatExist() {
        String guide = read(ROOT.resolve("docs/failure-scenarios.md"));
        for (int n = 1; n <= 25; n++) {
            assertThat(guide).as("F" + n + " heading").containsPattern("(?m)^## F" + n + " — .+$");
        }
        Map<String, List<String>> covered = coveredBy(guide);
        assertThat(covered).as("test classes named").containsKeys("LostFinishingWriteTest", "GroupFeedTest");

        Map<String, Path> tests = testSources();
        List<String> missing = new ArrayList<>();
        covered.forEach((type, methods) -> {
            Path source = tests.get(type);
            if (source == null) {
                missing.add(type);
                return;
            }
            String text = read(source);
            methods.stream().filter(method -> !Pattern.compile("\\bvoid " + method + "\\(").matcher(text).find())
                    .forEach(method -> missing.add(type + "." + method));
        });
        assertThat(missing).as("tests docs/failure-scenarios.md names that do not exist").isEmpty();
    }

    /** The "Covered by" bullets: {@code - `Type` (module): `method`, `method`} with indented continuation lines. */
    private static Map<String, List<String>> coveredBy(String guide) {
        Map<String, List<String>> covered = new LinkedHashMap<>();
        Pattern bullet = Pattern.compile("^- `(\\w+)` \\([^)]*\\):(.*)$");
        Pattern name = Pattern.compile("`(\\w+)`");
        String type = null;
        for (String line : guide.split("\n")) {
            Matcher start = bullet.matcher(line);
            String rest;
            if (start.matches()) {
                type = start.group(1);
                rest = start.group(2);
            } else if (type != null && line.startsWith("  ")) {
                rest = line;
            } else {
                type = null;
                continue;
            }
            Matcher method = name.matcher(rest);
            List<String> methods = covered.computeIfAbsent(type, t -> new ArrayList<>());
            while (method.find()) {
                methods.add(method.group(1));
            }
        }
        return covered;
    }

    private static void check(Pattern pattern, String line, Predicate<String> present, String where,
                              List<String> missing) {
        Matcher matcher = pattern.matcher(line);
        while (matcher.find()) {
            if (!present.test(matcher.group(1))) {
                missing.add(where + ": " + matcher.group());
            }
        }
    }

    /** The document a pointer names: {@code docs/…} and README.md from the root, a bare name beside the file. */
    private static Path document(Path from, String name) {
        if (name.startsWith("docs/") || name.equals("README.md")) {
            return ROOT.resolve(name);
        }
        return ROOT.resolve(from).resolveSibling(name);
    }

    /** The Markdown headings of {@code document} without their {@code #}s, or null when it is not a file here. */
    private static List<String> headings(Path document) {
        if (!Files.isRegularFile(document)) {
            return null;
        }
        return read(document).lines().filter(line -> line.startsWith("#"))
                .map(line -> line.replaceFirst("^#+\\s*", "")).toList();
    }

    private interface LineCheck {
        void accept(String where, String line);
    }

    private static void eachLine(Path file, String text, LineCheck check) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            check.accept(slashes(file) + ":" + (i + 1), lines[i]);
        }
    }

    /**
     * Every text file a reader of the repository meets: README.md, the poms, docs/, deploy/, examples/, .ci/ and each
     * module's src/, relative to the root; build output, installed npm packages and binary files left out.
     */
    private static synchronized Map<Path, String> textFiles() {
        if (files == null) {
            files = readTextFiles();
        }
        return files;
    }

    private static Map<Path, String> readTextFiles() {
        Map<Path, String> files = new TreeMap<>();
        List<Path> starts = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("pom.xml"),
                ROOT.resolve("docs"), ROOT.resolve("deploy"), ROOT.resolve("examples"), ROOT.resolve(".ci")));
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.filter(module -> Files.isRegularFile(module.resolve("pom.xml"))).forEach(module -> {
                starts.add(module.resolve("pom.xml"));
                starts.add(module.resolve("src"));
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path start : starts.stream().filter(Files::exists).toList()) {
            try (Stream<Path> walk = Files.walk(start)) {
                walk.filter(Files::isRegularFile).filter(file -> !skipped(ROOT.relativize(file))).forEach(file -> {
                    byte[] bytes = readBytes(file);
                    if (!binary(bytes)) {
                        files.put(ROOT.relativize(file), new String(bytes, StandardCharsets.UTF_8));
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.equals("target") || name.equals("node_modules")) {
                return true;
            }
        }
        return false;
    }

    private static boolean binary(byte[] bytes) {
        for (byte b : bytes) {
            if (b == 0) {
                return true;
            }
        }
        return false;
    }

    /** Every test source of every module, by simple name. */
    private static Map<String, Path> testSources() {
        Map<String, Path> sources = new TreeMap<>();
        textFiles().keySet().stream().filter(file -> slashes(file).matches("[^/]+/src/test/java/.+\\.java"))
                .forEach(file -> sources.putIfAbsent(file.getFileName().toString().replace(".java", ""),
                        ROOT.resolve(file)));
        return sources;
    }

    private static String slashes(Path relative) {
        return relative.toString().replace('\\', '/');
    }

    private static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        return new String(readBytes(file), StandardCharsets.UTF_8);
    }
}
