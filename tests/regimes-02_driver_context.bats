#!/usr/bin/env bats
# tests/regimes-02_driver_context.bats - lesson 02 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

# bats file_tags=gpu
load test_helper
load regimes

# Lesson 02 compares every figure with one measured in the same run (a context's cost with a
# push + pop pair, the memory it gives back with what it took, the stack reservation with the
# device's SMs x threads), so the regimes move the device, the rounds and the visible GPUs.

@test "02_driver_context: --repeat 12, more create/destroy rounds than the default" {
    # (not the option's largest, 50: ten seconds of the same rounds on an H100)
    run_regime 02_driver_context -- --repeat 12
    assert_line "   12 rounds of create + destroy, watched from ctxA with cuMemGetInfo:"
}

# (device 0 without CUDA_VISIBLE_DEVICES is the lesson's default run, tests/02_driver_context.bats;
# --repeat 1 here is the option's least, with the same checks judged as the default 3)
@test "02_driver_context: CUDA_VISIBLE_DEVICES=0 with --device 0 and --repeat 1 (the fewest create/destroy rounds) - one GPU, step 8 not judged and why; --device N on every other visible GPU" {
    run_regime 02_driver_context CUDA_VISIBLE_DEVICES=0 -- --device 0 --repeat 1
    assert_line "   1 rounds of create + destroy, watched from ctxA with cuMemGetInfo:"
    assert_line --regexp '^     CUDA_VISIBLE_DEVICES = 0 '
    assert_line "  [ok]   CUDA_VISIBLE_DEVICES lists 1 entry and the driver shows 1 device(s): no more than listed"
    assert_line --partial "   steps 2 to 6 use device 0,"
    run grep -c -F -- "- not judged here: one GPU is visible; this needs two" <<<"$output"
    assert_output 4
    local n d
    n="$(gpu_count)"
    for ((d = 1; d < n; d++)); do
        run_regime 02_driver_context -- --device "$d" --repeat 1
        assert_line --partial "   steps 2 to 6 use device $d,"
    done
}

# ---- the machines students have, emulated (tests/regimes.bash, tests/shims) -----------------

@test "02_driver_context: EXCLUSIVE_PROCESS compute mode (the shim over the real driver): one process, its several contexts" {
    build_shims
    run_regime 02_driver_context LD_LIBRARY_PATH="$SHIMS" CUDA_SHIM_COMPUTE_MODE=exclusive_process \
        CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" -- --repeat 1
    assert_line --partial "its compute mode (cuDeviceGetAttribute): EXCLUSIVE_PROCESS: this GPU lets one process at a time use it"
    # step 9 compares addresses. Over the real driver the shim's own functions are the ones it
    # intercepts, and its cuGetProcAddress hands out the same ones, so each comparison may hold
    # (an H100 printed no stand-in line, and PASS); where an address differs the lesson names the stand-in
    # instead of failing. Either way each of the three claims has its line.
    local claims
    claims="$(grep -E "^  (\[ok\]   |\[n/j\]  )(all three are one entry point|the version picks the ABI|the per-thread flag gives)" <<<"$output" || true)"
    [ "$(grep -c "" <<<"$claims")" -eq 3 ] || fail "step 9's three claims, judged or not: $claims"
    ! grep -E "^  \[n/j\]" <<<"$claims" | grep -v "is not the driver's: it forwards to it" \
        || fail "a step 9 claim not judged for another reason: $claims"
}

@test "02_driver_context: EXCLUSIVE_PROCESS and another process holding the GPU (the shim): exit 77, the context refused" {
    start_exclusive_holder driver
    LD_LIBRARY_PATH="$SHIMS" CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" \
        run "$(lesson_bin 02_driver_context)" --repeat 1
    rm -f "$HELD"
    assert_equal "$status" 77
    assert_line --partial "cannot run here: the driver refused this lesson a context (CUDA_ERROR_DEVICE_UNAVAILABLE)"
    refute_line --partial "RESULT:"
}

# Step 2's memory claims read cuMemGetInfo, the whole GPU's free memory: beside another program
# they are not judged, and say why (NVML's list; in a container, the GPU-wide signals).
@test "02_driver_context: in a PID namespace of its own (a container) beside a neighbour copying on the GPU" {
    start_copy_neighbour
    run_regime_contained 02_driver_context -- --repeat 3
    assert_line --regexp "^  \[n/j\]  cuCtxDestroy gave that memory back \(within 1% of what it took, each round\) - not judged here: NVML cannot list processes outside this container's PID namespace, but .*: another program shares this GPU"
}

@test "02_driver_context: a GPU with little free memory (another process holds all but 3 GiB)" {
    start_memory_hog 3
    run_regime 02_driver_context -- --repeat 3
    local claim
    for claim in "every new context took device memory" \
        "cuCtxDestroy gave that memory back \(within 1% of what it took, each round\)" \
        "raising the stack limit reserved it for every thread the device can hold"; do
        assert_line --regexp "^  \[n/j\]  $claim - not judged here: NVML listed [0-9]+ processes on this GPU during the run: another program shares this GPU, and the free device memory cuMemGetInfo reports is the whole GPU's$"
    done
}

@test "02_driver_context: under compute-sanitizer (memcheck): PASS, no error, the timing claims not judged" {
    require_gpu
    local cs
    cs="$(sanitizer_tool)"
    [ -x "$cs" ] || skip "no compute-sanitizer here"
    local REGIME_PREFIX=("$cs" --tool memcheck --error-exitcode 99 --report-api-errors no)
    run_regime 02_driver_context -- --repeat 1
    assert_line --regexp '^========= ERROR SUMMARY: 0 errors$'
    assert_line --regexp '^  \[n/j\]  a context is costly to make: .* - not judged here: this run is under compute-sanitizer'
}

# ---- CUDA's environment variables (the Programming Guide's table) and the process's limits --

@test "02_driver_context: CUDA_LAUNCH_BLOCKING=1 and CUDA_DEVICE_MAX_CONNECTIONS=2: printed, nothing judged differently" {
    run_regime 02_driver_context CUDA_LAUNCH_BLOCKING=1 CUDA_DEVICE_MAX_CONNECTIONS=2 -- --repeat 1
    assert_line --regexp '^     CUDA_LAUNCH_BLOCKING = 1 '
    assert_line --regexp '^     CUDA_DEVICE_MAX_CONNECTIONS = 2 '
}

# With the JIT forced, the driver ignores the SASS: this build's PTX is for its newest
# architecture only, so a GPU older than that cannot load the kernels: exit 77 with the line
# naming the variable (a GPU of that architecture passes). Never exit 1, never a [FAIL].
@test "02_driver_context: CUDA_FORCE_PTX_JIT=1 and CUDA_DISABLE_PTX_JIT=1: PASS, or exit 77 naming the variable, never a [FAIL]" {
    require_gpu
    local v
    for v in CUDA_FORCE_PTX_JIT CUDA_DISABLE_PTX_JIT; do
        run env "$v=1" "$(lesson_bin 02_driver_context)" --repeat 1
        refute_line --partial "[FAIL]"
        assert_line --regexp "^     $v += 1 "
        case "$status" in
            0) assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed' ;;
            77) assert_output --partial "cannot run here: $v=1, and this GPU (compute capability"
                assert_output --partial "make ARCH=" ;;
            *) fail "$v=1: exit $status: $output" ;;
        esac
    done
}

@test "02_driver_context: an MPS pipe directory with no daemon: the MPS line, PASS with step 2's memory judged" {
    run_regime 02_driver_context CUDA_MPS_PIPE_DIRECTORY="$BATS_TEST_TMPDIR/no-mps" -- --repeat 1
    assert_line "   MPS: CUDA_MPS_PIPE_DIRECTORY is set, but no control daemon's pipe is there ($BATS_TEST_TMPDIR/no-mps/control):"
}

# Under a low limit of open files the driver fails a call with CUDA_ERROR_OPERATING_SYSTEM
# (304): the lesson names the call and the error (and common/check.c the limit), exit 1; or,
# where the limit is enough, it passes. Never a [FAIL] of a claim.
@test "02_driver_context: ulimit -n 32: PASS, or exit 1 naming the failed call, its error 304 and the limit" {
    require_gpu
    run bash -c 'ulimit -S -n 32 && exec "$1" --repeat 1' _ "$(lesson_bin 02_driver_context)"
    refute_line --partial "[FAIL]"
    case "$status" in
        0) assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed' ;;
        1) assert_output --regexp 'failed: (CUDA_ERROR_OPERATING_SYSTEM|cudaErrorOperatingSystem) \(304\)'
           assert_output --partial "open files" ;;
        *) fail "exit $status: $output" ;;
    esac
}

# Under MPS: a control daemon of its own (a private pipe directory, so that no other program
# on the machine becomes its client), stopped before anything is asserted. The driver then
# says the device's contexts are shared via MPS, and step 2's memory claims are not judged,
# with that reason; every other claim holds.
@test "02_driver_context: under MPS (a control daemon of its own): the MPS line, step 2's memory claims not judged, PASS" {
    require_gpu
    command -v nvidia-cuda-mps-control >/dev/null || skip "no nvidia-cuda-mps-control here (the driver's MPS utilities)"
    local pipe="$BATS_TEST_TMPDIR/mps-pipe" log="$BATS_TEST_TMPDIR/mps-log"
    mkdir -p "$pipe" "$log"
    CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_LOG_DIRECTORY="$log" nvidia-cuda-mps-control -d ||
        skip "the MPS control daemon did not start: $(cat "$log"/*.log 2>/dev/null | tail -n 3)"
    run timeout -k 5 120 env CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_LOG_DIRECTORY="$log" \
        "$(lesson_bin 02_driver_context)" --repeat 1
    local lesson_status="$status" lesson_output="$output"
    echo quit | CUDA_MPS_PIPE_DIRECTORY="$pipe" nvidia-cuda-mps-control || true
    output="$lesson_output"
    refute_line --partial "[FAIL]"
    assert_equal "$lesson_status" 0
    assert_line --regexp "^   MPS: this process is an MPS client \(CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 1\)"
    local claim
    for claim in "every new context took device memory" \
        "cuCtxDestroy gave that memory back \(within 1% of what it took, each round\)" \
        "raising the stack limit reserved it for every thread the device can hold"; do
        assert_line --regexp "^  \[n/j\]  $claim - not judged here: this process is an MPS client"
    done
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
}
