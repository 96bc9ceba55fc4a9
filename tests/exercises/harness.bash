# tests/exercises/harness.bash - what the exercise graders share (loaded by each
# tests/exercises/NN_name.bats). A harness (NN_name/harness/) prints "harness: KEY VALUE" lines
# and judges nothing: these functions run it with a fresh seed and compare what it saw with what
# the test computes itself.

# The command that runs a program built from a submission. The grader's sandbox (grading/) sets
# SANDBOX to its wrapper; empty, the program runs as it is.
run_exercise() {
    run ${SANDBOX:+"$SANDBOX"} "$@"
}

# A fresh seed, 1 .. 2^31 - 2.
new_seed() {
    echo $(( ((RANDOM << 16) ^ (RANDOM << 1) ^ RANDOM ^ $$) % 2147483646 + 1 ))
}

# expected_sum SEED K N A B: the sum over the N values of case K of A * x + B, the values as
# common/exercise_harness.h's harness_fill makes them (MINSTD from the case's seed, x % 1000).
expected_sum() {
    awk -v seed="$1" -v k="$2" -v n="$3" -v a="$4" -v b="$5" 'BEGIN {
        s = (seed + k * 7919) % 2147483646 + 1; sum = 0
        for (i = 0; i < n; i++) { s = (s * 48271) % 2147483647; sum += a * (s % 1000) + b }
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
