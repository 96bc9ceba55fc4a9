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
