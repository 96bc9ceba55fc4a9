#!/usr/bin/env bats
# Grader for 05_ptx_module's exercises. Run it through the lesson:
#     make -C 05_ptx_module check              grades exercises/ (your work)
#     make -C 05_ptx_module check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs. Each program is the teacher's harness
# (05_ptx_module/harness/NAME/) around the student's file: it reports what it saw
# ("KEY VALUE", once, on the grader's own channel: grading/judge/harness.bash) on inputs made
# from a seed chosen here and handed over on that channel, and these tests judge. The
# harnesses compile their kernels to SASS for the GPU (NVRTC, a cubin): no test depends on the
# driver JIT-compiling this toolkit's PTX.

setup() {
    load ../../tests/test_helper
    load harness
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
    seed="$(exercise_seed)"
}

@test "pack_extra: the extra buffer holds the parameters at their aligned offsets (28 bytes)" {
    run_harness "$seed" "$EXERCISE_BIN/pack_extra"
    assert_success
    assert_harness layout "0 8 16 24" "where pack_args() put a, x, y and n"
    assert_harness size 28 "the size pack_args() reported"
    assert_resources pack_extra "what pack_args() made and left (nothing: it only fills a buffer)"
    assert_harness_end "$seed"
}

@test "pack_extra: the kernel launched with it computes y = 3x + 1 everywhere (three sizes)" {
    run_harness "$seed" "$EXERCISE_BIN/pack_extra"
    assert_success
    for k in 0 1 2; do
        case $k in 0) n=$((1000 + seed % 4096)) ;; 1) n=$(((1 << 16) + 4099 + seed % 1000)) ;; 2) n=$((4097 + seed % 100)) ;; esac
        assert_harness "case$k" "$n $(expected_sum "$seed" "$k" "$n" 3 1)" "axpy launched with your buffer on $n floats"
    done
    assert_harness_end "$seed"
}

@test "find_kernel: the kernel is looked up by the mangled name NVRTC gives" {
    run_harness "$seed" "$EXERCISE_BIN/find_kernel"
    assert_success
    # The harness declares scale's parameters by the seed: (float *, float, int), (float *,
    # double, int), (float *, float, unsigned int) or (float *, float, long).
    names=(_Z5scalePffi _Z5scalePfdi _Z5scalePffj _Z5scalePffl)
    assert_harness kernel_name "true ${names[seed % 4]}" "the name kernel_name() gave (terminated within the length given: the buffer held no zero before)"
    assert_harness name_bounds within "kernel_name() wrote only within the length it was given"
    # a second call with less room than the name needs: cut and terminated there, or not given
    read -r cut_len cut_ok cut_end <<<"$(harness_value short_name)"
    [ -n "$cut_len" ] && { [ "$cut_ok" = false ] || [ "$cut_end" = terminated ]; } ||
        fail "kernel_name() given $cut_len byte(s), less than the name needs, returned $cut_ok with the buffer $cut_end: the name must be cut and terminated within the length given, or not given (false)"
    assert_harness lookup found "cuModuleGetFunction with that name"
    read -r added lowered <<<"$(harness_value calls)"
    [ "$added" -ge 1 ] && [ "$lowered" -ge 1 ] ||
        fail "the name must come from NVRTC: nvrtcAddNameExpression called $added time(s), nvrtcGetLoweredName $lowered"
    assert_resources find_kernel "what before_compile() and kernel_name() made and left (nothing of the driver's)"
    assert_harness_end "$seed"
}

@test "find_kernel: the kernel found that way runs and scales every element" {
    run_harness "$seed" "$EXERCISE_BIN/find_kernel"
    assert_success
    n0=$((1000 + seed % 4096)) n1=$((65536 + seed % 7))
    assert_harness case0 "$n0 $(expected_sum "$seed" 0 "$n0" 0.5 0)" "y = 0.5 y on $n0 floats"
    assert_harness case1 "$n1 $(expected_sum "$seed" 1 "$n1" 0.5 0)" "y = 0.5 y on $n1 floats"
    assert_harness_end "$seed"
}

@test "library_kernel: the kernel is loaded once, as a library, and unloaded" {
    run_harness "$seed" "$EXERCISE_BIN/library_kernel"
    assert_success
    assert_harness kernel_load true
    assert_resources library_kernel "what kernel_load() to kernel_unload() made and left (one library or module, loaded once, unloaded)"
    assert_harness loads "1 0" "libraries and modules loaded (one library, no module)"
    assert_harness kernel_unload true
    for call in kernel_load kernel_function0 kernel_function1 kernel_function2 kernel_unload; do
        assert_harness "state_$call" kept "the context stack, the primary context and the current device after ${call%[0-9]}()"
    done
    assert_harness unloads "1 0" "libraries and modules unloaded"
    assert_harness lookup_failing false "kernel_function() while every lookup fails (the harness makes them fail): it must say so"
    assert_harness_end "$seed"
}

@test "library_kernel: a driver call made to fail is reported by kernel_load() or kernel_unload(), and leaves nothing behind" {
    judge_failures "$EXERCISE_BIN/library_kernel" "kernel_load false true" "kernel_unload false true"
}

@test "library_kernel: one load runs right in the primary context and in two created after it" {
    run_harness "$seed" "$EXERCISE_BIN/library_kernel"
    assert_success
    n0=$((1000 + seed % 4096)) n1=$((3000 + seed % 4096)) n2=$((3000 + (seed + 11) % 4096))
    assert_harness case0 "$n0 $(expected_sum "$seed" 0 "$n0" 2 0)" "the primary context (it existed at the load)"
    assert_harness case1 "$n1 $(expected_sum "$seed" 1 "$n1" 2 0)" "context 1, created after the load"
    assert_harness case2 "$n2 $(expected_sum "$seed" 2 "$n2" 2 0)" "context 2, created after the load"
    assert_harness_end "$seed"
}
