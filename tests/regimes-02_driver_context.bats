#!/usr/bin/env bats
# tests/regimes-02_driver_context.bats - lesson 02 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

load test_helper
load regimes

# Lesson 02 compares every figure with one measured in the same run (a context's cost with a
# push + pop pair, the memory it gives back with what it took, the stack reservation with the
# device's SMs x threads), so the regimes move the device, the rounds and the visible GPUs.

@test "02_driver_context: --device N on every visible GPU" {
    require_gpu
    local n d
    n="$(gpu_count)"
    for ((d = 0; d < n; d++)); do
        run_regime 02_driver_context -- --device "$d" --repeat 1
        assert_line --partial "   steps 2 to 6 use device $d,"
    done
}

@test "02_driver_context: --repeat 1, the fewest create/destroy rounds" {
    run_regime 02_driver_context -- --repeat 1
    assert_line "   1 rounds of create + destroy, watched from ctxA with cuMemGetInfo:"
}

@test "02_driver_context: --repeat 50, the most create/destroy rounds" {
    run_regime 02_driver_context -- --repeat 50
    assert_line "   50 rounds of create + destroy, watched from ctxA with cuMemGetInfo:"
}

@test "02_driver_context: CUDA_VISIBLE_DEVICES=0 - one GPU, step 8 not judged and why" {
    run_regime 02_driver_context CUDA_VISIBLE_DEVICES=0 -- --repeat 1
    assert_line --regexp '^     CUDA_VISIBLE_DEVICES = 0 '
    assert_line "  [ok]   CUDA_VISIBLE_DEVICES lists 1 entry and the driver shows 1 device(s): no more than listed"
    run grep -c -F -- "- not judged here: one GPU is visible; this needs two" <<<"$output"
    assert_output 4
}
