#!/usr/bin/env bats
# Grader for 02_driver_context's exercises. Run it through the lesson:
#     make -C 02_driver_context check              grades exercises/ (your work)
#     make -C 02_driver_context check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs. Each program is the teacher's harness
# (02_driver_context/harness/NAME/) around the student's file: it reports what the driver says
# ("KEY VALUE", once, on the grader's own channel: grading/judge/harness.bash) on inputs made
# from a seed chosen here and handed over on that channel, and these tests judge.

# grade: gpu_alone per test
# grade: gpu_memory 8192 MiB a test
# (grading/grade runs this file's tests tagged gpu_alone with the GPU alone and the others
# beside other gradings, on the same kept runs and seed: every test whose verdict rests on a
# time or on the GPU's free memory is tagged, whether it runs its program or reads a run that
# another test kept; a test untagged judges results and resources only. The task of more than
# 2^31 bytes reads no free memory, but is tried only where that much is free: tagged gpu_memory,
# it shares the GPU where its total memory and the host's hold 8 GiB for each grading beside it,
# else it too runs with the GPU alone)

setup() {
    load ../../tests/test_helper
    load harness
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
    seed="$(exercise_seed)"
    # the points the judge asks for, in the harnesses' order: context_leak measures memory from
    # outside around its control sample and its tasks; the others ask only for the seed
    HARNESS_POINTS=seed
    case "$BATS_TEST_DESCRIPTION" in
        "context_leak: a task of more than 2^31 bytes"*) ;; # its own run (--big), no measure
        context_leak:*) HARNESS_POINTS="measure:probe_before measure:probe_with measure:probe_after seed measure:tasks_before measure:tasks_after" ;;
    esac
    export HARNESS_POINTS
}

@test "stack_order: the buffer is allocated in ctxA and holds data" {
    run_harness "$seed" "$EXERCISE_BIN/stack_order"
    assert_success
    assert_harness allocate_in_a true
    assert_harness owner ctxA "the context that owns the buffer"
    n=$((1000 + seed % 8192))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "data copied through the buffer"
    assert_harness allocations_left 0 "device allocations of allocate_in_a() other than the buffer it handed back"
    assert_harness_end "$seed"
}

@test "stack_order: the stack ends as it began, ctxB on top of ctxA, nothing more" {
    run_harness "$seed" "$EXERCISE_BIN/stack_order"
    assert_success
    assert_harness stack "ctxB ctxA" "the context stack after allocate_in_a(), top first"
    assert_harness state_allocate_in_a kept "the context stack, the primary context and the current device after allocate_in_a()"
    assert_harness_end "$seed"
}

@test "share_primary: the library works in the runtime's primary context" {
    run_harness "$seed" "$EXERCISE_BIN/share_primary"
    assert_success
    assert_harness library_begin true
    # the application had a context of its own current, above the runtime's
    assert_harness state_library_begin kept "after library_begin(): the primary context current over the application's (pushed, or set in place of it), and nothing else changed"
    assert_harness library_context "runtime runtime" "the context library_begin() returned, and the one current after it"
    assert_harness buffer_owner runtime "the context that owns the buffer made between begin and end"
    assert_harness library_reference held "while the library works, a reference of its own to the primary context (the harness gives one back and asks whether the context is still active): borrowing the current context holds none"
    assert_harness_end "$seed"
}

@test "share_primary: after the library is done the application reads its buffer, the stack is the application's and no reference is left" {
    run_harness "$seed" "$EXERCISE_BIN/share_primary"
    assert_success
    assert_harness library_end true
    assert_harness state_library_end kept "the context stack (the application's own context current again), the primary context and the current device after library_end(), as library_begin() found them"
    assert_harness stack runtime "the context stack after library_end(), top first"
    n=$((1000 + seed % 8192))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "the library's data read by the application with the runtime"
    assert_harness contexts_left 0 "contexts the library created and did not destroy"
    assert_harness refs_beyond_runtime 0 "references to the primary context left beyond the runtime's own"
    assert_harness_end "$seed"
}

# bats test_tags=gpu_alone
@test "context_leak: every task computes the right data (four sizes)" {
    run_harness "$seed" "$EXERCISE_BIN/context_leak"
    assert_success
    for k in 0 1 2 3; do
        n=$((200000 + (seed + 7 * k) % 100000))
        assert_harness "case$k" "$n $(expected_sum "$seed" "$k" "$n" 1 0)" "task $k"
    done
    assert_harness_end "$seed"
}

# (a run of its own, on a seed of its own: it reads no free memory but needs 2 GiB and more of
# it, on the GPU and on the host, free, so it shares the GPU where the grader's gpu_memory line
# holds for every grading beside it)
# bats test_tags=gpu_memory
@test "context_leak: a task of more than 2^31 bytes computes the right data (where this machine has the memory)" {
    seed="$(new_seed)"
    run_harness "$seed" "$EXERCISE_BIN/context_leak" --big
    assert_success
    v="$(harness_value case4)"
    [ "${v%% *}" != untried ] || skip "the harness did not try it: ${v#untried }"
    n=$(((1 << 29) + 1 + seed % 4096))
    assert_harness case4 "$n $(expected_sum "$seed" 4 "$n" 1 0)" "task 4: $n floats, $((n * 4)) bytes (a byte count in 32 bits wraps past 2^31)"
    assert_harness state_task4 kept "the context stack, the primary context and the current device after the task"
    assert_harness_end "$seed"
}

# kept_within_half LOST ONE NOISE SLACK: the memory the tasks kept (MiB) is no more than half
# of what one context with its buffer takes, beyond the control sample's noise and SLACK.
kept_within_half() {
    awk -v l="$1" -v c="$2" -v z="$3" -v s="$4" 'BEGIN { exit !(l <= c / 2 + z + s) }'
}

# bats test_tags=gpu_alone
@test "context_leak: the tasks destroy their contexts and give their device memory back" {
    run_harness "$seed" "$EXERCISE_BIN/context_leak"
    assert_success
    assert_harness contexts_left 0 "contexts the tasks created and did not destroy"
    read -r lost one noise <<<"$(harness_value memory_lost_mib)"
    # One context with one buffer (measured first, by the harness) is the scale: the four
    # tasks may not keep half of that, beyond the noise of the control sample.
    kept_within_half "$lost" "$one" "$noise" 1 ||
        fail "the tasks kept ${lost} MiB of device memory; one context with its buffer takes ${one} MiB here (noise ${noise} MiB)"
    # The same rule from outside the program: the device memory NVML lists for it, read by the
    # grader's relay at the moments the harness read cuMemGetInfo (harness_measure). Where NVML
    # cannot see the program (no nvidia-smi; a container without the host's process IDs) the
    # point rests on what the harness saw inside (TEACHING.md). NVML counts whole MiB: 2 MiB of
    # slack for the rounding of the two differences.
    local m p0 p1 p2 t0 t1
    if m="$(for k in probe_before probe_with probe_after tasks_before tasks_after; do
        harness_memory "$k" || exit 1; done)"; then
        read -r p0 p1 p2 t0 t1 <<<"$(tr '\n' ' ' <<<"$m")"
        lost=$((t1 - t0)) one=$((p1 - p0)) noise=$((p2 > p0 ? p2 - p0 : p0 - p2))
        kept_within_half "$lost" "$one" "$noise" 2 ||
            fail "NVML, outside the program, saw the tasks keep $lost MiB of device memory; one context with its buffer takes $one MiB there (noise $noise MiB)"
    fi
    assert_harness_end "$seed"
}

@test "context_leak: a task whose allocation fails returns false and still destroys its context" {
    run_harness "$seed" "$EXERCISE_BIN/context_leak"
    assert_success
    assert_harness error_task "false 0" "a task whose cuMemAlloc fails: returned, contexts it left"
    assert_harness_end "$seed"
}

@test "context_leak: the context stack is back to the observer" {
    run_harness "$seed" "$EXERCISE_BIN/context_leak"
    assert_success
    assert_harness stack observer "the context stack after the tasks, top first"
    for k in 0 1 2 3; do
        assert_harness "state_task$k" kept "the context stack, the primary context and the current device after task $k"
    done
    assert_harness_end "$seed"
}

# skip_not_gradable: the harness, built with CUDA older than 12.5, reported that it cannot
# grade this exercise (not graded, rather than failed).
skip_not_gradable() {
    local why
    if [ -z "$report_why" ] && why="$(printf '%s\n' "$report" | sed -n 's/^not_gradable //p')" && [ -n "$why" ]; then
        skip "not gradable with this toolkit: $why"
    fi
}

@test "entry_point: cuMemGetInfo comes from the runtime's entry-point query, the size_t ABI" {
    run_harness "$seed" "$EXERCISE_BIN/entry_point"
    skip_not_gradable
    assert_success
    assert_harness get_mem_info "true success cuMemGetInfo_v2" "what get_mem_info() returned (call, query result, function)"
    assert_harness state_entry_points kept "the context stack, the primary context and the current device after get_mem_info() and get_per_thread_copy()"
    assert_harness total same "the total device memory, through your pointer and from the runtime"
    read -r q1 q2 <<<"$(harness_value queries)"
    [ "$q1" -ge 1 ] || fail "get_mem_info() did not ask the runtime (cudaGetDriverEntryPointByVersion)"
    read -r fn_src status_src copy_src <<<"$(harness_value sources)"
    [ "$fn_src" = query ] || fail "the pointer get_mem_info() handed back is not the one its query of cuMemGetInfo returned"
    [ "$status_src" = query ] || fail "the status get_mem_info() handed back is not the one its query returned"
    assert_harness_end "$seed"
}

@test "entry_point: the per-thread-default-stream variant of cuMemcpyAsync" {
    run_harness "$seed" "$EXERCISE_BIN/entry_point"
    skip_not_gradable
    assert_success
    assert_harness get_per_thread_copy "true cuMemcpyAsync_ptsz" "what get_per_thread_copy() returned"
    read -r q1 q2 <<<"$(harness_value queries)"
    [ "$q2" -ge 1 ] || fail "get_per_thread_copy() did not ask the runtime (cudaGetDriverEntryPointByVersion)"
    read -r fn_src status_src copy_src <<<"$(harness_value sources)"
    [ "$copy_src" = query ] || fail "the pointer get_per_thread_copy() handed back is not the one its query of cuMemcpyAsync returned"
    assert_harness_end "$seed"
}
