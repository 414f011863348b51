/*
 * peers.h - the peers of the GEMM benchmarks: each shape is compared
 * against the fastest of them, in the same run.  One adapter per library
 * (peer_*.c), each used as its own users use it:
 *
 * - OpenBLAS (peer_openblas.c): linked (cblas_sgemm; sgemv for m or n 1).
 *   These machines set OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) in every
 *   environment, which pins OpenBLAS to the kernels of another CPU;
 *   OpenBLAS reads them when it is loaded, so bench_peers_fair_env
 *   re-executes the benchmark once without them (for its own process only:
 *   tests and CI keep their environment) and with
 *   OPENBLAS_THREAD_TIMEOUT=19 unless set (see bench/gemm/README.md).  The
 *   core OpenBLAS then chose is reported.
 * - BLIS (peer_blis.c): loaded apart with dlopen (libblis.so.4, or
 *   $BENCH_BLIS_LIB), called through its typed API (bli_sgemm), since both
 *   libraries export cblas_sgemm.  Where BLIS does not know the CPU, the
 *   sub-config for the CPU's ISA is chosen, and the report names both.
 * - oneDNN (peer_onednn.c, libdnnl-dev): dnnl_sgemm, and the matmul
 *   primitive with the weights (B) reordered once at creation into the
 *   layout the primitive picks (format "any").
 * - libxsmm (peer_libxsmm.c, libxsmm-dev): a JIT kernel dispatched once
 *   per shape; column-major, so C^T = B^T A^T.  One thread.
 * - XNNPACK (peer_xnnpack.c, libxnnpack-dev): the fully-connected f32
 *   operator, weights packed at creation.
 * - Eigen 3.4 (peer_eigen.cpp, libeigen3-dev): a row-major Map product
 *   (noalias).
 * - ONNX Runtime (peer_ort.c): libonnxruntime.so loaded with dlopen
 *   ($BENCH_ORT_LIB, the build's BENCH_ORT_LIB, or the npm package
 *   onnxruntime-node under ~/.cache/olc-bench), a session per shape over a
 *   one-node MatMul model (onnx_model.c) with B an initializer.
 *
 * A peer the build did not find, or whose library does not load, is
 * skipped and said so; --peers picks some of them.
 */
#ifndef BENCH_GEMM_PEERS_H
#define BENCH_GEMM_PEERS_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_PEER_OPENBLAS 0
#define BENCH_PEER_BLIS 1
#define BENCH_PEER_DNNL_SGEMM 2
#define BENCH_PEER_DNNL_MATMUL 3
#define BENCH_PEER_LIBXSMM 4
#define BENCH_PEER_XNNPACK 5
#define BENCH_PEER_EIGEN 6
#define BENCH_PEER_ORT 7
#define BENCH_PEER_COUNT 8

/* One product C = A x B with fixed operands: row-major, leading dimensions
 * the widths (k, n, n), alpha 1, beta 0; threads the peer may use. */
typedef struct bench_peer_args {
  int64_t m, n, k;
  const float *a, *b;
  float *c;
  int threads;
} bench_peer_args;

/* What every adapter provides. */
typedef struct bench_peer_adapter {
  const char *name; /* as printed: "oneDNN-matmul" */
  const char *key;  /* for --peers: "onednn-matmul" */
  /* Loads the library: 0 with info (version, kernels) written, or -1 with
   * why (the peer is skipped). */
  int (*open)(char *info, size_t info_cap, char *why, size_t why_cap);
  /* The plan of one product (what the library prepares once: a session,
   * a primitive with reordered weights, a JIT kernel): 0, or -1 with why
   * (the peer is skipped for this product). */
  int (*plan)(void **plan, const bench_peer_args *args, char *why, size_t why_cap);
  void (*run)(void *plan);
  void (*free)(void *plan);
} bench_peer_adapter;

/* NULL where the build did not find the library (then why says so). */
const bench_peer_adapter *bench_peer_adapter_get(int which, const char **why);

typedef struct bench_peers {
  int selected[BENCH_PEER_COUNT]; /* asked for (--peers; all by default) */
  int have[BENCH_PEER_COUNT];     /* selected and loaded */
  char info[BENCH_PEER_COUNT][192];
  char why[BENCH_PEER_COUNT][256]; /* why a selected peer is missing */
  int env_fair;                    /* OpenBLAS runs with its own CPU detection */
} bench_peers;

/* A peer's plan for one product, with its adapter. */
typedef struct bench_peer_plan {
  const bench_peer_adapter *ad;
  void *plan;
} bench_peer_plan;

/*
 * Re-executes the program once (execv of /proc/self/exe with argv) with
 * OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed and
 * OPENBLAS_THREAD_TIMEOUT=19 unless already set, so that OpenBLAS, which
 * reads them when it is loaded, picks its own kernels; tool names the
 * program in the warning printed when that fails.  Returns only in the
 * re-executed process (or when re-executing failed).
 */
void bench_peers_fair_env(char **argv, const char *tool);

/* Parses a --peers list ("openblas,onednn-matmul", "all") into
 * selected[]: 0, or -1 with why naming the unknown entry. */
int bench_peers_select(int selected[BENCH_PEER_COUNT], const char *list, char *why, size_t cap);

/* Loads the selected peers (selected NULL: all); never fails (a missing
 * peer is recorded in why[]). */
void bench_peers_open(bench_peers *p, const int *selected);
void bench_peers_close(bench_peers *p);

/* A plan of peer which for args: 0, or -1 with why. */
int bench_peer_plan_make(bench_peer_plan *out, const bench_peers *p, int which,
                         const bench_peer_args *args, char *why, size_t cap);
static inline void bench_peer_plan_run(const bench_peer_plan *pp) { pp->ad->run(pp->plan); }
void bench_peer_plan_free(bench_peer_plan *pp);

const char *bench_peer_name(int which);

/* The peers' lines: what each is (cores, versions) or why it is skipped. */
void bench_peers_describe(const bench_peers *p, char *out, size_t cap);

/* How far c (m x n) lies from A x B in double precision, in units of the
 * float32 bound (k * eps * sum |a||b|): <= 1 passes.  When m*n*k is large,
 * a spread of rows is checked.  NaN when c holds a NaN. */
double bench_peer_check(const bench_peer_args *args, const float *c);

#endif
