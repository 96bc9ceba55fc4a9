#!/usr/bin/env bats
# The command line of every lesson program, without a GPU: what common/check.c does for all of
# them (strict numbers, a failed write to stdout, closed standard descriptors). Also runs
# against the HOST_SANITIZE=1 build (LESSON_BUILD=build-hostsan, as .ci/run does).

load test_helper

setup_file() {
    export PROBE="$BATS_FILE_TMPDIR/fd_probe"
    build_common_probe "$ROOT/tests/cli/fd_probe.c" "$PROBE"
}

setup() {
    PROGRAMS=()
    local l
    for l in $(list_lessons "$ROOT") ; do
        PROGRAMS+=("$(lesson_bin "$l")")
    done
    [ "${#PROGRAMS[@]}" -ge 5 ] || fail "expected the five lesson programs, found ${#PROGRAMS[@]}"
    for p in "${PROGRAMS[@]}"; do
        [ -x "$p" ] || fail "$p is not built (make${LESSON_BUILD:+ HOST_SANITIZE=1})"
    done
}

# (each case's exit status and output checked in the loop, one assertion on them all: a `run`
# and three assertions per case took 0.8 s; a wrong case is named in the assertion's diff)
@test "--device takes digits only: '+4', ' 4', '4 ', '4x', '' and '0x1' exit 2 naming the text" {
    local p bad out st got="" want=""
    for p in "${PROGRAMS[@]}"; do
        for bad in "+4" " 4" "4 " "4x" "" "0x1" "--1"; do
            st=0
            out="$(CUDA_VISIBLE_DEVICES= "$p" --device "$bad" 2>&1)" || st=$?
            got+="${p##*/} --device '$bad': exit $st"
            [[ "$out" == *"not '$bad'"* ]] || got+=", no \"not '$bad'\" in: $out"
            [[ "$out" == *"usage:"* ]] || got+=", no usage in: $out"
            got+=$'\n'
            want+="${p##*/} --device '$bad': exit 2"$'\n'
        done
    done
    assert_equal "$got" "$want"
}

@test "a failed write to stdout is an error: --help > /dev/full exits 1 and says so" {
    [ -w /dev/full ] || skip "no /dev/full here"
    for p in "${PROGRAMS[@]}"; do
        run sh -c '"$1" --help >/dev/full' sh "$p"
        assert_equal "$(basename "$p"): exit $status" "$(basename "$p"): exit 1"
        assert_line --regexp "^$(basename "$p"): write error on standard output"
    done
}

@test "--help still exits 0 into a pipe and with stdout closed" {
    for p in "${PROGRAMS[@]}"; do
        run sh -c '"$1" --help | head -1' sh "$p"
        assert_success
        assert_output --partial "usage: $(basename "$p")"
        run sh -c '"$1" --help >&-' sh "$p"
        assert_success
        assert_output ""
    done
}

@test "with stdout closed, the next file a program opens does not take descriptor 1" {
    [ -x "$PROBE" ] || fail "the probe did not build: $(cat "$PROBE.log")"
    run sh -c '"$1" >&-' sh "$PROBE"
    assert_success
    refute_output --partial "next file descriptor: 1"
    run sh -c '"$1" <&- >&- 2>/dev/null; echo "exit $?"' sh "$PROBE"
    assert_output "exit 0"
}

# The exercise programs of lessons 01, 02, 03 and 05 are the teacher's harnesses
# (grading/harness/exercise_harness.h): one SEED, chosen by the grader. Read before any CUDA call.
@test "the exercise harnesses take one SEED: --help exits 0 with the usage, a stray or bad argument exits 2" {
    [ -z "${LESSON_BUILD:-}" ] || skip "the exercise programs are built in build/ only, not $LESSON_BUILD"
    local n=0 p bad st out got want
    for p in "$ROOT"/0[1235]_*/build/exercises/*; do
        [ -x "$p" ] && [ -f "$p" ] || continue
        case "$p" in *.so | *.so.*) continue ;; esac # the stand-in driver of a WATCH_DRIVER=1 build
        n=$((n + 1))
        run "$p" --help
        assert_equal "$(basename "$p") --help: exit $status" "$(basename "$p") --help: exit 0"
        assert_line --regexp '^usage: .* SEED$'
        # (the statuses gathered, one assertion on them all: a `run` each took 1.4 s in all)
        got="" want="" st=0
        for bad in "" "0" "12x" "2147483647" "--seed"; do
            st=0
            "$p" "$bad" >/dev/null 2>&1 || st=$?
            got+="${p##*/} '$bad': exit $st"$'\n' want+="${p##*/} '$bad': exit 2"$'\n'
        done
        st=0
        out="$("$p" 7 8 2>&1)" || st=$?
        got+="${p##*/} 7 8: exit $st"$'\n' want+="${p##*/} 7 8: exit 2"$'\n'
        [[ "$out" == *"usage: "* ]] || got+="${p##*/} 7 8: no usage in: $out"$'\n'
        st=0
        "$p" >/dev/null 2>&1 || st=$?
        got+="${p##*/} (no SEED): exit $st" want+="${p##*/} (no SEED): exit 2"
        assert_equal "$got" "$want"
    done
    [ "$n" -ge 14 ] || fail "found $n exercise harness programs, 14 expected (make)"
}
