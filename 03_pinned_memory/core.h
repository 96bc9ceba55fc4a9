/* 03_pinned_memory/core.h - the functions of core.c, the calls the lesson teaches (core.c says
 * what each shows), and the kinds of host memory and directions they take. */
#ifndef PINNED_CORE_H
#define PINNED_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

enum kind { PAGEABLE, PINNED, WRITE_COMBINED, REGISTERED, KINDS };
enum dir { H2D, D2H, DIRS };

/* step 2: the four kinds of host memory, one copy call, and how a copy is timed */
bool host_alloc(enum kind k, size_t bytes, void **p); /* REGISTERED: then pin_in_place */
bool pin_in_place(void *p, size_t bytes);
bool unpin(void *p);
bool host_free(enum kind k, void *p); /* REGISTERED: after unpin */
cudaError_t copy(void *host, void *dev, size_t bytes, enum dir d, cudaStream_t s);
bool start_timing(cudaEvent_t start, cudaStream_t s);
bool stop_timing(cudaEvent_t stop, cudaStream_t s);
bool elapsed_ms(cudaEvent_t start, cudaEvent_t stop, double *ms);

/* step 5: mapped (zero-copy) memory */
bool host_alloc_mapped(size_t bytes, void **host);
bool mapped_pointer(void *host, void **dev);
cudaError_t kernel_pass(const uint32_t *in, uint32_t *out, size_t words, cudaStream_t s);
cudaError_t explicit_pass(const uint32_t *in, uint32_t *out, uint32_t *dev_in, uint32_t *dev_out,
                          size_t words, cudaStream_t s);

/* step 6: both directions at once */
bool copy_both_ways(void *up, void *dev_up, void *down, void *dev_down, size_t bytes,
                    cudaStream_t s_up, cudaStream_t s_down, cudaEvent_t begin,
                    cudaEvent_t down_done);

/* step 7: the same through the Driver API */
bool driver_host_alloc(void **p, size_t bytes, unsigned int flags);
bool driver_pin_in_place(void *p, size_t bytes);
bool driver_mapped_pointer(void *host, CUdeviceptr *dev);
CUresult driver_copy(void *host, CUdeviceptr dev, size_t bytes, enum dir d, CUstream s);
bool driver_unpin(void *p);
bool driver_host_free(void *p);

#endif
