#!/usr/bin/env bats
# 02_driver_context: cuCtxCreate against the primary context, the context stack, ownership.

load test_helper

setup() {
    lesson_bin -v BIN 02_driver_context
    [ -x "$BIN" ] || fail "$BIN is not built: run make first"
}

# The number printed right after TEXT (first match), e.g. number_after "median " -> 98.7
number_after() {
    grep -o -E -- "$1[0-9]+(\.[0-9]+)?" <<<"$LESSON_OUT" | head -n 1 | sed -E "s/^.*[^0-9.]([0-9.]+)$/\1/"
}

# The expected output holds device 0 only: lines for devices 1, 2 ... and the device count
# are taken out, and so are step 8's lines (peer access: not judged on one GPU, measured on
# two), the claims that only some environments print, and the claim counts of the verdict,
# so the comparison holds on a machine with one GPU or several and in any environment.
one_device_view() {
    normalize | sed -E \
        -e '/^   \[device [1-9][0-9]*\]/d' -e 's/[0-9]+ device\(s\)/N device(s)/g' \
        -e 's/, PCI [0-9A-Fa-f:.#]+$/, PCI BUS/' \
        -e 's/^(     CUDA_[A-Z_]+ +=) +(\(not set\)|[^ ]+) +/\1 VALUE /' \
        -e 's/^(   its compute mode \(cuDeviceGetAttribute\)): .*/\1: MODE/' \
        -e '/^   one context on it at a time; if the driver refuses/d' -e '/^   lesson stops and says so \(exit 77\)$/d' \
        -e '/CUDA_VISIBLE_DEVICES lists/d' -e '/CUDA_DEVICE_ORDER=PCI_BUS_ID:/d' \
        -e 's/(module loading mode is what CUDA_MODULE_LOADING asks for) \(.*\)$/\1 (MODE)/' \
        -e 's/version [0-9]+$/version #/' -e 's/at [0-9]+ \(the driver/at # (the driver/' \
        -e 's/STACK_SIZE, [0-9]+\)/STACK_SIZE, #)/' -e 's/[0-9]+ SMs x [0-9]+ threads/# SMs x # threads/' \
        -e '/^8\. Contexts and peers/,/^9\. /{/^8\. /b;/^9\. /b;/^$/b;d}' \
        -e 's/^RESULT: PASS - all [0-9]+ checks passed.*$/RESULT: PASS/'
}

# ---- on the GPU -------------------------------------------------------------------------

# bats test_tags=gpu
@test "GPU: the lesson passes every check (exit 0, verdict PASS, nothing on stderr)" {
    run_lesson
    assert_equal "$LESSON_STATUS" 0
    run tail -n 1 <<<"$LESSON_OUT"
    if [ "$(gpu_count)" -ge 2 ]; then # 4 not judged only where the pair cannot be peers
        if grep -q 'cuDeviceCanAccessPeer: device 0 -> 1: 0' <<<"$LESSON_OUT"; then
            assert_output --regexp '^RESULT: PASS - all [0-9]+ checks passed, 4 not judged$'
        else
            assert_output --regexp '^RESULT: PASS - all [0-9]+ checks passed$'
        fi
    else # step 8 needs two GPUs: its four claims are not judged, and say why
        assert_output --regexp '^RESULT: PASS - all [0-9]+ checks passed, 4 not judged$'
    fi
    run grep -c -F '[FAIL]' <<<"$LESSON_OUT"
    assert_output 0
    assert_equal "$LESSON_ERR" ""
}

# bats test_tags=gpu
@test "GPU: the output matches tests/expected/02_driver_context.out after normalising" {
    run_lesson
    diff -u "$ROOT/tests/expected/02_driver_context.out" <(one_device_view <<<"$LESSON_OUT")
}

# bats test_tags=gpu
@test "GPU: claim 1 - before cuInit some calls fail and some work; then every device listed" {
    run_lesson
    assert_regex "$LESSON_OUT" 'cuDeviceGetCount\(&count\) +-> CUDA_ERROR_NOT_INITIALIZED \(3\)'
    assert_regex "$LESSON_OUT" 'cuCtxGetCurrent\(&ctx\) +-> CUDA_ERROR_NOT_INITIALIZED \(3\)'
    assert_regex "$LESSON_OUT" 'cuDriverGetVersion\(&version\) +-> CUDA_SUCCESS \(0\), version [1-9][0-9]+'
    assert_regex "$LESSON_OUT" 'cuGetErrorName\(3, &name\) +-> CUDA_SUCCESS \(0\), "CUDA_ERROR_NOT_INITIALIZED"'
    assert_claim "cuDeviceGetCount and cuCtxGetCurrent fail with CUDA_ERROR_NOT_INITIALIZED before cuInit"
    assert_claim "cuDriverGetVersion, cuGetErrorName and cuGetProcAddress work before cuInit: not every call needs it"
    n="$(gpu_count)"
    assert_claim "cuInit found $n device(s), each with a name, a compute capability and memory"
    run grep -c -E '^   \[device [0-9]+\] "[^"]+", compute capability [0-9]+\.[0-9]+, [0-9.]+ GiB, PCI [0-9A-Fa-f:.]+$' <<<"$LESSON_OUT"
    assert_output "$n"
}

# bats test_tags=gpu
@test "GPU: claim 1 - the environment in effect is printed and checked" {
    run_lesson
    for v in CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER CUDA_MODULE_LOADING; do
        run grep -c -E "^     $v +=" <<<"$LESSON_OUT"
        assert_output 1
    done
    assert_regex "$LESSON_OUT" 'cuModuleGetLoadingMode -> CU_MODULE_(LAZY|EAGER)_LOADING'
    run grep -E '^  \[ok\]   the module loading mode is what CUDA_MODULE_LOADING asks for' <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: claim 1 - CUDA_MODULE_LOADING=EAGER and CUDA_DEVICE_ORDER=PCI_BUS_ID are seen and checked" {
    require_gpu
    CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_ORDER=PCI_BUS_ID run "$BIN" --repeat 1
    assert_success
    assert_line "   cuModuleGetLoadingMode -> CU_MODULE_EAGER_LOADING"
    assert_line "  [ok]   the module loading mode is what CUDA_MODULE_LOADING asks for (EAGER)"
    assert_line "  [ok]   CUDA_DEVICE_ORDER=PCI_BUS_ID: the devices are numbered in PCI bus order"
}

# bats test_tags=gpu
@test "GPU: claim 2 - the CUDA 13 cuCtxCreate makes a context current at once" {
    assert_claim "a context is current as soon as cuCtxCreate returns (ctxA)"
    if grep -q 'CUDA 13' <<<"$LESSON_OUT"; then
        assert_regex "$LESSON_OUT" 'cuCtxCreate\(&ctx, NULL, 0, dev\)'
    fi
}

# bats test_tags=gpu
@test "GPU: claim 2 - a context takes device memory (more than zero) and gives it back" {
    run_lesson
    # the control sample that the two claims are judged against, and (here, where nothing
    # else allocates on the GPU during the tests) a GPU whose free memory holds still
    spread="$(number_after 'after them with nothing of this process changing, moved by ')"
    [ -n "$spread" ] || fail "no control sample printed"
    awk -v s="$spread" 'BEGIN { exit !(s < 1) }' || fail "free memory moved by $spread MiB by itself"
    assert_claim "cuCtxDestroy gave that memory back (within 1% of what it took, each round)"
    mib="$(number_after 'device memory a context takes: median ')"
    [ -n "$mib" ] || fail "no memory figure printed"
    awk -v m="$mib" 'BEGIN { exit !(m > 0) }' || fail "a context took $mib MiB"
    run grep -E '^  \[ok\]   every new context took device memory: [0-9.]+ MiB or more$' <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: claim 2 - creating a context is costly next to a push + pop, and destroying the current one pops it" {
    assert_claim "destroying the current context popped it: ctxA was current again each time"
    run grep -E '^  \[ok\]   a context is costly to make: median [0-9.]+ ms, [0-9]+x a push \+ pop pair \(more than 100x\)$' <<<"$LESSON_OUT"
    assert_success
    us="$(number_after 'cuCtxPushCurrent \+ cuCtxPopCurrent: ')"
    [ -n "$us" ] || fail "no push + pop figure printed"
    ms="$(number_after 'cuCtxDestroy: median ')"
    awk -v ms="$ms" 'BEGIN { exit !(ms > 0) }' || fail "cuCtxDestroy took $ms ms"
}

# bats test_tags=gpu
@test "GPU: claim 2 - raising the stack limit reserves it for every resident thread (the model within 10%)" {
    run_lesson
    run grep -E '^  \[ok\]   raising the stack limit reserved it for every thread the device can hold: [0-9.]+ MiB, the model.s [0-9.]+ MiB within 10%$' <<<"$LESSON_OUT"
    assert_success
    assert_regex "$LESSON_OUT" "ctxA's limits \(cuCtxGetLimit\): stack [0-9]+ B per thread"
}

# bats test_tags=gpu
@test "GPU: step 1 - the device's compute mode, and what it means for a lesson of several contexts" {
    run_lesson
    mode="$(nvidia-smi --query-gpu=compute_mode --format=csv,noheader -i 0 2>/dev/null || true)"
    case "$mode" in
        Default) assert_regex "$LESSON_OUT" 'its compute mode \(cuDeviceGetAttribute\): DEFAULT: any number of contexts and processes may use it' ;;
        Exclusive_Process) assert_regex "$LESSON_OUT" 'its compute mode \(cuDeviceGetAttribute\): EXCLUSIVE_PROCESS: this GPU lets one process at a time use it' ;;
        *) fail "nvidia-smi reports compute mode '$mode'" ;;
    esac
}

# bats test_tags=gpu
@test "GPU: claim 3 - the context stack, in order" {
    assert_claim "cuCtxCreate pushed ctxB on top of ctxA: ctxB is current"
    assert_claim "popping returned ctxB and made ctxA, the one below, current again"
    assert_claim "cuCtxPushCurrent(ctxB) made ctxB current above ctxA"
    assert_claim "cuCtxSetCurrent(ctxA) replaced the top of the stack, it did not push: ctxA on top, still 2 entries"
    # the depth is counted (every entry popped, then pushed back): a push would have made 3
    grep -qxF -- "   stack_depth() -> 2 entries (popped until empty, counted, pushed back)" <<<"$LESSON_OUT" \
        || fail "no stack_depth() line with 2 entries"
    assert_claim "two pops emptied the stack (ctxA, then none): the stack held two entries, not three"
    assert_claim "popping an empty stack is an error, not a no-op"
    # the stack as printed, step by step
    run grep -o -E 'after [A-Za-z(),]+: +current = [A-Za-z]+ +stack \(bottom -> top\): \[[A-Za-z ]*\]' <<<"$LESSON_OUT"
    assert_line --index 0 --regexp 'cuCtxCreate\(ctxA\): +current = ctxA .*\[ctxA\]$'
    assert_line --index 1 --regexp 'cuCtxCreate\(ctxB\): +current = ctxB .*\[ctxA ctxB\]$'
    assert_line --index 2 --regexp 'cuCtxPopCurrent: +current = ctxA .*\[ctxA\]$'
    assert_line --index 3 --regexp 'cuCtxPushCurrent\(ctxB\): +current = ctxB .*\[ctxA ctxB\]$'
    assert_line --index 4 --regexp 'cuCtxSetCurrent\(ctxA\): +current = ctxA .*\[ctxA ctxA\]$'
    assert_line --index 5 --regexp 'cuCtxPopCurrent: +current = ctxA .*\[ctxA\]$'
    assert_line --index 6 --regexp 'cuCtxPopCurrent: +current = none .*\[\]$'
}

# bats test_tags=gpu
@test "GPU: claim 4 - cuPointerGetAttribute names the owner of each allocation" {
    assert_claim "cuMemcpyHtoD / cuMemcpyDtoH moved the data intact in both contexts"
    assert_claim "the allocation made while ctxA was current belongs to ctxA"
    assert_claim "the allocation made while ctxB was current belongs to ctxB"
    assert_regex "$LESSON_OUT" 'CU_POINTER_ATTRIBUTE_CONTEXT\): first -> ctxA, second -> ctxB'
}

# bats test_tags=gpu
@test "GPU: claim 4 - under unified addressing a copy in one context reads another context's buffer (not isolation)" {
    assert_claim "ctxB's copy read ctxA's buffer: under unified addressing a copy finds any allocation of the process by its address"
    assert_regex "$LESSON_OUT" "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING -> 1 "
    assert_regex "$LESSON_OUT" "with ctxB current, cuMemcpyDtoH from ctxA's buffer -> CUDA_SUCCESS \\(0\\), 0 wrong"
}

# bats test_tags=gpu
@test "GPU: claim 4 - contexts on one GPU cannot be peers, and a kernel in ctxB writes ctxA's buffer without it" {
    assert_claim "two contexts on one GPU cannot be peers: the device is not its own peer, and cuCtxEnablePeerAccess is refused"
    grep -qxF -- "   cuDeviceCanAccessPeer(dev, dev) -> 0; with ctxB current, cuCtxEnablePeerAccess(ctxA, 0) -> CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217)" \
        <<<"$LESSON_OUT" || fail "no line: the device is not its own peer, enabling refused with 217"
    assert_claim "a kernel in ctxB wrote ctxA's buffer without peer access: within one process, contexts on one GPU do not fence memory, even from kernels"
    grep -qxF -- "   without error; read back in ctxA: 0 of 262144 words wrong" <<<"$LESSON_OUT" \
        || fail "no line: ctxA's buffer read back after ctxB's kernel, 0 wrong"
    ! grep -qF -- "only once ctxB has peer access" <<<"$LESSON_OUT" || fail "the old, wrong sentence"
}

# bats test_tags=gpu
@test "GPU: claim 5 - the primary context's life through the Driver API" {
    assert_claim "user contexts do not start the primary context: it was inactive"
    assert_claim "cuDevicePrimaryCtxRetain started it: a third context, neither ctxA nor ctxB"
    assert_claim "retaining the primary context did not make it current"
    assert_claim "releasing the only reference ended it (inactive again)"
}

# bats test_tags=gpu
@test "GPU: claim 5 - the runtime allocates in the current user context" {
    assert_claim "cudaMalloc allocated in ctxA, the current user context"
    assert_claim "the runtime's kernel ran in ctxA and its result is right"
    assert_claim "the runtime used ctxA as it found it: ctxA still current, no primary context started"
    assert_regex "$LESSON_OUT" 'cudaMalloc 1 MiB at 0x[0-9a-f]+ -> owner ctxA; add_one<<<>>> ran: 0 wrong'
}

# bats test_tags=gpu
@test "GPU: claim 5 - popped, the runtime goes back to the primary context it shares" {
    assert_claim "with no context current, cudaSetDevice started the primary context and made it current"
    assert_claim "cudaMalloc now allocates in the primary context"
    assert_claim "cuDevicePrimaryCtxRetain hands the Driver API the very context the runtime uses"
    assert_claim "releasing our reference left it active: the runtime holds its own (unlike cuCtxDestroy)"
}

# bats test_tags=gpu
@test "GPU: claim 5d - cudaSetDevice replaces the top of the stack, even a pushed user context" {
    assert_claim "cudaSetDevice(0) made the primary context current although ctxB was on top"
    assert_claim "it replaced ctxB: the pop returned the primary and exposed ctxA, not ctxB"
    section="$(sed -n '/^   d) cudaSetDevice/,/cuCtxPopCurrent returned/p' <<<"$LESSON_OUT")"
    run grep -o -E 'after [A-Za-z ]+: +current = [A-Za-z]+ +stack \(bottom -> top\): \[[A-Za-z ]*\]$' <<<"$section"
    assert_line --index 0 --regexp '^after pushing ctxA and ctxB: +current = ctxB .*\[primary ctxA ctxB\]$'
    assert_line --index 1 --regexp '^after cudaSetDevice: +current = primary .*\[primary ctxA primary\]$'
    assert_line --index 2 --regexp '^after cuCtxPopCurrent: +current = ctxA .*\[primary ctxA\]$'
    assert_regex "$section" 'cuCtxPopCurrent returned primary'
}

# bats test_tags=gpu
@test "GPU: step 5b says what is wrong with a common Driver API launch" {
    run_lesson
    assert_regex "$LESSON_OUT" "a common Driver API example passes void \\*args\\[\\] = \\{ &d_data \\} to a kernel of four"
}

# bats test_tags=gpu
@test "GPU: claim 6 - contexts are per thread" {
    assert_claim "a new thread starts with no current context, whatever its parent has"
    assert_claim "without one, cuMemAlloc fails with CUDA_ERROR_INVALID_CONTEXT"
    assert_claim "cuCtxSetCurrent(ctxB) bound ctxB in the worker, and its allocation is ctxB's"
    assert_claim "the main thread's current context did not change (still the primary)"
}

# bats test_tags=gpu
@test "GPU: claim 7 - every device gets its own context, data verified on each" {
    run_lesson
    n="$(gpu_count)"
    assert_claim "each of the $n device(s) got its own context, current on the right device"
    assert_claim "each buffer belongs to its device's context and lives on that device ($n device(s))"
    assert_claim "every buffer held its own data after all the devices were used ($n device(s))"
    assert_claim "after pushing and popping them all, the primary context is current again"
    run grep -c -E '^   \[device [0-9]+\] ".*": ctx([0-9]+) = 0x[0-9a-f]+, 1 MiB at 0x[0-9a-f]+, owner ctx\1, ordinal [0-9]+, 0 wrong$' <<<"$LESSON_OUT"
    assert_output "$n"
}

# bats test_tags=gpu
@test "GPU: claim 8 - peer access between contexts and through the runtime (two GPUs), or not judged" {
    run_lesson
    if [ "$(gpu_count)" -lt 2 ]; then
        run grep -c -E '^  \[n/j\]  .* - not judged here: one GPU is visible; this needs two$' <<<"$LESSON_OUT"
        assert_output 4
        return
    fi
    if grep -q 'cuDeviceCanAccessPeer: device 0 -> 1: 0' <<<"$LESSON_OUT"; then
        run grep -c -F 'not judged here: cuDeviceCanAccessPeer says' <<<"$LESSON_OUT"
        assert_output 4
        return
    fi
    assert_claim "a kernel on the first GPU changed the second GPU's memory once its context had peer access"
    assert_claim "peer access belongs to the pair of contexts: enabling it again says ALREADY_ENABLED"
    assert_claim "cudaDeviceEnablePeerAccess is cuCtxEnablePeerAccess between the two primary contexts"
    assert_claim "the direct GPU-to-GPU copy was faster than the copy through pinned host memory"
    assert_regex "$LESSON_OUT" 'write_pattern<<<>>> in ctxP \(device 0\) on ctxQ.s buffer \(device 1\): 0 wrong'
}

# bats test_tags=gpu
@test "GPU: claim 9 - entry points: cuGetProcAddress, the runtime and dlsym agree" {
    run_lesson
    assert_claim "all three are one entry point of libcuda.so.1, cuMemAlloc_v2"
    assert_claim "a function from the runtime's entry point acts on the same driver state: the primary context"
    assert_claim "the version picks the ABI: 3020 gives cuCtxCreate_v2 (flags, device), 12050 cuCtxCreate_v4 (with CUctxCreateParams)"
    assert_claim "the per-thread flag gives cuMemcpyAsync_ptsz, the legacy flag cuMemcpyAsync: two functions"
    assert_regex "$LESSON_OUT" 'CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM -> cuMemcpyAsync_ptsz'
}

# bats test_tags=gpu
@test "GPU: claim 9 - entry points: too old, too new, unknown" {
    assert_claim "a version older than the function: no pointer, and the query says VERSION_NOT_SUFFICIENT"
    assert_claim "a version newer than the driver: neither API hands out a pointer"
    assert_claim "a name the driver does not have: no pointer, SYMBOL_NOT_FOUND"
}

# The demo asserts what it prints about contexts, which no other program on the GPU changes,
# and times nothing.
# bats test_tags=gpu,shared
@test "GPU: the demo runs: a created context is not the primary one, cudaMalloc lands in the current context, the kernel's data checked" {
    require_gpu
    run "$ROOT/02_driver_context/build/demo"
    assert_success
    assert_line --regexp '^cuCtxCreate -> 0x[0-9a-f]+; cudaSetDevice\(0\) -> current 0x[0-9a-f]+, cuDevicePrimaryCtxRetain 0x[0-9a-f]+$'
    assert_line "  [ok]   the created context is not the primary one; cudaSetDevice made the primary one current"
    assert_line --regexp '^cudaMalloc with ours pushed: owner 0x[0-9a-f]+; popped: owner 0x[0-9a-f]+; 0 of 1048576 words wrong$'
    assert_line "  [ok]   with our context pushed, cudaMalloc's buffer belongs to ours"
    assert_line "  [ok]   popped, the runtime allocates in the primary context again"
    assert_line "  [ok]   add_one<<<>>> ran in each context, every word checked"
    assert_line "RESULT: PASS - all 4 checks passed"
    # the two contexts printed differ, the retained one is the runtime's, and each buffer's
    # owner is the context that was current
    local own current retained in_own in_primary
    read -r own current retained < <(sed -nE 's/^cuCtxCreate -> (0x[0-9a-f]+); cudaSetDevice\(0\) -> current (0x[0-9a-f]+), cuDevicePrimaryCtxRetain (0x[0-9a-f]+)$/\1 \2 \3/p' <<<"$output")
    read -r in_own in_primary < <(sed -nE 's/^cudaMalloc with ours pushed: owner (0x[0-9a-f]+); popped: owner (0x[0-9a-f]+);.*/\1 \2/p' <<<"$output")
    [ "$own" != "$current" ] || fail "ours and the primary context are the same: $own"
    assert_equal "$retained" "$current"
    assert_equal "$in_own" "$own"
    assert_equal "$in_primary" "$current"
    # demo.h: no visible device stops the demo at cuInit, exit 77 with the reason
    run_with_no_visible_device "$ROOT/02_driver_context/build/demo"
}

# (--device on every device, each run ending PASS: tests/regimes-02_driver_context.bats's
# CUDA_VISIBLE_DEVICES regime)

# bats test_tags=gpu
@test "GPU: --device past the last device is a usage error (exit 2)" {
    require_gpu
    run "$BIN" --device 63
    assert_equal "$status" 2
    assert_output --partial "--device 63 does not exist"
}

# The reference solutions go through the grader in two parts (bats -f, which every bats has).
# Every test but two judges function: a context, the stack, the data, an entry point, which no
# other program on the GPU can change; those run in the shared first phase. context_leak's
# free-memory test reads the device's free memory against a control sample, which a neighbour
# moves, and its task of more than 2^31 bytes takes a large part of the GPU's memory: they run
# alone. A CPU test below checks that the two parts hold every test once.
GRADER_02_FUNCTION='^(stack_order|share_primary|entry_point|context_leak: (every task|the context stack|a task whose allocation fails))'
GRADER_02_MEMORY='^context_leak: (the tasks destroy their contexts and give their device memory back|a task of more than 2\^31 bytes computes the right data)'

# bats test_tags=gpu,shared
@test "GPU: the exercises' reference solutions pass the grader's tests of function" {
    assert_solutions_pass 02_driver_context "$GRADER_02_FUNCTION" 9
}

# bats test_tags=gpu
@test "GPU: the exercises' reference solutions pass the grader's free-memory and 2^31-byte tests (alone on the GPU)" {
    assert_solutions_pass 02_driver_context "$GRADER_02_MEMORY" 2
}

# (shared: each failure asserted is one of function, which no other program on the GPU can
# change: a wrong context, a context left, a missing entry point; the free-memory bar is never
# reached, as the contexts left fail first)
# bats test_tags=gpu,shared
@test "GPU: the untouched exercises fail the grader, every one of them" {
    require_gpu
    run_grader 02_driver_context exercises
    assert_failure
    assert_output --regexp 'not ok [0-9]+ stack_order: the buffer is allocated in ctxA'
    assert_output --regexp 'not ok [0-9]+ share_primary: the library works in the runtime'
    assert_output --regexp 'not ok [0-9]+ context_leak: the tasks destroy their contexts and give their device memory back'
    assert_output --regexp 'not ok [0-9]+ entry_point: cuMemGetInfo comes from the runtime'
    assert_output --regexp 'not ok [0-9]+ entry_point: the per-thread-default-stream variant'
}

# ---- anywhere: no GPU, no driver, bad command lines -----------------------------------

@test "the grader's two parts for the reference solutions hold each of its tests once" {
    assert_grader_parts 02_driver_context "$GRADER_02_FUNCTION" "$GRADER_02_MEMORY"
}

@test "no visible device (CUDA_VISIBLE_DEVICES empty): exit 77 with a plain message" {
    run_with_no_visible_device "$BIN"
    if gpu_listed; then
        assert_output --partial "CUDA_ERROR_NO_DEVICE (100)"
    fi
}

@test "the toolkit's stub driver as libcuda.so.1: exit 77, says it is the stub" {
    run_with_stub_driver "$BIN"
    refute_output --partial "RESULT:"
    refute_output --partial "[ok]"
}

@test "no driver library at all: exit 77, says to install the driver, no crash" {
    run_with_no_driver "$BIN"
}

@test "the demo without a usable driver: the stub gives exit 77 (no visible device: the GPU test)" {
    local demo="$ROOT/02_driver_context/build/demo"
    [ -x "$demo" ] || fail "$demo is not built: run make first"
    run_with_stub_driver "$demo"
    refute_output --partial "RESULT:"
}

@test "the demo builds by README.md's nvcc line from a copy of the lesson folder alone (no ../common)" {
    command -v nvcc >/dev/null || skip "no nvcc"
    local line copy="$BATS_TEST_TMPDIR/alone/02_driver_context"
    line="$(demo_nvcc_line "$ROOT/02_driver_context/README.md")"
    assert_equal "$line" "nvcc -o demo demo.c kernel.cu -lcuda"
    mkdir -p "$copy"
    (cd "$ROOT/02_driver_context" && tar cf - --exclude=build --exclude='build-*' .) | (cd "$copy" && tar xf -)
    readme_build "$copy" "$line"   # (the same inputs built once: test_helper.bash)
    assert_success
    [ -x "$copy/demo" ] || fail "no demo built"
}

@test "core.c chains at most three calls with && (one call a line where more are made in turn)" {
    run awk '{ text = text $0 "\n" }
        END {
            gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", text)    # comments out
            n = split(text, st, /[;{}]/)
            for (i = 1; i <= n; i++) if (gsub(/&&/, "&&", st[i]) > 2) { print "a chain of more than three: " st[i]; bad = 1 }
            exit bad
        }' "$ROOT/02_driver_context/core.c"
    assert_success
}

@test "what the README says of memory and contexts is what cuda.h says: cuMemCreate and the pools' memory belongs to no context" {
    local h="${CUDA_PATH:-/usr/local/cuda}/include/cuda.h"
    [ -f "$h" ] || skip "no $h"
    run grep -c "These memory allocations are not associated with any CUDA context and need to" "$h"
    assert_output 1
    grep -q "cuMemCreate" <(sed -n '/brief Destroy a CUDA context/,/CUresult CUDAAPI cuCtxDestroy/p' "$h") || fail "cuCtxDestroy's note names no cuMemCreate"
    run grep -c "whichever API" "$ROOT/02_driver_context/README.md" "$ROOT/02_driver_context/IN_DEPTH.md"
    assert_output --regexp ':0$'
    refute_output --regexp ':[1-9]'
    grep -qF '(`cuMemCreate` and the stream-ordered pools'"'"' memory belongs to none, cuda.h says)' "$ROOT/02_driver_context/README.md" || fail "README.md does not say which memory belongs to no context"
    grep -qF '"are not associated with any CUDA context and need to' "$ROOT/02_driver_context/IN_DEPTH.md" || fail "IN_DEPTH.md does not quote cuda.h"
}

@test "--help prints the usage on stdout and exits 0" {
    run "$BIN" --help
    assert_success
    assert_line --index 0 --regexp '^usage: driver_context '
    assert_output --partial "--repeat N"
}

@test "bad options exit 2 with the usage, before any CUDA call" {
    for args in "--bogus" "--device" "--device x" "--device -1" "--device 1x" "--device 64" \
                "--repeat 0" "--repeat 51" "--repeat many" "extra"; do
        # no driver is needed to reject a command line: the stub would give 77 otherwise
        dir="$(stub_driver_dir)" || dir=/nonexistent
        LD_LIBRARY_PATH="$dir" run "$BIN" $args
        assert_usage_error
    done
}

# The decisions the lesson takes from what the driver reports (machine.c), driven with the
# values other machines report: a probe linked with machine.c alone prints each decision.
machine_probe() {
    local probe="$BATS_FILE_TMPDIR/machine_probe"
    if [ ! -x "$probe" ]; then
        cat >"$probe.c" <<'C'
#include <stdio.h>
#include "lesson.h"
#include "platform.h"
int main(void)
{
    int modes[] = {0, 2, 3};
    for (int i = 0; i < 3; i++)
        printf("mode %s: contexts %s, %s\n", platform_compute_mode_name(modes[i]),
               contexts_allowed(modes[i]) ? "allowed" : "refused",
               one_context_at_a_time(modes[i]) ? "one at a time" : "any number");
    int drivers[] = {11080, 12000, 12010, 12020, 12040, 12050, 13000};
    for (int i = 0; i < 7; i++)
        printf("driver %d: lazy default %s, 12050 lookup %s, 3020 lookup %s\n", drivers[i],
               lazy_loading_is_default(drivers[i], 13000) ? "judged" : "not judged",
               driver_knows_version(drivers[i], 12050) ? "asked" : "not asked",
               driver_knows_version(drivers[i], 3020) ? "asked" : "not asked");
    int runtimes[] = {11080, 12010, 12020, 12040, 13000};
    for (int i = 0; i < 5; i++)
        printf("runtime %d on driver 13000: lazy default %s\n", runtimes[i],
               lazy_loading_is_default(13000, runtimes[i]) ? "judged" : "not judged");
    double spread[][2] = {{0.0, 5.2}, {0.0, 0.0}, {2.0, 5.2}, {6.0, 5.2}, {5.2, 5.2}, {30.0, 26.4}};
    for (int i = 0; i < 6; i++)
        printf("spread %.1f bar %.1f: %s\n", spread[i][0], spread[i][1],
               memory_judgeable(spread[i][0], spread[i][1]) ? "judged" : "not judged");
    int attrs[] = {1, 0, -1};
    for (int i = 0; i < 3; i++)
        for (int pipe = 0; pipe < 2; pipe++)
            printf("mps attribute %d, daemon pipe %s: %s\n", attrs[i], pipe ? "yes" : "no",
                   mps_client_by(attrs[i], pipe) ? "an MPS client" : "not an MPS client");
    int errors[] = {209, 218, 222, 221, 223, 2, 0};
    for (int i = 0; i < 7; i++)
        printf("runtime error %d: %s\n", errors[i],
               kernel_image_refused(errors[i]) ? "kernels refused" : "something else");
    return 0;
}
C
        cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/02_driver_context" -I"$ROOT/02_driver_context/proof" -I"$ROOT/common" -I"$(cuda_root)/include" \
            "$probe.c" "$ROOT/02_driver_context/proof/machine.c" -o "$probe" >"$probe.log" 2>&1 ||
            fail "the probe did not build: $(cat "$probe.log")"
    fi
    run "$probe"
    assert_success
}

@test "compute mode: PROHIBITED refuses the lesson, EXCLUSIVE_PROCESS allows one context at a time, DEFAULT any number" {
    machine_probe
    assert_line "mode DEFAULT: contexts allowed, any number"
    assert_line "mode EXCLUSIVE_PROCESS: contexts allowed, one at a time"
    assert_line "mode PROHIBITED: contexts refused, any number"
}

@test "version gates: lazy loading the default where runtime and driver are both 12.2+; step 9b asks for 12050 only from a 12.5 driver" {
    machine_probe
    assert_line "runtime 12010 on driver 13000: lazy default not judged"
    assert_line "runtime 12020 on driver 13000: lazy default judged"
    assert_line "runtime 13000 on driver 13000: lazy default judged"
    assert_line "driver 12010: lazy default not judged, 12050 lookup not asked, 3020 lookup asked"
    assert_line "driver 12020: lazy default judged, 12050 lookup not asked, 3020 lookup asked"
    assert_line "driver 12040: lazy default judged, 12050 lookup not asked, 3020 lookup asked"
    assert_line "driver 12050: lazy default judged, 12050 lookup asked, 3020 lookup asked"
    assert_line "driver 13000: lazy default judged, 12050 lookup asked, 3020 lookup asked"
}

@test "free memory that moves by itself: a memory claim is judged only when its bar lies outside the control's spread" {
    machine_probe
    assert_line "spread 0.0 bar 5.2: judged"
    assert_line "spread 0.0 bar 0.0: judged"
    assert_line "spread 2.0 bar 5.2: judged"
    assert_line "spread 6.0 bar 5.2: not judged"
    assert_line "spread 5.2 bar 5.2: not judged"
    assert_line "spread 30.0 bar 26.4: not judged"
}

@test "MPS: the driver's word (CU_DEVICE_ATTRIBUTE_MPS_ENABLED) wins; without it, the control daemon's pipe decides" {
    machine_probe
    assert_line "mps attribute 1, daemon pipe no: an MPS client"
    assert_line "mps attribute 1, daemon pipe yes: an MPS client"
    assert_line "mps attribute 0, daemon pipe yes: not an MPS client"
    assert_line "mps attribute 0, daemon pipe no: not an MPS client"
    assert_line "mps attribute -1, daemon pipe yes: an MPS client"
    assert_line "mps attribute -1, daemon pipe no: not an MPS client"
}

@test "JIT switches: the runtime errors that mean the kernels cannot be loaded here (and only those)" {
    machine_probe
    # cudaErrorNoKernelImageForDevice, InvalidPtx, UnsupportedPtxVersion, JitCompilerNotFound,
    # JitCompilationDisabled (driver_types.h)
    for e in 209 218 222 221 223; do assert_line "runtime error $e: kernels refused"; done
    assert_line "runtime error 2: something else"
    assert_line "runtime error 0: something else"
}

# The same decisions taken by the lesson itself, on the machine the shim describes over the
# toolkit's stub driver (tests/shims/cuda_shim.c): the shim answers cuInit and the device
# queries, so the lesson reads the platform and prints its decision before the first call that
# needs a real GPU reaches the stub and stops it (exit 1 there, or 77 when it decided so).
shim02() {
    shim_over_stub "$BIN" "$@"   # test_helper.bash
}

@test "PROHIBITED compute mode (the shim over the stub): exit 77, no process may make a context there" {
    shim02 CUDA_SHIM_COMPUTE_MODE=prohibited
    assert_equal "$status" 77
    assert_line "   its compute mode (cuDeviceGetAttribute): PROHIBITED: no process may make a context on it"
    assert_line --partial "cannot run here: device 0's compute mode is PROHIBITED"
    refute_line --partial "RESULT:"
}

@test "EXCLUSIVE_PROCESS compute mode (the shim over the stub): the lesson says what it means for several contexts" {
    shim02 CUDA_SHIM_COMPUTE_MODE=exclusive_process CUDA_SHIM_LOCK="$BATS_TEST_TMPDIR/lock"
    assert_line "   its compute mode (cuDeviceGetAttribute): EXCLUSIVE_PROCESS: this GPU lets one process at a time use it, and NVIDIA documents"
}

# ---- CUDA's environment variables (the Programming Guide's table), one family a test, through
# the shim over the stub: each is printed before the first CUDA call and judged where the
# emulated device lets the lesson reach it (the stub stops it at cuModuleGetLoadingMode).

@test "device visibility and order (the shim over the stub): CUDA_VISIBLE_DEVICES counted, PCI_BUS_ID order judged, --device past the list names the variable" {
    shim02 CUDA_VISIBLE_DEVICES=0
    assert_line --regexp '^     CUDA_VISIBLE_DEVICES = 0 +which GPUs the process sees'
    assert_line "  [ok]   CUDA_VISIBLE_DEVICES lists 1 entry and the driver shows 1 device(s): no more than listed"
    shim02 CUDA_DEVICE_ORDER=PCI_BUS_ID
    assert_line --regexp '^     CUDA_DEVICE_ORDER += PCI_BUS_ID '
    assert_line "  [ok]   CUDA_DEVICE_ORDER=PCI_BUS_ID: the devices are numbered in PCI bus order"
    stub_shims "$BATS_FILE_TMPDIR/shim-stub"
    LD_LIBRARY_PATH="$BATS_FILE_TMPDIR/shim-stub" CUDA_VISIBLE_DEVICES=0 run "$BIN" --device 1
    assert_equal "$status" 2
    assert_output --partial "--device 1 does not exist: this machine shows 1 device(s), 0 to 0 (CUDA_VISIBLE_DEVICES=0 chooses which, and numbers them from 0)"
}

@test "module loading (the shim over the stub): the variables printed; a value NVIDIA does not document is not judged, with the reason" {
    shim02 CUDA_MODULE_LOADING=EAGER CUDA_MODULE_DATA_LOADING=LAZY
    assert_line --regexp '^     CUDA_MODULE_LOADING += EAGER '
    assert_line --regexp '^     CUDA_MODULE_DATA_LOADING = LAZY +when a module.s data is loaded; no claim here depends on it$'
    shim02 CUDA_MODULE_LOADING=SOMETIMES
    assert_line "  [n/j]  the module loading mode is what CUDA_MODULE_LOADING asks for - not judged here: CUDA_MODULE_LOADING=SOMETIMES is neither LAZY nor EAGER, the values NVIDIA documents"
    refute_line --partial "[FAIL] the module loading mode"
}

@test "launch blocking, connections and the JIT switches (the shim over the stub): each printed with what it changes here" {
    shim02 CUDA_LAUNCH_BLOCKING=1 CUDA_DEVICE_MAX_CONNECTIONS=8 CUDA_FORCE_PTX_JIT=1 CUDA_DISABLE_PTX_JIT=1
    assert_line --regexp '^     CUDA_LAUNCH_BLOCKING = 1 +1: each launch returns once its kernel is done; no claim here times a launch$'
    assert_line --regexp '^     CUDA_DEVICE_MAX_CONNECTIONS = 8 +work queues per context'
    assert_line --regexp '^     CUDA_FORCE_PTX_JIT += 1 +1: the kernels. PTX is compiled at load'
    assert_line --regexp '^     CUDA_DISABLE_PTX_JIT = 1 +1: no PTX is compiled'
    shim02
    refute_output --partial "CUDA_LAUNCH_BLOCKING"   # not set: not printed
}

@test "MPS (the shim over the stub): a control daemon's pipe is named; the driver's answer decides; a directory without one says so" {
    mkdir -p "$BATS_TEST_TMPDIR/mps"
    mkfifo "$BATS_TEST_TMPDIR/mps/control"
    shim02 CUDA_MPS_PIPE_DIRECTORY="$BATS_TEST_TMPDIR/mps"
    assert_line --regexp '^     CUDA_MPS_PIPE_DIRECTORY = '
    # the CUDA headers the program was built with (its build's flags name their folder)
    local inc ver
    inc="$(grep -o -- '-I[^ ]*/include' "$ROOT/02_driver_context/${LESSON_BUILD:-build}/flags" | head -n 1)"
    ver="$(awk '$1 == "#define" && $2 == "CUDA_VERSION" { print $3; exit }' "${inc#-I}/cuda.h")"
    [ -n "$ver" ] || fail "cannot tell the CUDA version of the build (flags: $inc)"
    if [ "$ver" -ge 13000 ]; then
        # built with CUDA 13 headers: the shim answers 0 for CU_DEVICE_ATTRIBUTE_MPS_ENABLED, and
        # the driver's word wins
        assert_line "   MPS: the control daemon's pipe is there ($BATS_TEST_TMPDIR/mps/control), but the driver reports this device's"
        assert_line "   contexts are not shared via MPS (CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 0): judged as without MPS"
    else
        # built with CUDA 12 headers (no such attribute): the pipe decides
        assert_line --partial "   MPS: this process is an MPS client (the control daemon's pipe $BATS_TEST_TMPDIR/mps/control): "
        assert_line --partial "step 2's memory claims are not judged"
    fi
    shim02 CUDA_MPS_PIPE_DIRECTORY="$BATS_TEST_TMPDIR/none"
    assert_line "   MPS: CUDA_MPS_PIPE_DIRECTORY is set, but no control daemon's pipe is there ($BATS_TEST_TMPDIR/none/control):"
    assert_line "   this process runs without MPS"
}

# A driver call that fails with CUDA_ERROR_OPERATING_SYSTEM (304), as cuInit or cuCtxCreate do
# under a low open-files limit (ulimit -n 32): a stand-in libcuda.so.1 whose cuInit says so.
# The lesson's call goes through requireDriver, which prints the call and its error (and
# common/check.c's hint about the limit, where it has one); exit 1, no claim after it.
@test "CUDA_ERROR_OPERATING_SYSTEM (304) from cuInit (a stand-in driver): the call and its error printed, exit 1" {
    local dir="$BATS_TEST_TMPDIR/os-error"
    mkdir -p "$dir"
    cat >"$dir/fake.c" <<'C'
typedef int CUresult;
static int up;
CUresult cuInit(unsigned f) { (void)f; return 304; }
CUresult cuDeviceGetCount(int *n) { *n = 0; return up ? 0 : 3; }
CUresult cuCtxGetCurrent(void **c) { (void)c; return 3; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == 304 ? "CUDA_ERROR_OPERATING_SYSTEM" : e == 3 ? "CUDA_ERROR_NOT_INITIALIZED"
        : e == 0 ? "CUDA_SUCCESS" : "OTHER";
    return 0;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
    *s = e == 304 ? "OS call failed or operation not supported on this OS" : "other";
    return 0;
}
C
    cc -shared -fPIC -o "$dir/libcuda.so.1" "$dir/fake.c" || fail "the stand-in did not build"
    # under a low limit of open files, as where 304 was seen (the stand-in opens none)
    LD_LIBRARY_PATH="$dir" run bash -c 'ulimit -S -n 64 && exec "$1"' _ "$BIN"
    assert_equal "$status" 1
    assert_line --regexp 'cuInit\(0\)\) failed: CUDA_ERROR_OPERATING_SYSTEM \(304\)|cuInit\(0\) failed: CUDA_ERROR_OPERATING_SYSTEM \(304\)'
    refute_line --partial "cuInit(0) took"
    if grep -q RLIMIT_NOFILE "$ROOT/common/check.c"; then # the hint, where common/ has it
        assert_output --partial "open files"
        assert_output --partial "64"
    fi
}

@test "a driver older than CUDA 12.2 (the shim over the stub): lazy loading by default is not judged, with the reason" {
    shim02 CUDA_SHIM_DRIVER_VERSION=12010
    assert_line --partial "the driver supports CUDA 12.1; cuDeviceGetCount"
    assert_line --regexp "^  \[n/j\]  CUDA_MODULE_LOADING is not set: loading is lazy - not judged here: the driver supports CUDA 12\.1 and this program's runtime is 1[0-9]\.[0-9]: lazy loading is the default only where both are 12\.2 or newer$"
    shim02 CUDA_SHIM_DRIVER_VERSION=12020
    refute_line --partial "not judged here: the driver supports CUDA"
}
