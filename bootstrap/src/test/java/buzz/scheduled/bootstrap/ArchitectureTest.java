package buzz.scheduled.bootstrap;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.time.InstantSource;
import java.util.Date;

/**
 * The hexagon's rules (README.md "Layout"), checked on the production classes of every module.
 * {@link ArchitectureRulesTest} shows that each rule catches a violation.
 */
@AnalyzeClasses(packages = "buzz.scheduled",
        importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.DoNotIncludeTestJars.class})
class ArchitectureTest {

    static final String DOMAIN = "buzz.scheduled.domain..";
    static final String APPLICATION = "buzz.scheduled.application..";
    static final String BOOTSTRAP = "buzz.scheduled.bootstrap..";
    static final String POSTGRES_ADAPTER = "buzz.scheduled.adapters.postgres..";
    static final String GENERATED_JOOQ = "buzz.scheduled.adapters.postgres.jooq..";
    static final String ADAPTERS = "buzz.scheduled.adapters..";
    static final String SERVICES = "buzz.scheduled.application.service..";
    static final String INBOUND_PORTS = "buzz.scheduled.application.port.in..";
    static final String OUTBOUND_PORTS = "buzz.scheduled.application.port.out..";
    static final String HTTP_ADAPTER = "buzz.scheduled.adapters.http..";
    /** The HTTP module's one outbound adapter: the {@code http} access policy, a client of the operator's callback. */
    static final String HTTP_ACCESS_POLICY = "buzz.scheduled.adapters.http.access..";

    /** The domain is plain Java: only {@code java.*} and itself. */
    @ArchTest
    static final ArchRule domain_depends_only_on_java_and_itself = classes()
            .that().resideInAPackage(DOMAIN)
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", DOMAIN)
            .because("the domain must not import frameworks (README.md, Layout: only java.* imports)");

    /** The application knows the domain and its own ports, never an adapter or a framework. */
    @ArchTest
    static final ArchRule application_depends_only_on_java_domain_and_itself = classes()
            .that().resideInAPackage(APPLICATION)
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", DOMAIN, APPLICATION)
            .because("the application must not import adapters or frameworks");

    /** Adapters never reach into each other; they meet only through the application's ports. */
    @ArchTest
    static final ArchRule adapters_do_not_depend_on_each_other = slices()
            .matching("buzz.scheduled.adapters.(*)..")
            .should().notDependOnEachOther()
            .because("adapters depend on application and domain only");

    /** Adapters reach the application through its ports only; which service implements a port is bootstrap's wiring. */
    @ArchTest
    static final ArchRule adapters_do_not_depend_on_application_services = noClasses()
            .that().resideInAPackage(ADAPTERS)
            .should().dependOnClassesThat().resideInAPackage(SERVICES)
            .because("an adapter talks to the application through port.in and port.out, never to a service");

    /** The ports are the application's boundary: they speak of the domain and of each other, never of a service. */
    @ArchTest
    static final ArchRule ports_do_not_depend_on_services = noClasses()
            .that().resideInAnyPackage(INBOUND_PORTS, OUTBOUND_PORTS)
            .should().dependOnClassesThat().resideInAPackage(SERVICES)
            .because("a port must not leak how it is implemented");

    /**
     * The HTTP API is an inbound adapter: it sees the use cases and the types they own, never an outbound port. Its one
     * outbound adapter, the callback access policy, implements {@code AccessPolicy} and is left out.
     */
    @ArchTest
    static final ArchRule inbound_http_adapter_does_not_depend_on_outbound_ports = noClasses()
            .that().resideInAPackage(HTTP_ADAPTER)
            .and().resideOutsideOfPackage(HTTP_ACCESS_POLICY)
            .should().dependOnClassesThat().resideInAPackage(OUTBOUND_PORTS)
            .because("inbound ports own every type an inbound adapter sees (README.md, Layout)");

    /** Only bootstrap (and tests) may read the system clock; everything else takes the WallClock port or the database clock. */
    @ArchTest
    static final ArchRule only_bootstrap_reads_the_system_clock = noClasses()
            .that().resideOutsideOfPackage(BOOTSTRAP)
            .should().callMethodWhere(target(name("now")).and(target(owner(resideInAPackage("java.time")))))
            .orShould().callMethod(System.class, "currentTimeMillis")
            .orShould().callConstructor(Date.class)
            .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
            .orShould().dependOnClassesThat().areAssignableTo(InstantSource.class)
            .because("time comes from the WallClock port or the database clock (docs/delivery.md, Time)");

    /** Generated jOOQ classes stay inside the PostgreSQL adapter. */
    @ArchTest
    static final ArchRule generated_jooq_stays_in_the_postgres_adapter = noClasses()
            .that().resideOutsideOfPackage(POSTGRES_ADAPTER)
            .should().dependOnClassesThat().resideInAPackage(GENERATED_JOOQ)
            .because("the schema's generated classes are the PostgreSQL adapter's private business");

    /** Guice is wiring, and wiring lives in bootstrap. */
    @ArchTest
    static final ArchRule only_bootstrap_uses_guice = noClasses()
            .that().resideOutsideOfPackage(BOOTSTRAP)
            .should().dependOnClassesThat().resideInAnyPackage("com.google.inject..")
            .because("Guice belongs to bootstrap only (README.md, Layout)");

    /** Nothing depends on bootstrap: it is the outermost ring. */
    @ArchTest
    static final ArchRule nothing_depends_on_bootstrap = noClasses()
            .that().resideOutsideOfPackage(BOOTSTRAP)
            .should().dependOnClassesThat().resideInAPackage(BOOTSTRAP)
            .because("bootstrap knows every module, no module knows bootstrap");

    /**
     * Leaves out the {@code -tests.jar} artifacts (in-memory fakes, test fixtures) that bootstrap's tests put on the
     * class path; {@link ImportOption.DoNotIncludeTests} only recognises test class directories.
     */
    static final class DoNotIncludeTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }
}
