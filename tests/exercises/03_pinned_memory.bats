#!/usr/bin/env bats
# Grader for 03_pinned_memory's exercises. Run it through the lesson:
#     make -C 03_pinned_memory check              grades exercises/ (your work)
#     make -C 03_pinned_memory check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs.

setup() {
    load ../test_helper
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
}

# The number in the line of $output that matches the sed expression.
number() {
    local n
    n="$(sed -n "$1" <<<"$output" | head -n 1)"
    [ -n "$n" ] || fail "no line matched $1 in: $output"
    echo "$n"
}

@test "pin_it: the buffer is page-locked in place (cudaHostRegister)" {
    run "$EXERCISE_BIN/pin_it"
    assert_success
    assert_line "data is page-locked: yes"
}

@test "pin_it: the page-locked copy runs at least 2x the pageable one" {
    run "$EXERCISE_BIN/pin_it"
    assert_success
    ratio="$(number 's/^data: .* GB\/s, \([0-9.]*\)x the pageable reference$/\1/p')"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 2) }' || fail "only ${ratio}x the pageable reference"
}

@test "pin_it: the pages are unpinned before free()" {
    run "$EXERCISE_BIN/pin_it"
    assert_success
    assert_line "unpinned before free: yes"
}

@test "both_ways: both copies still deliver their data" {
    run "$EXERCISE_BIN/both_ways"
    assert_success
    assert_line "wrong words: 0"
}

@test "both_ways: the two directions overlap (at least 1.4x one direction)" {
    run "$EXERCISE_BIN/both_ways"
    assert_success
    ratio="$(number 's/^both at once: .* GB\/s in total, \([0-9.]*\)x one direction$/\1/p')"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 1.4) }' || fail "only ${ratio}x one direction"
}
