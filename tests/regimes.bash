# tests/regimes.bash - what the regimes-NN_name.bats files share (GPU only): every lesson away
# from its defaults (the smallest and largest sizes an option allows, other balances of work,
# the CUDA environment variables a course teaches, every visible GPU, two lessons at once, the
# platforms students have, emulated). Each run must end "RESULT: PASS"; claims the regime
# cannot judge are allowed ("[n/j]") and counted in the verdict line.
#
# Platforms emulated (helpers below; the programs and shims are in tests/shims/, built with gcc):
#   build_shims                       sets SHIMS to a folder holding them (built once per run)
#   run_regime L LD_LIBRARY_PATH="$SHIMS" CUDA_SHIM_COMPUTE_MODE=exclusive_process ...
#                                     L behind the forwarding driver (cuda_shim.c: another compute
#                                     mode, one copy engine, an older driver, HMM, MIG)
#   run_regime L LD_PRELOAD="$SHIMS/libhugepage.so"   host buffers on transparent huge pages
#   start_copy_neighbour [DEVICE [OPTION ...]]   another program copying both ways on the GPU
#                                     until teardown (copy_loop's options: --bytes N MiB)
#   start_memory_hog GIB [DEVICE]     another program holding all but GIB of the GPU's memory
#   start_exclusive_holder API        EXCLUSIVE_PROCESS (the shim): another process holds the GPU
#   run_regime_contained L ...        as run_regime, with L in a PID namespace of its own
#                                     (unshare -fp --mount-proc), as in a container: NVML lists
#                                     neither it nor its neighbours
#   until_judged TRIES CHECK -- RUN   RUN again while a timing claim CHECK wants is [n/j]
#
# With REGIME_LOG=FILE each run appends to FILE the regime, the exit status and the verdict
# line, then its claims that compare a measurement with a model or a reference measured in the
# same run (the closing notes quote them).

setup() {
    BACKGROUND_PID=
}

# A program a regime started beside the lesson is stopped even when the regime failed, so
# that it cannot run on into the next tests (it did once, and failed three of them).
teardown() {
    if [ -n "${BACKGROUND_PID:-}" ]; then
        # a loop (stopped first, so that it starts nothing more) and the program it runs
        kill -STOP "$BACKGROUND_PID" 2>/dev/null || true
        local kids
        kids="$(pgrep -P "$BACKGROUND_PID" 2>/dev/null || true)"
        kill $kids "$BACKGROUND_PID" 2>/dev/null || true
        kill -CONT "$BACKGROUND_PID" 2>/dev/null || true
        # 10 s to end on SIGTERM, then SIGKILL: a helper that missed its signal cannot hold
        # the suite (a run once hung for minutes in a test beside hold_memory). The watcher's
        # sleep is its own process: it is stopped with the watcher, and holds none of bats'
        # descriptors (bats waits at the end of a file for every process that holds its fd 3:
        # a sleep left running held each regimes file 10 s).
        ( sleep 10 & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s
          kill -KILL $kids "$BACKGROUND_PID" 2>/dev/null ) >/dev/null 2>&1 3>&- &
        local watcher=$!
        wait "$BACKGROUND_PID" 2>/dev/null || true
        kill "$watcher" 2>/dev/null || true
        wait "$watcher" 2>/dev/null || true
    fi
}

# run_regime LESSON [VAR=value ...] [-- ARGS ...]
#   Runs LESSON's program with the environment variables and arguments given, then asserts
#   exit 0, a "RESULT: PASS" verdict and no "[FAIL]" line. $output holds stdout and stderr.
#   A run that outlasts REGIME_TIMEOUT seconds (default 120; lesson 03 at its defaults, the
#   longest, took 20 s on an H100) is stopped, and fails with what it printed so far.
run_regime() {
    require_gpu
    local lesson="$1"; shift
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    # (env only where there are variables to set: a tool or a namespace in REGIME_PREFIX then
    # starts the lesson itself, as make sanitize does)
    local setenv=()
    [ "${#envs[@]}" -eq 0 ] || setenv=(env "${envs[@]}")
    run timeout -k 5 "${REGIME_TIMEOUT:-120}" \
        ${REGIME_PREFIX[@]+"${REGIME_PREFIX[@]}"} ${setenv[@]+"${setenv[@]}"} "$(lesson_bin "$lesson")" "$@"
    [ "$status" -ne 124 ] && [ "$status" -ne 137 ] \
        || fail "stopped after ${REGIME_TIMEOUT:-120} s (exit $status); it printed: $output"
    if [ -n "${REGIME_LOG:-}" ]; then
        printf '%s %s%s %s -> exit %s: %s\n' "$lesson" "${REGIME_PREFIX[*]:+${REGIME_PREFIX[*]} }" \
            "${envs[*]:-}" "$*" "$status" \
            "$(grep -m1 '^RESULT:' <<<"$output")" >>"$REGIME_LOG"
        # the figures measured against an expectation of the same run, for the notes
        grep -E '^ *\[(ok|FAIL|n/j)\] .*(model|batched|SM ratio|of the link|one direction|rate of this run|faster memcpy|as fast as pinned|within a factor)|^   best: ' \
            <<<"$output" | sed 's/^ */    /' >>"$REGIME_LOG" || true
    fi
    refute_line --partial "[FAIL]"
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
    assert_success
}

# until_judged TRIES CHECK -- RUN...: RUN (a run_regime, which asserts its own PASS) until the
# function CHECK, reading $output, finds the claims it wants judged, TRIES runs at most. For
# regimes that want a timing claim judged, not only allowed: a busy host (the H100 here once
# copied at 22.7 GB/s for a moment, 54.5 otherwise) rightly makes the lesson say [n/j], so the
# regime runs it again; every run must still PASS, and CHECK's failure on the last is reported
# (or, where the last run left claims [n/j] for noise and no [FAIL], the test is skipped with
# that line: skip_for_noise in test_helper.bash).
# (Where until_judged tries CHECK, bash's errexit is off: join CHECK's assertions with &&.)
until_judged() {
    local tries="$1" check="$2" i
    shift 3
    for ((i = 1; i <= tries; i++)); do
        "$@"
        [ "$i" -lt "$tries" ] || break
        "$check" >/dev/null 2>&1 && return 0
        [ -z "${REGIME_LOG:-}" ] || echo "    (run $i of $tries: $check not met, run again)" >>"$REGIME_LOG"
    done
    "$check" >/dev/null 2>&1 && return 0
    skip_for_noise "$output" "$check"   # every run noisy: skipped, with the lesson's reason
    "$check"
}

# The compute-sanitizer the regimes run a lesson under: on PATH, else the toolkit's (the path
# printed either way; the caller says what its absence means).
sanitizer_tool() {
    command -v compute-sanitizer || echo "$(cuda_root)/bin/compute-sanitizer"
}

# ---- emulated platforms ---------------------------------------------------------------------

# Sets SHIMS to a folder with tests/shims built (forwarding to this machine's libcuda.so.1):
# tests/run's, built once for the whole run at its start (test_shims waits for it), else built
# once per test file. Fails the test, with the compiler's messages, when they do not build.
# Where no GPU is usable the test skips first, as its run would: a build for a test that then
# skips took a second of each regimes file (tests/shims.bats builds them, on any machine).
build_shims() {
    require_gpu
    SHIMS="$BATS_FILE_TMPDIR/shims"
    test_shims "$SHIMS"
}

# wait_for_ready FILE PID WHAT: until FILE exists (30 s at most); fails when PID ended first.
wait_for_ready() {
    local file="$1" pid="$2" what="$3"
    for _ in $(seq 300); do
        [ -e "$file" ] && return 0
        kill -0 "$pid" 2>/dev/null || fail "$what ended before it was ready: $(cat "$file.log" 2>/dev/null)"
        sleep 0.1
    done
    fail "$what was not ready after 30 s"
}

# start_copy_neighbour [DEVICE [COPY_LOOP_OPTION ...]]: another program copying 256 MiB each way
# at once on DEVICE (default 0; --bytes N for N MiB) until teardown stops it; returns once its
# copies run.
start_copy_neighbour() {
    require_gpu
    build_shims
    local ready="$BATS_TEST_TMPDIR/neighbour.ready" device="${1:-0}"
    [ $# -eq 0 ] || shift
    "$SHIMS/copy_loop" --device "$device" "$@" --ready "$ready" >"$ready.log" 2>&1 &
    BACKGROUND_PID=$!
    wait_for_ready "$ready" "$BACKGROUND_PID" "the copying neighbour"
}

# start_memory_hog GIB [DEVICE]: another program holding all but GIB (a decimal number) of
# DEVICE's memory until teardown; sets HOG_FREE and HOG_TOTAL (bytes, as it left them).
start_memory_hog() {
    require_gpu
    build_shims
    local ready="$BATS_TEST_TMPDIR/hog.ready"
    "$SHIMS/hold_memory" --leave "$1" --device "${2:-0}" --ready "$ready" >"$ready.log" 2>&1 &
    BACKGROUND_PID=$!
    wait_for_ready "$ready" "$BACKGROUND_PID" "the memory hog"
    sleep 0.1 # the file is written in one go, but give it the moment
    read -r HOG_FREE HOG_TOTAL <"$ready"
}

# start_exclusive_holder runtime|driver: under the shim in EXCLUSIVE_PROCESS mode (its lock
# CUDA_SHIM_LOCK=$BATS_TEST_TMPDIR/lock), another process holding the GPU's one context (through
# the runtime or the Driver API) until teardown or until the file HELD is removed; sets HELD.
start_exclusive_holder() {
    require_gpu
    build_shims
    HELD="$BATS_TEST_TMPDIR/held"
    LD_LIBRARY_PATH="$SHIMS" CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" \
        "$SHIMS/lock_probe" "$1" --hold "$HELD" >"$HELD.log" 2>&1 &
    BACKGROUND_PID=$!
    wait_for_ready "$HELD" "$BACKGROUND_PID" "the process holding the GPU"
}

# run_regime_contained LESSON [VAR=value ...] [-- ARGS ...]: run_regime with the lesson in a
# PID namespace of its own, as Docker, Kubernetes or Enroot start it. Skips where this machine
# does not allow one (needs root, or user namespaces); REQUIRE_GPU=1 does not change that.
run_regime_contained() {
    require_gpu
    local why
    why="$(unshare -fp --mount-proc true 2>&1)" \
        || skip "cannot make a PID namespace here (unshare -fp --mount-proc: ${why:-failed})"
    # (--kill-child: when the time limit stops unshare, the lesson inside ends with it)
    local REGIME_PREFIX=(unshare -fp --mount-proc --kill-child)
    run_regime "$@"
}
