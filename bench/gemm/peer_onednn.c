/*
 * peer_onednn.c - oneDNN (see peers.h): dnnl_sgemm, and the matmul
 * primitive as inference runtimes use it: weights described with format
 * "any", so the primitive picks their layout, and reordered into it once
 * when the primitive is made; each call then executes the primitive.
 *
 * Debian's oneDNN runs on OpenMP: its thread count is OpenMP's, set from
 * the thread that calls it.
 */
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_adapters.h"

static struct {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  void (*omp_set_num_threads)(int);
} dnnl;

static void dnnl_threads(int threads) {
  if (dnnl.omp_set_num_threads != NULL)
    dnnl.omp_set_num_threads(threads);
}

static const char *isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
  case dnnl_cpu_isa_avx2:
    return "avx2";
  case dnnl_cpu_isa_avx512_core:
    return "avx512_core";
  case dnnl_cpu_isa_avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl_cpu_isa_avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl_cpu_isa_avx2_vnni:
    return "avx2_vnni";
  default:
    return NULL;
  }
}

static int dnnl_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  const dnnl_version_t *v = dnnl_version();
  const char *isa = isa_name(dnnl_get_effective_cpu_isa());
  if (dnnl.engine == NULL) {
    if (dnnl_engine_create(&dnnl.engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&dnnl.stream, dnnl.engine, dnnl_stream_default_flags) != dnnl_success) {
      snprintf(why, why_cap, "oneDNN: no CPU engine");
      return -1;
    }
    /* libdnnl links libgomp: its omp_set_num_threads is in the process. */
    *(void **)&dnnl.omp_set_num_threads = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
  }
  if (isa != NULL)
    snprintf(info, info_cap, "%d.%d.%d, isa %s", v->major, v->minor, v->patch, isa);
  else
    snprintf(info, info_cap, "%d.%d.%d, isa 0x%x", v->major, v->minor, v->patch,
             (unsigned)dnnl_get_effective_cpu_isa());
  return 0;
}

static int sgemm_plan(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  dnnl_threads(args->threads);
  return bench_peer_plan_args(plan, args, why, why_cap);
}

static void sgemm_run(void *plan) {
  const bench_peer_args *x = plan;
  (void)dnnl_sgemm('N', 'N', x->m, x->n, x->k, 1.0f, x->a, x->k, x->b, x->n, 0.0f, x->c, x->n);
}

const bench_peer_adapter bench_peer_dnnl_sgemm = {
    "oneDNN-sgemm", "onednn-sgemm", dnnl_open, sgemm_plan, sgemm_run, bench_peer_plan_args_free};

/* ---- the matmul primitive ---- */
typedef struct mm_plan {
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, dst;
  dnnl_exec_arg_t args[3];
} mm_plan;

static void mm_free(void *p) {
  mm_plan *x = p;
  if (x == NULL)
    return;
  dnnl_primitive_destroy(x->prim);
  dnnl_memory_destroy(x->src);
  dnnl_memory_destroy(x->wei);
  dnnl_memory_destroy(x->dst);
  free(x);
}

/* B (k x n, row-major) reordered into the layout the primitive chose. */
static int mm_reorder_weights(mm_plan *x, const dnnl_memory_desc_t *user_md,
                              const dnnl_memory_desc_t *want, const float *b) {
  dnnl_memory_t user = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t reorder = NULL;
  int rc = -1;
  if (dnnl_memory_create(&user, user_md, dnnl.engine, (void *)(uintptr_t)b) != dnnl_success ||
      dnnl_memory_create(&x->wei, want, dnnl.engine, DNNL_MEMORY_ALLOCATE) != dnnl_success ||
      dnnl_reorder_primitive_desc_create(&rpd, user_md, dnnl.engine, want, dnnl.engine, NULL) !=
          dnnl_success ||
      dnnl_primitive_create(&reorder, rpd) != dnnl_success)
    goto done;
  {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, x->wei}};
    if (dnnl_primitive_execute(reorder, dnnl.stream, 2, args) != dnnl_success ||
        dnnl_stream_wait(dnnl.stream) != dnnl_success)
      goto done;
  }
  rc = 0;
done:
  dnnl_primitive_destroy(reorder);
  dnnl_primitive_desc_destroy(rpd);
  dnnl_memory_destroy(user);
  return rc;
}

static int mm_plan_make(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  const dnnl_dims_t a_dims = {args->m, args->k}, b_dims = {args->k, args->n},
                    c_dims = {args->m, args->n};
  dnnl_memory_desc_t a_md, b_user_md, b_any_md, c_md;
  dnnl_matmul_desc_t desc;
  dnnl_primitive_desc_t pd = NULL;
  mm_plan *x = calloc(1, sizeof *x);
  if (x == NULL) {
    snprintf(why, why_cap, "out of memory");
    return -1;
  }
  dnnl_threads(args->threads);
  if (dnnl_memory_desc_init_by_tag(&a_md, 2, a_dims, dnnl_f32, dnnl_ab) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&b_user_md, 2, b_dims, dnnl_f32, dnnl_ab) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&b_any_md, 2, b_dims, dnnl_f32, dnnl_format_tag_any) !=
          dnnl_success ||
      dnnl_memory_desc_init_by_tag(&c_md, 2, c_dims, dnnl_f32, dnnl_ab) != dnnl_success ||
      dnnl_matmul_desc_init(&desc, &a_md, &b_any_md, NULL, &c_md) != dnnl_success ||
      dnnl_primitive_desc_create(&pd, &desc, NULL, dnnl.engine, NULL) != dnnl_success ||
      dnnl_primitive_create(&x->prim, pd) != dnnl_success) {
    snprintf(why, why_cap, "oneDNN: no matmul primitive for %ldx%ldx%ld", (long)args->m,
             (long)args->n, (long)args->k);
    goto fail;
  }
  if (mm_reorder_weights(x, &b_user_md, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                         args->b) != 0) {
    snprintf(why, why_cap, "oneDNN: reordering the weights failed");
    goto fail;
  }
  if (dnnl_memory_create(&x->src, &a_md, dnnl.engine, (void *)(uintptr_t)args->a) != dnnl_success ||
      dnnl_memory_create(&x->dst, &c_md, dnnl.engine, args->c) != dnnl_success) {
    snprintf(why, why_cap, "oneDNN: memory objects");
    goto fail;
  }
  dnnl_primitive_desc_destroy(pd);
  x->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, x->src};
  x->args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, x->wei};
  x->args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, x->dst};
  *plan = x;
  return 0;
fail:
  dnnl_primitive_desc_destroy(pd);
  mm_free(x);
  return -1;
}

static void mm_run(void *plan) {
  mm_plan *x = plan;
  (void)dnnl_primitive_execute(x->prim, dnnl.stream, 3, x->args);
  (void)dnnl_stream_wait(dnnl.stream);
}

const bench_peer_adapter bench_peer_dnnl_matmul = {"oneDNN-matmul", "onednn-matmul", dnnl_open,
                                                   mm_plan_make,    mm_run,          mm_free};
