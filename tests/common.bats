#!/usr/bin/env bats
# common/check.c without a GPU: the three outcomes of a claim ([ok], [FAIL], [n/j] = not
# judged) and the verdict line and exit status they add up to.

load test_helper

setup_file() {
    export PROBE="$BATS_FILE_TMPDIR/verdict_probe"
    build_common_probe "$ROOT/tests/common/verdict_probe.c" "$PROBE"
}

setup() {
    [ -x "$PROBE" ] || fail "the probe did not build: $(cat "$PROBE.log")"
}

@test "all claims hold: PASS, exit 0, the verdict line as before" {
    run "$PROBE" ok ok
    assert_success
    assert_line "  [ok]   claim 1 holds"
    assert_line "RESULT: PASS - all 2 checks passed"
}

@test "a claim not judged is shown with its reason, counted apart, and does not fail" {
    run "$PROBE" ok nj ok
    assert_success
    assert_line "  [n/j]  claim 2 - not judged here: the regime hides it"
    assert_line "RESULT: PASS - all 2 checks passed, 1 not judged"
}

@test "not judged never turns a failure into a pass" {
    run "$PROBE" ok fail nj
    assert_equal "$status" 1
    assert_line "  [FAIL] claim 2 does not hold"
    assert_line "RESULT: FAIL - 1 of 2 checks failed, 1 not judged"
}

@test "only not-judged claims still pass, with zero judged" {
    run "$PROBE" nj nj
    assert_success
    assert_line "RESULT: PASS - all 0 checks passed, 2 not judged"
}

@test "a failed CUDA call fails the verdict even when every claim held" {
    run "$PROBE" ok nj cudafail
    assert_equal "$status" 1
    assert_line "RESULT: FAIL - a CUDA call failed (see stderr) after 1 checks passed, 1 not judged"
}
