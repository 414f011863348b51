/*
 * peer_openblas.c - OpenBLAS through CBLAS (see peers.h).
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer_adapters.h"

void openblas_set_num_threads(int num_threads);
char *openblas_get_corename(void);
char *openblas_get_config(void);

int bench_peer_plan_args(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  bench_peer_args *p = malloc(sizeof *p);
  if (p == NULL) {
    snprintf(why, why_cap, "out of memory");
    return -1;
  }
  *p = *args;
  *plan = p;
  return 0;
}

void bench_peer_plan_args_free(void *plan) { free(plan); }

static int ob_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  (void)why, (void)why_cap;
  snprintf(info, info_cap, "core %s (%s)", openblas_get_corename(), openblas_get_config());
  return 0;
}

static int ob_plan(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  openblas_set_num_threads(args->threads);
  return bench_peer_plan_args(plan, args, why, why_cap);
}

/* Its gemv when m or n is 1 (what a caller of the library uses for a
 * matrix-vector product: OpenBLAS 0.3.21's gemm runs those shapes several
 * times slower), its gemm otherwise. */
static void ob_run(void *plan) {
  const bench_peer_args *x = plan;
  const int m = (int)x->m, n = (int)x->n, k = (int)x->k;
  if (n == 1)
    cblas_sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, x->a, k, x->b, 1, 0.0f, x->c, 1);
  else if (m == 1)
    cblas_sgemv(CblasRowMajor, CblasTrans, k, n, 1.0f, x->b, n, x->a, 1, 0.0f, x->c, 1);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, x->a, k, x->b, n, 0.0f,
                x->c, n);
}

const bench_peer_adapter bench_peer_openblas = {"OpenBLAS", "openblas", ob_open,
                                                ob_plan,    ob_run,     bench_peer_plan_args_free};
