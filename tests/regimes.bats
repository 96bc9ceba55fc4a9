#!/usr/bin/env bats
# tests/regimes.bats - every lesson away from its defaults (GPU only): the smallest and largest
# sizes an option allows, other balances of work, the CUDA environment variables a course
# teaches, every visible GPU, two lessons at once. Each run must end "RESULT: PASS"; claims the
# regime cannot judge are allowed ("[n/j]") and counted in the verdict line.
#
# With REGIME_LOG=FILE each run appends one line to FILE: the regime, the exit status and the
# verdict line (the closing notes quote it).

setup() {
    load test_helper
}

# run_regime LESSON [VAR=value ...] [-- ARGS ...]
#   Runs LESSON's program with the environment variables and arguments given, then asserts
#   exit 0, a "RESULT: PASS" verdict and no "[FAIL]" line. $output holds stdout and stderr.
run_regime() {
    require_gpu
    local lesson="$1"; shift
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    run env ${envs[@]+"${envs[@]}"} "$(lesson_bin "$lesson")" "$@"
    if [ -n "${REGIME_LOG:-}" ]; then
        printf '%s %s %s -> exit %s: %s\n' "$lesson" "${envs[*]:-}" "$*" "$status" \
            "$(grep -m1 '^RESULT:' <<<"$output")" >>"$REGIME_LOG"
    fi
    refute_line --partial "[FAIL]"
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
    assert_success
}

# ==== 01_hello_runtime =========================================================================
# Each variable changes what a step shows, and the lesson checks the changed behaviour:
# launch blocking (steps 5c, 6), eager loading (step 3), a restricted device list (step 2).

@test "01_hello_runtime: CUDA_LAUNCH_BLOCKING=1 (each launch waits for its kernel)" {
    run_regime 01_hello_runtime CUDA_LAUNCH_BLOCKING=1
    assert_line "  [ok]   CUDA_LAUNCH_BLOCKING=1 is in effect: the launch returned only after its kernel had ended"
    assert_line --regexp '^   CUDA_LAUNCH_BLOCKING=1 +1: each launch waits'
}

@test "01_hello_runtime: CUDA_MODULE_LOADING=EAGER (every kernel loads with the context)" {
    run_regime 01_hello_runtime CUDA_MODULE_LOADING=EAGER
    assert_line "  [ok]   the loading mode is the one CUDA_MODULE_LOADING=EAGER asks for"
}

@test "01_hello_runtime: CUDA_VISIBLE_DEVICES=0 (one device, renumbered from 0)" {
    run_regime 01_hello_runtime CUDA_VISIBLE_DEVICES=0
    assert_line --regexp '^   cudaGetDeviceCount -> 1 device\(s\)$'
    assert_line --partial "[ok]   CUDA_VISIBLE_DEVICES lists 1 device(s): the runtime sees no more (1)"
}

@test "01_hello_runtime: --device N on every visible GPU" {
    require_gpu
    local n d
    n="$(gpu_count)"
    for ((d = 0; d < n; d++)); do
        run_regime 01_hello_runtime -- --device "$d"
        assert_line "  [ok]   the primary context of device $d is not active yet"
    done
}

# ==== end 01_hello_runtime =====================================================================

# ==== 02_driver_context ========================================================================
# ==== end 02_driver_context ====================================================================

# ==== 03_pinned_memory =========================================================================
# Each run is small (a second or two) except the largest size; claims a regime cannot judge
# print "[n/j]" with the reason, and the tests check that they say why.

@test "03 regime: the smallest sizes the options allow (--min 4 --max 4 --reps 1)" {
    run_regime 03_pinned_memory -- --min 4 --max 4 --reps 1
    assert_line --partial "[n/j]  the staged copy is no faster than the CPU's memcpy that feeds it - not judged here: copies under 16 MiB are too short to time"
    assert_line --partial "every copy delivered its data intact: 8 checks (4 kinds x 2 directions x 1 sizes), 0 wrong words"
}

@test "03 regime: the largest size the lesson is built for, once (--min 1G --max 1G --reps 1)" {
    run_regime 03_pinned_memory -- --min 1G --max 1G --reps 1
    assert_line --partial "[ok]   from 256 MiB up, timing one copy per event pair gives at least 98% of the batched figure"
}

@test "03 regime: the sizes of issue 10's failure (--min 1M --max 64M --reps 3)" {
    run_regime 03_pinned_memory -- --min 1M --max 64M --reps 3
    assert_line --partial "[ok]   the staged copy is no faster than the CPU's memcpy that feeds it"
    assert_line --partial "not judged here: no size of 256 MiB or more in this sweep"
}

@test "03 regime: CUDA_LAUNCH_BLOCKING=1: the lesson says what changes and judges that instead" {
    run_regime 03_pinned_memory CUDA_LAUNCH_BLOCKING=1 -- --min 1M --max 32M --reps 3
    assert_line --partial "CUDA_LAUNCH_BLOCKING=1: 1 makes each launch"
    assert_line --partial "[n/j]  from pinned memory it returns at once (here it returned at"
    assert_line --partial "not judged here: the kernel launch itself waited for the kernel"
}

@test "03 regime: CUDA_DEVICE_MAX_CONNECTIONS=1 (one hardware queue for the two streams of step 6)" {
    run_regime 03_pinned_memory CUDA_DEVICE_MAX_CONNECTIONS=1 -- --min 1M --max 32M --reps 3
    assert_line --partial "CUDA_DEVICE_MAX_CONNECTIONS=1:"
}

@test "03 regime: --device N on every visible GPU, and the last one alone through CUDA_VISIBLE_DEVICES" {
    require_gpu
    n="$(gpu_count)"
    for ((d = 0; d < n; d++)); do
        run_regime 03_pinned_memory -- --device "$d" --min 64K --max 16M --reps 2
        assert_line --partial "   device $d: "
    done
    run_regime 03_pinned_memory CUDA_VISIBLE_DEVICES="$((n - 1))" -- --min 64K --max 16M --reps 2
    assert_line --partial "CUDA_VISIBLE_DEVICES=$((n - 1)): "
    assert_line --partial "[n/j]  a buffer pinned with CU_MEMHOSTALLOC_PORTABLE"
}
# ==== end 03_pinned_memory =====================================================================

# ==== 04_streams_overlap =======================================================================
# ==== end 04_streams_overlap ===================================================================

# ==== 05_ptx_module ============================================================================
# ==== end 05_ptx_module ========================================================================
