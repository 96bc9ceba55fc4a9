# tests/toy_lesson.bash - the toy lesson that tests/grading.bats and tests/hostile.bats grade
# on the CPU: plain C, its grader, and a stand-in nvidia-smi that lists one GPU, so that
# grading/ really runs without one.

# make_toy_tree T: a teacher's tree in T with grading/ and the test helpers copied from this
# tree, one lesson 01_toy of two exercises (add: 10 points, its files list names main.c; loop:
# 5 points, no list), their skeletons and solutions (each solution carries a SECRET-SOLUTION
# marker, the grader SECRET-GRADER: a submission that shows them has read them), and
# T/bin/nvidia-smi; T/bin goes first on PATH and CUDA_VISIBLE_DEVICES is unset.
# shellcheck disable=SC2016 # the stand-in nvidia-smi's own $1, written as it is
make_toy_tree() {
    local T="$1"
    mkdir -p "$T/tests" "$T/grading/judge" "$T/common" "$T/01_toy/exercises/add" "$T/01_toy/exercises/loop" \
             "$T/01_toy/solutions/add" "$T/01_toy/solutions/loop" "$T/bin"
    cp -r "$ROOT/grading" "$T/"
    cp "$ROOT/tests/test_helper.bash" "$ROOT/tests/gpu.bash" "$ROOT/tests/ensure-bats" "$T/tests/"
    echo 'all:' >"$T/Makefile"
    echo 'teacher' >"$T/common/note.txt"
    # (recipes quoted, as common/lesson.mk's: submitted file names may hold shell syntax)
    cat >"$T/01_toy/Makefile" <<'MK'
EX := $(notdir $(patsubst %/,%,$(wildcard exercises/*/)))
SO := $(notdir $(patsubst %/,%,$(wildcard solutions/*/)))
all: $(EX:%=build/exercises/%) $(SO:%=build/solutions/%)
.SECONDEXPANSION:
build/exercises/%: $$(wildcard exercises/$$*/*.c)
	@mkdir -p $(@D)
	cc -std=c11 -Wall -Wextra -Werror -o '$@' $(foreach f,$^,'$f')
build/solutions/%: $$(wildcard solutions/$$*/*.c)
	@mkdir -p $(@D)
	cc -std=c11 -Wall -Wextra -Werror -o '$@' $(foreach f,$^,'$f')
MK
    printf '# toy points\nadd 10\nloop 5   # a comment\n' >"$T/01_toy/exercises/points"
    echo main.c >"$T/01_toy/exercises/add/files"      # loop has no list: *.c *.cu *.h *.cuh
    printf '#include <stdio.h>\nint main(void) { puts("sum: 4"); return 0; }\n' >"$T/01_toy/exercises/add/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("sum: 5"); return 0; }\n/* SECRET-SOLUTION-add */\n' >"$T/01_toy/solutions/add/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("not yet"); return 0; }\n' >"$T/01_toy/exercises/loop/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("done"); return 0; }\n/* SECRET-SOLUTION-loop */\n' >"$T/01_toy/solutions/loop/main.c"
    # (written with %test: bats would rewrite "@test" lines even inside this here-document)
    sed 's/^%test /@test /' >"$T/grading/judge/01_toy.bats" <<'B'
# SECRET-GRADER
setup() {
    load ../../tests/test_helper
    require_gpu
}
%test "add: prints a sum" {
    run "$SANDBOX" "$EXERCISE_BIN/add"
    assert_success
    assert_output --partial "sum:"
}
%test "add: the sum of 2 and 3 is 5" {
    run "$SANDBOX" "$EXERCISE_BIN/add"
    assert_output "sum: 5"
}
%test "loop: says done" {
    run "$SANDBOX" "$EXERCISE_BIN/loop"
    assert_output "done"
}
B
    printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: Toy GPU (UUID: GPU-toy)"\nexit 0\n' >"$T/bin/nvidia-smi"
    chmod +x "$T/bin/nvidia-smi"
    export PATH="$T/bin:$PATH"
    unset CUDA_VISIBLE_DEVICES
}
