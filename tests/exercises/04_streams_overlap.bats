#!/usr/bin/env bats
# tests/exercises/04_streams_overlap.bats - grades the exercises of 04_streams_overlap.
#   make -C 04_streams_overlap check               your work (exercises/)
#   make -C 04_streams_overlap check SOLUTIONS=1   the reference solutions
# EXERCISE_BIN is the directory that holds the built exercise programs.
load ../test_helper

# Runs exercise $1 and checks what every exercise must show: the same result as the
# sequential run, and a pipeline at least 1.6x faster (parsed from "speed-up: X.XXx").
grade() {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    run "$EXERCISE_BIN/$1"
    echo "$output"
    assert_output --partial "[ok]   your pipeline's result is identical to the sequential one"
    local speedup
    speedup="$(echo "$output" | sed -nE 's/^speed-up: +([0-9.]+)x$/\1/p')"
    [ -n "$speedup" ] || fail "no speed-up line"
    awk -v s="$speedup" 'BEGIN { exit !(s >= 1.6) }' ||
        fail "speed-up ${speedup}x: the copies and kernels do not overlap yet (1.6x needed)"
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
