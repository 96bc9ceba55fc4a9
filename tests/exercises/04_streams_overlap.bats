#!/usr/bin/env bats
# tests/exercises/04_streams_overlap.bats - grades the exercises of 04_streams_overlap.
#   make -C 04_streams_overlap check               your work (exercises/)
#   make -C 04_streams_overlap check SOLUTIONS=1   the reference solutions
# EXERCISE_BIN is the directory that holds the built exercise programs.
load ../test_helper

# Runs exercise $1 and checks what every exercise must show: the same result as the
# sequential run, and a speed-up ("speed-up: X.XXx") at least the pass mark the harness
# computed in the same run on this card ("pass mark: Y.YYx": half way from 1x to what the
# pipeline's model allows), never a number tuned on one card.
grade() {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    run "$EXERCISE_BIN/$1"
    echo "$output"
    assert_output --partial "[ok]   your pipeline's result is identical to the sequential one"
    local speedup mark
    speedup="$(echo "$output" | sed -nE 's/^speed-up: +([0-9.]+)x$/\1/p')"
    mark="$(echo "$output" | sed -nE 's/^pass mark: +([0-9.]+)x .*/\1/p')"
    [ -n "$speedup" ] || fail "no speed-up line"
    [ -n "$mark" ] || fail "no pass mark line"
    awk -v m="$mark" 'BEGIN { exit !(m >= 1.2) }' ||
        fail "pass mark ${mark}x: the model allows too little overlap here to tell a pipeline from none"
    awk -v s="$speedup" -v m="$mark" 'BEGIN { exit !(s >= m) }' ||
        fail "speed-up ${speedup}x: the copies and kernels do not overlap yet (${mark}x needed)"
    assert_success
    assert_output --partial "RESULT: PASS"
}

@test "streams: asynchronous copies in one stream per chunk overlap" {
    grade streams
}

@test "pinned: page-locked host buffers let the copies overlap the kernels" {
    grade pinned
}

@test "legacy: the streams overlap again despite the legacy-default-stream memset" {
    grade legacy
}

@test "driver: the Driver API's asynchronous copies in CU_STREAM_NON_BLOCKING streams overlap despite the legacy memset" {
    grade driver
}
