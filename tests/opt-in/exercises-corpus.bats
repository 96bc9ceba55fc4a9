#!/usr/bin/env bats
# The exercise graders against wrong and alternative solutions (GPU): for every exercise, the
# solutions in grading/corpus/NN_name/wrong/ (written the way students get it wrong: a forged
# sentence, a pasted constant, one input size only, a leak, the wrong API) must lose the points
# and those in grading/corpus/NN_name/right/ (correct, written another reasonable way) must get
# them; CORPUS_ROUNDS times each (default 1; the issue's bar is 5 in a row). grading/corpus/corpus
# does the work and prints one line per solution.
# Opt-in (about 3 minutes per round on one H100; make test does not run it):
#     make ARCH=90 && ARCH=90 bats tests/opt-in/exercises-corpus.bats

setup() {
    load ../test_helper
    require_gpu
}

corpus() {
    run env ROUNDS="${CORPUS_ROUNDS:-1}" "$BATS_TEST_DIRNAME/../../grading/corpus/corpus" "$1"
    echo "$output"
    assert_success
    assert_output --regexp "corpus: [1-9][0-9]* variants, 0 not as they must be"
}

@test "01_hello_runtime: every wrong solution loses its points, every alternative gets them" {
    corpus 01_hello_runtime
}

@test "02_driver_context: every wrong solution loses its points, every alternative gets them" {
    corpus 02_driver_context
}

@test "03_pinned_memory: every wrong solution loses its points, every alternative gets them" {
    corpus 03_pinned_memory
}

@test "04_streams_overlap: every wrong solution loses its points, every alternative gets them" {
    corpus 04_streams_overlap
}

@test "05_ptx_module: every wrong solution loses its points, every alternative gets them" {
    corpus 05_ptx_module
}
