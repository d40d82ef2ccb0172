package buzz.scheduled.bootstrap;

import java.util.List;

/**
 * Loads and initialises the heavy libraries' classes on a background thread while {@code serve} starts the
 * database, which mostly waits on PostgreSQL's own processes (initdb, crash recovery). Start-up then spends that
 * wait on class loading instead of doing it afterwards. Purely an optimisation: a class that fails to load here
 * fails again, with its real error, where it is used.
 */
final class ClassWarmUp {

    /** Entry points whose static initialisation pulls in most of each library. */
    static final List<String> CLASSES = List.of(
            "com.google.inject.Guice",
            "com.google.inject.internal.InjectorImpl",
            "org.flywaydb.core.Flyway",
            "org.jooq.impl.DSL",
            "org.jooq.impl.DefaultConfiguration",
            "io.javalin.Javalin",
            "org.eclipse.jetty.server.Server",
            "org.eclipse.jetty.server.ServerConnector",
            "com.fasterxml.jackson.databind.ObjectMapper",
            "org.bouncycastle.crypto.signers.BIP340Signer",
            "buzz.scheduled.adapters.http.HttpApi",
            "buzz.scheduled.adapters.postgres.PostgresMessageAdmission",
            "buzz.scheduled.adapters.relay.RelayClient",
            "buzz.scheduled.application.service.Dispatcher");

    private ClassWarmUp() {
    }

    /** Starts loading {@link #CLASSES} on a daemon thread and returns at once. */
    static void start() {
        ClassLoader loader = ClassWarmUp.class.getClassLoader();
        Thread.ofPlatform().daemon().name("buzz-class-warm-up").start(() -> {
            for (String name : CLASSES) {
                try {
                    Class.forName(name, true, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // Not fatal here: the real use reports it.
                }
            }
        });
    }
}
