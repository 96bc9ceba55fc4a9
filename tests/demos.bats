#!/usr/bin/env bats
# Each lesson's demo (demo.c, build/demo): the short program a student reads top to bottom and
# builds by hand. `make -C NN demo` builds it; run from the lesson's folder, as a student does,
# without a GPU it stops as the lessons do (exit 77, the stub driver named); on a GPU it runs,
# verifies its result on the host and passes, built by `make demo` and by the README's nvcc line
# in a copy of the lesson folder alone (that line checked in tests/layout.bats and in each
# lesson's file).

load test_helper

setup() {
    DEMOS=()
    local d
    for d in $(list_lessons "$ROOT"); do
        DEMOS+=("$d")
    done
}

@test "make -C NN demo builds build/demo in every lesson" {
    local d bad=""
    for d in "${DEMOS[@]}"; do
        run make -s -C "$ROOT/$d" demo
        if [ "$status" -ne 0 ]; then
            bad+="$d: make demo: exit $status: $output"$'\n'
        elif [ ! -x "$ROOT/$d/${LESSON_BUILD:-build}/demo" ]; then
            bad+="$d: make demo made no ${LESSON_BUILD:-build}/demo"$'\n'
        fi
    done
    [ -z "$bad" ] || fail "$bad"
}

@test "with the toolkit's stub driver every demo stops with exit 77 and says why" {
    local d
    for d in "${DEMOS[@]}"; do
        [ -x "$ROOT/$d/${LESSON_BUILD:-build}/demo" ] || fail "$d/${LESSON_BUILD:-build}/demo is not built (make)"
        cd "$ROOT/$d" # as a student runs it, from the lesson's folder
        run_with_stub_driver "./${LESSON_BUILD:-build}/demo"
        refute_output --partial "RESULT:"
    done
}

# bats test_tags=gpu
@test "GPU: every demo runs, exits 0 and ends RESULT: PASS" {
    require_gpu
    local d bad=""
    for d in "${DEMOS[@]}"; do
        cd "$ROOT/$d" # as a student runs it, from the lesson's folder
        run "./${LESSON_BUILD:-build}/demo"
        if [ "$status" -ne 0 ] || ! grep -q '^RESULT: PASS' <<<"$output"; then
            bad+="$d/demo: exit $status: $output"$'\n'
        fi
    done
    [ -z "$bad" ] || fail "$bad"
}

# bats test_tags=gpu
@test "GPU: every demo, built by its README's nvcc line in a copy of its lesson folder alone, runs and ends RESULT: PASS" {
    require_gpu
    command -v nvcc >/dev/null || skip "no nvcc"
    local d line copy bad=""
    for d in "${DEMOS[@]}"; do
        line="$(demo_nvcc_line "$ROOT/$d/README.md")"
        [ -n "$line" ] || { bad+="$d/README.md: no nvcc line under ## The code"$'\n'; continue; }
        copy="$BATS_TEST_TMPDIR/alone/$d" # the lesson folder alone: no common/ beside it, no build output
        mkdir -p "$copy"
        (cd "$ROOT/$d" && tar cf - --exclude='./build*' .) | (cd "$copy" && tar xf -)
        readme_build "$copy" "$line" # (the same inputs built once: test_helper.bash)
        if [ "$status" -ne 0 ] || [ ! -x "$copy/demo" ]; then
            bad+="$d: '$line' made no demo: $output"$'\n'
            continue
        fi
        cd "$copy"
        run ./demo
        if [ "$status" -ne 0 ] || ! grep -q '^RESULT: PASS' <<<"$output"; then
            bad+="$d: the demo built by '$line': exit $status: $output"$'\n'
        fi
    done
    [ -z "$bad" ] || fail "$bad"
}
