#!/usr/bin/env bats
# tests/regimes-02_driver_context.bats - lesson 02 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

load test_helper
load regimes

# Lesson 02 compares every figure with one measured in the same run (a context's cost with a
# push + pop pair, the memory it gives back with what it took, the stack reservation with the
# device's SMs x threads), so the regimes move the device, the rounds and the visible GPUs.

@test "02_driver_context: --device N on every visible GPU" {
    require_gpu
    local n d
    n="$(gpu_count)"
    for ((d = 0; d < n; d++)); do
        run_regime 02_driver_context -- --device "$d" --repeat 1
        assert_line --partial "   steps 2 to 6 use device $d,"
    done
}

@test "02_driver_context: --repeat 1, the fewest create/destroy rounds" {
    run_regime 02_driver_context -- --repeat 1
    assert_line "   1 rounds of create + destroy, watched from ctxA with cuMemGetInfo:"
}

@test "02_driver_context: --repeat 50, the most create/destroy rounds" {
    run_regime 02_driver_context -- --repeat 50
    assert_line "   50 rounds of create + destroy, watched from ctxA with cuMemGetInfo:"
}

@test "02_driver_context: CUDA_VISIBLE_DEVICES=0 - one GPU, step 8 not judged and why" {
    run_regime 02_driver_context CUDA_VISIBLE_DEVICES=0 -- --repeat 1
    assert_line --regexp '^     CUDA_VISIBLE_DEVICES = 0 '
    assert_line "  [ok]   CUDA_VISIBLE_DEVICES lists 1 entry and the driver shows 1 device(s): no more than listed"
    run grep -c -F -- "- not judged here: one GPU is visible; this needs two" <<<"$output"
    assert_output 4
}

# ---- the machines students have, emulated (tests/shims: bash tests/shims/build DIR) ----------

shim_dir() {
    local dir="$BATS_FILE_TMPDIR/shims"
    if [ ! -x "$dir/libcuda.so.1" ]; then
        bash "$ROOT/tests/shims/build" "$dir" >"$BATS_FILE_TMPDIR/shims.log" 2>&1 ||
            fail "tests/shims/build failed: $(cat "$BATS_FILE_TMPDIR/shims.log")"
    fi
    echo "$dir"
}

# regime_through LESSON WRAPPER... [-- ARGS...]: as run_regime, with the lesson's program started
# through a wrapper (unshare, compute-sanitizer).
regime_through() {
    require_gpu
    local lesson="$1"; shift
    local wrap=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do wrap+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    run "${wrap[@]}" "$(lesson_bin "$lesson")" "$@"
    refute_line --partial "[FAIL]"
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
    assert_success
}

start_beside() {
    local ready="$1"; shift
    "$@" &
    BACKGROUND_PID=$!
    for _ in $(seq 300); do
        [ -e "$ready" ] && return 0
        kill -0 "$BACKGROUND_PID" 2>/dev/null || fail "the neighbour ($*) stopped before it was ready"
        sleep 0.1
    done
    fail "the neighbour ($*) was not ready after 30 s"
}

@test "02_driver_context: EXCLUSIVE_PROCESS compute mode (the shim over the real driver): one process, its several contexts" {
    require_gpu
    local dir
    dir="$(shim_dir)"
    run_regime 02_driver_context LD_LIBRARY_PATH="$dir" CUDA_SHIM_COMPUTE_MODE=exclusive_process \
        CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" -- --repeat 1
    assert_line --partial "its compute mode (cuDeviceGetAttribute): EXCLUSIVE_PROCESS: this GPU lets one process at a time use it"
}

@test "02_driver_context: EXCLUSIVE_PROCESS and another process holding the GPU (the shim): exit 77, the context refused" {
    require_gpu
    local dir
    dir="$(shim_dir)"
    start_beside "$BATS_TEST_TMPDIR/held" env LD_LIBRARY_PATH="$dir" CUDA_SHIM_COMPUTE_MODE=exclusive_process \
        CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" "$dir/lock_probe" driver --hold "$BATS_TEST_TMPDIR/held"
    LD_LIBRARY_PATH="$dir" CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" \
        run "$(lesson_bin 02_driver_context)" --repeat 1
    rm -f "$BATS_TEST_TMPDIR/held"
    assert_equal "$status" 77
    assert_line --partial "cannot run here: the driver refused this lesson a context (CUDA_ERROR_DEVICE_UNAVAILABLE)"
    refute_line --partial "RESULT:"
}

@test "02_driver_context: in a PID namespace of its own (a container) beside a neighbour copying on the GPU" {
    require_gpu
    unshare -fp --mount-proc true 2>/dev/null || skip "unshare -fp --mount-proc is not allowed here (needs root)"
    local dir
    dir="$(shim_dir)"
    start_beside "$BATS_TEST_TMPDIR/copying" "$dir/copy_loop" --ready "$BATS_TEST_TMPDIR/copying"
    regime_through 02_driver_context unshare -fp --mount-proc -- --repeat 3
}

@test "02_driver_context: a GPU with little free memory (another process holds all but 3 GiB)" {
    require_gpu
    local dir
    dir="$(shim_dir)"
    start_beside "$BATS_TEST_TMPDIR/held" "$dir/hold_memory" --leave 3 --ready "$BATS_TEST_TMPDIR/held"
    run_regime 02_driver_context -- --repeat 3
}

@test "02_driver_context: under compute-sanitizer (memcheck): PASS, no error, the timing claims not judged" {
    require_gpu
    local cs
    cs="$(command -v compute-sanitizer || echo "$(cuda_root)/bin/compute-sanitizer")"
    [ -x "$cs" ] || skip "no compute-sanitizer here"
    regime_through 02_driver_context "$cs" --tool memcheck --error-exitcode 99 --report-api-errors no -- --repeat 1
    assert_line --regexp '^========= ERROR SUMMARY: 0 errors$'
    assert_line --regexp '^  \[n/j\]  a context is costly to make: .* - not judged here: this run is under compute-sanitizer'
}
