#!/usr/bin/env bats
# The T4 a student meets on Colab, described through tests/shims: compute capability 7.5, 40
# multiprocessors, about 15 GB (15360 MiB), ECC on, 3 copy engines, PCIe Gen3 x16. make doctor
# and every lesson under those facts give [ok] or [n/j] with the reason, never a [FAIL]: over
# the toolkit's stub (any machine: the lessons stop with exit 77 at their first call that needs
# a GPU, after the facts they read), and, on a GPU, over the real driver (every verdict PASS).

load test_helper

T4_FACTS=(CUDA_SHIM_NAME="Tesla T4" CUDA_SHIM_CC=7.5 CUDA_SHIM_SMS=40 CUDA_SHIM_ECC=1
    CUDA_SHIM_TOTAL_MIB=15360 CUDA_SHIM_ASYNC_ENGINES=3
    NVML_SHIM_LINK="3 16 3 16" NVML_SHIM_TOTAL_MIB=15360)

setup_file() {
    export SHIMS="$BATS_FILE_TMPDIR/shims"
    stub_shims "$SHIMS" >/dev/null 2>&1 || true   # (tests/run's build where there is one)
    export PLATFORM_PROBE="$BATS_FILE_TMPDIR/platform_probe"
    build_common_probe "$ROOT/tests/common/platform_probe.c" "$PLATFORM_PROBE"
    doctor_cache_seed "$BATS_FILE_TMPDIR/doctor"   # (the build cache's: test_helper.bash)
}

teardown_file() {
    doctor_cache_keep "$BATS_FILE_TMPDIR/doctor"
}

setup() {
    export TMPDIR="$BATS_TEST_TMPDIR" # the shim's lock files stay this test's
    export DOCTOR_CACHE="$BATS_FILE_TMPDIR/doctor"
}

need_shims() {
    [ -f "$SHIMS/libcuda.so.1" ] || {
        [ -f "$SHIMS.log" ] || skip "no stub libcuda.so in the CUDA toolkit"
        fail "tests/shims did not build: $(cat "$SHIMS.log")"
    }
}

# as_t4 DIR CMD...: `run` CMD with the shims in DIR first (the made-up NVML beside them), a
# T4's facts, and no CUDA_SHIM_ or NVML_SHIM_ variable from outside.
as_t4() {
    local dir="$1"
    shift
    run env $(env | sed -n 's/^\(\(CUDA\|NVML\)_SHIM_[A-Z_]*\)=.*/-u \1/p') \
        LD_LIBRARY_PATH="$dir:$dir/fake-nvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "${T4_FACTS[@]}" "$@"
}

# no_false_fail LESSON: the last run's output has no [FAIL] claim and no FAIL verdict (its
# $status and $output stay as they are)
no_false_fail() {
    local bad
    bad="$(grep -E '^ *\[FAIL\]|^RESULT: FAIL' <<<"$output" || true)"
    [ -z "$bad" ] || fail "$1 under a T4's facts printed: $bad"
}

@test "the shims describe a T4: name, compute capability 7.5, 3 engines, 15 GiB" {
    need_shims
    [ -x "$PLATFORM_PROBE" ] || fail "the probe did not build: $(cat "$PLATFORM_PROBE.log")"
    as_t4 "$SHIMS" "$PLATFORM_PROBE" facts
    assert_success
    assert_line "name=Tesla T4"
    assert_line "cc=7.5"
    assert_line "async_engines=3"
    # and without the facts, the emulated card is as before
    run env -u CUDA_SHIM_CC LD_LIBRARY_PATH="$SHIMS" "$PLATFORM_PROBE" facts
    assert_line "cc=9.0"
}

@test "make doctor on a T4 (the shims over the stub): every line [ok] or a note, ready, exit 0" {
    need_shims
    as_t4 "$SHIMS" ARCH=75 bash "$ROOT/tools/doctor"
    assert_success
    assert_line "  GPU 0: Tesla T4 (compute capability 7.5, PCI 00ff:00:00.0)"
    assert_line "  [ok]    the build's ARCH has machine code (sm_75) for it"
    assert_line "  [ok]    3 asynchronous engines: copies in both directions can run at once, beside kernels"
    assert_line "  [ok]    PCIe Gen3 x16 (15.8 GB/s each way in theory), its maximum"
    assert_line "  [ok]    GPU memory: 15 GiB free of 15 GiB"
    assert_line --regexp '^ready: make run'
    refute_output --partial "[FAIL]"
    refute_output --partial "[FIX]"
    # the default build on an H100 (ARCH_ALSO adds 75): ready too
    as_t4 "$SHIMS" ARCH="75 90" bash "$ROOT/tools/doctor"
    assert_success
    assert_line "  [ok]    the build's ARCH has machine code (sm_75) for it"
    # a build for the H100 alone (ARCH=90 by hand) says what to rebuild with: true, not false
    as_t4 "$SHIMS" ARCH=90 bash "$ROOT/tools/doctor"
    assert_failure 1
    assert_line "  [FIX]   the build's ARCH (90) has nothing sm_75 can run"
    assert_line "          -> make clean; make ARCH=75"
}

@test "every lesson on a T4 (the shims over the stub): the facts it reads give no [FAIL]; it stops with exit 77 at the stub" {
    need_shims
    local l prog n=0
    for l in $(list_lessons "$ROOT"); do
        prog="$ROOT/$l/build/${l#*_}"
        [ -x "$prog" ] || continue
        cd "$ROOT/$l"
        as_t4 "$SHIMS" "$prog"
        cd "$ROOT"
        no_false_fail "$l"
        assert_equal "$l: exit $status" "$l: exit 77"
        assert_output --partial "stub library"
        n=$((n + 1))
    done
    [ "$n" -gt 0 ] || skip "no lesson program built in the tree (make builds them)"
}

# bats test_tags=gpu
@test "GPU: every lesson with a T4's facts over the real driver: each claim [ok] or [n/j], every verdict PASS" {
    require_gpu
    local dir="$BATS_FILE_TMPDIR/shim-real" l prog bad=""
    test_shims "$dir"
    # The multiprocessor count and the compute capability stay the card's: what a lesson
    # measures is made by the real card (02's stack reserved for every thread its
    # multiprocessors hold, 05's SASS compiled by the JIT for its own architecture), and a model
    # from a T4's 40 SMs or sm_75 would be a true [FAIL] of the shim, not of the lesson. What a
    # T4 changes in the lessons' claims stays shimmed: 3 copy engines, PCIe Gen3 x16, 15 GiB, ECC.
    local f facts=()
    for f in "${T4_FACTS[@]}"; do
        case "$f" in CUDA_SHIM_SMS=* | CUDA_SHIM_CC=*) ;; *) facts+=("$f") ;; esac
    done
    T4_FACTS=("${facts[@]}")
    for l in $(list_lessons "$ROOT"); do
        prog="$ROOT/$l/build/${l#*_}"
        [ -x "$prog" ] || { bad+="$l: $prog is not built"$'\n'; continue; }
        cd "$ROOT/$l"
        as_t4 "$dir" "$prog"
        cd "$ROOT"
        # every lesson is run, and every one that did not pass is named
        (no_false_fail "$l") >/dev/null 2>&1 && [ "$status" -eq 0 ] && grep -q '^RESULT: PASS' <<<"$output" \
            || bad+="$l (exit $status): $(grep -E '^ *\[FAIL\]|^RESULT:' <<<"$output" | head -5)"$'\n'
    done
    [ -z "$bad" ] || fail "$bad"
}
