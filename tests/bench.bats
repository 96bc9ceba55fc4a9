#!/usr/bin/env bats
# grading/bench-class on CPU: its command line, the fields of bench.txt, its exit 1 when marks
# are not full (the real tree with no usable GPU: every exercise "cannot grade here", as
# grading/class says it), and a class of the toy lesson (tests/toy_lesson.bash: a stand-in
# nvidia-smi, so grading really happens) in full marks, with its builds, runs and tests timed.

load test_helper
load toy_lesson

setup() {
    command -v jq >/dev/null 2>&1 || skip "jq is not installed"
    W="$BATS_TEST_TMPDIR"
}

@test "bench-class: a bad command line is one line and exit 2, and creates nothing; --help is the usage" {
    run "$ROOT/grading/bench-class"
    assert_equal "$status" 2
    assert_output --partial "usage: grading/bench-class N OUT [--per-gpu K] [-- grade options]"
    run "$ROOT/grading/bench-class" --help
    assert_success
    assert_output --partial "usage: grading/bench-class N OUT"
    for args in "0 $W/o" "x $W/o" "2 $W/o --per-gpu 0" "2 $W/o --per-gpu" "2 $W/o --frob"; do
        # shellcheck disable=SC2086  # the words of each command line
        run "$ROOT/grading/bench-class" $args
        assert_equal "$status" 2
        assert_output --regexp '^bench-class: .*\(grading/bench-class --help\)$'
    done
    [ ! -e "$W/o" ] || fail "a bad command line made $W/o"
    # a folder class that bench-class did not make is left as it is
    mkdir -p "$W/mine/class"; echo kept >"$W/mine/class/file"
    run "$ROOT/grading/bench-class" 2 "$W/mine"
    assert_equal "$status" 2
    assert_output --partial "exists and was not made by bench-class"
    run cat "$W/mine/class/file"; assert_output kept
}

@test "bench-class on the real tree without a usable GPU: N copies of the solutions, bench.txt with every field, each student 'cannot grade here', exit 1" {
    # (no sandbox either: nothing is built, every grading is quick)
    run env CUDA_VISIBLE_DEVICES= SANDBOX_BWRAP=/nonexistent "$ROOT/grading/bench-class" 2 "$W/b" --per-gpu 2
    assert_equal "$status" 1
    assert_line "result: NOT full marks for 2 of 2 students: student-01 student-02"
    # each student holds every exercise's files, the solution's
    local l e f n=0
    for l in $(list_lessons "$ROOT"); do
        for e in $(sed -n 's/^\([a-z_]*\) [0-9.]*$/\1/p' "$ROOT/$l/exercises/points"); do
            for f in "$ROOT/$l/solutions/$e"/*.c; do
                [ -f "$f" ] || continue
                cmp -s "$f" "$W/b/class/student-02/$l/exercises/$e/${f##*/}" || fail "student-02 lacks the solution $l/$e/${f##*/}"
                n=$((n + 1))
            done
        done
    done
    [ "$n" -ge 18 ] || fail "only $n solution files compared"
    run cat "$W/b/bench.txt"
    assert_line "students: 2"
    assert_line "per_gpu: 2"
    assert_line --regexp '^machine: GPU .*; [0-9]+ CPU cores \(nproc\)$'
    assert_line --regexp '^teacher build: not built \(no GPU here: .*\)$'
    assert_line --regexp '^class wall time: [0-9]+\.[0-9] s \(grading/class local, exit 77\)$'
    assert_line --regexp '^per student: [0-9]+\.[0-9] s'
    for l in $(list_lessons "$ROOT"); do
        assert_line --regexp "^  $l +- +-$"   # no build: no sandbox
        for e in $(sed -n 's/^\([a-z_]*\) [0-9.]*$/\1/p' "$ROOT/$l/exercises/points"); do
            assert_line --regexp "^  $l +$e +- +- +- +- +-$"
        done
    done
    assert_line --regexp '^  student-01: 0/[0-9]+ NOT FULL MARKS \(grade took [0-9]+ s\): cannot grade here \(no usable GPU\): [^;]+; first: 01_hello_runtime/[a-z_]+: not graded'
    assert_line --regexp '^  student-02: 0/[0-9]+ NOT FULL MARKS'
    # run again on the same OUT: made afresh
    run env CUDA_VISIBLE_DEVICES= SANDBOX_BWRAP=/nonexistent "$ROOT/grading/bench-class" 1 "$W/b"
    assert_equal "$status" 1
    assert_line "result: NOT full marks for 1 of 1 students: student-01"
    [ ! -e "$W/b/class/student-02" ] || fail "the class of the first run was not replaced"
}

@test "bench-class on the toy lesson: full marks for every student, exit 0; each lesson's build, each exercise's run and each test timed" {
    local T="$W/teacher" nosb=''
    make_toy_tree "$T"
    # the toy's grader runs its programs as the real graders do (run_exercise: the second test
    # of add reads the run the first kept)
    sed -i -e 's|^    load ../../tests/test_helper$|&\n    load harness|' -e 's|run "\$SANDBOX" |run_exercise |' "$T/grading/judge/01_toy.bats"
    SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/true >/dev/null 2>&1 </dev/null \
        || nosb=--no-sandbox-i-trust-this-code
    # (the toy's GPU is its stand-in nvidia-smi, first on PATH: no GPU test, whatever tests/run
    # says of this file's untagged tests)
    run env -u CUDA_LESSONS_UNTAGGED "$T/grading/bench-class" 2 "$W/b" --per-gpu 2 -- --timeout 20 ${nosb:+"$nosb"}
    assert_success
    assert_line "result: full marks for all 2 students"
    run cat "$W/b/bench.txt"
    assert_line --regexp '^teacher build: [0-9]+\.[0-9] s \(once, before the class; not in its time\)$'
    assert_line --regexp '^class wall time: [0-9]+\.[0-9] s \(grading/class local, exit 0\)$'
    assert_line --regexp '^  01_toy +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
    # run_sum run_med alone_sum wait_sum wait_med: the toy tags nothing gpu_alone
    assert_line --regexp '^  01_toy +add +[0-9]+\.[0-9] +[0-9]+\.[0-9] +0\.0 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
    assert_line --regexp '^  01_toy +loop +[0-9]+\.[0-9] +[0-9]+\.[0-9] +0\.0 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
    assert_line --regexp '^  all runs: [0-9]+\.[0-9] s; with the GPU alone: 0(\.0)? s'
    assert_line --regexp '^  estimate for 20 students at per_gpu 2: [0-9]+ s '
    # the estimate is what the GPU's lock allows: 20 x alone / N + 20 x the other runs / (N x K)
    # + one student's builds, from the figures bench.txt gives (N = 2, K = 2; none alone here)
    local runs builds est
    runs="$(sed -n 's/^  all runs: \([0-9.]*\) s;.*/\1/p' <<<"$output")"
    builds="$(awk '$1 == "01_toy" && NF == 3 { print $2 }' <<<"$output")"
    est="$(sed -n 's/^  estimate for 20 students at per_gpu 2: \([0-9]*\) s .*/\1/p' <<<"$output")"
    assert_equal "$est" "$(awk -v r="$runs" -v b="$builds" 'BEGIN { printf "%.0f", 20 * r / 4 + b / 2 }')"
    assert_line --regexp '^ +[0-9]+\.[0-9]{2}  01_toy: add: prints a sum$'
    assert_line --regexp '^ +[0-9]+\.[0-9]{2}  01_toy: add: the sum of 2 and 3 is 5$'
    assert_line --regexp '^ +[0-9]+\.[0-9]{2}  01_toy: loop: says done$'
    # each program run: no judge's channel here (no stamps), its whole time; the kept run once
    assert_line --regexp '^ +- +- +[0-9]+  01_toy: add: prints a sum \[add\]$'
    assert_line --regexp '^ +- +- +[0-9]+  01_toy: loop: says done \[loop\]$'
    refute_line --partial 'add: the sum of 2 and 3 is 5 ['
    assert_line --regexp '^  student-01: 15/15 \(full marks; grade took [0-9]+ s\)$'
    assert_line --regexp '^  student-02: 15/15 \(full marks; grade took [0-9]+ s\)$'
}
