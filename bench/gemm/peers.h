/*
 * peers.h - the BLAS peers of the GEMM benchmarks, under one rule: each
 * shape is compared against the faster of OpenBLAS (with its own CPU
 * detection) and BLIS, in the same run.
 *
 * - OpenBLAS: linked (cblas_sgemm).  These machines set OPENBLAS_CORETYPE
 *   (and OPENBLAS_L2_SIZE) in every environment, which pins OpenBLAS to
 *   the kernels of another CPU; OpenBLAS reads them when it is loaded, so
 *   bench_peers_fair_env re-executes the benchmark once without them (for
 *   its own process only: tests and CI keep their environment) and with
 *   OPENBLAS_THREAD_TIMEOUT=19 unless set (see bench/gemm/README.md).
 *   The core OpenBLAS then chose is reported.
 * - BLIS: loaded apart with dlopen (libblis.so.4, or $BENCH_BLIS_LIB),
 *   called through its own typed API (bli_sgemm), since both libraries
 *   export cblas_sgemm.  Benchmark-only (libblis-dev); when it is missing
 *   the peer is skipped and said so.  Where BLIS does not know the CPU
 *   (its own detection falls back to portable kernels), the sub-config
 *   for the CPU's ISA is chosen (peers.c), and the report names both.
 */
#ifndef BENCH_GEMM_PEERS_H
#define BENCH_GEMM_PEERS_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_PEER_OPENBLAS 0
#define BENCH_PEER_BLIS 1
#define BENCH_PEER_COUNT 2

typedef void (*bench_bli_sgemm_fn)(int transa, int transb, int64_t m, int64_t n, int64_t k,
                                   const float *alpha, const float *a, int64_t rs_a, int64_t cs_a,
                                   const float *b, int64_t rs_b, int64_t cs_b, const float *beta,
                                   float *c, int64_t rs_c, int64_t cs_c);

typedef void (*bench_bli_sgemv_fn)(int transa, int conjx, int64_t m, int64_t n, const float *alpha,
                                   const float *a, int64_t rs_a, int64_t cs_a, const float *x,
                                   int64_t incx, const float *beta, float *y, int64_t incy);

typedef struct bench_peers {
  int have[BENCH_PEER_COUNT];
  char openblas_core[64]; /* openblas_get_corename() */
  char openblas_config[160];
  char blis_arch[64]; /* bli_arch_string(bli_arch_query_id()) */
  char blis_version[32];
  char blis_own[32];  /* BLIS's own choice when the bench overrode it */
  char blis_why[256]; /* why BLIS is missing */
  int env_fair;       /* OpenBLAS runs with its own CPU detection */
  void *blis_dl;
  bench_bli_sgemm_fn bli_sgemm;
  bench_bli_sgemv_fn bli_sgemv;
  void (*bli_set_threads)(int64_t n);
} bench_peers;

/*
 * Re-executes the program once (execv of /proc/self/exe with argv) with
 * OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed and
 * OPENBLAS_THREAD_TIMEOUT=19 unless already set, so that OpenBLAS, which
 * reads them when it is loaded, picks its own kernels; tool names the
 * program in the warning printed when that fails.  Returns only in the
 * re-executed process (or when re-executing failed).
 */
void bench_peers_fair_env(char **argv, const char *tool);

/* Loads the peers; never fails (a missing BLIS is recorded in blis_why). */
void bench_peers_open(bench_peers *p);
void bench_peers_close(bench_peers *p);

/* The thread count both peers use from now on. */
void bench_peers_threads(bench_peers *p, int threads);

/* C = alpha * A x B + beta * C, row-major, through peer which: its gemv
 * when m or n is 1 (what a caller of that library uses for a matrix-vector
 * product: OpenBLAS 0.3.21's and BLIS's gemm run those shapes several
 * times slower), its gemm otherwise. */
void bench_peer_sgemm(const bench_peers *p, int which, int64_t m, int64_t n, int64_t k, float alpha,
                      const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                      float *c, int64_t ldc);

const char *bench_peer_name(int which);

/* One line describing the peers (cores, versions, what is missing). */
void bench_peers_describe(const bench_peers *p, char *out, size_t cap);

#endif
