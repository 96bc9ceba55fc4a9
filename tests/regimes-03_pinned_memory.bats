#!/usr/bin/env bats
# tests/regimes-03_pinned_memory.bats - lesson 03 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

# bats file_tags=gpu
load test_helper
load regimes

# Each run is small (a second or two) except the largest size; claims a regime cannot judge
# print "[n/j]" with the reason, and the tests check that they say why.

@test "03 regime: the smallest sizes the options allow (--min 4 --max 4 --reps 1)" {
    run_regime 03_pinned_memory -- --min 4 --max 4 --reps 1
    assert_line --partial "[n/j]  the staged copy runs at the CPU's pace, not the link's - not judged here: copies under 16 MiB are too short to time"
    assert_line --partial "every copy delivered its data intact: 8 checks (4 kinds x 2 directions x 1 sizes), 0 wrong words"
}

@test "03 regime: the largest size the lesson is built for, once (--min 1G --max 1G --reps 1)" {
    run_regime 03_pinned_memory -- --min 1G --max 1G --reps 1
    # one repetition: the bar against the batched copies and the link is not judged (an H100
    # once read one 1 GiB copy at 91.4% of the batched figure)
    assert_line --partial "[n/j]  from 256 MiB up, timing one copy per event pair gives the batched figure within the noise (lowest"
    assert_line --partial "not judged here: 1 repetition of a large copy"
}

# three sizes of 16 MiB or more: judged, over the median size (an H100 once read one slow size
# 17.7% off on the mean); the staged copy too, where the control copy kept its pace
issue10_judged() {
    assert_line --partial "[ok]   the staged copy runs at the CPU's pace, not the link's" &&
        assert_line --partial "[ok]   to the copy engine, registered memory is as fast as pinned within 10% and write-combined memory at least 90% as fast from 16 MiB up (median over the sizes"
}

@test "03 regime: the sizes of issue 10's failure (--min 1M --max 64M --reps 3)" {
    until_judged 3 issue10_judged -- run_regime 03_pinned_memory -- --min 1M --max 64M --reps 3
    assert_line --partial "not judged here: no size of 256 MiB or more in this sweep"
}

@test "03 regime: CUDA_LAUNCH_BLOCKING=1: the lesson says what changes and judges that instead" {
    run_regime 03_pinned_memory CUDA_LAUNCH_BLOCKING=1 -- --min 1M --max 32M --reps 3
    assert_line --partial "CUDA_LAUNCH_BLOCKING=1: 1 makes kernel launches synchronous: step 4 b) cannot queue a copy behind a kernel (not judged)"
    assert_line --partial "[ok]   with CUDA_LAUNCH_BLOCKING=1 the kernel launch itself waited for the kernel"
    assert_line --partial "not judged here: the kernel launch itself waited for the kernel"
}

# two queues or more: the two streams run side by side (judged: where a noisy moment makes the
# lesson say [n/j], the regime runs it again, as for issue 10's sizes)
side_by_side_judged() {
    assert_line --regexp '^  \[ok\]   with asyncEngineCount [0-9]+ the two directions run side by side: '
}

@test "03 regime: CUDA_DEVICE_MAX_CONNECTIONS at 1 and 2 (the hardware queues step 6's two streams share)" {
    # (1: both streams in one queue; 2: one each, as with any larger value and the default 8)
    run_regime 03_pinned_memory CUDA_DEVICE_MAX_CONNECTIONS=1 -- --min 16M --max 32M --reps 3
    assert_line --partial "CUDA_DEVICE_MAX_CONNECTIONS=1:"
    # one queue: side by side, or not judged with that reason
    assert_line --regexp '^  \[(ok|n/j)\] +(with asyncEngineCount [0-9]+ )?the two directions run side by side'
    until_judged 3 side_by_side_judged -- \
        run_regime 03_pinned_memory CUDA_DEVICE_MAX_CONNECTIONS=2 -- --min 16M --max 32M --reps 3
    assert_line --partial "CUDA_DEVICE_MAX_CONNECTIONS=2:"
    # the copy queues alone (the Programming Guide's CUDA_DEVICE_MAX_COPY_CONNECTIONS): side by
    # side, or not judged with the reason (the variable, or noise), never a [FAIL]
    run_regime 03_pinned_memory CUDA_DEVICE_MAX_COPY_CONNECTIONS=1 -- --min 16M --max 32M --reps 3
    assert_line --partial "CUDA_DEVICE_MAX_COPY_CONNECTIONS=1: copy queues the streams share"
    assert_line --regexp '^  \[(ok|n/j)\] +(with asyncEngineCount [0-9]+ )?the two directions run side by side'
}

# bats test_tags=shared
@test "03 regime: under compute-sanitizer (memcheck): PASS, its timing claims not judged, with the tool named" {
    require_gpu
    local cs
    cs="$(sanitizer_tool)"
    [ -x "$cs" ] || fail "compute-sanitizer not found (PATH, $(cuda_root)/bin)"
    run "$cs" --tool memcheck --error-exitcode 99 "$(lesson_bin 03_pinned_memory)" --min 16M --max 16M --reps 2
    assert_success
    assert_line --regexp '^RESULT: PASS - all [0-9]+ checks passed, [0-9]+ not judged$'
    refute_line --partial "[FAIL]"
    assert_line --regexp '^  \[n/j\]  the staged copy runs at the CPU.s pace, not the link.s - not judged here: this run is under compute-sanitizer'
    assert_line --regexp '^  \[n/j\]  from pinned memory every copy returned before the kernel ahead of it ended - not judged here: .*(compute-sanitizer|launch itself waited)'
    assert_line --partial "ERROR SUMMARY: 0 errors"
}

@test "03 regime: a GPU with little free memory (another process holds all but 1 GiB): the default sizes are cut, and it says so" {
    start_memory_hog 1
    # (a few sizes, once: the regime is about the cut, not the sweep's figures. The cut halves
    # --max until two device buffers of it fit in half of the free memory; the hog leaves 1 to
    # 1.25 GiB and the lesson's own context takes about 0.5 GiB of that, so the default 256 MiB
    # is cut, to 128 MiB or less: the size is not asserted, only that it is under the default.
    # The cut never goes below --min: 16M keeps its two buffers small if the context takes more)
    run_regime 03_pinned_memory -- --min 16M --reps 1
    assert_line --regexp '^   sizes: the sweep stops at ([0-9]+ KiB|([1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5]) MiB), not the default 256 MiB: the GPU has [0-9.]+ (MiB|GiB) free of [0-9.]+ GiB, the host [0-9.]+ (MiB|GiB|TiB) available \(--max chooses\)$'
    # the sweep runs to the size said, not to the default
    local cut host avail
    cut="$(sed -n 's/^   sizes: the sweep stops at \([0-9]* [KM]iB\), not the default .*/\1/p' <<<"$output")"
    assert_line "2. Bandwidth from 16 MiB to $cut for four kinds of host memory"
    # the host's figure is its MemAvailable (within 2x of what /proc/meminfo says now), not
    # another of the line's sizes (it once printed the cut size there: "the host 128 MiB")
    host="$(sed -n 's/^   sizes: .*, the host \([0-9.]* [MGT]iB\) available.*/\1/p' <<<"$output")"
    avail="$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)"
    awk -v h="$host" -v a="$avail" 'BEGIN { split(h, f, " "); m = f[2] == "MiB" ? 2^20 : f[2] == "GiB" ? 2^30 : 2^40
        b = f[1] * m; exit !(b > a / 2 && b < a * 2) }' || fail "the host's figure, $host, is not its MemAvailable ($avail bytes)"
}

in_place_judged() {
    assert_line --partial "[ok]   pinning data you already hold in place costs less than moving it into a new pinned buffer"
}

@test "03 regime: host buffers backed by transparent huge pages (tests/shims' preload): step 3 still true, and which route is cheaper is as measured" {
    build_shims
    # (one sweep size: what is asserted is step 3, on buffers of min(--max, 32 MiB))
    until_judged 3 in_place_judged -- \
        run_regime 03_pinned_memory LD_PRELOAD="$SHIMS/libhugepage.so" -- --min 64M --max 64M --reps 5
    assert_line --regexp '^   cudaMallocHost \+ copy in \+ cudaFreeHost [0-9.]+ ms/GiB: (the register route was cheaper|cudaMallocHost was cheaper|the same within the noise) \(noise [0-9.]+\)$'
}

# bats test_tags=shared
@test "03 regime: in its own PID namespace (a container) beside a program copying on the same GPU: timing claims not judged, the rest holds" {
    start_copy_neighbour
    # (one size, 256 MiB, three times: the least that the link's claim is judged on, so that
    # what leaves it [n/j] is the neighbour, not too few repetitions)
    run_regime_contained 03_pinned_memory -- --min 256M --max 256M --reps 3
    assert_line --partial "[ok]   every copy delivered its data intact"
    assert_line --regexp '^  \[n/j\]  pinned copies of 256 MiB and more reach 70-100% of the link.s theoretical rate - not judged here: (NVML cannot list processes outside this container|the control copy|the repetitions of a large size spread)'
    assert_line --regexp '^  \[n/j\]  the two directions run side by side .* - not judged here: '
}

# (device 0 without CUDA_VISIBLE_DEVICES is what the other regimes run)
@test "03 regime: CUDA_VISIBLE_DEVICES=0 with --device 0 (one device, renumbered from 0), and --device N on every other visible GPU" {
    require_gpu
    run_regime 03_pinned_memory CUDA_VISIBLE_DEVICES=0 -- --device 0 --min 64K --max 16M --reps 2
    assert_line --regexp '^This machine \(GPU 0 "'
    assert_line --partial "CUDA_VISIBLE_DEVICES=0: "
    assert_line --partial "[n/j]  under unified addressing a cuMemHostAlloc buffer of one device's context copies at pinned speed"
    local n d
    n="$(gpu_count)"
    for ((d = 1; d < n; d++)); do
        run_regime 03_pinned_memory -- --device "$d" --min 64K --max 16M --reps 2
        assert_line --regexp "^This machine \\(GPU $d \""
    done
}

# bats test_tags=shared
@test "03 regime: while lesson 04 runs on the same GPU, timing comparisons are not judged, the rest holds" {
    require_gpu
    local p04="$ROOT/04_streams_overlap/build/streams_overlap"
    [ -x "$p04" ] || fail "build lesson 04 first: $p04"
    ( while :; do "$p04" --elements 16777216 >/dev/null 2>&1; done ) &
    BACKGROUND_PID=$!
    sleep 1
    # (one size of 256 MiB, 3 repetitions: with fewer the bar is not judged for that reason,
    # before NVML's)
    run_regime 03_pinned_memory -- --min 256M --max 256M --reps 3
    assert_line --partial "[ok]   every copy delivered its data intact"
    assert_line --regexp '^  \[n/j\]  from 256 MiB up, timing one copy per event pair .* - not judged here: NVML listed [0-9]+ processes on this GPU'
}


# A low address-space limit: step 1 names it with its value before the first CUDA call; the run
# passes, or stops with exit 1 and the line that failed naming the limit (an allocation, or the
# driver or context that could not start), or exit 77 where the driver says it cannot run: never
# a [FAIL].
@test "03 regime: a low address-space limit (ulimit -v 8 GiB): named with its value, never a [FAIL]" {
    require_gpu
    run bash -c 'ulimit -v 8388608 && exec "$1" --min 1M --max 16M --reps 2' _ "$(lesson_bin 03_pinned_memory)"
    assert_line --regexp '^   process limits \(getrlimit\): .*address space \(ulimit -v\) 8 GiB'
    refute_line --partial "[FAIL]"
    case "$status" in
    0) assert_line --regexp '^RESULT: PASS' ;;
    1) assert_output --regexp '(under|could not (start|be made)).*ulimit -v 8 GiB \(RLIMIT_AS\)' ;;
    77) ;;
    *) fail "exit $status: $output" ;;
    esac
}
