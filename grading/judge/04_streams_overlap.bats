#!/usr/bin/env bats
# grading/judge/04_streams_overlap.bats - grades the exercises of 04_streams_overlap.
#   make -C 04_streams_overlap check               your work (exercises/)
#   make -C 04_streams_overlap check SOLUTIONS=1   the reference solutions
# EXERCISE_BIN is the directory that holds the built exercise programs: the teacher's harness
# (04_streams_overlap/harness/) around the student's pipeline.c. The harness reports "KEY VALUE"
# lines on the grader's channel (its result checks, its own times, the calls it saw); these tests
# judge them, and time the speed-up themselves: batches of the program's runs, each run on an
# input from a seed the grader's side of the channel draws for it and timed by its clock from
# the moment the program says that input is made to the pick of the run's output it makes after
# the run, whose values the grader checks itself (clock_speedup). The program's own times can only take the point away (both must
# reach the pass mark), never give it; where they contradict the grader's, the report is flagged.

# grade: gpu_alone per test
# grade: gpu_memory 12288 MiB a test
# (grading/grade runs this file's tests tagged gpu_alone with the GPU alone and the others
# beside other gradings, on the same kept runs and seed: every test whose verdict rests on a
# time is tagged gpu_alone -- the speed-ups; a test untagged judges results and resources only.
# The 2 GiB chunks judge the result only, but are tried only where that much memory is free:
# tagged gpu_memory, they share the GPU where its total memory and the host's hold 12 GiB for
# each grading beside them -- then no neighbour can take what they need -- else they too run
# with the GPU alone)

setup() {
    load ../../tests/test_helper
    load harness
    clocked_points 8
}

# clocked_points N [ROUNDS]: the points the judge asks for, in the harness's order, with
# --clocked N: the seed once its buffers and streams exist, then for each clocked run (ROUNDS
# rounds, default 3, of a batch of N runs each of the checks alone, the sequential version, your
# pipeline; 1 round where the harness runs with --reps 0, the result only) a seed of its own for
# its input, the moment that input is made, and a pick of its output after the run
# (grading/judge/channel.c). Sets CLOCKED and CLOCK_ROUNDS.
clocked_points() {
    local r k i
    CLOCKED="$1" CLOCK_ROUNDS="${2:-3}" HARNESS_POINTS=seed
    for ((r = 0; r < CLOCK_ROUNDS; r++)); do
        for k in check sequential pipeline; do
            for ((i = 0; i < CLOCKED; i++)); do
                HARNESS_POINTS+=" fresh:$k${r}_$i at:$k${r}_${i}_start pick:$k${r}_$i"
            done
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
    run_harness "$seed" "$EXERCISE_BIN/$e" --clocked "$CLOCKED" "$@"
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
    # the point: the speed-up by the grader's own clock, over runs whose picks it checked, at
    # the pass mark and no more than the model allows (beyond it, the runs were not alike: the
    # program is not judged fast); the harness's own figure must not contradict it
    clock_speedup || return 1
    awk -v s="$speedup" -v c="$clock_x" 'BEGIN { exit !(s > 1.5 * c + 0.1) }' &&
        { harness_inconsistent "the harness's own speed-up ${speedup}x against ${clock_x}x by the grader's clock ($clock_why)"; return 1; }
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
    run_harness "$seed" "$EXERCISE_BIN/$e" --clocked "$CLOCKED" "$@"
    echo "$output"
    assert_harness_end "$seed"
    assert_harness buffers distinct "the input and the output host buffers"
    s="$(sed -n 's/.*--streams \([0-9]*\).*/\1/p' <<<"$*")"
    assert_harness streams "distinct $s made" "the streams exercise_create_streams() made"
    assert_watched
    assert_harness result "right identical" "with $*: the sequential result against the host, and your pipeline's against it (every run, from poisoned buffers)"
    read -r past runs <<<"$(harness_value past_the_end)"
    [ "$past" = 0 ] || fail "with $*: $past of $runs runs wrote past the end of the device buffers (a chunk beyond p->n: clamp the last chunks to the buffer)"
    clock_judged "with $*: " || return 1
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
    clocked_points 4
    grade_right "$1" --elements 1024 --streams 64 --reps 1 || return 1
    seed="$(new_seed)"
    grade_right "$1" --elements $((1025 + 2 * (seed % 2000))) --streams $((2 + seed % 63)) --reps 1
}

# grade_big E: 2^30 floats (4 GiB each way) in 2 streams, where the GPU and the host have the
# memory, and the grading's cgroup allows it (else skipped, with the figures): each chunk's byte
# count is 2^31. The result only (--reps 0: one run of each and one round of the judge's picks;
# with --reps 1, the model, the timed repetitions and three rounds, this test took 26-28 s on an
# H200, and none of that judges anything here).
grade_big() {
    require_gpu
    [ -n "${EXERCISE_BIN:-}" ] || fail "EXERCISE_BIN is not set (run through make check)"
    local gpu_mib host_kib cap_mib
    # the smallest free figure of the GPUs this run may use (the first one visible is used)
    gpu_mib="$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits ${CUDA_VISIBLE_DEVICES:+-i "${CUDA_VISIBLE_DEVICES%%,*}"} 2>/dev/null | grep -xE '[0-9]+' | sort -n | head -n 1)"
    host_kib="$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)"
    [ "${gpu_mib:-0}" -ge 10240 ] && [ "${host_kib:-0}" -ge $((12 << 20)) ] ||
        skip "not tried here: 2^30 floats each way need about 9 GiB of GPU memory and 9 GiB of host memory, page-locked (free: ${gpu_mib:-?} MiB on the GPU, $((${host_kib:-0} >> 10)) MiB on the host)"
    # the memory limit of the grading's cgroup, which the program's page-locked buffers count in
    cap_mib="$(sandbox_memory_mib)"
    [ -z "$cap_mib" ] || [ "$cap_mib" -ge 10240 ] ||
        skip "not tried here: 2^30 floats each way need about 9 GiB of host memory, page-locked, and the grading's cgroup allows $cap_mib MiB (SANDBOX_MEMORY_MB)"
    clocked_points 1 1
    grade_right "$1" --elements 1073741824 --streams 2 --reps 0 --work 1
}

# clock_batches WORK: the judge's clocked runs of the last run_harness, one line per batch,
# "BATCH MS RUNS WRONG MADE FAST" (BATCH: KINDr; MS: the sum over its runs of the judge's time from
# the run's "at KINDr_i_start", its input made, to its "pick", grading/judge/channel.c's stamps;
# WRONG: the runs whose picks do not hold the values due, which the grader computes itself for
# the input seed it drew for that run and WORK, the input itself for the checks alone:
# expected_picks.c; MADE: the sum of the times from each run's "fresh" to its start, the making
# of its input on the host, outside the clock; FAST: the judge's time of its fastest run).
clock_batches() {
    local wrong
    wrong="$(awk -v w="$1" '$1 ~ /^(check|sequential|pipeline)[0-9]+_[0-9]+$/ {
        print $1, $2, ($1 ~ /^check/ ? 0 : w) }' <<<"$seeds" | harness_picks_wrong)" || return 1
    awk -v wrong="$wrong" 'BEGIN { n = split(wrong, w, "\n"); for (i = 1; i <= n; i++) bad[w[i]] = 1 }
        { name = $1; picked = sub(/^pick:/, "", name); started = !picked && sub(/_start$/, "", name) }
        name !~ /^(check|sequential|pipeline)[0-9]+_[0-9]+$/ { next }
        picked { t_out[name] = $2; next }
        started { t_start[name] = $2; next }
        { t_fresh[name] = $2 }
        END {
            for (name in t_out) if ((name in t_start) && (name in t_fresh)) {
                b = name; sub(/_[0-9]+$/, "", b)
                t = t_out[name] - t_start[name]
                ms[b] += t; made[b] += t_start[name] - t_fresh[name]
                if (!(b in fast) || t < fast[b]) fast[b] = t
                runs[b]++; bad_b[b] += (name in bad)
            }
            for (b in ms) printf "%s %.3f %d %d %.3f %.3f\n", b, ms[b], runs[b], bad_b[b], made[b], fast[b]
        }' <<<"$clock" | sort
}

# clock_judged PREFIX: the last run_harness's clocked runs, checked by the judge: every batch of
# CLOCKED runs there, every pick right; what the harness reports of them ("clocked RUNS WORK
# WRONG", in-process) must agree, or the report is flagged as inconsistent. Sets $clock_rows
# (clock_batches) and $clock_runs.
clock_judged() {
    local why="$1" runs work wrong judged bad batches
    read -r runs work wrong <<<"$(harness_value clocked)" || return 1
    [ "$runs" = "$CLOCKED" ] || { harness_inconsistent "${why}the harness says it ran $runs runs a batch where the grader asked for $CLOCKED"; return 1; }
    [[ "$work" =~ ^[1-9][0-9]*$ ]] || { fail "${why}the harness reports a work of '$work'"; return 1; }
    clock_rows="$(clock_batches "$work")" || return 1
    read -r batches judged bad <<<"$(awk '{ n++; r += $3; w += $4 } END { print n + 0, r + 0, w + 0 }' <<<"$clock_rows")"
    local due=$((3 * ${CLOCK_ROUNDS:-3}))
    [ "$batches" = "$due" ] && [ "$judged" = $((due * CLOCKED)) ] ||
        { fail "${why}the grader timed $judged runs in $batches batches, $((due * CLOCKED)) in $due due: $clock_rows"; return 1; }
    [ "$bad" = "$wrong" ] || { harness_inconsistent "${why}the harness found $wrong of the clocked runs wrong at the grader's picks, the grader $bad"; return 1; }
    [ "$bad" = 0 ] || { fail "${why}$bad of the $judged runs the grader timed gave wrong values at the positions it picked after the run (each run's input is new: a result kept from an earlier run, or a part not computed, is wrong)"; return 1; }
    clock_runs="$CLOCKED"
}

# clock_speedup: the speed-up by the grader's clock, from the last run_harness: for each kind
# its fastest run of the 3 batches (a busy host only adds time, and the harness's own figure is
# its fastest run too), every run of every batch checked right (clock_judged: one wrong pick
# and nothing is judged fast), (sequential - checks) / (pipeline - checks): the checks alone are
# the conversation from a run's start to its pick, which every run of the other kinds holds too
# (the making of each input is outside the clock: said beside it). Sets $clock_x and $clock_why.
# (The sum of a batch was the figure before; it holds every slow run: at 2.25 M floats in 12
# streams a correct pipeline got 1.657x by it where the harness's own fastest runs gave 1.83x.)
clock_speedup() {
    clock_judged "" || return 1
    local c q p
    read -r c q p <<<"$(awk '$4 == 0 { k = $1; sub(/[0-9]+$/, "", k); if (!(k in b) || $6 < b[k]) b[k] = $6 }
        END { printf "%s %s %s\n", b["check"], b["sequential"], b["pipeline"] }' <<<"$clock_rows")"
    clock_x="$(awk -v c="$c" -v q="$q" -v p="$p" 'BEGIN {
        if (p - c <= 0) print 0; else printf "%.3f", (q - c) / (p - c) }')"
    local made
    made="$(awk '{ m += $5; r += $3 } END { if (r) printf "%.1f", m / r; else print "?" }' <<<"$clock_rows")"
    clock_why="the fastest of $((3 * clock_runs)) runs of each kind in 3 batches, each on its own input: checks alone $c ms, sequential $q ms, your pipeline $p ms; making each input took $made ms, outside the clock"
}

# bats test_tags=gpu_alone
@test "streams: asynchronous copies in one stream per chunk overlap" {
    grade streams
}

# bats test_tags=gpu_alone
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

# bats test_tags=gpu_alone
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

# bats test_tags=gpu_alone
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

# bats test_tags=gpu_alone
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

# bats test_tags=gpu_memory
@test "streams: right with 2 GiB chunks (2^30 floats in 2 streams: a byte count past 32 bits)" {
    grade_big streams
}

# bats test_tags=gpu_memory
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
