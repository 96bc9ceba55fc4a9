#!/usr/bin/env bats
# tools/doctor (make doctor) without a GPU: the machines where CUDA cannot run (no driver, the
# toolkit's stub, no visible device: exit 77 with the reason), and, through the forwarding
# driver in tests/shims over the stub, the lines an emulated machine gets (exclusive-process
# and prohibited compute modes, one copy engine, a driver older than the toolkit). On a GPU,
# the last test runs it on the real machine.

load test_helper

setup_file() {
    export SHIMS="$BATS_FILE_TMPDIR/shims"
    stub_shims "$SHIMS" >/dev/null 2>&1 || true   # (tests/run's build where there is one)
    doctor_cache_seed "$BATS_FILE_TMPDIR/doctor"   # (the build cache's: test_helper.bash)
}

teardown_file() {
    doctor_cache_keep "$BATS_FILE_TMPDIR/doctor"
}

setup() {
    export TMPDIR="$BATS_TEST_TMPDIR" # the shim's lock files stay this test's
    export DOCTOR_CACHE="$BATS_FILE_TMPDIR/doctor" # its probe built once for the file
}

need_shims() {
    [ -f "$SHIMS/libcuda.so.1" ] || {
        [ -f "$SHIMS.log" ] || skip "no stub libcuda.so in the CUDA toolkit"
        fail "tests/shims did not build: $(cat "$SHIMS.log")"
    }
}

# doctor_with_shim [VAR=value ...]: `run` make doctor's script on the emulated device.
doctor_with_shim() {
    need_shims
    run env $(env | sed -n 's/^\(CUDA_SHIM_[A-Z_]*\)=.*/-u \1/p') \
        LD_LIBRARY_PATH="$SHIMS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ARCH=90 "$@" \
        bash "$ROOT/tools/doctor"
}

@test "no driver: exit 77, says there is no NVIDIA driver and what to do" {
    run_without_driver bash "$ROOT/tools/doctor"
    assert_equal "$status" 77
    assert_line "  [none]  no NVIDIA driver: libcuda.so.1 could not be loaded."
    assert_line "cannot run here: no NVIDIA driver: libcuda.so.1 could not be loaded."
    assert_line --partial "[ok]    nvcc V"
    refute_line --partial "[FIX]"
}

@test "the toolkit's stub driver: exit 77, names the stub, with no raw CUDA error" {
    local dir
    dir="$(stub_driver_dir)" || skip "no stub libcuda.so in the CUDA toolkit"
    LD_LIBRARY_PATH="$dir" run bash "$ROOT/tools/doctor"
    assert_equal "$status" 77
    assert_line "cannot run here: libcuda.so.1 is the CUDA toolkit's stub library (lib64/stubs), which only lets programs link; it cannot talk to a GPU."
    assert_line --partial "-> remove the stubs directory from LD_LIBRARY_PATH"
    refute_output --partial "(no name)"
}

@test "CUDA_VISIBLE_DEVICES set empty: exit 77, no visible device" {
    doctor_with_shim CUDA_VISIBLE_DEVICES=
    assert_equal "$status" 77
    assert_line "cannot run here: the driver is installed but no CUDA device is visible."
    assert_line --partial "CUDA_VISIBLE_DEVICES is set empty"
}

@test "an emulated GPU as expected: ready, exit 0, each fact on its line" {
    doctor_with_shim
    assert_success
    assert_line "  [ok]    driver (CUDA 13.0), toolkit CUDA 13.0: the driver runs this toolkit's programs"
    assert_line "  GPU 0: Emulated GPU (CUDA shim over the stub driver) (compute capability 9.0, PCI 00ff:00:00.0)"
    assert_line "  [ok]    the build's ARCH has machine code (sm_90) for it"
    assert_line "  [ok]    compute mode Default: several processes may use the GPU at once"
    assert_line "  [ok]    3 asynchronous engines: copies in both directions can run at once, beside kernels"
    assert_line --regexp '^ready: make run'
}

@test "exclusive-process mode and one copy engine: notes that say what the lessons cannot show" {
    doctor_with_shim CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_ASYNC_ENGINES=1
    assert_success
    assert_line --partial "[note]  compute mode Exclusive-process: one process at a time may use this GPU"
    assert_line --partial "[note]  1 asynchronous engine(s): copies to and from the GPU take turns"
}

@test "HMM (pageable memory access): the note says the attribute is about kernels, not copies" {
    doctor_with_shim CUDA_SHIM_PAGEABLE=1
    assert_output --partial "the GPU reads pageable host memory itself (HMM or ATS): its kernels may use malloc'd memory without cudaHostRegister (cudaDevAttrPageableMemoryAccess); that is about kernels, not copies"
    refute_output --partial "need not be staged"
}

@test "exclusive-process mode with the GPU held by another process, and prohibited mode: something to fix, exit 1" {
    need_shims
    local held="$BATS_TEST_TMPDIR/held" i
    CUDA_SHIM_COMPUTE_MODE=exclusive_process LD_LIBRARY_PATH="$SHIMS" "$SHIMS/lock_probe" driver --hold "$held" &
    for i in $(seq 100); do [ -e "$held" ] && break; sleep 0.05; done
    doctor_with_shim CUDA_SHIM_COMPUTE_MODE=exclusive_process
    rm -f "$held"
    wait
    assert_equal "$status" 1
    assert_line "  [FIX]   compute mode Exclusive-process, and another process holds the GPU: a program cannot make a context (CUresult 46)"
    assert_line "1 thing(s) to fix (the [FIX] lines above), then make doctor again"
    doctor_with_shim CUDA_SHIM_COMPUTE_MODE=prohibited
    assert_equal "$status" 1
    assert_line "  [FIX]   compute mode Prohibited: no program may use this GPU"
}

@test "a driver older than the toolkit's major version: something to fix, exit 1" {
    doctor_with_shim CUDA_SHIM_DRIVER_VERSION=12040
    assert_equal "$status" 1
    assert_line "  [FIX]   driver (CUDA 12.4) is older than the toolkit's major version (CUDA 13.0): programs built with it do not start (cudaErrorInsufficientDriver)"
}

@test "an ARCH without code for the GPU: the build's ARCH is named, with the make line that fixes it" {
    doctor_with_shim ARCH=100
    assert_equal "$status" 1
    assert_line "  [FIX]   the build's ARCH (100) has nothing sm_90 can run"
    assert_line "          -> make clean; make ARCH=90"
}

@test "GPU: make doctor on this machine" {
    require_gpu
    run make -s --no-print-directory -C "$ROOT" doctor
    [ "$status" = 0 ] || [ "$status" = 1 ] || fail "exit $status: $output"
    assert_line --regexp '^  GPU 0: .* \(compute capability [0-9]+\.[0-9], PCI [0-9a-f:.]+\)$'
    assert_line --regexp '^  \[ok\]    driver [0-9.]+ \(CUDA [0-9.]+\), toolkit CUDA [0-9.]+: the driver runs this toolkit.s programs and compiled its PTX'
    assert_line --regexp '^  \[(ok|note)\] +PCIe Gen[0-9] x[0-9]+'
}

@test "with NVML (made up): other processes, a container's hidden list, MIG, a link below its maximum" {
    need_shims
    doctor_with_shim LD_LIBRARY_PATH="$SHIMS:$SHIMS/fake-nvml" NVML_SHIM_PROCESSES=self,4242 NVML_SHIM_LINK="4 16 5 16"
    assert_success
    assert_line "  [ok]    driver 580.00.00 (CUDA 13.0), toolkit CUDA 13.0: the driver runs this toolkit's programs"
    assert_line --partial "[note]  1 other process(es) on this GPU now: while they run, the lessons' timing claims are not judged"
    assert_line "  [note]  PCIe Gen4 x16 now (31.5 GB/s each way in theory), Gen5 x16 (63.0 GB/s) at most: an idle link slows down to save power and speeds up under load (lesson 03 reads it right after a copy)"
    doctor_with_shim LD_LIBRARY_PATH="$SHIMS:$SHIMS/fake-nvml" NVML_SHIM_PROCESSES= NVML_SHIM_MIG=1
    assert_success
    assert_line --partial "[note]  NVML cannot list the processes on this GPU (it does not show this program either: a container's PID namespace hides them)"
    assert_line --partial "[note]  a MIG instance: a slice of the GPU"
    assert_line "  [ok]    PCIe Gen5 x16 (63.0 GB/s each way in theory), its maximum"
}

@test "with NVML (made up) listing this program in a PID namespace of its own: other containers unseen, said as a note" {
    need_shims
    unshare -fp --mount-proc true 2>/dev/null || skip "no PID namespace here (needs root and unshare)"
    doctor_with_shim LD_LIBRARY_PATH="$SHIMS:$SHIMS/fake-nvml" NVML_SHIM_PROCESSES=self unshare -fp --mount-proc
    assert_success
    assert_line --partial "[note]  this program runs in a PID namespace of its own (a container): NVML lists at most the processes inside it"
    refute_line --partial "no other process on this GPU"
}

@test "exit codes: tools/doctor 0, 1 or 77 itself; make doctor 0 when ready, else make's 2 with a line giving the doctor's own code" {
    need_shims
    local shim=(env LD_LIBRARY_PATH="$SHIMS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ARCH=90)
    [ -x "$ROOT/tools/doctor" ] || fail "tools/doctor is not executable"
    run "${shim[@]}" "$ROOT/tools/doctor"
    assert_success
    run "${shim[@]}" make -s -C "$ROOT" doctor
    assert_success
    refute_output --partial "exited"
    run "${shim[@]}" CUDA_VISIBLE_DEVICES= "$ROOT/tools/doctor"
    assert_equal "$status" 77
    run "${shim[@]}" CUDA_VISIBLE_DEVICES= make -s -C "$ROOT" doctor
    assert_equal "$status" 2
    assert_line "make doctor: tools/doctor exited 77 (make itself exits 2 for any failure: a script that needs 0, 1 or 77 runs tools/doctor directly)"
    run "${shim[@]}" CUDA_SHIM_COMPUTE_MODE=prohibited "$ROOT/tools/doctor"
    assert_equal "$status" 1
    run "${shim[@]}" CUDA_SHIM_COMPUTE_MODE=prohibited make -s -C "$ROOT" doctor
    assert_equal "$status" 2
    assert_line --partial "make doctor: tools/doctor exited 1 ("
}

# ---- the process's limits and CUDA's environment variables ----------------------------------

# doctor_limited "OPTION VALUE[, ...]" [VAR=value ...]: doctor_with_shim under those ulimits.
doctor_limited() {
    local set="ulimit ${1//, / \&\& ulimit }"
    shift
    need_shims
    run env $(env | sed -n 's/^\(CUDA_SHIM_[A-Z_]*\)=.*/-u \1/p') \
        LD_LIBRARY_PATH="$SHIMS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ARCH=90 "$@" \
        bash -c "$set && exec bash \"\$0\"" "$ROOT/tools/doctor"
}

@test "process limits: each of the four reported with its minimum; a low one is something to fix, exit 1" {
    doctor_limited "-n 4096, -l 64, -v unlimited"
    assert_success
    assert_line "Process limits (ulimit; the lessons need at least the figure named)"
    assert_line "  [ok]    open files (ulimit -n): 4096 (at least 1024)"
    assert_line "  [ok]    locked memory (ulimit -l): 64 KiB (at least 64 KiB)"
    assert_line "  [ok]    address space (ulimit -v): unlimited"
    assert_line --regexp '^  \[ok\]    processes and threads of this user \(ulimit -u\): '
    doctor_limited "-n 32"
    assert_failure 1
    assert_line "  [FIX]   open files (ulimit -n): 32; the lessons need at least 1024: the driver opens device files for each GPU it uses; under 32, lessons 02 and 05 stopped with CUDA_ERROR_OPERATING_SYSTEM"
    assert_line "          -> ulimit -n 1024 before make run (or ask the administrator to raise the hard limit)"
    doctor_limited "-l 16"
    assert_failure 1
    assert_line --partial "[FIX]   locked memory (ulimit -l): 16 KiB; the lessons need at least 64 KiB"
    doctor_limited "-v 8000000"
    assert_failure 1
    assert_line --partial "[FIX]   address space (ulimit -v): 8000000 KiB; the lessons need no limit"
    assert_line "          -> ulimit -v unlimited before make run (or ask the administrator to raise the hard limit)"
    if [ "$(id -u)" = 0 ]; then
        doctor_limited "-u 100"
        assert_line "  [ok]    processes and threads of this user (ulimit -u): 100, which root is not held to (at least 1024 needed)"
    else
        doctor_limited "-u 100"
        assert_failure 1
        assert_line --partial "[FIX]   processes and threads of this user (ulimit -u): 100; the lessons need at least 1024"
    fi
}

# doctor_with_vars VAR=value ...: doctor_with_shim with none of CUDA's variables from outside
# but those given.
doctor_with_vars() {
    local unset=() v
    for v in $(sed -n 's/^    "\(CUDA_[A-Z0-9_]*\)|.*/\1/p' "$ROOT/tools/doctor"); do unset+=(-u "$v"); done
    need_shims
    run env "${unset[@]}" $(env | sed -n 's/^\(CUDA_SHIM_[A-Z_]*\)=.*/-u \1/p') \
        LD_LIBRARY_PATH="$SHIMS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ARCH=90 "$@" \
        bash "$ROOT/tools/doctor"
}

@test "CUDA's environment variables: none set says so; the table's every variable has its line" {
    doctor_with_vars
    assert_success
    assert_line "CUDA's environment variables: none set (the lessons run with CUDA's defaults)"
    # every variable of the table, set, gets one note naming it and its value
    local vars=() v
    for v in $(sed -n 's/^    "\(CUDA_[A-Z0-9_]*\)|.*/\1/p' "$ROOT/tools/doctor"); do
        [ "$v" = CUDA_VISIBLE_DEVICES ] || vars+=("$v=x$v")
    done
    [ "${#vars[@]}" -ge 35 ] || fail "only ${#vars[@]} variables in tools/doctor's table"
    doctor_with_vars "${vars[@]}"
    for v in "${vars[@]}"; do
        assert_line --regexp "^  \\[note\\]  ${v}: [A-Za-z(]"
    done
}

@test "CUDA's environment variables, device enumeration: CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER" {
    doctor_with_vars CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
    assert_success
    assert_line "CUDA's environment variables set here (the CUDA Programming Guide lists them)"
    assert_line --partial "[note]  CUDA_VISIBLE_DEVICES=0: the lessons see only the GPUs it lists"
    assert_line --partial "[note]  CUDA_DEVICE_ORDER=PCI_BUS_ID: the order of the GPUs"
}

@test "CUDA's environment variables, JIT: forcing and disabling the PTX JIT, the cache" {
    doctor_with_vars CUDA_FORCE_PTX_JIT=1 CUDA_DISABLE_JIT=1 CUDA_CACHE_DISABLE=1
    assert_line --partial "[note]  CUDA_FORCE_PTX_JIT=1: when 1, the driver ignores the programs' machine code (SASS)"
    assert_line --partial "[note]  CUDA_DISABLE_JIT=1: when 1, as CUDA_DISABLE_PTX_JIT"
    assert_line --partial "[note]  CUDA_CACHE_DISABLE=1: when 1, the driver's JIT cache is off"
}

@test "CUDA's environment variables, execution and module loading: launch blocking, connections, EAGER" {
    doctor_with_vars CUDA_LAUNCH_BLOCKING=1 CUDA_DEVICE_MAX_CONNECTIONS=2 CUDA_MODULE_LOADING=EAGER
    assert_line --partial "[note]  CUDA_LAUNCH_BLOCKING=1: when 1, each kernel launch returns only when its kernel is done"
    assert_line --partial "[note]  CUDA_DEVICE_MAX_CONNECTIONS=2: the hardware work queues per context"
    assert_line --partial "[note]  CUDA_MODULE_LOADING=EAGER: EAGER loads every kernel"
}

@test "CUDA's environment variables, error log, core dumps and MPS" {
    doctor_with_vars CUDA_LOG_FILE=stderr CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_MPS_PIPE_DIRECTORY=/nonexistent
    assert_line --partial "[note]  CUDA_LOG_FILE=stderr: the driver writes a descriptive line there for each failing call"
    assert_line --partial "[note]  CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1: when 1, a GPU exception writes a GPU core dump"
    assert_line --partial "[note]  CUDA_MPS_PIPE_DIRECTORY=/nonexistent: where an MPS control daemon listens"
}

@test "a bats older than 1.7 (Ubuntu 22.04's 1.2.1): a note that says so and that make test and make check stage one; a staged copy is named" {
    local old="$BATS_TEST_TMPDIR/old"
    mkdir -p "$old" "$BATS_TEST_TMPDIR/home"
    printf '#!/bin/sh\necho "Bats 1.2.1"\n' >"$old/bats" && chmod +x "$old/bats"
    # the system's bats (first on PATH, as make doctor finds it: BATS=bats) and the default
    # BATS_LIB_PATH, as a student's machine has (a maintainer's may name other libraries)
    HOME="$BATS_TEST_TMPDIR/home" XDG_CACHE_HOME='' CUDA_LESSONS_BATS_DIR='' BATS='' BATS_LIB_PATH='' PATH="$old:$PATH" run_without_driver bash "$ROOT/tools/doctor"
    assert_output --partial "bats-core 1.7 or newer with bats-support and bats-assert: $old/bats is Bats 1.2.1, older than 1.7"
    assert_output --partial "tests/stage-bats clones the releases with git"
    # a copy staged before (its bin/bats and its libraries) is the one named
    local s="$BATS_TEST_TMPDIR/staged"
    mkdir -p "$s/bin" "$s/lib/bats-assert" "$s/lib/bats-support"
    printf '#!/bin/sh\necho "Bats 1.11.1"\n' >"$s/bin/bats" && chmod +x "$s/bin/bats"
    : >"$s/lib/bats-assert/load.bash" && : >"$s/lib/bats-support/load.bash"
    CUDA_LESSONS_BATS_DIR="$s" BATS='' BATS_LIB_PATH='' PATH="$old:$PATH" run_without_driver bash "$ROOT/tools/doctor"
    assert_output --partial "bats: the copy tests/stage-bats staged in $s (Bats 1.11.1), which make test and make check use here"
}
