#!/usr/bin/env bats
# tests/shims/: the forwarding driver (cuda_shim.c) and the huge-page preload (hugepage.c),
# without a GPU: the shim forwards to the CUDA toolkit's stub here (also on a GPU machine), so
# the emulated device, the overrides and the exclusive-process lock are what is checked. The
# last tests, on a GPU, put the real driver behind it.

load test_helper

setup_file() {
    export STUB_SHIMS="$BATS_FILE_TMPDIR/stub-shims"
    stub_shims "$STUB_SHIMS" >/dev/null 2>&1 || true   # (tests/run's build where there is one)
    export PLATFORM_PROBE="$BATS_FILE_TMPDIR/platform_probe"
    build_common_probe "$ROOT/tests/common/platform_probe.c" "$PLATFORM_PROBE"
}

setup() {
    [ -f "$STUB_SHIMS/libcuda.so.1" ] || {
        [ -f "$STUB_SHIMS.log" ] || skip "no stub libcuda.so in the CUDA toolkit"
        fail "tests/shims did not build: $(cat "$STUB_SHIMS.log")"
    }
    [ -x "$PLATFORM_PROBE" ] || fail "the probe did not build: $(cat "$PLATFORM_PROBE.log")"
    export TMPDIR="$BATS_TEST_TMPDIR" # the exclusive-mode lock files stay this test's
}

# stub_shim CMD...: `run` CMD with the shim (over the stub) first on LD_LIBRARY_PATH and no
# CUDA_SHIM_ variable from outside.
stub_shim() {
    run env $(env | sed -n 's/^\(CUDA_SHIM_[A-Z_]*\)=.*/-u \1/p') \
        LD_LIBRARY_PATH="$STUB_SHIMS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}

@test "every function the stub exports is forwarded or defined by the shim" {
    local stub
    stub="$(stub_driver_dir)/libcuda.so.1"
    run bash -c 'comm -3 <(nm -D --defined-only "$1" | awk "\$2==\"T\"{print \$3}" | sort -u) \
                          <(nm -D --defined-only "$2" | awk "\$2==\"T\"{print \$3}" | sort -u)' \
        sh "$stub" "$STUB_SHIMS/libcuda.so.1"
    assert_output ""
    [ "$(wc -l <"$STUB_SHIMS/forwarded.txt")" -gt 300 ] || fail "only $(wc -l <"$STUB_SHIMS/forwarded.txt") functions forwarded"
}

@test "under tests/run the shims over the stub are built once for the run, and each file links to them" {
    [ -n "${CUDA_LESSONS_STUB_SHIMS:-}" ] || skip "not run by tests/run (make test): each file builds its own"
    assert_equal "$(readlink "$STUB_SHIMS")" "$CUDA_LESSONS_STUB_SHIMS"
    assert_equal "$(cat "$CUDA_LESSONS_STUB_SHIMS.driver")" "$(readlink -f "$(stub_driver_dir)/libcuda.so.1")"
    # a driver other than the stub gets a build of its own
    test_shims "$BATS_TEST_TMPDIR/other" "$STUB_SHIMS/libcuda.so.1"
    [ ! -L "$BATS_TEST_TMPDIR/other" ] && [ -x "$BATS_TEST_TMPDIR/other/copy_loop" ]
}

@test "over the stub, the shim emulates one device that platform_read can read, with the defaults" {
    stub_shim "$PLATFORM_PROBE" facts
    assert_success
    assert_line "name=Emulated GPU (CUDA shim over the stub driver)"
    assert_line "cc=9.0"
    assert_line "driver_version=13000"
    assert_line "compute_mode=0"
    assert_line "async_engines=3"
    assert_line "pageable_access=0"
    assert_line "   compute mode Default: any number of processes may use the GPU at once"
}

@test "the overrides reach platform_read: exclusive mode, one engine, an older driver, HMM, MIG" {
    stub_shim CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_ASYNC_ENGINES=1 \
        CUDA_SHIM_DRIVER_VERSION=12040 CUDA_SHIM_PAGEABLE=1 CUDA_SHIM_HOST_PAGE_TABLES=1 \
        CUDA_SHIM_INTEGRATED=1 "$PLATFORM_PROBE" facts
    assert_success
    assert_line "compute_mode=3"
    assert_line "async_engines=1"
    assert_line "driver_version=12040"
    assert_line "can_jit=0"
    assert_line "pageable_access=1"
    assert_line "host_page_tables=1"
    assert_line "integrated=1"
    assert_line "   compute mode Exclusive-process: one process at a time may hold a context on this GPU; a second one is refused"
    assert_line "   1 asynchronous engine: a copy can run beside kernels, but copies to and from the GPU take turns"
    assert_line --partial "this program was built with CUDA 13.0: the driver is older than the toolkit, so it runs the program's machine code (SASS) but cannot compile (JIT) its PTX"
    assert_line --partial "the GPU reads pageable host memory itself (through the host's page tables)"
    stub_shim CUDA_SHIM_MIG=1g.10gb CUDA_SHIM_COMPUTE_MODE=prohibited "$PLATFORM_PROBE" facts
    assert_line "name=Emulated GPU (CUDA shim over the stub driver) MIG 1g.10gb"
    assert_line "mig=1"
    assert_line "async_engines=1"
    assert_line "compute_mode=2"
}

@test "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM 1 and 0: platform_read reads it, and the words lesson 03's step 1 prints say which address registered memory has" {
    stub_shim "$PLATFORM_PROBE" facts
    assert_success
    assert_line "registered_ptr=1"
    assert_line "   registered and write-combined memory: every visible device reaches it at its host pointer"
    assert_line "   (cudaDevAttrCanUseHostPointerForRegisteredMem 1), so cudaHostGetDevicePointer gives that pointer"
    stub_shim CUDA_SHIM_HOST_POINTER_REGISTERED=1 "$PLATFORM_PROBE" facts
    assert_line "registered_ptr=1"
    stub_shim CUDA_SHIM_HOST_POINTER_REGISTERED=0 "$PLATFORM_PROBE" facts
    assert_success
    assert_line "registered_ptr=0"
    assert_line "   registered and write-combined memory: a visible device cannot reach it at its host pointer"
    assert_line "   (cudaDevAttrCanUseHostPointerForRegisteredMem 0), so cudaHostGetDevicePointer gives a device address"
    refute_line --partial "every visible device reaches it at its host pointer"
}

@test "HMM (pageable memory access without the host's page tables): the words say what the attribute is about, kernels, not copies" {
    stub_shim CUDA_SHIM_PAGEABLE=1 "$PLATFORM_PROBE" facts
    assert_success
    assert_line "   the GPU reads pageable host memory itself (HMM): its kernels may use malloc'd memory"
    assert_line "   without cudaHostRegister (cudaDevAttrPageableMemoryAccess); that says nothing of copies"
    refute_output --partial "need not be staged"
}

@test "exclusive-process mode: a second process's context is refused while the first holds one" {
    local held="$BATS_TEST_TMPDIR/held"
    stub_shim CUDA_SHIM_COMPUTE_MODE=exclusive_process sh -c '
        "$1/lock_probe" driver --hold "$2" & pid=$!
        for i in $(seq 100); do [ -e "$2" ] && break; sleep 0.05; done
        "$1/lock_probe" driver; echo "second: $?"
        rm -f "$2"; wait $pid; echo "first: $?"
        "$1/lock_probe" driver; echo "after: $?"' sh "$STUB_SHIMS" "$held"
    assert_equal "${lines[0]}" "CUresult (0)"
    assert_equal "${lines[1]}" "CUresult (46)"   # CUDA_ERROR_DEVICE_UNAVAILABLE
    assert_equal "${lines[2]}" "second: 1"
    assert_equal "${lines[3]}" "first: 0"
    assert_equal "${lines[4]}" "CUresult (0)"    # released when the first one ended
    # in the default mode both get one; prohibited refuses every context
    stub_shim sh -c '"$1/lock_probe" driver --hold "$2" & for i in $(seq 100); do [ -e "$2" ] && break; sleep 0.05; done
        "$1/lock_probe" driver; rm -f "$2"; wait' sh "$STUB_SHIMS" "$held"
    assert_output "$(printf 'CUresult (0)\nCUresult (0)')"
    stub_shim CUDA_SHIM_COMPUTE_MODE=prohibited "$STUB_SHIMS/lock_probe" driver
    assert_output "CUresult (46)"
}

@test "cuGetProcAddress gives the shim's own function, the address dlsym gives, as the driver does" {
    stub_shim "$STUB_SHIMS/lock_probe" entry cuDeviceGetAttribute
    assert_output "same"
    stub_shim "$STUB_SHIMS/lock_probe" entry cuGetProcAddress
    assert_output "differs" # version 12000 of cuGetProcAddress is cuGetProcAddress_v2
    stub_shim "$STUB_SHIMS/lock_probe" entry cuGetProcAddress_v2
    assert_output "CUresult (34)" # not a base name: the stub's answer stands
}

@test "over the stub the runtime still stops with cudaErrorStubLibrary (a lesson: exit 77)" {
    stub_shim "$STUB_SHIMS/lock_probe" runtime
    assert_output "cudaErrorStubLibrary (34)"
    assert_failure
    # a shim that cannot find what to forward to says so, and nothing succeeds
    stub_shim CUDA_SHIM_REAL=/nonexistent/libcuda.so.1 "$PLATFORM_PROBE" facts
    assert_failure
    assert_output --partial "cuda-shim: cannot open the real driver library /nonexistent/libcuda.so.1"
}

# burst_driver DIR: DIR/libreal.so, a made-up driver behind the shim whose cuEventElapsedTime
# (and _v2) answer 2 ms, and DIR/elapsed, which calls the shim's cuEventElapsedTime once per
# argument (v1, v2, or proc: the runtime's way, through cuGetProcAddress at 12080) and prints each.
burst_driver() {
    cat >"$1/real.c" <<'EOF'
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 2.0f; return 0; }
int cuEventElapsedTime_v2(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 2.0f; return 0; }
int cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, int *st)
{ (void)s; (void)v; (void)f; *p = (void *)cuEventElapsedTime_v2; if (st) *st = 0; return 0; }
EOF
    cat >"$1/elapsed.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
typedef int (*elapsed_fn)(float *, void *, void *);
typedef int (*proc_fn)(const char *, void **, int, unsigned long long, int *);
int main(int argc, char **argv)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { printf("dlopen: %s\n", dlerror()); return 1; }
    for (int i = 1; i < argc; i++) {
        elapsed_fn f = (elapsed_fn)dlsym(lib, strcmp(argv[i], "v2") ? "cuEventElapsedTime" : "cuEventElapsedTime_v2");
        if (!strcmp(argv[i], "proc")) {
            proc_fn get = (proc_fn)dlsym(lib, "cuGetProcAddress_v2");
            int st = -1;
            int rc = get("cuEventElapsedTime", (void **)&f, 12080, 0, &st);
            if (rc) { printf("cuGetProcAddress %d\n", rc); return 1; }
        }
        float ms = 0;
        int rc = f(&ms, 0, 0);
        printf("%d %s %g\n", i, rc ? "error" : "ok", ms);
    }
    return 0;
}
EOF
    cc -shared -fPIC -o "$1/libreal.so" "$1/real.c" && cc -o "$1/elapsed" "$1/elapsed.c" -ldl
}

@test "CUDA_SHIM_BURST=FROM:COUNT:FACTOR: the FROM-th to (FROM+COUNT-1)-th cuEventElapsedTime calls scaled" {
    local d="$BATS_TEST_TMPDIR"
    burst_driver "$d" || fail "the made-up driver did not build"
    # without the variable every call answers the driver's 2 ms
    stub_shim CUDA_SHIM_REAL="$d/libreal.so" "$d/elapsed" v1 v2 proc
    assert_success
    assert_output "$(printf '1 ok 2\n2 ok 2\n3 ok 2')"
    # calls 2 and 3 of six, 4 times slower: both versions and cuGetProcAddress's count together
    stub_shim CUDA_SHIM_REAL="$d/libreal.so" CUDA_SHIM_BURST=2:2:4 "$d/elapsed" v1 v2 proc v1 v2 proc
    assert_success
    assert_output "$(printf '1 ok 2\n2 ok 8\n3 ok 8\n4 ok 2\n5 ok 2\n6 ok 2')"
    stub_shim CUDA_SHIM_REAL="$d/libreal.so" CUDA_SHIM_BURST=1:1:0.25 CUDA_SHIM_TRACE=1 "$d/elapsed" v2 v2
    assert_line "1 ok 0.5"
    assert_line "2 ok 2"
    assert_line "cuda-shim: cuEventElapsedTime_v2 call 1: 2 ms -> 0.5 ms (CUDA_SHIM_BURST)"
    # COUNT 0: no call changed
    stub_shim CUDA_SHIM_REAL="$d/libreal.so" CUDA_SHIM_BURST=1:0:9 "$d/elapsed" v1
    assert_output "1 ok 2"
    # behind the stub the call fails as before, unscaled
    stub_shim CUDA_SHIM_BURST=1:5:3 "$d/elapsed" v1
    assert_output "1 error 0"
}

@test "CUDA_SHIM_BURST with a bad value: one line naming it, exit 2, no call made" {
    local d="$BATS_TEST_TMPDIR" bad
    burst_driver "$d" || fail "the made-up driver did not build"
    for bad in 0:1:2 1:1:0 1:1:-3 x 1:1 1:1:2x :1:2 1::2 1:-1:2 2.5:1:2 1:1:nan; do
        stub_shim CUDA_SHIM_REAL="$d/libreal.so" CUDA_SHIM_BURST="$bad" "$d/elapsed" v1
        assert_failure 2
        assert_output "cuda-shim: CUDA_SHIM_BURST=$bad: expected FROM:COUNT:FACTOR (whole numbers FROM >= 1, COUNT >= 0, a number FACTOR > 0), e.g. 3:2:4"
    done
}

@test "the huge-page preload advises large host allocations MADV_HUGEPAGE, not small ones" {
    cat >"$BATS_TEST_TMPDIR/alloc.c" <<'EOF'
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
/* prints "hg" or "-" for the mapping that holds p (/proc/self/smaps' VmFlags) */
static void flags(const char *what, void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    uintptr_t a = (uintptr_t)p, lo, hi;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a >= lo && a < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            printf("%s %s\n", what, strstr(line, " hg") ? "hg" : "-");
    }
    fclose(f);
}
int main(void)
{
    char *big = malloc(64 << 20), *small = malloc(4096);
    char *al = aligned_alloc(1 << 21, 8 << 20);
    big[0] = small[0] = al[0] = 1;
    flags("malloc 64 MiB", big + (32 << 20));
    flags("malloc 4 KiB", small);
    flags("aligned_alloc 8 MiB", al + (4 << 20));
    free(big); free(small); free(al);
    return 0;
}
EOF
    cc -O0 -o "$BATS_TEST_TMPDIR/alloc" "$BATS_TEST_TMPDIR/alloc.c"
    run "$BATS_TEST_TMPDIR/alloc"
    assert_line "malloc 64 MiB -"
    LD_PRELOAD="$STUB_SHIMS/libhugepage.so" CUDA_SHIM_HUGEPAGE_TRACE=1 run "$BATS_TEST_TMPDIR/alloc"
    assert_success
    assert_line "malloc 64 MiB hg"
    assert_line "malloc 4 KiB -"
    assert_line "aligned_alloc 8 MiB hg"
    assert_line --regexp '^hugepage: advised [0-9]+ bytes$'
}

# ---- with the real driver behind the shim (GPU) ---------------------------------------------

@test "GPU: behind the shim the real driver answers, and the runtime sees the emulated compute mode" {
    require_gpu
    local dir="$BATS_FILE_TMPDIR/real-shims"
    bash "$ROOT/tests/shims/build" "$dir" >"$dir.log" 2>&1 || fail "$(cat "$dir.log")"
    run env LD_LIBRARY_PATH="$dir" CUDA_SHIM_COMPUTE_MODE=exclusive_process "$PLATFORM_PROBE" facts
    assert_success
    assert_line "compute_mode=3"
    refute_line --partial "Emulated GPU"
    # a second process's runtime context is refused while the first holds one
    local held="$BATS_TEST_TMPDIR/held"
    run env LD_LIBRARY_PATH="$dir" CUDA_SHIM_COMPUTE_MODE=exclusive_process sh -c '
        "$1/lock_probe" runtime --hold "$2" & pid=$!
        for i in $(seq 200); do [ -e "$2" ] && break; sleep 0.05; done
        "$1/lock_probe" runtime; rm -f "$2"; wait $pid' sh "$dir" "$held"
    assert_equal "${lines[0]}" "cudaSuccess (0)"
    assert_equal "${lines[1]}" "cudaErrorDevicesUnavailable (46)"
    # the driver's own functions: cuGetProcAddress and dlsym agree behind the shim too
    run env LD_LIBRARY_PATH="$dir" "$dir/lock_probe" entry cuLaunchKernel
    assert_output "same"
}

# ---- common/gpu_shared.c over the emulated device, with a made-up NVML (fake-nvml/) ----------

# nvml_shim CMD...: stub_shim with the made-up NVML too.
nvml_shim() {
    stub_shim LD_LIBRARY_PATH="$STUB_SHIMS:$STUB_SHIMS/fake-nvml" "$@"
}

@test "gpu_shared: NVML's list shows this program alone, or with another one (company)" {
    nvml_shim NVML_SHIM_PROCESSES=self "$PLATFORM_PROBE" driver-shared 0.2
    assert_output "$(printf 'alone\nsees')"
    nvml_shim NVML_SHIM_PROCESSES=self,4242 "$PLATFORM_PROBE" driver-shared 0.2
    assert_line "shared: NVML listed 2 processes on this GPU during the run: another program shares it, and timings taken seconds apart are not comparable"
}

@test "gpu_shared: a list that does not show this program is blind: cannot tell, or company from PCIe traffic" {
    nvml_shim NVML_SHIM_PROCESSES= "$PLATFORM_PROBE" driver-shared 0.2
    assert_line "alone"
    assert_line "blind: cannot tell whether another program shares this GPU: NVML cannot see processes outside this container's PID namespace; its PCIe traffic showed none"
    nvml_shim NVML_SHIM_PROCESSES= NVML_SHIM_PCIE_MBPS=20000 "$PLATFORM_PROBE" driver-shared 0.2
    assert_line "shared: NVML cannot list processes outside this container's PID namespace, but the PCIe link carried 20.0 GB/s while this program copied nothing: another program shares this GPU, and timings taken seconds apart are not comparable"
    assert_line "sees" # gpu_shared_blind is quiet once company was seen
    # traffic under 1 GB/s is not company
    nvml_shim NVML_SHIM_PROCESSES= NVML_SHIM_PCIE_MBPS=500 "$PLATFORM_PROBE" driver-shared 0.2
    assert_line "alone"
}

@test "gpu_shared: in a PID namespace, memory in use before the program started is company" {
    local why
    why="$(unshare -fp --mount-proc true 2>&1)" || skip "cannot make a PID namespace here: $why"
    nvml_shim NVML_SHIM_PROCESSES= NVML_SHIM_USED_MIB=600 unshare -fp --mount-proc "$PLATFORM_PROBE" driver-shared 0.2
    assert_line "shared: NVML cannot list processes outside this container's PID namespace, but 600 MiB of the GPU's memory were in use before this program started: another program shares this GPU, and timings taken seconds apart are not comparable"
    nvml_shim NVML_SHIM_PROCESSES= NVML_SHIM_USED_MIB=20 unshare -fp --mount-proc "$PLATFORM_PROBE" driver-shared 0.2
    assert_line "alone"
    assert_line "blind: cannot tell whether another program shares this GPU: NVML cannot see processes outside this container's PID namespace; neither the GPU's memory in use at the start nor its PCIe traffic showed one"
    # outside a PID namespace the start is not read: the list decides
    nvml_shim NVML_SHIM_PROCESSES=self NVML_SHIM_USED_MIB=600 "$PLATFORM_PROBE" driver-shared 0.2
    assert_output "$(printf 'alone\nsees')"
}

@test "platform_read with NVML: the driver's release, MIG, a link below its maximum, free memory, other processes" {
    nvml_shim NVML_SHIM_PROCESSES=4242 NVML_SHIM_MIG=1 NVML_SHIM_LINK="3 8 5 16" NVML_SHIM_USED_MIB=2048 \
        NVML_SHIM_DRIVER=580.12.34 "$PLATFORM_PROBE" facts
    assert_success
    assert_line "mig=1"
    assert_line "link=3 8"
    assert_line "link_max=5 16"
    assert_line "others=1"
    assert_line "mem_free=$(((81559 - 2048) * 1048576))"
    assert_line "   driver 580.12.34 (CUDA 13.0); this program was built with CUDA 13.0"
    assert_line "   PCIe link: Gen3 x8 now (7.9 GB/s each way in theory), Gen5 x16 at most (an idle link may slow down to save power and speed up under load)"
    assert_line "   MIG: on: the GPU is split into instances, and this program gets a slice of it"
    assert_line "   processes: NVML lists 1 other process on this GPU"
}
