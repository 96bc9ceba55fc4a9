#!/usr/bin/env bats
# grading/: points, time limits, submission isolation and the result formats, on CPU.
# The machinery is exercised on a toy lesson (plain C, a fake nvidia-smi) so that grading really
# runs here; the real tree is checked for what must hold without a GPU (exit 77, nothing passes,
# missing lessons and ignored files reported) and for points files that match the graders.

setup_file() {
    load test_helper
    command -v jq >/dev/null 2>&1 || skip "jq is not installed"
    export T="$BATS_FILE_TMPDIR/teacher"
    mkdir -p "$T/tests/exercises" "$T/common" "$T/01_toy/exercises/add" "$T/01_toy/exercises/loop" \
             "$T/01_toy/solutions/add" "$T/01_toy/solutions/loop" "$T/bin"
    cp -r "$ROOT/grading" "$T/"
    cp "$ROOT/tests/test_helper.bash" "$ROOT/tests/ensure-bats" "$T/tests/"
    echo 'all:' >"$T/Makefile"
    echo 'teacher' >"$T/common/note.txt"
    cat >"$T/01_toy/Makefile" <<'EOF'
EX := $(notdir $(patsubst %/,%,$(wildcard exercises/*/)))
SO := $(notdir $(patsubst %/,%,$(wildcard solutions/*/)))
all: $(EX:%=build/exercises/%) $(SO:%=build/solutions/%)
.SECONDEXPANSION:
build/exercises/%: $$(wildcard exercises/$$*/*.c)
	@mkdir -p $(@D)
	cc -Wall -Werror -o $@ $^
build/solutions/%: $$(wildcard solutions/$$*/*.c)
	@mkdir -p $(@D)
	cc -Wall -Werror -o $@ $^
EOF
    printf '# toy points\nadd 10\nloop 5   # a comment\n' >"$T/01_toy/exercises/points"
    echo 'int main(void) { return 0; }' >"$T/01_toy/exercises/add/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("sum: 4"); return 0; }\n' >"$T/01_toy/exercises/add/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("sum: 5"); return 0; }\n' >"$T/01_toy/solutions/add/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("not yet"); return 0; }\n' >"$T/01_toy/exercises/loop/main.c"
    printf '#include <stdio.h>\nint main(void) { puts("done"); return 0; }\n' >"$T/01_toy/solutions/loop/main.c"
    # (written with %test: bats would rewrite "@test" lines even inside this here-document)
    sed 's/^%test /@test /' >"$T/tests/exercises/01_toy.bats" <<'EOF'
setup() {
    load ../test_helper
    require_gpu
}
%test "add: prints a sum" {
    run "$EXERCISE_BIN/add"
    assert_success
    assert_output --partial "sum:"
}
%test "add: the sum of 2 and 3 is 5" {
    run "$EXERCISE_BIN/add"
    assert_output "sum: 5"
}
%test "loop: says done" {
    run "$EXERCISE_BIN/loop"
    assert_output "done"
}
EOF
    printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: Toy GPU (UUID: GPU-toy)"\nexit 0\n' >"$T/bin/nvidia-smi"
    chmod +x "$T/bin/nvidia-smi"
}

setup() {
    load test_helper
    command -v jq >/dev/null 2>&1 || skip "jq is not installed"
    export PATH="$T/bin:$PATH"
    unset CUDA_VISIBLE_DEVICES
    S="$BATS_TEST_TMPDIR/student"
    O="$BATS_TEST_TMPDIR/out"
}

# A student's copy of the toy lesson: student EXERCISE SOURCE_TEXT...
student() {
    mkdir -p "$S/01_toy/exercises/$1"
    printf '%s\n' "$2" >"$S/01_toy/exercises/$1/main.c"
}
solved_add() { student add '#include <stdio.h>
int main(void) { puts("sum: 5"); return 0; }'; }
solved_loop() { student loop '#include <stdio.h>
int main(void) { puts("done"); return 0; }'; }
row() { jq -r --arg e "$1" '.exercises[] | select(.exercise == $e) | "\(.points) \(.status)"' "$O/results.json"; }

@test "the reference solutions score every point (15/15), exit 0" {
    run "$T/grading/grade" --solutions --out "$O" -q
    assert_success
    assert_output --regexp 'total +15/15'
    run row add;  assert_output "10 passed"
    run row loop; assert_output "5 passed"
}

@test "the untouched skeletons score 0: an exercise is all or nothing, though one of its tests passes" {
    run "$T/grading/grade" --out "$O" -q
    assert_failure 1
    assert_output --regexp 'total +0/15'
    run row add; assert_output "0 failed"
    run jq -r '.exercises[0].tests | map(.status) | join(",")' "$O/results.json"
    assert_output "passed,failed"
    run jq -r '.exercises[0].reason' "$O/results.json"
    assert_output --partial "1 of 2 tests failed, first: add: the sum of 2 and 3 is 5"
}

@test "the graders' TAP lines are shown, and a points file is read at grading time" {
    echo 'loop 7' >>"$T/01_toy/exercises/points.extra"
    run "$T/grading/grade" --solutions
    assert_success
    assert_output --partial "ok 1 add: prints a sum"
    assert_output --partial "ok 1 loop: says done"
    rm "$T/01_toy/exercises/points.extra"
}

@test "without a usable GPU: exit 77, every exercise 'not graded' with the reason, nothing scores" {
    for env in "PATH=/usr/bin:/bin" "CUDA_VISIBLE_DEVICES=" "CUDA_VISIBLE_DEVICES=3"; do
        run env "$env" "$T/grading/grade" --solutions --out "$O" -q -f all
        assert_equal "$status" 77
        assert_output --partial "cannot grade here (no usable GPU)"
        run jq -r '[.score, .exit, (.exercises | map(.status) | unique | join(","))] | join(" ")' "$O/results.json"
        assert_output "0 77 not graded"
        run jq -r '[.exercises[].tests[] | .status + ": " + .message] | unique[]' "$O/results.json"
        assert_output --partial "not run: cannot grade here"
        run jq -r '.status' "$O/classroom.json"
        assert_output error
        run jq -r '.succeeded' "$O/prairielearn.json"
        assert_output false
    done
}

@test "a submission: only its exercise sources count; grader, Makefile, common/ and other files are ignored and listed" {
    student add 'int main(void) { return 0; }'         # does not print the sum
    student loop 'int main(void) { return 0; }'
    mkdir -p "$S/tests/exercises" "$S/common"
    printf '@test "add: prints a sum" { true; }\n@test "add: the sum of 2 and 3 is 5" { true; }\n@test "loop: says done" { true; }\n' \
        >"$S/tests/exercises/01_toy.bats"
    printf 'all:\n\tmkdir -p build/exercises; cp build/solutions/* build/exercises/\n' >"$S/01_toy/Makefile"
    echo 'student' >"$S/common/note.txt"
    echo 'notes' >"$S/01_toy/exercises/add/NOTES.txt"
    echo 'teacher' >"$S/common/same.txt"; cp "$T/common/note.txt" "$S/common/note2.txt" 2>/dev/null || true
    ln -s ../../solutions/loop/main.c "$S/01_toy/exercises/loop/helper.c"
    run "$T/grading/grade" --submission "$S" --out "$O" -q
    assert_failure 1
    assert_output --regexp 'total +0/15'
    run jq -r '.ignored[] | "\(.path): \(.why)"' "$O/results.json"
    assert_line "tests/exercises/01_toy.bats: changed; not a file a student may edit"
    assert_line "01_toy/Makefile: changed; not a file a student may edit"
    assert_line "common/note.txt: changed; not a file a student may edit"
    assert_line "01_toy/exercises/add/NOTES.txt: added; not a file a student may edit"
    assert_line "01_toy/exercises/loop/helper.c: a symbolic link"
    run grep -c 'ignored (graded with' "$O/report.txt"
    assert_output 1
    # the teacher's tree is untouched
    run cat "$T/common/note.txt"; assert_output teacher
    [ ! -e "$T/01_toy/build/exercises" ] || [ "$(cat "$T/01_toy/exercises/add/main.c" | grep -c 'sum: 4')" = 1 ]
}

@test "a submission: a file that does not build fails its exercise only, with the compiler's line" {
    student add 'int main(void) { return 0 }'
    solved_loop
    run "$T/grading/grade" --submission "$S" --out "$O" -q
    assert_failure 1
    run row add;  assert_output "0 build failed"
    run row loop; assert_output "5 passed"
    run jq -r '.exercises[0].reason' "$O/results.json"
    assert_output --regexp '^does not build: .*exercises/add/main\.c:1:.*error'
}

@test "a submission: a hang is a failed test 'timed out'; the rest is still graded" {
    solved_add
    student loop '#include <stdio.h>
int main(void) { for (volatile int i = 0;; i++) {} puts("done"); }'
    SECONDS=0
    run "$T/grading/grade" --submission "$S" --out "$O" -q --timeout 2 -f junit
    assert_failure 1
    [ "$SECONDS" -lt 20 ] || fail "took ${SECONDS}s"
    run row add;  assert_output "10 passed"
    run row loop; assert_output "0 timed out"
    run jq -r '.exercises[1].tests[0] | "\(.status): \(.message)"' "$O/results.json"
    assert_output --partial "timed out: the grader of loop ran longer than 2s"
    run python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
e = r.find(".//testcase[@name=\"loop: says done\"]/error")
print(e.get("type"), e.get("message"))' "$O/junit.xml"
    assert_output --partial "timeout timed out"
}

@test "a submission missing an exercise or a lesson scores 0 there, with the reason" {
    solved_add
    run "$T/grading/grade" --submission "$S" --out "$O" -q
    run row loop; assert_output "0 missing"
    run jq -r '.exercises[1].reason' "$O/results.json"
    assert_output "the submission has no folder 01_toy/exercises/loop"
    rm -rf "$S/01_toy"; mkdir -p "$S/other"
    run "$T/grading/grade" --submission "$S" --out "$O" -q
    run jq -r '.exercises[] | "\(.points) \(.status): \(.reason)"' "$O/results.json"
    assert_line "0 missing: the submission has no folder 01_toy (lesson missing)"
}

@test "a git checkout: --rev grades a commit, not the working files" {
    command -v git >/dev/null 2>&1 || skip "git is not installed"
    solved_add; solved_loop
    git -C "$S" init -q && git -C "$S" add -A \
        && git -C "$S" -c user.name=s -c user.email=s@x commit -qm one
    student add 'int main(void) { return 1; }'
    run "$T/grading/grade" --submission "$S" --rev HEAD --out "$O" -q
    assert_success
    assert_output --regexp 'total +15/15'
}

@test "formats: JUnit XML, Gradescope, PrairieLearn, GitHub Classroom carry the same points" {
    solved_add
    student loop 'int main(void) { return 0; }'
    run "$T/grading/grade" --submission "$S" --out "$O" -q -f all --name "Ada L."
    assert_failure 1
    # JUnit: parses; one testsuite per exercise with its points, one testcase per test
    run python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites", r.tag
for s in r.findall("testsuite"):
    p = {q.get("name"): q.get("value") for q in s.find("properties")}
    c = s.findall("testcase")
    f = [t for t in c if t.find("failure") is not None]
    assert int(s.get("tests")) == len(c) and int(s.get("failures")) == len(f)
    print(s.get("name"), p["points"], p["max_points"], len(c), len(f))' "$O/junit.xml"
    assert_success
    assert_line "01_toy.add 10 10 2 0"
    assert_line "01_toy.loop 0 5 1 1"
    # Gradescope results.json
    run jq -r '[.score, (.tests | length), (.tests[] | "\(.name)=\(.score)/\(.max_score):\(.status):\(.visibility)"),
               (.tests[1].output | test("failed: loop: says done"))] | map(tostring) | join(" ")' "$O/gradescope.json"
    assert_output "10 2 01_toy/add=10/10:passed:visible 01_toy/loop=0/5:failed:visible true"
    # PrairieLearn results.json: score 0-1, points/max_points per test
    run jq -r '[.gradable, .succeeded, .score, (.tests[] | "\(.name)=\(.points)/\(.max_points)")] | map(tostring) | join(" ")' \
        "$O/prairielearn.json"
    assert_output "true true 0.6666666666666666 01_toy/add=10/10 01_toy/loop=0/5"
    # GitHub Classroom: base64 of {version:1, status, max_score, tests[name,status,score,message]}
    run sh -c "base64 -d '$O/classroom.b64' | jq -r '[.version, .status, .max_score, ([.tests[].score] | add),
               (.tests[] | \"\(.name)=\(.status):\(.score):\(.message | length > 0)\")] | map(tostring) | join(\" \")'"
    assert_output "1 fail 15 10 01_toy/add=pass:10:true 01_toy/loop=fail:0:true"
    run jq -r '.student' "$O/results.json"
    assert_output "Ada L."
    run cat "$O/exercises.csv"
    assert_line 'lesson,exercise,points,max_points,status,reason'
    assert_line --partial '"01_toy","add",10,10,"passed",""'
}

@test "grading/class local: resumable, one row per student and exercise, a bad submission recorded" {
    C="$BATS_TEST_TMPDIR/class"
    mkdir -p "$C"
    S="$C/ann"; solved_add; solved_loop
    S="$C/bob"; solved_add
    echo 'not a folder' >"$C/cid"
    run "$T/grading/class" local "$C" "$O" --format none --jobs 2
    assert_success
    run cat "$O/gradebook.csv"
    assert_line 'student,lesson,exercise,points,max_points,status,reason'
    assert_line '"ann","01_toy","add",10,10,"passed",""'
    assert_line '"bob","01_toy","loop",0,5,"missing","the submission has no folder 01_toy/exercises/loop"'
    assert_line --regexp '^"cid","01_toy","add",0,10,"no result",".*not a folder'
    assert_equal "$(grep -c . "$O/gradebook.csv")" 7
    run cat "$O/missing.txt"
    assert_output --regexp '^cid	the grading failed, no result: grade: --submission .*cid is not a folder \(exit 2\)$'
    cp "$O/gradebook.csv" "$BATS_TEST_TMPDIR/first.csv"
    run "$T/grading/class" local "$C" "$O" --format none
    assert_output --partial "already graded: ann"
    assert_output --partial "already graded: bob"
    assert_output --partial "grading: cid"
    cmp "$O/gradebook.csv" "$BATS_TEST_TMPDIR/first.csv"
    run "$T/grading/class" gather "$O"
    cmp "$O/gradebook.csv" "$BATS_TEST_TMPDIR/first.csv"
}

# ---- the real tree ----------------------------------------------------------------------------

@test "every points file matches its grader: each exercise has tests, each test an exercise" {
    for l in $(cd "$ROOT" && ls -d [0-9][0-9]_*/ | tr -d /); do
        [ -d "$ROOT/$l/exercises" ] || continue
        pts="$ROOT/$l/exercises/points"
        [ -f "$pts" ] || fail "$l has no exercises/points"
        g="$ROOT/tests/exercises/$l.bats"
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
    refute_output --regexp '(^| )ok [0-9]'
    run env CUDA_VISIBLE_DEVICES= "$ROOT/grading/grade" -q 01_hello_runtime
    assert_equal "$status" 77
    assert_output --regexp 'total +0/[0-9]+'
}

@test "the real tree: a sample class without a GPU - missing lesson and the cheater's tricks reported" {
    C="$BATS_TEST_TMPDIR/class"
    run "$ROOT/grading/sample-class" "$C"
    assert_success
    last="$(cd "$ROOT" && ls -d [0-9][0-9]_*/ | tail -n 1 | tr -d /)"
    run env CUDA_VISIBLE_DEVICES= "$ROOT/grading/grade" -q --submission "$C/cheater" --out "$O"
    assert_equal "$status" 77
    assert_output --partial "common/check.c: changed; not a file a student may edit"
    assert_output --regexp "tests/exercises/[0-9]+_[a-z_]+\.bats: changed"
    assert_output --regexp "[0-9]+_[a-z_]+/Makefile: changed"
    assert_output --partial "a symbolic link"
    run env CUDA_VISIBLE_DEVICES= "$ROOT/grading/grade" -q --submission "$C/missing" --out "$O"
    assert_equal "$status" 77
    assert_output --partial "missing      the submission has no folder $last (lesson missing)"
}
