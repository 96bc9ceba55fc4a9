#!/usr/bin/env bats
# common/ without a GPU: check.c's three outcomes of a claim ([ok], [FAIL], [n/j] = not
# judged) and the verdict line and exit status they add up to; platform.c's decisions.

load test_helper

setup_file() {
    export PROBE="$BATS_FILE_TMPDIR/verdict_probe"
    build_common_probe "$ROOT/tests/common/verdict_probe.c" "$PROBE"
    export PLATFORM_PROBE="$BATS_FILE_TMPDIR/platform_probe"
    build_common_probe "$ROOT/tests/common/platform_probe.c" "$PLATFORM_PROBE"
    export LIMITS_PROBE="$BATS_FILE_TMPDIR/limits_probe"
    build_common_probe "$ROOT/tests/common/limits_probe.c" "$LIMITS_PROBE"
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

@test "platform_ptx_isa: the PTX ISA each CUDA release writes (a driver compiles up to its own)" {
    run "$PLATFORM_PROBE" ptx-isa 10020 11080 12000 12040 12050 12060 12080 12090 13000 13050 14000
    assert_success
    assert_output "$(printf '%s\n' '10020 0' '11080 78' '12000 80' '12040 84' '12050 85' '12060 85' \
        '12080 87' '12090 88' '13000 90' '13050 95' '14000 1000')"
}

# ---- common/gpu_shared.c: company on the GPU, also where NVML cannot list processes (GPU) ------

teardown() {
    if [ -n "${NEIGHBOUR_PID:-}" ]; then
        kill "$NEIGHBOUR_PID" 2>/dev/null || true
        wait "$NEIGHBOUR_PID" 2>/dev/null || true
    fi
}

# start_neighbour: tests/shims/copy_loop copying both ways on device 0 (NEIGHBOUR_PID).
start_neighbour() {
    local dir="$BATS_FILE_TMPDIR/real-shims" ready="$BATS_TEST_TMPDIR/ready.$RANDOM" i
    test_shims "$dir"
    "$dir/copy_loop" --ready "$ready" &
    NEIGHBOUR_PID=$!
    for i in $(seq 300); do [ -e "$ready" ] && return 0; sleep 0.1; done
    fail "the copying neighbour did not start"
}

stop_neighbour() {
    kill "$NEIGHBOUR_PID"
    wait "$NEIGHBOUR_PID" || true
    NEIGHBOUR_PID=
}

# (it needs the GPU alone: "alone" is asserted; so tests/run runs this file with the GPU files)
# bats test_tags=gpu
@test "GPU: gpu_shared sees a copying neighbour, also in a PID namespace where NVML lists no process" {
    require_gpu
    [ -x "$PLATFORM_PROBE" ] || fail "the probe did not build: $(cat "$PLATFORM_PROBE.log")"
    local why
    why="$(unshare -fp --mount-proc true 2>&1)" || skip "cannot make a PID namespace here: $why"
    # alone: NVML sees this program on the host, and cannot see in the namespace (says so)
    run "$PLATFORM_PROBE" shared 0.5
    assert_output "$(printf 'alone\nsees')"
    run unshare -fp --mount-proc "$PLATFORM_PROBE" shared 0.5
    assert_line "alone"
    assert_line --partial "blind: cannot tell whether another program shares this GPU: NVML cannot see processes outside this container's PID namespace"
    # a neighbour that was there first: listed on the host; its memory, in the namespace
    start_neighbour
    run "$PLATFORM_PROBE" shared 0.5
    assert_line --regexp '^shared: NVML listed [2-9] processes on this GPU during the run'
    run unshare -fp --mount-proc "$PLATFORM_PROBE" shared 0.5
    assert_line --regexp "^shared: NVML cannot list processes outside this container's PID namespace, but [0-9]+ MiB of the GPU's memory were in use before this program started"
    stop_neighbour
    # a neighbour that comes later: its copies, in the namespace
    unshare -fp --mount-proc "$PLATFORM_PROBE" shared 3 >"$BATS_TEST_TMPDIR/late" 2>&1 &
    local probe=$!
    sleep 1
    start_neighbour
    wait "$probe" || fail "the probe failed: $(cat "$BATS_TEST_TMPDIR/late")"
    run cat "$BATS_TEST_TMPDIR/late"
    assert_line --regexp "^shared: NVML cannot list processes outside this container's PID namespace, but the PCIe link carried [0-9.]+ GB/s while this program copied nothing"
}

@test "a failed call reports a NULL error name and message as (no name) / (no message); a checked call that meets the stub, and requireDriver, say only the stub's explanation (exit 77)" {
    local dir
    dir="$(stub_driver_dir)" || skip "no stub libcuda.so in the CUDA toolkit"
    # cuGetErrorName/String leave NULL for a code they do not know (cuda.h), the stub for all
    LD_LIBRARY_PATH="$dir" run "$PLATFORM_PROBE" unknown
    assert_equal "$status" 1
    assert_output --regexp '^/.*platform_probe\.c:[0-9]+: \(CUresult\)9999 failed: \(no name\) \(9999\): \(no message\)$'
    local stub
    stub="$(printf '%s\n' "platform_probe: cannot run here: libcuda.so.1 is the CUDA toolkit's stub library (lib64/stubs), which only lets programs link; it cannot talk to a GPU." "platform_probe: remove the stubs directory from LD_LIBRARY_PATH / ld.so.conf so that the real driver's libcuda.so.1 is found.")"
    LD_LIBRARY_PATH="$dir" run "$PLATFORM_PROBE" cuinit
    assert_equal "$status" 77
    assert_output "$stub"
    run_with_stub_driver "$PLATFORM_PROBE" facts
    assert_output "$stub"
}

# ---- process limits: the one-line hint after a failure a low limit explains ----------------
# (With the stand-in driver no call reaches CUDA_ERROR_OPERATING_SYSTEM under `ulimit -n 32`:
# the stub answers 34 first. The probe hands check.c the errors a real driver gives.)

# limits "OPTION VALUE[, OPTION VALUE]" ARGS...: `run` the limits probe under those ulimits.
limits() {
    local set="ulimit ${1//, / \&\& ulimit }"
    shift
    [ -x "${LIMITS_PROBE##* }" ] || fail "the probe did not build: $(cat "$LIMITS_PROBE.log")"
    run bash -c "$set && exec \"\$@\"" bash $LIMITS_PROBE "$@"
}

@test "open files: CUDA_ERROR_OPERATING_SYSTEM under ulimit -n 32 names the limit, both APIs; at 1024 nothing is added" {
    for api in os-driver os-runtime; do
        limits "-n 32" "$api"
        assert_failure 1
        assert_line --regexp '^/?.*limits_probe\.c:[0-9]+: .* \(304\): .*'
        assert_line "limits_probe: likely cause: this process's limit of open files is 32 (ulimit -n); the lessons need at least 1024: raise it (ulimit -n 1024) or ask the administrator"
        assert_equal "${#lines[@]}" 2
        limits "-n 1024" "$api"
        assert_failure 1
        refute_output --partial "likely cause"
    done
    limits "-n 1024" errno EMFILE
    assert_output "no hint"
    limits "-n 64" errno EMFILE
    assert_line "hint"
    assert_line --partial "limit of open files is 64 (ulimit -n)"
}

@test "processes: a thread that could not start (EAGAIN) under ulimit -u 200 names the limit; an OS error too, when open files are fine" {
    if [ "$(id -u)" = 0 ]; then # root is not held to RLIMIT_NPROC: never blamed
        limits "-u 200" errno EAGAIN
        assert_output "no hint"
        command -v setpriv >/dev/null || skip "root here, and no setpriv to run the probe as another user"
        mkdir "$BATS_TEST_TMPDIR/u" && cp "$LIMITS_PROBE" "$BATS_TEST_TMPDIR/u/limits_probe"
        LIMITS_PROBE="setpriv --reuid=65534 --regid=65534 --clear-groups $BATS_TEST_TMPDIR/u/limits_probe"
        local d="$BATS_TEST_TMPDIR/u"
        while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null; d="$(dirname "$d")"; done
    fi
    limits "-u 200" errno EAGAIN
    assert_line "hint"
    assert_line "limits_probe: likely cause: this process's limit of processes and threads of this user is 200 (ulimit -u); the lessons need at least 1024: raise it (ulimit -u 1024) or ask the administrator"
    limits "-u 200, -n 4096" os-driver
    assert_line --partial "limit of processes and threads of this user is 200"
    limits "-u 2000" errno EAGAIN
    assert_output "no hint"
}

@test "locked memory: host memory that could not be had under ulimit -l 16 names it; device memory does not" {
    limits "-l 16" oom-host
    assert_failure 1
    assert_line "limits_probe: likely cause: this process's limit of locked memory is 16 KiB (ulimit -l); the lessons need at least 64 KiB: raise it (ulimit -l 64) or ask the administrator"
    limits "-l 16" oom-driver-host
    assert_line --partial "limit of locked memory is 16 KiB"
    limits "-l 16" oom-device
    refute_output --partial "likely cause"
    limits "-l 64" oom-host
    refute_output --partial "likely cause"
}

@test "address space: out of memory under a finite ulimit -v names it; unlimited adds nothing; errno EINVAL never" {
    limits "-v 8000000" oom-device
    assert_failure 1
    assert_line "limits_probe: likely cause: this process's limit of address space is 8000000 KiB (ulimit -v); the lessons need no limit: raise it (ulimit -v unlimited) or ask the administrator"
    limits "-v 8000000" errno ENOMEM
    assert_line "hint"
    limits "-v unlimited" oom-device
    refute_output --partial "likely cause"
    limits "-n 32, -v 8000000" errno EINVAL
    assert_output "no hint"
}

# A runtime or driver that cannot open its files can read as "no device" (the stand-in driver
# over the stub answers CUDA_ERROR_NO_DEVICE with CUDA_VISIBLE_DEVICES empty): the first call's
# "cannot run here" names a low open-files limit as well, and says nothing of it when the limit
# is fine.
@test "no device under ulimit -n 32 (the stand-in driver): cannot run here (77) names the open-files limit too" {
    local bin="$ROOT/03_pinned_memory/${LESSON_BUILD:-build}/pinned_memory"
    [ -x "$bin" ] || skip "lesson 03 is not built"
    printf '#!/bin/sh\nulimit -n 32 && exec "%s"\n' "$bin" >"$BATS_TEST_TMPDIR/under32"
    chmod +x "$BATS_TEST_TMPDIR/under32"
    shim_over_stub "$BATS_TEST_TMPDIR/under32" CUDA_VISIBLE_DEVICES=
    assert_equal "$status" 77
    assert_line --partial "cudaErrorNoDevice (100)"
    assert_line "pinned_memory: likely cause: this process's limit of open files is 32 (ulimit -n); the lessons need at least 1024: raise it (ulimit -n 1024) or ask the administrator"
    assert_line --partial "cannot run here: the driver is installed but no CUDA device is visible."
    shim_over_stub "$bin" CUDA_VISIBLE_DEVICES=
    assert_equal "$status" 77
    refute_output --partial "likely cause"
}
