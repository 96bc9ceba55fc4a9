#!/usr/bin/env bats
# tests/run itself: the closing "N passed, N failed, N skipped" line that make test ends with,
# counted from TAP and from bats' pretty formatter, and the exit status (CPU only).

load test_helper

setup() {
    mkdir -p "$BATS_TEST_TMPDIR/t"
    printf '%s\n' '@test "a" { true; }' '@test "b" { skip "no reason"; }' '@test "c" { false; }' \
        >"$BATS_TEST_TMPDIR/t/mixed.bats"
    printf '%s\n' '@test "d" { true; }' '@test "e" { true; }' >"$BATS_TEST_TMPDIR/t/good.bats"
}

@test "tests/run: the last line counts passed, failed and skipped over every file (TAP)" {
    run env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_failure 1
    assert_equal "${lines[${#lines[@]} - 1]}" "3 passed, 1 failed, 1 skipped"
    assert_line "1..5"
}

@test "tests/run: the same count from bats' pretty formatter, and exit 0 when nothing failed" {
    rm "$BATS_TEST_TMPDIR/t/mixed.bats"
    printf '%s\n' '@test "f" { skip; }' >"$BATS_TEST_TMPDIR/t/skip.bats"
    run env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter pretty -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_equal "${lines[${#lines[@]} - 1]}" "2 passed, 0 failed, 1 skipped"
}

# Where a GPU is usable (a stand-in nvidia-smi here), a file that is not a CPU file runs in three
# parts: its untagged tests and its gpu,shared ones beside the CPU files, its other gpu ones
# last, alone.
@test "tests/run with a GPU: untagged and shared tests of a GPU file run beside the CPU files, gpu ones last, alone; an untagged test that asks for the GPU fails" {
    local bin="$BATS_TEST_TMPDIR/bin" t="$BATS_TEST_TMPDIR/g"
    mkdir -p "$bin" "$t"
    printf '@test "t" { :; }\n' >"$t/probe.bats"
    bats --filter-tags gpu --count "$t/probe.bats" >/dev/null 2>&1 ||
        skip "this bats has no --filter-tags (bats 1.8 or newer): tests/run runs the files whole"
    rm "$t/probe.bats"
    printf '#!/bin/sh\necho "GPU 0: Stand-in (UUID: GPU-0)"\n' >"$bin/nvidia-smi"
    chmod +x "$bin/nvidia-smi"
    export ORDER_LOG="$BATS_TEST_TMPDIR/order"
    # cli is one of tests/run's CPU files; lesson.bats is not
    # (the CPU file's test waits for s1, 10 s at most: "beside s1" only if they ran side by side)
    printf '%s\n' '@test "cpu" { for i in $(seq 100); do grep -q "^s1" "$ORDER_LOG" 2>/dev/null && break; sleep 0.1; done' \
        '  if grep -q "^s1" "$ORDER_LOG"; then echo "cpu beside s1" >>"$ORDER_LOG"; else echo "cpu alone" >>"$ORDER_LOG"; fi; }' >"$t/cli.bats"
    printf '%s\n' "load '$ROOT/tests/test_helper'" \
        '@test "u1" { echo "u1 ${CUDA_LESSONS_UNTAGGED:-}" >>"$ORDER_LOG"; }' \
        '# bats test_tags=gpu' \
        '@test "g1" { require_gpu; echo "g1 ${CUDA_LESSONS_UNTAGGED:-}" >>"$ORDER_LOG"; }' \
        '# bats test_tags=gpu,shared' \
        '@test "s1" { require_gpu; echo "s1 ${CUDA_LESSONS_UNTAGGED:-}" >>"$ORDER_LOG"; }' \
        '@test "untagged, but asks for the GPU" { require_gpu; }' >"$t/lesson.bats"
    # a file all tagged, as the regimes files: its untagged part runs no test ("1..0") and counts
    printf '%s\n' "load '$ROOT/tests/test_helper'" '# bats file_tags=gpu' \
        '@test "g2" { require_gpu; }' >"$t/regimes.bats"
    PATH="$bin:$PATH" run env -u MAKEFLAGS -u CUDA_VISIBLE_DEVICES -u CUDA_LESSONS_GPU_LISTED -u SHARED_JOBS \
        -u TEST_JOBS bash "$ROOT/tests/run" bats --formatter tap -- "$t"
    assert_failure 1
    assert_equal "${lines[${#lines[@]} - 1]}" "5 passed, 1 failed, 0 skipped"
    assert_line "1..6"
    refute_line --partial "in a format without counts"
    assert_line --regexp '^not ok [0-9]+ untagged, but asks for the GPU$'
    assert_line --partial "this test uses the GPU but has no tag: put the line '# bats test_tags=gpu' above it"
    assert_line --partial "bats failed for $t/lesson.bats (untagged tests)"
    assert_line --regexp '^# tests/run: [0-9]+ s in all; the CPU files and beside them the shared GPU tests [0-9]+ s, 1 file\(s\) of those at a time[ ;].* the GPU files [0-9]+ s, one at a time'
    # u1 (with the flag) and s1 (without; the stand-in reports no free memory: one file's shared
    # tests at a time) in the first phase, the CPU file beside s1; g1 last, without the flag
    run cat "$ORDER_LOG"
    assert_line "u1 1"
    assert_line "s1 "
    assert_line "cpu beside s1"
    assert_equal "${lines[3]}" "g1 "
    assert_equal "${#lines[@]}" 4
}

@test "tests/run: only TAP on stdout (a skip reason with a newline in it is a comment); a file that ends before an earlier one says so at once" {
    rm "$BATS_TEST_TMPDIR/t/mixed.bats" "$BATS_TEST_TMPDIR/t/good.bats"
    printf '%s\n' '@test "slow" { sleep 2; skip "$(printf "first line\nsecond line")"; }' >"$BATS_TEST_TMPDIR/t/a_slow.bats"
    printf '%s\n' '@test "fast" { true; }' >"$BATS_TEST_TMPDIR/t/b_fast.bats"
    run env -u MAKEFLAGS TEST_JOBS=2 bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_equal "${lines[${#lines[@]} - 1]}" "1 passed, 0 failed, 1 skipped"
    local line i progress='' slow=''
    for i in "${!lines[@]}"; do
        line="${lines[$i]}"
        [ "$i" -eq $((${#lines[@]} - 1)) ] && break
        [[ "$line" =~ ^((not )?ok [0-9]+ |#|1\.\.[0-9]+$) ]] || fail "not a TAP line: '$line'"
        case "$line" in
            "# tests/run: "*b_fast.bats" finished in "* | "# tests/run: "*b_fast.bats" ("*") finished in "*)
                # (with a GPU, each part of a file says so: "(untagged tests)", "(shared tests)")
                [ -n "$progress" ] || progress="$i" ;;
            "ok 1 slow # skip first line") slow="$i" ;;
        esac
    done
    assert_line "# second line"
    assert_line --regexp '^# tests/run: 2 file\(s\), 2 at a time'
    [ -n "$progress" ] && [ -n "$slow" ] && [ "$progress" -lt "$slow" ] \
        || fail "no progress line for b_fast.bats before a_slow.bats's tests: $output"
    # every file's time, once: a_slow's after its tests (b_fast's was said when it finished)
    [[ "${lines[$((slow + 2))]}" =~ ^'# tests/run: '.*a_slow\.bats' finished in '[0-9]+' s, 1 test(s)'$ ]] ||
        fail "no line with a_slow.bats's time after its tests: $output"
    [ "$(grep -c 'b_fast.bats.* finished in ' <<<"$output")" -eq 1 ] || fail "b_fast.bats's time said twice: $output"
}

@test "tests/run: from a folder, the maintainers' files run only with ALL_TESTS=1 (said first and last), a file named always" {
    printf '%s\n' '@test "h" { true; }' >"$BATS_TEST_TMPDIR/t/hostile.bats"
    printf '%s\n' '@test "s" { true; }' >"$BATS_TEST_TMPDIR/t/suite.bats"
    rm "$BATS_TEST_TMPDIR/t/mixed.bats"
    local said="# tests/run: the maintainers' files not run (ALL_TESTS=1 runs them, as CI does): hostile suite"
    run env -u MAKEFLAGS -u ALL_TESTS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_equal "${lines[${#lines[@]} - 1]}" "2 passed, 0 failed, 0 skipped"
    assert_equal "${lines[1]}" "$said"
    assert_equal "${lines[${#lines[@]} - 2]}" "$said"
    refute_line --regexp '^ok [0-9]+ [hs]$'
    run env -u MAKEFLAGS ALL_TESTS=1 bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_equal "${lines[${#lines[@]} - 1]}" "4 passed, 0 failed, 0 skipped"
    refute_line --partial "maintainers' files not run"
    run env -u MAKEFLAGS -u ALL_TESTS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t/hostile.bats"
    assert_success
    assert_equal "${lines[${#lines[@]} - 1]}" "1 passed, 0 failed, 0 skipped"
}

# interrupted SIGNAL: starts tests/run on a file whose test sleeps, in a process group of its own
# with SIGINT and SIGHUP as a terminal would deliver them (not ignored, as under nohup or in a
# background job), TMPDIR a fresh folder; once the test runs, sends SIGNAL to the whole group
# (Ctrl-C) or to tests/run alone; `run` lists what is left in that TMPDIR afterwards.
interrupted() {
    local sig="$1" whom="$2" t="$BATS_TEST_TMPDIR/tmp-$1" started="$BATS_TEST_TMPDIR/started-$1" pid
    mkdir -p "$t"
    printf '%s\n' '@test "slow" { touch "$STARTED"; sleep 30; }' >"$BATS_TEST_TMPDIR/t/slow.bats"
    rm -f "$BATS_TEST_TMPDIR/t/mixed.bats" "$BATS_TEST_TMPDIR/t/good.bats"
    STARTED="$started" TMPDIR="$t" python3 -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)  # (under nohup it comes ignored, and bash cannot trap it then)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t" \
        >"$BATS_TEST_TMPDIR/out" 2>&1 &
    pid=$!
    for _ in $(seq 200); do [ -e "$started" ] && break; sleep 0.05; done
    [ -e "$started" ] || fail "the slow test did not start: $(cat "$BATS_TEST_TMPDIR/out")"
    [ -n "$(ls -A "$t")" ] || fail "tests/run made nothing in TMPDIR: the test proves nothing"
    if [ "$whom" = group ]; then kill "-$sig" -- "-$pid"; else kill "-$sig" "$pid"; fi
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    ! kill -0 "$pid" 2>/dev/null || fail "tests/run still runs 10 s after SIG$sig"
    wait "$pid" || true
    sleep 0.5 # (bats' own cleanup of a test it was stopped in)
    run ls -A "$t"
    [ -z "$(pgrep -f "$BATS_TEST_TMPDIR/t/slow.bats")" ] || fail "a bats run of the file outlived tests/run: $(pgrep -af "$BATS_TEST_TMPDIR/t/slow.bats")"
}

@test "tests/run: nothing left in TMPDIR after Ctrl-C (SIGINT to the group) or SIGTERM to tests/run alone" {
    interrupted INT group
    assert_output ""
    interrupted TERM self
    assert_output ""
    interrupted HUP self
    assert_output ""
}

@test "tests/run: a TMPDIR whose path holds a space: said, the tests' folders in /tmp (make and ld.so take them there), nothing left" {
    local odd="$BATS_TEST_TMPDIR/with space"
    mkdir -p "$odd"
    printf '%s\n' '@test "m" { mkdir "$BATS_TEST_TMPDIR/x"; [[ "$BATS_TEST_TMPDIR" != *" "* ]]; }' >"$BATS_TEST_TMPDIR/t/make.bats"
    rm -f "$BATS_TEST_TMPDIR/t/mixed.bats"
    TMPDIR="$odd" run env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_line --regexp "^# tests/run: TMPDIR=$odd holds a space or a colon, which make and ld.so cannot take in a path: the tests' temporary folders are in /tmp/cuda-lessons-tests\.[A-Za-z0-9]+$"
    assert_line --index -1 "3 passed, 0 failed, 0 skipped"
    dir="$(sed -n 's/.* are in \(.*\)$/\1/p' <<<"$output")"
    [ ! -e "$dir" ] || fail "$dir was left behind"
    [ -z "$(ls -A "$odd")" ] || fail "left in TMPDIR: $(ls -A "$odd")"
}

@test "tests/run: never silent for long: after QUIET_S seconds with nothing printed, the files still going and the tests each has done" {
    rm -f "$BATS_TEST_TMPDIR/t/mixed.bats" "$BATS_TEST_TMPDIR/t/good.bats"
    printf '%s\n' '@test "quick" { true; }' '@test "slow" { sleep 4; }' >"$BATS_TEST_TMPDIR/t/slow.bats"
    QUIET_S=1 run env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_line --regexp '^# tests/run: still going after [0-9]+ s: slow \(1 done\)$'
    assert_line --index -1 "2 passed, 0 failed, 0 skipped"
}
