#!/usr/bin/env bats
# Grader for 03_pinned_memory's exercises. Run it through the lesson:
#     make -C 03_pinned_memory check              grades exercises/ (your work)
#     make -C 03_pinned_memory check SOLUTIONS=1  grades the reference solutions
# EXERCISE_BIN is the folder holding the built programs. Each program is the teacher's harness
# (03_pinned_memory/harness/NAME/) around the student's file: it reports what it saw
# ("KEY VALUE", once, on the grader's own channel: grading/judge/harness.bash) on inputs made
# from a seed chosen here and handed over on that channel, and these tests judge. Every
# timing is the harness's own, and every pass mark comes from references the harness measured
# in the same run, taking turns with the student's code: no figure of one card is written in.

# grade: gpu_alone per test
# (grading/grade runs this file's tests tagged gpu_alone with the GPU alone and the others
# beside other gradings, on the same kept runs and seed: every test whose verdict rests on a
# time or on the GPU's free memory is tagged, whether it runs its program or reads a run that
# another test kept; a test untagged judges results and resources only)

setup() {
    load ../../tests/test_helper
    load harness
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set: run this through make check"
    seed="$(exercise_seed)"
}

# judge_rate: the "rates PAGEABLE YOURS PINNED" line (GB/s): yours at least half way from the
# pageable rate to the pinned one; not judged where pinned memory does not copy faster here.
judge_rate() {
    read -r pageable yours pinned <<<"$(harness_value rates)"
    if awk -v p="$pageable" -v r="$pinned" 'BEGIN { exit !(r < 1.2 * p) }'; then
        skip "on this machine pinned copies (${pinned} GB/s) are not faster than pageable ones (${pageable} GB/s): the rate cannot tell them apart"
    fi
    awk -v p="$pageable" -v y="$yours" -v r="$pinned" 'BEGIN { exit !(y >= (p + r) / 2) }' ||
        fail "copies from your buffer ran at ${yours} GB/s: pageable ${pageable}, pinned ${pinned} GB/s in the same run (half way needed: it is not pinned)"
}

# bats test_tags=gpu_alone
@test "pin_it: pin() page-locks the whole buffer in place, unpin() undoes it" {
    run_harness "$seed" "$EXERCISE_BIN/pin_it"
    assert_success
    assert_harness before "unregistered unregistered"
    assert_harness pin true
    assert_harness pinned "pinned pinned" "the buffer's first and last bytes after pin() (it starts mid-page, its last byte lies past its last whole page)"
    assert_harness unpin true
    assert_harness after "unregistered unregistered" "the buffer's first and last bytes after unpin()"
    assert_harness state_pin kept "the context, the primary context and the device after pin()"
    assert_harness state_unpin kept "the context, the primary context and the device after unpin()"
    assert_resources pin_it "what pin() and unpin() made and left (one registration, released)"
    # the harness's size: a last byte past the last whole page of a buffer that starts mid-page
    n=$(((16 << 20) + 1024 * ((seed / 1022) % 64) + 2 + seed % 1022))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "data copied from the pinned buffer and back"
    assert_harness_end "$seed"
}

@test "pin_it: a driver call made to fail is reported by pin() or unpin(), and leaves nothing behind" {
    judge_failures "$EXERCISE_BIN/pin_it" "pin false true" "unpin false true"
}

# bats test_tags=gpu_alone
@test "pin_it: copies from the pinned buffer run at the pinned rate of the same run" {
    run_harness "$seed" "$EXERCISE_BIN/pin_it"
    assert_success
    assert_harness_end "$seed"
    judge_rate
}

# bats test_tags=gpu_alone
@test "both_ways: both copies deliver their data, and what begin made is destroyed" {
    run_harness "$seed" "$EXERCISE_BIN/both_ways"
    assert_success
    assert_harness both_ways_begin true
    assert_harness both_ways_issue true
    n=$(((32 << 20) + seed % 65536))
    assert_harness uploaded "$n $(expected_sum "$seed" 0 "$n" 1 0)" "the upload, read back from the device"
    assert_harness downloaded "$n $(expected_sum "$seed" 1 "$n" 1 0)" "the download"
    assert_harness both_ways_end true
    assert_harness state_both_ways kept "the context stack, the primary context and the current device after both_ways_begin(), both_ways_issue() and both_ways_end()"
    assert_harness left "0 0" "streams and events your code created and did not destroy"
    assert_resources both_ways "what both_ways_begin(), both_ways_issue() and both_ways_end() made and did not release, through either API"
    read -r kinds_wrong kinds_checked <<<"$(harness_value copy_kinds)"
    [ "$kinds_wrong" = 0 ] ||
        fail "$kinds_wrong of $kinds_checked cudaMemcpyAsync calls named a cudaMemcpyKind their pointers do not have (cudaPointerGetAttributes): undefined behaviour, even where unified addressing copies the right way"
    # "return without waiting": the call itself takes a small share of the time until the
    # device is idle (a call that waits for its copies takes nearly all of it)
    share="$(harness_value issue_share)"
    awk -v s="$share" 'BEGIN { exit !(s < 0.5) }' ||
        fail "both_ways_issue() took ${share} of the time until its copies were done: it must return without waiting for them"
    assert_harness_end "$seed"
}

# (3 runs at most: the bar sits near what a correct pair reaches, and a reference solution once
# read 1.404x against 1.417x needed on a busy H100 host; a pair that does not overlap reads
# about 1.0x every time)
# bats test_tags=gpu_alone
@test "both_ways: the two directions overlap as the copy engines allow on this card (3/4 of the harness's own gain)" {
    run_harness "$seed" "$EXERCISE_BIN/both_ways"
    local try why=""
    for try in 1 2 3; do
        [ "$try" -eq 1 ] || run_harness_fresh "$seed" "$EXERCISE_BIN/both_ways"
        assert_success
        assert_harness_end "$seed"
        engines="$(harness_value engines)"
        read -r up down two yours <<<"$(harness_value times)"
        ref="$(awk -v u="$up" -v d="$down" -v t="$two" 'BEGIN { printf "%.3f", (u + d) / t }')"
        mine="$(awk -v u="$up" -v d="$down" -v y="$yours" 'BEGIN { printf "%.3f", (u + d) / y }')"
        if [ "$engines" -lt 2 ] || awk -v r="$ref" 'BEGIN { exit !(r < 1.15) }'; then
            skip "this card has $engines copy engine(s) and two streams of the harness reach ${ref}x of one direction after the other: the two directions do not overlap here"
        fi
        need="$(awk -v r="$ref" 'BEGIN { printf "%.3f", 1 + 0.75 * (r - 1) }')"
        awk -v m="$mine" -v n="$need" 'BEGIN { exit !(m >= n) }' && return 0
        why="${why:+$why; }run $try: your pair took ${yours} ms: ${mine}x of one direction after the other (${up} + ${down} ms); the harness's two streams reach ${ref}x, so ${need}x is needed"
    done
    fail "$why"
}

# bats test_tags=gpu_alone
@test "driver_pinned: the buffer comes from cuMemHostAlloc, portable, and goes back with cuMemFreeHost" {
    run_harness "$seed" "$EXERCISE_BIN/driver_pinned"
    assert_success
    assert_harness alloc_host given
    read -r word flags <<<"$(harness_value driver)"
    [ "$word" = flags ] || fail "the driver does not know the buffer as page-locked memory it allocated (cuMemHostGetFlags)"
    [ $((flags & 1)) = 1 ] || fail "the buffer is not CU_MEMHOSTALLOC_PORTABLE (flags $flags)"
    assert_harness free_host true
    assert_harness state_alloc_host kept "the context stack, the primary context and the current device after alloc_host()"
    assert_harness state_free_host kept "the context stack, the primary context and the current device after free_host()"
    assert_harness after_free unknown "what the driver knows of the buffer after free_host()"
    read -r allocs frees runtime <<<"$(harness_value calls)"
    [ "$allocs" -ge 1 ] && [ "$frees" -ge 1 ] && [ "$runtime" = 0 ] ||
        fail "the Driver API's cuMemHostAlloc/cuMemFreeHost must do it: $allocs Driver API allocation(s), $frees cuMemFreeHost, $runtime runtime host-memory call(s)"
    assert_harness too_big NULL "alloc_host() of more memory than any machine has (4 EiB): NULL, as the header says"
    assert_resources driver_pinned "what alloc_host() and free_host() made and left (one page-locked buffer, given back)"
    assert_harness_end "$seed"
}

@test "driver_pinned: a driver call made to fail gives NULL or false, never pageable memory, and leaves nothing behind" {
    judge_failures "$EXERCISE_BIN/driver_pinned" "alloc_host NULL given" "free_host false true"
}

# bats test_tags=gpu_alone
@test "driver_pinned: its copy runs at the pinned rate of the same run, and the data arrives intact" {
    run_harness "$seed" "$EXERCISE_BIN/driver_pinned"
    assert_success
    n=$(((16 << 20) + seed % 65536))
    assert_harness case0 "$n $(expected_sum "$seed" 0 "$n" 1 0)" "data copied from the buffer and back"
    assert_harness_end "$seed"
    judge_rate
}
