#!/usr/bin/env bats
# Grader for 03_pinned_memory's exercises. Run it through the lesson:
#     make -C 03_pinned_memory check              grades exercises/ (your work)
#     make -C 03_pinned_memory check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs. Every pass mark comes from the same
# run on this card: a reference measured inside the program (pin_it, driver_pinned), or the
# reference solution run beside yours (both_ways); no figure of one card is written in.

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

# at_least VALUE LIMIT WHAT: fail unless VALUE >= LIMIT.
at_least() {
    awk -v v="$1" -v l="$2" 'BEGIN { exit !(v >= l) }' || fail "$3: $1 is below $2"
}

@test "pin_it: the buffer is page-locked in place (cudaHostRegister)" {
    run "$EXERCISE_BIN/pin_it"
    assert_success
    assert_line "data is page-locked: yes"
}

@test "pin_it: the page-locked copy runs as fast as the pinned reference of the same run (0.85x or more)" {
    run "$EXERCISE_BIN/pin_it"
    assert_success
    ratio="$(number 's/^data: .*, \([0-9.]*\)x the pinned reference$/\1/p')"
    at_least "$ratio" 0.85 "your copy against the cudaMallocHost reference measured beside it"
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

# The ratio "both at once / one direction" of one run of a both_ways program.
both_ways_ratio() {
    local out
    out="$("$1")" || { echo "FAILED"; return; }
    sed -n 's/^both at once: .* GB\/s in total, \([0-9.]*\)x one direction$/\1/p' <<<"$out" | head -n 1
}

@test "both_ways: the two directions overlap as the reference solution does on this card (3/4 of its gain)" {
    ref_bin="$(dirname "$EXERCISE_BIN")/solutions/both_ways"
    [ -x "$ref_bin" ] || fail "the reference solution $ref_bin is not built: run make check"
    # Yours and the reference take turns, twice; the best of each counts (a hiccup of the
    # machine in one run decides nothing).
    best_ref=0 best=0
    for round in 1 2; do
        r="$(both_ways_ratio "$ref_bin")"
        y="$(both_ways_ratio "$EXERCISE_BIN/both_ways")"
        [ "$r" != FAILED ] && [ -n "$r" ] || fail "the reference solution did not run"
        [ "$y" != FAILED ] && [ -n "$y" ] || fail "your program failed or printed no ratio"
        best_ref="$(awk -v a="$best_ref" -v b="$r" 'BEGIN { print (b > a) ? b : a }')"
        best="$(awk -v a="$best" -v b="$y" 'BEGIN { print (b > a) ? b : a }')"
    done
    if awk -v r="$best_ref" 'BEGIN { exit !(r < 1.2) }'; then
        skip "on this card even the reference solution reaches only ${best_ref}x: its copy engines do not overlap the two directions"
    fi
    need="$(awk -v r="$best_ref" 'BEGIN { printf "%.3f", 1 + 0.75 * (r - 1) }')"
    at_least "$best" "$need" "both at once against one direction (the reference solution: ${best_ref}x)"
}

@test "driver_pinned: the buffer comes from cuMemHostAlloc (the driver knows it as pinned)" {
    run "$EXERCISE_BIN/driver_pinned"
    assert_success
    assert_line "data is pinned (cuMemHostGetFlags): yes"
}

@test "driver_pinned: its copy runs as fast as the cudaMallocHost reference of the same run (0.9x or more)" {
    run "$EXERCISE_BIN/driver_pinned"
    assert_success
    ratio="$(number 's/^data: .* GB\/s, \([0-9.]*\)x the reference$/\1/p')"
    at_least "$ratio" 0.9 "your copy against the reference measured beside it"
}

@test "driver_pinned: the data arrives intact" {
    run "$EXERCISE_BIN/driver_pinned"
    assert_success
    assert_line "wrong words: 0"
}
