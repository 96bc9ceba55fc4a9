# tests/exercises/harness.bash - what the exercise graders share (loaded by each
# tests/exercises/NN_name.bats). A harness (NN_name/harness/) prints "harness: KEY VALUE" lines
# and judges nothing: these functions run it with a fresh seed and compare what it saw with what
# the test computes itself.

# run_exercise PROGRAM ARG...: runs a program built from a submission into $output, $status
# and $lines, as bats' run does. The grader's sandbox (grading/) sets SANDBOX to its wrapper;
# empty, the program runs as it is. The tests of one exercise judge one run: the first test runs
# the program, and a later test of the same file with the same arguments reads what that run
# printed (kept in BATS_FILE_TMPDIR: the grader's, outside the sandbox), so a grading runs each
# program once for its seed instead of once per test.
# shellcheck disable=SC2154 # $output, $status: set by bats' run
run_exercise() {
    local kept
    kept="$BATS_FILE_TMPDIR/run.$(printf '%s\0' "$@" | md5sum | cut -d' ' -f1)"
    if [ -f "$kept.status" ]; then
        run cat "$kept.out"
        status="$(cat "$kept.status")"
        return 0
    fi
    run_exercise_fresh "$@"
    printf '%s' "$output" >"$kept.out"
    echo "$status" >"$kept.status"
}

# run_exercise_fresh PROGRAM ARG...: a run of its own (never a kept one) into $output, $status
# and $lines, through the sandbox: run_exercise's first run, and a test's next try where it
# judges a timing against a bar close to what a correct solution reaches (a slow moment of the
# host must not cost a correct solution its point; code that does not overlap misses every time).
run_exercise_fresh() {
    run ${SANDBOX:+"$SANDBOX"} "$@"
}

# A fresh seed, 1 .. 2^31 - 2.
new_seed() {
    echo $(( ((RANDOM << 16) ^ (RANDOM << 1) ^ RANDOM ^ $$) % 2147483646 + 1 ))
}

# The seed of this run of a grader file: fresh, chosen by its first test, the same for the
# others (with run_exercise they judge one run of each program; each grading gets a new one).
exercise_seed() {
    local file="$BATS_FILE_TMPDIR/seed"
    [ -s "$file" ] || new_seed >"$file"
    cat "$file"
}

# expected_sum_program: the path of expected_sum.c built (once per grader file, in
# BATS_FILE_TMPDIR); fails where no C compiler builds it.
expected_sum_program() {
    local bin="$BATS_FILE_TMPDIR/expected_sum"
    if [ ! -x "$bin" ] && command -v "${CC:-cc}" >/dev/null 2>&1 &&
        "${CC:-cc}" -O2 -o "$bin.$$" "${BASH_SOURCE[0]%/*}/expected_sum.c" 2>/dev/null; then
        mv -f "$bin.$$" "$bin"
    fi
    [ -x "$bin" ] && echo "$bin"
}

# expected_sum SEED K N A B: the sum over the N values of case K of A * x + B, the values as
# common/exercise_harness.h's harness_fill makes them (MINSTD from the case's seed, x % 1000).
# expected_sum.c compiled once per grader file (lesson 03's cases hold 16-32 Mi values: awk
# took seconds for each); awk where no C compiler is found.
expected_sum() {
    local bin
    if bin="$(expected_sum_program)"; then
        "$bin" "$@"
        return
    fi
    awk -v seed="$1" -v k="$2" -v n="$3" -v a="$4" -v b="$5" 'BEGIN {
        s = (seed + k * 7919) % 2147483646 + 1; sum = 0
        for (i = 0; i < n; i++) { s = (s * 48271) % 2147483647; sum += a * (s % 1000) + b }
        printf "%.1f\n", sum }'
}

# input_sum SEED N: lesson 04's input as its harness reports it (values (x % 65536) / 32768 - 1,
# times 32768, x MINSTD from the seed itself), summed over N floats: expected_sum's program,
# else awk.
input_sum() {
    local bin
    if bin="$(expected_sum_program)"; then
        "$bin" input "$1" "$2"
        return
    fi
    awk -v seed="$1" -v n="$2" 'BEGIN {
        s = seed % 2147483646 + 1; sum = 0
        for (i = 0; i < n; i++) { s = (s * 48271) % 2147483647; sum += (s % 65536) - 32768 }
        printf "%.1f\n", sum }'
}

# shellcheck disable=SC2154 # $output: set by bats' run
# harness_value KEY: the value of the line "harness: KEY VALUE" of $output (the last such line).
harness_value() {
    local v
    v="$(printf '%s\n' "$output" | sed -n "s/^harness: $1 //p" | tail -n 1)"
    [ -n "$v" ] || fail "the harness reported no '$1' (the program stopped early?): $output"
    printf '%s\n' "$v"
}

# assert_harness KEY EXPECTED [WHY]
assert_harness() {
    local v
    v="$(harness_value "$1")" || return 1
    [ "$v" = "$2" ] || fail "${3:-$1}: the harness saw '$v', expected '$2'"
}

# The report is complete: its last line names the seed of this run.
assert_harness_end() {
    assert_harness end "$1" "the harness's report is complete"
}
