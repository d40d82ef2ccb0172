package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.http.access.CallbackAccessPolicy;
import buzz.scheduled.adapters.http.archfixture.HttpClassUsingThePostgresAdapter;
import buzz.scheduled.adapters.http.archfixture.HttpRouteUsingAnOutboundPort;
import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.postgres.archfixture.PostgresClassUsingAService;
import buzz.scheduled.adapters.relay.archfixture.RelayClassWithItsOwnClock;
import buzz.scheduled.application.archfixture.ApplicationClassReadingTheClock;
import buzz.scheduled.application.archfixture.ApplicationClassUsingAnAdapter;
import buzz.scheduled.application.port.in.archfixture.UseCaseReturningAService;
import buzz.scheduled.application.support.InProcessDueWorkSignal;
import buzz.scheduled.application.port.out.archfixture.OutboundPortNamingAService;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.domain.archfixture.DomainClassUsingJackson;
import buzz.scheduled.domain.schedule.ScheduleId;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * Shows that each rule of {@link ArchitectureTest} catches a violation, on deliberately wrong fixture classes that
 * live in this module's test sources (which the real rules do not import).
 */
class ArchitectureRulesTest {

    @Test
    void domainRule_domainClassImportsJackson_reportsTheJacksonDependency() {
        EvaluationResult result = evaluate(ArchitectureTest.domain_depends_only_on_java_and_itself,
                DomainClassUsingJackson.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("DomainClassUsingJackson").contains("com.fasterxml.jackson.databind.ObjectMapper");
    }

    @Test
    void clockRule_applicationCallsInstantNow_reportsTheCall() {
        EvaluationResult result = evaluate(ArchitectureTest.only_bootstrap_reads_the_system_clock,
                ApplicationClassReadingTheClock.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("ApplicationClassReadingTheClock.dueCheck()").contains("Instant.now()");
    }

    @Test
    void clockRule_adapterUsesCurrentTimeMillisLocalDateTimeAndClock_reportsEach() {
        EvaluationResult result = evaluate(ArchitectureTest.only_bootstrap_reads_the_system_clock,
                RelayClassWithItsOwnClock.class);

        assertThat(details(result)).contains("System.currentTimeMillis()").contains("LocalDateTime.now()")
                .contains("java.time.Clock");
    }

    @Test
    void clockRule_bootstrapWallClockCallsInstantNow_isAllowed() {
        EvaluationResult result = evaluate(ArchitectureTest.only_bootstrap_reads_the_system_clock,
                SystemWallClock.class, ScheduleId.class);

        assertThat(result.hasViolation()).isFalse();
    }

    @Test
    void applicationRule_applicationImportsAnAdapter_reportsTheAdapterDependency() {
        EvaluationResult result = evaluate(ArchitectureTest.application_depends_only_on_java_domain_and_itself,
                ApplicationClassUsingAnAdapter.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("buzz.scheduled.adapters.postgres.DatabaseUrl");
    }

    @Test
    void adapterRule_httpAdapterUsesThePostgresAdapter_reportsTheDependency() {
        EvaluationResult result = evaluate(ArchitectureTest.adapters_do_not_depend_on_each_other,
                HttpClassUsingThePostgresAdapter.class, DatabaseUrl.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("HttpClassUsingThePostgresAdapter").contains("DatabaseUrl");
    }

    @Test
    void jooqRule_classOutsideThePostgresAdapterUsesGeneratedClasses_reportsIt() {
        EvaluationResult result = evaluate(ArchitectureTest.generated_jooq_stays_in_the_postgres_adapter,
                HttpClassUsingThePostgresAdapter.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("buzz.scheduled.adapters.postgres.jooq.DefaultCatalog");
    }

    @Test
    void serviceRule_postgresAdapterBuildsAService_reportsTheServiceDependency() {
        EvaluationResult result = evaluate(ArchitectureTest.adapters_do_not_depend_on_application_services,
                PostgresClassUsingAService.class, DeletionService.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("PostgresClassUsingAService")
                .contains("buzz.scheduled.application.service.DeletionService");
    }

    @Test
    void serviceRule_listenerUsingTheInProcessSignalFromSupport_isAllowed() {
        EvaluationResult result = evaluate(ArchitectureTest.adapters_do_not_depend_on_application_services,
                PostgresDueWorkSignal.class, InProcessDueWorkSignal.class);

        assertThat(result.hasViolation()).isFalse();
    }

    @Test
    void portRule_outboundAndInboundPortsNamingServices_reportsBoth() {
        EvaluationResult result = evaluate(ArchitectureTest.ports_do_not_depend_on_services,
                OutboundPortNamingAService.class, UseCaseReturningAService.class, SchedulingSettings.class,
                OwnerMessagesService.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("OutboundPortNamingAService.settings()")
                .contains("buzz.scheduled.application.service.SchedulingSettings")
                .contains("UseCaseReturningAService.service()")
                .contains("buzz.scheduled.application.service.OwnerMessagesService");
    }

    @Test
    void inboundAdapterRule_httpRouteUsesAnOutboundPortsType_reportsItButNotTheInboundPortsType() {
        EvaluationResult result = evaluate(ArchitectureTest.inbound_http_adapter_does_not_depend_on_outbound_ports,
                HttpRouteUsingAnOutboundPort.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(details(result)).contains("HttpRouteUsingAnOutboundPort.acceptable(")
                .contains("buzz.scheduled.application.port.out.MessageAdmission$IdempotencyKey")
                .doesNotContain("ListMessagesUseCase$Page");
    }

    @Test
    void inboundAdapterRule_callbackAccessPolicyImplementingItsOutboundPort_isAllowed() {
        EvaluationResult result = evaluate(ArchitectureTest.inbound_http_adapter_does_not_depend_on_outbound_ports,
                CallbackAccessPolicy.class, HttpApi.class);

        assertThat(result.hasViolation()).isFalse();
    }

    private static EvaluationResult evaluate(ArchRule rule, Class<?>... classes) {
        JavaClasses imported = new ClassFileImporter().importClasses(classes);
        return rule.evaluate(imported);
    }

    private static String details(EvaluationResult result) {
        return String.join("\n", result.getFailureReport().getDetails());
    }
}
