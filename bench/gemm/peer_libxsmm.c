/*
 * peer_libxsmm.c - libxsmm (see peers.h): a JIT kernel dispatched once per
 * shape and called per product, as its users call it.  libxsmm is
 * column-major: the row-major C = A B is the column-major C^T = B^T A^T,
 * so the kernel is dispatched for n x m x k and given B, then A.  Its
 * kernels run on the calling thread: one thread only.
 */
#include <libxsmm.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer_adapters.h"

typedef struct xsmm_plan {
  libxsmm_smmfunction kernel;
  const float *a, *b;
  float *c;
} xsmm_plan;

static int xsmm_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  (void)why, (void)why_cap;
  libxsmm_init();
  snprintf(info, info_cap, "%s, target %s", LIBXSMM_VERSION, libxsmm_get_target_arch());
  return 0;
}

static int xsmm_plan_make(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  const libxsmm_blasint m = (libxsmm_blasint)args->n, n = (libxsmm_blasint)args->m,
                        k = (libxsmm_blasint)args->k;
  const libxsmm_blasint lda = m, ldb = k, ldc = m;
  const float alpha = 1.0f, beta = 0.0f;
  xsmm_plan *x;
  if (args->threads != 1) {
    snprintf(why, why_cap, "libxsmm: one thread only (its kernels run on the caller)");
    return -1;
  }
  x = calloc(1, sizeof *x);
  if (x == NULL) {
    snprintf(why, why_cap, "out of memory");
    return -1;
  }
  x->kernel = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, NULL, NULL);
  if (x->kernel == NULL) {
    snprintf(why, why_cap, "libxsmm: no JIT kernel for %ldx%ldx%ld", (long)args->m, (long)args->n,
             (long)args->k);
    free(x);
    return -1;
  }
  x->a = args->a, x->b = args->b, x->c = args->c;
  *plan = x;
  return 0;
}

static void xsmm_run(void *plan) {
  const xsmm_plan *x = plan;
  x->kernel(x->b, x->a, x->c);
}

static void xsmm_free(void *plan) { free(plan); }

const bench_peer_adapter bench_peer_libxsmm = {"libxsmm",      "libxsmm", xsmm_open,
                                               xsmm_plan_make, xsmm_run,  xsmm_free};
