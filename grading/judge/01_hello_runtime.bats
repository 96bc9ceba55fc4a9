#!/usr/bin/env bats
# Grader for 01_hello_runtime's exercises. Run it through the lesson:
#     make -C 01_hello_runtime check              grades exercises/ (your work)
#     make -C 01_hello_runtime check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs. Each program is the teacher's harness
# (01_hello_runtime/harness/NAME/) around the student's file: it reports what the driver says
# ("KEY VALUE", once, on the grader's own channel: grading/judge/harness.bash) on inputs made
# from a seed chosen here and handed over on that channel, and these tests judge.

setup() {
    load ../../tests/test_helper
    load harness
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
    seed="$(exercise_seed)"
}

@test "first_context: make_context makes device 0's primary context current, one deep" {
    run_harness "$seed" "$EXERCISE_BIN/first_context"
    assert_success
    assert_harness context_before none
    assert_harness make_context true
    assert_harness state_make_context kept "after make_context(): the primary context current in place of none, and nothing else changed (its flags, the current device)"
    assert_harness current primary "the context current after make_context()"
    assert_harness stack_depth 1 "the depth of the context stack after make_context()"
    n=$((1000 + seed % 4096))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "data copied through that context"
    assert_harness_end "$seed"
}

@test "first_context: primary_context names device 0's primary context and keeps no reference" {
    run_harness "$seed" "$EXERCISE_BIN/first_context"
    assert_success
    # called while a context the harness created is current: the current one is not the answer
    assert_harness primary_context "true primary" "what primary_context() returned (another context current)"
    assert_harness state_primary_context kept "the context stack (the harness's context current, above the primary one), the primary context and the current device after primary_context(): naming a context sets nothing"
    assert_harness refs_beyond_runtime 0 "references to the primary context left beyond the runtime's own"
    n=$((512 + seed % 1024))
    assert_harness canary "$n $(expected_sum "$seed" 7 "$n" 1 0)" "a buffer of the primary context's, made before make_context() and read back after primary_context() (a reset, or a reference given back before one is taken, destroys it)"
    assert_harness_end "$seed"
}

@test "check_launch: launches that work give the right data (several sizes and block sizes)" {
    run_harness "$seed" "$EXERCISE_BIN/check_launch"
    assert_success
    for k in 0 1 2 3; do
        case $k in
            0) n=65536 ;; 1) n=$((1000 + seed % 4096)) ;; 2) n=4097 ;; 3) n=$((3001 + seed % 1000)) ;;
        esac
        assert_harness "case$k" "$n $(expected_sum "$seed" "$k" "$n" 2 0)" "scale_on_device on $n floats"
    done
    assert_harness allocations_left 0 "device allocations of scale_on_device still alive at the end of the run"
    assert_harness state_scale_on_device kept "the current context, the primary context and the current device after every scale_on_device()"
    assert_harness_end "$seed"
}

@test "check_launch: a failed launch is reported with its cause, returns false, reads nothing back, frees its buffer" {
    run_harness "$seed" "$EXERCISE_BIN/check_launch"
    assert_success
    # bad0: 2048 threads per block; bad1: a launch the harness makes fail (1 GiB of shared memory)
    # the last field: checkRuntime was handed the launch's own error (what the harness saw the
    # code do, not a message on stderr)
    assert_harness bad0 "false 0 0 1" "2048 threads per block: returned, copies back after the launch, allocations left, the launch's error given to checkRuntime"
    assert_harness bad1 "false 0 0 1" "a launch that fails whatever the arguments: returned, copies back, allocations left, the launch's error given to checkRuntime"
    assert_harness bad0_host untouched "host[] after the failed launch of 2048 threads per block"
    assert_harness bad1_host untouched "host[] after the launch that failed whatever the arguments"
    assert_harness_end "$seed"
}

@test "thread_context: the worker thread uses main's context, one deep" {
    run_harness "$seed" "$EXERCISE_BIN/thread_context"
    assert_success
    assert_harness worker_before none
    assert_harness bind_worker true
    assert_harness state_bind_worker kept "the worker's stack after bind_worker() (main's context alone), the primary context and the current device"
    assert_harness worker_current main "the worker's current context"
    assert_harness worker_stack_depth 1 "the depth of the worker's context stack"
    n=$((512 + seed % 1024))
    assert_harness canary "$n $(expected_sum "$seed" 7 "$n" 1 0)" "a buffer of main's context, made before the worker and read back after it (a reset on the worker destroys it)"
    n=$((2000 + seed % 4096))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "data copied through the worker's context"
    assert_harness refs_beyond_runtime 0 "references to the primary context left beyond the runtime's own"
    assert_harness_end "$seed"
}

@test "thread_context: bind_worker returns false when the calls that bind a context fail" {
    run_harness "$seed" "$EXERCISE_BIN/thread_context"
    assert_success
    read -r returned _ <<<"$(harness_value bind_failing)"
    [ "$returned" = false ] ||
        fail "on a thread where every call that could bind a context failed (the harness made them fail), bind_worker() returned $returned: its calls' results are not checked"
    assert_harness_end "$seed"
}

@test "library_shutdown: the application's buffer survives the library's shutdown" {
    run_harness "$seed" "$EXERCISE_BIN/library_shutdown"
    assert_success
    assert_harness lib_shutdown true
    # the application had a context of its own current, above the runtime's, during both calls
    assert_harness state_lib_init kept "the context stack, the primary context and the current device after lib_init()"
    assert_harness state_lib_shutdown kept "the context stack, the primary context and the current device after lib_shutdown()"
    n=$((100000 + seed % 50000))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "the application's data read back after lib_shutdown()"
    assert_harness stack "1 application" "the context stack right after lib_shutdown(), before any runtime call (depth, top)"
    assert_harness_end "$seed"
}

@test "library_shutdown: the library frees its workspace and gives back its reference, and no more" {
    run_harness "$seed" "$EXERCISE_BIN/library_shutdown"
    assert_success
    assert_harness workspace freed "the library's workspace after lib_shutdown()"
    assert_harness allocations_left 0 "device allocations of the library still alive after lib_shutdown()"
    assert_harness refs_beyond_runtime 0 "references to the primary context left beyond the runtime's own"
    assert_harness_end "$seed"
}
