#!/usr/bin/env bats
# grading/ on a GPU, in its sandbox: grading/class local on grading/sample-class's class, and the
# hostile corpus (tests/hostile/make-class) against a real lesson. Expected, for the lesson
# GRADE_LESSON (default 01_hello_runtime; its first exercise is the one sample-class changes):
#   solutions full points; skeletons 0; broken and hang all but the first exercise (hang's is
#   "timed out"); cheater 0; missing full points (the lesson it lacks is not graded here);
#   every hostile attacker 0 on the two exercises it attacks, the victim their points; nothing
#   read or written outside the sandbox, no process left behind.
# Opt-in (a few minutes on one GPU; make test does not run it):
#     make -C 01_hello_runtime ARCH=90 && ARCH=90 bats tests/opt-in/grading-gpu.bats
# The teacher's tree must be built first, with the make variables the grading uses (ARCH).
# Where bwrap is not on PATH, SANDBOX_BWRAP=/path/to/bwrap.

setup_file() {
    load ../test_helper
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"; export ROOT
    export L="${GRADE_LESSON:-01_hello_runtime}" W="$BATS_FILE_TMPDIR"
    [ -z "$(gpu_reason)" ] || return 0
    mapfile -t ex < <(sed -e 's/#.*//' "$ROOT/$L/exercises/points" | awk 'NF { print $1 }')
    printf '%s\n' "${ex[@]}" >"$W/exercises"
    local n="${#ex[@]}" other rc=0
    other="$(cd "$ROOT" && ls -d [0-9][0-9]_*/ | tr -d / | grep -vx "$L" | head -n 1)"
    "$ROOT/grading/sample-class" "$W/sample" "$L" "$other" >"$W/sample.log" 2>&1
    (cd "$ROOT" && find . \( -name build -o -name .git -o -name .gpu \) -prune -o -type f -print0 | sort -z \
        | xargs -0 md5sum) >"$W/teacher.before"
    local t0=$SECONDS
    "$ROOT/grading/class" local "$W/sample" "$W/out" --per-gpu "${GRADE_PER_GPU:-2}" --timeout "${GRADE_TIMEOUT:-60}" \
        -- "$L" >"$W/class.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - t0))" >"$W/class.rc"; rc=0
    bash "$ROOT/tests/hostile/make-class" "$ROOT" "$W/hostile" "$L" "${ex[0]}" "${ex[1]}" \
        "$W/hout/results/victim" >"$W/hostile.log" 2>&1
    t0=$SECONDS
    "$ROOT/grading/class" local "$W/hostile" "$W/hout" --per-gpu "${GRADE_PER_GPU:-2}" --timeout "${GRADE_TIMEOUT:-60}" \
        -- "$L" >"$W/hclass.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - t0))" >"$W/hclass.rc"
    pgrep -af hostile-linger-marker >"$W/linger" 2>&1 || true
    [ -z "${KEEP_GRADING:-}" ] || cp -r "$W" "$KEEP_GRADING"
    : "$n"
}

setup() {
    load ../test_helper
    require_gpu
}

score() { jq -r '"\(.score)/\(.max_score)"' "$1/results/$2/results.json"; }
max() { jq -r '.max_score' "$W/out/results/solutions/results.json"; }
first_max() { sed -e 's/#.*//' "$ROOT/$L/exercises/points" | awk 'NF { print $2; exit }'; }

@test "grading on a GPU: the sample class gets exactly the expected points, in the sandbox" {
    run cat "$W/class.log"; echo "$output"
    m="$(max)"; f="$(first_max)"
    run score "$W/out" solutions; assert_output "$m/$m"
    run score "$W/out" skeletons; assert_output "0/$m"
    run score "$W/out" broken;    assert_output "$((m - f))/$m"
    run score "$W/out" hang;      assert_output "$((m - f))/$m"
    run score "$W/out" cheater;   assert_output "0/$m"
    run score "$W/out" missing;   assert_output "$m/$m"
    run jq -r '.exercises[0].status' "$W/out/results/hang/results.json"; assert_output "timed out"
    run jq -r '.sandbox' "$W/out/results/solutions/results.json"; assert_output --regexp '^bubblewrap '
}

@test "grading on a GPU: every hostile attacker scores 0, the victim its points; nothing leaks" {
    run cat "$W/hclass.log"; echo "$output"
    e1="$(sed -n 1p "$W/exercises")" e2="$(sed -n 2p "$W/exercises")"
    for s in forge escape linger claim77 incl passwd links alias exlink names flood; do
        run jq -r --arg a "$e1" --arg b "$e2" '[.exercises[] | select(.exercise == $a or .exercise == $b) | .points] | add' \
            "$W/hout/results/$s/results.json"
        assert_output 0 || fail "$s scored $output"
    done
    run jq -r --arg a "$e1" --arg b "$e2" '[.exercises[] | select(.exercise == $a or .exercise == $b) | .status] | join(",")' \
        "$W/hout/results/victim/results.json"
    assert_output passed,passed
    run grep -rlE 'SECRET-VICTIM|root:x:0:0' "$W/hout/results" "$W/hout/logs"
    refute_output --regexp '/results/(forge|escape|linger|claim77|incl|passwd|links|alias|exlink|names|flood)/'
    run cat "$W/linger"; assert_output ''
    # nothing of the teacher's solutions or graders could be read (the escape prints what it read)
    run grep -rhoE 'read [^ ]*(solutions/|grading/judge/)[^ ]*:' "$W/hout/results/escape"
    assert_output ''
    (cd "$ROOT" && find . \( -name build -o -name .git -o -name .gpu \) -prune -o -type f -print0 | sort -z \
        | xargs -0 md5sum) >"$BATS_TEST_TMPDIR/after"
    run diff "$W/teacher.before" "$BATS_TEST_TMPDIR/after"; assert_success
    run find "$ROOT" "$W" -name 'PWNED*'; assert_output ''
}
