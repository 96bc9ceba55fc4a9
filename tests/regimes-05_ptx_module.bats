#!/usr/bin/env bats
# tests/regimes-05_ptx_module.bats - lesson 05 away from its defaults (GPU only); tests/regimes.bash
# says what a regime asserts.

load test_helper
load regimes

# Short runs (--launches 2000) where the regime is about something else than launch cost.

@test "05_ptx_module: CUDA_CACHE_DISABLE=1 - no JIT cache: a load of the same text compiles again, the cache-hit claim is not judged" {
    run_regime 05_ptx_module CUDA_CACHE_DISABLE=1 -- --launches 2000
    assert_line --partial "CUDA_CACHE_DISABLE   =1: no JIT cache"
    assert_line --partial "but CUDA_CACHE_DISABLE=1: no cache, compiled again"
    assert_line --partial "[n/j]  a JIT cache hit"
}

@test "05_ptx_module: CUDA_MODULE_LOADING=EAGER - reported by cuModuleGetLoadingMode, every claim holds" {
    run_regime 05_ptx_module CUDA_MODULE_LOADING=EAGER -- --launches 2000
    assert_line --partial "CUDA_MODULE_LOADING  =EAGER: eager loading"
}

@test "05_ptx_module: CUDA_MODULE_LOADING=LAZY - the default, named" {
    run_regime 05_ptx_module CUDA_MODULE_LOADING=LAZY -- --launches 2000
    assert_line --partial "CUDA_MODULE_LOADING  =LAZY: lazy loading"
}

@test "05_ptx_module: CUDA_VISIBLE_DEVICES=0 - one device shown, numbered 0" {
    run_regime 05_ptx_module CUDA_VISIBLE_DEVICES=0 -- --launches 2000 --skip-errors
    assert_line --partial "CUDA_VISIBLE_DEVICES =0: the driver shows 1 device(s)"
}

@test "05_ptx_module: --device on every visible GPU" {
    require_gpu
    for d in $(seq 0 $(( $(gpu_count) - 1 ))); do
        run_regime 05_ptx_module -- --device "$d" --launches 2000 --skip-errors
        assert_line --regexp "^   device $d: "
    done
}

@test "05_ptx_module: --launches 1 (the smallest) - the graph claim is not judged, the rest holds" {
    run_regime 05_ptx_module -- --launches 1 --skip-errors
    assert_line --partial "[n/j]  a graph costs less per kernel than launching one by one - not judged here"
}

@test "05_ptx_module: --launches 100000 (the largest) - graphs capped at 20000 launches" {
    run_regime 05_ptx_module -- --launches 100000 --skip-errors
    assert_line --partial "the same 20000 launches, start to finish"
}
