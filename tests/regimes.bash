# tests/regimes.bash - what the regimes-NN_name.bats files share (GPU only): every lesson away
# from its defaults (the smallest and largest sizes an option allows, other balances of work,
# the CUDA environment variables a course teaches, every visible GPU, two lessons at once, the
# platforms students have, emulated). Each run must end "RESULT: PASS"; claims the regime
# cannot judge are allowed ("[n/j]") and counted in the verdict line.
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
        wait "$BACKGROUND_PID" 2>/dev/null || true
    fi
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
        # the figures measured against an expectation of the same run, for the notes
        grep -E '^ *\[(ok|FAIL|n/j)\] .*(model|batched|SM ratio|of the link|one direction|rate of this run|faster memcpy|as fast as pinned|within a factor)|^   best: ' \
            <<<"$output" | sed 's/^ */    /' >>"$REGIME_LOG" || true
    fi
    refute_line --partial "[FAIL]"
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
    assert_success
}
