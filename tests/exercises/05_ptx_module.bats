#!/usr/bin/env bats
# Grader for 05_ptx_module's exercises. Run it through the lesson:
#     make -C 05_ptx_module check              grades exercises/ (your work)
#     make -C 05_ptx_module check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs.

setup() {
    load ../test_helper
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
}

@test "pack_extra: the extra buffer holds the parameters at their aligned offsets (28 bytes)" {
    run "$EXERCISE_BIN/pack_extra"
    assert_line "packed 28 bytes of arguments"
}

@test "pack_extra: the kernel launched with it computes y = 3x + 1 everywhere" {
    run "$EXERCISE_BIN/pack_extra"
    assert_success
    assert_line "y = 3x + 1 on 65536 floats: 0 wrong"
    assert_line --regexp '^RESULT: PASS'
}

@test "find_kernel: the kernel is looked up by its mangled C++ name" {
    run "$EXERCISE_BIN/find_kernel"
    assert_line --regexp '^kernel name in the module: _Z5scale[A-Za-z0-9_]+$'
}

@test "find_kernel: the kernel found that way runs and scales every element" {
    run "$EXERCISE_BIN/find_kernel"
    assert_success
    assert_line "y = 0.5 y on 65536 floats: 0 wrong"
    assert_line --regexp '^RESULT: PASS'
}

@test "library_kernel: the kernel is loaded once, as a library" {
    run "$EXERCISE_BIN/library_kernel"
    assert_line "loaded once, with cuLibraryLoadData"
}

@test "library_kernel: one load runs right in the primary context and in one created after it" {
    run "$EXERCISE_BIN/library_kernel"
    assert_success
    assert_line "context 0 (primary, existed at the load): y = 2 y on 4096 floats: 0 wrong"
    assert_line "context 1 (created after the load): y = 2 y on 4096 floats: 0 wrong"
    assert_line --regexp '^RESULT: PASS'
}
