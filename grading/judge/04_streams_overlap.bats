#!/usr/bin/env bats
# grading/judge/04_streams_overlap.bats - grades the exercises of 04_streams_overlap.
#   make -C 04_streams_overlap check               your work (exercises/)
#   make -C 04_streams_overlap check SOLUTIONS=1   the reference solutions
# EXERCISE_BIN is the directory that holds the built exercise programs: the teacher's harness
# (04_streams_overlap/harness/) around the student's pipeline.c. The harness reports "KEY VALUE"
# lines on the grader's channel (its result checks, its own times, the calls it saw); these tests
# judge them, and time the speed-up themselves: batches of the program's runs, each between two
# marks that the grader's side of the channel stamps by its own clock (clock_speedup). The
# program's own times can only take the point away (both must reach the pass mark), never give it.

setup() {
    load ../../tests/test_helper
    load harness
    # the points the judge asks for, in the harness's order: the seed once its buffers and
    # streams exist, then for each clocked batch (3 rounds of the checks alone, the sequential
    # version, your pipeline) a seed of its own and the two moments it stamps
    local r k
    HARNESS_POINTS=seed
    for ((r = 0; r < 3; r++)); do
        for k in check sequential pipeline; do
            HARNESS_POINTS+=" fresh:$k$r at:$k${r}_begin at:$k${r}_end"
        done
    done
    export HARNESS_POINTS
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
    if [ "${1:-}" = drawn ]; then # an odd size and stream count drawn from the seed
        set -- --elements $((2000001 + 2 * (seed % 1000000))) --streams $((3 + seed % 14))
    fi
    run_harness "$seed" "$EXERCISE_BIN/$e" "$@"
    echo "$output"
    assert_harness_end "$seed"
    assert_harness buffers distinct "the input and the output host buffers (two buffers, not one)"
    streams=8
    [ "${1:-}" != --elements ] || streams="$4" # the odd size: --elements N --streams S
    assert_harness streams "distinct $streams made" "the streams exercise_create_streams() made (none NULL, no two the same; how many it created)"
    assert_harness too_big NULL "exercise_host_alloc() of more memory than any machine has (4 EiB): NULL, as the header says"
    assert_watched
    assert_harness result "right identical" "the sequential result against the host, and your pipeline's against it (every run, from poisoned buffers)"
    read -r past runs_guarded <<<"$(harness_value past_the_end)"
    [ "$past" = 0 ] || fail "$past of $runs_guarded runs wrote past the end of the device buffers (a chunk beyond p->n: clamp the last chunks to the buffer)"
    read -r kinds_wrong kinds_checked <<<"$(harness_value copy_kinds)"
    [ "$kinds_wrong" = 0 ] ||
        fail "$kinds_wrong of $kinds_checked runtime copies named a cudaMemcpyKind their pointers do not have (cudaPointerGetAttributes): undefined behaviour, even where unified addressing copies the right way; name the right kind, or cudaMemcpyDefault"
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
    # the point: the speed-up by the grader's own clock, at the pass mark and no more than the
    # model allows (beyond it, the runs were not alike: the program is not judged fast)
    clock_speedup || return 1
    awk -v s="$clock_x" -v m="$mark" 'BEGIN { exit !(s >= m) }' ||
        fail "speed-up ${clock_x}x by the grader's clock ($clock_why): the copies and kernels do not overlap yet (${mark}x needed)"
    awk -v s="$clock_x" -v a="$allowed" 'BEGIN { exit !(s <= a * 1.15 + 0.1) }' ||
        fail "speed-up ${clock_x}x by the grader's clock ($clock_why), more than the ${allowed}x the model allows: the runs were not alike"
}

# assert_watched: what pipeline.c's calls made and left, by the stand-in driver whatever API
# made it (harness_main.c's windows): each exercise_host_alloc() one page-locked buffer at most,
# kept; exercise_create_streams() its streams, kept, nothing else; the 4 EiB allocation and the
# first exercise_issue() nothing left.
assert_watched() {
    assert_resources host_alloc "what exercise_host_alloc() made and left for the input buffer (one buffer, made once)"
    assert_resources host_alloc_out "what exercise_host_alloc() made and left for the output buffer (one buffer, made once)"
    assert_resources create_streams "what exercise_create_streams() made and left besides its streams"
    assert_resources too_big "what exercise_host_alloc() of 4 EiB left behind (it failed: nothing)"
    assert_resources pipeline "what exercise_issue() made and left (nothing: it issues work into your streams)"
}

# grade_right E ARG...: one graded run of exercise E with ARG (a fresh seed), judged for its
# result only (no speed point: at these sizes the model allows too little overlap to tell):
# every run right and identical to the sequential one, the judge's clocked runs right too, the
# streams and buffers as promised, nothing left page-locked.
grade_right() {
    local e="$1" seed n s wrong runs
    shift
    seed="$(new_seed)"
    run_harness "$seed" "$EXERCISE_BIN/$e" "$@"
    echo "$output"
    assert_harness_end "$seed"
    assert_harness buffers distinct "the input and the output host buffers"
    s="$(sed -n 's/.*--streams \([0-9]*\).*/\1/p' <<<"$*")"
    assert_harness streams "distinct $s made" "the streams exercise_create_streams() made"
    assert_watched
    assert_harness result "right identical" "with $*: the sequential result against the host, and your pipeline's against it (every run, from poisoned buffers)"
    read -r past runs <<<"$(harness_value past_the_end)"
    [ "$past" = 0 ] || fail "with $*: $past of $runs runs wrote past the end of the device buffers (a chunk beyond p->n: clamp the last chunks to the buffer)"
    read -r runs wrong <<<"$(harness_value clocked)"
    [ "$wrong" = 0 ] || fail "with $*: $wrong of the runs the grader timed gave a wrong result"
    read -r n _ <<<"$(harness_value copy_kinds)"
    [ "$n" = 0 ] || fail "with $*: $n runtime copies named a cudaMemcpyKind their pointers do not have"
    assert_harness host_buffers_kept 0 "host buffers still page-locked after exercise_host_free (a leak)"
    what_it_changes "$e" "with $*: " || return 1
    # (the harness's own speed claim may fail at these sizes: exit 1 is expected, a crash is not)
    [ "$status" -le 1 ] || fail "with $*: the program ended with status $status"
}

# what_it_changes E PREFIX: what exercise E changes, read from the last run without a clock
# (a right result alone is what the untouched exercise gives): streams: asynchronous copies;
# pinned: both host buffers page-locked; legacy: every stream non-blocking; driver: the Driver
# API's asynchronous copies, none of the runtime's, in non-blocking streams.
what_it_changes() {
    local e="$1" why="$2" drv rt pinned nb n
    read -r drv rt <<<"$(harness_value copies)"
    read -r pinned <<<"$(harness_value host_pinned)"
    read -r nb n <<<"$(harness_value streams_nonblocking)"
    case "$e" in
    streams) [ $((drv + rt)) -gt 0 ] || { fail "${why}exercise_issue made no asynchronous copy (cudaMemcpyAsync in the chunk's stream)"; return 1; } ;;
    pinned) [ "$pinned" = 2 ] || { fail "${why}$pinned of the 2 host buffers exercise_host_alloc gave are page-locked (cudaPointerGetAttributes: cudaMemoryTypeHost)"; return 1; } ;;
    legacy) [ "$nb" = "$n" ] || { fail "${why}$nb of the $n streams are non-blocking: the legacy stream's memset joins the others"; return 1; } ;;
    driver)
        [ "$rt" = 0 ] && [ "$drv" -gt 0 ] || { fail "${why}exercise_issue made $drv Driver API asynchronous copies and $rt runtime cudaMemcpyAsync calls: the copies must be the Driver API's"; return 1; }
        [ "$nb" = "$n" ] || { fail "${why}$nb of the $n streams are non-blocking (CU_STREAM_NON_BLOCKING): the legacy stream's memset joins the others"; return 1; }
        ;;
    esac
}

# grade_sizes E: the smallest size the harness allows in the most streams it allows (1024
# floats in 64 streams: 16 a chunk), then an odd small size and stream count drawn from the seed.
grade_sizes() {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    local seed
    grade_right "$1" --elements 1024 --streams 64 --reps 1 || return 1
    seed="$(new_seed)"
    grade_right "$1" --elements $((1025 + 2 * (seed % 2000))) --streams $((2 + seed % 63)) --reps 1
}

# grade_big E: 2^30 floats (4 GiB each way) in 2 streams, where the GPU and the host have the
# memory (else skipped, with the figures): each chunk's byte count is 2^31.
grade_big() {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    local gpu_mib host_kib
    # the smallest free figure of the GPUs this run may use (the first one visible is used)
    gpu_mib="$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits ${CUDA_VISIBLE_DEVICES:+-i "${CUDA_VISIBLE_DEVICES%%,*}"} 2>/dev/null | grep -xE '[0-9]+' | sort -n | head -n 1)"
    host_kib="$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)"
    [ "${gpu_mib:-0}" -ge 10240 ] && [ "${host_kib:-0}" -ge $((16 << 20)) ] ||
        skip "not tried here: 2^30 floats each way need about 9 GiB of GPU memory and 13 GiB of host memory (free: ${gpu_mib:-?} MiB on the GPU, $((${host_kib:-0} >> 10)) MiB on the host)"
    grade_right "$1" --elements 1073741824 --streams 2 --reps 1 --work 1
}

# clock_speedup: the speed-up by the grader's clock, from the last run_harness. The harness ran
# batches of RUNS checked runs of each kind in turn (the poisoning and checks alone, the
# sequential version, the pipeline: "clocked RUNS WRONG"), each on inputs from a seed the judge
# drew for that batch, between two moments the judge stamped (grading/judge/channel.c,
# outside the program, which asked for each in its order); the fastest batch of each kind
# counts: (sequential - checks) / (pipeline - checks). Every run must have been checked right
# (1024 input positions changed before it, their outputs and the device's buffers poisoned,
# the outputs compared after with the results of this run's inputs: a kept result is wrong).
# Sets $clock_x and $clock_why.
clock_speedup() {
    local runs wrong r kind t0 t1
    read -r runs wrong <<<"$(harness_value clocked)" || return 1
    [ "$wrong" = 0 ] || { fail "$wrong of the runs the grader timed gave a wrong result"; return 1; }
    declare -A best=()
    for ((r = 0; r < 3; r++)); do
        for kind in check sequential pipeline; do
            t0="$(harness_clock "$kind${r}_begin")" && t1="$(harness_clock "$kind${r}_end")" || return 1
            best[$kind]="$(awk -v a="$t0" -v b="$t1" -v m="${best[$kind]:-1e30}" 'BEGIN { t = b - a; printf "%.3f", t < m ? t : m }')"
        done
    done
    clock_x="$(awk -v c="${best[check]}" -v q="${best[sequential]}" -v p="${best[pipeline]}" 'BEGIN {
        if (p - c <= 0) print 0; else printf "%.3f", (q - c) / (p - c) }')"
    clock_why="the fastest of 3 batches of $runs runs: checks alone ${best[check]} ms, sequential ${best[sequential]} ms, your pipeline ${best[pipeline]} ms"
}

# bats test_tags=gpu_alone
@test "streams: asynchronous copies in one stream per chunk overlap" {
    grade streams
}

@test "streams: the same at an odd size and stream count drawn from the seed (2-4 M floats, 3-16 streams)" {
    grade streams drawn
}

@test "streams: right at the smallest size, the most streams and an odd small size drawn from the seed" {
    grade_sizes streams
}

# bats test_tags=gpu_alone
@test "pinned: page-locked host buffers let the copies overlap the kernels" {
    grade pinned
}

@test "pinned: the same at an odd size and stream count drawn from the seed (2-4 M floats, 3-16 streams)" {
    grade pinned drawn
}

@test "pinned: right at the smallest size, the most streams and an odd small size drawn from the seed" {
    grade_sizes pinned
}

# bats test_tags=gpu_alone
@test "legacy: the streams overlap again despite the legacy-default-stream memset" {
    grade legacy
}

@test "legacy: the same at an odd size and stream count drawn from the seed (2-4 M floats, 3-16 streams)" {
    grade legacy drawn
}

@test "legacy: right at the smallest size, the most streams and an odd small size drawn from the seed" {
    grade_sizes legacy
}

# bats test_tags=gpu_alone
@test "driver: the Driver API's asynchronous copies in CU_STREAM_NON_BLOCKING streams overlap despite the legacy memset" {
    grade driver
}

@test "driver: the same at an odd size and stream count drawn from the seed (2-4 M floats, 3-16 streams)" {
    grade driver drawn
}

@test "driver: right at the smallest size, the most streams and an odd small size drawn from the seed" {
    grade_sizes driver
}

@test "pinned: a driver call made to fail in exercise_host_alloc() gives NULL, never pageable memory, and leaves nothing behind" {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    seed="$(new_seed)"
    HARNESS_POINTS=seed judge_failures "$EXERCISE_BIN/pinned" "host_alloc NULL given"
}

@test "streams: right with 2 GiB chunks (2^30 floats in 2 streams: a byte count past 32 bits)" {
    grade_big streams
}

@test "driver: right with 2 GiB chunks (2^30 floats in 2 streams: a byte count past 32 bits)" {
    grade_big driver
}

@test "driver: the copies are the Driver API's (cuMemcpyHtoDAsync / cuMemcpyDtoHAsync / cuMemcpyAsync), not the runtime's" {
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
