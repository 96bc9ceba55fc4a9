#!/usr/bin/env bats
# 01_hello_runtime: the lazy primary context and the check macros.

load test_helper

setup() {
    lesson_bin -v BIN 01_hello_runtime
    [ -x "$BIN" ] || fail "$BIN is not built: run make first"
}

# ---- on the GPU -------------------------------------------------------------------------
# Every GPU test here is tagged shared (tests/run runs them beside the other files' shared
# tests): lesson 01 judges nothing another program on the GPU could make untrue; its two timings
# (a first cudaSetDevice of more than 5 ms, a launch that returns before its kernel ends) only
# grow truer on a busy GPU.

# bats test_tags=gpu,shared
@test "GPU: the lesson passes every check (exit 0, verdict PASS)" {
    run_lesson
    assert_equal "$LESSON_STATUS" 0
    run tail -n 1 <<<"$LESSON_OUT"
    assert_output --regexp '^RESULT: PASS - all [0-9]+ checks passed$'
    run grep -c -F '[FAIL]' <<<"$LESSON_OUT"
    assert_output 0
}

# bats test_tags=gpu,shared
@test "GPU: the output matches tests/expected/01_hello_runtime.out after normalising" {
    require_gpu
    # a run without the two variables that change what steps 3, 5c and 6 print (the regimes
    # test those); CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER stay: they pick the GPU. Where
    # neither is set, the first test's run is that run (its stdout: what stderr adds, the check
    # macros' file:line lines, is taken out below anyway), else one of its own.
    # (nor those that step 0 names only when set: the JIT's, the fault handling's, the log's)
    local v unset=()
    for v in CUDA_LAUNCH_BLOCKING CUDA_MODULE_LOADING CUDA_FORCE_PTX_JIT CUDA_FORCE_JIT \
             CUDA_DISABLE_PTX_JIT CUDA_DISABLE_JIT CUDA_CACHE_DISABLE CUDA_CACHE_PATH \
             CUDA_CACHE_MAXSIZE CUDA_DEVICE_WAITS_ON_EXCEPTION CUDA_ENABLE_COREDUMP_ON_EXCEPTION \
             CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION CUDA_LOG_FILE CUDA_DEVICE_MAX_CONNECTIONS; do
        [ -z "${!v+set}" ] || unset+=(-u "$v")
    done
    if [ "${#unset[@]}" -eq 0 ]; then
        run_lesson
        assert_equal "$LESSON_STATUS" 0
        output="$LESSON_OUT"
    else
        run env "${unset[@]}" "$BIN"
        assert_success
    fi
    # the device count shows in two lines, the expected output says N there; the two
    # variables that stay show as set or not, and add a claim when set; the compute mode
    # (its lines, and what an EXCLUSIVE_PROCESS GPU adds at steps 5c and 8) is tested apart
    diff -u "$ROOT/tests/expected/01_hello_runtime.out" <(normalize <<<"$output" | sed -E \
        -e 's/cudaGetDeviceCount -> [0-9]+ device/cudaGetDeviceCount -> N device/' \
        -e 's/cudaSetDevice\([0-9]+\), one past/cudaSetDevice(N), one past/' \
        -e 's/^(   CUDA_VISIBLE_DEVICES|   CUDA_DEVICE_ORDER)=.*/\1=.../' \
        -e '/^  \[ok\]   CUDA_VISIBLE_DEVICES lists/d' \
        -e '/^   compute mode of device [0-9]+ /{N;s/.*/   compute mode of device N: MODE/}' \
        -e '/^      \(compute mode .*: this process gives back its context first/,+1d' \
        -e '/this process holds no context on device/d' -e '/started a new primary context for the steps/,+1d' -e '/after the child, the runtime started a new primary context/d' \
        -e 's/^RESULT: PASS - all [0-9]+ checks passed/RESULT: PASS - all N checks passed/' |
        grep -v -F 'cannot run here' | grep -v -E '^[a-z_./]+\.c:[0-9]+: ')
}

# bats test_tags=gpu,shared
@test "GPU: step 0 - the CUDA environment variables in effect are printed, each with what it changes" {
    run_lesson
    for v in CUDA_LAUNCH_BLOCKING CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER CUDA_MODULE_LOADING; do
        run grep -E "^   $v=[^ ]* +[a-z0-9]" <<<"$LESSON_OUT"
        assert_success
    done
}

# bats test_tags=gpu,shared
@test "GPU: claim 1 - before any CUDA call cuCtxGetCurrent returns CUDA_ERROR_NOT_INITIALIZED" {
    run_lesson
    assert_regex "$LESSON_OUT" 'cuCtxGetCurrent\(&ctx\) -> CUDA_ERROR_NOT_INITIALIZED \(3\)'
    assert_claim "the driver is not initialised before the first CUDA call"
}

# bats test_tags=gpu,shared
@test "GPU: claim 2 - cudaGetDeviceCount initialises the driver but creates no context" {
    assert_claim "cudaGetDeviceCount initialised the driver (cuCtxGetCurrent now succeeds)"
    assert_claim "no context is current yet"
    assert_claim "the primary context of device 0 is not active yet"
    assert_regex "$LESSON_OUT" 'cuCtxGetCurrent -> CUDA_SUCCESS, ctx = NULL'
}

# bats test_tags=gpu,shared
@test "GPU: step 2 - the device's compute mode, and how the child processes run on it" {
    run_lesson
    mode="$(nvidia-smi --query-gpu=compute_mode --format=csv,noheader -i 0 2>/dev/null || true)"
    case "$mode" in
        Default)
            assert_regex "$LESSON_OUT" 'compute mode of device 0 \(cuDeviceGetAttribute\): DEFAULT: any number of processes may use it at once: the child processes'
            refute_regex "$LESSON_OUT" 'this process holds no context' ;;
        Exclusive_Process)
            assert_regex "$LESSON_OUT" 'compute mode of device 0 \(cuDeviceGetAttribute\): EXCLUSIVE_PROCESS: this GPU lets one process at a time use it'
            assert_claim "this process holds no context on device 0 while its child process runs" ;;
        *) fail "nvidia-smi reports compute mode '$mode'" ;;
    esac
}

# bats test_tags=gpu,shared
@test "GPU: claim 2 - which first calls start the primary context, each in a fresh child process" {
    assert_claim "cudaRuntimeGetVersion initialised nothing, not even the driver"
    assert_claim "device property queries start no context (a widely copied explanation says they need one)"
    assert_claim "cudaMemGetInfo, cudaFree(0) and cudaSetDevice each started the primary context and made it current"
    assert_claim "cudaInitDevice (CUDA 12.0) started the primary context without making it current"
    # one row per call, none of them a failed child
    for call in cudaRuntimeGetVersion cudaDriverGetVersion cudaGetDeviceCount cudaGetDeviceProperties \
                cudaDeviceGetAttribute cudaMemGetInfo 'cudaFree\(0\)' cudaSetDevice cudaInitDevice; do
        run grep -E "^      $call +[0-9]+ +(yes|no) +(active|inactive) +(yes|no)$" <<<"$LESSON_OUT"
        assert_success
    done
    refute_regex "$LESSON_OUT" 'the child process failed'
}

# bats test_tags=gpu,shared
@test "GPU: claim 3 - cudaSetDevice makes the primary context current" {
    assert_claim "cudaSetDevice made a context current"
    assert_claim "it is the device's primary context, the one cuDevicePrimaryCtxRetain returns"
    assert_claim "the primary context is now active"
    # the two addresses printed are the same, and not NULL
    current="$(sed -n 's/^ *cuCtxGetCurrent *-> \(0x[0-9a-f]*\)$/\1/p' <<<"$LESSON_OUT")"
    retained="$(sed -n 's/^ *cuDevicePrimaryCtxRetain *-> \(0x[0-9a-f]*\)$/\1/p' <<<"$LESSON_OUT")"
    [ -n "$current" ] && [ "$current" = "$retained" ]
}

# bats test_tags=gpu,shared
@test "GPU: claim 3 - creating the context makes the first cudaSetDevice slow (more than 5 ms)" {
    run_lesson
    ms="$(sed -n 's/.*cudaSetDevice took \([0-9.]*\) ms.*/\1/p' <<<"$LESSON_OUT")"
    [ -n "$ms" ] || fail "no time printed"
    awk -v ms="$ms" 'BEGIN { exit !(ms > 5) }' || fail "cudaSetDevice took only $ms ms"
}

# bats test_tags=gpu,shared
@test "GPU: claim 3 - the module loading mode is the one CUDA_MODULE_LOADING asks for (lazy when unset)" {
    run_lesson
    assert_regex "$LESSON_OUT" 'cuModuleGetLoadingMode +-> (lazy|eager): '
    if [ -z "${CUDA_MODULE_LOADING+set}" ]; then
        assert_claim "CUDA_MODULE_LOADING is not set: loading is lazy, the default on Linux from CUDA 12.2 (12.3 on Windows)"
    fi
}

# bats test_tags=gpu,shared
@test "GPU: claim 4 - versions: the driver supports the runtime's major version; the context's API version" {
    assert_claim "the driver supports this runtime's major version (no cudaErrorInsufficientDriver)"
    assert_claim "cudaRuntimeGetVersion initialised nothing, not even the driver"
    assert_claim "cuCtxGetApiVersion(NULL) answers for the current context, the primary one"
    assert_regex "$LESSON_OUT" '\[ok\]   the context.s API version is not the driver.s CUDA version \([0-9]+\.[0-9]+\)'
    assert_regex "$LESSON_OUT" 'cuCtxGetApiVersion +-> [0-9]+ for the primary context, [0-9]+ for NULL'
    assert_regex "$LESSON_OUT" 'cudaRuntimeGetVersion +-> [0-9]+\.[0-9]+: the runtime linked into this program'
    assert_regex "$LESSON_OUT" 'cudaDriverGetVersion +-> [0-9]+\.[0-9]+: the newest CUDA version the driver'
}

# bats test_tags=gpu,shared
@test "GPU: claim 5a - an invalid call is reported with file, line, call, name, number and message" {
    run_lesson
    assert_regex "$LESSON_ERR" 'steps\.c:[0-9]+: cudaSetDevice\(invalid\) failed: cudaErrorInvalidDevice \(101\): invalid device ordinal'
    assert_claim "checkRuntime reported cudaErrorInvalidDevice with this file and line"
    assert_claim "the failed call left device 0 current"
}

# bats test_tags=gpu,shared
@test "GPU: claim 5b - a bad launch configuration is caught by cudaGetLastError at once" {
    assert_claim "cudaGetLastError caught the launch error at once, without synchronising"
    assert_claim "reading the error cleared it: a launch error is not sticky"
    assert_regex "$LESSON_OUT" 'cudaGetLastError\(\) -> cudaErrorInvalid(Value \(1\)|Configuration \(9\)): the launch never started'
}

# bats test_tags=gpu,shared
@test "GPU: claim 5c - a device fault shows only at synchronisation and is sticky" {
    assert_claim "the fault showed only at synchronisation, and the call made after it returned it too"
    assert_regex "$LESSON_OUT" 'cudaGetLastError\(\) right after the launch -> cudaSuccess'
    assert_regex "$LESSON_OUT" 'cudaDeviceSynchronize\(\) +-> cudaErrorLaunchFailure \(719\)'
}

# bats test_tags=gpu,shared
@test "GPU: claim 5c - with CUDA_LAUNCH_BLOCKING=1 the same fault shows at the launch itself" {
    assert_claim "with CUDA_LAUNCH_BLOCKING=1 the launch itself returned the fault, and both calls made after it returned it too"
    assert_regex "$LESSON_OUT" 'cudaGetLastError\(\) right after the launch -> cudaErrorLaunchFailure'
    # the two children, in this order
    run grep -c -F '[child] the launch returned after' <<<"$LESSON_OUT"
    assert_output 2
}

# bats test_tags=gpu,shared
@test "GPU: claim 6 - the kernel launched from C added one to every element" {
    assert_claim "every element came back one larger"
    assert_regex "$LESSON_OUT" 'on 1048576 floats: 0 wrong'
}

# bats test_tags=gpu,shared
@test "GPU: claim 6 - a launch returns before its kernel ends (or after it, with CUDA_LAUNCH_BLOCKING=1)" {
    run_lesson
    assert_regex "$LESSON_OUT" 'spin<<<1, 1>>>\(20 ms\): the launch returned after [0-9.]+ ms; cudaStreamQuery -> cuda'
    if [ "${CUDA_LAUNCH_BLOCKING:-0}" = 1 ]; then
        assert_claim "CUDA_LAUNCH_BLOCKING=1 is in effect: the launch returned only after its kernel had ended"
    elif [ -n "${CUDA_INJECTION64_PATH:-}" ]; then # under a tool: not judged, with the reason
        assert_regex "$LESSON_OUT" 'n/j\]  a launch returns before its kernel ends - not judged here: this run is under '
    else
        assert_claim "the launch returned before its kernel ended: launches are asynchronous"
    fi
}

# bats test_tags=gpu,shared
@test "GPU: claim 7 - a new thread has no context until its first runtime call" {
    assert_claim "a new thread starts with no current context"
    assert_claim "its first runtime call made the same primary context current there"
}

# bats test_tags=gpu,shared
@test "GPU: claim 8a - cudaInitDevice, and schedule flags recorded before the context is active" {
    assert_claim "cudaInitDevice activated the primary context without making it current"
    assert_claim "the context started with the schedule flag recorded before it was active"
    assert_regex "$LESSON_OUT" 'cuCtxGetFlags -> 0x[0-9a-f]+ \(SCHED_BLOCKING_SYNC\)'
}

# bats test_tags=gpu,shared
@test "GPU: claim 8b - schedule flags set while the context is active change the live context" {
    assert_claim "set while the context is active, each call changed the live context's schedule flag"
    assert_regex "$LESSON_OUT" 'cudaSetDeviceFlags\(cudaDeviceScheduleSpin\) +-> cuCtxGetFlags -> 0x[0-9a-f]+ \(SCHED_SPIN\)'
}

# bats test_tags=gpu,shared
@test "GPU: claim 8c - a library's retain and release beside the runtime's own reference" {
    assert_claim "after the library's balanced release the context stays active: the runtime holds its own reference"
    assert_claim "one release too many took the runtime's reference: the context and the application's buffer are gone"
    assert_claim "the runtime's next call silently started a new primary context"
}

# bats test_tags=gpu,shared
@test "GPU: claim 8d - cudaDeviceReset and cuDevicePrimaryCtxReset destroy the context under a library; only the first drops the runtime's reference" {
    assert_claim "cudaDeviceReset() destroyed the context and both buffers in it (cudaMalloc's and cuMemAlloc's), although a library held a reference"
    assert_claim "cuDevicePrimaryCtxReset(dev) destroyed the context and both buffers in it (cudaMalloc's and cuMemAlloc's), although a library held a reference"
    assert_claim "after cudaDeviceReset() the library's pointer and context handle dangle: its calls on them fail"
    assert_claim "after cuDevicePrimaryCtxReset(dev) the library's pointer and context handle dangle: its calls on them fail"
    assert_claim "cudaDeviceReset() also dropped the runtime's reference: only the library's was left"
    assert_claim "cuDevicePrimaryCtxReset(dev) released no reference: the library's and the runtime's were both left"
    assert_regex "$LESSON_OUT" 'cuPointerGetAttribute: application.s buffer CUDA_ERROR_INVALID_VALUE'
    # the references counted after each reset, in this order: one, then two
    run grep -E -o 'references left: cuDevicePrimaryCtxRelease succeeded [0-9]+ time\(s\), then returned [A-Z_]+' <<<"$LESSON_OUT"
    assert_output "$(printf '%s\n' \
        'references left: cuDevicePrimaryCtxRelease succeeded 1 time(s), then returned CUDA_ERROR_INVALID_CONTEXT' \
        'references left: cuDevicePrimaryCtxRelease succeeded 2 time(s), then returned CUDA_ERROR_INVALID_CONTEXT')"
}

# bats test_tags=gpu,shared
@test "GPU: every step's child process ran to its end (no failed child)" {
    run_lesson
    refute_regex "$LESSON_ERR" "child process(es)? exited"
    run grep -c -E '^   \[child\]' <<<"$LESSON_OUT"
    [ "$output" -ge 15 ]
}

# bats test_tags=gpu,shared
@test "GPU: --device past the last device is a usage error (exit 2)" {
    require_gpu
    run "$BIN" --device 99
    assert_equal "$status" 2
    assert_output --partial "--device 99 does not exist"
}

# bats test_tags=gpu,shared
@test "GPU: the exercises' reference solutions pass make check" {
    [ -d "$ROOT/01_hello_runtime/solutions" ] || skip "no solutions/ in this copy (a student's template)"
    require_gpu
    run make -s -C "$ROOT/01_hello_runtime" check SOLUTIONS=1
    assert_success
}

# bats test_tags=gpu,shared
@test "GPU: the untouched exercises fail make check, every one of them" {
    require_gpu
    run make -s -C "$ROOT/01_hello_runtime" check
    assert_failure
    assert_output --regexp 'not ok [0-9]+ first_context: make_context makes device 0.s primary context current'
    assert_output --regexp 'not ok [0-9]+ check_launch: a failed launch is reported with its cause'
    assert_output --regexp 'not ok [0-9]+ thread_context: the worker thread uses main.s context'
    # (the skeleton keeps the application's buffer: it loses on what it leaves behind)
    assert_output --regexp 'not ok [0-9]+ library_shutdown: the library frees its workspace and gives back its reference'
    for e in first_context check_launch thread_context library_shutdown; do
        assert_output --regexp "01_hello_runtime +$e +0/10 +failed"
    done
}

# bats test_tags=gpu,shared
@test "GPU: the demo (build/demo): no context before the first runtime call, the primary context after it, the kernel's result verified" {
    require_gpu
    run "$ROOT/01_hello_runtime/build/demo"
    assert_success
    assert_line "before any CUDA call:     cuCtxGetCurrent -> CUDA_ERROR_NOT_INITIALIZED"
    assert_line "  [ok]   no context before the first CUDA call"
    assert_line --regexp '^after cudaGetDeviceCount: [0-9]+ device\(s\), current context NULL, primary active = 0$'
    assert_line "  [ok]   cudaGetDeviceCount initialised the driver and made no context"
    assert_line --regexp '^after cudaSetDevice\(0\):   current 0x[0-9a-f]+, cuDevicePrimaryCtxRetain 0x[0-9a-f]+, active = 1$'
    assert_line "  [ok]   cudaSetDevice made the device's primary context current"
    assert_line --regexp '^add_one<<<4096, 256>>>:     1048576 floats, 0 wrong$'
    assert_line "  [ok]   the kernel added one to every element"
    # the two handles printed are the same, and not NULL
    local handles
    handles="$(sed -n -E 's/^after cudaSetDevice\(0\): +current (0x[0-9a-f]+), cuDevicePrimaryCtxRetain (0x[0-9a-f]+), .*/\1 \2/p' <<<"$output")"
    [ -n "$handles" ] && [ "${handles% *}" = "${handles#* }" ] || fail "current and retained differ: $handles"
    assert_line --regexp '^RESULT: PASS - all 4 checks passed$'
    # demo.h: no visible device stops the demo at its first call, exit 77 with the reason
    run_with_no_visible_device "$ROOT/01_hello_runtime/build/demo"
}

# ---- anywhere: no GPU, no driver, bad command lines -----------------------------------

@test "the demo: the stub driver exits 77 with the reason; linked with -lcuda, without a driver it cannot start" {
    run_with_stub_driver "$ROOT/01_hello_runtime/build/demo"
    refute_output --partial "[ok]"
    # the README says why there is no exit 77 without the driver: the loader needs libcuda.so.1
    run readelf -d "$ROOT/01_hello_runtime/build/demo"
    assert_output --partial "Shared library: [libcuda.so.1]"
    grep -qF 'the system'"'"'s loader stops it before `main` (`libcuda.so.1: cannot open shared object file`)' \
        "$ROOT/01_hello_runtime/README.md" || fail "README.md does not say why the demo cannot start without the driver"
}

@test "the demo builds by README.md's nvcc line from a copy of the lesson folder alone (no ../common)" {
    command -v nvcc >/dev/null || skip "no nvcc"
    local line copy="$BATS_TEST_TMPDIR/alone/01_hello_runtime"
    line="$(demo_nvcc_line "$ROOT/01_hello_runtime/README.md")"
    assert_equal "$line" "nvcc -o demo demo.c kernel.cu -lcuda"
    mkdir -p "$copy"
    (cd "$ROOT/01_hello_runtime" && tar cf - --exclude=build --exclude='build-*' .) | (cd "$copy" && tar xf -)
    readme_build "$copy" "$line"   # (the same inputs built once: test_helper.bash)
    assert_success
    [ -x "$copy/demo" ] || fail "no demo built"
}

@test "after a reset cudaSetDevice makes the primary context active at once: cuda_runtime_api.h says so, the lesson says nothing else" {
    local h="${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime_api.h"
    [ -f "$h" ] || skip "no $h"
    # the header's sentence (on two lines there), which IN_DEPTH.md and proof/child.c quote
    run grep -c "This function will also immediately initialize the runtime state on the primary context" "$h"
    assert_output 1
    grep -qF '"will also immediately initialize the runtime state on the primary context"' "$ROOT/01_hello_runtime/IN_DEPTH.md" ||
        fail "IN_DEPTH.md does not quote the header"
    grep -qF '"will also immediately initialize the runtime state on the primary context"' "$ROOT/01_hello_runtime/proof/child.c" ||
        fail "proof/child.c does not quote the header"
    # the old sentence is gone everywhere, and no cudaFree(0) follows cudaSetDevice after a reset
    run grep -rn "may only record it\|start_primary_context_again" "$ROOT/01_hello_runtime" --include='*.c' --include='*.h' --include='*.md'
    assert_failure
}

# ---- CUDA's own switches: step 0 names each variable that is set, with what it changes here
# (the stand-in driver over the toolkit's stub: the lesson prints step 0, then stops at step 1
# with exit 77; the GPU regimes check the steps that judge them)

step_0_of() { # step_0_of VAR=value...: the lesson's step 0 under those variables
    shim_over_stub "$BIN" "$@"
    assert_equal "$status" 77
    assert_output --partial "libcuda.so.1 is the CUDA toolkit's stub library"
}

@test "IN_DEPTH.md: CUDA_DEVICE_ORDER as the Programming Guide's table has it (device 0 the guessed fastest, the rest unspecified)" {
    run bash -c 'tr -s " \n" "  " <"$1"' _ "$ROOT/01_hello_runtime/IN_DEPTH.md"
    assert_output --partial '`FASTEST_FIRST` (the default) makes device 0 the GPU a simple heuristic guesses fastest and leaves the order of the others unspecified; `PCI_BUS_ID` numbers them in ascending PCI bus order'
    assert_output --partial 'The CUDA Programming Guide lists the variables in its appendix "CUDA Environment Variables"'
}

@test "CUDA_DEVICE_ORDER: FASTEST_FIRST (the default) makes device 0 the guessed fastest and leaves the others' order unspecified; PCI_BUS_ID orders by bus" {
    step_0_of -u CUDA_DEVICE_ORDER
    assert_line "   CUDA_DEVICE_ORDER=(not set)        device 0 is the GPU a simple heuristic guesses fastest, the others' order is unspecified (PCI_BUS_ID: PCI bus order)"
    step_0_of CUDA_DEVICE_ORDER=FASTEST_FIRST
    assert_line "   CUDA_DEVICE_ORDER=FASTEST_FIRST    device 0 is the GPU a simple heuristic guesses fastest, the others' order is unspecified"
    step_0_of CUDA_DEVICE_ORDER=PCI_BUS_ID
    assert_line "   CUDA_DEVICE_ORDER=PCI_BUS_ID       devices numbered in ascending PCI bus order"
    step_0_of CUDA_DEVICE_ORDER=SLOWEST
    assert_line "   CUDA_DEVICE_ORDER=SLOWEST          not a value the guide lists (FASTEST_FIRST, PCI_BUS_ID)"
    # the old wording ("fastest first" for the whole order) is gone, from the program and the documents
    run grep -rn -i 'numbered fastest first\|FASTEST_FIRST: fastest first' "$ROOT/01_hello_runtime/proof" \
        "$ROOT/01_hello_runtime/README.md" "$ROOT/01_hello_runtime/IN_DEPTH.md"
    assert_failure
}

@test "CUDA_VISIBLE_DEVICES: step 0 says only the listed GPUs are visible, renumbered from 0" {
    step_0_of CUDA_VISIBLE_DEVICES=0,1
    assert_line "   CUDA_VISIBLE_DEVICES=0,1           only the GPUs listed, renumbered from 0 (step 2 counts them)"
    step_0_of -u CUDA_VISIBLE_DEVICES
    assert_line --regexp '^   CUDA_VISIBLE_DEVICES=\(not set\) +every GPU is visible'
}

@test "CUDA_MODULE_LOADING: step 0 says when the kernels load (step 3 judges it)" {
    step_0_of CUDA_MODULE_LOADING=EAGER
    assert_line "   CUDA_MODULE_LOADING=EAGER          EAGER: every kernel loads with the context; LAZY: at its first launch (step 3)"
    step_0_of -u CUDA_MODULE_LOADING
    assert_line "   CUDA_MODULE_LOADING=(not set)      each kernel loads at its first launch (EAGER: all with the context; step 3)"
}

@test "CUDA_LAUNCH_BLOCKING: 1, 0 and any other value each say what the launches do here" {
    step_0_of CUDA_LAUNCH_BLOCKING=1
    assert_line "   CUDA_LAUNCH_BLOCKING=1             1: each launch waits for its kernel to end (steps 5c, 6 show it)"
    step_0_of CUDA_LAUNCH_BLOCKING=0
    assert_line --partial "CUDA_LAUNCH_BLOCKING=0             0: launches return before their kernel ends, as when not set"
    step_0_of CUDA_LAUNCH_BLOCKING=yes
    assert_line "   CUDA_LAUNCH_BLOCKING=yes           neither 0 nor 1: this lesson does not judge what it does"
}

@test "the JIT variables (CUDA_FORCE_PTX_JIT, CUDA_DISABLE_PTX_JIT, CUDA_FORCE_JIT, CUDA_DISABLE_JIT, the cache's): named in step 0 when set, step 3 checks the kernels load" {
    step_0_of CUDA_FORCE_PTX_JIT=1 CUDA_DISABLE_PTX_JIT=1 CUDA_FORCE_JIT=1 CUDA_DISABLE_JIT=1 \
        CUDA_CACHE_DISABLE=1 CUDA_CACHE_PATH=/tmp/x CUDA_CACHE_MAXSIZE=1000
    assert_line --regexp '^   CUDA_FORCE_PTX_JIT=1 +the kernels are JIT-compiled from PTX, .*\(step 3 says whether they load\)$'
    assert_line --regexp '^   CUDA_DISABLE_PTX_JIT=1 +no PTX is JIT-compiled: .*\(step 3 says whether the kernels load\)$'
    assert_line --regexp '^   CUDA_FORCE_JIT=1 +the kernels are JIT-compiled from PTX'
    assert_line --regexp '^   CUDA_DISABLE_JIT=1 +no JIT: '
    assert_line --regexp '^   CUDA_CACHE_DISABLE=1 +JIT results are not cached; no claim here depends on it$'
    assert_line --regexp '^   CUDA_CACHE_PATH=/tmp/x +where JIT results are cached'
    assert_line --regexp '^   CUDA_CACHE_MAXSIZE=1000 +the JIT cache'
    # unset, none of them shows
    step_0_of -u CUDA_FORCE_PTX_JIT -u CUDA_DISABLE_PTX_JIT -u CUDA_FORCE_JIT -u CUDA_DISABLE_JIT -u CUDA_CACHE_DISABLE
    refute_output --regexp 'CUDA_(FORCE|DISABLE)_(PTX_)?JIT=|CUDA_CACHE_DISABLE='
}

@test "fault handling (CUDA_DEVICE_WAITS_ON_EXCEPTION, the core dumps), the error log and the work queues: named in step 0 when set, with what step 5c does about them" {
    step_0_of CUDA_DEVICE_WAITS_ON_EXCEPTION=1 CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 \
        CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=1 CUDA_LOG_FILE=stderr CUDA_DEVICE_MAX_CONNECTIONS=4
    assert_line --regexp '^   CUDA_DEVICE_WAITS_ON_EXCEPTION=1 +a fault waits for a debugger: step 5c removes it from the children that fault on purpose$'
    assert_line --regexp '^   CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 +a fault writes a GPU core dump: step 5c removes it'
    assert_line --regexp '^   CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=1 +step 5c removes it'
    assert_line --regexp '^   CUDA_LOG_FILE=stderr +the driver.s error log goes there'
    assert_line --regexp '^   CUDA_DEVICE_MAX_CONNECTIONS=4 +work queues per device: this lesson uses one stream, nothing changes$'
    # the faulting child removes them before its first CUDA call
    run grep -c 'remove_fault_handling(); /\* before the first CUDA call' "$ROOT/01_hello_runtime/proof/steps.c"
    assert_output 1
}

# The process's limits: the line that says which limit stopped a child process, and its value
# (proof/limits.c alone, under the limits the shell sets: root is not held to ulimit -u, so the
# lesson itself cannot be made to hit it here).
@test "a child process that cannot start names the limit and its value: RLIMIT_NPROC (ulimit -u) for EAGAIN, RLIMIT_NOFILE (ulimit -n) for EMFILE" {
    local probe="$BATS_TEST_TMPDIR/limits_probe"
    cat >"$probe.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include "lesson.h"
int main(void)
{
    char line[512];
    int errs[] = {EAGAIN, EMFILE, ENOENT};
    for (int i = 0; i < 3; i++)
        printf("%d: %s\n", i, limit_behind(errs[i], line, sizeof line) ? line : "no limit");
    return 0;
}
C
    cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/01_hello_runtime" -I"$ROOT/01_hello_runtime/proof" \
        -I"$ROOT/common" -I"$(cuda_root)/include" "$probe.c" "$ROOT/01_hello_runtime/proof/limits.c" \
        -o "$probe" || fail "the probe did not build"
    run bash -c 'ulimit -S -u 57 && ulimit -S -n 43 && "$1"' _ "$probe"
    assert_success
    assert_line "0: the limit on this user's processes and threads, RLIMIT_NPROC (ulimit -u), is 57: the lesson runs up to 9 child processes at once, each with the driver's threads (raise it: ulimit -u 4096)"
    assert_line "1: the limit on open files, RLIMIT_NOFILE (ulimit -n), is 43: the driver and the pipes to the child processes need more (raise it: ulimit -n 1024)"
    assert_line "2: no limit"
    # the lesson calls it where a child process could not start (posix_spawn, pipe)
    run grep -c 'stop_if_limit(' "$ROOT/01_hello_runtime/proof/child.c" "$ROOT/01_hello_runtime/proof/first_calls.c"
    assert_line "$ROOT/01_hello_runtime/proof/child.c:3"
    assert_line "$ROOT/01_hello_runtime/proof/first_calls.c:1"
}

@test "no visible device (CUDA_VISIBLE_DEVICES empty): exit 77 with a plain message" {
    run_with_no_visible_device "$BIN"
    if gpu_listed; then
        assert_output --partial "cudaErrorNoDevice (100)"
    fi
}

@test "the toolkit's stub driver as libcuda.so.1: exit 77, says it is the stub" {
    run_with_stub_driver "$BIN"
    # before any step could judge anything
    refute_output --partial "RESULT:"
    refute_output --partial "[ok]"
}

@test "no driver library at all: exit 77, says to install the driver, no crash" {
    run_with_no_driver "$BIN"
}

@test "--help prints the usage on stdout and exits 0" {
    run "$BIN" --help
    assert_success
    assert_line --index 0 --regexp '^usage: hello_runtime '
}

@test "bad options exit 2 with the usage" {
    for args in "--bogus" "--device" "--device x" "--device -1" "--device 1x" "extra"; do
        run "$BIN" $args
        assert_usage_error
    done
}

@test "the child processes' internal options are refused from the command line (exit 2, usage, the reason)" {
    # no driver is needed to refuse them: with the stub, a CUDA call would give 77 instead
    dir="$(stub_driver_dir)" || dir=/nonexistent
    for args in "--fault-demo" "--lifecycle-demo" "--first-call X" "--first-call cudaSetDevice" \
                "--device 0 --fault-demo"; do
        LD_LIBRARY_PATH="$dir" run "$BIN" $args
        assert_usage_error
        assert_line --index 0 --regexp "^hello_runtime: --(fault-demo|lifecycle-demo|first-call) is internal: the lesson itself starts it in a child process$"
    done
    # nor does a HELLO_RUNTIME_PARENT naming another process open them
    LD_LIBRARY_PATH="$dir" HELLO_RUNTIME_PARENT=1 run "$BIN" --fault-demo
    assert_usage_error
}

@test "IN_DEPTH.md: step 5a's report names the file and line of the call in proof/steps.c" {
    local line
    line="$(grep -n 'checkRuntime(cudaSetDevice(invalid))' "$ROOT/01_hello_runtime/proof/steps.c" | cut -d: -f1)"
    [ -n "$line" ] || fail "proof/steps.c makes no checkRuntime(cudaSetDevice(invalid))"
    run grep -c -F "proof/steps.c:$line: cudaSetDevice(invalid) failed: cudaErrorInvalidDevice (101): invalid device ordinal" \
        "$ROOT/01_hello_runtime/IN_DEPTH.md"
    assert_output 1
}

@test "IN_DEPTH.md: the lazy-loading rule, in the words lesson 02 uses" {
    run bash -c 'tr -s " \n" "  " <"$1"' _ "$ROOT/01_hello_runtime/IN_DEPTH.md"
    assert_output --partial 'lazy loading needs both a CUDA runtime of 11.7 or newer and a driver that supports it (R515+); from CUDA 12.2 it is the default on Linux (12.3 on Windows), and `CUDA_MODULE_LOADING=EAGER` turns it off. `cuModuleGetLoadingMode` tells what this process got.'
}

# The decisions the lesson takes from what the driver reports (proof/machine.c), driven with the
# values other machines report: a probe linked with proof/machine.c alone prints each decision.
machine_probe() {
    local probe="$BATS_FILE_TMPDIR/machine_probe"
    if [ ! -x "$probe" ]; then
        cat >"$probe.c" <<'C'
#include <stdio.h>
#include "lesson.h"
#include "platform.h"
int main(void)
{
    static const char *plan[] = {"side by side", "one at a time", "none allowed"};
    int modes[] = {0, 2, 3, 1};
    for (int i = 0; i < 4; i++)
        printf("mode %d %s: %s\n", modes[i], platform_compute_mode_name(modes[i]), plan[child_plan_for(modes[i])]);
    int v[][2] = {{13000, 13000}, {12020, 12020}, {12010, 12040}, {12040, 12010}, {12080, 12050}};
    for (int i = 0; i < 5; i++)
        printf("driver %d runtime %d: lazy default %s\n", v[i][0], v[i][1],
               lazy_loading_is_default(v[i][0], v[i][1]) ? "judged" : "not judged");
    cudaError_t e[] = {cudaErrorDevicesUnavailable, cudaErrorMemoryAllocation, cudaErrorLaunchFailure, cudaSuccess};
    for (int i = 0; i < 4; i++)
        printf("child error %d: %s\n", (int)e[i], no_context_for_child(e[i]) ? "no context" : "other");
    return 0;
}
C
        cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/01_hello_runtime" -I"$ROOT/01_hello_runtime/proof" -I"$ROOT/common" -I"$(cuda_root)/include" \
            "$probe.c" "$ROOT/01_hello_runtime/proof/machine.c" -o "$probe" >"$probe.log" 2>&1 ||
            fail "the probe did not build: $(cat "$probe.log")"
    fi
    run "$probe"
    assert_success
}

@test "compute mode decides how the child processes run: side by side, one at a time (EXCLUSIVE_PROCESS), not at all (PROHIBITED)" {
    machine_probe
    assert_line "mode 0 DEFAULT: side by side"
    assert_line "mode 3 EXCLUSIVE_PROCESS: one at a time"
    assert_line "mode 2 PROHIBITED: none allowed"
    # a mode this build does not know (1, the old EXCLUSIVE_THREAD): the cautious way
    assert_line "mode 1 unknown: one at a time"
}

@test "driver version gate: lazy loading is judged the default only with a 12.2 runtime and driver" {
    machine_probe
    assert_line "driver 13000 runtime 13000: lazy default judged"
    assert_line "driver 12020 runtime 12020: lazy default judged"
    assert_line "driver 12010 runtime 12040: lazy default not judged"
    assert_line "driver 12040 runtime 12010: lazy default not judged"
}

@test "a child process that gets no context (GPU taken, memory full) is not judged; any other error fails" {
    machine_probe
    assert_line "child error 46: no context"
    assert_line "child error 2: no context"
    assert_line "child error 719: other"
    assert_line "child error 0: other"
}
