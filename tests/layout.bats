#!/usr/bin/env bats
# The layout a student walks (issue 41), CPU only: each lesson's README within its budget and
# order with its second document, at most 6 sources at the top and the instrument in proof/,
# demo.c short (main() of 40 lines at most, two story functions beside it), built by the README's own nvcc line, lesson 04's loop writing
# its three calls, the functions' lengths, and a FIXME marker wherever a student works (the
# core's limits, rename wrappers and includes: tests/code.bats runs tools/check-core on each
# lesson). Each check is proven first on a toy lesson that keeps the contract, and on copies of
# it that break one rule each.

load test_helper

# ---- the checks, each on one lesson folder (they print what is wrong; status 1 then) ---------

# layout_sources DIR: at most 6 sources (.c .h .cu .cuh) at DIR's top level (demo.h, the demo's
# own small header, not counted), the instrument in DIR/proof/, and no other folder but
# exercises/, solutions/, harness/ and the build output.
layout_sources() {
    local dir="$1" n bad=0 d
    n=$(find "$dir" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) ! -name demo.h | wc -l)
    [ "$n" -le 6 ] || { echo "$dir: $n source files at the top level (6 at most: the instrument goes in proof/)"; bad=1; }
    [ -d "$dir/proof" ] || { echo "$dir: no proof/ folder (the instrument: main.c, the steps, measuring, reports)"; bad=1; }
    for d in "$dir"/*/; do
        d="$(basename "$d")"
        case "$d" in
        proof | exercises | solutions | harness | build | build-*) ;;
        *) echo "$dir: a folder $d/ at the top level (only proof/, exercises/, solutions/, harness/)"; bad=1 ;;
        esac
    done
    return "$bad"
}

# layout_demo DIR: DIR/demo.c has at most 120 lines, a main() of at most 40, and at most two
# other functions (the story's parts, in the order main calls them).
layout_demo() {
    local f="$1/demo.c" n
    [ -f "$f" ] || { echo "$1: no demo.c"; return 1; }
    n=$(wc -l <"$f")
    [ "$n" -le 120 ] || { echo "$f: $n lines (120 at most)"; return 1; }
    awk -v file="$f" '
        /^\{/ { start = NR; if (prev ~ /(^|[^A-Za-z0-9_])main[ \t]*\(/) main = NR; else { others++; last = prev } }
        /^\}/ && start { if (start == main && NR - start + 2 > 40) { print file ":" start - 1 ": main() is " NR - start + 2 " lines (40 at most)"; bad = 1 } start = 0 }
        { if ($0 ~ /^[A-Za-z]/) prev = $0 }
        END {
            if (!main) { print file ": no main()"; bad = 1 }
            if (others > 2) { print file ": " others " functions besides main() (2 at most), the last: " last; bad = 1 }
            exit bad
        }' "$f"
}

# nvcc_13: CUDA 13.0's nvcc (the toolkit the suite is written for), else the nvcc on PATH.
nvcc_13() {
    if [ -x /usr/local/cuda-13.0/bin/nvcc ]; then echo /usr/local/cuda-13.0/bin
    else dirname "$(command -v nvcc)"; fi
}

# build_by_readme TREE LESSON: copies TREE's common/ and LESSON (no build output) to a temp
# folder, runs the README's nvcc line there, literally, in the copy of the lesson folder, and
# checks that it made a new executable. Prints what went wrong. Through readme_build
# (test_helper.bash): the files the line made from the same copy (common/ and the lesson, every
# file's content) with the same compilers are kept, and taken from there the next time (five
# builds by hand, 2.5 s of CPU, in every run before).
build_by_readme() {
    local tree="$1" lesson="$2" line copy="$BATS_TEST_TMPDIR/byhand-$2" before
    line="$(demo_nvcc_line "$tree/$lesson/README.md")"
    [ -n "$line" ] || { echo "$lesson/README.md: no \`\`\`sh block with a line starting 'nvcc ' under ## The code"; return 1; }
    mkdir -p "$copy"
    (cd "$tree" && tar cf - --exclude='build' --exclude='build-*' common "$lesson") | (cd "$copy" && tar xf -)
    before="$(cd "$copy/$lesson" && find . -type f -perm -u+x | LC_ALL=C sort)"
    PATH="$(nvcc_13):$PATH" readme_build "$copy/$lesson" "$line" "$copy"
    if [ "$status" -ne 0 ]; then
        echo "$lesson: '$line' failed: $output"
        return 1
    fi
    [ -n "$(cd "$copy/$lesson" && find . -type f -perm -u+x | LC_ALL=C sort | LC_ALL=C comm -13 <(printf '%s\n' "$before") -)" ] \
        || { echo "$lesson: '$line' made no program"; return 1; }
}

# loop_writes_pipeline FILE: FILE (comments left out) has a loop (for, while) whose body holds
# cudaMemcpyAsync, then a kernel launch (<<<, cudaLaunchKernel or a launch_ call), then
# cudaMemcpyAsync, in that order: the copy in, the kernel and the copy out written where they run.
loop_writes_pipeline() {
    awk '{ text = text $0 "\n" }
    END {
        gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", text)       # block comments
        gsub(/\/\/[^\n]*/, "", text)                        # line comments
        n = length(text)
        for (i = 1; i <= n; i++) {
            if (substr(text, i, 3) != "for" && substr(text, i, 5) != "while") continue
            if (i > 1 && substr(text, i - 1, 1) ~ /[A-Za-z0-9_]/) continue
            j = i + (substr(text, i, 3) == "for" ? 3 : 5)
            while (substr(text, j, 1) ~ /[ \t\n]/) j++
            if (substr(text, j, 1) != "(") continue
            d = 0                                           # the loop header
            for (; j <= n; j++) { c = substr(text, j, 1); if (c == "(") d++; else if (c == ")" && --d == 0) break }
            j++
            while (substr(text, j, 1) ~ /[ \t\n]/) j++
            start = j; d = 0                                # the body: a block or one statement
            if (substr(text, j, 1) == "{") {
                for (; j <= n; j++) { c = substr(text, j, 1); if (c == "{") d++; else if (c == "}" && --d == 0) break }
            } else {
                for (; j <= n; j++) { c = substr(text, j, 1); if (c == "(") d++; else if (c == ")") d--; else if (c == ";" && d == 0) break }
            }
            body = substr(text, start, j - start + 1)
            if (match(body, /cudaMemcpyAsync[ \t\n]*\(/)) {
                rest = substr(body, RSTART + RLENGTH)
                if (match(rest, /<<<|cudaLaunchKernel[A-Za-z_]*[ \t\n]*\(|launch_[A-Za-z0-9_]*[ \t\n]*\(/)) {
                    rest = substr(rest, RSTART + RLENGTH)
                    if (match(rest, /cudaMemcpyAsync[ \t\n]*\(/)) found = 1
                }
            }
        }
        exit !found
    }' "$1" || { echo "$1: no loop whose body writes cudaMemcpyAsync, a kernel launch and cudaMemcpyAsync in that order"; return 1; }
}

# layout_fixme DIR: every student file (DIR/exercises/NAME/files lists them) holds a FIXME
# marker, and each exercise has a README.md that names its FIXMEs (the word FIXME and each
# student file) and `make check`.
layout_fixme() {
    local dir="$1" ex f bad=0 any=0
    for ex in "$dir"/exercises/*/; do
        ex="${ex%/}"
        any=1
        if [ ! -f "$ex/files" ]; then
            echo "$ex: no files list (the student's files)"
            bad=1
            continue
        fi
        while read -r f; do
            [ -n "$f" ] || continue
            if [ ! -f "$ex/$f" ]; then echo "$ex/files names $f, which is not there"; bad=1
            elif ! grep -q 'FIXME' "$ex/$f"; then echo "$ex/$f: no FIXME marker where the student works"; bad=1; fi
            if [ -f "$ex/README.md" ] && ! grep -qF "$f" "$ex/README.md"; then
                echo "$ex/README.md does not name $f"; bad=1
            fi
        done <"$ex/files"
        if [ ! -f "$ex/README.md" ]; then
            echo "$ex: no README.md (the task, its FIXME markers, how it is graded, make check)"; bad=1
        else
            grep -q 'FIXME' "$ex/README.md" || { echo "$ex/README.md does not name its FIXME markers"; bad=1; }
            grep -q 'make check' "$ex/README.md" || { echo "$ex/README.md does not say how to check it (make check)"; bad=1; }
        fi
    done
    [ "$any" -eq 1 ] || { echo "$dir: no exercises/"; bad=1; }
    return "$bad"
}

# lesson_sources DIR: the .c .h .cu .cuh files of a lesson (exercises and solutions too), not
# its harness/ nor the build output.
lesson_sources() {
    find "$1" \( -path "$1/harness" -o -path "$1/build" -o -path "$1/build-*" \) -prune -o \
        -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sort
}

# ---- the toy lesson: keeps the contract; the tests break one rule at a time ---------------

# make_layout_toy T: T/common (this tree's) and T/01_toy, a lesson laid out as the contract says.
make_layout_toy() {
    local T="$1" L="$1/01_toy"
    mkdir -p "$L/proof" "$L/exercises/fill" "$L/solutions/fill" "$L/harness"
    cp -r "$ROOT/common" "$T/"
    cat >"$L/core.h" <<'EOF'
/* 01_toy/core.h - the toy lesson's core: what demo.c and the instrument call. */
#ifndef TOY_CORE_H
#define TOY_CORE_H
#include <stdbool.h>
#include <stddef.h>

bool fill_on_gpu(int *host, size_t n, int value);
bool wait_gpu(void);

#endif
EOF
    cat >"$L/core.c" <<'EOF'
/* 01_toy/core.c - a toy lesson's core: a buffer on the GPU, filled, read back. */
#include <cuda_runtime_api.h>

#include "check.h"
#include "core.h"

/* Fills n ints on the GPU with the byte value and reads them back into host. */
bool fill_on_gpu(int *host, size_t n, int value)
{
    int *dev = NULL;
    bool ok = checkRuntime(cudaMalloc((void **)&dev, n * sizeof *dev)) &&
              checkRuntime(cudaMemset(dev, value, n * sizeof *dev)) &&
              checkRuntime(cudaMemcpy(host, dev, n * sizeof *dev, cudaMemcpyDeviceToHost));
    return checkRuntime(cudaFree(dev)) && ok;
}

/* Waits for the GPU. */
bool wait_gpu(void)
{
    return checkRuntime(cudaDeviceSynchronize());
}
EOF
    cat >"$L/demo.c" <<'EOF'
/* 01_toy/demo.c - the toy's idea in one short program. */
#include <stdio.h>

#include "check.h"
#include "core.h"

int main(void)
{
    int host[4] = {1, 1, 1, 1};
    if (!requireRuntime(cudaSetDevice(0)))
        return EXIT_CHECK;
    if (!fill_on_gpu(host, 4, 0) || !wait_gpu())
        return EXIT_CHECK;
    printf("%s\n", host[3] == 0 ? "verified on the host" : "wrong");
    return host[3] == 0 ? EXIT_OK : EXIT_CHECK;
}
EOF
    printf '/* the instrument */\n#include "lesson.h"\nint main(void)\n{\n    return 0;\n}\n' >"$L/proof/main.c"
    printf '/* the instrument'"'"'s header */\n#include "core.h"\n' >"$L/proof/lesson.h"
    echo 'fill.c' >"$L/exercises/fill/files"
    printf '/* fill the buffer */\nint fill(void)\n{\n    return 0; /* FIXME: fill it */\n}\n' >"$L/exercises/fill/fill.c"
    printf '# fill\n\nFix the FIXME in `fill.c` (`fill`). Graded by `make check`.\n' >"$L/exercises/fill/README.md"
    {
        printf '%s\n' '# 01_toy: a buffer on the GPU' '' 'One line under the title.' '' '## The idea' ''
        for i in $(seq 20); do echo "The idea, line $i."; done
        printf '%s\n' '' '## Key concepts' '' 'CUDA APIs involved: `cudaMalloc`, `cudaMemcpy`.' '' '## The code' '' \
            '`core.c:8-15` fills and reads back:' '```c'
        sed -n 8,15p "$L/core.c"
        printf '%s\n' '```' '' 'Build the demo by hand:' '' '```sh' \
            'nvcc -I../common -o demo demo.c core.c ../common/check.c ../common/driver_loader.c -ldl' \
            '```' '' '## Run it' '' '```sh' 'make run' '```' '' '```' 'step 1' 'RESULT: PASS - all 1 checks passed' \
            '```' '' '## Exercises' '' '`exercises/fill`: fill it.' '' 'More in [the second document](IN_DEPTH.md).'
    } >"$L/README.md"
    printf '%s\n' '# 01_toy in depth' '' '## Where is what in the code' '' '`proof/main.c:3-6` the main:' '```c' \
        'int main(void)' '{' '    return 0;' '}' '```' >"$L/IN_DEPTH.md"
}

setup() {
    TOY="$BATS_TEST_TMPDIR/toy"
    make_layout_toy "$TOY"
    L="$TOY/01_toy"
}

@test "the toy lesson keeps every rule of the layout" {
    run "$ROOT/tools/check-quotes" "$L/README.md"
    assert_success
    run "$ROOT/tools/check-core" "$L/core.c"
    assert_success
    assert_output --partial "wait_gpu only renames cudaDeviceSynchronize"
    run layout_sources "$L"
    assert_success
    run layout_demo "$L"
    assert_success
    run layout_fixme "$L"
    assert_success
    run "$ROOT/tools/check-functions" --long 0 $(lesson_sources "$L")
    assert_success
    assert_output "0 functions over 40 lines (0 allowed)"
}

@test "layout checks on the toy: a seventh top-level source, another folder, no proof/" {
    touch "$L/a.c" "$L/b.c" "$L/c.cu"
    run layout_sources "$L"
    assert_success
    touch "$L/e.cuh"
    run layout_sources "$L"
    assert_failure
    assert_output "$L: 7 source files at the top level (6 at most: the instrument goes in proof/)"
    rm "$L/e.cuh"
    mkdir "$L/steps"
    mv "$L/proof" "$L/instrument"
    run layout_sources "$L"
    assert_failure
    assert_line "$L: no proof/ folder (the instrument: main.c, the steps, measuring, reports)"
    assert_line "$L: a folder steps/ at the top level (only proof/, exercises/, solutions/, harness/)"
}

@test "layout checks on the toy: demo.c of 121 lines, a main of 41 lines, three other functions, no main" {
    for i in $(seq 105); do echo "/* $i */"; done >>"$L/demo.c"
    run layout_demo "$L"
    assert_failure
    assert_output "$L/demo.c: 121 lines (120 at most)"
    head -n 16 "$L/demo.c" >"$L/d" && mv "$L/d" "$L/demo.c"
    # main of 41 lines: 31 more lines in its body
    awk '{ print } /^    int host\[4\]/ { for (i = 0; i < 31; i++) print "    host[0] = 1;" }' "$L/demo.c" >"$L/d" && mv "$L/d" "$L/demo.c"
    run layout_demo "$L"
    assert_failure
    assert_output "$L/demo.c:7: main() is 41 lines (40 at most)"
    sed -i '/^    host\[0\] = 1;$/d' "$L/demo.c"
    for fn in one two; do printf 'static int %s(void)\n{\n    return 0;\n}\n' "$fn" >>"$L/demo.c"; done
    run layout_demo "$L"
    assert_success # two story functions beside main are allowed
    printf 'static int helper(void)\n{\n    return 0;\n}\n' >>"$L/demo.c"
    run layout_demo "$L"
    assert_failure
    assert_output "$L/demo.c: 3 functions besides main() (2 at most), the last: static int helper(void)"
    sed -i 's/^int main(void)$/int start(void)/' "$L/demo.c"
    run layout_demo "$L"
    assert_failure
    assert_line "$L/demo.c: no main()"
}

@test "the README's nvcc line builds the toy's demo by hand; a line that cannot build fails" {
    command -v nvcc >/dev/null || [ -x /usr/local/cuda-13.0/bin/nvcc ] || skip "no nvcc"
    run demo_nvcc_line "$L/README.md"
    assert_output "nvcc -I../common -o demo demo.c core.c ../common/check.c ../common/driver_loader.c -ldl"
    run build_by_readme "$TOY" 01_toy
    assert_success
    [ -x "$BATS_TEST_TMPDIR/byhand-01_toy/01_toy/demo" ]
    [ ! -e "$L/demo" ] # the tree itself is untouched
    # a line that leaves out a file the demo needs fails, with the line and nvcc's words
    sed -i 's, \.\./common/driver_loader\.c,,' "$L/README.md"
    rm -rf "$BATS_TEST_TMPDIR/byhand-01_toy"
    run build_by_readme "$TOY" 01_toy
    assert_failure
    assert_output --partial "01_toy: 'nvcc -I../common -o demo demo.c core.c ../common/check.c -ldl' failed:"
    # continuation lines are joined
    sed -i 's,^nvcc -I../common -o demo ,nvcc -I../common -o demo \\\n    ,' "$L/README.md"
    run demo_nvcc_line "$L/README.md"
    assert_output "nvcc -I../common -o demo     demo.c core.c ../common/check.c -ldl"
}

@test "loop_writes_pipeline: the copy in, the launch and the copy out in one loop body, in order" {
    local f="$BATS_TEST_TMPDIR/loop.c"
    printf '%s\n' 'void f(void)' '{' '    for (int i = 0; i < n; i++) {' \
        '        ok = checkRuntime(cudaMemcpyAsync(d, h, b, H2D, s[i])) &&' \
        '             checkRuntime(launch_work(d, o, n, s[i])) &&' \
        '             checkRuntime(cudaMemcpyAsync(h, o, b, D2H, s[i]));' '    }' '}' >"$f"
    run loop_writes_pipeline "$f"
    assert_success
    sed -i 's/launch_work(d, o, n, s\[i\])/cudaLaunchKernel(k, g, b, a, 0, s[i])/' "$f"
    run loop_writes_pipeline "$f"
    assert_success
    # one statement as the body, and <<<
    printf '%s\n' 'void g(void)' '{' '    for (i = 0; i < n; i++)' \
        '        cudaMemcpyAsync(d, h, b, H2D, s), work<<<1, 1, 0, s>>>(d), cudaMemcpyAsync(h, d, b, D2H, s);' '}' >"$f"
    run loop_writes_pipeline "$f"
    assert_success
    # a dispatcher: the loop calls one function, the calls are elsewhere
    printf '%s\n' 'void op(int k)' '{' '    if (k == 0) cudaMemcpyAsync(d, h, b, H2D, s);' \
        '    else if (k == 1) launch_work(d);' '    else cudaMemcpyAsync(h, d, b, D2H, s);' '}' \
        'void h(void)' '{' '    for (i = 0; i < n; i++)' '        for (k = 0; k < 3; k++)' '            op(k);' '}' >"$f"
    run loop_writes_pipeline "$f"
    assert_failure
    assert_output "$f: no loop whose body writes cudaMemcpyAsync, a kernel launch and cudaMemcpyAsync in that order"
    # the order matters, and a comment is no call
    printf '%s\n' 'void f(void)' '{' '    while (i < n) {' '        launch_work(d); /* cudaMemcpyAsync( */' \
        '        cudaMemcpyAsync(d, h, b, H2D, s);' '        cudaMemcpyAsync(h, d, b, D2H, s);' '    }' '}' >"$f"
    run loop_writes_pipeline "$f"
    assert_failure
}

@test "layout_fixme on the toy: a student file without FIXME, an exercise without README, a README that names nothing" {
    sed -i 's/FIXME: fill it/fill it/' "$L/exercises/fill/fill.c"
    run layout_fixme "$L"
    assert_failure
    assert_output "$L/exercises/fill/fill.c: no FIXME marker where the student works"
    sed -i 's/fill it \*/FIXME: fill it */' "$L/exercises/fill/fill.c"
    echo 'Do the task.' >"$L/exercises/fill/README.md"
    run layout_fixme "$L"
    assert_failure
    assert_line "$L/exercises/fill/README.md does not name fill.c"
    assert_line "$L/exercises/fill/README.md does not name its FIXME markers"
    assert_line "$L/exercises/fill/README.md does not say how to check it (make check)"
    rm "$L/exercises/fill/README.md"
    run layout_fixme "$L"
    assert_failure
    assert_output "$L/exercises/fill: no README.md (the task, its FIXME markers, how it is graded, make check)"
}

@test "tools/check-core on the toy: a third rename wrapper, each named; a core that includes proof/ or lesson.h" {
    printf '%s\n' '' '/* a */' 'bool sync_all(void)' '{' '    return checkRuntime(cudaDeviceSynchronize());' '}' >>"$L/core.c"
    run "$ROOT/tools/check-core" "$L/core.c"
    assert_success
    assert_output --partial "2 function(s) only rename one CUDA call (2 at most)"
    printf '%s\n' '' 'void drop(int *p)' '{' '    cudaFree(p);' '}' >>"$L/core.c"
    run "$ROOT/tools/check-core" "$L/core.c"
    assert_failure 1
    assert_line "$L/core.c: 3 functions only rename one CUDA call (2 at most; call CUDA by its own name instead):"
    assert_line "  $L/core.c:19: wait_gpu only renames cudaDeviceSynchronize"
    assert_line "  $L/core.c:25: sync_all only renames cudaDeviceSynchronize"
    assert_line "  $L/core.c:30: drop only renames cudaFree"
    # a body of one CUDA call and another call is no renaming; two statements neither
    head -n 21 "$L/core.c" >"$L/c" && mv "$L/c" "$L/core.c"
    printf '%s\n' '' 'int two(int *p)' '{' '    return cudaFree(p) == 0 && other(p);' '}' \
        'int three(int *p)' '{' '    cudaFree(p);' '    return 0;' '}' \
        'int four(int d)' '{' '#if CUDA_VERSION >= 13000' '    return cudaSetDevice(d);' '#else' '    return cudaSetDevice(d + 0);' '#endif' '}' >>"$L/core.c"
    run "$ROOT/tools/check-core" "$L/core.c"
    assert_success
    assert_output --partial "2 function(s) only rename one CUDA call (2 at most)"
    assert_output --partial "four only renames cudaSetDevice"
    refute_output --partial "two only"
    refute_output --partial "three only"
    # the core includes the instrument: a header of proof/, by its name or its path, or lesson.h
    sed -i 's/#include "core.h"/#include "core.h"\n#include "lesson.h"/' "$L/core.c"
    run "$ROOT/tools/check-core" "$L/core.c"
    assert_failure 1
    assert_line "$L/core.c:6: includes \"lesson.h\", a header of the instrument (the core includes nothing from proof/ nor lesson.h)"
    sed -i 's/#include "lesson.h"//' "$L/core.c"
    printf '/* x */\n' >"$L/proof/measure.h"
    sed -i 's/#include <stddef.h>/#include <stddef.h>\n#include "measure.h"\n#include "proof\/other.h"/' "$L/core.h"
    run "$ROOT/tools/check-core" "$L/core.c"
    assert_failure 1
    assert_line "$L/core.h:6: includes \"measure.h\", a header of the instrument (the core includes nothing from proof/ nor lesson.h)"
    assert_line "$L/core.h:7: includes \"proof/other.h\", a header of the instrument (the core includes nothing from proof/ nor lesson.h)"
}

@test "tools/check-quotes on the toy: each rule of the README's budget and order broken in turn" {
    local r="$L/README.md" c="$BATS_TEST_TMPDIR/readme"
    cp "$r" "$c"
    # 251 lines
    for i in $(seq $((251 - $(wc -l <"$r")))); do echo "more $i"; done >>"$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_failure 1
    assert_output "$r: 251 lines (250 at most: move the rest to IN_DEPTH.md)"
    # The idea of 26 lines, 4 lines before it
    cp "$c" "$r"; sed -i 's/^The idea, line 20\.$/The idea, line 20.\n1\n2\n3\n4\n5\n6/; s/^One line under the title\.$/a\nb\nc\nd/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_line "$r: 4 lines before '## The idea' besides the title (3 at most)"
    assert_line "$r:8: The idea is 26 lines (25 at most: figures and caveats go later)"
    # the order, and a section missing
    cp "$c" "$r"; sed -i 's/^## Key concepts$/## Concepts/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output "$r: section 2 is 'Concepts', not 'Key concepts' (the order is: The idea, Key concepts, The code, Run it, Exercises)"
    cp "$c" "$r"; sed -i 's/^## Exercises$/## Regimes/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output --partial "section 5 is 'Regimes', not 'Exercises'"
    # Key concepts without the APIs; The code without a quote or without the nvcc line
    cp "$c" "$r"; sed -i 's/CUDA APIs involved:/APIs:/; s/^nvcc /cc /; s/^`core.c:8-15` fills/core.c, lines 8-15, fills/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_line --partial "Key concepts does not list the \"CUDA APIs involved\""
    assert_line --partial "The code quotes no code"
    assert_line --partial "The code has no \`\`\`sh block with the nvcc line"
    # Run it: two commands; then output of 41 lines; then no verdict
    cp "$c" "$r"; sed -i 's/^make run$/make\nmake run/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output --partial "Run it does not open with a \`\`\`sh block of one command"
    cp "$c" "$r"; sed -i 's/^step 1$/'"$(printf 'step %s\\n' $(seq 39))"'/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output --partial "Run it's output is 41 lines (40 at most)"
    cp "$c" "$r"; sed -i 's/^RESULT: PASS.*$/done/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output --partial "Run it's output has no RESULT: verdict line"
    # the second document: not linked, missing, without Where is what, a quote that drifted
    cp "$c" "$r"; sed -i 's/(IN_DEPTH.md)/(NOTES.md)/' "$r"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output "$r: no link [...](IN_DEPTH.md) to the second document"
    cp "$c" "$r"; mv "$L/IN_DEPTH.md" "$L/x"
    run "$ROOT/tools/check-quotes" "$r"
    assert_output "$r: links IN_DEPTH.md, which is not in $L"
    mv "$L/x" "$L/IN_DEPTH.md"
    sed -i 's/    return 0;/    return 1;/' "$L/IN_DEPTH.md"
    sed -i 's/^## Where is what in the code$/## Where/' "$L/IN_DEPTH.md"
    run "$ROOT/tools/check-quotes" "$r"
    assert_failure 1
    assert_line "$L/IN_DEPTH.md:9: differs from proof/main.c:5: '    return 0;'"
    assert_line "$L/IN_DEPTH.md: no section '## Where is what in the code'"
    run "$ROOT/tools/check-quotes" "$L/IN_DEPTH.md"
    assert_failure 1
    assert_line "$L/IN_DEPTH.md: no section '## Where is what in the code'"
    cp "$c" "$r"
}

@test "tools/check-functions: functions over 40 lines listed; one over 80, or more than --long N over 40, fails" {
    local f="$BATS_TEST_TMPDIR/f.c"
    { echo 'int a(void)'; echo '{'; for i in $(seq 39); do echo '    x();'; done; echo '}'
      echo 'int b(void)'; echo '{'; for i in $(seq 38); do echo '    x();'; done; echo '}'; } >"$f"
    run "$ROOT/tools/check-functions" "$f"
    assert_success
    assert_output "$(printf '41 %s:2 int a(void)\n1 functions over 40 lines (40 allowed)' "$f")"
    run "$ROOT/tools/check-functions" --long 0 "$f"
    assert_failure 1
    assert_line "1 functions over 40 lines (0 allowed)"
    { echo 'int c(void)'; echo '{'; for i in $(seq 80); do echo '    x();'; done; echo '}'; } >>"$f"
    run "$ROOT/tools/check-functions" "$f"
    assert_failure 1
    assert_line "$f:85: 82 lines (80 at most)"
    run "$ROOT/tools/check-functions" --long x "$f"
    assert_failure 2
    run "$ROOT/tools/check-functions" "$BATS_TEST_TMPDIR/none.c"
    assert_failure 2
}

# ---- the lessons (these fail until each lesson has its new layout) -------------------------

@test "each lesson: README.md within its budget and order, IN_DEPTH.md linked, every quote equal to its lines" {
    local d bad=""
    for d in $(list_lessons "$ROOT"); do
        run "$ROOT/tools/check-quotes" "$ROOT/$d/README.md"
        [ "$status" -eq 0 ] || bad+="$output"$'\n'
    done
    [ -z "$bad" ] || fail "$bad"
}

@test "each lesson: at most 6 sources at the top level, the instrument in proof/" {
    local d bad=""
    for d in $(list_lessons "$ROOT"); do
        run layout_sources "$ROOT/$d"
        [ "$status" -eq 0 ] || bad+="$output"$'\n'
    done
    [ -z "$bad" ] || fail "$bad"
}

@test "each lesson: demo.c of at most 120 lines, main() of at most 40 and two other functions at most" {
    local d bad=""
    for d in $(list_lessons "$ROOT"); do
        run layout_demo "$ROOT/$d"
        [ "$status" -eq 0 ] || bad+="$output"$'\n'
    done
    [ -z "$bad" ] || fail "$bad"
}

@test "each lesson: the README's nvcc line builds the demo by hand with CUDA 13.0 (run as written, in a copy)" {
    command -v nvcc >/dev/null || [ -x /usr/local/cuda-13.0/bin/nvcc ] || skip "no nvcc"
    local d bad=""
    for d in $(list_lessons "$ROOT"); do
        run build_by_readme "$ROOT" "$d"
        [ "$status" -eq 0 ] || bad+="$output"$'\n'
    done
    [ -z "$bad" ] || fail "$bad"
}

@test "lesson 04's core and demo: a loop body writes cudaMemcpyAsync, the kernel launch and cudaMemcpyAsync, in that order" {
    [ -d "$ROOT/04_streams_overlap" ] || skip "no lesson 04 in this tree"
    run loop_writes_pipeline "$ROOT/04_streams_overlap/core.c"
    assert_success
    run loop_writes_pipeline "$ROOT/04_streams_overlap/demo.c"
    assert_success
}

@test "function lengths: none over 80; over 40: 01 5, 02 6, 03 7, 04 8, 05 7, the harnesses 4, common/ 3, 40 in all" {
    local d bad="" budget all=()
    declare -A budgets=([01]=5 [02]=6 [03]=7 [04]=8 [05]=7)
    for d in $(list_lessons "$ROOT"); do
        budget="${budgets[${d%%_*}]:-8}"
        local own=()
        mapfile -t own < <(lesson_sources "$ROOT/$d") # one path a line: a checkout path may hold a space
        run "$ROOT/tools/check-functions" --long "$budget" "${own[@]}"
        [ "$status" -eq 0 ] || bad+="$d (own code, $budget allowed):"$'\n'"$output"$'\n'
        all+=("${own[@]}")
    done
    mapfile -t harness < <(find "$ROOT"/[0-9][0-9]_*/harness -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null | sort)
    if [ "${#harness[@]}" -gt 0 ]; then
        run "$ROOT/tools/check-functions" --long 4 "${harness[@]}"
        [ "$status" -eq 0 ] || bad+="the harnesses:"$'\n'"$output"$'\n'
    fi
    mapfile -t common < <(find "$ROOT/common" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
    run "$ROOT/tools/check-functions" --long 3 "${common[@]}"
    [ "$status" -eq 0 ] || bad+="common/:"$'\n'"$output"$'\n'
    run "$ROOT/tools/check-functions" --long 40 "${all[@]}" ${harness[@]+"${harness[@]}"} "${common[@]}"
    [ "$status" -eq 0 ] || bad+="all together:"$'\n'"$(tail -n 1 <<<"$output")"$'\n'
    [ -z "$bad" ] || fail "$bad"
}

@test "each lesson: a FIXME marker in every student file, and each exercise's README.md names them" {
    local d bad=""
    for d in $(list_lessons "$ROOT"); do
        run layout_fixme "$ROOT/$d"
        [ "$status" -eq 0 ] || bad+="$output"$'\n'
    done
    [ -z "$bad" ] || fail "$bad"
}

@test "each exercise's README names every call its allow list refuses by name, and the list refuses each call the README names (and accepts none of them)" {
    local a l e readme listed named bad=""
    for a in "$ROOT"/[0-9][0-9]_*/harness/*/allow; do
        e="$(basename "$(dirname "$a")")"
        l="$(basename "$(dirname "$(dirname "$(dirname "$a")")")")"
        readme="$ROOT/$l/exercises/$e/README.md"
        listed="$(sed -n 's/^# refused: \([^:]*\):.*/\1/p' "$a" | sort)"
        named="$(sed -n '/^Refused in your file/,/^$/s/^- `\([^`]*\)`:.*/\1/p' "$readme" | sort)"
        [ "$listed" = "$named" ] || bad+="$l $e: the allow list refuses [$(echo $listed)], the README names [$(echo $named)]"$'\n'
        for n in $named; do
            ! grep -qx "$n" "$a" || bad+="$l $e: the README says $n is refused, the allow list accepts it"$'\n'
        done
    done
    [ -z "$bad" ] || fail "$bad"
}
