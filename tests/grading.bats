#!/usr/bin/env bats
# grading/: points, time limits, submission isolation, a class, and the result formats, on CPU.
# The machinery runs on a toy lesson (plain C, a fake nvidia-smi that lists one GPU), so that
# grading really happens here: a small class is graded once, in setup_file, and the tests read
# its files. The real tree is checked for what must hold without a GPU (exit 77, nothing
# passes, missing lessons and ignored files reported) and for points files matching graders.

load test_helper
load toy_lesson

setup_file() {
    command -v jq >/dev/null 2>&1 || return 0   # setup() skips every test, with the reason
    export T="$BATS_FILE_TMPDIR/teacher"
    make_toy_tree "$T"
    export O="$BATS_FILE_TMPDIR/out"
    # The machinery is tested here; the sandbox is attacked in hostile.bats. Where bubblewrap
    # cannot make a sandbox (a container without user namespaces), the submissions are graded
    # without it, as the teacher's explicit option allows (hostile.bats then skips, saying why).
    export NOSB=''
    SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/true >/dev/null 2>&1 </dev/null \
        || NOSB=--no-sandbox-i-trust-this-code

    # In place: the reference solutions, then the untouched skeletons (one tree: one at a time).
    local rc=0   # (setup_file runs under set -e)
    "$T/grading/grade" --solutions --out "$O/solutions" -f all >"$O.solutions.log" 2>&1 || rc=$?
    echo $rc >"$O.solutions.rc"; rc=0

    # A class, graded five at a time on the one toy GPU.
    export C="$BATS_FILE_TMPDIR/class"
    local good_add='#include <stdio.h>
int main(void) { puts("sum: 5"); return 0; }'
    local good_loop='#include <stdio.h>
int main(void) { puts("done"); return 0; }'
    put() { mkdir -p "$C/$1/01_toy/exercises/$2"; printf '%s\n' "$3" >"$C/$1/01_toy/exercises/$2/main.c"; }
    put ann add "$good_add"; put ann loop "$good_loop"
    put bob add "$good_add"                                       # no loop: missing exercise
    mkdir -p "$C/dan/other"                                       # no lesson at all
    put eve add "$good_add"; put eve loop '#include <stdio.h>
#include <unistd.h>
int main(void) { for (;;) sleep(1); puts("done"); }'   # hangs (asleep: no CPU burnt for 6 s)
    put fay add 'int main(void) { return 0 }'; put fay loop "$good_loop"     # does not build
    # gus hands in the untouched skeletons, and cheats: a grader that passes everything, a
    # Makefile that copies the solutions, a changed common/ file, an added note and a symbolic
    # link to a solution
    mkdir -p "$C/gus/01_toy"; cp -r "$T/01_toy/exercises" "$C/gus/01_toy/"; rm "$C/gus/01_toy/exercises/points"
    mkdir -p "$C/gus/grading/judge" "$C/gus/common"
    printf '@test "add: prints a sum" { true; }\n@test "add: the sum of 2 and 3 is 5" { true; }\n@test "loop: says done" { true; }\n' \
        >"$C/gus/grading/judge/01_toy.bats"
    printf 'all:\n\tmkdir -p build/exercises; cp build/solutions/* build/exercises/\n' >"$C/gus/01_toy/Makefile"
    echo 'student' >"$C/gus/common/note.txt"
    echo 'notes' >"$C/gus/01_toy/exercises/add/NOTES.txt"
    ln -s ../../solutions/loop/main.c "$C/gus/01_toy/exercises/loop/helper.c"
    put kim add '#include <stdio.h>
int main(void) { fputs("add: cannot run here: no CUDA device is visible\n", stderr); return 77; }'
    put kim loop "$good_loop"                       # as on a node whose GPU stopped working
    put lia add "$good_add"; put lia loop '#include <stdio.h>
int main(void) { puts("done"); return 77; }'   # its one test checks the output only: it passes
    echo 'not a folder' >"$C/hal"                                # a stray file: grading fails
    # (formats are made from results.json alone: the tests below make them with grading/formats)
    "$T/grading/class" local "$C" "$O/class" --per-gpu 5 --timeout 6 --format none ${NOSB:+-- "$NOSB"} >"$O.class.log" 2>&1 || rc=$?
    echo $rc >"$O.class.rc"; rc=0
    # kim again, on a node whose GPU really stopped working: the grader's own check fails too
    GRADE_GPU_PROBE=false "$T/grading/grade" --submission "$C/kim" --out "$O/kim-gone" -q $NOSB >"$O.kim-gone.log" 2>&1 || rc=$?
    echo $rc >"$O.kim-gone.rc"
    [ -z "${KEEP_TOY:-}" ] || cp -r "$BATS_FILE_TMPDIR" "$KEEP_TOY"
}

setup() {
    command -v jq >/dev/null 2>&1 || skip "jq is not installed"
    export PATH="$T/bin:$PATH"
    unset CUDA_VISIBLE_DEVICES
    S="$BATS_TEST_TMPDIR/student"
}

# "points status" of an exercise in a results.json: row FILE EXERCISE
row() { jq -r --arg e "$2" '.exercises[] | select(.exercise == $e) | "\(.points) \(.status)"' "$1"; }
R() { echo "$O/class/results/$1/results.json"; }

@test "the reference solutions score every point (15/15), exit 0; the graders' TAP lines are shown" {
    run cat "$O.solutions.rc"; assert_output 0
    run cat "$O.solutions.log"
    assert_output --regexp 'total +15/15'
    assert_output --partial "ok 1 add: prints a sum"
    assert_output --partial "ok 1 loop: says done"
    run row "$O/solutions/results.json" add;  assert_output "10 passed"
    run row "$O/solutions/results.json" loop; assert_output "5 passed"
}

@test "the untouched skeletons score 0: an exercise is all or nothing, though one of its tests passes" {
    run cat "$O/class/logs/gus.exit"; assert_output 1
    run cat "$O/class/results/gus/report.txt"; assert_output --regexp 'total +0/15'
    run row "$(R gus)" add; assert_output "0 failed"
    run jq -r '.exercises[0].tests | map(.status) | join(",")' "$(R gus)"
    assert_output "passed,failed"
    run jq -r '.exercises[0].reason' "$(R gus)"
    assert_output --partial "1 of 2 tests failed, first: add: the sum of 2 and 3 is 5"
}

@test "the points files are read at grading time (comments allowed)" {
    run jq -r '[.exercises[] | "\(.exercise)=\(.max_points)"] | join(" ")' "$O/solutions/results.json"
    assert_output "add=10 loop=5"
}

@test "without a usable GPU: exit 77 and the reason; every exercise 'not graded', every test 'not run'" {
    run env CUDA_VISIBLE_DEVICES= "$T/grading/grade" --solutions --out "$S" -q -f all
    assert_equal "$status" 77
    assert_output --partial "cannot grade here (no usable GPU): CUDA_VISIBLE_DEVICES is set empty"
    run jq -r '[.score, .exit, (.exercises | map(.status) | unique | join(",")),
                ([.exercises[].tests[].status] | unique | join(","))] | join(" ")' "$S/results.json"
    assert_output "0 77 not graded not run"
    run jq -r '.exercises[0].tests[0].message' "$S/results.json"
    assert_output "not run: cannot grade here (no usable GPU): CUDA_VISIBLE_DEVICES is set empty"
    # each platform's "not graded": nothing recorded as a 0 (TEACHING.md: what each one shows)
    run jq -r '"\(.status) \(.max_score)"' "$S/classroom.json"; assert_output "error 0"
    run jq -r '[.gradable, .succeeded, has("score"), (.format_errors[0] | startswith("cannot grade here (no usable GPU)"))] | map(tostring) | join(" ")' "$S/prairielearn.json"
    assert_output "false false false true"
    # Gradescope: no score at all (it would add up the tests' scores) and no "failed"
    run jq -r '[(.score | tostring), ([.tests[] | has("score")] | any), ([.tests[] | .status // "none"] | unique | join(",")), (.output | startswith("NOT RUN: "))] | map(tostring) | join(" ")' "$S/gradescope.json"
    assert_output "null false none true"
    command -v python3 >/dev/null 2>&1 || skip "python3 is needed to parse the JUnit XML"
    run python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(len(r.findall(".//testcase/skipped")), len(r.findall(".//testcase")))' "$S/junit.xml"
    assert_output "3 3"
    # the reasons the GPU check gives
    . "$T/grading/lib.sh"
    run env PATH=/usr/bin:/bin bash -c ". '$T/grading/lib.sh'; gpu_reason"
    [ -x /usr/bin/nvidia-smi ] || assert_output "no GPU here: nvidia-smi not found (no NVIDIA driver)"
    CUDA_VISIBLE_DEVICES=1 run gpu_reason
    assert_output "no GPU here: CUDA_VISIBLE_DEVICES names GPU 1, and nvidia-smi lists 1"
    CUDA_VISIBLE_DEVICES=GPU-toy run gpu_reason; assert_output ""
    CUDA_VISIBLE_DEVICES=0 run gpu_reason; assert_output ""
}

@test "a class: every submission gets exactly its rows in the gradebook, with the expected points" {
    run cat "$O.class.rc"; assert_output 0
    run cat "$O/class/gradebook.csv"
    assert_line 'student,lesson,exercise,points,max_points,status,reason'
    assert_line '"ann","01_toy","add",10,10,"passed",""'
    assert_line '"ann","01_toy","loop",5,5,"passed",""'
    assert_line '"bob","01_toy","add",10,10,"passed",""'
    assert_line '"bob","01_toy","loop",0,5,"missing","the submission has no folder 01_toy/exercises/loop"'
    assert_line '"dan","01_toy","add",0,10,"missing","the submission has no folder 01_toy (lesson missing)"'
    assert_line '"eve","01_toy","add",10,10,"passed",""'
    assert_line '"eve","01_toy","loop",0,5,"timed out","timed out after 6s"'
    assert_line --regexp '^"fay","01_toy","add",0,10,"build failed","does not build: .*exercises/add/main\.c:1:.*error'
    assert_line '"fay","01_toy","loop",5,5,"passed",""'
    assert_line --regexp '^"gus","01_toy","add",0,10,"failed",'
    # (its loop/helper.c is a link to the solution: the exercise brings nothing, flagged)
    assert_line --regexp '^"gus","01_toy","loop",0,5,"missing","01_toy/exercises/loop/helper.c in the submission is a symbolic link: not followed'
    assert_line --regexp '^"hal","01_toy","add",0,10,"no result",".*hal is not a folder'
    assert_line '"kim","01_toy","loop",5,5,"passed",""'
    assert_line --regexp '^"kim","01_toy","add",0,10,"failed",'
    assert_line '"lia","01_toy","loop",0,5,"failed","every test passed, but a program exited 77 (""cannot run here"") on a GPU the grader'"'"'s own check found usable: counted as failed"'
    assert_equal "$(grep -c . "$O/class/gradebook.csv")" 19
    for s in ann bob dan eve fay gus hal kim lia; do
        assert_equal "$(grep -c "^\"$s\"," "$O/class/gradebook.csv")" 2
    done
    run cat "$O/class/missing.txt"
    assert_output --regexp '^hal	the grading failed, no result: grade: --submission .*hal is not a folder \(grading/grade --help lists the options\) \(exit 2\)$'
}

@test "a hang is a failed test 'timed out'; the rest of that submission is still graded" {
    run jq -r '.exercises[1].tests[0] | "\(.status) - \(.message)"' "$(R eve)"
    assert_output "timed out - timed out: the grader of loop ran longer than 6s in this test"
    command -v python3 >/dev/null 2>&1 || skip "python3 is needed to parse the JUnit XML"
    "$T/grading/formats" junit "$(R eve)" "$BATS_TEST_TMPDIR"
    run python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
e = r.find(".//testcase[@name=\"loop: says done\"]/error")
print(e.get("type"), e.get("message"))' "$BATS_TEST_TMPDIR/junit.xml"
    assert_output --partial "timeout timed out"
}

@test "a program's exit 77 is 'not run' only when the grader's own GPU check fails too (then exit 77)" {
    # the GPU works for the grader: the program's "cannot run here" is its failure
    run cat "$O/class/logs/kim.exit"; assert_output 1
    run row "$(R kim)" add; assert_output "0 failed"
    run jq -r '.exercises[0].reason, .cannot_grade' "$(R kim)"
    assert_line --partial "(a program exited 77, \"cannot run here\", but the grader's own check found the GPU usable: counted as failed)"
    assert_line null
    # the grader's check fails as well (GRADE_GPU_PROBE=false): not run, exit 77, regraded later
    run cat "$O.kim-gone.rc"; assert_output 77
    run row "$O/kim-gone/results.json" add; assert_output "0 not graded"
    run jq -r '.exercises[0].tests[1].message, .cannot_grade' "$O/kim-gone/results.json"
    assert_line "not run: a program exited 77 (cannot run here) and the grader's check agrees: the GPU check (false) failed in the sandbox"
    assert_line "cannot grade here: a program could not run on this machine: the GPU check (false) failed in the sandbox"
    run row "$O/kim-gone/results.json" loop; assert_output "5 passed"
}

@test "a cheater gains nothing: grader, Makefile, common/ and other files are ignored and listed" {
    run jq -r '.ignored[] | "\(.path): \(.why)"' "$(R gus)"
    # (the grader's copy is outside the work copy: counted, never compared with the teacher's)
    assert_line "grading/: 1 file(s): not taken from a submission (the grading uses the teacher's own; they are not compared with it)"
    assert_line "01_toy/Makefile: changed; not a file a student may edit"
    assert_line "common/note.txt: changed; not a file a student may edit"
    assert_line "01_toy/exercises/add/NOTES.txt: added; not a file a student may edit"
    assert_line "01_toy/exercises/loop/helper.c: a symbolic link"
    assert_equal "${#lines[@]}" 5
    run grep -c 'ignored (graded with' "$O/class/results/gus/report.txt"
    assert_output 1
    run jq -r '[.score, .max_score] | join("/")' "$(R gus)"
    assert_output "0/15"
    run cat "$T/common/note.txt"; assert_output teacher     # the teacher's tree is untouched
}

@test "a class is resumable and gather is idempotent: only what is missing is graded again" {
    cp -r "$O/class" "$S"
    run "$T/grading/class" local "$C" "$S" --per-gpu 5 --timeout 6 ${NOSB:+-- "$NOSB"}
    assert_success
    for s in ann bob dan eve fay gus kim lia; do assert_output --partial "already graded: $s"; done
    assert_output --partial "grading: hal"
    cmp "$S/gradebook.csv" "$O/class/gradebook.csv"
    run "$T/grading/class" gather "$S"
    cmp "$S/gradebook.csv" "$O/class/gradebook.csv"
    cmp "$S/missing.txt" "$O/class/missing.txt"
}

@test "a git checkout: --rev grades a commit, not the working files" {
    command -v git >/dev/null 2>&1 || skip "git is not installed"
    cp -r "$C/ann" "$S"
    git -C "$S" init -q && git -C "$S" add -A \
        && git -C "$S" -c user.name=s -c user.email=s@x commit -qm one
    echo 'int main(void) { return 1; }' >"$S/01_toy/exercises/add/main.c"
    run "$T/grading/grade" --submission "$S" --rev HEAD --out "$BATS_TEST_TMPDIR/o" -q $NOSB
    assert_success
    assert_output --regexp 'total +15/15'
}

@test "formats: JUnit XML, Gradescope, PrairieLearn, GitHub Classroom carry the same points" {
    F="$BATS_TEST_TMPDIR"
    cp "$(R bob)" "$O/class/results/bob/exercises.csv" "$F/"
    for f in junit gradescope prairielearn classroom; do "$T/grading/formats" "$f" "$F/results.json" "$F"; done
    # JUnit: parses; one testsuite per exercise with its points (system-out), one testcase per test
    command -v python3 >/dev/null 2>&1 || skip "python3 is needed to parse the JUnit XML"
    run python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites", r.tag
for s in r.findall("testsuite"):
    p = dict(zip(("points", "max_points"), s.find("system-out").text.split()[1].split("/")))
    c = s.findall("testcase")
    f = [t for t in c if t.find("failure") is not None]
    assert int(s.get("tests")) == len(c) and int(s.get("failures")) == len(f)
    print(s.get("name"), p["points"], p["max_points"], len(c), len(f), f[0].find("failure").get("message") if f else "")' "$F/junit.xml"
    assert_success
    assert_line "01_toy.add 10 10 2 0 "
    assert_line "01_toy.loop 0 5 1 1 not run: the submission has no folder 01_toy/exercises/loop"
    # Gradescope results.json
    run jq -r '[.score, (.tests | length), (.tests[] | "\(.name)=\(.score)/\(.max_score):\(.status):\(.visibility)"),
               (.tests[1].output | test("not run: .*no folder 01_toy/exercises/loop"))] | map(tostring) | join(" ")' "$F/gradescope.json"
    assert_output "10 2 01_toy/add=10/10:passed:visible 01_toy/loop=0/5:failed:visible true"
    # PrairieLearn results.json: score 0-1, points/max_points per test
    run jq -r '[.gradable, .succeeded, .score, (.tests[] | "\(.name)=\(.points)/\(.max_points)")] | map(tostring) | join(" ")' \
        "$F/prairielearn.json"
    assert_output "true true 0.6666666666666666 01_toy/add=10/10 01_toy/loop=0/5"
    # GitHub Classroom: base64 of {version:1, status, max_score, tests[name,status,score,message]}
    run sh -c "base64 -d '$F/classroom.b64' | jq -r '[.version, .status, .max_score, ([.tests[].score] | add),
               (.tests[] | \"\(.name)=\(.status):\(.score):\(.message | length > 0)\")] | map(tostring) | join(\" \")'"
    assert_output "1 fail 15 10 01_toy/add=pass:10:true 01_toy/loop=fail:0:true"
    run jq -r '.student' "$F/results.json"; assert_output bob
    run cat "$F/exercises.csv"
    assert_line 'lesson,exercise,points,max_points,status,reason'
    assert_line '"01_toy","add",10,10,"passed",""'
}

@test "a class without a GPU: one line says so, missing.txt lists every submission with why, none is dropped" {
    for s in s1 s2 s3 s4 s5 s6 s7; do cp -r "$C/ann" "$BATS_TEST_TMPDIR/subs-$s" 2>/dev/null || true; done
    mkdir -p "$BATS_TEST_TMPDIR/subs"
    for s in s1 s2 s3 s4 s5 s6 s7; do mv "$BATS_TEST_TMPDIR/subs-$s" "$BATS_TEST_TMPDIR/subs/$s"; done
    run env CUDA_VISIBLE_DEVICES= "$T/grading/class" local "$BATS_TEST_TMPDIR/subs" "$S" --format none ${NOSB:+-- "$NOSB"}
    assert_equal "$status" 77
    assert_output --partial "tried 7 submissions without a usable GPU: each says why it could not be graded here"
    refute_output --partial "graded 7 submissions"
    assert_output --partial "none of the 7 submissions could be graded here, no gradebook written"
    for s in s1 s2 s3 s4 s5 s6 s7; do
        assert_output --partial "  $s: cannot grade here (no usable GPU): CUDA_VISIBLE_DEVICES is set empty"
    done
    run cat "$S/missing.txt"
    assert_equal "${#lines[@]}" 7
    assert_line "s7	cannot grade here (no usable GPU): CUDA_VISIBLE_DEVICES is set empty"
    [ ! -e "$S/gradebook.csv" ]
}

@test "make check in your own tree without a GPU: named after you; an exercise that does not build says 'build failed'" {
    make_toy_tree "$BATS_TEST_TMPDIR/t2"
    echo 'int main(void) { return 0 }' >"$BATS_TEST_TMPDIR/t2/01_toy/exercises/add/main.c"
    run env CUDA_VISIBLE_DEVICES= "$BATS_TEST_TMPDIR/t2/grading/grade" --out "$S" -q
    assert_equal "$status" 77
    run jq -r '.student, (.exercises[] | "\(.exercise) \(.status) \(.reason)")' "$S/results.json"
    assert_line "$(id -un)"
    assert_line --regexp '^add build failed does not build: .*exercises/add/main\.c:1:.*error'
    assert_line "loop not graded cannot grade here (no usable GPU): CUDA_VISIBLE_DEVICES is set empty"
    refute_output --partial exercises$'\n'
}

@test "the report says what of the isolation is NOT enforced here (no cgroup, every GPU's node)" {
    [ -z "$NOSB" ] || skip "bubblewrap cannot make a sandbox here"
    run env SANDBOX_CGROUP_ROOT=/nonexistent "$T/grading/grade" --submission "$C/ann" --out "$S" -q
    assert_success
    run jq -r .sandbox "$S/results.json"
    assert_output --partial "NO cgroup (SANDBOX_CGROUP_ROOT=/nonexistent is not a cgroup v2 folder this user may write; per-process limits only"
    # the toy nvidia-smi's GPU has no device node the driver names: every node is bound, and said
    assert_output --partial "EVERY GPU's device node (the driver's /proc/driver/nvidia/gpus does not give the device node of GPU-toy)"
    assert_output --partial "environment allowlist"
    run tail -n 1 "$S/report.txt"
    assert_output --partial "NO cgroup"
}

@test "bad command lines: one clear line that says where the usage is (grade, sample-class --help)" {
    run "$ROOT/grading/grade" --bogus
    assert_equal "$status" 2
    assert_output "grade: unknown option --bogus (grading/grade --help lists the options)"
    run "$ROOT/grading/grade" --timeout x
    assert_equal "$status" 2
    assert_output "grade: --timeout needs a whole number of seconds, not 'x' (grading/grade --help lists the options)"
    run "$ROOT/grading/sample-class" --help
    assert_success
    assert_line --index 0 "usage: grading/sample-class DIR [LESSON...]"
    [ ! -e ./--help ]
    run "$ROOT/grading/sample-class" --bogus
    assert_equal "$status" 2
    assert_output "sample-class: unknown option --bogus (grading/sample-class --help)"
}

@test "a class: folders named with a comma, a quote or a newline are graded under safe names beside the others; no temporary file left" {
    local subs="$BATS_TEST_TMPDIR/subs" n
    for n in ann 'a,b' 'q"x' $'new\nline'; do
        mkdir -p "$subs/$n"; cp -r "$C/ann/01_toy" "$subs/$n/"
    done
    run "$T/grading/class" local "$subs" "$S" --per-gpu 4 --timeout 10 --format none ${NOSB:+-- "$NOSB"}
    assert_success
    assert_output --partial "graded under a safe name"
    assert_line --regexp '^  a_b-[0-9a-f]{6}: the folder a\\,b$'
    assert_line --regexp "^  new_line-[0-9a-f]{6}: the folder \\\$'new\\\\nline'$"
    run cut -d, -f1,4,6 "$S/gradebook.csv"
    assert_line '"ann",10,"passed"'
    assert_line --regexp '^"a_b-[0-9a-f]{6}",10,"passed"$'
    assert_line --regexp '^"q_x-[0-9a-f]{6}",10,"passed"$'
    assert_line --regexp '^"new_line-[0-9a-f]{6}",10,"passed"$'
    assert_equal "$(grep -c . "$S/gradebook.csv")" 9
    run cat "$S/renamed.txt"
    assert_equal "${#lines[@]}" 3
    run find "$S" -maxdepth 1 -name '*.tmp' -o -maxdepth 1 -name '.students.*' -o -maxdepth 1 -name '.check.*'
    assert_output ''
}

@test "a class: a folder named as another's safe name (o_neil-HASH beside o,neil) is no stop: each gets a name of its own, every one graded, the class says which" {
    local subs="$BATS_TEST_TMPDIR/subs" n h
    h="$(printf '%06x' $(( $(printf '%s' 'o,neil' | cksum | cut -d' ' -f1) % 16777216 )))"
    for n in 'o,neil' "o_neil-$h" "o_neil-$h-2"; do
        mkdir -p "$subs/$n"; cp -r "$C/ann/01_toy" "$subs/$n/"
    done
    rm -r "$subs/o_neil-$h-2/01_toy/exercises/loop"      # (to tell it from the others)
    run "$T/grading/class" local "$subs" "$S" --per-gpu 3 --timeout 10 --format none ${NOSB:+-- "$NOSB"}
    assert_success
    assert_line "  o_neil-$h-3: the folder o\\,neil"
    run cut -d, -f1,3,4,6 "$S/gradebook.csv"
    assert_line "\"o_neil-$h\",\"add\",10,\"passed\""
    assert_line "\"o_neil-$h\",\"loop\",5,\"passed\""
    assert_line "\"o_neil-$h-2\",\"loop\",0,\"missing\""
    assert_line "\"o_neil-$h-3\",\"add\",10,\"passed\""
    assert_line "\"o_neil-$h-3\",\"loop\",5,\"passed\""
    assert_equal "$(grep -c . "$S/gradebook.csv")" 7
    run cat "$S/renamed.txt"
    assert_output "o_neil-$h-3"$'\t''o\,neil'
}

@test "a submission folder that is a symbolic link (to a classmate's), or an exercise's file that is one, brings nothing: missing, flagged for review" {
    local subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs"
    cp -r "$C/ann" "$subs/ann"
    ln -s ann "$subs/bob"                                     # bob hands in ann's folder
    mkdir -p "$subs/cid/01_toy/exercises/loop"                # cid's add is ann's file
    cp -r "$C/ann/01_toy/exercises/loop" "$subs/cid/01_toy/exercises/"
    mkdir -p "$subs/cid/01_toy/exercises/add"
    ln -s ../../../../ann/01_toy/exercises/add/main.c "$subs/cid/01_toy/exercises/add/main.c"
    run "$T/grading/class" local "$subs" "$S" --per-gpu 3 --timeout 10 --format none ${NOSB:+-- "$NOSB"}
    assert_success
    run cut -d, -f1,3,4,6 "$S/gradebook.csv"
    assert_line '"ann","add",10,"passed"'
    assert_line '"ann","loop",5,"passed"'
    assert_line '"bob","add",0,"missing"'
    assert_line '"bob","loop",0,"missing"'
    assert_line '"cid","add",0,"missing"'
    assert_line '"cid","loop",5,"passed"'
    run jq -r '.exercises[].reason' "$S/results/bob/results.json"
    assert_line "the submission folder bob is a symbolic link (to ann): not followed, nothing of it taken"
    run jq -r '.review[]' "$S/results/bob/results.json"
    assert_line "the submission folder bob is a symbolic link (to ann): not followed, nothing of it taken"
    run grep -A1 '^flagged for review' "$S/results/bob/report.txt"
    assert_line --partial "  the submission folder bob is a symbolic link"
    run jq -r '.exercises[] | "\(.exercise) \(.review) \(.reason)"' "$S/results/cid/results.json"
    assert_line "add true 01_toy/exercises/add/main.c in the submission is a symbolic link: not followed, nothing of this exercise taken"
    assert_line "loop false "
    run grep -A1 '^flagged for review' "$S/results/cid/report.txt"
    assert_line "  01_toy/add: 01_toy/exercises/add/main.c in the submission is a symbolic link: not followed, nothing of this exercise taken"
    # grading/grade alone says the same of the link
    run "$T/grading/grade" --submission "$subs/bob" --out "$BATS_TEST_TMPDIR/bob" -q $NOSB
    assert_equal "$status" 1
    run jq -r '"\(.score) \(.review[0])"' "$BATS_TEST_TMPDIR/bob/results.json"
    assert_output "0 the submission folder bob is a symbolic link (to ann): not followed, nothing of it taken"
}

@test "class: a bad option or a missing folder is one line with the pointer to --help, and creates nothing" {
    run "$T/grading/class" local "$C" "$S/o" --bogus
    assert_equal "$status" 2
    assert_output "class: unknown option --bogus (grading/class --help lists the options)"
    run "$T/grading/class" local "$C" "$S/o" --timeout
    assert_equal "$status" 2
    assert_output "class: --timeout needs a value (grading/class --help lists the options)"
    run "$T/grading/class" local "$BATS_TEST_TMPDIR/nowhere" "$S/o"
    assert_equal "$status" 2
    assert_output --partial "class: no folder $BATS_TEST_TMPDIR/nowhere"
    run "$T/grading/class" frobnicate
    assert_equal "$status" 2
    assert_output --partial "(grading/class --help lists the options)"
    [ ! -e "$S/o" ] || fail "a bad command line made $S/o"
    run "$T/grading/sandbox-run" --help
    assert_success
    assert_line --index 0 --partial "grading/sandbox-run PROGRAM [ARGS...]"
    assert_output --partial "SANDBOX_MODE"
}

@test "without a GPU a submission is still built in the sandbox: one that does not compile shows 'build failed'" {
    run env CUDA_VISIBLE_DEVICES= "$T/grading/grade" --submission "$C/fay" --out "$S" -q $NOSB
    assert_equal "$status" 77
    run jq -r '.exercises[] | "\(.exercise) \(.status) \(.reason)"' "$S/results.json"
    assert_line --regexp '^add build failed does not build: .*exercises/add/main\.c:1:.*error'
    assert_line "loop not graded cannot grade here (no usable GPU): CUDA_VISIBLE_DEVICES is set empty"
}

@test "a tree the sandbox's user cannot enter: 'cannot grade here' with the path and the fix, before the first student; never 'build failed'" {
    [ -z "$NOSB" ] || skip "bubblewrap cannot make a sandbox here"
    [ "$(id -u)" = 0 ] || skip "needs root here, to make a folder of another user's (nobody) that the grading's user id cannot enter"
    getent passwd nobody >/dev/null || skip "no user nobody here"
    # the teacher's tree under a folder only nobody may enter, shown so in the sandbox
    local D="$BATS_TEST_TMPDIR/locked"
    mkdir -p "$D"; make_toy_tree "$D/t"; (cd "$D/t" && make -s -C 01_toy >/dev/null)
    chown -R nobody "$D"; chmod 700 "$D"
    run env SANDBOX_RO="$D" "$D/t/grading/grade" --submission "$C/ann" --out "$S" -q -f prairielearn
    assert_equal "$status" 77
    assert_output --partial "cannot grade here (the sandbox cannot use the tree): the sandbox's user (uid"
    assert_output --partial "cannot read and build $D/t/01_toy"
    assert_output --partial "Fix: let every user enter each folder above it"
    run jq -r '[.exercises[].status] | unique | join(",")' "$S/results.json"
    assert_output "not graded"
    run jq -r '.gradable' "$S/prairielearn.json"; assert_output false
    # a class says so once, and grades nobody
    run env SANDBOX_RO="$D" "$D/t/grading/class" local "$C" "$S/class" --format none
    assert_equal "$status" 77
    assert_output --partial "class: nobody graded: grade: cannot grade here (the sandbox cannot use the tree)"
    refute_output --partial "grading: ann"
    chmod 755 "$D"
}

# ---- the real tree ----------------------------------------------------------------------------

@test "every points file matches its grader: each exercise has tests, each test an exercise" {
    for l in $(cd "$ROOT" && ls -d [0-9][0-9]_*/ | tr -d /); do
        [ -d "$ROOT/$l/exercises" ] || continue
        pts="$ROOT/$l/exercises/points"
        [ -f "$pts" ] || fail "$l has no exercises/points"
        g="$ROOT/grading/judge/$l.bats"
        exs="$(sed 's/#.*//' "$pts" | awk 'NF { print $1 }')"
        for d in "$ROOT/$l"/exercises/*/; do
            grep -qx "$(basename "$d")" <<<"$exs" || fail "$l/exercises/$(basename "$d") has no line in $pts"
        done
        for e in $exs; do
            grep -q "^@test \"$e: " "$g" || fail "$l: exercise $e has no test named '$e: ...' in $g"
        done
        sed -n 's/^@test "\([^:]*\): .*/\1/p' "$g" | sort -u | while read -r e; do
            grep -qx "$e" <<<"$exs" || fail "$g: tests named '$e: ...' belong to no exercise in $pts"
        done
    done
}

@test "the real tree without a GPU: make check says it cannot grade here and fails; grade exits 77" {
    run env CUDA_VISIBLE_DEVICES= make -s -C "$ROOT/01_hello_runtime" check
    assert_failure
    assert_output --partial "cannot grade here (no usable GPU)"
    assert_output --partial "the points of every exercise above, for $(id -un)"    # not "exercises"
    refute_output --regexp '(^| )ok [0-9]'
    run env CUDA_VISIBLE_DEVICES= "$ROOT/grading/grade" -q 01_hello_runtime
    assert_equal "$status" 77
    assert_output --regexp 'total +0/[0-9]+'
}

@test "the real tree: a sample class without a GPU - missing lesson and the cheater's tricks reported" {
    C="$BATS_TEST_TMPDIR/class"
    first="$(cd "$ROOT" && ls -d [0-9][0-9]_*/ | head -n 1 | tr -d /)"
    last="$(cd "$ROOT" && ls -d [0-9][0-9]_*/ | tail -n 1 | tr -d /)"
    run "$ROOT/grading/sample-class" "$C" "$first" "$last"
    assert_success
    O="$BATS_TEST_TMPDIR/out"
    run env CUDA_VISIBLE_DEVICES= "$ROOT/grading/grade" -q --submission "$C/cheater" --out "$O" "$first" "$last"
    assert_equal "$status" 77
    assert_output --partial "common/check.c: changed; not a file a student may edit"
    assert_output --regexp "grading/: [0-9]+ file\(s\): not taken from a submission"
    assert_output --regexp "[0-9]+_[a-z_]+/Makefile: changed"
    assert_output --partial "a symbolic link"
    run env CUDA_VISIBLE_DEVICES= "$ROOT/grading/grade" -q --submission "$C/missing" --out "$O" "$first" "$last"
    assert_equal "$status" 77
    assert_output --partial "missing      the submission has no folder $last (lesson missing)"
    # the hang is in the student's functions, which the grader's object check lets through (a
    # constructor would be refused at the build, never reaching the "timed out" it rehearses)
    local ex
    ex="$(cd "$C/hang/$first/exercises" && grep -l 'sample-class: hangs' ./*/*.c | head -n 1 | cut -d/ -f2)"
    [ -n "$ex" ] || fail "no exercise of the hang student hangs"
    run make -s -C "$ROOT/$first" exercise-from EXERCISE="$ex" FROM="$C/hang/$first/exercises/$ex" \
        INTO="$BATS_TEST_TMPDIR/hang-build"
    assert_success
    refute_output --partial "refused by the grader"
    [ -x "$BATS_TEST_TMPDIR/hang-build/$ex" ] || fail "the hang student's $ex was not built"
}

@test "shellcheck: grading/ (bench-class too), tests/run, .ci/run, tests/hostile/make-class, tests/ensure-bats and tests/stage-bats are clean" {
    command -v shellcheck >/dev/null 2>&1 || skip "shellcheck is not installed (.ci/run installs it)"
    cd "$ROOT"
    run shellcheck -x grading/grade grading/class grading/formats grading/sample-class grading/sandbox-run \
        grading/bench-class grading/lib.sh tests/run .ci/run tests/hostile/make-class
    assert_success
    run shellcheck -s sh tests/ensure-bats tests/stage-bats
    assert_success
}

# grading/grade's GPU lock (issue: a class graded side by side on one GPU): its functions, read
# from the script, on a lock folder of the test's own.
@test "the GPU lock: an exercise tagged gpu_alone waits for a grading that holds the GPU, shared ones run side by side, the wait is not charged to the budget; the graders tag exactly the exercises that time the GPU or read its free memory" {
    eval "$(sed -n '/^grader_alone()/,/^}/p;/^grader_tagged()/,/^}/p;/^memory_shared()/,/^}/p;/^gpu_lock_file()/,/^}/p;/^gpu_lock()/,/^}/p;/^gpu_unlock()/,/^}/p' "$ROOT/grading/grade")"
    declare -A MEMORY_SHARED=()
    say() { echo "$*"; }
    local l e alone=""
    for l in $(list_lessons "$ROOT"); do
        for e in $(sed -n 's/^\([a-z_]*\) [0-9.]*$/\1/p' "$ROOT/$l/exercises/points"); do
            ! grader_alone "$ROOT/grading/judge/$l.bats" "$e" || alone+="${l%%_*}/$e "
        done
    done
    assert_equal "$alone" "02/context_leak 03/both_ways 03/pin_it 03/driver_pinned 04/driver 04/legacy 04/pinned 04/streams "
    export GRADE_LOCK_DIR="$BATS_TEST_TMPDIR"
    local g="$BATS_TEST_TMPDIR/judge.bats" lock t0 deadline=1000 gpu_lock_fd='' gpu_lock_path=''
    printf '# bats test_tags=gpu_alone\n@test "timed: it" {\n}\n@test "plain: it" {\n}\n' >"$g"
    lock="$(gpu_lock_file)"
    # another grading runs an untimed program (shared) for 2 s: a timed exercise waits for it
    flock -s "$lock" sleep 2 &
    sleep 0.3
    t0=$(date +%s)
    l=L e=timed
    gpu_lock "$g" timed >"$BATS_TEST_TMPDIR/said"
    run cat "$BATS_TEST_TMPDIR/said"
    assert_output "== L/timed: waiting for the GPU (another grading's program is on it)"
    [ $(( $(date +%s) - t0 )) -ge 1 ] || fail "the timed exercise did not wait"
    [ "$deadline" -ge 1001 ] || fail "the wait was charged to the budget: deadline $deadline"
    gpu_unlock
    wait
    # two untimed ones share it: no wait, the deadline as it was
    flock -s "$lock" sleep 2 &
    sleep 0.3
    deadline=1000 t0=$(date +%s)
    gpu_lock "$g" plain >"$BATS_TEST_TMPDIR/said"
    run cat "$BATS_TEST_TMPDIR/said"
    assert_output ""
    [ $(( $(date +%s) - t0 )) -le 1 ] || fail "an untimed exercise waited for another untimed one"
    assert_equal "$deadline" 1000
    gpu_unlock
    wait
}

# toy_lock_now T: grading/judge/lock_now.bash in the toy tree T, for its graders to load:
# lock_now says how the grading holds the GPU's lock now: alone (another cannot share it) or shared
toy_lock_now() {
    cat >"$1/grading/judge/lock_now.bash" <<'L'
lock_now() {
    local f
    f="$(ls "$GRADE_LOCK_DIR"/cuda-lessons-gpu.*.lock)"
    if flock -n -s "$f" true; then echo shared; else echo alone; fi
}
L
}

# A grader whose tags are per test: its tagged tests with the GPU alone, the others shared, on one
# seed and the same kept runs (the toy lesson, its grader written here with grading/judge/harness.bash).
@test "grade: a grader with '# grade: gpu_alone per test' runs its tagged tests with the GPU alone, then the others beside other gradings, on the same seed and kept runs; without the line, one run with the GPU alone; the real graders say it only where each test on a time or free memory is tagged" {
    local T="$BATS_TEST_TMPDIR/teacher" o="$BATS_TEST_TMPDIR/out" g l e bad=''
    make_toy_tree "$T"
    toy_lock_now "$T"
    export GRADE_LOCK_DIR="$BATS_TEST_TMPDIR/locks" PROBE="$BATS_TEST_TMPDIR/probe"
    mkdir -p "$GRADE_LOCK_DIR" "$PROBE"
    # (%test: bats would take "@test" in a here-document for a test of this file)
    sed 's/^%test /@test /' >"$T/grading/judge/01_toy.bats" <<'B'
# grade: gpu_alone per test
setup() {
    load ../../tests/test_helper
    load harness
    load lock_now
    require_gpu
    seed="$(exercise_seed)"
}
# bats test_tags=gpu_alone
%test "add: prints a sum" {
    run_exercise "$EXERCISE_BIN/add"
    echo "$seed $(lock_now)" >>"$PROBE/add"
    assert_output --partial "sum:"
}
%test "add: the sum of 2 and 3 is 5" {
    run_exercise "$EXERCISE_BIN/add"
    echo "$seed $(lock_now)" >>"$PROBE/add"
    assert_output "sum: 5"
}
%test "loop: says done" {
    run_exercise "$EXERCISE_BIN/loop"
    echo "$seed $(lock_now)" >>"$PROBE/loop"
    assert_output "done"
}
B
    run "$T/grading/grade" --solutions --out "$o" -q
    assert_success
    # add: its tagged test alone, then the other shared, one seed, one run of the program
    run cat "$PROBE/add"
    assert_line --index 0 --regexp '^[0-9]+ alone$'
    assert_line --index 1 --regexp '^[0-9]+ shared$'
    [ "$(cut -d' ' -f1 "$PROBE/add" | sort -u | wc -l)" = 1 ] || fail "two seeds: $(cat "$PROBE/add")"
    run wc -l <"$o/logs/01_toy.add.status"; assert_output 1   # the second read the kept run
    run cat "$o/logs/01_toy.add.alone.tap"; assert_output --partial "ok 1 add: prints a sum"
    run cat "$o/logs/01_toy.add.shared.tap"; assert_output --partial "ok 1 add: the sum of 2 and 3 is 5"
    run jq -r '.exercises[] | "\(.exercise) \(.points) \(.status) \(.tests | map(.status) | join(","))"' "$o/results.json"
    assert_line "add 10 passed passed,passed"
    assert_line "loop 5 passed passed"
    # timing.tsv: run LESSON EXERCISE SECONDS WAIT ALONE; the alone part of add is less than all of it
    run awk -F'\t' '$1 == "run" && $3 == "add" { print ($6 > 0 && $6 < $4) ? "part" : "not " $4 " " $6 }' "$o/logs/timing.tsv"
    assert_output part
    # loop has no tagged test: one run, shared
    run cat "$PROBE/loop"; assert_output --regexp '^[0-9]+ shared$'
    # without the line: one bats run, with the GPU alone for every test of add
    sed -i '/^# grade: gpu_alone per test$/d' "$T/grading/judge/01_toy.bats"
    rm -f "$PROBE"/*
    run "$T/grading/grade" --solutions --out "$o" -q
    assert_success
    run cat "$PROBE/add"
    assert_line --index 0 --regexp '^[0-9]+ alone$'
    assert_line --index 1 --regexp '^[0-9]+ alone$'
    [ ! -e "$o/logs/01_toy.add.alone.tap" ] || fail "two runs without the grader's line"
    # the real graders: the line in 02, 03 and 04 only, and there every test whose verdict rests
    # on a time or on free memory (the harness's rates, times, shares, lost memory; NVML's; 04's
    # speed-up, grade E, and its 2 GiB chunks, tried where the memory is free) is tagged
    run grep -lx '# grade: gpu_alone per test' "$ROOT"/grading/judge/*.bats
    assert_output "$ROOT/grading/judge/02_driver_context.bats
$ROOT/grading/judge/03_pinned_memory.bats
$ROOT/grading/judge/04_streams_overlap.bats"
    # (the 2 GiB chunks, grade_big, judge no time: tagged gpu_memory, under the grader's line
    # that says how much each takes, or gpu_alone)
    for g in "$ROOT"/grading/judge/0[234]_*.bats; do
        bad+="$(awk -v memline="$(grep -c '^# grade: gpu_memory [0-9]* MiB a test' "$g")" '
            function judge() {
                if (body ~ /judge_rate|harness_memory|harness_clock|clock_speedup|issue_share|harness_value times|memory_lost_mib|run_harness_fresh|\n *grade [a-z]/ && t !~ /gpu_alone/) print name
                if (body ~ /grade_big/ && t !~ /gpu_alone/ && !(t ~ /gpu_memory/ && memline)) print name
            }
            /^# bats test_tags=/ { tags = $0; next }
            /^@test "/ { if (name != "") judge(); name = $0; t = tags; tags = ""; body = ""; next }
            { body = body "\n" $0 }
            END { judge() }' "$g")"
    done
    assert_equal "$bad" ""
}

# A test tagged gpu_memory (it takes much memory and judges no time): beside other gradings where
# the GPU's total memory and the host's hold the grader's "MIB MiB a test" for each grading that
# shares the GPU (GRADE_SHARING: grading/class's --per-gpu), else with the GPU alone.
@test "grade: a test tagged gpu_memory shares the GPU where its total memory holds one such run for each grading sharing it (GRADE_SHARING), else runs with the GPU alone; without the grader's gpu_memory line, alone" {
    local T="$BATS_TEST_TMPDIR/teacher" o="$BATS_TEST_TMPDIR/out"
    [ "$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)" -ge 3072 ] || skip "this machine has less than 3 GiB of memory"
    make_toy_tree "$T"
    toy_lock_now "$T"
    export GRADE_LOCK_DIR="$BATS_TEST_TMPDIR/locks" PROBE="$BATS_TEST_TMPDIR/probe"
    mkdir -p "$GRADE_LOCK_DIR" "$PROBE"
    sed 's/^%test /@test /' >"$T/grading/judge/01_toy.bats" <<'B'
# grade: gpu_alone per test
# grade: gpu_memory 1024 MiB a test
setup() {
    load ../../tests/test_helper
    load harness
    load lock_now
    require_gpu
}
# bats test_tags=gpu_alone
%test "add: prints a sum" {
    run_exercise "$EXERCISE_BIN/add"
    echo "timed $(lock_now)" >>"$PROBE/add"
    assert_output --partial "sum:"
}
# bats test_tags=gpu_memory
%test "add: the sum of 2 and 3 is 5" {
    run_exercise "$EXERCISE_BIN/add"
    echo "big $(lock_now)" >>"$PROBE/add"
    assert_output "sum: 5"
}
%test "loop: says done" {
    run_exercise "$EXERCISE_BIN/loop"
    assert_output "done"
}
B
    # the toy GPU has 3 GiB
    printf '#!/bin/sh
case "$*" in *memory.total*) echo 3072 ;; esac
[ "$1" = -L ] && echo "GPU 0: Toy GPU (UUID: GPU-toy)"
exit 0
' >"$T/bin/nvidia-smi"
    local k want
    for k in 3 4; do   # 3 x 1024 MiB: as much as the GPU has; 4: more
        want=shared; [ "$k" -le 3 ] || want=alone
        rm -f "$PROBE"/*
        GRADE_SHARING=$k run "$T/grading/grade" --solutions --out "$o" -q
        assert_success
        run cat "$PROBE/add"
        assert_output "timed alone
big $want"
        run jq -r '.exercises[] | "\(.exercise) \(.points) \(.status) \(.tests | map(.status) | join(","))"' "$o/results.json"
        assert_line "add 10 passed passed,passed"
    done
    # grading/class gives each grading its --per-gpu: 4 at a time on the 3 GiB GPU, alone
    local C="$BATS_TEST_TMPDIR/class" nosb=''
    SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/true >/dev/null 2>&1 </dev/null || nosb=--no-sandbox-i-trust-this-code
    mkdir -p "$C/ann/01_toy/exercises/add" "$C/ann/01_toy/exercises/loop"
    cp "$T/01_toy/solutions/add/main.c" "$C/ann/01_toy/exercises/add/"
    cp "$T/01_toy/solutions/loop/main.c" "$C/ann/01_toy/exercises/loop/"
    rm -f "$PROBE"/* "$GRADE_LOCK_DIR"/*   # (the lock is named by CUDA_VISIBLE_DEVICES, which class sets)
    run env -u GRADE_SHARING "$T/grading/class" local "$C" "$BATS_TEST_TMPDIR/graded" --per-gpu 4 --format none ${nosb:+-- "$nosb"}
    assert_success
    run cat "$PROBE/add"
    assert_output "timed alone
big alone"
    # without the grader's line, a test tagged gpu_memory runs with the GPU alone (one grading:
    # GRADE_SHARING unset, as make check runs it)
    sed -i '/^# grade: gpu_memory /d' "$T/grading/judge/01_toy.bats"
    rm -f "$PROBE"/*
    run env -u GRADE_SHARING "$T/grading/grade" --solutions --out "$o" -q
    assert_success
    run cat "$PROBE/add"
    assert_output "timed alone
big alone"
}
