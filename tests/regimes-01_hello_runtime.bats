#!/usr/bin/env bats
# tests/regimes-01_hello_runtime.bats - lesson 01 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

load test_helper
load regimes

# Each variable changes what a step shows, and the lesson checks the changed behaviour:
# launch blocking (steps 5c, 6), eager loading (step 3), a restricted device list (step 2).

@test "01_hello_runtime: CUDA_LAUNCH_BLOCKING=1 (each launch waits for its kernel)" {
    run_regime 01_hello_runtime CUDA_LAUNCH_BLOCKING=1
    assert_line "  [ok]   CUDA_LAUNCH_BLOCKING=1 is in effect: the launch returned only after its kernel had ended"
    assert_line --regexp '^   CUDA_LAUNCH_BLOCKING=1 +1: each launch waits'
}

@test "01_hello_runtime: CUDA_MODULE_LOADING=EAGER (every kernel loads with the context)" {
    run_regime 01_hello_runtime CUDA_MODULE_LOADING=EAGER
    assert_line "  [ok]   the loading mode is the one CUDA_MODULE_LOADING=EAGER asks for"
}

@test "01_hello_runtime: CUDA_VISIBLE_DEVICES=0 (one device, renumbered from 0)" {
    run_regime 01_hello_runtime CUDA_VISIBLE_DEVICES=0
    assert_line --regexp '^   cudaGetDeviceCount -> 1 device\(s\)$'
    assert_line --partial "[ok]   CUDA_VISIBLE_DEVICES lists 1 device(s): the runtime sees no more (1)"
}

@test "01_hello_runtime: --device N on every visible GPU" {
    require_gpu
    local n d
    n="$(gpu_count)"
    for ((d = 0; d < n; d++)); do
        run_regime 01_hello_runtime -- --device "$d"
        assert_line "  [ok]   the primary context of device $d is not active yet"
    done
}

