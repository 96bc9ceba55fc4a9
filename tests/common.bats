#!/usr/bin/env bats
# common/ without a GPU: check.c's three outcomes of a claim ([ok], [FAIL], [n/j] = not
# judged) and the verdict line and exit status they add up to; platform.c's decisions.

load test_helper

setup_file() {
    export PROBE="$BATS_FILE_TMPDIR/verdict_probe"
    build_common_probe "$ROOT/tests/common/verdict_probe.c" "$PROBE"
    export PLATFORM_PROBE="$BATS_FILE_TMPDIR/platform_probe"
    build_common_probe "$ROOT/tests/common/platform_probe.c" "$PLATFORM_PROBE"
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

# ---- common/platform.c: under_tool() ----------------------------------------------------------

platform_probe() {
    [ -x "$PLATFORM_PROBE" ] || fail "the probe did not build: $(cat "$PLATFORM_PROBE.log")"
    run env -u NV_SANITIZER_INJECTION_PORT_BASE -u NV_NSIGHT_INJECTION_PORT_BASE \
        -u NSYS_PROFILING_SESSION_ID -u CUDA_INJECTION64_PATH "$@"
}

@test "under_tool: a plain run is under no tool" {
    platform_probe "$PLATFORM_PROBE" tool
    assert_success
    assert_output "no tool"
}

@test "under_tool: compute-sanitizer is recognised from what it exports, and timings are not judged" {
    platform_probe NV_SANITIZER_INJECTION_PORT_BASE=12340 "$PLATFORM_PROBE" tool
    assert_output "tool: this run is under compute-sanitizer, which checks every CUDA call and memory access and slows them many times: timings say nothing about the GPU"
    platform_probe CUDA_INJECTION64_PATH=/opt/cuda/compute-sanitizer/libsanitizer-collection.so "$PLATFORM_PROBE" tool
    assert_output --partial "tool: this run is under compute-sanitizer,"
}

@test "under_tool: compute-sanitizer is recognised from its library mapped into the program" {
    mkdir -p "$BATS_TEST_TMPDIR/lib"
    echo 'int sanitizer_probe_marker;' >"$BATS_TEST_TMPDIR/marker.c"
    cc -shared -fPIC -o "$BATS_TEST_TMPDIR/lib/libsanitizer-public.so" "$BATS_TEST_TMPDIR/marker.c"
    platform_probe LD_PRELOAD="$BATS_TEST_TMPDIR/lib/libsanitizer-public.so" "$PLATFORM_PROBE" tool
    assert_output --partial "tool: this run is under compute-sanitizer,"
}

@test "under_tool: Nsight Compute, Nsight Systems and any injected CUDA tool" {
    platform_probe NV_NSIGHT_INJECTION_PORT_BASE=49152 "$PLATFORM_PROBE" tool
    assert_output --partial "tool: this run is under Nsight Compute (ncu), which serialises and replays kernels"
    platform_probe NSYS_PROFILING_SESSION_ID=7 "$PLATFORM_PROBE" tool
    assert_output --partial "tool: this run is under Nsight Systems (nsys),"
    platform_probe CUDA_INJECTION64_PATH=/opt/tools/libmytracer.so "$PLATFORM_PROBE" tool
    assert_output "tool: this run is under a CUDA tool (libmytracer.so), which was injected through CUDA_INJECTION64_PATH and sees every CUDA call: timings say nothing about the GPU"
}
