#!/usr/bin/env bats
# tests/regimes-05_ptx_module.bats - lesson 05 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

# bats file_tags=gpu
load test_helper
load regimes

# Short runs (--launches 2000) where the regime is about something else than launch cost.

@test "05_ptx_module: CUDA_CACHE_DISABLE=1 - no JIT cache: a load of the same text compiles again, the cache-hit claim is not judged" {
    run_regime 05_ptx_module CUDA_CACHE_DISABLE=1 -- --launches 2000
    assert_line --partial "CUDA_CACHE_DISABLE   =1: no JIT cache"
    assert_line --partial "but CUDA_CACHE_DISABLE=1: no cache, compiled again"
    assert_line --partial "[n/j]  a JIT cache hit"
}

# CUDA's own JIT switches (the Programming Guide's "CUDA Environment Variables", Just-In-Time
# Compilation): each named in step 1; what it changes is claimed as changed or not judged, naming
# the variable; never a wrong [FAIL].
@test "05_ptx_module: CUDA_FORCE_PTX_JIT=1 - the fatbin's PTX is compiled (claimed so), the cache hit not judged, naming the variable" {
    run_regime 05_ptx_module CUDA_FORCE_PTX_JIT=1 -- --launches 2000
    assert_line --partial "   CUDA_FORCE_PTX_JIT=1: the driver ignores the SASS of fatbins"
    assert_line --regexp '^  \[ok\]   under CUDA_FORCE_PTX_JIT=1 the driver ignored the fatbin.s SASS and compiled its PTX \(compute_[0-9]+\): the JIT.s log shows it$'
    assert_line --regexp '^  \[n/j\]  a JIT cache hit .* - not judged here: CUDA_FORCE_PTX_JIT=1 is set: the JIT cache is not what this measures$'
}

@test "05_ptx_module: CUDA_FORCE_JIT=1 - as CUDA_FORCE_PTX_JIT, named" {
    run_regime 05_ptx_module CUDA_FORCE_JIT=1 -- --launches 2000 --skip-errors
    assert_line --partial "   CUDA_FORCE_JIT=1: the driver ignores the SASS of fatbins"
}

@test "05_ptx_module: CUDA_DISABLE_PTX_JIT=1 - SASS everywhere, what needs the JIT not judged, naming the variable" {
    run_regime 05_ptx_module CUDA_DISABLE_PTX_JIT=1 -- --launches 2000
    assert_line --partial "   CUDA_DISABLE_PTX_JIT=1: the driver may refuse to compile PTX"
    run grep -c -E -- '- not judged here: CUDA_DISABLE_PTX_JIT=1 is set: the driver compiles no PTX$' <<<"$output"
    [ "$output" -ge 5 ] || fail "only $output claims not judged for CUDA_DISABLE_PTX_JIT=1"
}

@test "05_ptx_module: CUDA_DISABLE_JIT=1 - PASS, named" {
    run_regime 05_ptx_module CUDA_DISABLE_JIT=1 -- --launches 2000 --skip-errors
    assert_line --partial "   CUDA_DISABLE_JIT=1: the driver may refuse to compile PTX"
}

@test "05_ptx_module: the JIT cache's switches - CUDA_CACHE_PATH unwritable (replaced for the run), CUDA_CACHE_MAXSIZE=0 (the cache hit not judged)" {
    run_regime 05_ptx_module CUDA_CACHE_PATH=/proc/no/such/cache -- --launches 2000 --skip-errors
    assert_line "      in place of yours (/proc/no/such/cache), so that a cold JIT is cold"
    run_regime 05_ptx_module CUDA_CACHE_MAXSIZE=0 -- --launches 2000 --skip-errors
    assert_line --regexp '^  \[n/j\]  a JIT cache hit .* - not judged here: CUDA_CACHE_MAXSIZE=0 is set: the JIT cache is not what this measures$'
}

@test "05_ptx_module: CUDA_LAUNCH_BLOCKING=1 - every launch waits: step 5 does not judge waiting against launching, naming the variable" {
    run_regime 05_ptx_module CUDA_LAUNCH_BLOCKING=1 -- --launches 2000 --skip-errors
    assert_line --regexp '^  \[n/j\]  waiting for each launch to finish .* - not judged here: CUDA_LAUNCH_BLOCKING=1 makes every launch wait for its kernel$'
}

@test "05_ptx_module: CUDA_MODULE_DATA_LOADING=EAGER - named, every claim holds" {
    run_regime 05_ptx_module CUDA_MODULE_DATA_LOADING=EAGER -- --launches 2000 --skip-errors
    assert_line --partial "CUDA_MODULE_DATA_LOADING=EAGER: when a module's data goes to the GPU"
}

# A low open-files limit (ulimit -n 32; the driver holds several descriptors per context): the
# lesson passes, or stops with one line naming the limit (RLIMIT_NOFILE) and its value.
@test "05_ptx_module: ulimit -n 32 - PASS, or one line naming the open-files limit" {
    require_gpu
    run bash -c 'ulimit -n 32 && exec "$0" --launches 2000 --skip-errors' "$(lesson_bin 05_ptx_module)"
    if [ "$status" -eq 0 ]; then
        assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed'
        refute_line --partial "[FAIL]"
    else
        assert_output --regexp 'RLIMIT_NOFILE|open files'
        assert_output --partial "32"
    fi
}

@test "05_ptx_module: CUDA_MODULE_LOADING=EAGER - reported by cuModuleGetLoadingMode, every claim holds" {
    run_regime 05_ptx_module CUDA_MODULE_LOADING=EAGER -- --launches 2000
    assert_line --partial "CUDA_MODULE_LOADING  =EAGER: eager loading"
}

@test "05_ptx_module: CUDA_MODULE_LOADING=LAZY - the default, named" {
    run_regime 05_ptx_module CUDA_MODULE_LOADING=LAZY -- --launches 2000
    assert_line --partial "CUDA_MODULE_LOADING  =LAZY: lazy loading"
}

# (device 0 without CUDA_VISIBLE_DEVICES is the lesson's default run, tests/05_ptx_module.bats)
@test "05_ptx_module: CUDA_VISIBLE_DEVICES=0 with --device 0 - one device shown, numbered 0; --device N on every other visible GPU" {
    run_regime 05_ptx_module CUDA_VISIBLE_DEVICES=0 -- --device 0 --launches 2000 --skip-errors
    assert_line --partial "CUDA_VISIBLE_DEVICES =0: the driver shows 1 device(s)"
    assert_line --regexp "^   device 0: "
    local d
    for d in $(seq 1 $(( $(gpu_count) - 1 ))); do
        run_regime 05_ptx_module -- --device "$d" --launches 2000 --skip-errors
        assert_line --regexp "^   device $d: "
    done
}

@test "05_ptx_module: --launches 1 (the smallest) - the graph claim is not judged, the rest holds" {
    run_regime 05_ptx_module -- --launches 1 --skip-errors
    assert_line --partial "[n/j]  a graph costs less per kernel than launching one by one - not judged here"
}

@test "05_ptx_module: --launches 20001 (one past the graph's cap) - graphs capped at 20000 launches" {
    # (one past the cap, not the option's largest value, 100000: the same path, 4 s shorter)
    run_regime 05_ptx_module -- --launches 20001 --skip-errors
    assert_line --partial "the same 20000 launches, start to finish"
}

# A toolkit newer than the driver (CUDA 13.5 writes PTX ISA 9.5; a driver of CUDA 13.0 JIT-compiles
# up to ISA 9.0: CUDA_ERROR_UNSUPPORTED_PTX_VERSION), emulated with the toolkit here: the lesson
# built with PTX_ISA=9.5 carries PTX whose .version says 9.5, and a fatbin of the cubin and that
# PTX. Every module comes from SASS; what needs the JIT is not judged, with both versions.
@test "05_ptx_module: a toolkit newer than the driver (PTX_ISA=9.5) - SASS everywhere, the JIT's claims not judged with the versions" {
    require_gpu
    # (tests/05_ptx_module.bats builds the same, for ARCH=90, in the first phase: with that ARCH
    # make finds it up to date)
    local b="$ROOT/05_ptx_module/build/ptx-isa-9.5"
    env -u MAKEFLAGS nice make -s -j8 -C "$ROOT/05_ptx_module" PTX_ISA=9.5 BUILD=build/ptx-isa-9.5 build/ptx-isa-9.5/ptx_module \
        >"$BATS_TEST_TMPDIR/build.log" 2>&1 || fail "the PTX_ISA=9.5 build failed: $(tail -n 5 "$BATS_TEST_TMPDIR/build.log")"
    grep -qx '.version 9.5' "$b/kernels.ptx" || fail "kernels.ptx does not say .version 9.5"
    local LESSON_BUILD
    LESSON_BUILD="$(realpath --relative-to="$ROOT/05_ptx_module" "$b")"
    run_regime 05_ptx_module -- --launches 2000
    if grep -q "): the driver can compile it" <<<"$output"; then
        skip "this driver JIT-compiles PTX ISA 9.5: nothing to emulate"
    fi
    assert_line --regexp "this build's PTX is ISA 9\.5, NVRTC [0-9.]+$"
    assert_line --partial "This driver can run this toolkit's programs (their SASS) but cannot compile their PTX"
    assert_line "   a) cuModuleLoad(\"kernels.ptx\") -> CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)"
    assert_line "  [ok]   the driver refuses PTX newer than its JIT: CUDA_ERROR_UNSUPPORTED_PTX_VERSION, as the versions said"
    local why="not judged here: the driver \(CUDA [0-9]+\.[0-9]+, JIT up to PTX ISA [0-9]+\.[0-9]+\) cannot compile this toolkit's PTX \(ISA 9\.5\): update the driver, or build with the toolkit it came with"
    for what in "the JIT is the driver's own compiler" "a cold JIT is more than 10x slower than loading SASS" \
                "a JIT cache hit costs less than half a cold JIT" "a PTX syntax error is CUDA_ERROR_INVALID_PTX" \
                "PTX for a newer architecture than the card's does not load" "the runtime loads PTX with cudaLibraryLoadData"; do
        assert_line --regexp "^  \[n/j\]  $what.* - $why$"
    done
    # the SASS paths ran and computed: the cubin file, the fatbin (its PTX could not be the one taken), NVRTC's cubin
    assert_line --partial 'cuModuleLoad("kernels.cubin") instead, the SASS the build made'
    assert_line --regexp '^  \[ok\]   from the fatbin the driver took the SASS that fits this sm_[0-9]+ card \(sm_[0-9]+\): the JIT did not run$'
    assert_line --regexp 'nvrtcGetCUBIN gives a cubin of [0-9]+ bytes'
    assert_line --regexp "^      NVRTC's cubin +0 wrong$"
    assert_line --regexp "^      cubin file, cuModuleLoad +0 wrong$"
    assert_line "  [ok]   every loading path, NVRTC's included, gives the same result, bit for bit"
    assert_line "  [ok]   the runtime loaded a library (the fatbin's SASS) and launched a kernel from it (CUDA 12.8)"
    assert_line "  [ok]   PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION: update the driver"
    refute_line --partial "[n/j]  a kernel on a part of the SMs"
}

# Under compute-sanitizer (as make sanitize runs it): every call is checked and slowed many
# times, so the claims that compare timings are not judged, and the rest still hold.
# bats test_tags=shared
@test "05_ptx_module: under compute-sanitizer (memcheck) - PASS, its timing claims not judged, naming the tool" {
    require_gpu
    local sanitizer
    sanitizer="$(sanitizer_tool)"
    [ -x "$sanitizer" ] || skip "no compute-sanitizer"
    run "$sanitizer" --tool memcheck --error-exitcode 99 --report-api-errors no \
        "$(lesson_bin 05_ptx_module)" --launches 200
    assert_success
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed, [0-9]+ not judged$'
    refute_line --partial "[FAIL]"
    assert_line --partial "ERROR SUMMARY: 0 errors"
    for what in "cuLaunchKernel and <<<>>> cost about the same" "a launch costs the host microseconds" \
                "a JIT cache hit \\(" "a cold JIT \\("; do
        assert_line --regexp "^  \[n/j\]  $what.* - not judged here: this run is under compute-sanitizer"
    done
}

# As in a container beside another job: the lesson in a PID namespace of its own (NVML lists
# no one), another program copying both ways on the GPU. Step 8 compares the whole GPU before
# and after the part, so a neighbour makes it not judged rather than wrong.
@test "05_ptx_module: in a PID namespace of its own beside a program copying on the GPU - every claim holds or is not judged" {
    start_copy_neighbour
    run_regime_contained 05_ptx_module -- --launches 2000 --skip-errors
}

# A GPU with little free memory (an 8 GiB card, or another job holding the rest): the lesson
# needs a few MiB, and every claim holds.
@test "05_ptx_module: another program holds all but 2 GiB of the GPU's memory - every claim holds" {
    start_memory_hog 2
    run_regime 05_ptx_module -- --launches 2000 --skip-errors
}
