#!/usr/bin/env bats
# grading/class on a real single-node Slurm: slurmctld, slurmd and munged from Debian's packages
# (apt-get install slurm-wlm munge), configured and started here in a temporary folder, stopped
# after. A synthetic class from this tree is graded as a job array plus a gather job. Without a
# GPU every grade is "cannot grade here": what is checked is the plumbing - every submission
# gets exactly its rows, a task that fails and a task that runs past its time limit are
# recorded, nothing is lost, and gather is idempotent.
#
# Opt-in, because it takes about two minutes (Slurm's smallest time limit is one minute) and
# needs Slurm installed: it lives outside tests/ and `make test` does not run it:
#     SLURM_TEST=1 make test TESTS=tests/opt-in/slurm.bats
# It skips, with the reason, when Slurm or munge is not installed, when not root, or when the
# daemons do not start. (tests/slurm.bats checks the generated job script without Slurm.)

setup_file() {
    load ../test_helper
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"; export ROOT
    export D="$BATS_FILE_TMPDIR/slurm"
    mkdir -p "$D"
    local why=''
    if [ "${SLURM_TEST:-0}" != 1 ]; then
        why="opt-in: set SLURM_TEST=1 to start a single-node Slurm here (about two minutes)"
    elif ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
         || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
        why="Slurm or munge is not installed (apt-get install slurm-wlm munge)"
    elif [ "$(id -u)" != 0 ]; then
        why="starting slurmd needs root"
    elif ! command -v jq >/dev/null; then
        why="jq is not installed"
    fi
    if [ -n "$why" ]; then echo "$why" >"$D/skip"; return 0; fi

    # munge, with its own key and socket
    mkdir -p "$D/state" "$D/spool"
    chmod 700 "$D"
    dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$D/munge.key"
    munged --force --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
        --log-file="$D/munged.log" --seed-file="$D/munged.seed" >/dev/null 2>&1 \
        || { echo "munged did not start: $(tail -n 2 "$D/munged.log" 2>/dev/null)" >"$D/skip"; return 0; }
    local host port
    host="$(hostname)"
    port=$((20000 + RANDOM % 20000))
    cat >"$D/slurm.conf" <<EOF
ClusterName=gradetest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=2
InactiveLimit=0
MinJobAge=300
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=grade Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF="$D/slurm.conf"
    slurmctld -c -f "$SLURM_CONF" >/dev/null 2>&1 && slurmd -f "$SLURM_CONF" >/dev/null 2>&1
    local i
    for i in $(seq 1 40); do
        sinfo -h -o '%T' 2>/dev/null | grep -qx idle && break
        sleep 0.5
    done
    if ! sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
        echo "the Slurm daemons did not start: $(tail -n 2 "$D/slurmctld.log" "$D/slurmd.log" 2>/dev/null | tr '\n' ' ')" >"$D/skip"
        return 0
    fi

    # The class: the sample students (two lessons, to keep it short), one whose grading hangs
    # past the task's time limit (through --wrap, as a container wrapper would run it), and a
    # stray file whose grading fails.
    export C="$BATS_FILE_TMPDIR/class" O="$BATS_FILE_TMPDIR/out"
    export FIRST LAST
    FIRST="$(cd "$ROOT" && ls -d [0-9][0-9]_*/ | head -n 1 | tr -d /)"
    LAST="$(cd "$ROOT" && ls -d [0-9][0-9]_*/ | tail -n 1 | tr -d /)"
    "$ROOT/grading/sample-class" "$C" "$FIRST" "$LAST" >/dev/null
    cp -r "$C/skeletons" "$C/sleepy"
    echo 'not a folder' >"$C/stray"
    printf '#!/bin/sh\ncase "$*" in *"/sleepy "*) sleep 600 ;; esac\nexec "$@"\n' >"$D/wrap"
    chmod +x "$D/wrap"
    "$ROOT/grading/class" slurm "$C" "$O" --gres none --cpus 1 --time 1 --wrap "$D/wrap" \
        --submit -- "$FIRST" "$LAST" >"$D/submit.log" 2>&1
    # wait for the array and the gather job (the hanging task ends at its 1-minute limit)
    for i in $(seq 1 120); do
        [ -z "$(squeue -h 2>/dev/null)" ] && break
        sleep 2
    done
    squeue -h >"$D/left.txt" 2>&1
}

teardown_file() {
    local f p i
    for f in slurmd slurmctld munged; do
        [ -f "$D/$f.pid" ] || continue
        p="$(cat "$D/$f.pid")"
        kill "$p" 2>/dev/null
        for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    done
    return 0
}

setup() {
    load ../test_helper
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"; export ROOT
    export SLURM_CONF="$D/slurm.conf"
}
need_slurm() { [ ! -f "$D/skip" ] || skip "$(cat "$D/skip")"; }

@test "slurm: the job array and the gather job ran to the end, nothing left in the queue" {
    need_slurm
    run cat "$D/submit.log"
    assert_output --partial "wrote $O/grade.sbatch: 8 tasks"
    assert_output --regexp 'submitted array job [0-9]+ and gather job [0-9]+'
    run cat "$D/left.txt"
    assert_output ""
    [ -f "$O/logs/gather.log" ] || fail "the gather job wrote no log"
    # on a CPU node nothing could be graded: no gradebook of zeros, and the gather says why
    run cat "$O/logs/gather.log"
    assert_output --partial "class: nothing could be graded here, no gradebook written"
    assert_output --partial "no result for 2"
    [ ! -e "$O/gradebook.csv" ] || fail "a gradebook was written although nothing could be graded"
}

@test "slurm: every submission gets its own result, 'cannot grade here' for each exercise of the graded lessons" {
    need_slurm
    n="$(for l in "$FIRST" "$LAST"; do sed 's/#.*//' "$ROOT/$l/exercises/points" | awk 'NF'; done | wc -l)"
    for s in broken cheater hang missing skeletons solutions; do
        run jq -r '[.student, .exit, .nothing_ran, (.exercises | length), .score] | map(tostring) | join(" ")' \
            "$O/results/$s/results.json"
        assert_output "$s 77 true $n 0"
    done
    run jq -r '[.exercises[] | .status] | unique | join(",")' "$O/results/solutions/results.json"
    assert_output "not graded"
    run jq -r --arg l "$LAST" '[.exercises[] | select(.lesson == $l) | .reason] | unique | join(",")' \
        "$O/results/missing/results.json"
    assert_output "the submission has no folder $LAST (lesson missing)"
    run jq -r '.cannot_grade' "$O/results/skeletons/results.json"
    assert_output --partial "cannot grade here (no usable GPU)"
}

@test "slurm: a task past its time limit and a task that failed are recorded, with why" {
    need_slurm
    run cat "$O/missing.txt"
    assert_line "sleepy	timed out: the grading task ran past its Slurm time limit"
    assert_line --regexp '^stray	the grading failed, no result: grade: --submission .*/stray is not a folder$'
    assert_equal "${#lines[@]}" 2
}

@test "slurm: gather is idempotent, and a second array grades only what is missing" {
    need_slurm
    cp "$O/missing.txt" "$BATS_TEST_TMPDIR/before.txt"
    run "$ROOT/grading/class" gather "$O"
    assert_equal "$status" 77
    cmp "$O/missing.txt" "$BATS_TEST_TMPDIR/before.txt"
    run "$ROOT/grading/class" gather "$O"
    assert_equal "$status" 77
    cmp "$O/missing.txt" "$BATS_TEST_TMPDIR/before.txt"
    [ ! -e "$O/gradebook.csv" ]
    # the generated script skips a submission that already has a result
    run grep -c 'already graded' "$O/grade.sbatch"
    assert_output 1
}
