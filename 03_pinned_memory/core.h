/* 03_pinned_memory/core.h - the functions of core.c (it says what each shows), the kinds of host
 * memory and the directions they take, and the kernels' launchers (kernels.cu). */
#ifndef PINNED_CORE_H
#define PINNED_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

enum kind { PAGEABLE, PINNED, WRITE_COMBINED, REGISTERED, KINDS };
enum dir { H2D, D2H, DIRS };

/* the four kinds of host memory (REGISTERED: malloc'd, touched, then pinned by cudaHostRegister),
 * and mapped memory (cudaHostAllocMapped, cudaHostRegisterMapped) with its device address */
cudaError_t host_alloc(enum kind k, size_t bytes, unsigned int flags, void **p); /* flags: 0 */
cudaError_t host_free(enum kind k, void *p); /* REGISTERED: cudaHostUnregister, then free */
cudaError_t mapped_alloc(enum kind k, size_t bytes, void **host, void **dev); /* not PAGEABLE */

/* copies between two events, timed on the GPU; how long the call keeps the host */
bool timed_copies(void *host, void *dev, size_t bytes, enum dir d, int count, cudaStream_t s,
                  cudaEvent_t start, cudaEvent_t stop);
bool copies_ms(cudaEvent_t start, cudaEvent_t stop, float *ms);
bool call_ms(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s,
             double *returned_ms, double *done_ms);

/* mapped (zero-copy) memory against explicit copies */
bool mapped_pass(const uint32_t *host_in, uint32_t *host_out, size_t words, cudaStream_t s);
bool explicit_pass(const uint32_t *in, uint32_t *out, uint32_t *dev_in, uint32_t *dev_out,
                   size_t words, cudaStream_t s);

/* both directions at once */
bool copy_both_ways(void *up, void *dev_up, void *down, void *dev_down, size_t bytes,
                    cudaStream_t s_up, cudaStream_t s_down, cudaEvent_t begin,
                    cudaEvent_t down_done);

/* the Driver API's pinned memory: cuMemHostAlloc, or malloc + cuMemHostRegister (in_place) */
CUresult driver_host_alloc(void **p, size_t bytes, unsigned int flags, bool in_place);
CUresult driver_host_free(void *p, bool in_place);

/* kernels.cu */
cudaError_t launch_fill_pattern(uint32_t *data, size_t n, uint32_t seed, cudaStream_t stream);
cudaError_t launch_count_mismatches(const uint32_t *data, size_t n, uint32_t seed,
                                    unsigned long long *bad, cudaStream_t stream);
cudaError_t launch_spin(unsigned long long ns, cudaStream_t stream);
cudaError_t launch_triple_plus_one(const uint32_t *in, uint32_t *out, size_t n,
                                   cudaStream_t stream);
cudaError_t preload_kernels(void); /* every kernel loaded now, not inside a held gate */

#endif
