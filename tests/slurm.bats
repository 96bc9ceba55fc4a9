#!/usr/bin/env bats
# grading/class slurm without Slurm: the job script it writes (one GPU per task, the time limit,
# the array). The whole path on a real single-node Slurm (a job array and a gather job, a task
# past its time limit, gather run twice) is tests/opt-in/slurm.bats: opt-in, as it needs Slurm
# installed and takes about two minutes:
#     SLURM_TEST=1 make test TESTS=tests/opt-in/slurm.bats

setup() {
    load test_helper
}

@test "slurm (no daemon needed): the script asks for one GPU per task, a time limit and the array" {
    C="$BATS_TEST_TMPDIR/class"
    mkdir -p "$C/ann" "$C/bob" "$C/cy"
    run "$ROOT/grading/class" slurm "$C" "$BATS_TEST_TMPDIR/o2" --time 30 --partition gpu --max-running 4
    assert_success
    assert_output --partial "3 tasks (gpu:1, time limit 30)"
    run cat "$BATS_TEST_TMPDIR/o2/students.txt"
    assert_output "$(printf 'ann\nbob\ncy')"
    run cat "$BATS_TEST_TMPDIR/o2/grade.sbatch"
    assert_line "#SBATCH --array=0-2%4"
    assert_line "#SBATCH --gres=gpu:1"
    assert_line "#SBATCH --time=30"
    assert_line "#SBATCH --partition=gpu"
    run bash -n "$BATS_TEST_TMPDIR/o2/grade.sbatch"
    assert_success
}

@test "slurm: a student folder named with shell syntax (tom&jerry, \$(), quotes, spaces) gets its own result" {
    C="$BATS_TEST_TMPDIR/class"; O="$BATS_TEST_TMPDIR/o"
    mkdir -p "$C/tom&jerry" "$C/x\$(touch \${IFS}PWNED) it's"
    run "$ROOT/grading/class" slurm "$C" "$O" --gres none
    assert_success
    run shellcheck -S warning "$O/grade.sbatch"
    [ "$(command -v shellcheck)" = "" ] || assert_success
    # each task as Slurm would run it (no GPU: each grading says it cannot grade here, exit 77)
    for i in 0 1; do
        (cd "$BATS_TEST_TMPDIR" && SLURM_ARRAY_TASK_ID=$i CUDA_VISIBLE_DEVICES= bash "$O/grade.sbatch") \
            >"$BATS_TEST_TMPDIR/task$i.log" 2>&1 || true
    done
    run jq -r '.student' "$O/results/tom&jerry/results.json"
    assert_output 'tom&jerry'
    run jq -r '.student' "$O/results/x\$(touch \${IFS}PWNED) it's/results.json"
    assert_output "x\$(touch \${IFS}PWNED) it's"
    run find "$BATS_TEST_TMPDIR" "$ROOT" -maxdepth 3 -name PWNED
    assert_output ''
    # nothing could be graded here: no gradebook of zeros, exit 77
    run "$ROOT/grading/class" gather "$O"
    assert_equal "$status" 77
    assert_output --partial "none of the 2 submissions could be graded here, no gradebook written"
    [ ! -e "$O/gradebook.csv" ]
}
