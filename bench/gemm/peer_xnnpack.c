/*
 * peer_xnnpack.c - XNNPACK (see peers.h): the fully-connected f32 operator
 * with the weights packed when it is created, set up once for the
 * product's operands and run per call.  B is k x n (input channels x
 * output channels), which XNNPACK takes with XNN_FLAG_TRANSPOSE_WEIGHTS.
 * One thread runs without a thread pool; more get a pthreadpool of that
 * size.
 */
#include <math.h>
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <xnnpack.h>

#include "peer_adapters.h"

typedef struct xnn_plan {
  xnn_operator_t op;
  pthreadpool_t pool;
} xnn_plan;

static int xnn_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  if (xnn_initialize(NULL) != xnn_status_success) {
    snprintf(why, why_cap, "XNNPACK: xnn_initialize failed (unsupported CPU)");
    return -1;
  }
  snprintf(info, info_cap, "fully-connected f32, weights packed at creation");
  return 0;
}

static void xnn_free(void *plan) {
  xnn_plan *x = plan;
  if (x == NULL)
    return;
  if (x->op != NULL)
    xnn_delete_operator(x->op);
  if (x->pool != NULL)
    pthreadpool_destroy(x->pool);
  free(x);
}

static int xnn_plan_make(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  xnn_plan *x = calloc(1, sizeof *x);
  if (x == NULL) {
    snprintf(why, why_cap, "out of memory");
    return -1;
  }
  if (args->threads > 1 && (x->pool = pthreadpool_create((size_t)args->threads)) == NULL) {
    snprintf(why, why_cap, "XNNPACK: no thread pool");
    goto fail;
  }
  if (xnn_create_fully_connected_nc_f32((size_t)args->k, (size_t)args->n, (size_t)args->k,
                                        (size_t)args->n, args->b, NULL, -INFINITY, INFINITY,
                                        XNN_FLAG_TRANSPOSE_WEIGHTS, &x->op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(x->op, (size_t)args->m, args->a, args->c, x->pool) !=
          xnn_status_success) {
    snprintf(why, why_cap, "XNNPACK: no fully-connected operator for %ldx%ldx%ld", (long)args->m,
             (long)args->n, (long)args->k);
    goto fail;
  }
  *plan = x;
  return 0;
fail:
  xnn_free(x);
  return -1;
}

static void xnn_run(void *plan) {
  xnn_plan *x = plan;
  (void)xnn_run_operator(x->op, x->pool);
}

const bench_peer_adapter bench_peer_xnnpack = {"XNNPACK",     "xnnpack", xnn_open,
                                               xnn_plan_make, xnn_run,   xnn_free};
