#!/usr/bin/env bats
# 05_ptx_module: kernels as PTX and cubin, loaded and launched through the Driver API.

load test_helper

setup() {
    LESSON="$ROOT/05_ptx_module"
    lesson_bin -v BIN 05_ptx_module
    [ -x "$BIN" ] || fail "$BIN is not built: run make first"
}

# The number (a decimal) that follows the text $1 on the line that contains it.
number_after() {
    sed -n -E "s/.*$1 *([0-9]+\.[0-9]+).*/\1/p" <<<"$LESSON_OUT" | head -n 1
}

# awk-evaluated comparison of numbers: is_true "a > 10 * b" a=1 b=2
is_true() {
    local expr="$1"
    shift
    awk "$@" "BEGIN { exit !($expr) }"
}

# ---- on the GPU -------------------------------------------------------------------------

# bats test_tags=gpu
@test "GPU: the lesson passes every check (exit 0, verdict PASS, nothing on stderr)" {
    run_lesson
    assert_equal "$LESSON_STATUS" 0
    run tail -n 1 <<<"$LESSON_OUT"
    assert_output --regexp '^RESULT: PASS - all [0-9]+ checks passed(, [0-9]+ not judged)?$'
    run grep -c -F '[FAIL]' <<<"$LESSON_OUT"
    assert_output 0
    assert_equal "$LESSON_ERR" ""
}

# What differs from machine to machine and is not the lesson's: byte counts (the toolkit's code
# generation), the driver's version in its files' names, how many GPUs are visible (step 7 has
# a line per GPU, and with one GPU a claim not judged). A time with one more digit shifts its
# column: squeeze runs of spaces on both sides.
normalize_05() {
    normalize | sed -E -e 's/[0-9]+ bytes/N bytes/g' -e 's/\.so\.[0-9#.]+/.so.VERSION/g' \
        -e "s/driver's version \([0-9#.]+\)/driver's version (VERSION)/" \
        -e 's/[0-9]+ of [0-9]+ SMs/N of N SMs/g' -e 's/[0-9]+ SMs/N SMs/g' -e 's/min [0-9]+/min N/' \
        -e 's/in [0-9]+ blocks/in N blocks/' -e 's/SASS for sm_[0-9]+( sm_[0-9]+)*; PTX for/SASS for ARCHS; PTX for/' \
        -e 's/[0-9]+ (visible )?device\(s\)/N \1device(s)/g' -e 's/all [0-9]+ contexts on [0-9]+ GPU/all N contexts on N GPU/' \
        -e 's/^RESULT: PASS - all [0-9]+ checks passed.*/RESULT: PASS/' |
        grep -v -e '^      device [1-9][0-9]*, primary context' -e 'a second GPU' | tr -s ' '
}

# bats test_tags=gpu
@test "GPU: the output matches tests/expected/05_ptx_module.out after normalising" {
    run_lesson
    diff -u <(tr -s ' ' <"$ROOT/tests/expected/05_ptx_module.out") <(normalize_05 <<<"$LESSON_OUT")
}

# bats test_tags=gpu
@test "GPU: step 1 - the driver's JIT and this build's PTX: versions read, the driver can compile it" {
    run_lesson
    assert_regex "$LESSON_OUT" "the driver's JIT reads PTX up to ISA [0-9]+\\.[0-9]+ \\(CUDA [0-9]+\\.[0-9]+\\); this build's PTX is ISA [0-9]+\\.[0-9]+, NVRTC"
    assert_regex "$LESSON_OUT" "writes ISA [0-9]+\\.[0-9]+ \\(built with CUDA [0-9]+\\.[0-9]+\\): the driver can compile it"
    [[ "$LESSON_OUT" != *"not judged here: the driver (CUDA"* ]] || fail "a claim was not judged for the JIT"
}

# bats test_tags=gpu
@test "GPU: step 1 - the CUDA environment variables this lesson depends on, and what each changes" {
    run_lesson
    assert_regex "$LESSON_OUT" 'CUDA_CACHE_DISABLE +(unset|=[^:]*): '
    assert_regex "$LESSON_OUT" 'CUDA_MODULE_LOADING +(unset|=[^:]*): (lazy|eager) loading'
    assert_regex "$LESSON_OUT" 'CUDA_VISIBLE_DEVICES +(unset|=[^:]*): the driver shows [0-9]+ device'
}

# bats test_tags=gpu
@test "GPU: step 2a - the JIT is the driver's own compiler library, of the driver's version" {
    run_lesson
    assert_regex "$LESSON_OUT" 'the JIT that compiled it: libnvidia-ptxjitcompiler\.so\.[0-9.]+, mapped'
    run grep -E -- "^  \[ok\]   the JIT is the driver's own compiler, of the driver's version \([0-9.]+\), not the toolkit's ptxas$" <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 2e - from the fatbin the driver takes the SASS that fits the card" {
    run_lesson
    assert_regex "$LESSON_OUT" 'e\) cuModuleLoadDataEx\(kernels_fatbin, '
    card="$(sed -n -E 's/.*compute capability [0-9.]+ \(sm_([0-9]+)\).*/\1/p' <<<"$LESSON_OUT")"
    assert_regex "$LESSON_OUT" "CU_FUNC_ATTRIBUTE_BINARY_VERSION: $card"
    assert_claim "from the fatbin the driver took the SASS that fits this sm_$card card (sm_$card): the JIT did not run"
    assert_regex "$LESSON_OUT" "the JIT's info log: no kernel compiled \\(JIT time [0-9.]+ ms\\)"
}

# bats test_tags=gpu
@test "GPU: step 1 - the PTX names the entry points, for a target the card can run" {
    assert_claim 'the PTX names the entry points axpy and empty: extern "C" kept the names plain'
    run_lesson
    assert_regex "$LESSON_OUT" 'kernels\.ptx +[0-9]+ bytes: PTX ISA [0-9]+\.[0-9]+, \.target sm_[0-9]+, entries: axpy empty'
    run grep -F -- "[ok]   its target (sm_" <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 2 - every way of loading found the kernel; the JIT log and wall time were read" {
    run_lesson
    assert_regex "$LESSON_OUT" 'a\) cuModuleLoad\("kernels\.ptx"\)'
    assert_regex "$LESSON_OUT" 'b\) cuModuleLoadData\(kernels_ptx\)'
    assert_regex "$LESSON_OUT" 'c\) cuModuleLoadDataEx\(kernels_ptx \+ one line, 7 options'
    assert_regex "$LESSON_OUT" 'd\) cuModuleLoadData\(kernels_cubin\): load [0-9.]+ ms'
    run grep -F -- "[ok]   the JIT reported its own time (" <<<"$LESSON_OUT"
    assert_success
    assert_claim "the JIT's info log names the kernel axpy"
}

# bats test_tags=gpu
@test "GPU: step 2 - a cold JIT is more than 10x slower than loading a cubin" {
    run_lesson
    cold="$(number_after 'cold JIT, a new text each time')"
    cubin="$(number_after 'cubin, no JIT')"
    [ -n "$cold" ] && [ -n "$cubin" ] || fail "times not found"
    is_true "c > 10 * b" -v c="$cold" -v b="$cubin" || fail "cold $cold ms, cubin $cubin ms"
    run grep -F -- "[ok]   a cold JIT ($cold ms) is more than 10x slower than loading the cubin ($cubin ms)" <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 2 - a JIT cache hit costs less than half a cold JIT; the first file load was cold" {
    run_lesson
    cold="$(number_after 'cold JIT, a new text each time')"
    hit="$(number_after 'JIT cache hit, the same text')"
    is_true "h < c / 2" -v c="$cold" -v h="$hit" || fail "hit $hit ms, cold $cold ms"
    run grep -F -- "[ok]   a JIT cache hit ($hit ms) costs less than half a cold JIT" <<<"$LESSON_OUT"
    assert_success
    run grep -F -- "[ok]   the very first load from the PTX file (" <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 3 - cuFuncGetAttribute agrees with the JIT log, SASS for this card" {
    run_lesson
    run grep -E -- '^  \[ok\]   cuFuncGetAttribute and the JIT log agree: [1-9][0-9]* registers$' <<<"$LESSON_OUT"
    assert_success
    run grep -E -- '^  \[ok\]   the function can take 256-thread blocks, and the JIT made SASS for this card \(sm_[0-9]+\)$' <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 3 - cuLaunchKernel with kernelParams and with the packed extra buffer" {
    assert_claim "the kernelParams launch computed every element right"
    assert_claim "the extra (packed buffer) launch computed every element right"
    run_lesson
    assert_regex "$LESSON_OUT" 'y = 2\.0 \* x \+ y on 1048576 floats, 0 wrong'
    assert_regex "$LESSON_OUT" 'a at 0, x at 8, y at 16, n at 24; size 28, the end'
    assert_regex "$LESSON_OUT" 'of n \(a C struct of the four is 32 bytes, with tail padding\); 0 wrong'
}

# bats test_tags=gpu
@test "GPU: step 4 - NVRTC's PTX, and every loading path, give the same result" {
    assert_claim "NVRTC's PTX names the entry point axpy"
    assert_claim "every loading path, NVRTC's included, gives the same result, bit for bit"
    run_lesson
    for what in "PTX file, cuModuleLoad" "embedded PTX, cuModuleLoadData" \
                "embedded PTX, cuModuleLoadDataEx" "embedded cubin, cuModuleLoadData" "NVRTC's PTX"; do
        run grep -E -- "^      $what +0 wrong\$" <<<"$LESSON_OUT"
        assert_success
    done
}

# bats test_tags=gpu
@test "GPU: step 5 - cuLaunchKernel and <<<>>> cost about the same, microseconds each" {
    run_lesson
    cu="$(number_after '   cuLaunchKernel  ')"
    rt="$(number_after 'the runtime.s launch\)')"
    sync="$(number_after 'cuLaunchKernel \+ cuCtxSynchronize')"
    [ -n "$cu" ] && [ -n "$rt" ] && [ -n "$sync" ] || fail "launch costs not found"
    is_true "cu / rt > 0.5 && cu / rt < 2" -v cu="$cu" -v rt="$rt" || fail "cuLaunchKernel $cu us, <<<>>> $rt us"
    is_true "cu < 20 && rt < 20 && sync > cu" -v cu="$cu" -v rt="$rt" -v sync="$sync" || fail "$cu $rt $sync"
    run grep -F -- "[ok]   cuLaunchKernel and <<<>>> cost about the same (ratio " <<<"$LESSON_OUT"
    assert_success
    assert_claim "a launch costs the host microseconds, not milliseconds"
}

# bats test_tags=gpu
@test "GPU: step 5 - a CUDA graph (runtime and Driver API capture) costs less per kernel" {
    run_lesson
    for way in "cuLaunchKernel, one by one" "<<<>>>, one by one" "graph, runtime stream capture" \
               "graph, Driver API stream capture"; do
        assert_regex "$LESSON_OUT" "      $way +[0-9.]+ us"
    done
    g="$(number_after 'graph, runtime stream capture')" c="$(number_after 'cuLaunchKernel, one by one')"
    is_true "g < c" -v g="$g" -v c="$c" || fail "graph $g us, one by one $c us"
    run grep -F -- "[ok]   a graph runs the same kernels at less cost per kernel (" <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 6 - common mistakes: a C++ kernel by its plain name, a parameter of the wrong size both ways, one initialiser" {
    assert_claim "a C++ kernel is not found by its plain name"
    assert_claim "by its mangled name the same kernel is found and adds one to every element"
    assert_claim "for a 4-byte parameter the driver copied 4 bytes from &N, the first half of the size_t"
    assert_claim "the driver copied the parameter's 8 bytes from &n: 4 of n, 4 of its neighbour"
    assert_claim "an initialiser list sets the elements it names; the rest are zero"
    run_lesson
    assert_regex "$LESSON_OUT" 'g\) a common example.s add_one, compiled as C\+\+ \(no extern "C"\): cuModuleGetFunction\("add_one"\)'
    assert_regex "$LESSON_OUT" '-> CUDA_ERROR_NOT_FOUND \(500\); the PTX.s entry is _Z7add_onePfi'
    assert_regex "$LESSON_OUT" 'h\) a common example.s kernelParams \{&d_data, &N\} with size_t N = 1024, for a kernel whose n is'
    # the GPU machines' hosts are little-endian (x86-64, ARM64): the int gets N's low half
    assert_regex "$LESSON_OUT" 'an int: the kernel received 1024, the first 4 of N.s 8 bytes \(on this little-endian host'
    assert_regex "$LESSON_OUT" 'the kernel received 30064772096 = 7 \* 2\^32 \+ 1024'
}

# bats test_tags=gpu
@test "GPU: step 7 - one library for every context; a module for its own context only" {
    assert_claim "a module's function does not run in another context: one module per context"
    run_lesson
    n="$(gpu_count)"
    run grep -E -- "^  \[ok\]   one cuLibraryLoadData served all $((n + 2)) contexts on $n GPU\(s\), one created after it too$" <<<"$LESSON_OUT"
    assert_success
    for d in $(seq 0 $((n - 1))); do
        assert_regex "$LESSON_OUT" "      device $d, primary context +0 wrong"
    done
    assert_regex "$LESSON_OUT" '      user context created after the load +0 wrong'
    if [ "$n" -lt 2 ]; then
        run grep -F -- "[n/j]  the same library serves a second GPU - not judged here: one GPU is visible" <<<"$LESSON_OUT"
        assert_success
    fi
}

# bats test_tags=gpu
@test "GPU: step 7 - the runtime loads PTX (cudaLibraryLoadData); a <<<>>> kernel as a Driver API handle" {
    assert_claim "the runtime loaded PTX and launched a kernel from it (CUDA 12.8)"
    assert_claim "a kernel compiled into the program is a CUfunction the Driver API can query and launch"
    assert_claim "the runtime's cudaKernel_t is a CUkernel: the Driver API takes it (CUDA 12.8)"
    run_lesson
    assert_regex "$LESSON_OUT" 'cudaLaunchKernel\s+of the cudaKernel_t: y = 2\.0 \* x \+ y on 1048576 floats, 0 wrong|of the cudaKernel_t: y = 2\.0 \* x \+ y on 1048576 floats, 0 wrong'
}

# bats test_tags=gpu
@test "GPU: step 8 - a green context on a part of the SMs runs the kernel as much longer as the SM ratio says" {
    run_lesson
    if grep -q -F "[n/j]  a kernel on a part of the SMs takes longer" <<<"$LESSON_OUT"; then
        assert_regex "$LESSON_OUT" 'the green context could not be made here: CUDA_ERROR_[A-Z_]+'
        return
    fi
    assert_regex "$LESSON_OUT" 'cuDeviceGetDevResource: [0-9]+ SMs; cuDevSmResourceSplitByCount\(min [0-9]+\): a group of [0-9]+ SMs'
    assert_regex "$LESSON_OUT" 'the whole GPU \(primary context\) +[0-9.]+ ms   \(its rounds: [0-9.]+-[0-9.]+\)'
    # judged only when the whole GPU ran the kernel as fast in every round; this
    # test needs it judged (tests/regimes-05_ptx_module.bats runs the lesson beside another program)
    run grep -F "[n/j]  a kernel on a part of the SMs takes as much longer" <<<"$LESSON_OUT"
    [ -z "$output" ] || fail "step 8 was not judged: ${output#*not judged here: }"
    run grep -E -- '^  \[ok\]   on [0-9]+ of [0-9]+ SMs the kernel took [0-9.]+x as long, within a third of the SM ratio \([0-9.]+x\)$' <<<"$LESSON_OUT"
    assert_success
}

# bats test_tags=gpu
@test "GPU: step 6 - the errors made on purpose, each with its code" {
    assert_claim "a missing file is CUDA_ERROR_FILE_NOT_FOUND"
    assert_claim "a PTX syntax error is CUDA_ERROR_INVALID_PTX, and only the error log says where: line "
    # the line the claim names is the one the JIT's log names, and the misspelt one of the PTX
    local said logged misspelt
    said="$(sed -nE "s/.*only the error log says where: line ([0-9]+) of the text, 'rte'$/\1/p" <<<"$LESSON_OUT")"
    logged="$(sed -nE "s/^ +\| ptxas application ptx input, line ([0-9]+); error .*'rte'.*/\1/p" <<<"$LESSON_OUT" | head -n 1)"
    misspelt="$(grep -n -m1 'ret;' "$LESSON/${LESSON_BUILD:-build}/kernels.ptx" | cut -d: -f1)"
    [ -n "$said" ] && [ "$said" = "$logged" ] && [ "$said" = "$misspelt" ] ||
        fail "the claim says line '$said', the log '$logged', the PTX's first ret; is on line '$misspelt'"
    assert_claim "a kernel name that is not in the module is CUDA_ERROR_NOT_FOUND"
    assert_claim "PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION: update the driver"
    assert_claim "PTX for a newer architecture than the card's does not load"
    assert_claim "an NVRTC compile error is NVRTC_ERROR_COMPILATION, explained in the program log"
    run_lesson
    assert_regex "$LESSON_OUT" 'cuModuleLoad\("no/such/kernels\.ptx"\) -> CUDA_ERROR_FILE_NOT_FOUND \(301\)'
    assert_regex "$LESSON_OUT" 'cuModuleGetFunction\(module, "saxpy"\) -> CUDA_ERROR_NOT_FOUND \(500\)'
}

# (shared: each of these runs ends at an error made on purpose, exit 1; the tests assert that
# error and its message, which another program on the GPU cannot change, and no timing)
# bats test_tags=gpu,shared
@test "GPU: --ptx with a syntax error: exit 1, CUDA_ERROR_INVALID_PTX and the JIT's error log" {
    require_gpu
    sed '0,/ret;/s//rte;/' "$LESSON/build/kernels.ptx" >"$BATS_TEST_TMPDIR/broken.ptx"
    run "$BIN" --ptx "$BATS_TEST_TMPDIR/broken.ptx"
    assert_equal "$status" 1
    assert_output --partial "CUDA_ERROR_INVALID_PTX (218)"
    assert_output --partial "the JIT's error log"
    assert_output --regexp "\| .*rte"
}

# bats test_tags=gpu,shared
@test "GPU: --kernel naming a kernel the module lacks: exit 1, CUDA_ERROR_NOT_FOUND and the entries" {
    require_gpu
    run "$BIN" --kernel saxpy
    assert_equal "$status" 1
    assert_output --partial "CUDA_ERROR_NOT_FOUND (500)"
    assert_output --partial "the module has no kernel named 'saxpy'"
    assert_output --partial "its PTX entries are: axpy empty"
}

# bats test_tags=gpu,shared
@test "GPU: --ptx with a PTX ISA version newer than the driver's: exit 1, CUDA_ERROR_UNSUPPORTED_PTX_VERSION" {
    require_gpu
    sed 's/^\.version .*/.version 99.9/' "$LESSON/build/kernels.ptx" >"$BATS_TEST_TMPDIR/newer.ptx"
    run "$BIN" --ptx "$BATS_TEST_TMPDIR/newer.ptx"
    assert_equal "$status" 1
    assert_output --partial "CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)"
}

# bats test_tags=gpu,shared
@test "GPU: --ptx for an architecture newer than the card: exit 1 with the JIT's log" {
    require_gpu
    sed 's/^\.target .*/.target sm_120/' "$LESSON/build/kernels.ptx" >"$BATS_TEST_TMPDIR/newer-sm.ptx"
    [ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d .)" -lt 120 ] \
        || skip "this card is sm_120 or newer"
    run "$BIN" --ptx "$BATS_TEST_TMPDIR/newer-sm.ptx"
    assert_equal "$status" 1
    assert_output --partial "cuModuleLoad could not load"
    assert_output --partial "the JIT's error log"
}

# bats test_tags=gpu,shared
@test "GPU: --nvrtc with a compile error: exit 1, NVRTC_ERROR_COMPILATION and NVRTC's log" {
    require_gpu
    printf 'extern "C" __global__ void axpy(float a, const float *x, float *y, int n)\n{\n    y[0] = a * x[0] + oops;\n}\n' \
        >"$BATS_TEST_TMPDIR/broken.cu"
    run "$BIN" --nvrtc "$BATS_TEST_TMPDIR/broken.cu" --launches 10
    assert_equal "$status" 1
    assert_output --partial "NVRTC_ERROR_COMPILATION (6)"
    assert_output --partial "NVRTC could not compile $BATS_TEST_TMPDIR/broken.cu; its log:"
    assert_output --regexp '\| .*identifier "oops" is undefined'
}

# bats test_tags=gpu
@test "GPU: --ptx may name the cubin (cuModuleLoad reads any module file); --launches, --skip-errors" {
    require_gpu
    run "$BIN" --ptx "$LESSON/build/kernels.cubin" --launches 100 --skip-errors
    assert_success
    assert_output --partial "empty kernel, 100 launches per run"
    refute_output --partial "6. Errors you will meet"
}

# bats test_tags=gpu
@test "GPU: --device past the last device is a usage error (exit 2)" {
    require_gpu
    run "$BIN" --device 99
    assert_equal "$status" 2
    assert_output --partial "--device 99 does not exist"
}

# bats test_tags=gpu
@test "GPU: the demo loads nvcc -ptx's text, launches axpy and checks it (exit 0)" {
    require_gpu
    run "$LESSON/build/demo" "$LESSON/build/kernels.ptx"
    assert_success
    assert_line --regexp 'kernels\.ptx: [0-9]+ bytes of PTX text$'
    assert_line --regexp '^axpy: PTX version [0-9]+, SASS for sm_[0-9]+; the GPU: compute capability [0-9]+\.[0-9]+$'
    # the SASS the JIT made is the card's own: sm_XY for compute capability X.Y
    local sm cc
    sm="$(sed -nE 's/^axpy: .*SASS for sm_([0-9]+);.*/\1/p' <<<"$output")"
    cc="$(sed -nE 's/^axpy: .*compute capability ([0-9]+)\.([0-9]+)$/\1\2/p' <<<"$output")"
    assert_equal "$sm" "$cc"
    assert_line "  [ok]   cuModuleLoadData compiled the PTX into this GPU's own SASS"
    assert_line "  [ok]   cuLaunchKernel(axpy): y = 2 * x + y, all 65536 elements right"
    assert_line "RESULT: PASS - all 2 checks passed"
}

# bats test_tags=gpu,shared
@test "GPU: the exercises' reference solutions pass the grader" {
    assert_solutions_pass 05_ptx_module "" 7
}

# bats test_tags=gpu,shared
@test "GPU: the untouched exercises fail the grader, every one of them" {
    require_gpu
    run_grader 05_ptx_module exercises
    assert_failure
    assert_output --regexp 'not ok [0-9]+ pack_extra'
    assert_output --regexp 'not ok [0-9]+ find_kernel'
    assert_output --regexp 'not ok [0-9]+ library_kernel'
}

# ---- anywhere: the build's products, no GPU, no driver, bad command lines ---------------

@test "the build made kernels.ptx with nvcc -ptx, naming both entry points" {
    ptx="$LESSON/build/kernels.ptx"
    [ -f "$ptx" ] || fail "no $ptx"
    run grep -E '^\.version [0-9]+\.[0-9]+$' "$ptx"
    assert_success
    run grep -E '^\.target sm_[0-9]+' "$ptx"
    assert_success
    run grep -o -E '^\.visible \.entry [a-z_]+\(' "$ptx"
    assert_line --index 0 '.visible .entry axpy('
    assert_line --index 1 '.visible .entry empty('
}

@test "the build made kernels.cubin for the first ARCH, holding both kernels" {
    cubin="$LESSON/build/kernels.cubin"
    [ -f "$cubin" ] || fail "no $cubin"
    cuobjdump="$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/cuobjdump"
    [ -x "$cuobjdump" ] || cuobjdump="$(command -v cuobjdump)" || skip "no cuobjdump"
    run "$cuobjdump" -sass "$cubin"
    assert_success
    assert_output --regexp 'Function : axpy'
    assert_output --regexp 'Function : empty'
    arch="$(grep -E '^\.target sm_' "$LESSON/build/kernels.ptx" | sed -E 's/.*sm_([0-9]+).*/\1/')"
    run "$cuobjdump" -elf "$cubin"
    assert_output --regexp "sm=$arch,"
}

@test "the program carries the PTX, the cubin, the fatbin and kernels.cu (one NUL byte more each)" {
    command -v nm >/dev/null || skip "no nm"
    for pair in kernels_ptx:build/kernels.ptx kernels_cubin:build/kernels.cubin \
                kernels_fatbin:build/kernels.fatbin kernels_cu:kernels.cu; do
        sym="${pair%%:*}" file="$LESSON/${pair#*:}"
        hex="$(nm -S --defined-only "$BIN" | awk -v s="$sym" '$4 == s { print $2 }')"
        [ -n "$hex" ] || fail "no symbol $sym in $BIN"
        assert_equal "$((16#$hex))" "$(( $(wc -c <"$file") + 1 ))"
    done
}

@test "no visible device (CUDA_VISIBLE_DEVICES empty): exit 77 with a plain message" {
    run_with_no_visible_device "$BIN"
}

@test "the toolkit's stub driver as libcuda.so.1: exit 77, says it is the stub" {
    run_with_stub_driver "$BIN"
}

@test "no driver library at all: exit 77, no loader error (NVRTC needs no driver)" {
    run_with_no_driver "$BIN"
}

@test "the JIT cache directory the lesson makes (in TMPDIR) is removed at exit" {
    # made in TMPDIR: where that cannot be, the lesson says so
    TMPDIR="$BATS_TEST_TMPDIR/no/such/dir" run "$BIN"
    assert_equal "$status" 1
    assert_output --partial "ptx_module: mkdtemp $BATS_TEST_TMPDIR/no/such/dir/ptx_module-jit-cache-"
    # in a TMPDIR of this test's own (no other run of the lesson can touch it): nothing left
    mkdir -p "$BATS_TEST_TMPDIR/tmp"
    CUDA_VISIBLE_DEVICES= TMPDIR="$BATS_TEST_TMPDIR/tmp" run "$BIN"
    assert_equal "$status" 77
    run ls -A "$BATS_TEST_TMPDIR/tmp"
    assert_output ""
}

@test "the demo: built by make, a missing PTX file is exit 2 naming the nvcc -ptx line, no driver is exit 77" {
    [ -x "$LESSON/build/demo" ] || fail "make did not build build/demo"
    # linked with -lcuda, the demo needs a libcuda.so.1 to start at all: the stub where no
    # driver is installed (it reads the PTX file before any CUDA call)
    local dir
    dir="$(stub_driver_dir)" || skip "no stub libcuda.so in the CUDA toolkit"
    LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run "$LESSON/build/demo" "$BATS_TEST_TMPDIR/none.ptx"
    assert_equal "$status" 2
    assert_output "demo: cannot read $BATS_TEST_TMPDIR/none.ptx: make it with nvcc -ptx -o kernels.ptx kernels.cu"
    run_with_stub_driver "$LESSON/build/demo" "$LESSON/build/kernels.ptx"
}

@test "demo.c: the idea in CUDA's own names, a quarter CUDA calls, each checked; main() of 40 lines at most" {
    local demo="$LESSON/demo.c"
    run awk '/^int main\(/,/^}$/' "$demo"
    [ "${#lines[@]}" -le 40 ] || fail "main() is ${#lines[@]} lines"
    [ "$(grep -cE '^[a-z].*\)$' "$demo")" -le 3 ] || fail "more than main and two story functions"
    run "$ROOT/tools/check-core" "$demo"
    assert_success
    # every Driver API call (strings and comments left out) is checked on its line, none chained
    run bash -c "sed -e 's@/\\*.*\\*/@@' -e 's/\"[^\"]*\"//g' '$demo' | grep -vE '^ *(/?\\*|//)' | grep -E 'cu[A-Z][A-Za-z]*\\(' | grep -vE 'checkDriver\\(cu[A-Z][A-Za-z]*\\('"
    assert_output ""
    run "$ROOT/tools/check-chains" "$demo"
    assert_success
    # the three calls of the idea, in program order
    run bash -c "sed -e 's/\"[^\"]*\"//g' '$demo' | grep -oE 'cu(ModuleLoadData|ModuleGetFunction|LaunchKernel)\\(' | tr '\\n' ' '"
    assert_output "cuModuleLoadData( cuModuleGetFunction( cuLaunchKernel( "
}

@test "demo.c: built by the README's nvcc line in a copy of the lesson folder alone; the stub driver is exit 77" {
    line="$(demo_nvcc_line "$LESSON/README.md")"
    assert_equal "$line" "nvcc -ptx -o kernels.ptx kernels.cu && nvcc -o demo demo.c -lcuda"
    command -v nvcc >/dev/null || skip "no nvcc here"
    local d="$BATS_TEST_TMPDIR/alone"
    mkdir -p "$d"
    mkdir -p "$d/05_ptx_module" # no common/ beside it, no build output in it (copied then removed before)
    (cd "$LESSON" && tar cf - --exclude='./build*' .) | (cd "$d/05_ptx_module" && tar xf -)
    readme_build "$d/05_ptx_module" "$line"   # (the same inputs built once: test_helper.bash)
    assert_success
    [ -x "$d/05_ptx_module/demo" ] && [ -s "$d/05_ptx_module/kernels.ptx" ] || fail "the line made no demo or no kernels.ptx"
    cd "$d/05_ptx_module"
    run_with_stub_driver ./demo
    refute_output --partial "RESULT:"
}

@test "core.c holds the idea: no graph, no green context (proof/ has them), no && chain of more than three calls" {
    run grep -nE 'Graph|GreenCtx|green_context|DevResource' "$LESSON/core.c" "$LESSON/core.h"
    assert_output ""
    grep -q '^static bool capture_graph_runtime(' "$LESSON/proof/step5_launch_cost.c"
    grep -q '^static CUresult green_context(' "$LESSON/proof/step8_green.c"
    run "$ROOT/tools/check-core" "$LESSON/core.c"
    assert_success
    run "$ROOT/tools/check-chains" "$LESSON/core.c"
    assert_success
}

@test "the statements of round 5: the first JIT and cuInit's documented preload, the error log's line, IN_DEPTH's figures those of its blocks" {
    local d="$LESSON/IN_DEPTH.md" flat
    flat="$(tr '\n' ' ' <"$d" | sed 's/  */ /g')"
    # cuda.h's note on cuInit, quoted as it is, and what was measured beside it
    grep -qF 'cuInit preloads various libraries needed for JIT compilation. To opt-out of this behavior, set the environment variable CUDA_FORCE_PRELOAD_LIBRARIES=0' \
        <<<"$(grep -A2 'cuInit preloads various' "${CUDA_PATH:-/usr/local/cuda}/include/cuda.h" | tr '\n' ' ' | sed 's/ \* / /g; s/  */ /g')" ||
        skip "this toolkit's cuda.h words the note otherwise"
    grep -qF '"cuInit preloads various libraries needed for JIT compilation. To opt-out of this behavior, set the environment variable CUDA_FORCE_PRELOAD_LIBRARIES=0. CUDA will lazily load JIT libraries as needed."' <<<"$flat" ||
        fail "IN_DEPTH.md does not quote cuda.h's note on cuInit"
    grep -qF 'no `libnvidia-ptxjitcompiler` was mapped after `cuInit`, with that variable unset and set to 0 alike' <<<"$flat" ||
        fail "IN_DEPTH.md does not say what was measured after cuInit"
    run grep -c 'reading that library from disk, and later runs' "$d"
    assert_output 0
    # the program prints the measurement each run: not mapped after cuInit (or mapped already)
    grep -q '"not mapped after cuInit"' "$LESSON/proof/step2_loading.c"
    # the syntax error's claim checks the line the log names, computed from the text
    run grep -c 'strstr(L->log->error, where)' "$LESSON/proof/step6_errors.c"
    assert_output 1
    # the prose quotes the figures of the block it follows: step 2a's first load, step 4's NVRTC
    local first nvrtc
    first="$(sed -nE 's/^ +the first JIT in this process .*: load ([0-9.]+) ms,$/\1/p' "$d" | head -n 1)"
    nvrtc="$(sed -nE 's/^ +NVRTC [0-9.]+, nvrtcCompileProgram\(.*\): ([0-9.]+) ms,.*/\1/p' "$d" | head -n 1)"
    first="$(printf '%.1f' "$first")" nvrtc="$(printf '%.1f' "$nvrtc")"
    [ -n "$first" ] && [ -n "$nvrtc" ] || fail "no first load or NVRTC figure in IN_DEPTH.md's blocks"
    grep -qF "The first PTX load of the process is the dearest: $first ms in the run above" <<<"$flat" ||
        fail "2a's prose does not quote its block's $first ms"
    grep -qF "It cost $nvrtc ms for this file in the run above" <<<"$flat" || fail "step 4's prose does not quote its block's $nvrtc ms"
    run grep -cE '73\.0 ms|24\.8 ms' "$d"
    assert_output 0
}

@test "--help prints the usage on stdout and exits 0" {
    run "$BIN" --help
    assert_success
    assert_line --index 0 --regexp '^usage: ptx_module '
    assert_output --partial "--ptx FILE"
    assert_output --partial "--kernel NAME"
}

@test "bad options exit 2 with the usage" {
    for args in "--bogus" "--device" "--device x" "--device -1" "--launches 0" "--launches 100001" "--launches 1x" \
                "--nvrtc /no/such/file.cu" "--ptx /no/such/file.ptx" "extra"; do
        run "$BIN" $args
        assert_usage_error
    done
    for opt in --ptx --kernel --nvrtc; do
        run "$BIN" "$opt" ""
        assert_usage_error
        assert_output --partial "needs a non-empty value"
    done
}

@test "getopt's own messages name the program by its short name, as the program's do" {
    run "$BIN" --bogus
    assert_usage_error
    assert_line --index 0 "ptx_module: unrecognized option '--bogus'"
}

# ---- issue 12: files named on the command line, the build anywhere ------------------------

@test "--ptx naming a missing file or a directory: exit 2 before any CUDA call, as --nvrtc" {
    for opt in --ptx --nvrtc; do
        run "$BIN" "$opt" "$BATS_TEST_TMPDIR/missing"
        assert_usage_error
        assert_line --index 0 "ptx_module: $opt $BATS_TEST_TMPDIR/missing: No such file or directory"
        refute_output --partial "1. What the build made"
    done
}

@test "--nvrtc or --ptx naming a directory says it is a directory (exit 2)" {
    for opt in --ptx --nvrtc; do
        run "$BIN" "$opt" "$BATS_TEST_TMPDIR"
        assert_usage_error
        assert_line --index 0 "ptx_module: $opt $BATS_TEST_TMPDIR: Is a directory"
    done
}

@test "--nvrtc or --ptx at a FIFO or a device: exit 2 at once, one line, not waiting for a writer" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    for opt in --ptx --nvrtc; do
        for file in "$BATS_TEST_TMPDIR/fifo" /dev/zero; do
            run timeout 10 "$BIN" "$opt" "$file"
            assert_usage_error
            assert_line --index 0 "ptx_module: $opt $file: not a regular file (a FIFO, a device or a socket): name a file"
        done
    done
}

@test "--nvrtc naming a file of more than 16 MiB: exit 2 with a clear message" {
    truncate -s 17M "$BATS_TEST_TMPDIR/big.cu"
    run "$BIN" --nvrtc "$BATS_TEST_TMPDIR/big.cu"
    assert_usage_error
    assert_line --index 0 "ptx_module: --nvrtc $BATS_TEST_TMPDIR/big.cu: more than 16 MiB: not a CUDA source file"
}

# The lesson's decisions from the driver's version, taken before any context, on the machine the
# shim describes over the toolkit's stub driver (tests/shims/cuda_shim.c answers cuInit and the
# device queries; the first call that needs a GPU then stops at the stub: exit 77).

@test "a driver of an older major version (the shim over the stub, CUDA 11.8): too old to compile the PTX, and to run the program: exit 77" {
    shim_over_stub "$BIN" CUDA_SHIM_DRIVER_VERSION=11080
    assert_equal "$status" 77
    assert_line --regexp "^   the driver's JIT reads PTX up to ISA 7\.8 \(CUDA 11\.8\); this build's PTX is ISA [0-9]+\.[0-9]+, NVRTC [0-9.]+$"
    assert_line --regexp "^   writes ISA [0-9]+\.[0-9]+ \(built with CUDA [0-9.]+\): too new for it$"
    assert_line --partial "This driver is of an older major version than the toolkit: it cannot run this toolkit's"
    assert_line --partial "cannot run here: the installed NVIDIA driver is older than this program's CUDA runtime"
}

@test "a driver newer than the toolkit (the shim over the stub, CUDA 13.9): the driver can compile this build's PTX" {
    shim_over_stub "$BIN" CUDA_SHIM_DRIVER_VERSION=13090
    assert_line --regexp "^   the driver's JIT reads PTX up to ISA 9\.9 \(CUDA 13\.9\); this build's PTX is ISA [0-9]+\.[0-9]+, NVRTC [0-9.]+$"
    assert_line --regexp "^   writes ISA [0-9]+\.[0-9]+ \(built with CUDA [0-9.]+\): the driver can compile it$"
    refute_line --partial "cannot compile their PTX"
}

@test "make PTX_ISA=9.5: kernels.ptx says .version 9.5, the fatbin holds it; on a CUDA 13.0 driver (the shim) the program runs SASS, not the JIT" {
    run make -s -C "$LESSON" PTX_ISA=x BUILD="$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/b/kernels.ptx"
    assert_failure
    assert_output --partial "PTX_ISA must be a PTX ISA version such as 9.5, not 'x'"
    # (in the tree's build/, where tests/regimes-05's PTX_ISA=9.5 regime finds it built, when
    # its ARCH is 90 too, rather than building it while it holds the GPU alone)
    # (BUILD relative to the lesson: make cannot take a goal whose path holds a space)
    local b="$LESSON/build/ptx-isa-9.5"
    run env -u MAKEFLAGS make -s -j2 -C "$LESSON" PTX_ISA=9.5 ARCH=90 BUILD=build/ptx-isa-9.5 build/ptx-isa-9.5/ptx_module
    assert_success
    run grep -x '.version 9.5' "$b/kernels.ptx"
    assert_success
    [ "$(fatbin_images "$b/kernels.fatbin" | sort | tr '\n' ' ')" = "compute_90 sm_90 " ] \
        || fail "fatbin holds: $(fatbin_images "$b/kernels.fatbin" | tr '\n' ' ')"
    shim_over_stub "$b/ptx_module" CUDA_SHIM_DRIVER_VERSION=13000
    assert_equal "$status" 77
    assert_line --regexp "^   kernels.ptx +[0-9]+ bytes: PTX ISA 9\\.5, \\.target sm_90, entries: axpy empty$"
    assert_line --regexp "^   the driver's JIT reads PTX up to ISA 9\.0 \(CUDA 13\.0\); this build's PTX is ISA 9\.5, NVRTC [0-9.]+$"
    assert_line --regexp "^   writes ISA [0-9]+\.[0-9]+ \(built with CUDA [0-9.]+\): too new for it$"
    assert_line "   This driver can run this toolkit's programs (their SASS) but cannot compile their PTX: update"
}

# CUDA's own switches (the Programming Guide's "CUDA Environment Variables"): step 1 reads them
# before any context, so the shim over the stub shows each decision before the stub stops the
# program (exit 77). One test per family; the GPU runs are tests/regimes-05_ptx_module.bats'.

@test "CUDA_FORCE_PTX_JIT=1 / CUDA_FORCE_JIT=1 (the shim over the stub, an sm_90 card): named; the lesson goes on where the build has PTX the card can take, else exit 77 naming the variable" {
    local ptx_ok=0 a var
    for a in $(fatbin_images "$LESSON/build/kernels.fatbin" | sed -n 's/^compute_//p'); do
        [ "$a" -gt 90 ] || ptx_ok=1
    done
    for var in CUDA_FORCE_PTX_JIT CUDA_FORCE_JIT; do
        shim_over_stub "$BIN" "$var=1"
        assert_equal "$status" 77
        if [ "$ptx_ok" = 1 ]; then
            assert_line --regexp "^   $var=1: the driver ignores the SASS of fatbins \(this program's and\$"
            assert_line --partial "that, and a JIT cache hit is not judged"
            assert_line --partial "cannot run here: libcuda.so.1 is the CUDA toolkit's stub library"
        else
            assert_line --regexp "^ptx_module: $var=1 makes the driver ignore SASS and compile PTX, and this build's PTX \(compute_[0-9 _compute]+\) is for a newer GPU than this sm_90 one: unset $var, or build PTX for this card \(make ARCH=90\)\$"
            refute_line --partial "stub library"
        fi
    done
}

@test "CUDA_DISABLE_PTX_JIT=1 / CUDA_DISABLE_JIT=1 (the shim over the stub): named in step 1, with what the lesson does then" {
    local var
    for var in CUDA_DISABLE_PTX_JIT CUDA_DISABLE_JIT; do
        shim_over_stub "$BIN" "$var=1"
        assert_equal "$status" 77
        assert_line "   $var=1: the driver may refuse to compile PTX: step 2a tries, and where it refuses"
        assert_line --partial "every step loads SASS (the cubin, the fatbin, NVRTC's cubin) and what needs the JIT"
    done
}

@test "the JIT cache's switches (the shim over the stub): CUDA_CACHE_DISABLE, a CUDA_CACHE_PATH of the user's (unwritable), CUDA_CACHE_MAXSIZE 0, tiny or roomy" {
    shim_over_stub "$BIN" CUDA_CACHE_DISABLE=1 CUDA_CACHE_PATH=/proc/no/such/cache CUDA_CACHE_MAXSIZE=0
    assert_equal "$status" 77
    assert_line "   CUDA_CACHE_DISABLE   =1: no JIT cache: the same PTX is compiled again at every load (steps 2, 4)"
    assert_line "   JIT cache: CUDA_CACHE_PATH set to a new empty directory (removed at exit),"
    assert_line "      in place of yours (/proc/no/such/cache), so that a cold JIT is cold"
    assert_line "   CUDA_CACHE_MAXSIZE=0: the driver caches no binary larger than that many bytes: a JIT"
    shim_over_stub "$BIN" CUDA_CACHE_MAXSIZE=4096
    assert_line --partial "CUDA_CACHE_MAXSIZE=4096: the driver caches no binary larger than that"
    shim_over_stub "$BIN" CUDA_CACHE_MAXSIZE=lots
    assert_line --partial "CUDA_CACHE_MAXSIZE=lots: the driver caches no binary larger than that"
    shim_over_stub "$BIN" CUDA_CACHE_MAXSIZE=1073741824
    assert_line "   CUDA_CACHE_MAXSIZE=1073741824: room enough for this lesson's binaries"
}

@test "CUDA_LAUNCH_BLOCKING=1, CUDA_MODULE_DATA_LOADING and CUDA_FORCE_PRELOAD_LIBRARIES (the shim over the stub): named in step 1, with the step they change" {
    shim_over_stub "$BIN" CUDA_LAUNCH_BLOCKING=1 CUDA_MODULE_DATA_LOADING=EAGER
    assert_equal "$status" 77
    assert_line "   CUDA_LAUNCH_BLOCKING=1: every launch returns only when its kernel is done: step 5"
    assert_line "   CUDA_MODULE_DATA_LOADING=EAGER: when a module's data goes to the GPU; no claim here depends on it"
    refute_line --partial "CUDA_FORCE_PRELOAD_LIBRARIES"
    # cuda.h's cuInit: "preloads various libraries needed for JIT compilation" unless this is 0
    shim_over_stub "$BIN" CUDA_FORCE_PRELOAD_LIBRARIES=0
    assert_equal "$status" 77
    assert_line "   CUDA_FORCE_PRELOAD_LIBRARIES=0: whether cuInit preloads the JIT's libraries (0: when first"
    assert_line "      needed); step 2a says whether the JIT compiler was mapped before the first load"
    shim_over_stub "$BIN" CUDA_LAUNCH_BLOCKING=0
    refute_line --partial "CUDA_LAUNCH_BLOCKING"
}

# A driver that has one device and does nothing else: enough to reach the code that follows
# cuDeviceGetCount without a GPU.
fake_driver_dir() {
    local dir="$BATS_TEST_TMPDIR/fake-driver" cuda
    cuda="$(cuda_root)"
    mkdir -p "$dir"
    cat >"$dir/fake.c" <<'C'
#include <cuda.h>
CUresult cuInit(unsigned int f) { (void)f; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *c) { *c = 1; return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { *v = CUDA_VERSION; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) { (void)e; *s = "CUDA_ERROR_FAKE"; return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult e, const char **s) { (void)e; *s = "a fake driver"; return CUDA_SUCCESS; }
C
    ${CC:-cc} -shared -fPIC -I"$cuda/include" -o "$dir/libcuda.so.1" "$dir/fake.c" || return 1
    echo "$dir"
}

@test "--device past the last device (a fake one-device driver): exit 2, and the --nvrtc text is freed" {
    local leakcheck lsan
    # The leak check, a leak making it exit 99, by the cheapest tool at hand: each finds a
    # definitely lost block (with the --nvrtc text's free taken out of proof/main.c, each
    # reported read_file's buffer).
    if [ "${LESSON_BUILD:-build}" = build-hostsan ]; then
        # The program is the HOST_SANITIZE=1 build (CI's second step): its own LeakSanitizer.
        leakcheck=(env ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=exitcode=99 "$BIN")
    elif lsan="$(${CC:-cc} -print-file-name=liblsan.so 2>/dev/null)" && [ -f "$lsan" ]; then
        # LeakSanitizer preloaded into the program itself (it takes over malloc and free and
        # checks at exit): 50 ms, where valgrind took 3.5 s and a HOST_SANITIZE=1 build of the
        # program 8 s of CPU, the longest tests of make test. (Memory errors other than leaks
        # are CI's second step's, on the HOST_SANITIZE=1 build: above.)
        leakcheck=(env LD_PRELOAD="$lsan" LSAN_OPTIONS=exitcode=99 "$BIN")
    elif command -v valgrind >/dev/null; then
        leakcheck=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite
                   --show-leak-kinds=definite --error-exitcode=99 "$BIN")
    else
        # No LeakSanitizer to preload and no valgrind: the program built with HOST_SANITIZE=1
        # into a folder of this test's.
        local b="$BATS_TEST_TMPDIR/hostsan"
        make -s -C "$LESSON" -j4 HOST_SANITIZE=1 BUILD="$b" "$b/ptx_module" >"$BATS_TEST_TMPDIR/hostsan.log" 2>&1 \
            || fail "the HOST_SANITIZE=1 build failed: $(tail -n 5 "$BATS_TEST_TMPDIR/hostsan.log")"
        leakcheck=(env ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=exitcode=99 "$b/ptx_module")
    fi
    dir="$(fake_driver_dir)" || fail "could not build the fake driver"
    printf 'extern "C" __global__ void axpy(float a, const float *x, float *y, int n) {}\n' >"$BATS_TEST_TMPDIR/k.cu"
    LD_LIBRARY_PATH="$dir" run "${leakcheck[@]}" --nvrtc "$BATS_TEST_TMPDIR/k.cu" --device 5
    assert_equal "$status" 2
    assert_output --partial "ptx_module: --device 5 does not exist: this machine shows 1 device(s), 0 to 0"
    refute_output --partial "definitely lost"
    refute_output --partial "LeakSanitizer"
}

@test "make sass names the cuobjdump it looked for when there is none" {
    run make -s -C "$LESSON" sass CUOBJDUMP="$BATS_TEST_TMPDIR/no/cuobjdump"
    assert_failure
    assert_output --partial "cuobjdump not found (looked for '$BATS_TEST_TMPDIR/no/cuobjdump')"
}

# ---- what the lesson's documents say of toolkits, checked against their headers -----------------------

# The Driver API's "Green Contexts" section (the comment above those calls in cuda.h) is the
# README's source for step 8: a green context's kernels get its SMs, never fewer, in some cases
# more. The toolkits at hand: the one on PATH and those tests/toolkits fetched.
toolkit_includes() {
    local inc
    for inc in "$(cuda_root)/include" "${XDG_CACHE_HOME:-$HOME/.cache}"/cuda-lessons/cuda-*/include; do
        [ -f "$inc/cuda.h" ] && [ -f "$inc/cuda_runtime_api.h" ] && echo "$inc"
    done
}

@test "green contexts: each toolkit's cuda.h says work may run on more SMs than provisioned, never fewer, as the README does" {
    local inc n=0
    while IFS= read -r inc; do
        grep -q 'more SMs than was provisioned (but never less)' "$inc/cuda.h" \
            || fail "$inc/cuda.h does not say 'more SMs than was provisioned (but never less)'"
        n=$((n + 1))
    done < <(toolkit_includes)
    [ "$n" -gt 0 ] || fail "no toolkit headers found"
    run bash -c 'cat "$1/README.md" "$1/IN_DEPTH.md" | grep -c -e "never fewer" -e "more SMs than was provisioned"' _ "$LESSON"
    assert_output --regexp '^[2-9]'
    run grep -F 'those SMs only' "$LESSON/README.md" "$LESSON/IN_DEPTH.md" "$LESSON"/*.c "$LESSON"/proof/*.c
    assert_failure
}

@test "green contexts in the runtime: a toolkit's cuda_runtime_api.h declares cudaGreenCtxCreate exactly from CUDA 13.1, as the README says" {
    local inc v has n=0
    while IFS= read -r inc; do
        v="$(sed -n -E 's/^#define CUDART_VERSION +([0-9]+).*/\1/p' "$inc/cuda_runtime_api.h")"
        [ -n "$v" ] || fail "no CUDART_VERSION in $inc/cuda_runtime_api.h"
        has=0
        ! grep -q 'CUDARTAPI cudaGreenCtxCreate(' "$inc/cuda_runtime_api.h" || has=1
        [ "$has" -eq "$((v >= 13010))" ] || fail "$inc: CUDA runtime $v, declares cudaGreenCtxCreate: $has"
        if [ "$v" -ge 13010 ]; then
            for call in cudaDeviceGetDevResource cudaDevSmResourceSplitByCount cudaDevResourceGenerateDesc \
                        cudaExecutionCtxStreamCreate cudaExecutionCtxDestroy; do
                grep -q "CUDARTAPI $call(" "$inc/cuda_runtime_api.h" || fail "$inc: no $call"
            done
        fi
        n=$((n + 1))
    done < <(toolkit_includes)
    [ "$n" -gt 0 ] || fail "no toolkit headers found"
    assert_regex "$(cat "$LESSON/README.md" "$LESSON/IN_DEPTH.md" | tr '\n' ' ')" 'runtime has green contexts *from CUDA 13\.1'
}

@test "IN_DEPTH's Common mistakes and step 6h describe the same mismatch: the example's size_t N for an int, then the reverse" {
    local section
    section="$(sed -n '/^## Common mistakes/,/^## /p' "$LESSON/IN_DEPTH.md")"
    [[ "$section" == *'`size_t N = 1024;`'* && "$section" == *'void *args[] = { &d_data, &N };'* ]] \
        || fail "Common mistakes does not show the example's size_t N and its args line"
    [[ "$section" == *'an `int` passed for an 8-byte parameter'* ]] || fail "Common mistakes does not name the reverse"
    # the program's own text for 6h (printed on the GPU; here read from the binary)
    grep -a -q "kernelParams {&d_data, &N} with size_t N = 1024, for a kernel whose n is" "$BIN" \
        || fail "step 6h does not print the example's size_t N case"
    grep -a -q "the reverse, a pointer to a 4-byte int for an 8-byte parameter" "$BIN" \
        || fail "step 6h does not print the reverse case"
}

# fatbin_images and cuobjdump_path: tests/test_helper.bash (tests/build.bats reads fatbins too).
# The fatbin of another ARCH list ("75 90": SASS for both, PTX for 90) is tests/build.bats'.

@test "the lesson's own build: the fatbin it carries holds SASS for every architecture of ARCH and ARCH_ALSO" {
    archs="$(env -u MAKEFLAGS make -s -C "$LESSON" print-arch)"
    [ -n "$archs" ] || fail "make print-arch printed nothing"
    also="$(env -u MAKEFLAGS make -s -C "$LESSON" print-arch-also)" # a T4's sm_75 beside a default ARCH
    want="$(for a in $archs $also; do echo "sm_$a"; done; echo "compute_${archs##* }")"
    assert_equal "$(fatbin_images "$LESSON/build/kernels.fatbin" | sort)" "$(sort <<<"$want")"
    hex="$(nm -S --defined-only "$BIN" | awk '$4 == "kernels_fatbin" { print $2 }')"
    assert_equal "$((16#$hex))" "$(( $(wc -c <"$LESSON/build/kernels.fatbin") + 1 ))"
}
