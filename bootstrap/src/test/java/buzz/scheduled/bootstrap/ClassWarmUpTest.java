package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClassWarmUpTest {

    @Test
    void classes_everyName_existsOnTheClassPath() {
        // A renamed library class would silently stop warming up; this keeps the list honest.
        for (String name : ClassWarmUp.CLASSES) {
            assertThat(ClassWarmUpTest.class.getClassLoader().getResource(name.replace('.', '/') + ".class"))
                    .as(name).isNotNull();
        }
    }
}
