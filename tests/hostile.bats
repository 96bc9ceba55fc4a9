#!/usr/bin/env bats
# The hostile-submission corpus (tests/hostile/) against grading/, on CPU: a toy lesson of plain
# C graded with the stand-in nvidia-smi (the attacks run before the first CUDA call, so a GPU
# changes nothing). One victim hands in the solutions; eleven attackers try to take points, read
# the teacher's files or the victim's, write outside their sandbox, outlive their run. Each must
# score 0, read and write nothing outside, and leave the victim's rows as they were.

load test_helper
load toy_lesson

setup_file() {
    command -v jq >/dev/null 2>&1 || return 0   # setup() skips every test, with the reason
    command -v bwrap >/dev/null 2>&1 || return 0
    local why
    if ! why="$(SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/true 2>&1 </dev/null)"; then
        echo "bubblewrap cannot make a sandbox here: $(printf '%s' "$why" | head -n 1)" >"$BATS_FILE_TMPDIR/no-sandbox"
        return 0
    fi
    export T="$BATS_FILE_TMPDIR/teacher" C="$BATS_FILE_TMPDIR/class" O="$BATS_FILE_TMPDIR/out"

    # The attacks from inside the student's process, against the real build rules and the
    # system-call filter (tests/hostile/make-code-class): a lesson built by common/lesson.mk.
    # A tree and a class of their own: graded in the background, beside the classes below (its
    # builds fill the CPU that their sandboxes' waits leave idle; the file took 40 s longer with
    # it after them).
    export T2="$BATS_FILE_TMPDIR/probe-teacher" C2="$BATS_FILE_TMPDIR/probe-class" O2="$BATS_FILE_TMPDIR/probe-out"
    (
        if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
            echo "no nvcc here: the probe lesson is built by common/lesson.mk, which links with nvcc" >"$BATS_FILE_TMPDIR/no-probe"
        else
            make_toy_tree "$T2"
            bash "$ROOT/tests/hostile/make-code-class" "$ROOT" "$T2" "$C2"
            if ! make -s -C "$T2/02_probe" -j2 >"$O2.teacher.log" 2>&1; then
                echo "the probe lesson does not build here: $(grep -m1 -i error "$O2.teacher.log")" >"$BATS_FILE_TMPDIR/no-probe"
            else
                "$T2/grading/class" local "$C2" "$O2" --per-gpu 4 --timeout 30 --format none -- 02_probe >"$O2.log" 2>&1 || true
            fi
        fi
    ) &
    local probe=$!
    make_toy_tree "$T"
    (cd "$T" && make -s -C 01_toy >/dev/null)   # the teacher's own build (references included)

    # The victim is graded first; then the attackers, beside each other.
    bash "$ROOT/tests/hostile/make-class" "$T" "$C" 01_toy add loop "$O/results/victim" >/dev/null
    mkdir -p "$BATS_FILE_TMPDIR/first"; mv "$C/victim" "$BATS_FILE_TMPDIR/first/"
    local rc=0
    "$T/grading/class" local "$BATS_FILE_TMPDIR/first" "$O" --timeout 10 --format none >"$O.victim.log" 2>&1 || rc=$?
    mv "$BATS_FILE_TMPDIR/first/victim" "$C/"
    # the victim's work again, under a folder name full of shell syntax: it must be graded as is
    cp -r "$C/victim" "$C/o'neil & \$(touch PWNED) a:b"
    (cd "$T" && find . -path ./01_toy/build -prune -o -type f -print0 | sort -z | xargs -0 md5sum) >"$O.teacher.before"
    (cd "$C/victim" && find . -type f -print0 | sort -z | xargs -0 md5sum) >"$O.victim.before"
    md5sum <"$O/results/victim/results.json" >"$O.victim.result"
    # (with secrets in the grader's environment: none may reach a sandbox)
    env PIP_INDEX_URL='https://ada:SECRET-ENV-1@pypi.example.org/simple' HTTPS_PROXY='http://ada:SECRET-ENV-2@proxy:3128' \
        DATABASE_URL='postgres://ada:SECRET-ENV-3@db/grades' \
        "$T/grading/class" local "$C" "$O" --per-gpu 4 --timeout 10 --format all >"$O.class.log" 2>&1 || rc=$?
    echo "$rc" >"$O.class.rc"
    # right after the grading: is any process of theirs still there?
    pgrep -af hostile-linger-marker >"$O.linger" 2>&1 || true

    # The attacks on the students beside: an honest student graded alone, then while they are
    # graded (once the process holder holds every process it may), on two stand-in GPUs
    # (nvidia-smi lists two; their device nodes, minor numbers 3 and 5, are files in a folder of
    # the test's), under small limits that the attacks exhaust.
    export R="$BATS_FILE_TMPDIR/res" RO="$BATS_FILE_TMPDIR/resout"
    bash "$ROOT/tests/hostile/make-class" --resources "$T" "$R" 01_toy add loop "$RO/results/honest" >/dev/null
    mkdir -p "$BATS_FILE_TMPDIR/stopclass" "$BATS_FILE_TMPDIR/alone"
    mv "$R/stop" "$BATS_FILE_TMPDIR/stopclass/"; cp -r "$C/victim" "$BATS_FILE_TMPDIR/stopclass/honest"
    mv "$R/hang" "$BATS_FILE_TMPDIR/"; mv "$R/honest" "$BATS_FILE_TMPDIR/alone/"
    local g="$BATS_FILE_TMPDIR/gpus"
    mkdir -p "$g/bin" "$g/info/0000:01:00.0" "$g/info/0000:02:00.0" "$g/dev"
    printf '#!/bin/sh\n[ "$1" = -L ] && printf "GPU 0: Toy GPU (UUID: GPU-toy-0)\\nGPU 1: Toy GPU (UUID: GPU-toy-1)\\n"\nexit 0\n' >"$g/bin/nvidia-smi"
    chmod +x "$g/bin/nvidia-smi"
    printf 'Model: Toy GPU\nGPU UUID: GPU-toy-0\nDevice Minor: 3\n' >"$g/info/0000:01:00.0/information"
    printf 'Model: Toy GPU\nGPU UUID: GPU-toy-1\nDevice Minor: 5\n' >"$g/info/0000:02:00.0/information"
    for d in nvidia0 nvidia3 nvidia5 nvidiactl nvidia-uvm nvidia-uvm-tools nvidia-modeset; do : >"$g/dev/$d"; done
    # the class's machine: the two stand-in GPUs, and small limits that the attacks exhaust
    local machine=(PATH="$g/bin:$PATH" GRADE_GPU_INFO="$g/info" SANDBOX_DEV_DIR="$g/dev" SANDBOX_NPROC=150
        SANDBOX_PIDS=200 SANDBOX_TMP_MB=64 SANDBOX_SHM_MB=32 SANDBOX_FSIZE_MB=64 SANDBOX_MEM_MB=1024
        SANDBOX_MEMORY_MB=512)
    resources() { # OUT SUBMISSIONS class-options...
        local o="$1" s="$2"; shift 2
        env "${machine[@]}" "$T/grading/class" local "$s" "$o" --gpus 0,1 --timeout 20 "$@"
    }
    resources "$RO.alone" "$BATS_FILE_TMPDIR/alone" --format none >"$RO.alone.log" 2>&1 || true
    resources "$RO" "$R" --per-gpu 5 --format all >"$RO.log" 2>&1 &
    local class=$! n=0 i
    # the holder's processes all run its program (the sandbox shows the work copy at $T)
    for i in $(seq 1 150); do
        n="$(pgrep -c -x -f "$T/01_toy/build/exercises/add" || true)"
        [ "$n" -lt 100 ] || break
        sleep 0.2
    done
    echo "$n" >"$RO.held-before"
    env "${machine[@]}" CUDA_VISIBLE_DEVICES=0 "$T/grading/grade" --submission "$BATS_FILE_TMPDIR/alone/honest" --out "$RO.beside" -q --timeout 40 >"$RO.beside.log" 2>&1 || true
    pgrep -c -x -f "$T/01_toy/build/exercises/add" >"$RO.held-after" || true
    rc=0; wait "$class" || rc=$?
    echo "$rc" >"$RO.rc"
    du -sm "$RO" | cut -f1 >"$RO.du"

    # (the probe's class, graded beside: its tree and class made, or setup_file fails as before)
    rc=0; wait "$probe" || rc=$?
    [ "$rc" -eq 0 ] || { echo "the probe lesson's tree or class could not be made (exit $rc)" >&2; return "$rc"; }
    [ -z "${KEEP_HOSTILE:-}" ] || cp -r "$BATS_FILE_TMPDIR" "$KEEP_HOSTILE"
}

setup() {
    command -v jq >/dev/null 2>&1 || skip "jq is not installed"
    command -v bwrap >/dev/null 2>&1 || skip "bubblewrap (bwrap) is not installed: the grading refuses submissions without it"
    [ -z "$(cat "$BATS_FILE_TMPDIR/no-sandbox" 2>/dev/null)" ] || skip "$(cat "$BATS_FILE_TMPDIR/no-sandbox")"
    export PATH="$T/bin:$PATH"
    unset CUDA_VISIBLE_DEVICES
}

ATTACKERS="forge escape linger claim77 incl passwd links alias exlink names flood"
RESOURCE_ATTACKERS="nproc gpu mem disk flood inject oracle"
points() { jq -r --arg e "$2" '.exercises[] | select(.exercise == $e) | "\(.points) \(.status)"' "$O/results/$1/results.json"; }

@test "hostile: every attacker scores 0 on both exercises; the victim keeps 15/15 and its result file" {
    run cat "$O.class.rc"; assert_output 0
    for s in $ATTACKERS; do
        run jq -r '"\(.score)/\(.max_score)"' "$O/results/$s/results.json"
        assert_output "0/15" || fail "$s scored $output"
    done
    run grep -c '^"victim",' "$O/gradebook.csv"; assert_output 2
    run grep '^"victim",' "$O/gradebook.csv"
    assert_line '"victim","01_toy","add",10,10,"passed",""'
    assert_line '"victim","01_toy","loop",5,5,"passed",""'
    run md5sum <"$O/results/victim/results.json"; assert_output "$(cat "$O.victim.result")"
    assert_equal "$(grep -c . "$O/gradebook.csv")" 27      # header + 13 students x 2
    run grep -F "\"o'neil & \$(touch PWNED) a:b\"," "$O/gradebook.csv"
    assert_line "\"o'neil & \$(touch PWNED) a:b\",\"01_toy\",\"add\",10,10,\"passed\",\"\""
    assert_line "\"o'neil & \$(touch PWNED) a:b\",\"01_toy\",\"loop\",5,5,\"passed\",\"\""
}

@test "hostile: no teacher file and nothing of the victim's reached any result, log or feedback" {
    run grep -rlE 'SECRET-(SOLUTION|GRADER|VICTIM|ENV)|root:x:0:0' "$O/results" "$O/logs" "$O/gradebook.csv"
    # (the victim's own build log may quote its own file; nothing else may)
    refute_output --regexp '/results/(forge|escape|linger|claim77|incl|passwd|links|alias|exlink|names|flood)/'
    refute_output --partial "$O/logs/"
    # the escape's program ran (its feedback shows what it could see) and read nothing
    run jq -r '.exercises[0].tests[1].message' "$O/results/escape/results.json"
    assert_output --partial 'sum: 4'
    refute_output --partial 'SECRET'
    # nothing of the teacher's solutions or graders could be read (the escape prints what it read)
    run grep -rhoE 'read [^ ]*(solutions/|grading/judge/)[^ ]*:' "$O/results/escape"
    assert_output ''
}

@test "hostile: nothing written outside the sandbox: the teacher's tree, the victim's folder, no PWNED file" {
    (cd "$T" && find . -path ./01_toy/build -prune -o -type f -print0 | sort -z | xargs -0 md5sum) >"$BATS_TEST_TMPDIR/after"
    run diff "$O.teacher.before" "$BATS_TEST_TMPDIR/after"; assert_success
    (cd "$C/victim" && find . -type f -print0 | sort -z | xargs -0 md5sum) >"$BATS_TEST_TMPDIR/victim"
    run diff "$O.victim.before" "$BATS_TEST_TMPDIR/victim"; assert_success
    # (other test files running beside this one remove their folders under /tmp meanwhile: a
    # folder gone between find's listing and its visit is not a finding)
    run bash -c 'find "$1" /tmp -maxdepth 6 -ignore_readdir_race -name "PWNED*" -newer "$2" 2>&1 |
        grep -v ": No such file or directory$"' _ "$BATS_FILE_TMPDIR" "$O.victim.result"
    assert_output ''
}

@test "hostile: forged TAP from a detached child gains nothing; no process outlives its run" {
    # (its first test passes honestly: the skeleton prints a sum, the wrong one)
    run jq -r '[.exercises[].tests[].status] | join(",")' "$O/results/forge/results.json"
    assert_output passed,failed,failed
    run cat "$O.linger"; assert_output ''
    run points linger add; assert_output "0 failed"
}

@test "hostile: symbolic links are not followed (a lesson, an exercise folder, exercises/, a file)" {
    run points links add;  assert_output "0 missing"
    run jq -r '.exercises[0].reason' "$O/results/links/results.json"
    assert_output "01_toy/exercises/add in the submission is a symbolic link: not followed"
    run jq -r '.ignored[] | "\(.path): \(.why)"' "$O/results/links/results.json"
    assert_line "01_toy/exercises/loop/main.c: a symbolic link"
    run jq -r '.exercises[].reason' "$O/results/alias/results.json"
    assert_line "01_toy in the submission is a symbolic link: not followed"
    run jq -r '.exercises[].reason' "$O/results/exlink/results.json"
    assert_line "01_toy/exercises in the submission is a symbolic link: not followed"
}

@test "hostile: includes of the solutions, the grader or /etc/passwd do not build and show nothing" {
    for s in incl passwd; do
        run points "$s" add; assert_output "0 build failed"
        run points "$s" loop; assert_output "0 build failed"
    done
    run jq -r '.exercises[0].reason' "$O/results/incl/results.json"
    assert_output --partial "No such file or directory"
}

@test "hostile: file names with shell syntax are neither run nor taken; many and large files are refused in time" {
    run jq -r '.ignored[] | "\(.path): \(.why)"' "$O/results/names/results.json"
    assert_line "01_toy/exercises/add/x\$(touch\${IFS}PWNED).c: added; not a file a student may edit"
    assert_line "01_toy/exercises/add/new?line.c: added; not a file a student may edit"
    run points names loop; assert_output "0 missing"
    run points flood add; assert_output "0 missing"
    run jq -r '.ignored[] | select(.path == "01_toy/exercises/add/main.c") | .why' "$O/results/flood/results.json"
    assert_output "over 1 MiB"
    run jq -r '.exercises[1].reason' "$O/results/flood/results.json"
    assert_output "01_toy/exercises/loop in the submission has more than 64 source files: none taken"
    run jq -r '.seconds < 30' "$O/results/flood/results.json"; assert_output true
}

@test "hostile: a program's 'cannot run here' (exit 77) is its failure when the GPU works: 0 points, not regraded" {
    run points claim77 add; assert_output "0 failed"
    run points claim77 loop; assert_output "0 failed"
    run cat "$O/logs/claim77.exit"; assert_output 1
}

@test "hostile: --rev of a checkout whose git config runs a command (a smudge filter): it runs in the sandbox" {
    command -v git >/dev/null 2>&1 || skip "git is not installed"
    G="$BATS_TEST_TMPDIR/gitfilter"
    cp -r "$C/victim" "$G"
    echo '* filter=evil' >"$G/.gitattributes"
    git -C "$G" init -q && git -C "$G" add -A && git -C "$G" -c user.name=s -c user.email=s@x commit -qm one
    git -C "$G" config filter.evil.smudge "touch '$BATS_TEST_TMPDIR/PWNED-smudge'; cat"
    run "$T/grading/grade" --submission "$G" --rev HEAD --out "$BATS_TEST_TMPDIR/r" -q
    assert_success                         # the victim's work, read from the commit: 15/15
    assert_output --regexp 'total +15/15'
    [ ! -e "$BATS_TEST_TMPDIR/PWNED-smudge" ] || fail "the smudge filter ran outside the sandbox"
    # without a sandbox the commit is not even unpacked: every exercise 'not graded'
    run env SANDBOX_BWRAP=/nonexistent/bwrap "$T/grading/grade" --submission "$G" --rev HEAD --out "$BATS_TEST_TMPDIR/r2" -q
    assert_equal "$status" 77
    run jq -r '[.exercises[].status] | unique | join(",")' "$BATS_TEST_TMPDIR/r2/results.json"
    assert_output "not graded"
    [ ! -e "$BATS_TEST_TMPDIR/PWNED-smudge" ]
}

@test "hostile: without a sandbox a submission is refused (exit 77), unless the teacher names the risk" {
    run env SANDBOX_BWRAP=/nonexistent/bwrap "$T/grading/grade" --submission "$C/victim" --out "$BATS_TEST_TMPDIR/r" -q
    assert_equal "$status" 77
    assert_output --partial "cannot grade here (no sandbox): no sandbox to run the submission's code in: bubblewrap is not installed"
    assert_output --partial "apt-get install bubblewrap"
    run env SANDBOX_BWRAP=/nonexistent/bwrap "$T/grading/grade" --submission "$C/victim" --out "$BATS_TEST_TMPDIR/r" -q --no-sandbox-i-trust-this-code
    assert_success
    assert_output --partial "sandbox: NONE: --no-sandbox-i-trust-this-code"
    run jq -r '.sandbox' "$O/results/victim/results.json"
    assert_output --regexp '^bubblewrap [0-9.]+ '
}

# ---- the students beside: processes, GPU, memory, disk, time, output, the report's bytes ------

honest_rows() { grep '^"honest",' "$1/gradebook.csv"; }

@test "hostile (beside): the honest student's points are the same alone and beside every resource attacker" {
    run cat "$RO.rc"; assert_output 0
    run honest_rows "$RO.alone"
    assert_line '"honest","01_toy","add",10,10,"passed",""'
    assert_line '"honest","01_toy","loop",5,5,"passed",""'
    # graded while the holder held every process it may (150): from its start (its sandbox's
    # first check, its copy, its build); the hold lasts 8 s a run, two runs (RO.held-after says
    # whether it still held at the end: on a busy machine the grading may outlast it)
    run cat "$RO.held-before"; [ "$output" -ge 100 ] || fail "the holder held $output processes when the honest student's grading began"
    run jq -r '.exercises[] | "\(.points)/\(.max_points) \(.status)"' "$RO.beside/results.json"
    assert_output "$(printf '10/10 passed\n5/5 passed')"
    for s in $RESOURCE_ATTACKERS; do
        run jq -r '.exercises[] | select(.exercise == "add") | .points' "$RO/results/$s/results.json"
        assert_output 0 || fail "$s scored $output on add"
    done
}

@test "hostile (beside): a student holding every process it may (a user id and a cgroup per grading) starves nobody" {
    run jq -r '.exercises[0].tests[0].message' "$RO/results/nproc/results.json"
    assert_output --regexp 'held [0-9]+ processes'
    n="$(grep -o 'held [0-9]*' <<<"$output" | head -n 1 | cut -d' ' -f2)"
    [ "$n" -le 150 ] || fail "held $n processes past SANDBOX_NPROC=150"
    # each grading ran as a user id of its own
    run jq -r '.sandbox' "$RO/results/nproc/results.json"
    assert_output --regexp 'run as user id [0-9]+ \(this grading.s own\)'
    u1="$(grep -o 'user id [0-9]*' <<<"$output")"
    run jq -r '.sandbox' "$RO/results/honest/results.json"
    refute_output --partial "$u1 "
}

@test "hostile (beside): the sandbox sees its own GPU's node only, whatever it does with CUDA_VISIBLE_DEVICES" {
    run jq -r '.exercises[0].tests[] | .message' "$RO/results/gpu/results.json"
    assert_output --regexp 'gpu-view: nvidia-uvm nvidia-uvm-tools nvidia(3|5) nvidiactl'
    refute_output --partial nvidia-modeset
    refute_output --partial nvidia0
    refute_output --regexp 'gpu-view: .*nvidia3.*nvidia5|gpu-view: .*nvidia5.*nvidia3'
    assert_output --regexp 'gpu-cvd: GPU-toy-(0|1)'
    # the node matches the GPU the class gave it (GPU 0 is minor 3, GPU 1 minor 5)
    gpu="$(grep -o 'grading: gpu on GPU [01]' "$RO.log" | grep -o '[01]$')"
    minor=$([ "$gpu" = 0 ] && echo 3 || echo 5)
    assert_output --partial "nvidia$minor nvidiactl"
    assert_output --partial "gpu-cvd: GPU-toy-$gpu"
    run jq -r '.sandbox' "$RO/results/gpu/results.json"
    assert_output --partial "GPU device node /dev/nvidia$minor only"
}

@test "hostile (beside): /tmp and /dev/shm are capped tmpfs; memory and files are limited" {
    run jq -r '.exercises[0].tests[0].message' "$RO/results/mem/results.json"
    t="$(grep -o 'tmp-mib: [0-9]*' <<<"$output" | cut -d' ' -f2)"
    m="$(grep -o 'shm-mib: [0-9]*' <<<"$output" | cut -d' ' -f2)"
    [ -n "$t" ] && [ "$t" -le 64 ] || fail "wrote ${t:-?} MiB to /tmp (cap 64)"
    [ -n "$m" ] && [ "$m" -le 32 ] || fail "wrote ${m:-?} MiB to /dev/shm (cap 32)"
    h="$(grep -o 'heap-mib: [0-9]*' <<<"$output" | tail -n 1 | cut -d' ' -f2)"
    [ "${h:-0}" -lt 1024 ] || fail "its heap reached $h MiB"
    if jq -e '.sandbox | test("a cgroup of its own")' "$RO/results/mem/results.json" >/dev/null; then
        [ "${h:-0}" -lt 512 ] || fail "its heap reached $h MiB in a cgroup of 512 MiB"
    fi
    # 300 MiB of data does not build under the 64 MiB file limit, and nothing that size stays
    run jq -r '.exercises[0] | "\(.points) \(.status)"' "$RO/results/disk/results.json"
    assert_output "0 build failed"
    run cat "$RO.du"
    [ "$output" -lt 100 ] || fail "the class's results hold $output MiB"
}

@test "hostile (beside): 8 million lines stop the run at once, with the reason" {
    # (failed within the time limit, not "timed out": the grader read what it could)
    run jq -r '.exercises[0] | "\(.points) \(.status) \(.seconds < 20)"' "$RO/results/flood/results.json"
    assert_output "0 failed true"
    run jq -r '.exercises[0].reason' "$RO/results/flood/results.json"
    assert_output --partial "a program printed more than the grader reads (5000 lines or 1024 KiB): it was stopped"
}

@test "hostile (beside): a hang in every run costs one time budget, not every step's limit" {
    # (an honest student graded meanwhile, under the default budget)
    "$T/grading/grade" --submission "$C/victim" --out "$BATS_TEST_TMPDIR/honest" -q --timeout 20 >/dev/null 2>&1 &
    honest=$!
    run "$T/grading/grade" --submission "$BATS_FILE_TMPDIR/hang" --out "$BATS_TEST_TMPDIR/h" -q --timeout 4 --budget 5
    assert_equal "$status" 1
    # (two steps of 4 s and the build would take 9 s and more; the budget ends it at 5 s; the
    # build's own time decides whether add's run was cut by its limit or by the budget)
    run jq -r '.seconds <= 8, (.exercises[] | "\(.exercise) \(.status) \(.reason)")' "$BATS_TEST_TMPDIR/h/results.json"
    assert_line true
    local h="$output" budget="the grading's time budget \\(5s for every build and run of this student, --budget\\) ran out"
    if [[ "$h" == *"ran out during the build"* ]]; then
        # a machine so busy that the build alone outlasted the budget (under a load of 13, the
        # build took more than 5 s): the budget still ended it at once, and said so, for every
        # exercise; the hanging runs this test is about were never reached
        assert_line --regexp "^add build failed does not build: grade: $budget during the build: stopped$"
        assert_line --regexp "^loop build failed does not build: grade: $budget during the build: stopped$"
    else
        # (the outcome and its reason, whichever of the two limits the build's time let end it:
        # "timed out after 4s" or the budget's "(5s ...) ran out", said before or during its run)
        assert_line --regexp "^add timed out (timed out after 4s|(timed out: )?$budget( before it)?)$"
        assert_line --regexp "^loop timed out (timed out: )?$budget"
    fi
    wait "$honest" || true
    run jq -r '"\(.score)/\(.max_score)"' "$BATS_TEST_TMPDIR/honest/results.json"
    assert_output 15/15
    [[ "$h" != *"ran out during the build"* ]] ||
        skip "the build alone outlasted the 5 s budget here (load average $(cut -d' ' -f1-3 /proc/loadavg)): the budget ended the grading, for its reason, before any hanging run"
}

# stop_once_started PID WHAT [LOG]: once the sleeper's sandbox runs (its marker), SIGTERM to PID
# (a grading, WHAT); within 5 s no process of the sandbox is left. LOG (a file): shown if it
# never started.
stop_once_started() {
    local pid="$1" i t0
    for i in $(seq 1 60); do pgrep -f hostile-stop-marker >/dev/null && break; sleep 0.5; done
    pgrep -f hostile-stop-marker >/dev/null || { kill "$pid"; fail "$2's sandbox never started${3:+: $(cat "$3")}"; }
    kill -TERM "$pid"
    t0=$SECONDS
    wait "$pid" || true
    for i in $(seq 1 10); do pgrep -f hostile-stop-marker >/dev/null || break; sleep 0.3; done
    run pgrep -af hostile-stop-marker; assert_output ''
    [ $((SECONDS - t0)) -le 5 ] || fail "$2's stop took $((SECONDS - t0)) s"
}

@test "hostile (beside): a class's stop ends every sandbox at once; graded again, the honest student's points are the same" {
    S="$BATS_FILE_TMPDIR/stopclass"
    env PATH="$T/bin:$PATH" "$T/grading/class" local "$S" "$BATS_TEST_TMPDIR/o" --per-gpu 2 --timeout 60 --format none \
        >"$BATS_TEST_TMPDIR/log" 2>&1 &
    stop_once_started $! "the class" "$BATS_TEST_TMPDIR/log"
    run cat "$BATS_TEST_TMPDIR/log"
    assert_output --partial "class: stopped:"
    run grep -c . "$BATS_TEST_TMPDIR/o/logs/stop.exit"; assert_output 1
    run cat "$BATS_TEST_TMPDIR/o/logs/stop.exit"; assert_output stopped
    # one student's grading stopped on its own (grading/grade): the same, not at the step's limit
    "$T/grading/grade" --submission "$S/stop" --out "$BATS_TEST_TMPDIR/g" -q --timeout 60 >/dev/null 2>&1 &
    stop_once_started $! "grade"
    # graded again (without the sleeper): the honest student's points as alone
    rm -rf "$S/stop"
    run env PATH="$T/bin:$PATH" "$T/grading/class" local "$S" "$BATS_TEST_TMPDIR/o" --timeout 20 --format none
    run honest_rows "$BATS_TEST_TMPDIR/o"
    assert_line '"honest","01_toy","add",10,10,"passed",""'
    assert_line '"honest","01_toy","loop",5,5,"passed",""'
}

@test "hostile (beside): every format stays valid, and shows no control character, with hostile bytes in what it quotes" {
    command -v python3 >/dev/null 2>&1 || skip "python3 is needed to parse the XML and CSV"
    I="$RO/results/inject"
    run jq -r '.exercises[0].status' "$I/results.json"; assert_output "build failed"
    # the bytes are there, made visible (escaped), not raw
    run jq -r '.exercises[0].reason' "$I/results.json"
    assert_output --partial 'inject:\u001B[2J'
    assert_output --partial '\uFFFE \uFFFF =cmd'
    run jq -r '.exercises[1].tests[0].message' "$I/results.json"
    assert_output --partial '\u009B31m \uFFFE \uFFFF \u202E'
    run jq -r '.ignored[].path' "$I/results.json"
    assert_line --partial 'name.c'
    base64 -d "$I/classroom.b64" >"$BATS_TEST_TMPDIR/classroom.json"
    for f in "$I/results.json" "$I/gradescope.json" "$I/prairielearn.json" "$I/classroom.json" "$BATS_TEST_TMPDIR/classroom.json"; do
        jq -e . "$f" >/dev/null || fail "$f is not valid JSON"
    done
    run python3 -c 'import sys, xml.etree.ElementTree as E
E.parse(sys.argv[1]); print("xml ok")' "$I/junit.xml"
    assert_output "xml ok"
    if command -v xmllint >/dev/null 2>&1; then
        run xmllint --noout "$I/junit.xml"; assert_success
    fi
    run python3 -c 'import csv, sys
for name, width in ((sys.argv[1], 6), (sys.argv[2], 7)):
    rows = list(csv.reader(open(name, newline="", encoding="utf-8")))
    assert all(len(r) == width for r in rows), name
    assert not any(c and c[0] in "=+-@" for r in rows for c in r), name
print("csv ok")' "$I/exercises.csv" "$RO/gradebook.csv"
    assert_output "csv ok"
    # no control character but tab and newline, no C1, no non-character, no bidi override, in
    # any file a teacher or a platform reads (the raw logs/ aside)
    for f in "$I"/report.txt "$I"/exercises.csv "$I"/*.json "$I/junit.xml" "$RO/gradebook.csv" "$RO/missing.txt"; do
        run env LC_ALL=C grep -lP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xbf[\xbe\xbf]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$f"
        assert_output '' || fail "$f holds a control character"
    done
}

@test "hostile (beside): a report never tells whether a file of the teacher's exists or matches (the oracle)" {
    run jq -r '.ignored[] | "\(.path): \(.why)"' "$RO/results/oracle/results.json"
    assert_line "grading/: 2 file(s): not taken from a submission (the grading uses the teacher's own; they are not compared with it)"
    assert_line "01_toy/solutions/: 2 file(s): not taken from a submission (the grading uses the teacher's own; they are not compared with it)"
    refute_output --regexp '(tests|solutions)/.*: (changed|added)'
    assert_equal "${#lines[@]}" 2
}

@test "hostile (race): a file or folder swapped for a link while the submission is copied reads nothing of anyone else" {
    command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler for the racing program"
    "${CC:-cc}" -o "$BATS_TEST_TMPDIR/swap" "$ROOT/tests/hostile/swap.c" || skip "renameat2 is not available here"
    V="$BATS_TEST_TMPDIR/racer"
    cp -r "$C/victim" "$V"
    find "$V" -type f -exec sed -i '/SECRET/d' {} +    # its own files hold no marker: a marker read is another's
    printf 'secret root-only file: SECRET-ROOTONLY\n' >"$BATS_TEST_TMPDIR/rootonly"; chmod 600 "$BATS_TEST_TMPDIR/rootonly"
    # add/main.c swaps with a link to a root-only file; the folder loop with a link to the
    # teacher's solution of loop: each is a plain file or folder half of the time, as the
    # grader checks it, and a link half of the time, as it copies it
    ln -s "$BATS_TEST_TMPDIR/rootonly" "$V/01_toy/exercises/add/alt"
    ln -s "$T/01_toy/solutions/loop" "$V/01_toy/exercises/loop-alt"
    touch "$BATS_TEST_TMPDIR/racing"
    "$BATS_TEST_TMPDIR/swap" "$V/01_toy/exercises/add/main.c" "$V/01_toy/exercises/add/alt" "$BATS_TEST_TMPDIR/racing" &
    r1=$!
    "$BATS_TEST_TMPDIR/swap" "$V/01_toy/exercises/loop" "$V/01_toy/exercises/loop-alt" "$BATS_TEST_TMPDIR/racing" &
    r2=$!
    # (the victim, an honest student, graded meanwhile)
    "$T/grading/grade" --submission "$C/victim" --out "$BATS_TEST_TMPDIR/victim" -q --timeout 10 >/dev/null 2>&1 &
    victim=$!
    pids=()
    for i in 1 2 3 4 5 6; do     # (three at a time)
        "$T/grading/grade" --submission "$V" --out "$BATS_TEST_TMPDIR/r$i" -q -k --timeout 10 >/dev/null 2>&1 &
        pids+=($!)
        [ $((i % 3)) != 0 ] || { wait "${pids[@]}" || true; pids=(); }
    done
    rm -f "$BATS_TEST_TMPDIR/racing"; wait "$r1" "$r2" || true
    wait "$victim" || true
    run jq -r '"\(.score)/\(.max_score)"' "$BATS_TEST_TMPDIR/victim/results.json"
    assert_output 15/15
    run grep -rlE 'SECRET-(SOLUTION|ROOTONLY)' "$BATS_TEST_TMPDIR"/r[1-6]
    assert_output ''
    for i in 1 2 3 4 5 6; do
        [ -f "$BATS_TEST_TMPDIR/r$i/results.json" ] || fail "grading $i left no result"
    done
}

@test "hostile: the environment is an allowlist: the grader's secrets never reach a program" {
    run env PIP_INDEX_URL='https://a:SECRET-ENV@x/simple' AWS_SECRET_ACCESS_KEY=SECRET-ENV MY_VAR=SECRET-ENV \
        SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /usr/bin/env
    assert_success
    refute_output --partial SECRET-ENV
    assert_line --regexp '^PATH='
    assert_line 'HOME=/tmp'
    run env MY_VAR=passed SANDBOX_ENV_PASS=MY_VAR SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /usr/bin/env
    assert_line 'MY_VAR=passed'
}

@test "hostile: DRIVER_WATCH_REAL (the real driver behind the stand-in) reaches the program, its file bound read-only where the system folders do not show it" {
    local d="$BATS_TEST_TMPDIR/drv/lib"
    mkdir -p "$d"; echo "the real driver" >"$d/libcuda.so.1.580"; ln -s libcuda.so.1.580 "$d/libcuda.so.1"
    chmod -R go+rX "$BATS_TEST_TMPDIR/drv"
    run env DRIVER_WATCH_REAL="$d/libcuda.so.1" SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/sh -c \
        'echo "real=$DRIVER_WATCH_REAL"; cat "$DRIVER_WATCH_REAL"; echo x >>"$DRIVER_WATCH_REAL" || echo read-only; ls "${DRIVER_WATCH_REAL%/*}"'
    assert_success
    assert_line "real=$d/libcuda.so.1"
    assert_line "the real driver"
    assert_line "read-only"
    refute_line "libcuda.so.1.580" # the file alone, not its folder
}

@test "hostile: a LD_LIBRARY_PATH folder outside /usr and /opt (under /tmp too) is there for the program, the folders above it open (0755), /tmp still its own" {
    local uid=() dirs=("$BATS_TEST_TMPDIR/ld/x/y/lib") o
    mkdir -p "${dirs[0]}"; echo "marker of ${dirs[0]}" >"${dirs[0]}/marker"
    if [ "$(id -u)" = 0 ]; then
        uid=(SANDBOX_UID=2147400001) # (a user id of its own: a folder made 0700 above is closed to it)
        if o="$(mktemp -d /var/tmp/hostile-ld.XXXXXX 2>/dev/null)"; then # (outside /tmp too)
            echo "$o" >"$BATS_TEST_TMPDIR/ld-dir"
            mkdir -p "$o/a/lib"; echo "marker of $o/a/lib" >"$o/a/lib/marker"; chmod 755 "$o"
            dirs+=("$o/a/lib")
        fi
    fi
    chmod -R go+rX "$BATS_TEST_TMPDIR/ld"
    local IFS=:
    run env LD_LIBRARY_PATH="${dirs[*]}" SANDBOX_MODE=bwrap ${uid[@]+"${uid[@]}"} "$ROOT/grading/sandbox-run" /bin/sh -c \
        'for d; do p="$d"; while p="${p%/*}"; [ -n "$p" ]; do stat -c "%a %n" "$p"; done; cat "$d/marker"; done
         : >/tmp/written && echo "tmp:" $(ls -A /tmp)' _ "${dirs[@]}"
    unset IFS
    assert_success
    for d in "${dirs[@]}"; do
        assert_line "marker of $d"
        assert_line "755 ${d%/*}"
    done
    # no folder above them closed (made 0700 by bwrap): 0755, or the sandbox's own /tmp (1777)
    refute_output --regexp '^(700|[0-7]*0) /'
    # /tmp is the sandbox's own tmpfs, writable, with nothing of the host's /tmp but the folders
    # above the library folder
    local top=""
    case "${dirs[0]}" in /tmp/*) top="${dirs[0]#/tmp/}"; top="${top%%/*} " ;; esac
    assert_line "tmp: ${top}written"
}

@test "hostile (not root): graded by an ordinary user, the student's code runs as a subordinate id, not as that user" {
    [ "$(id -u)" = 0 ] || skip "needs root here, to give an ordinary user (nobody) subordinate ids for the test"
    command -v newuidmap >/dev/null 2>&1 || skip "newuidmap is not installed (apt-get install uidmap): graded by an ordinary user, the sandbox runs as that user, and the report says so"
    getent passwd nobody >/dev/null || skip "no user nobody here"
    D="$(mktemp -d /tmp/hostile-nobody.XXXXXX)"; chmod 755 "$D"
    echo "$D" >"$BATS_TEST_TMPDIR/nobody-dir"
    for f in subuid subgid; do
        cp -p "/etc/$f" "$BATS_TEST_TMPDIR/$f.saved" 2>/dev/null || : >"$BATS_TEST_TMPDIR/$f.saved"
        grep -q '^nobody:' "/etc/$f" 2>/dev/null || echo 'nobody:1300000:65536' >>"/etc/$f"
    done
    make_toy_tree "$D/t"
    (cd "$D/t" && make -s -C 01_toy >/dev/null)
    mkdir -p "$D/lib" "$D/subs" "$D/tmp" # (the tests' TMPDIR may be a folder of root's only)
    echo 'SECRET-NOBODY-KEY' >"$D/lib/key"; chmod 600 "$D/lib/key"
    cp -r "$C/victim" "$D/subs/victim"
    mkdir -p "$D/subs/reader/01_toy/exercises/add"
    printf '#include <stdio.h>\nint main(void) { FILE *f = fopen("%s/lib/key", "r"); char b[64] = "unreadable";\n if (f) { if (!fgets(b, sizeof b, f)) b[0] = 0; fclose(f); } printf("key: %%s\\n", b); return 1; }\n' "$D" \
        >"$D/subs/reader/01_toy/exercises/add/main.c"
    chown -R nobody "$D"
    run setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
        env HOME="$D" TMPDIR="$D/tmp" PATH="$D/t/bin:$PATH" LD_LIBRARY_PATH="$D/lib" "$D/t/grading/class" local "$D/subs" "$D/out" --timeout 10 --format none
    for f in subuid subgid; do cp "$BATS_TEST_TMPDIR/$f.saved" "/etc/$f"; done
    [ -f "$D/out/results/reader/results.json" ] || fail "the class graded no reader (exit $status): $output"
    run jq -r '.exercises[0].tests[0].message' "$D/out/results/reader/results.json"
    assert_output --partial 'key: unreadable'
    refute_output --partial SECRET-NOBODY-KEY
    run jq -r '.sandbox' "$D/out/results/reader/results.json"
    assert_output --regexp 'run as subordinate user id [0-9]+ \(this grading.s own; not you\)'
    run grep '^"victim",' "$D/out/gradebook.csv"
    assert_line '"victim","01_toy","add",10,10,"passed",""'
    assert_line '"victim","01_toy","loop",5,5,"passed",""'
    rm -rf "$D"
}

# ---- code in the student's own process: before main(), its own system calls, libc by pointer --

probe_setup() {
    [ -z "$(cat "$BATS_FILE_TMPDIR/no-probe" 2>/dev/null)" ] || skip "$(cat "$BATS_FILE_TMPDIR/no-probe")"
    [ -f "$O2/gradebook.csv" ] || fail "the probe class left no gradebook: $(tail -n 5 "$O2.log")"
}
probe_row() { jq -r '.exercises[0] | "\(.points) \(.status): \(.reason)"' "$O2/results/$1/results.json"; }

@test "hostile (code): code before main() by every mechanism of the linker and loader, or a library's function redefined: refused at the build, each for what it is" {
    probe_setup
    local why="does not build: exercises/probe/probe\\.c:[0-9]+: error: refused by the grader: it"
    # name, and the reason (a regex): the first refusal the report shows
    # name, and the reason (a regex): the build log says it (every reason is), and the report
    # shows the first (those pasted with ## are refused for their words, seen in the
    # preprocessor's output, before what their object holds)
    while read -r s reason; do
        run probe_row "$s"
        assert_output --regexp "^0 build failed: $why " || fail "$s: $output"
        grep -qE -- "exercises/probe/probe\.c:[0-9]+: error: refused by the grader: it $reason" "$O2/results/$s/logs/02_probe.build.log" \
            || fail "$s: not refused for $reason: $(grep -h 'refused by the grader' "$O2/results/$s/logs/02_probe.build.log")"
    done <<'EOF'
ctor_attr writes __attribute__\(\(constructor\)\)
ctor_hidden has a section of type INIT_ARRAY \(\.init_array\)
init_named has a section of type INIT_ARRAY \(\.init_array\)
init_typed has a section of type INIT_ARRAY \(\.hooks\)
preinit has a section of type PREINIT_ARRAY \(\.preinit_array\)
fini has a section of type FINI_ARRAY \(\.fini_array\)
ctors has a constructor, destructor or init/fini section \(\.ctors\)
ifunc has an ifunc, 'hook'
ifunc_local has an ifunc, 'hook'
irelative has a relocation R_X86_64_IRELATIVE
tls has thread-local data \(\.tdata, SHF_TLS\)
exec_section has code outside \.text \(the executable section \.fast\)
atexit defines 'atexit' outside static, a name that libc_nonshared\.a defines
libc_start defines '__libc_start_main' outside static
cuda defines 'cudaMalloc' outside static
asm_syscall writes inline assembly \(__asm__\)
pragma writes a #pragma \(only #pragma once is allowed\)
refused_call calls or uses 'exit', which this exercise refuses: the harness reports after your function returns; return instead$
asm_splice writes inline assembly \(__asm__\)
asm_paste writes inline assembly \(__asm__\)
EOF
    # the first refusal shown: the words as the compiler reads them (spliced, pasted)
    while read -r s reason; do
        run probe_row "$s"
        assert_output --regexp "^0 build failed: $why $reason" || fail "$s: $output"
    done <<'EOF'
ctor_hidden writes __attribute__\(\(constructor\)\)
init_typed writes inline assembly \(__asm__\)
fini writes __attribute__\(\(destructor\)\)
ifunc writes __attribute__\(\(ifunc\)\)
asm_splice writes inline assembly \(__asm__\)
asm_paste writes inline assembly \(__asm__\)
asm_syscall writes inline assembly \(__asm__\)
EOF
    # every refused build said each reason at the student's file and line
    run grep -h 'refused by the grader' "$O2"/results/*/report.txt
    [ "${#lines[@]}" -ge 20 ] || fail "only ${#lines[@]} refusals in the reports"
}

@test "hostile (code): a system call from its own bytes, exec, fork, ptrace and /proc/self/mem through libc reached by pointer: stopped at run time" {
    probe_setup
    run probe_row honest; assert_output "10 passed: "
    # each attack found its function by pointer and was stopped (the program's output is in the
    # test's message); without the filter, exec and system would print "sum: 5" and pass
    local m
    m() { jq -r '.exercises[0].tests[0].message' "$O2/results/$1/results.json"; }
    run m exec;    assert_output --partial "attack: execve found"; assert_output --partial "attack: execve returned -1 (Operation not permitted)"
    run m system;  assert_output --partial "attack: system found"; refute_output --partial "attack: system returned 0"
    run m ptrace;  assert_output --partial "attack: ptrace returned -1 (Operation not permitted)"
    run m procmem; assert_output --partial "attack: /proc/self/mem for writing: Permission denied"
    run m rodata;  assert_output --partial "exit status 159"      # SIGSYS: the filter ended it
    for s in exec system ptrace procmem rodata; do
        run probe_row "$s"; assert_output --regexp "^0 failed: " || fail "$s: $output"
    done
    # the programs themselves, outside the sandbox: the filter, not the sandbox, stops these
    local bin="$O2/../probe-run"
    for s in rodata exec; do
        mkdir -p "$bin/$s"
        make -s -C "$T2/02_probe" exercise-from EXERCISE=probe FROM="$C2/$s/02_probe/exercises/probe" INTO="$bin/$s" >/dev/null
    done
    run "$bin/rodata/probe"
    assert_equal "$status" 159
    assert_output --partial "attack: mprotect found"
    refute_output --partial "raw system call returned"
    run "$bin/exec/probe"
    assert_success
    assert_output --partial "attack: execve returned -1 (Operation not permitted)"
    refute_line "sum: 5"
}

@test "hostile (code): in the sandbox an exercise program names another of its threads in /proc (as the CUDA runtime does), and cannot open /proc/self/mem for writing, nor make itself dumpable again (prctl, seccomp, unshare, setns, personality refused)" {
    [ "$(id -u)" = 0 ] || skip "needs root here: only then does the sandbox run the program as a user id of its own (SANDBOX_UID)"
    command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler for the probe"
    local d="$BATS_TEST_TMPDIR" cc="${CC:-cc}"
    # the "student's" object, marked as an exercise's build marks it: accepted by check-object,
    # which renames its code student_text (the filter's constructor looks for that section);
    # a copy left unmarked, for a program without the filter
    printf 'int probe_add(int a, int b)\n{\n    return a + b;\n}\n' >"$d/student.c"
    "$cc" -std=c11 -O2 -c "$d/student.c" -o "$d/student.o"
    cp "$d/student.o" "$d/unmarked.o"
    run bash "$ROOT/grading/check/check-object" none "$d/student.o" "$d/student.c"
    assert_success
    run readelf -W -S "$d/student.o"
    assert_output --partial " student_text "
    for p in student unmarked; do
        "$cc" -std=c11 -O2 -I"$ROOT/common" -I"$ROOT/grading/harness" -o "$d/$p" "$ROOT/tests/hostile/procprobe.c" \
            "$ROOT/grading/harness/syscall_filter.c" "$d/$p.o" -lpthread
    done
    run env SANDBOX_MODE=bwrap SANDBOX_TREE="$ROOT" SANDBOX_UID=2147400001 "$ROOT/grading/sandbox-run" "$d/student"
    assert_success
    assert_line "filter: on"
    assert_line "uid: 2147400001"
    assert_line "dumpable: 0"
    # (a read-only /proc would say "Read-only file system": cudart's first call then fails, 304)
    assert_line "comm of another thread: procprobe-w"
    assert_line "/proc/self/mem for writing: Permission denied"
    # what would undo the filter's settings is refused, the process stays not dumpable and its
    # /proc/self/mem closed; naming its own thread (the CUDA runtime does) still works
    assert_line "prctl PR_SET_DUMPABLE 1: Operation not permitted"
    assert_line "/proc/self/mem for writing again: Permission denied"
    local c
    for c in "prctl PR_SET_PTRACER" "prctl PR_SET_MM" "prctl PR_SET_SECCOMP" seccomp unshare setns personality; do
        assert_line "$c: Operation not permitted"
    done
    assert_line "prctl PR_SET_NAME: 0"
    # the same program without student_text: no filter, dumpable, and its /proc/self/mem opens
    # there: the filter, not the sandbox, closes it
    run env SANDBOX_MODE=bwrap SANDBOX_TREE="$ROOT" SANDBOX_UID=2147400001 "$ROOT/grading/sandbox-run" "$d/unmarked"
    assert_success
    assert_line "filter: off"
    assert_line "dumpable: 1"
    assert_line "comm of another thread: procprobe-w"
    assert_line "/proc/self/mem for writing: opened"
    assert_line "prctl PR_SET_DUMPABLE 1: 0"
    assert_line "seccomp: 0"
}

teardown() {
    # (the "not root" test's /etc/subuid and /etc/subgid put back even when it fails, and its
    # folder removed; the LD_LIBRARY_PATH test's in /var/tmp)
    for f in subuid subgid; do
        [ ! -f "$BATS_TEST_TMPDIR/$f.saved" ] || cp "$BATS_TEST_TMPDIR/$f.saved" "/etc/$f"
    done
    [ ! -f "$BATS_TEST_TMPDIR/nobody-dir" ] || rm -rf "$(cat "$BATS_TEST_TMPDIR/nobody-dir")"
    [ ! -f "$BATS_TEST_TMPDIR/ld-dir" ] || rm -rf "$(cat "$BATS_TEST_TMPDIR/ld-dir")"
}
