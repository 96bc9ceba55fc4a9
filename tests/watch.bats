#!/usr/bin/env bats
# grading/harness/driver_watch: the stand-in libcuda.so.1 that counts what a graded program
# makes and can make its Nth call fail, without a GPU: behind it a made-up driver
# (tests/watch/fake_driver.c) that hands out handles, and the toolkit's stub for forwarding.

load test_helper

setup_file() {
    export WATCH="$BATS_FILE_TMPDIR/watch" FAKE="$BATS_FILE_TMPDIR/fake/libcuda.so.1"
    export PROBE="$BATS_FILE_TMPDIR/probe"
    bash "$ROOT/grading/harness/driver_watch/build" "$WATCH" >"$WATCH.log" 2>&1 || true
    mkdir -p "$(dirname "$FAKE")"
    cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$FAKE" \
        "$ROOT/tests/watch/fake_driver.c" -ldl >"$FAKE.log" 2>&1 || true
    cc -std=gnu11 -Wall -Wextra -Werror -I"$ROOT/grading/harness" -o "$PROBE" \
        "$ROOT/tests/watch/probe.c" -ldl >"$PROBE.log" 2>&1 || true
    export HPROBE="$BATS_FILE_TMPDIR/harness_probe"
    cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$(cuda_root)/include" \
        -o "$HPROBE" "$ROOT/tests/watch/harness_probe.c" -ldl >"$HPROBE.log" 2>&1 || true
}

setup() {
    [ -f "$WATCH/libcuda.so.1" ] || {
        grep -q "no libcuda to take" "$WATCH.log" && skip "no driver and no toolkit stub to name the API"
        fail "driver_watch did not build: $(cat "$WATCH.log")"
    }
    [ -f "$FAKE" ] || fail "the made-up driver did not build: $(cat "$FAKE.log")"
    [ -x "$PROBE" ] || fail "the probe did not build: $(cat "$PROBE.log")"
    [ -x "$HPROBE" ] || fail "the harness probe did not build: $(cat "$HPROBE.log")"
}

# watched CMD...: `run` CMD with the stand-in first on LD_LIBRARY_PATH, the made-up driver next
watched() {
    run env -u DRIVER_WATCH_REAL -u DRIVER_WATCH_FAIL -u DRIVER_WATCH_REPORT \
        LD_LIBRARY_PATH="$WATCH:$(dirname "$FAKE")" "$@"
}

@test "the stand-in exports every function of the API it was built from, and its own" {
    run bash -c 'nm -D --defined-only "$1/libcuda.so.1" | awk "\$2==\"T\"{print \$3}" | sort -u' sh "$WATCH"
    assert_success
    assert_line cuStreamCreate
    assert_line cuGetProcAddress_v2
    assert_line driver_watch_live
    assert_line driver_watch_fail_at
    [ "$(wc -l <"$WATCH/forwarded.txt")" -gt 300 ] || fail "only $(wc -l <"$WATCH/forwarded.txt") functions forwarded"
    run grep -x 'cuStreamCreate\|cuMemHostAlloc\|cuLibraryUnload' "$WATCH/forwarded.txt"
    assert_output "" # watched, so defined by driver_watch.c, not jumped over
}

@test "found by the loader first, it forwards to the next libcuda.so.1 on the path, never to itself" {
    watched "$PROBE" direct
    assert_success
    assert_line "cuDriverGetVersion=0 version=12345" # forwarded: the made-up driver's answer
}

@test "it forwards to the CUDA toolkit's stub when that is the driver behind" {
    local stub
    stub="$(stub_driver_dir)" || skip "no stub libcuda.so in the CUDA toolkit"
    run env -u DRIVER_WATCH_REAL LD_LIBRARY_PATH="$WATCH:$stub" "$PROBE" direct
    assert_success
    assert_line "cuDriverGetVersion=34 version=0" # CUDA_ERROR_STUB_LIBRARY, through the jump
    assert_line "cuStreamCreate=34"
    # what the driver did not make is not counted
    assert_line "made: stream=0 event=0 module=0 library=0 registered=0 pinned=0 device=0"
}

@test "the resources made through dlsym's functions are counted by kind until released" {
    watched "$PROBE" direct
    assert_success
    assert_line "made: stream=1 event=1 module=0 library=1 registered=1 pinned=1 device=1"
    assert_line "released: stream=0 event=0 module=0 library=1 registered=0 pinned=0 device=0"
}

@test "those made through cuGetProcAddress (as the CUDA runtime finds them) are counted too" {
    watched "$PROBE" proc
    assert_success
    assert_line "made: stream=1 event=1 module=0 library=1 registered=1 pinned=1 device=1"
    assert_line "released: stream=0 event=0 module=0 library=1 registered=0 pinned=0 device=0"
}

@test "DRIVER_WATCH_REPORT=1 prints what was left alive and what was made at the exit" {
    watched env DRIVER_WATCH_REPORT=1 "$PROBE" proc
    assert_success
    assert_line "driver-watch: calls=11 failed=0 stream=0/1 event=0/1 module=0/0 library=1/1 registered=0/1 pinned=0/1 device=0/1"
}

@test "the Nth watched call fails: a make with out of memory or invalid value, and makes nothing" {
    watched "$PROBE" proc 1
    assert_line "cuStreamCreate=1" # CUDA_ERROR_INVALID_VALUE
    assert_line "made: stream=0 event=1 module=0 library=1 registered=1 pinned=1 device=1"
    watched "$PROBE" direct 4
    assert_line "cuMemHostAlloc=2" # CUDA_ERROR_OUT_OF_MEMORY
    assert_line "cuStreamCreate=0"
    assert_line "made: stream=1 event=1 module=0 library=1 registered=1 pinned=0 device=1"
    watched env DRIVER_WATCH_FAIL=6 "$PROBE" proc
    assert_line "cuMemAlloc=2"
    assert_line "made: stream=1 event=1 module=0 library=1 registered=1 pinned=1 device=0"
}

@test "a release made to fail still releases, and answers the error" {
    watched "$PROBE" proc 7
    assert_line "cuStreamDestroy=1"
    assert_line "cuEventDestroy=0"
    assert_line "released: stream=0 event=0 module=0 library=1 registered=0 pinned=0 device=0"
    watched "$PROBE" direct 10
    assert_line "cuMemHostUnregister=1"
    assert_line "released: stream=0 event=0 module=0 library=1 registered=0 pinned=0 device=0"
}

@test "a program with no stand-in before the driver finds nothing to count" {
    run env LD_LIBRARY_PATH="$(dirname "$FAKE")" "$PROBE" direct
    assert_success
    assert_line "made: no driver_watch_live"
}

@test "make WATCH_DRIVER=1 puts the stand-in beside the exercise programs, RPATH \$ORIGIN, never in the lesson's program" {
    cd "$ROOT/04_streams_overlap"
    local b="$BATS_TEST_TMPDIR/b"
    run make -n ARCH=90 BUILD="$b" WATCH_DRIVER=1 "$b/solutions/pinned" "$b/exercises/pinned" "$b/streams_overlap"
    assert_success
    assert_line --partial "driver_watch/build $b/solutions/driver_watch"
    assert_line --partial "cp -f $b/solutions/driver_watch/libcuda.so.1 $b/solutions/libcuda.so.1"
    assert_line --partial "cp -f $b/exercises/driver_watch/libcuda.so.1 $b/exercises/libcuda.so.1"
    [ "$(grep -c -- "-rpath -Xlinker '\$ORIGIN'.* -o $b/\(solutions\|exercises\)/pinned " <<<"$output")" = 2 ]
    run grep -- "-o $b/streams_overlap " <<<"$output"
    assert_success
    refute_output --partial ORIGIN
    # without it, no exercise program has it either
    run make -n ARCH=90 BUILD="$b" "$b/solutions/pinned"
    refute_output --partial ORIGIN
    refute_output --partial driver_watch
}

@test "harness_watch.h reports what a call left alive and what it made twice, by kind" {
    watched "$HPROBE"
    assert_success
    assert_line "harness: calls 0 0 0 failed=0"
    assert_line "harness: resources_probe left: stream 1 event 1 made twice: stream 2"
}

@test "harness_watch.h makes the Nth call fail and says so; a failed make is not counted" {
    watched "$HPROBE" 2
    assert_line "harness: calls 0 1 0 failed=1"
    assert_line "harness: resources_probe left: event 1"
    watched "$HPROBE" 4 # past the last call: none failed
    assert_line "harness: calls 0 0 0 failed=0"
}

@test "harness_watch.h says 'not watched' where the program's driver is not the stand-in" {
    run env LD_LIBRARY_PATH="$(dirname "$FAKE")" "$HPROBE"
    assert_success
    assert_line "harness: resources_probe not watched"
}

@test "the stream-ordered and pitched allocations are device memory too, per-thread default stream or legacy" {
    watched "$PROBE" async
    assert_success
    assert_line "made: stream=0 event=0 module=0 library=0 registered=0 pinned=0 device=5"
    # asked for per-thread ones (as the static runtime built with them asks), the stand-in
    # answers its own per-thread wrappers, which reach the driver's _ptsz functions
    [ "$(grep -c '^cuMemAlloc\(FromPool\)\?Async=0 per_thread=1$' <<<"$output")" = 2 ] || fail "$output"
    [ "$(grep -c '^cuMemAlloc\(FromPool\)\?Async=0 per_thread=0$' <<<"$output")" = 2 ] || fail "$output"
    refute_line --regexp '^cuMemFreeAsync=[^0]'
    assert_line "released: stream=0 event=0 module=0 library=0 registered=0 pinned=0 device=0"
    run grep -x 'cuMemAllocPitch_v2\|cuMemAllocAsync\|cuMemAllocAsync_ptsz\|cuMemAllocFromPoolAsync_ptsz\|cuMemFreeAsync_ptsz' "$WATCH/forwarded.txt"
    assert_output "" # watched, not jumped over
}

@test "a leak is seen by kind, and the Nth stream-ordered allocation fails too" {
    watched "$PROBE" async 3
    assert_line "cuMemAllocAsync=2 per_thread=0" # the third call: out of memory, nothing made
    assert_line "made: stream=0 event=0 module=0 library=0 registered=0 pinned=0 device=4"
    watched env DRIVER_WATCH_REPORT=1 "$PROBE" proc
    assert_line --partial " library=1/1 " # the probe leaves its library loaded
}

@test "with no real driver to forward to, the stand-in answers 'no device': no crash" {
    run env DRIVER_WATCH_REAL=/nonexistent/libcuda.so.1 LD_LIBRARY_PATH="$WATCH" "$PROBE" proc
    assert_success
    assert_line "cuDriverGetVersion=0 version=99999" # a version, so the runtime goes on to cuInit
    assert_line "cuStreamCreate=100"                 # CUDA_ERROR_NO_DEVICE
    assert_line "made: stream=0 event=0 module=0 library=0 registered=0 pinned=0 device=0"
    run env DRIVER_WATCH_REAL=/nonexistent/libcuda.so.1 LD_LIBRARY_PATH="$WATCH" "$PROBE" direct
    assert_success
    assert_line "cuStreamCreate=100"
}

@test "make exercise-from builds with the stand-in beside the program; with no driver it exits 77, runtime and Driver API" {
    local into="$BATS_TEST_TMPDIR/into"
    run make --no-print-directory -C "$ROOT/03_pinned_memory" exercise-from EXERCISE=pin_it \
        FROM="$ROOT/03_pinned_memory/solutions/pin_it" INTO="$into/03"
    assert_success
    [ -f "$into/03/libcuda.so.1" ] || fail "no stand-in beside the program: $output"
    run env DRIVER_WATCH_REAL=/nonexistent/libcuda.so.1 "$into/03/pin_it" 5
    assert_failure 77
    assert_output --partial "cannot run here"
    run make --no-print-directory -C "$ROOT/05_ptx_module" exercise-from EXERCISE=library_kernel \
        FROM="$ROOT/05_ptx_module/solutions/library_kernel" INTO="$into/05"
    assert_success
    run env DRIVER_WATCH_REAL=/nonexistent/libcuda.so.1 "$into/05/library_kernel" 5
    assert_failure 77
    # WATCH_DRIVER=0: without it
    run make -n --no-print-directory -C "$ROOT/03_pinned_memory" exercise-from EXERCISE=pin_it \
        FROM="$ROOT/03_pinned_memory/solutions/pin_it" INTO="$into/03b" WATCH_DRIVER=0
    refute_output --partial ORIGIN
}

@test "harness_watch_fail_arg takes --fail-at N out of the command line; harness_watch_judge says whether it came" {
    watched "$HPROBE" --fail-at 1
    assert_success
    assert_line "harness: fail_came yes"
    assert_line "harness: made none"
    assert_line "harness: resources_fail kept"
    watched "$HPROBE" --fail-at 3 # the event: the streams made before it are released
    assert_line "harness: fail_came yes"
    assert_line "harness: resources_fail kept"
    watched "$HPROBE" --fail-at 4 # past the last call: none came, all made (and released)
    assert_line "harness: fail_came no"
    assert_line "harness: made all"
    assert_line "harness: resources_fail kept"
    watched "$HPROBE" --fail-at 2 leak # what was made before the failure left behind
    assert_line "harness: resources_fail left: stream 1"
    watched "$HPROBE" --fail-at 0
    assert_failure 2
    assert_output --partial "--fail-at must be followed by an integer from 1 to 1000"
}

@test "cuGetProcAddress answers an unwatched function as dlsym finds it in libcuda.so.1: the stand-in's jump to the driver's function of that ABI" {
    # A real driver answers its own internals; the stand-in answers its jump to the same function
    # (lesson 02's entry_point harness compares the pointer with dlsym's cuMemGetInfo_v2)
    watched "$PROBE" entry
    assert_success
    assert_line "cuMemGetInfo: dlsym's cuMemGetInfo_v2"
    assert_line "cuCtxGetCurrent: dlsym's cuCtxGetCurrent"
    assert_line "cuMemGetInfo=0 total=2097152"
    assert_line "cuCtxGetCurrent=0 ctx=0xc0"
}
