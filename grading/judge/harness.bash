# grading/judge/harness.bash - what the exercise graders share (loaded by each
# grading/judge/NN_name.bats). A harness (NN_name/harness/) reports "KEY VALUE" lines on the
# grader's channel and judges nothing: these functions run it with a fresh seed (run_harness)
# and compare what it saw with what the test computes itself.

# run_exercise PROGRAM ARG...: runs a program built from a submission into $output, $status
# and $lines, as bats' run does. The grader's sandbox (grading/) sets SANDBOX to its wrapper;
# empty, the program runs as it is. The tests of one exercise judge one run: the first test runs
# the program, and a later test of the same file with the same arguments reads what that run
# printed (kept in keep_dir: the grader's, outside the sandbox), so a grading runs each
# program once for its seed instead of once per test.
# shellcheck disable=SC2154 # $output, $status: set by bats' run
run_exercise() {
    local kept
    kept="$(keep_dir)/run.$(printf '%s\0' "$@" | md5sum | cut -d' ' -f1)"
    if [ -f "$kept.status" ]; then
        run cat "$kept.out"
        status="$(cat "$kept.status")"
        return 0
    fi
    run_exercise_fresh "$@"
    printf '%s' "$output" >"$kept.out"
    echo "$status" >"$kept.status"
}

# run_exercise_fresh PROGRAM ARG...: a run of its own (never a kept one) into $output, $status
# and $lines, through the sandbox: run_exercise's first run, and a test's next try where it
# judges a timing against a bar close to what a correct solution reaches (a slow moment of the
# host must not cost a correct solution its point; code that does not overlap misses every time).
run_exercise_fresh() {
    local t0=$EPOCHREALTIME
    run ${SANDBOX:+"$SANDBOX"} "$@"
    run_record "$t0" "" "$@"
}

# run_record T0 CLOCK PROGRAM ARG...: where the grading keeps a record of its program runs
# (GRADE_RUNS_FILE: grading/grade's logs/LESSON.EXERCISE.runs, read by grading/bench-class),
# a line for the run that started at T0 ($EPOCHREALTIME): "TEST<TAB>PROGRAM ARG...<TAB>SEED_MS
# <TAB>CLOSED_MS<TAB>WALL_MS", the judge's stamps of the seed's request (the program started,
# CUDA initialised, the buffers made) and of the conversation's end (the report), from CLOCK
# ("-" where the run has none), and the run's whole time to its exit. Judged by no one.
run_record() {
    [ -n "${GRADE_RUNS_FILE:-}" ] || return 0
    local t0="$1" clk="$2" prog="${3##*/}" stamps
    shift 3
    # "SEED_MS<TAB>CLOSED_MS<TAB>WALL_MS", from the clock's first "seed" and "closed" lines
    stamps="$(awk -v a="$t0" -v b="$EPOCHREALTIME" '$1 == "seed" && at == "" { at = $2 }
        $1 == "closed" && closed == "" { closed = $2 }
        END { printf "%s\t%s\t%.1f", at == "" ? "-" : at, closed == "" ? "-" : closed, (b - a) * 1000 }' <<<"$clk")"
    printf '%s\t%s\t%s\n' "${BATS_TEST_DESCRIPTION//$'\t'/ }" "$(printf '%s ' "$prog" "$@" | tr '\t\n' '  ')" \
        "$stamps" >>"$GRADE_RUNS_FILE"
}

# run_harness SEED PROGRAM ARG...: runs an exercise program (the teacher's harness around the
# student's file) as run_exercise does, once per seed and arguments in a grader file, and reads
# its report. The seed goes to the program on the grader's channel, never in argv or the
# environment: its standard input is a socket whose other end is this grader's judge
# (channel.c, built here, outside the sandbox), which asks the harness for the points
# HARNESS_POINTS names, one at a time, in order: it gives the seed when the harness first needs
# its inputs, stamps moments by its own clock, reads memory from outside, and last takes the
# report the harness sends once, after the student's last call (grading/harness/exercise_harness.h).
# The sandbox passes descriptors 0-2 only, and the student's file can reach none of the
# channel's by name (grading/check/check-object refuses write, dup, read, stdin, ...). Sets $output,
# $status and $lines as run does (what the program printed: shown in failures, never judged
# as a report), $report (the report's lines), $report_why (empty, or why the report cannot be
# trusted), $clock (the judge's stamps: "NAME MS" lines, read by harness_clock), $memory (the
# device memory the judge read from NVML at the harness's measures: harness_memory), $seeds
# (the seeds it drew: harness_fresh) and $picks (the values the harness gave at the positions
# the judge picked after a call: harness_picks, harness_picks_wrong).
run_harness() {
    local kept
    kept="$(keep_dir)/harness.$(printf '%s\0' "${HARNESS_POINTS:-seed}" "$@" | md5sum | cut -d' ' -f1)"
    if [ -f "$kept.status" ]; then
        run cat "$kept.out"
        status="$(cat "$kept.status")"
        report="$(cat "$kept.report")"
        report_why="$(cat "$kept.why")"
        clock="$(cat "$kept.clock")"
        memory="$(cat "$kept.memory")"
        seeds="$(cat "$kept.seeds")"
        picks="$(cat "$kept.picks")"
        HARNESS_CHANNEL=1
        return 0
    fi
    run_harness_fresh "$@"
    printf '%s' "$output" >"$kept.out"
    printf '%s' "$report" >"$kept.report"
    printf '%s' "$report_why" >"$kept.why"
    printf '%s' "$clock" >"$kept.clock"
    printf '%s' "$memory" >"$kept.memory"
    printf '%s' "$seeds" >"$kept.seeds"
    printf '%s' "$picks" >"$kept.picks"
    echo "$status" >"$kept.status"
}

# keep_dir: where the runs of one grading of an exercise are kept, with its seed: GRADE_KEEP_DIR
# where grading/grade sets one (the grader's, outside the sandbox: one folder for the exercise,
# also when grade runs its tests in two bats runs, those that hold the GPU alone and the others),
# else BATS_FILE_TMPDIR (one run of the grader file).
keep_dir() { printf '%s\n' "${GRADE_KEEP_DIR:-$BATS_FILE_TMPDIR}"; }

# grader_program NAME [LIB...]: the path of NAME.c (beside this file) built, once per grader file
# (in BATS_FILE_TMPDIR), or once per grading (in GRADE_PROGRAMS_DIR, where grading/grade sets
# one: the grader's, outside the sandbox); fails where no C compiler builds it.
# LIB... (e.g. -lm) are linked after it.
grader_program() {
    local bin="${GRADE_PROGRAMS_DIR:-$BATS_FILE_TMPDIR}/$1" name="$1"
    shift
    if [ ! -x "$bin" ] && command -v "${CC:-cc}" >/dev/null 2>&1 &&
        "${CC:-cc}" -O2 -o "$bin.$$" "${BASH_SOURCE[0]%/*}/$name.c" "$@" 2>/dev/null; then
        mv -f "$bin.$$" "$bin"
    fi
    [ -x "$bin" ] && echo "$bin"
}

# channel_program: the grader's relay (channel.c) built.
channel_program() { grader_program channel; }

# run_harness_fresh SEED PROGRAM ARG...: a run of its own (never a kept one); see run_harness.
# The judge (channel.c) asks for the points HARNESS_POINTS names, in that order (default
# "seed": the seed, then the report); $seeds gets the seeds it drew for "fresh:NAME" points
# ("NAME SEED" lines, harness_fresh), $picks the answers to its "pick:NAME" points ("NAME
# SEED N AT:BITS ..." lines, checked for their form and positions by the relay), and a conversation it found broken makes $report_why
# "protocol broken: WHAT" and is written to GRADE_REVIEW_FILE where the grading sets one (the
# run scores nothing and is flagged for review, grading/grade).
run_harness_fresh() {
    local seed="$1" chan relay
    shift
    relay="$(channel_program)" || {
        report="" clock="" memory="" seeds="" picks="" report_why="the grader could not build its channel (grading/judge/channel.c with ${CC:-cc})"
        HARNESS_CHANNEL=1 status=125 output="$report_why"
        return 0
    }
    chan="$(mktemp "$BATS_FILE_TMPDIR/channel.XXXXXX")"
    local t0=$EPOCHREALTIME
    run "$relay" --points "${HARNESS_POINTS:-seed}" "$seed" "$chan" ${SANDBOX:+"$SANDBOX"} "$@"
    HARNESS_CHANNEL=1
    harness_read_report "$seed" "$chan"
    clock="$(head -c 65536 "$chan.clock" 2>/dev/null)"
    run_record "$t0" "$clock" "$@"
    memory="$(head -c 65536 "$chan.memory" 2>/dev/null)"
    seeds="$(head -c 65536 "$chan.seeds" 2>/dev/null)"
    picks="$(head -c 1048576 "$chan.picks" 2>/dev/null)"
    if [ -s "$chan.broken" ]; then
        report_why="protocol broken: $(head -c 300 "$chan.broken" | head -n 1)"
        [ -z "${GRADE_REVIEW_FILE:-}" ] || printf '%s\n' "$report_why" >>"$GRADE_REVIEW_FILE"
    fi
    rm -f "$chan" "$chan.clock" "$chan.memory" "$chan.seeds" "$chan.broken" "$chan.picks"
}

# harness_fresh NAME: the seed the judge drew for the last run_harness's point fresh:NAME.
harness_fresh() {
    local v
    v="$(relay_value "$seeds" "$1")"
    [ -n "$v" ] || { fail "the judge drew no seed '$1' (seeds: $(printf '%s' "$seeds" | tr '\n' ' '))"; return 1; }
    printf '%s\n' "$v"
}

# harness_picks NAME: the answer to the last run_harness's point pick:NAME as the relay kept it,
# "SEED N AT:BITS ..." (the seed the judge drew after the call, the output's length, the values
# at the positions it picked); fails where there is none.
harness_picks() {
    local v
    v="$(relay_value "$picks" "$1")"
    [ -n "$v" ] || { fail "the harness answered no pick '$1'"; return 1; }
    printf '%s\n' "$v"
}

# expected_picks_program: expected_picks.c built (with -lm: fmaf).
expected_picks_program() { grader_program expected_picks -lm; }

# harness_picks_wrong: reads lines "NAME INSEED WORK" (a pick of the last run_harness, the seed
# of the input the judge drew for that call, lesson 04's WORK, 0 for the input itself) and
# prints the NAME of each whose values are not those expected_picks.c computes outside the
# program, or that has no answer; nothing when every one is right. Fails where the grader
# cannot build expected_picks.c.
harness_picks_wrong() {
    local bin asked
    bin="$(expected_picks_program)" || { fail "the grader could not build grading/judge/expected_picks.c with ${CC:-cc}"; return 1; }
    # "R NAME INSEED SEED N WORK" for each pick the relay kept, "M NAME" for one it has not
    asked="$(awk 'NR == FNR { if (NF > 3 && !($1 in s)) { s[$1] = $2; n[$1] = $3 }; next }
        NF == 3 { if ($1 in s) print "R", $1, $2, s[$1], n[$1], $3; else print "M", $1 }' \
        <(printf '%s\n' "$picks") -)"
    sed -n 's/^M //p' <<<"$asked"
    sed -n 's/^R //p' <<<"$asked" | grep . | "$bin" |
        awk 'NR == FNR { want[$1] = $0; next } ($1 in want) && want[$1] != $0 { print $1; delete want[$1] }' \
            - <(printf '%s\n' "$picks")
}

# harness_picks_right NAME INSEED WORK: the pick NAME of the last run_harness holds the values
# due (harness_picks_wrong), else fails with what it held.
harness_picks_right() {
    local wrong
    wrong="$(printf '%s %s %s\n' "$1" "$2" "$3" | harness_picks_wrong)" || return 1
    [ -z "$wrong" ] || { fail "the pick '$1' does not hold the values due (input seed $2, work $3): $(relay_value "$picks" "$1" | cut -c1-200)"; return 1; }
}

# harness_inconsistent WHY: what the harness reported in-process contradicts what the grader saw
# itself (its clock, its picks): the test fails with "inconsistent report: WHY", written to
# GRADE_REVIEW_FILE where the grading sets one (flagged for review, as a broken protocol is).
harness_inconsistent() {
    [ -z "${GRADE_REVIEW_FILE:-}" ] || printf 'inconsistent report: %s\n' "$1" >>"$GRADE_REVIEW_FILE"
    fail "inconsistent report: $1"
}

# relay_value TEXT NAME: what follows "NAME " on the last such line of TEXT (one of the relay's
# files: $clock, $memory); nothing when there is none.
relay_value() {
    printf '%s\n' "$1" | sed -n "s/^$2 //p" | tail -n 1
}

# harness_clock NAME: the time (ms, the relay's clock) of the last run_harness's stamp NAME.
harness_clock() {
    local v
    v="$(relay_value "$clock" "$1")"
    [ -n "$v" ] || { fail "the grader's clock has no stamp '$1' (stamps: $(printf '%s' "$clock" | tr '\n' ' '))"; return 1; }
    printf '%s\n' "$v"
}

# harness_memory NAME: the device memory (MiB) the program held at the harness's measure NAME,
# as NVML showed it to the relay, outside the program; prints why instead and returns 1 where
# the relay could not see it ("unseen (WHY)": no nvidia-smi, or NVML does not list the program,
# as in a container without the host's process IDs), or where there was no such measure.
harness_memory() {
    local v
    v="$(relay_value "$memory" "$1")"
    case "$v" in
        '') echo "no measure '$1'"; return 1 ;;
        *[!0-9]*) echo "$v"; return 1 ;;
    esac
    echo "$v"
}

# harness_read_report SEED FILE: $report and $report_why from the channel FILE (its first line
# the seed as the grader wrote it, then the report). The report counts only when every line is
# "KEY VALUE" with a key of its own, and its last line, "end SEED", ends it: a key written twice
# or anything after the end fails the run.
harness_read_report() {
    local seed="$1" file="$2" first dup
    report="" report_why=""
    first="$(head -n 1 "$file")"
    report="$(tail -n +2 "$file" | head -c 65536)"
    if [ "$first" != "$seed" ]; then
        report_why="the grader's channel was changed (its first line is not the seed)"
    elif [ -z "$report" ]; then
        report_why="the harness wrote no report (the program stopped before the end of the harness)"
    elif printf '%s\n' "$report" | grep -qvE '^[a-z][a-z0-9_]* '; then
        report_why="the report holds a line that is not 'KEY VALUE': $(printf '%s\n' "$report" | grep -m1 -vE '^[a-z][a-z0-9_]* ' | cut -c1-80)"
    elif dup="$(printf '%s\n' "$report" | cut -d' ' -f1 | sort | uniq -d | head -n 1)" && [ -n "$dup" ]; then
        report_why="the report names '$dup' twice"
    elif [ "$(printf '%s\n' "$report" | tail -n 1)" != "end $seed" ]; then
        if printf '%s\n' "$report" | grep -q '^end '; then
            report_why="something came after the report's end"
        else
            report_why="the report is incomplete (no 'end $seed': the program stopped early, or a check failed)"
        fi
    fi
}

# A fresh seed, 1 .. 2^31 - 2.
new_seed() {
    echo $(( ((RANDOM << 16) ^ (RANDOM << 1) ^ RANDOM ^ $$) % 2147483646 + 1 ))
}

# The seed of this run of a grader file (of this grading of the exercise, where grading/grade
# keeps its runs: keep_dir): fresh, chosen by its first test, the same for the others (with
# run_exercise they judge one run of each program; each grading gets a new one).
exercise_seed() {
    local file
    file="$(keep_dir)/seed"
    [ -s "$file" ] || new_seed >"$file"
    cat "$file"
}

# expected_sum_program: expected_sum.c built.
expected_sum_program() { grader_program expected_sum; }

# expected_sum SEED K N A B: the sum over the N values of case K of A * x + B, the values as
# grading/harness/exercise_harness.h's harness_fill makes them (MINSTD from the case's seed, x % 1000).
# expected_sum.c compiled once per grader file (lesson 03's cases hold 16-32 Mi values: awk
# took seconds for each); awk where no C compiler is found.
expected_sum() {
    local bin
    if bin="$(expected_sum_program)"; then
        "$bin" "$@"
        return
    fi
    awk -v seed="$1" -v k="$2" -v n="$3" -v a="$4" -v b="$5" 'BEGIN {
        s = (seed + k * 7919) % 2147483646 + 1; sum = 0
        for (i = 0; i < n; i++) { s = (s * 48271) % 2147483647; sum += a * (s % 1000) + b }
        printf "%.1f\n", sum }'
}

# input_sum SEED N: lesson 04's input as its harness reports it (the values harness_input_fill
# makes from the seed, grading/harness/pick.h, times 32768), summed over N floats: expected_sum's
# program (no awk here: 32-bit multiplies and xor; without a C compiler the grader has no
# channel either).
input_sum() {
    local bin
    bin="$(expected_sum_program)" || { echo "input_sum: grading/judge/expected_sum.c does not build with ${CC:-cc}" >&2; return 1; }
    "$bin" input "$1" "$2"
}

# shellcheck disable=SC2154 # $output: set by bats' run
# harness_value KEY: the value KEY has in the report of the last run_harness (a report that
# cannot be trusted fails, with why); after run_exercise (no channel: a program run by hand,
# tests/helper.bats), the line "harness: KEY VALUE" of $output.
harness_value() {
    local v
    if [ -n "${HARNESS_CHANNEL:-}" ]; then
        [ -z "$report_why" ] || { fail "the harness's report does not count: $report_why. The program printed: $output"; return 1; }
        v="$(printf '%s\n' "$report" | sed -n "s/^$1 //p")"
        [ -n "$v" ] || { fail "the harness reported no '$1': report: $report; the program printed: $output"; return 1; }
    else
        v="$(printf '%s\n' "$output" | sed -n "s/^harness: $1 //p" | tail -n 1)"
        [ -n "$v" ] || { fail "the harness reported no '$1' (the program stopped early?): $output"; return 1; }
    fi
    printf '%s\n' "$v"
}

# assert_harness KEY EXPECTED [WHY]
assert_harness() {
    local v
    v="$(harness_value "$1")" || return 1
    [ "$v" = "$2" ] || fail "${3:-$1}: the harness saw '$v', expected '$2'"
}

# assert_resources NAME [WHY]: what the student's calls made and left in the harness's window
# NAME, as the stand-in driver beside the program counted it whatever API made it
# (grading/harness/harness_watch.h, "resources_NAME"): only "kept" passes. "left: ..." (alive
# after the window, not before) and "... made twice: ..." lose, and so does "not watched": the
# graded build always has the stand-in beside the program (WATCH_DRIVER=1).
assert_resources() {
    local v
    v="$(harness_value "resources_$1")" || return 1
    case "$v" in
        kept) ;;
        "not watched") fail "resources_$1: the program's libcuda.so.1 was not the grader's stand-in driver (a build without WATCH_DRIVER=1, or one that loads another driver): what your code made cannot be counted" ;;
        *) fail "${2:-what your code made}: $v (counted by the driver, whatever API made it; resources_$1)" ;;
    esac
}

# judge_failures PROGRAM "KEY FAILED OK" ["KEY FAILED OK"] [-- ARG...]: PROGRAM run with
# --fail-at N (the stand-in driver makes the Nth driver call that makes or releases something
# fail, counted from the student's first call; harness_watch.h), N = 1 to 4 until one does not
# come. Each run must end normally (exit 0) with a complete report and leave nothing behind
# (resources_fail kept); the call that saw the failure (fail_in names its KEY; with one KEY, the
# only call) must answer FAILED, a call before it OK; where none came, each answers OK. The first
# must come (a call that makes nothing cannot be the exercise's). A crash, a silent success
# (a fallback that hides the failure) or a leak loses, with the N that shows it.
judge_failures() {
    local prog="$1" n came where key failed ok i
    local -a calls=() args=()
    shift
    while [ "$#" -gt 0 ] && [ "$1" != -- ]; do calls+=("$1"); shift; done
    [ "${1:-}" != -- ] || { shift; args=("$@"); }
    for n in 1 2 3 4; do
        run_harness "$seed" "$prog" --fail-at "$n" ${args[@]+"${args[@]}"}
        [ "$status" = 0 ] || { fail "with the driver's call $n made to fail the program ended with status $status (a crash, or no clean end): $output"; return 1; }
        assert_harness_end "$seed" || return 1
        came="$(harness_value fail_came)" || return 1
        where="${calls[0]%% *}"
        [ "${#calls[@]}" = 1 ] || where="$(harness_value fail_in)" || return 1
        [ "$came" = yes ] || where=none
        [ "$came" = yes ] || [ "$n" -gt 1 ] || { fail "the first driver call of your code was made to fail and none came: your code made or released nothing through the driver"; return 1; }
        for i in "${!calls[@]}"; do
            read -r key failed ok <<<"${calls[i]}"
            if [ "$key" = "$where" ]; then
                assert_harness "$key" "$failed" "with the driver's call $n made to fail (in $key): what $key answered (a failure must be reported, never hidden)" || return 1
                break
            fi
            assert_harness "$key" "$ok" "with the driver's call $n made to fail (${where/#none/after all your calls}): what $key answered" || return 1
        done
        assert_resources fail "with the driver's call $n made to fail, what your code left behind" || return 1
        [ "$came" = yes ] || break
    done
}

# The report is complete: its last line names the seed of this run; and in a graded run (the
# sandbox: SANDBOX set), the system-call filter was on (grading/harness/syscall_filter.h: a program
# built from a student's file installs it before main()).
assert_harness_end() {
    assert_harness end "$1" "the harness's report is complete"
    if [ -n "${SANDBOX:-}" ] && [ -n "${HARNESS_CHANNEL:-}" ] &&
        printf '%s\n' "$report" | grep -qx 'filter off'; then
        fail "the system-call filter was not on in this graded run (the program was not built by the grader's rules): the report does not count"
    fi
}

# sandbox_memory_mib: the memory limit, in MiB, of the grading's cgroup (SANDBOX_CGROUP, set by
# grading/grade: cgroup v2's memory.max, or v1's memory.limit_in_bytes), which every page the
# program holds counts in, page-locked ones too; nothing where there is none (make check by hand
# without one, or no limit set).
sandbox_memory_mib() {
    local c f v min=''
    while IFS= read -r c; do
        [ -n "$c" ] || continue
        for f in "$c/memory.max" "$c/memory.limit_in_bytes"; do
            v="$(cat "$f" 2>/dev/null)" || continue
            [[ "$v" =~ ^[0-9]+$ ]] || continue
            v=$((v >> 20))
            [ -n "$min" ] && [ "$min" -le "$v" ] || min="$v"
        done
    done <<<"${SANDBOX_CGROUP:-}"
    [ -z "$min" ] || echo "$min"
}
