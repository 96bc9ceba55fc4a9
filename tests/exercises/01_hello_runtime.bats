#!/usr/bin/env bats
# Grader for 01_hello_runtime's exercises. Run it through the lesson:
#     make -C 01_hello_runtime check              grades exercises/ (your work)
#     make -C 01_hello_runtime check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs.

setup() {
    load ../test_helper
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
}

@test "first_context: a context is current after the one runtime call" {
    run "$EXERCISE_BIN/first_context"
    assert_success
    assert_line "a context is current: yes"
}

@test "first_context: it is device 0's primary context" {
    run "$EXERCISE_BIN/first_context"
    assert_success
    assert_line "it is device 0's primary context: yes"
}

@test "check_launch: a good launch still works (256 threads per block)" {
    run "$EXERCISE_BIN/check_launch" --threads 256
    assert_success
    assert_line "256 threads per block: 0 of 65536 elements wrong"
}

@test "check_launch: a bad launch is reported with its cause, file and line, and exits 1" {
    run "$EXERCISE_BIN/check_launch" --threads 2048
    assert_equal "$status" 1
    assert_output --regexp 'main\.c:[0-9]+: cudaGetLastError\(\) failed: cudaErrorInvalid(Value \(1\): invalid argument|Configuration \(9\): invalid configuration argument)'
}

@test "check_launch: a bad launch stops before the data is read back" {
    run "$EXERCISE_BIN/check_launch" --threads 2048
    refute_output --partial "elements wrong"
}

@test "thread_context: the worker thread uses main's context" {
    run "$EXERCISE_BIN/thread_context"
    assert_success
    assert_line "worker's current context: set"
    assert_line "worker uses main's context: yes"
}

@test "library_shutdown: the application's buffer survives the library's shutdown" {
    run "$EXERCISE_BIN/library_shutdown"
    assert_success
    assert_line "the application's buffer survived the library's shutdown: yes"
}

@test "library_shutdown: the library frees its workspace" {
    run "$EXERCISE_BIN/library_shutdown"
    assert_success
    assert_line "the library's workspace is freed: yes"
}

@test "library_shutdown: the library gives back its reference to the primary context, and no more" {
    run "$EXERCISE_BIN/library_shutdown"
    assert_success
    assert_line "the application's buffer survived the library's shutdown: yes"
    assert_line "the library left no reference behind: yes"
}
