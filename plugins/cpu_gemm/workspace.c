/*
 * workspace.c - the memory of the drivers: aligned float buffers (huge
 * pages asked for when large) and each thread's workspace, sized for a
 * product and policy before the product runs.
 */
#include <stdint.h>
#include <string.h>

#include "gemm.h"
#include "kernels/kernels.h"
#include "sys.h"

#define CG_HUGE (2u << 20)

float *cg_alloc_floats(size_t count) {
  size_t bytes = count * sizeof(float);
  size_t align = bytes >= CG_HUGE ? CG_HUGE : 64;
  float *p;
  if (count == 0 || count > SIZE_MAX / sizeof(float))
    return NULL;
  bytes = (bytes + align - 1) / align * align;
  p = cg_sys_alloc_aligned(align, bytes);
  /* Packed panels and large matrices are walked with big strides; huge
   * pages keep those walks out of the TLB-miss path.  Advice only. */
  if (p != NULL && bytes >= CG_HUGE)
    cg_sys_advise_huge(p, bytes);
  return p;
}

void cg_free_floats(float *p) { cg_sys_free_aligned(p); }

int cg_ws_reserve(float **buf, size_t *cap, size_t need) {
  float *nb;
  if (*cap >= need)
    return 0;
  nb = cg_alloc_floats(need);
  if (nb == NULL)
    return -1;
  /* Touch it now: page faults belong to setup, not to a timed run. */
  memset(nb, 0, need * sizeof(float));
  cg_free_floats(*buf);
  *buf = nb;
  *cap = need;
  return 0;
}

void cg_workspace_free(cg_workspace *ws) {
  if (ws == NULL)
    return;
  cg_free_floats(ws->a_buf);
  cg_free_floats(ws->b_buf);
  cg_free_floats(ws->edge_b);
  cg_free_floats(ws->c_buf);
  memset(ws, 0, sizeof(*ws));
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static size_t round_up_sz(int64_t v, uint32_t q) {
  return (size_t)((v + (int64_t)q - 1) / (int64_t)q * (int64_t)q);
}

int cg_ws_prepare(cg_workspace *ws, const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  int64_t kc = min64(p->kc, g->k), mc = min64(p->mc, g->m), nc = min64(p->nc, g->n);
  size_t a_need = round_up_sz(mc, ki->mr) * (size_t)kc;
  size_t b_need = round_up_sz(nc, ki->nr) * (size_t)kc;
  size_t bj_need = 2u * ((size_t)ki->nr << p->bj_group) * (size_t)kc;
  if (ki->kind == CG_KIND_MV) /* B's columns, gathered: up to 4 of k floats */
    return cg_ws_reserve(&ws->edge_b, &ws->edge_b_cap, 4u * (size_t)g->k);
  if (ki->kind == CG_KIND_VM) /* C relocated, when it is (the layout decides) */
    return g->m <= 4 ? cg_ws_reserve(&ws->c_buf, &ws->c_cap, CG_VM_C_FLOATS(g->n)) : 0;
  if (ki->kind != CG_KIND_TILE)
    return 0;
  if ((p->pack & CG_PACK_A) && cg_ws_reserve(&ws->a_buf, &ws->a_cap, a_need) != 0)
    return -1;
  if ((p->pack & CG_PACK_B) && cg_ws_reserve(&ws->b_buf, &ws->b_cap, b_need) != 0)
    return -1;
  if ((p->pack & CG_PACK_BJ) && cg_ws_reserve(&ws->edge_b, &ws->edge_b_cap, bj_need) != 0)
    return -1;
  return 0;
}

int cg_gemm_reserve(const cg_shape *shape, const cg_policy *policy, uint32_t threads,
                    cg_workspace *ws) {
  cg_gemm_args g;
  memset(&g, 0, sizeof(g));
  g.m = shape->m, g.n = shape->n, g.k = shape->k;
  if (g.m <= 0 || g.n <= 0 || g.k <= 0)
    return 0;
  /* The thin drivers use one workspace, the blocked one one a thread. */
  if (cg_kernel_table[policy->kernel].kind != CG_KIND_TILE)
    threads = 1;
  for (uint32_t i = 0; i < threads; i++) {
    if (cg_ws_prepare(&ws[i], &g, policy) != 0)
      return -1;
  }
  return 0;
}
