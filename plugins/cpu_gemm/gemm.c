/*
 * gemm.c - the blocked driver (tile kernels) and the entry that dispatches
 * to it or to the thin drivers.
 *
 * Loop order (per thread, over its share of C):
 *   for jc in N step NC            B panel KC x NC packed -> L3
 *     for pc in K step KC
 *       pack B (or only its edge panel when B is read in place)
 *       for ic in M step MC        A block MC x KC packed -> L2
 *         pack A (or only its edge micro-panel)
 *         for jr in NC step NR     B micro-panel -> L1
 *           for ir in MC step MR   micro-kernel on one MR x NR tile of C
 * The first KC slice applies the caller's beta (0: C overwritten, not
 * read), later ones accumulate.  Kernels handle partial tiles themselves
 * (row count specialised, columns masked, B too when read in place), so an
 * unpacked operand is never copied.
 * When all rows fit one A block (skinny M) the NC and KC loops swap, and
 * with pack = abj[G] the kernels pack B themselves, G micro-panels ahead
 * (macro_block_bjg): B streams from DRAM once, under the arithmetic.
 *
 * General mode (args.general, pb or bias set: general.c) runs the same
 * loops through cg_gemm_blocked, with the operands packed through their
 * views, a constant B's panels read in place of the packed block
 * (constant.c) and the bias stored into each strip of C right before the
 * first KC slice's kernels run there with beta 1 (gen set in the block).
 */
#include "gemm.h"

#include <stdint.h>
#include <string.h>

#include "kernels/kernels.h"
#include "pack.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/*
 * A software-prefetch stream over the next B block (rows x cols of the
 * source), spread evenly over the micro-kernel calls of the current block:
 * the lines come from memory into L2/L3 while the FMA units are busy, so
 * the next packing reads cache instead of waiting on DRAM.
 */
typedef struct pf_stream {
  const char *row;                                          /* current row */
  int64_t row_bytes_stride, rows_left, lines_per_row, line; /* line: next line in row */
  int64_t per_call;
} pf_stream;

static void pf_init(pf_stream *pf, const float *base, int64_t ld, int64_t rows, int64_t cols,
                    int64_t calls) {
  int64_t total;
  pf->row = (const char *)base;
  pf->row_bytes_stride = ld * (int64_t)sizeof(float);
  pf->rows_left = rows;
  pf->lines_per_row = (cols * (int64_t)sizeof(float) + 63) / 64;
  pf->line = 0;
  total = rows * pf->lines_per_row;
  pf->per_call = calls > 0 ? (total + calls - 1) / calls : total;
}

/* Issues the next per_call prefetches (no division: walked row by row). */
static inline void pf_step(pf_stream *pf) {
  for (int64_t i = 0; i < pf->per_call && pf->rows_left > 0; i++) {
    __builtin_prefetch(pf->row + pf->line * 64, 0, 1);
    if (++pf->line == pf->lines_per_row) {
      pf->line = 0;
      pf->row += pf->row_bytes_stride;
      pf->rows_left--;
    }
  }
}

/* The state of one (jc, pc, ic) block shared by the inner loops. */
typedef struct blk {
  const cg_kernel_info *ki;
  const cg_gemm_args *g;
  const cg_policy *p;
  cg_workspace *ws;
  int64_t pc, kcur;
  pf_stream *pf; /* NULL: nothing to prefetch */
  /* The B block the driver runs after this one (grouped pack_bj packs its
   * first panels ahead): top-left source, rows, columns; NULL: none. */
  const float *nx_src;
  int64_t nx_rows, nx_cols;
  /* Whole-panel B packed by the kernels while the first A block runs:
   * only its first micro-panel (and a ragged last one) is packed before. */
  int b_by_kernels;
  /* The packed B block the kernels read (pack = b): the workspace's, or
   * the block's panels in a constant packed once (args.pb). */
  const float *bpack;
  /* The first KC slice's beta: the caller's, or 1 over a bias already
   * stored in C (bias: set in general mode only, see general.c). */
  float beta0;
  const cg_view *bias;
  int gen; /* general mode: operands through views, packed B, bias */
  /* A constant B packed once: the address past its last byte (the limit
   * of what the kernels fetch ahead); 0: none. */
  uintptr_t pb_end;
} blk;

/*
 * A constant B packed once and larger than CG_CONST_PF_MIN bytes: the
 * first kernel call on each micro-panel fetches, while it runs, the
 * stretch of the pack as long as that micro-panel lying CG_CONST_PF_AHEAD
 * bytes ahead, as CG_CONST_PF_SEGS streams side by side.  The packs are
 * one contiguous run, which the hardware prefetchers follow as one
 * stream; with more streams in flight memory delivers more per core (the
 * few-row products are bound by reading B).  bench/runtime/README.md has
 * the measurements behind the numbers.
 */
#define CG_CONST_PF_AHEAD (256 << 10)
#define CG_CONST_PF_SEGS 2

/* The next group grouped pack_bj packs ahead: kc x width at src. */
typedef struct bj_group {
  const float *src;
  int64_t rows, width;
} bj_group;

/* A call's share [lo, hi) of n rows spread over t_count calls. */
static int64_t share(int64_t n, int64_t t, int64_t t_count) { return n * t / t_count; }

/* The group packed under the one at src (left columns of the block from
 * it on, w wide), and the one after (prefetched by the last calls); only
 * whole panels are copied by the kernels, so next.src is NULL for a
 * ragged next group: it is packed when it is reached. */
static void bj_plan(const blk *x, const float *src, int64_t left, int64_t w, bj_group *next,
                    bj_group *after) {
  const int64_t kc = x->kcur;
  *next = (bj_group){NULL, 0, 0};
  *after = (bj_group){NULL, 0, 0};
  if (w < left) {
    *next = (bj_group){src + w, kc, min64(w, left - w)};
    if (2 * w < left)
      *after = (bj_group){src + 2 * w, kc, min64(w, left - 2 * w)};
    else if (x->nx_src != NULL)
      *after = (bj_group){x->nx_src, x->nx_rows, min64(w, x->nx_cols)};
  } else if (x->nx_src != NULL) {
    *next = (bj_group){x->nx_src, x->nx_rows, min64(w, x->nx_cols)};
  }
  if (next->src != NULL && next->width % (int64_t)x->ki->nr != 0)
    next->src = NULL;
}

/* Call t of t_count copies its share of the rows of next into nxt and
 * prefetches the share of the next call: of this group, or the first
 * share of the group after it (the kernel prefetches with the copy's
 * geometry, so only a group of the same width). */
static cg_copy_job bj_job(const bj_group *next, const bj_group *after, int64_t ldb, float *nxt,
                          int64_t nr, int64_t t, int64_t t_count) {
  const int64_t lo = share(next->rows, t, t_count), hi = share(next->rows, t + 1, t_count);
  cg_copy_job job = {next->src + lo * ldb,
                     ldb,
                     nxt + lo * nr,
                     next->rows * nr,
                     hi - lo,
                     next->width / nr,
                     NULL,
                     0};
  if (t + 1 < t_count) {
    job.pf = next->src + hi * ldb, job.pf_rows = share(next->rows, t + 2, t_count) - hi;
  } else if (after->src != NULL && after->width % nr == 0 && after->width == next->width) {
    job.pf = after->src, job.pf_rows = share(after->rows, 1, t_count);
  }
  return job;
}

/*
 * pack = abj with packed A and a copying kernel: B is packed G panels at
 * a time by the kernels themselves.  While the panels of one group are
 * used, every call copies its share of the rows of the next group (G
 * pieces of a row each, one source read of G * NR floats) and prefetches
 * the share of the call after it, so the DRAM stream of B runs under the
 * arithmetic.  The next group may belong to the next block (x->nx_src).
 */
static void macro_block_bjg(const blk *x, int64_t ic, int64_t mcur, int64_t jc, int64_t ncur) {
  const cg_gemm_args *g = x->g;
  cg_workspace *ws = x->ws;
  const uint32_t mr = x->ki->mr, nr = x->ki->nr;
  const int64_t gp = (int64_t)1 << x->p->bj_group, w = gp * nr;
  const int64_t n_ir = (mcur + mr - 1) / mr, kc = x->kcur;
  const int64_t half = gp * nr * min64(x->p->kc, g->k);
  const float beta = x->pc > 0 ? 1.0f : g->beta, alpha = g->alpha;
  for (int64_t jg = 0; jg < ncur; jg += w) {
    const int64_t gw = min64(w, ncur - jg), panels = (gw + nr - 1) / nr;
    const int64_t t_count = panels * n_ir;
    const float *src = g->b + x->pc * g->ldb + jc + jg;
    float *cur = ws->edge_b + ws->bj_cur * half, *nxt = ws->edge_b + (ws->bj_cur ^ 1) * half;
    bj_group next, after;
    if (!(ws->bj_ready && ws->bj_src == src && ws->bj_rows == kc && ws->bj_width == gw))
      cg_pack_b(cur, src, g->ldb, kc, gw, nr);
    ws->bj_ready = 0;
    bj_plan(x, src, ncur - jg, w, &next, &after);
    for (int64_t j = 0; j < panels; j++) {
      const float *b = cur + j * kc * nr;
      const int64_t cols = min64(nr, gw - j * nr);
      for (int64_t ir = 0; ir < mcur; ir += mr) {
        const int64_t rows = min64(mr, mcur - ir), t = j * n_ir + ir / mr;
        float *c = g->c + (ic + ir) * g->ldc + jc + jg + j * nr;
        const float *a = ws->a_buf + ir * kc;
        if (next.src != NULL) {
          const cg_copy_job job = bj_job(&next, &after, g->ldb, nxt, nr, t, t_count);
          x->ki->packed_copy(rows, cols, kc, alpha, a, b, beta, c, g->ldc, &job);
        } else {
          x->ki->packed(rows, cols, kc, alpha, a, 1, mr, b, nr, beta, c, g->ldc);
        }
      }
    }
    if (next.src != NULL) {
      ws->bj_ready = 1, ws->bj_src = next.src, ws->bj_rows = next.rows;
      ws->bj_width = next.width, ws->bj_cur ^= 1;
    }
  }
}

/*
 * The first A block of a whole-panel B (pack = ab with a copying kernel):
 * while micro-panel j is used, every call copies its share of the rows of
 * micro-panel j + 1 into the packed panel and prefetches the share of the
 * call after it, so B streams from memory under the arithmetic instead of
 * in a packing pass of its own.  The later A blocks read the packed panel.
 */
static void macro_block_bcopy(const blk *x, int64_t ic, int64_t mcur, int64_t jc, int64_t ncur) {
  const cg_gemm_args *g = x->g;
  const uint32_t mr = x->ki->mr, nr = x->ki->nr;
  const int64_t n_ir = (mcur + mr - 1) / mr, kc = x->kcur, full = ncur / nr;
  const float beta = x->pc > 0 ? 1.0f : g->beta, alpha = g->alpha;
  const float *src = g->b + x->pc * g->ldb + jc;
  float *b_buf = x->ws->b_buf;
  for (int64_t j = 0; j * nr < ncur; j++) {
    const float *b = b_buf + j * kc * nr;
    const int64_t cols = min64(nr, ncur - j * nr);
    for (int64_t t = 0; t < n_ir; t++) {
      const int64_t rows = min64(mr, mcur - t * mr);
      const float *a = x->ws->a_buf + t * mr * kc;
      float *c = g->c + (ic + t * mr) * g->ldc + jc + j * nr;
      const float *next;
      int64_t lo, hi;
      cg_copy_job job;
      if (j + 1 >= full) {
        /* Nothing left to copy (a ragged last panel was packed before). */
        x->ki->packed(rows, cols, kc, alpha, a, 1, mr, b, nr, beta, c, g->ldc);
        continue;
      }
      next = src + (j + 1) * nr;
      lo = share(kc, t, n_ir), hi = share(kc, t + 1, n_ir);
      job.src = next + lo * g->ldb, job.ld_src = g->ldb;
      job.dst = b_buf + (j + 1) * kc * nr + lo * nr, job.ld_dst = kc * nr;
      job.rows = hi - lo, job.group = 1;
      job.pf = NULL, job.pf_rows = 0;
      if (t + 1 < n_ir)
        job.pf = next + hi * g->ldb, job.pf_rows = share(kc, t + 2, n_ir) - hi;
      else if (j + 2 < full)
        job.pf = next + nr, job.pf_rows = share(kc, 1, n_ir);
      x->ki->packed_copy(rows, cols, kc, alpha, a, b, beta, c, g->ldc, &job);
    }
  }
}

/* The jr/ir loops over one mcur x ncur block of C. */
static void macro_block(const blk *x, int64_t ic, int64_t mcur, int64_t jc, int64_t ncur) {
  const cg_gemm_args *g = x->g;
  const uint32_t mr = x->ki->mr, nr = x->ki->nr;
  const int pack_a = (x->p->pack & CG_PACK_A) != 0, pack_b = (x->p->pack & CG_PACK_B) != 0;
  const int pack_bj = (x->p->pack & CG_PACK_BJ) != 0;
  const int64_t n_ir = (mcur + mr - 1) / mr;
  const int64_t kc = x->kcur;
  const float beta = x->pc > 0 ? 1.0f : x->beta0;
  if (pack_a && pack_bj && x->ki->packed_copy != NULL) {
    macro_block_bjg(x, ic, mcur, jc, ncur);
    return;
  }
  if (x->b_by_kernels) {
    macro_block_bcopy(x, ic, mcur, jc, ncur);
    return;
  }
  for (int64_t jr = 0; jr < ncur; jr += nr) {
    int64_t cols = min64(nr, ncur - jr);
    const float *b;
    int64_t rs_b;
    const float *next = NULL;          /* source of the next panel, for pack_bj */
    if (x->bias != NULL && x->pc == 0) /* this strip's first store: beta * bias */
      cg_bias_fill(g->c + ic * g->ldc + jc + jr, g->ldc, x->bias, ic, jc + jr, mcur, cols, g->beta);
    if (pack_b) {
      b = x->bpack + jr * kc, rs_b = nr;
    } else if (pack_bj && x->gen) {
      if (g->general & CG_GENERAL_B)
        cg_pack_b_view(x->ws->edge_b, &g->bv, x->pc, jc + jr, kc, cols, nr);
      else
        cg_pack_b(x->ws->edge_b, g->b + x->pc * g->ldb + jc + jr, g->ldb, kc, cols, nr);
      b = x->ws->edge_b, rs_b = nr;
    } else if (pack_bj) {
      /* Without a copying kernel: pack each panel right before use. */
      const float *src = g->b + x->pc * g->ldb + jc + jr;
      cg_pack_b(x->ws->edge_b, src, g->ldb, kc, cols, nr);
      b = x->ws->edge_b, rs_b = nr;
      if (jr + nr < ncur)
        next = src + nr;
    } else {
      /* In place; the kernel masks the columns past the edge. */
      b = g->b + x->pc * g->ldb + jc + jr, rs_b = g->ldb;
    }
    for (int64_t ir = 0; ir < mcur; ir += mr) {
      int64_t rows = min64(mr, mcur - ir);
      float *c = g->c + (ic + ir) * g->ldc + jc + jr;
      const float *a;
      int64_t rs_a, cs_a;
      cg_ukernel_fn fn;
      if (next != NULL) {
        /* Spread the next panel's kc source lines over this panel's
         * micro-kernel calls so they arrive while we compute. */
        int64_t q = ir / mr, lo = kc * q / n_ir, hi = kc * (q + 1) / n_ir;
        for (int64_t pp = lo; pp < hi; pp++)
          __builtin_prefetch(next + pp * g->ldb, 0, 3);
      }
      if (pack_a) {
        a = x->ws->a_buf + ir * kc, rs_a = 1, cs_a = mr;
      } else {
        /* Kernels read only the rows they are given: no edge copy. */
        a = g->a + (ic + ir) * g->lda + x->pc, rs_a = g->lda, cs_a = 1;
      }
      fn = pack_a && (pack_b || pack_bj) ? x->ki->packed : x->ki->general;
      if (x->pf != NULL)
        pf_step(x->pf);
      if (ir == 0 && pack_a && x->pb_end != 0 && x->ki->packed_pf != NULL) {
        cg_pf_job pj;
        const int64_t bytes = kc * nr * (int64_t)sizeof(float);
        pj.base = (uintptr_t)b + (uintptr_t)CG_CONST_PF_AHEAD;
        pj.end = x->pb_end;
        pj.segs = CG_CONST_PF_SEGS;
        pj.len = (bytes / CG_CONST_PF_SEGS + 63) / 64 * 64;
        pj.stride = pj.len;
        if (pj.base < pj.end) {
          x->ki->packed_pf(rows, cols, kc, g->alpha, a, b, beta, c, g->ldc, &pj);
          continue;
        }
      }
      fn(rows, cols, kc, g->alpha, a, rs_a, cs_a, b, rs_b, beta, c, g->ldc);
    }
  }
}

/*
 * Prepares B for the block (pc, jc): packs it (whole-panel mode) and aims
 * the prefetch stream at the block that will be packed next.
 */
static void stage_b(blk *x, pf_stream *pf, int64_t jc, int64_t ncur, int64_t rows_c,
                    int64_t next_pc, int64_t next_jc, int64_t next_ncur) {
  const cg_gemm_args *g = x->g;
  const cg_policy *p = x->p;
  const uint32_t mr = x->ki->mr, nr = x->ki->nr;
  x->pf = NULL;
  x->b_by_kernels = 0;
  x->bpack = x->ws != NULL ? x->ws->b_buf : NULL;
  if (p->pack & CG_PACK_B) {
    int64_t calls = (rows_c + mr - 1) / mr * ((ncur + nr - 1) / nr);
    const float *src = g->b + x->pc * g->ldb + jc;
    if ((p->pack & CG_PACK_A) && x->ki->packed_copy != NULL && ncur > (int64_t)nr) {
      /* The kernels pack the rest while the first A block runs. */
      const int64_t full = ncur / nr;
      x->b_by_kernels = 1;
      cg_pack_b(x->ws->b_buf, src, g->ldb, x->kcur, nr, nr);
      if (ncur % nr != 0)
        cg_pack_b(x->ws->b_buf + full * nr * x->kcur, src + full * nr, g->ldb, x->kcur, ncur % nr,
                  nr);
    } else {
      cg_pack_b(x->ws->b_buf, src, g->ldb, x->kcur, ncur, nr);
    }
    if (next_pc >= 0) {
      pf_init(pf, g->b + next_pc * g->ldb + next_jc, g->ldb, min64(p->kc, g->k - next_pc),
              next_ncur, calls);
      x->pf = pf;
    }
  }
}

/*
 * stage_b in general mode: B packed through its view (or fp32 in place
 * when only A or the bias is general), or the block's panels of a
 * constant packed once; no kernel copies B and nothing is prefetched
 * from a source the kernels never read.
 */
static void stage_b_general(blk *x, int64_t jc, int64_t ncur) {
  const cg_gemm_args *g = x->g;
  const uint32_t nr = x->ki->nr;
  x->pf = NULL;
  x->b_by_kernels = 0;
  x->bpack = x->ws != NULL ? x->ws->b_buf : NULL;
  if (g->pb != NULL) {
    const int64_t panels = (g->n + nr - 1) / nr;
    x->bpack = cg_packed_data(g->pb) + x->pc * panels * nr + jc / nr * x->kcur * nr;
  } else if (x->p->pack & CG_PACK_B) {
    if (g->general & CG_GENERAL_B)
      cg_pack_b_view(x->ws->b_buf, &g->bv, x->pc, jc, x->kcur, ncur, nr);
    else
      cg_pack_b(x->ws->b_buf, g->b + x->pc * g->ldb + jc, g->ldb, x->kcur, ncur, nr);
  }
}

/* A's block at (i0, pc), packed from its view in general mode. */
static void pack_a_block(const blk *x, int64_t i0, int64_t mcur) {
  const cg_gemm_args *g = x->g;
  if (g->general & CG_GENERAL_A)
    cg_pack_a_view(x->ws->a_buf, &g->av, i0, x->pc, mcur, x->kcur, x->ki->mr);
  else
    cg_pack_a(x->ws->a_buf, g->a + i0 * g->lda + x->pc, g->lda, mcur, x->kcur, x->ki->mr);
}

typedef struct task {
  const cg_gemm_args *g;
  const cg_policy *p;
  cg_workspace *ws;
  /* The kernel: the table's, or in general mode a copy without
   * packed_copy (kernels that copy B read it as row-major fp32). */
  const cg_kernel_info *ki;
  int gen;
} task;

/* One thread's share: rows [m0, m1) and columns [n0, n1) of C. */
static void gemm_range(const task *t, cg_workspace *ws, int64_t m0, int64_t m1, int64_t n0,
                       int64_t n1) {
  blk x;
  pf_stream pf;
  const cg_gemm_args *g = t->g;
  const cg_policy *p = t->p;
  x.ki = t->ki;
  x.g = g;
  x.p = p;
  x.ws = ws;
  x.pf = NULL;
  x.b_by_kernels = 0;
  x.nx_src = NULL;
  x.nx_rows = x.nx_cols = 0;
  x.bpack = NULL;
  x.gen = t->gen;
  x.pb_end = 0;
  if (t->gen && g->pb != NULL && cg_packed_bytes(g->pb) > CG_CONST_PF_MIN)
    x.pb_end = (uintptr_t)cg_packed_data(g->pb) + (uintptr_t)cg_packed_bytes(g->pb);
  x.bias = t->gen && g->bias.data != NULL ? &g->bias : NULL;
  x.beta0 = x.bias != NULL ? 1.0f : g->beta;
  if (ws != NULL)
    ws->bj_ready = 0; /* B may have changed since the last run */
  if (m1 - m0 <= (int64_t)p->mc) {
    /* All rows in one A block: swap the NC and KC loops so that block is
     * packed once per KC slice instead of once per NC panel.  Same B and C
     * traffic, a fraction of the A packing (the skinny-M case). */
    for (int64_t pc = 0; pc < g->k; pc += p->kc) {
      x.pc = pc;
      x.kcur = min64(p->kc, g->k - pc);
      if (p->pack & CG_PACK_A)
        pack_a_block(&x, m0, m1 - m0);
      for (int64_t jc = n0; jc < n1; jc += p->nc) {
        int64_t ncur = min64(p->nc, n1 - jc);
        int64_t npc = pc, njc = jc + p->nc;
        if (njc >= n1)
          npc = pc + p->kc < g->k ? pc + p->kc : -1, njc = n0;
        if (x.gen) {
          stage_b_general(&x, jc, ncur);
          macro_block(&x, m0, m1 - m0, jc, ncur);
          continue;
        }
        stage_b(&x, &pf, jc, ncur, m1 - m0, npc, njc, min64(p->nc, n1 - njc));
        x.nx_src = npc >= 0 ? g->b + npc * g->ldb + njc : NULL;
        x.nx_rows = npc >= 0 ? min64(p->kc, g->k - npc) : 0;
        x.nx_cols = min64(p->nc, n1 - njc);
        macro_block(&x, m0, m1 - m0, jc, ncur);
        x.b_by_kernels = 0;
      }
    }
    return;
  }
  for (int64_t jc = n0; jc < n1; jc += p->nc) {
    int64_t ncur = min64(p->nc, n1 - jc);
    for (int64_t pc = 0; pc < g->k; pc += p->kc) {
      int64_t npc = pc + p->kc, njc = jc;
      x.pc = pc;
      x.kcur = min64(p->kc, g->k - pc);
      if (npc >= g->k)
        npc = jc + p->nc < n1 ? 0 : -1, njc = jc + p->nc;
      if (x.gen)
        stage_b_general(&x, jc, ncur);
      else
        stage_b(&x, &pf, jc, ncur, m1 - m0, npc, njc, min64(p->nc, n1 - njc));
      for (int64_t ic = m0; ic < m1; ic += p->mc) {
        int64_t mcur = min64(p->mc, m1 - ic);
        if (p->pack & CG_PACK_A)
          pack_a_block(&x, ic, mcur);
        macro_block(&x, ic, mcur, jc, ncur);
        x.b_by_kernels = 0;
      }
    }
  }
}

void cg_split_range(int64_t extent, uint32_t q, uint32_t tid, uint32_t n, int64_t *lo,
                    int64_t *hi) {
  int64_t units = (extent + q - 1) / q;
  int64_t u0 = units * tid / n, u1 = units * (tid + 1) / n;
  *lo = min64(u0 * q, extent);
  *hi = min64(u1 * q, extent);
}

static void gemm_task(void *arg, uint32_t tid, uint32_t n) {
  const task *t = arg;
  const cg_gemm_args *g = t->g;
  const cg_kernel_info *ki = t->ki;
  cg_workspace *ws = t->ws != NULL ? &t->ws[tid] : NULL;
  int64_t lo, hi;
  if (t->p->split == CG_SPLIT_JC) {
    cg_split_range(g->n, ki->nr, tid, n, &lo, &hi);
    if (lo < hi)
      gemm_range(t, ws, 0, g->m, lo, hi);
  } else {
    cg_split_range(g->m, ki->mr, tid, n, &lo, &hi);
    if (lo < hi)
      gemm_range(t, ws, lo, hi, 0, g->n);
  }
  if (ws != NULL)
    ws->bj_src = NULL;
}

void cg_gemm_blocked(const cg_gemm_args *g, const cg_policy *p, cg_workspace *ws,
                     const cg_kernel_info *ki, int general, cg_pool *pool, uint32_t threads) {
  task t;
  t.g = g;
  t.p = p;
  t.ws = ws;
  t.ki = ki;
  t.gen = general;
  if (threads == 1)
    gemm_task(&t, 0, 1);
  else
    cg_pool_run(pool, gemm_task, &t);
}

void cg_scale_c(float *c, int64_t ldc, int64_t m, int64_t n, float beta) {
  for (int64_t i = 0; i < m; i++) {
    float *row = c + i * ldc;
    if (beta == 0.0f) {
      memset(row, 0, (size_t)n * sizeof(float));
    } else if (beta != 1.0f) {
      for (int64_t j = 0; j < n; j++)
        row[j] *= beta;
    }
  }
}

/*
 * The direct path: pack = none on one thread.  Nothing is packed and no
 * workspace is used, so the blocked driver's staging is skipped: the same
 * NC / KC / MC loops, each block one call of the kernel's block function
 * (its NR / MR loops inside).  For the small products this path is chosen
 * for, the driver's own cost is a noticeable part of a call.
 */
static void gemm_direct(const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  for (int64_t jc = 0; jc < g->n; jc += p->nc) {
    const int64_t jend = min64(jc + p->nc, g->n);
    for (int64_t pc = 0; pc < g->k; pc += p->kc) {
      const int64_t kcur = min64(p->kc, g->k - pc);
      const float beta = pc > 0 ? 1.0f : g->beta;
      for (int64_t ic = 0; ic < g->m; ic += p->mc)
        ki->block(min64(p->mc, g->m - ic), jend - jc, kcur, g->alpha, g->a + ic * g->lda + pc,
                  g->lda, g->b + pc * g->ldb + jc, g->ldb, beta, g->c + ic * g->ldc + jc, g->ldc);
    }
  }
}

/* Not vectorized: at most 64 multiply-adds, where a vectorized loop's
 * set-up costs more than it saves. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void cg_gemm_tiny_run(const cg_gemm_args *g) {
  /* Locals, so that the stores to C (which may alias anything a pointer
   * reaches) do not reload the arguments. */
  const int64_t m = g->m, n = g->n, k = g->k, lda = g->lda, ldb = g->ldb, ldc = g->ldc;
  const float alpha = g->alpha, beta = g->beta, *a = g->a, *b = g->b;
  float *c = g->c;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      float acc = 0.0f;
      for (int64_t q = 0; q < k; q++)
        acc += a[i * lda + q] * b[q * ldb + j];
      c[i * ldc + j] = beta == 0.0f ? alpha * acc : alpha * acc + beta * c[i * ldc + j];
    }
}

int cg_gemm(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
            cg_workspace *ws) {
  const uint32_t kind = cg_kernel_table[p->kernel].kind;
  if (g->general != 0 || g->pb != NULL || g->bias.data != NULL)
    return cg_gemm_general(g, p, pool, threads, ws);
  if (cg_gemm_one_block(g, p))
    return 0;
  if (g->m <= 0 || g->n <= 0)
    return 0;
  if (g->k <= 0 || g->alpha == 0.0f) {
    cg_scale_c(g->c, g->ldc, g->m, g->n, g->beta);
    return 0;
  }
  if (p->split == CG_SPLIT_NONE || pool == NULL || threads < cg_pool_size(pool))
    threads = 1;
  else
    threads = cg_pool_size(pool);
  if (kind == CG_KIND_TILE && p->pack == 0 && threads == 1) {
    gemm_direct(g, p);
    return 0;
  }
  if (cg_gemm_needs_ws(g, p)) {
    if (ws == NULL)
      return -1;
    for (uint32_t i = 0; i < (kind != CG_KIND_TILE ? 1u : threads); i++) {
      if (cg_ws_prepare(&ws[i], g, p) != 0)
        return -1;
    }
  } else {
    ws = NULL;
  }
  if (kind == CG_KIND_VM)
    return cg_thin_vm(g, p, pool, threads, ws);
  if (kind == CG_KIND_MV)
    return cg_thin_mv(g, p, pool, threads, ws);
  cg_gemm_blocked(g, p, ws, &cg_kernel_table[p->kernel], 0, pool, threads);
  return 0;
}
