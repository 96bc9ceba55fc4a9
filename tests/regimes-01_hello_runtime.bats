#!/usr/bin/env bats
# tests/regimes-01_hello_runtime.bats - lesson 01 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

# bats file_tags=gpu
load test_helper
load regimes

# Each variable changes what a step shows, and the lesson checks the changed behaviour:
# launch blocking (steps 5c, 6), eager loading (step 3), a restricted device list (step 2).
#
# Lesson 01 judges nothing that another program on the GPU could make untrue (its timings, a
# first cudaSetDevice of more than 5 ms and a launch that returns before its kernel ends, only
# grow truer on a busy GPU), so these regimes are tagged shared: tests/run runs them beside the
# other files' shared tests. All but the one with little free memory, whose hog would take the
# memory of the tests beside it.

# (the two debugging settings in one run: each changes what its own step shows, and each step
# checks its own; one run of lesson 01 less in the first phase, where runs of it side by side
# take twice as long)
# bats test_tags=shared
@test "01_hello_runtime: CUDA_LAUNCH_BLOCKING=1 (each launch waits for its kernel) and CUDA_MODULE_LOADING=EAGER (every kernel loads with the context)" {
    run_regime 01_hello_runtime CUDA_LAUNCH_BLOCKING=1 CUDA_MODULE_LOADING=EAGER
    assert_line "  [ok]   CUDA_LAUNCH_BLOCKING=1 is in effect: the launch returned only after its kernel had ended"
    assert_line --regexp '^   CUDA_LAUNCH_BLOCKING=1 +1: each launch waits'
    assert_line "  [ok]   the loading mode is the one CUDA_MODULE_LOADING=EAGER asks for"
    assert_line "   (CUDA_MODULE_LOADING=EAGER: that time includes loading every kernel of this program into the new context)"
}

# bats test_tags=shared
@test "01_hello_runtime: CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_DISABLE_PTX_JIT=1 (the build holds SASS for this GPU): each named, PASS" {
    run_regime 01_hello_runtime CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_DISABLE_PTX_JIT=1
    assert_line "   CUDA_DEVICE_ORDER=PCI_BUS_ID       devices numbered in ascending PCI bus order"
    assert_line "   CUDA_DISABLE_PTX_JIT=1: the kernels loaded all the same (cudaFuncGetAttributes -> cudaSuccess)"
}

# bats test_tags=shared
@test "01_hello_runtime: CUDA_FORCE_PTX_JIT=1 with no JIT cache: the kernels JIT-compiled from the build's PTX, or exit 77 naming the variable; never a [FAIL]" {
    require_gpu
    run timeout -k 5 120 env CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_DISABLE=1 "$(lesson_bin 01_hello_runtime)"
    refute_line --partial "[FAIL]"
    if [ "$status" -eq 77 ]; then # a build whose PTX this GPU cannot take (ARCH without it)
        assert_output --partial "cannot run here: CUDA_FORCE_PTX_JIT=1: "
    else
        assert_success
        assert_line "   CUDA_FORCE_PTX_JIT=1: the kernels loaded all the same (cudaFuncGetAttributes -> cudaSuccess)"
        assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
    fi
}

# bats test_tags=shared
@test "01_hello_runtime: CUDA_DEVICE_WAITS_ON_EXCEPTION=1 and CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1: step 5c's faulting children run without them (no wait, no core dump), PASS" {
    cd "$BATS_TEST_TMPDIR"
    REGIME_TIMEOUT=60 run_regime 01_hello_runtime CUDA_DEVICE_WAITS_ON_EXCEPTION=1 CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1
    assert_line "      (CUDA_DEVICE_WAITS_ON_EXCEPTION, CUDA_ENABLE_COREDUMP_ON_EXCEPTION: removed in these two children, whose fault is on purpose)"
    assert_line "  [ok]   the fault showed only at synchronisation, and the call made after it returned it too"
    run ls -A "$BATS_TEST_TMPDIR"
    refute_output --partial "core"
}

# (device 0 without CUDA_VISIBLE_DEVICES is the lesson's default run, tests/01_hello_runtime.bats)
# bats test_tags=shared
@test "01_hello_runtime: CUDA_VISIBLE_DEVICES=0 with --device 0 (one device, renumbered from 0), and --device N on every other visible GPU" {
    run_regime 01_hello_runtime CUDA_VISIBLE_DEVICES=0 -- --device 0
    assert_line --regexp '^   cudaGetDeviceCount -> 1 device\(s\)$'
    assert_line --partial "[ok]   CUDA_VISIBLE_DEVICES lists 1 device(s): the runtime sees no more (1)"
    assert_line "  [ok]   the primary context of device 0 is not active yet"
    # a device the list hides: a usage error that names the variable
    CUDA_VISIBLE_DEVICES=0 run "$(lesson_bin 01_hello_runtime)" --device 1
    assert_equal "$status" 2
    assert_output --partial "--device 1 does not exist: this machine shows 1 device(s), 0 to 0 (CUDA_VISIBLE_DEVICES=0 shows only those)"
    local n d
    n="$(gpu_count)"
    for ((d = 1; d < n; d++)); do
        run_regime 01_hello_runtime -- --device "$d"
        assert_line "  [ok]   the primary context of device $d is not active yet"
    done
}

# ---- the machines students have, emulated (tests/regimes.bash, tests/shims) -----------------

# bats test_tags=shared
@test "01_hello_runtime: EXCLUSIVE_PROCESS compute mode (the shim over the real driver): children one at a time, the parent's context given back" {
    build_shims
    run_regime 01_hello_runtime LD_LIBRARY_PATH="$SHIMS" CUDA_SHIM_COMPUTE_MODE=exclusive_process \
        CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock"
    assert_line --partial "compute mode of device 0 (cuDeviceGetAttribute): EXCLUSIVE_PROCESS: this GPU lets one process at a time use it"
    refute_line --partial "[n/j]"
    run grep -c -F "[ok]   this process holds no context on device 0 while its child process runs" <<<"$output"
    assert_output 2
}

# bats test_tags=shared
@test "01_hello_runtime: EXCLUSIVE_PROCESS and another process holding the GPU (the shim): exit 77, the GPU is taken" {
    start_exclusive_holder runtime
    LD_LIBRARY_PATH="$SHIMS" CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock" \
        run "$(lesson_bin 01_hello_runtime)"
    rm -f "$HELD"
    assert_equal "$status" 77
    assert_line --partial "cannot run here: the GPU is busy or unavailable"
    assert_line --partial "[n/j]  which first calls start the primary context (step 2's 4 claims) - not judged here: the driver gave some child processes no context"
    refute_line --partial "RESULT:"
}

# bats test_tags=shared
@test "01_hello_runtime: in a PID namespace of its own (a container) beside a neighbour copying on the GPU" {
    start_copy_neighbour
    run_regime_contained 01_hello_runtime
}

@test "01_hello_runtime: a GPU with little free memory (another process holds all but 2 GiB): a child without room runs again alone" {
    start_memory_hog 2
    run_regime 01_hello_runtime
    refute_line --partial "[n/j]"
    refute_line --partial "the child process failed"
}

# bats test_tags=shared
@test "01_hello_runtime: under compute-sanitizer (memcheck): PASS, no error, the timing claim not judged" {
    require_gpu
    local cs
    cs="$(sanitizer_tool)"
    [ -x "$cs" ] || skip "no compute-sanitizer here"
    # the lesson itself as the target, as make sanitize starts it (not through env: its child
    # processes, one of which faults on purpose, are then left unchecked)
    run "$cs" --tool memcheck --error-exitcode 99 --report-api-errors no --target-processes application-only \
        "$(lesson_bin 01_hello_runtime)"
    refute_line --partial "[FAIL]"
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
    assert_success
    assert_line --regexp '^========= ERROR SUMMARY: 0 errors$'
    assert_line --regexp '^  \[n/j\]  a launch returns before its kernel ends - not judged here: this run is under compute-sanitizer'
}
