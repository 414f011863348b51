/*
 * peer_adapters.h - the adapters of peers.c's table (one file each).
 */
#ifndef BENCH_GEMM_PEER_ADAPTERS_H
#define BENCH_GEMM_PEER_ADAPTERS_H

#include "peers.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const bench_peer_adapter bench_peer_openblas;
extern const bench_peer_adapter bench_peer_blis;
extern const bench_peer_adapter bench_peer_dnnl_sgemm;
extern const bench_peer_adapter bench_peer_dnnl_matmul;
extern const bench_peer_adapter bench_peer_libxsmm;
extern const bench_peer_adapter bench_peer_xnnpack;
extern const bench_peer_adapter bench_peer_eigen;
extern const bench_peer_adapter bench_peer_ort;

/* BLIS 0.9 does not know every CPU (AMD family 26) and then runs its
 * portable kernels: in the first process, sets BLIS_ARCH_TYPE for the
 * re-executed one (peer_blis.c). */
void bench_peer_blis_arch_env(void);

/* A plan that only records its arguments (the BLAS-style peers). */
int bench_peer_plan_args(void **plan, const bench_peer_args *args, char *why, size_t why_cap);
void bench_peer_plan_args_free(void *plan);

#ifdef __cplusplus
}
#endif

#endif
