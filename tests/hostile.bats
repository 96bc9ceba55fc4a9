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
    "$T/grading/class" local "$C" "$O" --per-gpu 4 --timeout 10 --format all >"$O.class.log" 2>&1 || rc=$?
    echo "$rc" >"$O.class.rc"
    # right after the grading: is any process of theirs still there?
    pgrep -af hostile-linger-marker >"$O.linger" 2>&1 || true
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
    run grep -rlE 'SECRET-(SOLUTION|GRADER|VICTIM)|root:x:0:0' "$O/results" "$O/logs" "$O/gradebook.csv"
    # (the victim's own build log may quote its own file; nothing else may)
    refute_output --regexp '/results/(forge|escape|linger|claim77|incl|passwd|links|alias|exlink|names|flood)/'
    refute_output --partial "$O/logs/"
    # the escape's program ran (its feedback shows what it could see) and read nothing
    run jq -r '.exercises[0].tests[1].message' "$O/results/escape/results.json"
    assert_output --partial 'sum: 4'
    refute_output --partial 'SECRET'
    # nothing of the teacher's solutions or graders could be read (the escape prints what it read)
    run grep -rhoE 'read [^ ]*(solutions/|tests/exercises/)[^ ]*:' "$O/results/escape"
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
