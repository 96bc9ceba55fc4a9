#!/usr/bin/env bats
# Grader for 02_driver_context's exercises. Run it through the lesson:
#     make -C 02_driver_context check              grades exercises/ (your work)
#     make -C 02_driver_context check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs.

setup() {
    load ../test_helper
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
}

@test "stack_order: the buffer is allocated in ctxA" {
    run "$EXERCISE_BIN/stack_order"
    assert_success
    assert_line "buffer belongs to: ctxA"
}

@test "stack_order: the stack ends as it began, ctxB on top of ctxA" {
    run "$EXERCISE_BIN/stack_order"
    assert_success
    assert_line "stack at the end (top first): ctxB, ctxA, none"
}

@test "share_primary: the library works in the runtime's primary context" {
    run "$EXERCISE_BIN/share_primary"
    assert_success
    assert_line "library context is the runtime's: yes"
    assert_line "library buffer belongs to the runtime's context: yes"
}

@test "share_primary: the application reads the library's buffer after the library is done" {
    run "$EXERCISE_BIN/share_primary"
    assert_success
    assert_line "library buffer still valid after the library finished: yes"
    assert_line "application read the library's data: 1024 of 1024 words right"
}

@test "context_leak: every task still computes the right data" {
    run "$EXERCISE_BIN/context_leak"
    assert_success
    assert_line "tasks done right: 4 of 4"
}

@test "context_leak: the tasks give their device memory back" {
    run "$EXERCISE_BIN/context_leak"
    assert_success
    assert_line "memory given back: yes"
}

@test "context_leak: the context stack is back to the observer" {
    run "$EXERCISE_BIN/context_leak"
    assert_success
    assert_line "current context at the end: observer"
}

@test "entry_point: cuMemGetInfo comes from the runtime's entry point, the size_t ABI" {
    run "$EXERCISE_BIN/entry_point"
    assert_success
    assert_line "cuMemGetInfo entry point: found (cudaDriverEntryPointSuccess)"
    assert_line "cuMemGetInfo is libcuda's cuMemGetInfo_v2: yes"
}

@test "entry_point: the function obtained agrees with the runtime" {
    run "$EXERCISE_BIN/entry_point"
    assert_success
    assert_line "total device memory, driver vs runtime: the same"
}

@test "entry_point: the per-thread-default-stream variant of cuMemcpyAsync" {
    run "$EXERCISE_BIN/entry_point"
    assert_success
    assert_line "per-thread cuMemcpyAsync is libcuda's cuMemcpyAsync_ptsz: yes"
}
