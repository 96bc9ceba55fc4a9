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
# ==== end 01_hello_runtime =====================================================================

# ==== 02_driver_context ========================================================================
# ==== end 02_driver_context ====================================================================

# ==== 03_pinned_memory =========================================================================
# ==== end 03_pinned_memory =====================================================================

# ==== 04_streams_overlap =======================================================================
# ==== end 04_streams_overlap ===================================================================

# ==== 05_ptx_module ============================================================================
# ==== end 05_ptx_module ========================================================================
