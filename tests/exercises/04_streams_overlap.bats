#!/usr/bin/env bats
# tests/exercises/04_streams_overlap.bats - grades the exercises of 04_streams_overlap.
#   make -C 04_streams_overlap check               your work (exercises/)
#   make -C 04_streams_overlap check SOLUTIONS=1   the reference solutions
# EXERCISE_BIN is the directory that holds the built exercise programs: the teacher's harness
# (04_streams_overlap/harness/) around the student's pipeline.c. The harness times the pipeline
# by its own clock and reports "KEY VALUE" lines on the grader's channel; these tests judge them.

setup() {
    load ../test_helper
    load harness
}

# Runs exercise $1 with a fresh seed (and the options after it) and checks what every exercise
# must show: the same result as the sequential run, and a speed-up at least the pass mark the
# harness computed in the same run on this card (half way from 1x to what the pipeline's model
# allows with this card's copy engines), never a number tuned on one card.
grade() {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    local e="$1" seed speedup mark allowed
    shift
    seed="$(new_seed)"
    run_harness "$seed" "$EXERCISE_BIN/$e" "$@"
    echo "$output"
    assert_harness_end "$seed"
    assert_harness buffers distinct "the input and the output host buffers (two buffers, not one)"
    assert_harness streams distinct "the streams exercise_create_streams() made (none NULL, no two the same)"
    assert_harness too_big NULL "exercise_host_alloc() of more memory than any machine has (4 EiB): NULL, as the header says"
    assert_harness result "right identical" "the sequential result against the host, and your pipeline's against it (every run, from poisoned buffers)"
    read -r busy runs <<<"$(harness_value returned_busy)"
    # "return without waiting": right after exercise_issue() returns, its work is still running
    [ $((busy * 2)) -gt "$runs" ] ||
        fail "exercise_issue() returned with all its work done in $((runs - busy)) of $runs runs: it must return without waiting (the harness synchronises)"
    read -r speedup mark allowed <<<"$(harness_value speedup)"
    awk -v m="$mark" 'BEGIN { exit !(m >= 1.2) }' ||
        fail "pass mark ${mark}x: the model allows too little overlap here to tell a pipeline from none"
    awk -v s="$speedup" -v m="$mark" 'BEGIN { exit !(s >= m) }' ||
        fail "speed-up ${speedup}x: the copies and kernels do not overlap yet (${mark}x needed)"
    assert_success
    if [ "$e" = legacy ] || [ "$e" = driver ]; then
        # the library's memset stays in the legacy default stream, one per chunk
        read -r memsets want <<<"$(harness_value legacy_memsets)"
        [ "$memsets" -ge "$want" ] ||
            fail "exercise_issue made $memsets memsets in the legacy default stream where $want were due (one per chunk): the library's call stays in stream 0"
    fi
    assert_harness host_buffers_kept 0 "host buffers still page-locked after exercise_host_free (a leak)"
    if [ "$#" -gt 0 ]; then # the odd size: check the input is this seed's
        read -r n streams sum <<<"$(harness_value input)"
        [ "$sum" = "$(input_sum "$seed" "$n")" ] || fail "the input the harness reported is not this run's"
    fi
}

@test "streams: asynchronous copies in one stream per chunk overlap" {
    grade streams
}

@test "streams: the same at an odd size and stream count (3000017 floats, 7 streams)" {
    grade streams --elements 3000017 --streams 7
}

@test "pinned: page-locked host buffers let the copies overlap the kernels" {
    grade pinned
}

@test "pinned: the same at an odd size and stream count (3000017 floats, 7 streams)" {
    grade pinned --elements 3000017 --streams 7
}

@test "legacy: the streams overlap again despite the legacy-default-stream memset" {
    grade legacy
}

@test "legacy: the same at an odd size and stream count (3000017 floats, 7 streams)" {
    grade legacy --elements 3000017 --streams 7
}

@test "driver: the Driver API's asynchronous copies in CU_STREAM_NON_BLOCKING streams overlap despite the legacy memset" {
    grade driver
}

@test "driver: the same at an odd size and stream count (3000017 floats, 7 streams)" {
    grade driver --elements 3000017 --streams 7
}

@test "driver: the copies are the Driver API's (cuMemcpyHtoDAsync / cuMemcpyDtoHAsync), not the runtime's" {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    seed="$(new_seed)"
    run_harness "$seed" "$EXERCISE_BIN/driver" --elements 1048576 --streams 4 --reps 1
    assert_harness_end "$seed"
    read -r drv rt <<<"$(harness_value copies)"
    # a warm-up and one timed run, 4 chunks, one copy in and one out each
    [ "$rt" = 0 ] && [ "$drv" -ge 16 ] ||
        fail "exercise_issue made $drv Driver API asynchronous copies and $rt runtime cudaMemcpyAsync calls: the copies must be the Driver API's"
}
