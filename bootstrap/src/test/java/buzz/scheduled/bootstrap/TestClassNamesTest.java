package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No test source of any module (benchmarks included) is named like a production class: a test fixture called
 * {@code Sidecar} beside the production {@code Sidecar} it does not use sends a reader to the wrong class. A test of
 * {@code Foo} is {@code FooTest}; a fixture gets a name of its own ({@code DeliveryNode}, {@code AccessStack}).
 */
class TestClassNamesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void testSources_ofEveryModule_areNamedUnlikeEveryProductionClass() {
        Map<String, Path> production = topLevelTypes("main");
        Map<String, Path> tests = topLevelTypes("test");

        assertThat(production).as("production classes read").containsKeys("Sidecar", "HttpApi", "Dispatcher");
        assertThat(tests).as("test classes read").containsKeys("TestClassNamesTest", "DeliveryNode", "PollTest");
        Map<Path, Path> clashes = tests.keySet().stream().filter(production::containsKey)
                .collect(Collectors.toMap(tests::get, production::get, (a, b) -> a, TreeMap::new));
        assertThat(clashes).as("test source -> the production class it is named like").isEmpty();
    }

    /** Every {@code src/<set>/java/**.java} of every module, by simple name (package-info and module-info left out). */
    private static Map<String, Path> topLevelTypes(String sourceSet) {
        Map<String, Path> types = new TreeMap<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path sources : modules.map(module -> module.resolve("src").resolve(sourceSet).resolve("java"))
                    .filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(sources)) {
                    files.filter(file -> file.toString().endsWith(".java"))
                            .filter(file -> !file.getFileName().toString().contains("-info"))
                            .forEach(file -> types.putIfAbsent(file.getFileName().toString().replace(".java", ""),
                                    ROOT.relativize(file)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return types;
    }
}
