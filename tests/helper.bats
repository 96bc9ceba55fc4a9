#!/usr/bin/env bats
# tests/test_helper.bash itself: the no-driver isolation it needs, and what it does where that
# isolation is not allowed (a default docker container: unshare -m exits 1).

load test_helper

# Writes a bats file that runs run_with_no_driver on a machine whose driver library is
# $1 (a path, or empty for none) with the tools in $BATS_TEST_TMPDIR/bin first on PATH.
probe_file() {
    # (@test at the start of a line here would be taken by bats for a test of this file)
    sed -e 's/^AT_TEST/@test/' -e "s|@HELPER@|$ROOT/tests/test_helper|" -e "s|@LIBS@|$1|" \
        -e "s|@BIN@|$BATS_TEST_TMPDIR/bin|" >"$BATS_TEST_TMPDIR/probe.bats" <<'EOF2'
load '@HELPER@'
driver_libraries() { echo "@LIBS@"; }
AT_TEST "no driver" {
    PATH="@BIN@:$PATH"
    run_with_no_driver sh -c 'echo "lesson: cannot run here: no NVIDIA driver: libcuda.so.1 could not be loaded."; exit 77'
}
EOF2
}

# Runs the probe as a fresh bats would (not inside this run's state).
run_probe() {
    local path="$PATH"
    [ -z "${BATS_LIBEXEC:-}" ] || path="$(tr : '\n' <<<"$PATH" | grep -vxF "$BATS_LIBEXEC" | paste -sd: -)"
    # (without REGIME_LOG: the probe's stand-in runs are not the suite's regimes)
    run env $(env | sed -n 's/^\(BATS_[A-Z_]*\)=.*/-u \1/p' | grep -vx -- '-u BATS_LIB_PATH') \
        -u REGIME_LOG PATH="$path" bats --tap "$BATS_TEST_TMPDIR/probe.bats"
}

fake_tool() {  # fake_tool NAME 'sh script'
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\n%s\n' "$2" >"$BATS_TEST_TMPDIR/bin/$1"
    chmod +x "$BATS_TEST_TMPDIR/bin/$1"
}

@test "no-driver tests skip, with the reason, where a mount namespace is not allowed (docker without CAP_SYS_ADMIN)" {
    fake_tool id 'echo 0'
    fake_tool unshare 'echo "unshare: unshare failed: Operation not permitted" >&2; exit 1'
    probe_file /usr/lib/x86_64-linux-gnu/libcuda.so.1
    run_probe
    assert_success
    assert_output --regexp "ok 1 no driver # skip .*mount namespace is not allowed.*Operation not permitted"
}

@test "no-driver tests skip, with the reason, without root" {
    fake_tool id 'echo 1000'
    probe_file /usr/lib/x86_64-linux-gnu/libcuda.so.1
    run_probe
    assert_success
    assert_output --regexp "ok 1 no driver # skip .*needs root"
}

@test "without a driver library nothing needs hiding: the test runs and counts" {
    probe_file ""
    run_probe
    assert_success
    assert_output "$(printf '1..1\nok 1 no driver')"
}

@test "where hiding is allowed, the library is hidden and the run counts" {
    unshare -m sh -c 'mount --bind /dev/null /dev/null' 2>/dev/null \
        || skip "this machine does not allow a private mount namespace"
    [ "$(id -u)" = 0 ] || skip "needs root"
    echo 'not a library' >"$BATS_TEST_TMPDIR/libcuda.so.1"
    sed -e 's/^AT_TEST/@test/' -e "s|@HELPER@|$ROOT/tests/test_helper|" \
        -e "s|@LIB@|$BATS_TEST_TMPDIR/libcuda.so.1|" >"$BATS_TEST_TMPDIR/probe.bats" <<'EOF2'
load '@HELPER@'
driver_libraries() { echo "@LIB@"; }
AT_TEST "hidden" {
    run_without_driver sh -c 'test -s "$1" && echo visible || echo hidden' sh "@LIB@"
    assert_output hidden
}
EOF2
    run_probe
    assert_success
    assert_output "$(printf '1..1\nok 1 hidden')"
}

# grading/judge/harness.bash: the tests of one exercise judge one run of its program.
@test "run_exercise runs a program once per arguments in a grader file; exercise_seed is one per file" {
    local counter="$BATS_TEST_TMPDIR/runs" prog="$BATS_TEST_TMPDIR/prog"
    printf '#!/bin/sh\necho run >>"%s"\necho "harness: seed $1"\necho; echo "to stderr" >&2\nexit 3\n' \
        "$counter" >"$prog"
    chmod +x "$prog"
    sed -e 's/^AT_TEST/@test/' -e "s|@HELPER@|$ROOT/tests/test_helper|" \
        -e "s|@HARNESS@|$ROOT/grading/judge/harness|" -e "s|@PROG@|$prog|" \
        >"$BATS_TEST_TMPDIR/probe.bats" <<'EOF2'
setup() {
    load '@HELPER@'
    load '@HARNESS@'
    seed="$(exercise_seed)"
}
AT_TEST "first" {
    run_exercise @PROG@ "$seed"
    [ "$status" -eq 3 ]
    echo "$seed" >"$BATS_FILE_TMPDIR/first.seed"
    printf '%s|' "${lines[@]}" >"$BATS_FILE_TMPDIR/first.lines"
}
AT_TEST "second, same arguments: the first run's output, status and lines" {
    [ "$seed" = "$(cat "$BATS_FILE_TMPDIR/first.seed")" ]
    run_exercise @PROG@ "$seed"
    [ "$status" -eq 3 ]
    assert_equal "$(printf '%s|' "${lines[@]}")" "$(cat "$BATS_FILE_TMPDIR/first.lines")"
    assert_line "harness: seed $seed"
    assert_line "to stderr"
    [ "$(harness_value seed)" = "$seed" ]
}
AT_TEST "third, other arguments: a run of its own" {
    run_exercise @PROG@ "$seed" more
    [ "$status" -eq 3 ]
}
EOF2
    run_probe
    assert_success
    run cat "$counter"
    assert_output "$(printf 'run\nrun')"
}

# tests/regimes.bash: until_judged runs a regime again only while the claim it wants is not
# judged; a run that fails ends it at once, and the want's failure on the last run is reported.
@test "until_judged: again while the claim is [n/j], at most TRIES runs; a failed run ends it" {
    local runs="$BATS_TEST_TMPDIR/runs"
    sed -e 's/^AT_TEST/@test/' -e "s|@HELPER@|$ROOT/tests/test_helper|" \
        -e "s|@REGIMES@|$ROOT/tests/regimes|" -e "s|@RUNS@|$runs|" \
        >"$BATS_TEST_TMPDIR/probe.bats" <<'EOF2'
load '@HELPER@'
load '@REGIMES@'
# a stand-in for run_regime: its Nth run prints the Nth word of $PLAN as the claim's mark
fake_regime() {
    echo x >>"@RUNS@.$BATS_TEST_NUMBER"
    local n mark
    n="$(wc -l <"@RUNS@.$BATS_TEST_NUMBER")"
    mark="$(cut -d' ' -f"$n" <<<"$PLAN")"
    output="  [$mark]   the claim"
    [ "$mark" != noise ] ||
        output="  [n/j]  the claim - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times"
    lines=("$output")
    refute_line --partial "[FAIL]"
}
wanted() {
    assert_line --partial "[ok]   the claim" && assert_line --partial "the claim"
}
AT_TEST "judged on the second run" {
    PLAN="n/j ok ok" until_judged 3 wanted -- fake_regime
}
AT_TEST "never judged" {
    PLAN="n/j n/j n/j n/j" until_judged 3 wanted -- fake_regime
}
AT_TEST "a run that fails" {
    PLAN="FAIL ok ok" until_judged 3 wanted -- fake_regime
}
AT_TEST "never judged, for noise every time" {
    PLAN="noise noise noise" until_judged 3 wanted -- fake_regime
}
EOF2
    run_probe
    assert_line "ok 1 judged on the second run"
    assert_line "not ok 2 never judged"
    assert_line "not ok 3 a run that fails"
    assert_line "ok 4 never judged, for noise every time # skip not judged in 3 runs, too noisy here (wanted: wanted): [n/j]  the claim - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times"
    [ "$(wc -l <"$runs.1")" -eq 2 ]
    [ "$(wc -l <"$runs.2")" -eq 3 ]
    [ "$(wc -l <"$runs.3")" -eq 1 ]
    [ "$(wc -l <"$runs.4")" -eq 3 ]
}

# tests/test_helper.bash: run_lesson runs the lesson again while a passing run left a timing
# claim [n/j] for noise (NOISE_NJ), 3 runs at most; a failed run, or one judged, is kept.
@test "run_lesson: again while a passing run left a claim [n/j] for noise; a failed run is kept; its --csv file is the kept run's" {
    local prog="$BATS_TEST_TMPDIR/lesson"
    # the Nth run prints the Nth line of $BATS_TEST_TMPDIR/plan: "nj" (noise), "ok", "fail" or
    # "other" (not judged for a reason that is not noise)
    cat >"$prog" <<EOF2
#!/bin/sh
echo x >>"$BATS_TEST_TMPDIR/runs"
[ "\$1" != --csv ] || echo "run \$(wc -l <"$BATS_TEST_TMPDIR/runs")" >"\$2"
case "\$(sed -n "\$(wc -l <"$BATS_TEST_TMPDIR/runs")p" "$BATS_TEST_TMPDIR/plan")" in
    nj) echo "  [n/j]  the copies overlap - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times" ;;
    nj2) echo "  [n/j]  the copies overlap - not judged here: the repetitions behind it spread by 14%, more than 10%: too noisy to compare times"
         echo "  [n/j]  the kernel is slow - not judged here: the repetitions behind it spread by 14%, more than 10%: too noisy to compare times" ;;
    other) echo "  [n/j]  the copies overlap - not judged here: one GPU is visible; this needs two" ;;
    fail) echo "  [FAIL] the copies overlap"; exit 1 ;;
    *) echo "  [ok]   the copies overlap" ;;
esac
EOF2
    chmod +x "$prog"
    gpu_reason() { :; }
    check() { # PLAN RUNS STATUS LINE
        rm -f "$BATS_TEST_TMPDIR/runs" "$BATS_FILE_TMPDIR/status"
        printf '%s\n' $1 >"$BATS_TEST_TMPDIR/plan"
        BIN="$prog" run_lesson
        assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/runs")" "$2"
        assert_equal "$LESSON_STATUS" "$3"
        assert_equal "$LESSON_OUT" "$4"
    }
    check "nj ok ok" 2 0 "  [ok]   the copies overlap"
    check "nj nj nj nj" 3 0 "  [n/j]  the copies overlap - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times"
    check "fail ok ok" 1 1 "  [FAIL] the copies overlap"
    check "nj fail ok" 2 1 "  [FAIL] the copies overlap"
    check "other ok" 1 0 "  [n/j]  the copies overlap - not judged here: one GPU is visible; this needs two"
    check "ok nj" 1 0 "  [ok]   the copies overlap"
    # of runs that all left claims [n/j] for noise, the one with the fewest is kept
    check "nj2 nj nj2" 3 0 "  [n/j]  the copies overlap - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times"
    # a file the lesson writes (--csv FILE) is the kept run's, not the last one's
    LESSON_ARGS=(--csv "$BATS_TEST_TMPDIR/t.csv")
    check "nj2 nj nj2" 3 0 "  [n/j]  the copies overlap - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/t.csv")" "run 2"
    check "nj ok" 2 0 "  [ok]   the copies overlap"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/t.csv")" "run 2"
    [ ! -e "$BATS_TEST_TMPDIR/t.csv.kept" ] || fail "lesson_tries left its copy behind"
    unset LESSON_ARGS
    # lesson_tries with ERR '-' (lesson 04's setup_file): one file for both, the same retries
    rm -f "$BATS_TEST_TMPDIR/runs"
    printf '%s\n' nj ok >"$BATS_TEST_TMPDIR/plan"
    lesson_tries "$BATS_TEST_TMPDIR/both" - "$prog"
    assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/runs")" 2
    assert_equal "$(cat "$BATS_TEST_TMPDIR/both")" "  [ok]   the copies overlap"
}

# tests/test_helper.bash: a claim the tests want judged, left [n/j] for noise by the best of
# run_lesson's runs, skips the test with the lesson's line; a [FAIL] in the run, or a claim
# missing for another reason, fails it.
@test "assert_claim, assert_judged, assert_same_or_noisy: a claim left [n/j] for noise skips, with the lesson's reason; beside a [FAIL], or without noise, it fails" {
    sed -e 's/^AT_TEST/@test/' -e "s|@HELPER@|$ROOT/tests/test_helper|" \
        >"$BATS_TEST_TMPDIR/probe.bats" <<'EOF2'
load '@HELPER@'
gpu_reason() { :; }
noise="  [n/j]  the copies overlap - not judged here: the repetitions behind it spread by 13%, more than 10%: too noisy to compare times"
lesson() { # the lesson's output as run_lesson keeps it
    mkdir -p "$BATS_FILE_TMPDIR"; printf '%s\n' "$@" >"$BATS_FILE_TMPDIR/stdout"
    : >"$BATS_FILE_TMPDIR/stderr"; echo 0 >"$BATS_FILE_TMPDIR/status"
}
AT_TEST "judged" {
    lesson "  [ok]   the copies overlap: 90%"
    assert_claim "the copies overlap"
}
AT_TEST "noise" {
    lesson "$noise" "  [ok]   the data came back"
    assert_claim "the copies overlap"
}
AT_TEST "noise and a FAIL" {
    lesson "$noise" "  [FAIL] the data came back"
    assert_claim "the copies overlap"
}
AT_TEST "not judged for another reason" {
    lesson "  [n/j]  the copies overlap - not judged here: one GPU is visible; this needs two"
    assert_claim "the copies overlap"
}
AT_TEST "assert_judged, noise" {
    output="$noise"
    assert_judged '\[ok\]   the copies overlap'
}
AT_TEST "assert_judged, judged" {
    output="  [ok]   the copies overlap: 90%"
    assert_judged '\[ok\]   the copies overlap: [0-9]+%'
}
AT_TEST "assert_same_or_noisy, a diff beside noise" {
    run diff <(echo "  [ok]   the copies overlap") <(echo "$noise")
    assert_same_or_noisy "$noise"
}
AT_TEST "assert_same_or_noisy, a diff without noise" {
    run diff <(echo "  [ok]   the copies overlap") <(echo "  [ok]   the copies overlap: 90%")
    assert_same_or_noisy "  [ok]   the copies overlap: 90%"
}
EOF2
    run_probe
    assert_line "ok 1 judged"
    assert_line --regexp '^ok 2 noise # skip not judged in 3 runs, too noisy here \(wanted: \[ok\]   the copies overlap\): \[n/j\]  the copies overlap - not judged here: the repetitions behind it spread by 13%'
    assert_line "not ok 3 noise and a FAIL"
    assert_line "not ok 4 not judged for another reason"
    assert_line --regexp '^ok 5 assert_judged, noise # skip not judged in 3 runs'
    assert_line "ok 6 assert_judged, judged"
    assert_line --regexp '^ok 7 assert_same_or_noisy, a diff beside noise # skip not judged in 3 runs, too noisy here \(wanted: the claims as tests/expected has them\)'
    assert_line "not ok 8 assert_same_or_noisy, a diff without noise"
}

# tests/gpu.bash: tests/run asks nvidia-smi once and exports the answer; gpu_listed takes it only
# for the same nvidia-smi.
@test "gpu_listed: the answer tests/run exported, for the same nvidia-smi only" {
    local bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$bin"
    printf '#!/bin/sh\necho x >>"%s/calls"\necho "GPU 0: Stand-in (UUID: GPU-0)"\n' "$BATS_TEST_TMPDIR" >"$bin/nvidia-smi"
    chmod +x "$bin/nvidia-smi"
    PATH="$bin:$PATH"
    CUDA_LESSONS_GPU_LISTED="$(gpu_listed_answer)"
    assert_equal "$CUDA_LESSONS_GPU_LISTED" "yes $bin/nvidia-smi"
    rm -f "$BATS_TEST_TMPDIR/calls"
    gpu_listed
    CUDA_LESSONS_GPU_LISTED="no $bin/nvidia-smi"
    if gpu_listed; then fail "gpu_listed said yes where the answer given was no"; fi
    [ ! -e "$BATS_TEST_TMPDIR/calls" ] # answered from the variable both times
    CUDA_LESSONS_GPU_LISTED="no /usr/bin/nvidia-smi"
    gpu_listed # another nvidia-smi's answer: this one is asked
    [ "$(wc -l <"$BATS_TEST_TMPDIR/calls")" -eq 1 ]
}

# lowbias32 X: grading/harness/pick.h's pick_mix of X (Chris Wellons' lowbias32), written again
# in bash arithmetic, into $mixed (no subshell for each value)
lowbias32() {
    local x=$(($1 & 0xffffffff))
    x=$(((x ^ (x >> 16)) * 0x7feb352d & 0xffffffff))
    x=$(((x ^ (x >> 15)) * 0x846ca68b & 0xffffffff))
    mixed=$((x ^ (x >> 16)))
}

# grading/judge/harness.bash: expected_sum, compiled (expected_sum.c), gives what its awk
# version gives (the graders compare it with the harness's sum of what came back).
@test "expected_sum: the compiled helper and the awk fallback agree, to the last digit; input_sum is lesson 04's input as its harness makes and sums it, and as the hash gives it" {
    load ../grading/judge/harness
    local seed k n a b want got
    for args in "1 0 1 1 0" "2147483646 3 100003 2 0" "12345 0 1000003 1 0" "987654 1 65536 1 0" "42 7 250000 1 1"; do
        read -r seed k n a b <<<"$args"
        got="$(expected_sum "$seed" "$k" "$n" "$a" "$b")"
        [ -x "$BATS_FILE_TMPDIR/expected_sum" ] || fail "expected_sum.c did not build"
        want="$(CC=no-such-compiler BATS_FILE_TMPDIR="$BATS_TEST_TMPDIR" expected_sum "$seed" "$k" "$n" "$a" "$b")"
        assert_equal "$got" "$want"
    done
    # lesson 04's input sum (pick.h's hash of the seed and each position), against the hash
    # written here again in bash arithmetic
    local key i sum mixed
    for args in "1 1" "4711 7" "2147483646 1000"; do
        read -r seed n <<<"$args"
        lowbias32 $((seed * 0x9e3779b1 + 0x7f4a7c15))
        key=$mixed sum=0
        for ((i = 0; i < n; i++)); do
            lowbias32 $((i ^ key))
            sum=$((sum + (mixed & 0xffff) - 32768))
        done
        assert_equal "$(input_sum "$seed" "$n")" "$sum.0"
    done
    # and the harness's own report of it (04's fill_input: harness_input_fill, harness_sum), at
    # sizes that are and are not a multiple of the fill's and the sum's blocks
    cat >"$BATS_TEST_TMPDIR/in.c" <<'C'
#include "exercise_harness.h"
int main(int argc, char **argv)
{
    size_t n = strtoul(argv[2], NULL, 10);
    float *v = malloc(n * sizeof *v + 1);
    harness_input_fill(v, n, (uint32_t)strtoul(argv[1], NULL, 10));
    printf("%.1f\n", harness_sum(v, n) * 32768.0);
    free(v);
    return argc == 3 ? 0 : 2;
}
C
    cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$(cuda_root)/include" \
        -o "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/in.c" || fail "the probe did not build"
    for args in "1 1" "4711 7" "99 8" "2147483646 1000003"; do
        read -r seed n <<<"$args"
        assert_equal "$seed $n: $("$BATS_TEST_TMPDIR/in" "$seed" "$n")" "$seed $n: $(input_sum "$seed" "$n")"
    done
}

# grading/harness/exercise_harness.h's harness_fill (eight MINSTD lanes, no division) makes the
# values the awk fallback's s * 48271 % p makes, one by one, at sizes that are and are not a
# multiple of its block (8 values, 1024 a chunk).
@test "harness_fill: every value as the plain MINSTD recurrence makes it (the awk fallback's sums), sizes 0-17, 1023-1025, 100003" {
    load ../grading/judge/harness
    cat >"$BATS_TEST_TMPDIR/fill.c" <<'C'
#include "exercise_harness.h"
int main(int argc, char **argv)
{
    size_t n = strtoul(argv[1], NULL, 10);
    float *v = malloc(n * sizeof *v + 1);
    harness_fill(v, n, (uint32_t)strtoul(argv[2], NULL, 10), atoi(argv[3]));
    printf("%.1f\n", harness_sum(v, n));
    free(v);
    return argc == 4 ? 0 : 2;
}
C
    cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$(cuda_root)/include" \
        -o "$BATS_TEST_TMPDIR/fill" "$BATS_TEST_TMPDIR/fill.c" || fail "the probe did not build"
    local n
    for n in $(seq 0 17) 1023 1024 1025 100003; do
        assert_equal "$n: $("$BATS_TEST_TMPDIR/fill" "$n" 4711 3)" \
            "$n: $(CC=no-such-compiler BATS_FILE_TMPDIR="$BATS_TEST_TMPDIR" expected_sum 4711 3 "$n" 1 0)"
    done
}

# grading/harness/pick.h's inputs by position and the judge's picks, against the same hash
# written here again in bash arithmetic: harness_input_at at positions spread over 2^32 and
# harness_input_fill's values (one loop, which the compiler vectorises) as harness_input_value
# gives them one by one; pick_positions as expected_picks.c writes them, the last one n - 1.
@test "harness_input_at, harness_input_fill and pick_positions: the values the hash gives, computed independently" {
    load ../grading/judge/harness
    cat >"$BATS_TEST_TMPDIR/at.c" <<'C'
#include "exercise_harness.h"
int main(int argc, char **argv)
{
    uint32_t seed = (uint32_t)strtoul(argv[1], NULL, 10);
    float v[1000];
    harness_input_fill(v, 1000, seed);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= memcmp(&v[i], &(float){harness_input_value(seed, (uint64_t)i)}, 4) == 0;
    for (int k = 2; k < argc; k++)
        printf("%u\n", harness_input_at(seed, strtoull(argv[k], NULL, 10)));
    printf("fill %s %.10f\n", same ? "same" : "different", v[999]);
    return 0;
}
C
    cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$(cuda_root)/include" \
        -o "$BATS_TEST_TMPDIR/at" "$BATS_TEST_TMPDIR/at.c" || fail "the probe did not build"
    mix() { local mixed; lowbias32 "$1"; echo "$mixed"; }
    local seed key i want got x
    for seed in 1 4711 2147483646; do
        key="$(mix $(((seed * 0x9e3779b1 + 0x7f4a7c15) & 0xffffffff)))"
        want=""
        for i in 0 1 2 999 65536 1000003 4294967295; do
            want+="$(mix $((i ^ key)))"$'\n'
        done
        x="$(mix $((999 ^ key)))"
        got="$("$BATS_TEST_TMPDIR/at" "$seed" 0 1 2 999 65536 1000003 4294967295)"
        assert_equal "$got" "${want}fill same $(awk -v x="$x" 'BEGIN { printf "%.10f", (x % 65536) / 32768 - 1 }')"
    done
    # the picks: 64 positions, every one below n, the last n - 1; as the relay checks them
    local line
    line="$(printf 'x 4711 99 1000003 0\n' | "$(expected_picks_program)")"
    assert_equal "$(wc -w <<<"$line")" 67
    [[ "$line" == *" 1000002:"* ]] || fail "no last position: $line"
    key="$(mix $(((99 ^ 0x5bd1e995) * 0x9e3779b1 + 0x7f4a7c15)))"
    i="$(( ((($(mix $((0 ^ key))) << 32) | $(mix $((1 ^ key)))) & 0x7fffffffffffffff) ))"
    read -r _ _ _ first _ <<<"$line"
    # (bash's integers are signed: the first position's 64-bit draw, when its top bit is 0)
    [ "$(( ($(mix $((0 ^ key))) >> 31) ))" = 1 ] || assert_equal "${first%%:*}" "$((i % 1000003))"
}

# test_helper's batslib_count_lines and batslib_prefix: what bats-support's own give, on output
# of every shape, without a bash loop per line (a failed assertion on 5000 lines took 3 s).
@test "bats-support's line counter and prefixer, replaced: the same text, without a loop per line" {
    local lib='' dir s
    for dir in ${BATS_LIB_PATH:-/usr/lib/bats} /usr/lib/bats; do
        [ -f "$dir/bats-support/src/output.bash" ] && { lib="$dir/bats-support/src/output.bash"; break; }
    done
    [ -n "$lib" ] || skip "bats-support's output.bash is not where BATS_LIB_PATH says"
    local shapes=('' $'\n' 'one' $'one\n' $'a\n\nb' $'a\nb\n\n' $'\\n %s -v\n  \t tab' "$(yes | head -n 5001)")
    for s in "${shapes[@]}"; do
        assert_equal "$(batslib_count_lines "$s"; printf '%s' "$s" | batslib_prefix '# ')" \
            "$(source "$lib"; batslib_count_lines "$s"; printf '%s' "$s" | batslib_prefix '# ')"
        assert_equal "$(printf '%s' "$s" | batslib_prefix)" "$(source "$lib"; printf '%s' "$s" | batslib_prefix)"
    done
    # the time of 5001 lines: a fifth of the library's loops at most, measured beside them
    local t0 t1 t2
    t0=$EPOCHREALTIME; batslib_count_lines "$s" >/dev/null; printf '%s' "$s" | batslib_prefix >/dev/null
    t1=$EPOCHREALTIME; (source "$lib"; batslib_count_lines "$s" >/dev/null; printf '%s' "$s" | batslib_prefix >/dev/null)
    t2=$EPOCHREALTIME
    local ours lib_us
    ours=$((${t1/./} - ${t0/./})) lib_us=$((${t2/./} - ${t1/./}))
    [ $((ours * 5)) -lt "$lib_us" ] || fail "5001 lines: ${ours} us here, ${lib_us} us with bats-support's loops"
}

@test "judge_failures and assert_resources: each N until none comes; the call that saw it answers the failure and nothing is left; a crash, a silent success, a leak or no failure at all loses" {
    load ../grading/judge/harness
    seed=7
    # a run as the harness reports it, from FAKE (the case) and the N given after --fail-at
    run_harness() {
        local n="$4" where=none pin=true unpin=true left=kept came=no
        HARNESS_CHANNEL=1 report_why='' output="(run $n)" status=0
        case "$n" in 1) where=pin pin=false unpin=false came=yes ;; 2) where=unpin unpin=false came=yes ;; esac
        case "$FAKE.$n" in
            silent.1) pin=true unpin=true ;;
            leak.2) left="left: registered 1" ;;
            crash.1) status=139 ;;
            none.1) where=none pin=true came=no ;;
            unwatched.2) left="not watched" ;;
        esac
        report="$(printf 'fail_came %s\nfail_in %s\npin %s\nunpin %s\nresources_fail %s\nfilter on\nend 7' \
            "$came" "$where" "$pin" "$unpin" "$left")"
    }
    FAKE=right run judge_failures prog "pin false true" "unpin false true"
    assert_success
    FAKE=silent run judge_failures prog "pin false true" "unpin false true"
    assert_failure
    assert_output --partial "with the driver's call 1 made to fail (in pin): what pin answered"
    FAKE=leak run judge_failures prog "pin false true" "unpin false true"
    assert_failure
    assert_output --partial "left: registered 1"
    FAKE=crash run judge_failures prog "pin false true" "unpin false true"
    assert_failure
    assert_output --partial "ended with status 139"
    FAKE=none run judge_failures prog "pin false true" "unpin false true"
    assert_failure
    assert_output --partial "none came"
    FAKE=unwatched run judge_failures prog "pin false true" "unpin false true"
    assert_failure
    assert_output --partial "was not the grader's stand-in driver"
    # one call (04 pinned): its key is where the failure came
    run_harness() {
        HARNESS_CHANNEL=1 report_why='' output='' status=0
        report="$(printf 'fail_came %s\nhost_alloc %s\nresources_fail kept\nend 7' \
            "$([ "$4" = 1 ] && echo yes || echo no)" "$([ "$4" = 1 ] && echo "$FAKE" || echo given)")"
    }
    FAKE=NULL run judge_failures prog "host_alloc NULL given"
    assert_success
    FAKE=given run judge_failures prog "host_alloc NULL given"
    assert_failure
    assert_output --partial "the harness saw 'given', expected 'NULL'"
}

# grading/judge/harness.bash: the cgroup limit lesson 04's 2 GiB chunks are tried under.
@test "sandbox_memory_mib: the smallest memory limit of the grading's cgroups in MiB (v2 memory.max, v1 memory.limit_in_bytes), nothing where none is set" {
    load ../grading/judge/harness
    local a="$BATS_TEST_TMPDIR/v2" b="$BATS_TEST_TMPDIR/v1"
    mkdir -p "$a" "$b"
    echo 17179869184 >"$a/memory.max"
    SANDBOX_CGROUP="$a" run sandbox_memory_mib
    assert_output 16384
    echo 8589934592 >"$b/memory.limit_in_bytes"
    SANDBOX_CGROUP="$a"$'\n'"$b" run sandbox_memory_mib
    assert_output 8192
    echo max >"$a/memory.max"
    SANDBOX_CGROUP="$a" run sandbox_memory_mib
    assert_output ''
    SANDBOX_CGROUP='' run sandbox_memory_mib
    assert_output ''
}
