/*
 * candidates.c - the analytical default policy and the bounded candidate
 * set around it (kernels x blocking multiples x packing x splits).
 *
 * Default blocking, after the BLIS analytical model:
 *   KC: the B micro-panel (KC x NR) takes about half of L1, leaving room for
 *       the A micro-panel streaming through and the C tile; with both
 *       operands packed and K at least two such slices deep, twice that
 *       (for half the MC), which halves the passes over C; K up to 1.5
 *       slices deep is one slice;
 *   MC: the packed A block (MC x KC) takes about a quarter of L2 (the rest
 *       holds the B micro-panel on its way to L1, C lines and the prefetched
 *       next block, which a half-L2 block crowds out); M up to 1.25
 *       blocks is one block;
 *   NC: the packed B panel (KC x NC) takes about half of this thread's share
 *       of L3.
 * Every value is then clamped to the shape, so that candidates which
 * differ only beyond the shape collapse into one.
 *
 * Which family comes first (the plugin's guess; measurement decides):
 *   - few columns (n <= 4, unless m is smaller still): the mv thin kernel,
 *     KC so that the gathered columns of a slice take half of L1;
 *   - few rows (m <= 4): the vm thin kernel, NC so that the rows of C of
 *     a block take a quarter of L2, KC rows of B streamed together;
 *   - of those, shapes whose large operand exceeds the last-level cache:
 *     the first streaming variant whose stream bits name their row (vm)
 *     or column (mv) count, if any;
 *   - small products (every operand together within L1, or m * n * k up to
 *     CG_DIRECT_MACS): the direct path, a tile kernel on A and B in place
 *     (pack = none, split = none: no packing, no workspace, no thread
 *     hand-off), one block covering the shape;
 *   - otherwise the blocked tile kernel.
 * The families after the first follow as candidates: the thin ones for
 * thin shapes, the direct path where every operand fits L2, and the
 * blocked tile kernel always.
 */
#include <string.h>

#include "kernels/kernels.h"
#include "policy.h"

/* Products up to this many multiply-adds take the direct path first. */
#define CG_DIRECT_MACS (64u * 64u * 64u)
/* Thin products from this many multiply-adds split over threads first. */
#define CG_SPLIT_MACS (1u << 20)
/* Rows of B a vm kernel call streams together by default.  One row of A,
 * and the streaming variants, take the call's rows in groups (of up to 6
 * or 8 rows of B, each group a pass over C), so they take a multiple of
 * both: fewer rows make smaller groups, and so more passes over C for the
 * same rows of B. */
#define CG_VM_KC 16u
#define CG_VM_KC_ONE_ROW 48u

static uint32_t round_down(uint64_t v, uint32_t q) {
  uint64_t r = v - v % q;
  return (uint32_t)(r < q ? q : r);
}

static uint64_t round_up(uint64_t v, uint32_t q) { return (v + q - 1) / q * q; }

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* A thin policy keeps its fixed keys; KC and (vm) NC follow the shape. */
static void clamp_thin(cg_policy *p, const cg_kernel_info *ki, const cg_shape *s) {
  uint64_t kc = min_u64(p->kc, (uint64_t)(s->k > 0 ? s->k : 1));
  p->mc = ki->mr;
  p->kc = (uint32_t)(kc < 1 ? 1 : kc > CG_KC_MAX ? CG_KC_MAX : kc);
  if (ki->kind == CG_KIND_MV) {
    p->nc = ki->nr;
  } else {
    uint64_t nc = min_u64(p->nc, round_up((uint64_t)(s->n > 0 ? s->n : 1), ki->nr));
    p->nc = round_down(min_u64(nc, CG_NC_MAX), ki->nr);
  }
  p->pack = 0;
  p->bj_group = 0;
}

/* Clamps a policy to the shape and the validation limits. */
static void clamp_policy(cg_policy *p, const cg_shape *s) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  if (ki->kind != CG_KIND_TILE) {
    clamp_thin(p, ki, s);
    return;
  }
  uint64_t kc = min_u64(p->kc, (uint64_t)(s->k > 0 ? s->k : 1));
  uint64_t mc = min_u64(p->mc, round_up((uint64_t)(s->m > 0 ? s->m : 1), ki->mr));
  uint64_t nc = min_u64(p->nc, round_up((uint64_t)(s->n > 0 ? s->n : 1), ki->nr));
  kc = kc < 1 ? 1 : kc > CG_KC_MAX ? CG_KC_MAX : kc;
  mc = round_down(min_u64(mc, CG_MC_MAX), ki->mr);
  nc = round_down(min_u64(nc, CG_NC_MAX), ki->nr);
  while (mc * kc * 4u > CG_PANEL_BYTES_MAX && mc > ki->mr)
    mc = round_down(mc / 2, ki->mr);
  while (kc * nc * 4u > CG_PANEL_BYTES_MAX && nc > ki->nr)
    nc = round_down(nc / 2, ki->nr);
  p->kc = (uint32_t)kc;
  p->mc = (uint32_t)mc;
  p->nc = (uint32_t)nc;
}

/* The best tile kernel the ISA level allows (the portable one always is). */
static uint32_t best_kernel(uint32_t isa) {
  int k = cg_kernel_best(CG_KIND_TILE, isa);
  return k >= 0 ? (uint32_t)k : 0u;
}

/*
 * K that KC does not divide, in equal slices at most 2 KC deep instead:
 * the thin last slice would pay a whole pass over C for little arithmetic,
 * and a slice somewhat deeper than the L1 model allows costs less than that
 * pass (1024^3 as 2 x 512 instead of 384, 384, 256).  The A block stays
 * within l2_share / 2.
 */
static void even_slices(cg_policy *p, const cg_kernel_info *ki, const cg_shape *s,
                        uint64_t l2_share) {
  const uint64_t k = (uint64_t)(s->k > 0 ? s->k : 1), deepest = 2u * p->kc;
  const uint64_t slices = (k + deepest - 1) / deepest;
  uint64_t kc;
  if (k <= p->kc || k % p->kc == 0)
    return;
  kc = min_u64(round_up((k + slices - 1) / slices, 8), CG_KC_MAX);
  p->kc = (uint32_t)kc;
  if ((uint64_t)p->mc * kc * 4u > l2_share / 2 && l2_share / 2 / (kc * 4u) >= ki->mr)
    p->mc = (uint32_t)round_down(l2_share / 2 / (kc * 4u), ki->mr);
}

static void default_for_kernel(cg_policy *p, uint32_t kernel, const cg_cpu *cpu, uint32_t threads,
                               const cg_shape *s) {
  const cg_kernel_info *ki = &cg_kernel_table[kernel];
  const cg_cache *l1 = cg_probe_data_cache(cpu, 1);
  const cg_cache *l2 = cg_probe_data_cache(cpu, 2);
  const cg_cache *l3 = cg_probe_data_cache(cpu, 3);
  uint64_t s1 = l1 != NULL ? l1->size : 32u << 10;
  uint64_t s2 = l2 != NULL ? l2->size : 512u << 10;
  uint64_t s3 = l3 != NULL ? l3->size : 8u << 20;
  uint64_t l3_users = 1;
  uint64_t kc, mc, nc;
  if (l2 != NULL && l2->sharing > 1)
    s2 /= l2->sharing < threads ? l2->sharing : threads; /* threads sharing one L2 */
  if (l3 != NULL)
    l3_users = threads < l3->sharing ? threads : l3->sharing;
  if (l3_users < 1)
    l3_users = 1;
  kc = (s1 / 2) / ((uint64_t)ki->nr * 4u);
  kc = kc < 64 ? 64 : kc - kc % 8;
  /* K a little deeper than one slice: all of it in one slice (the B
   * micro-panel then within 3/4 of L1) rather than a full slice and a thin
   * one, which pays a pass over C for little arithmetic. */
  if ((uint64_t)s->k > kc && (uint64_t)s->k <= kc + kc / 2 &&
      (uint64_t)s->k * ki->nr * 4u <= s1 / 4 * 3)
    kc = round_up((uint64_t)s->k, 8);
  mc = round_down(min_u64((s2 / 4) / (kc * 4u), CG_MC_MAX), ki->mr);
  /* Rows a little more than one block: one block (at most a quarter over
   * the L2 share) rather than a full one and a sliver. */
  if ((uint64_t)s->m > mc && (uint64_t)s->m <= mc + mc / 4)
    mc = round_up((uint64_t)s->m, ki->mr);
  nc = (s3 / 2 / l3_users) / (kc * 4u);
  memset(p, 0, sizeof(*p));
  p->kernel = kernel;
  p->kc = (uint32_t)min_u64(kc, CG_KC_MAX);
  p->mc = round_down(min_u64(mc, CG_MC_MAX), ki->mr);
  p->nc = round_down(min_u64(nc, 8192), ki->nr);
  p->split = CG_SPLIT_NONE;
  if (threads > 1)
    p->split = s->m >= s->n ? CG_SPLIT_IC : CG_SPLIT_JC;
  p->pack = CG_PACK_A | CG_PACK_B;
  /* Few columns: every element of A is used only n times, so packing A
   * costs more than reading its rows in place. */
  if (s->n <= 4 * (int64_t)ki->nr)
    p->pack = CG_PACK_B;
  /* All of a thread's rows in one MC block: B would be packed exactly once
   * either way, so pack it panel by panel straight into L1 rather than as
   * a whole panel that makes a round trip through L3. */
  else if ((p->split == CG_SPLIT_IC ? (s->m + threads - 1) / threads : s->m) <= (int64_t)p->mc)
    p->pack = CG_PACK_A | CG_PACK_BJ;
  /* Both operands packed and K at least two such slices deep: a KC slice
   * twice as deep (the B micro-panel then fills L1) for half the MC halves
   * the passes over C and the micro-kernel calls, which outweighs the B
   * panel's tighter fit in L1. */
  if (p->pack == (CG_PACK_A | CG_PACK_B) && s->k >= 2 * (int64_t)p->kc && 2u * p->kc <= CG_KC_MAX &&
      p->mc / 2 >= ki->mr) {
    p->kc *= 2;
    p->mc = round_down(p->mc / 2, ki->mr);
  }
  even_slices(p, ki, s, s2);
  clamp_policy(p, s);
}

typedef struct cand_list {
  cg_policy *out;
  uint32_t cap, count;
  const cg_shape *shape;
} cand_list;

static void cand_add(cand_list *l, cg_policy p) {
  clamp_policy(&p, l->shape);
  if (cg_policy_check(&p, CG_ISA_AVX512, NULL, 0) != 0)
    return;
  for (uint32_t i = 0; i < l->count; i++) {
    if (memcmp(&l->out[i], &p, sizeof(p)) == 0)
      return;
  }
  if (l->count < l->cap)
    l->out[l->count++] = p;
}

static void cand_blocking(cand_list *l, const cg_policy *d) {
  const cg_kernel_info *ki = &cg_kernel_table[d->kernel];
  cg_policy p;
  p = *d, p.kc = d->kc * 2, p.mc = round_down(d->mc / 2, ki->mr), cand_add(l, p);
  p = *d, p.kc = d->kc / 2 < 32 ? 32 : d->kc / 2, p.mc = d->mc * 2, cand_add(l, p);
  p = *d, p.mc = d->mc * 2, cand_add(l, p);
  p = *d, p.kc = d->kc / 2 < 32 ? 32 : d->kc / 2, cand_add(l, p);
  p = *d, p.mc = round_down(d->mc / 2, ki->mr), cand_add(l, p);
  p = *d, p.kc = d->kc * 2, cand_add(l, p);
  p = *d, p.kc = d->kc + d->kc / 2, p.mc = round_down(d->mc * 2 / 3, ki->mr), cand_add(l, p);
  p = *d, p.nc = round_down(d->nc / 2, ki->nr), cand_add(l, p);
  p = *d, p.mc = round_down(d->mc * 4, ki->mr), cand_add(l, p);
}

static uint64_t l1_bytes(const cg_cpu *cpu) {
  const cg_cache *l1 = cg_probe_data_cache(cpu, 1);
  return l1 != NULL ? l1->size : 32u << 10;
}

static uint64_t l2_bytes(const cg_cpu *cpu) {
  const cg_cache *l2 = cg_probe_data_cache(cpu, 2);
  return l2 != NULL ? l2->size : 512u << 10;
}

/* The thin family a shape belongs to (CG_KIND_TILE: none). */
static uint32_t thin_kind(const cg_shape *s) {
  if (s->n <= 4 && (s->m > 4 || s->n <= s->m))
    return CG_KIND_MV;
  if (s->m <= 4)
    return CG_KIND_VM;
  if (s->n <= 4)
    return CG_KIND_MV;
  return CG_KIND_TILE;
}

/* Whether threads are worth waking for a product: a hand-off costs about
 * as much as a few hundred thousand multiply-adds. */
static int worth_splitting(const cg_shape *s, uint32_t threads) {
  return threads > 1 && (double)s->m * (double)s->n * (double)s->k >= (double)CG_SPLIT_MACS;
}

/* The bytes of C rows that one vm block keeps: a quarter of L2.  The rows
 * of B are then read in long runs, which the prefetchers follow better
 * than the short ones of a block whose C fits L1 (C in half of L1 stays a
 * candidate). */
static uint64_t vm_nc_bytes(const cg_cpu *cpu) { return l2_bytes(cpu) / 4; }

/* The vm block whose rows of C (up to 4) take `bytes`. */
static uint32_t vm_nc(uint64_t bytes, const cg_shape *s, uint32_t nr) {
  const uint64_t rows = (uint64_t)(s->m < 4 ? s->m : 4);
  return (uint32_t)round_down(min_u64(CG_NC_MAX, bytes / (4u * rows)), nr);
}

/* Whether a thin shape's large operand (vm: B, mv: A) exceeds the
 * last-level cache, so that it streams from memory on every call. */
static int streams_from_memory(uint32_t kind, const cg_cpu *cpu, const cg_shape *s) {
  const cg_cache *l3 = cg_probe_data_cache(cpu, 3);
  const double rows = (double)(kind == CG_KIND_VM ? s->k : s->m);
  const double cols = (double)(kind == CG_KIND_VM ? s->n : s->k);
  return l3 != NULL && 4.0 * rows * cols > (double)l3->size;
}

/* Whether a thin kernel is worth a candidate for a shape: a streaming
 * variant only for the row (vm) or column (mv) counts where it differs
 * from its kind's kernel. */
static int thin_applies(const cg_kernel_info *ki, const cg_shape *s) {
  const int64_t d = ki->kind == CG_KIND_VM ? s->m : s->n;
  return !ki->stream || (d >= 1 && d <= 4 && (ki->stream & CG_AT(d)) != 0);
}

/* The thin family's first kernel: the kind's best for the ISA, or its
 * streaming variant where it applies and the large operand streams from
 * memory. */
static uint32_t thin_first_kernel(uint32_t kind, const cg_cpu *cpu, uint32_t isa,
                                  const cg_shape *s) {
  const int best = cg_kernel_best(kind, isa);
  if (streams_from_memory(kind, cpu, s)) {
    for (uint32_t i = 0; i < cg_kernel_count; i++) {
      const cg_kernel_info *ki = &cg_kernel_table[i];
      if (ki->kind == kind && ki->stream && ki->isa <= isa && thin_applies(ki, s))
        return i;
    }
  }
  return (uint32_t)(best >= 0 ? best : 0);
}

/* A thin kernel's guess: mv slices k so that a slice of the gathered
 * columns takes half of L1; vm keeps the rows of C of an NC block in a
 * quarter of L2 and streams CG_VM_KC rows of B together (one row of A:
 * CG_VM_KC_ONE_ROW). */
static void thin_default(cg_policy *p, uint32_t kernel, const cg_cpu *cpu, uint32_t threads,
                         const cg_shape *s) {
  const cg_kernel_info *ki = &cg_kernel_table[kernel];
  const uint64_t half_l1 = l1_bytes(cpu) / 2;
  memset(p, 0, sizeof(*p));
  p->kernel = kernel;
  p->mc = ki->mr;
  if (ki->kind == CG_KIND_MV) {
    uint64_t cols = (uint64_t)(s->n < 4 ? s->n : 4);
    p->nc = ki->nr;
    p->kc = (uint32_t)min_u64(CG_KC_MAX, round_down(half_l1 / (4u * cols), 16));
    /* Streaming one column: whole rows of A, B's column read from L2; a
     * row of A in several slices breaks its stream, which the prefetchers
     * must then pick up again slice after slice. */
    if (ki->stream)
      p->kc = CG_KC_MAX;
    p->split = worth_splitting(s, threads) ? CG_SPLIT_IC : CG_SPLIT_NONE;
  } else {
    p->nc = vm_nc(vm_nc_bytes(cpu), s, ki->nr);
    p->kc = s->m == 1 || ki->stream ? CG_VM_KC_ONE_ROW : CG_VM_KC;
    p->split = worth_splitting(s, threads) ? CG_SPLIT_JC : CG_SPLIT_NONE;
  }
  clamp_policy(p, s);
}

/* A thin policy with the other split: its long dimension over the
 * threads, or one thread. */
static cg_policy other_split(const cg_policy *d) {
  cg_policy p = *d;
  const uint32_t long_dim =
      cg_kernel_table[d->kernel].kind == CG_KIND_VM ? CG_SPLIT_JC : CG_SPLIT_IC;
  p.split = d->split == CG_SPLIT_NONE ? long_dim : CG_SPLIT_NONE;
  return p;
}

/* The thin family's candidates: its guess, deeper and shallower slices,
 * other blocks, the family's other SIMD kernels this CPU runs (with
 * AVX-512, the AVX2 ones: where the AVX-512 units are half as wide as the
 * registers, the wider kernels gain no arithmetic and their other choices
 * can lose), each with the other split. */
static void cand_thin(cand_list *l, uint32_t kind, const cg_cpu *cpu, uint32_t isa,
                      uint32_t threads) {
  const cg_shape *s = l->shape;
  cg_policy d, p;
  thin_default(&d, thin_first_kernel(kind, cpu, isa, s), cpu, threads, s);
  cand_add(l, d);
  if (kind == CG_KIND_VM) {
    p = d, p.kc = d.kc * 4, cand_add(l, p);
    p = d, p.kc = d.kc / 4 > 0 ? d.kc / 4 : 1, cand_add(l, p);
    p = d, p.kc = CG_VM_KC, cand_add(l, p); /* the other guess, for one row */
    p = d, p.kc = CG_KC_MAX, cand_add(l, p);
    p = d, p.nc = CG_NC_MAX, cand_add(l, p);
    p = d, p.nc = round_down(d.nc / 4, cg_kernel_table[d.kernel].nr), cand_add(l, p);
    /* C's rows of a block in half of L1. */
    p = d, p.nc = vm_nc(l1_bytes(cpu) / 2, s, cg_kernel_table[d.kernel].nr), cand_add(l, p);
  } else {
    p = d, p.kc = CG_KC_MAX, cand_add(l, p);
    p = d, p.kc = d.kc / 4 > 16 ? d.kc / 4 : 16, cand_add(l, p);
  }
  for (uint32_t i = 0; i < cg_kernel_count; i++) {
    const cg_kernel_info *ki = &cg_kernel_table[i];
    if (i == d.kernel || ki->kind != kind || ki->isa > isa || ki->isa == CG_ISA_REF ||
        !thin_applies(ki, s))
      continue;
    thin_default(&p, i, cpu, threads, s);
    cand_add(l, p);
    if (threads > 1)
      cand_add(l, other_split(&p));
  }
  if (threads > 1)
    cand_add(l, other_split(&d));
}

/* The direct path: a tile kernel on A and B in place, one block; the best
 * kernel first, then the other SIMD ones this CPU runs, since the tile
 * sizes fit shapes differently (how much of the edge tiles is padding),
 * and where a 512-bit FMA takes both 256-bit pipes the wider tile gains no
 * arithmetic to make up for a worse fit. */
static void cand_direct(cand_list *l, uint32_t isa) {
  const uint32_t best = best_kernel(isa);
  cg_policy p;
  memset(&p, 0, sizeof(p));
  p.mc = CG_MC_MAX, p.kc = CG_KC_MAX, p.nc = CG_NC_MAX;
  p.split = CG_SPLIT_NONE, p.pack = 0;
  p.kernel = best;
  cand_add(l, p);
  for (uint32_t i = 0; i < cg_kernel_count; i++) {
    const cg_kernel_info *ki = &cg_kernel_table[i];
    if (i == best || ki->kind != CG_KIND_TILE || ki->isa > isa || ki->isa == CG_ISA_REF)
      continue;
    p.kernel = i;
    cand_add(l, p);
  }
}

/* Every operand together in `bytes` or less. */
static int fits(const cg_shape *s, uint64_t bytes) {
  double total = 4.0 * ((double)s->m * (double)s->k + (double)s->k * (double)s->n +
                        (double)s->m * (double)s->n);
  return total <= (double)bytes;
}

/* The blocked tile kernel's candidates around its analytical default. */
static void cand_tile(cand_list *l, const cg_cpu *cpu, uint32_t isa, uint32_t threads) {
  const cg_shape *shape = l->shape;
  cg_policy d, p;
  uint32_t best = best_kernel(isa);
  default_for_kernel(&d, best, cpu, threads, shape);
  cand_add(l, d);
  /* B packed by the kernels: wider groups read longer pieces of each
   * source row, and a deeper KC halves the passes over C, so they come
   * right after it. */
  if (d.pack == (CG_PACK_A | CG_PACK_BJ) && cg_kernel_table[d.kernel].packed_copy != NULL) {
    p = d, p.bj_group = 1, p.kc = d.kc * 2, cand_add(l, p);
    p = d, p.bj_group = 2, cand_add(l, p);
    p = d, p.bj_group = 2, p.kc = d.kc * 2, cand_add(l, p);
  }
  /* The other packing choice for A comes next: it decides skinny shapes. */
  p = d, p.pack = d.pack ^ CG_PACK_A, cand_add(l, p);
  cand_blocking(l, &d);
  if (threads > 1) {
    p = d, p.split = d.split == CG_SPLIT_IC ? CG_SPLIT_JC : CG_SPLIT_IC, cand_add(l, p);
    p = d, p.split = CG_SPLIT_NONE, cand_add(l, p);
  }
  /* The other way of packing B (whole panel or panel by panel). */
  if (d.pack & (CG_PACK_B | CG_PACK_BJ)) {
    p = d, p.pack = (d.pack & CG_PACK_A) | ((d.pack & CG_PACK_B) ? CG_PACK_BJ : CG_PACK_B);
    cand_add(l, p);
  }
  /* Variants of the runner-up packing choice. */
  p = d, p.pack = d.pack ^ CG_PACK_A, p.kc = d.kc * 2, cand_add(l, p);
  p = d, p.pack = d.pack ^ CG_PACK_A, p.mc = d.mc * 2, cand_add(l, p);
  /* Other SIMD kernels this CPU runs (the portable one only when alone). */
  for (uint32_t i = 0; i < cg_kernel_count; i++) {
    const cg_kernel_info *ki = &cg_kernel_table[i];
    if (i == best || ki->kind != CG_KIND_TILE || ki->isa > isa || ki->isa == CG_ISA_REF)
      continue;
    default_for_kernel(&p, i, cpu, threads, shape);
    cand_add(l, p);
    cand_blocking(l, &p);
  }
}

/* Rows up to which a constant B gets its own blockings first, and up to
 * which (with a large B) it gets only those. */
#define CG_CONST_B_ROWS 64
#define CG_CONST_B_DECODE_ROWS 16

/*
 * A constant B packed once: the blocked driver reads the constant's KC
 * slices of micro-panels, so B's packing, which the analytical KC and the
 * panel-by-panel packing (abj) trade against, costs nothing per call.
 * For few rows (every row one A block) the slice then goes as deep as K
 * (one pass over C instead of one per slice, and each micro-panel one
 * contiguous run of B that the prefetchers follow from memory), as long
 * as the packed A block stays within half of L2; else K in equal slices
 * that fit.  Then half as deep, and narrower NC blocks.
 */
static void cand_constant_b(cand_list *l, const cg_cpu *cpu, uint32_t isa, uint32_t threads) {
  const cg_shape *s = l->shape;
  const uint32_t kernel = best_kernel(isa);
  const cg_kernel_info *ki = &cg_kernel_table[kernel];
  const uint64_t k = (uint64_t)(s->k > 0 ? s->k : 1);
  const uint64_t rows = round_up((uint64_t)(s->m > 0 ? s->m : 1), ki->mr);
  const uint64_t a_room = l2_bytes(cpu) / 2;
  uint64_t slices = 1, kc;
  cg_policy d, p;
  if (ki->kind != CG_KIND_TILE || s->m > CG_CONST_B_ROWS)
    return;
  while (slices < k && rows * ((k + slices - 1) / slices) * 4u > a_room)
    slices++;
  kc = round_up((k + slices - 1) / slices, 8);
  default_for_kernel(&d, kernel, cpu, threads, s);
  d.pack = CG_PACK_A | CG_PACK_B;
  d.bj_group = 0;
  d.mc = (uint32_t)min_u64(rows, CG_MC_MAX);
  d.kc = (uint32_t)min_u64(kc, CG_KC_MAX);
  if (threads > 1)
    d.split = CG_SPLIT_JC; /* few rows: the columns are the long dimension */
  cand_add(l, d);
  p = d, p.kc = (uint32_t)round_up((d.kc + 1u) / 2u, 8), cand_add(l, p);
  p = d, p.kc = (uint32_t)round_up((d.kc + 3u) / 4u, 8), cand_add(l, p);
  p = d, p.nc = round_down(d.nc / 4, ki->nr), cand_add(l, p);
  if (threads > 1)
    p = d, p.split = CG_SPLIT_NONE, cand_add(l, p);
}

uint32_t cg_policy_candidates_constant_b(cg_policy *out, uint32_t cap, const cg_cpu *cpu,
                                         uint32_t isa, uint32_t threads, const cg_shape *shape,
                                         uint32_t b_bytes) {
  cg_policy rest[CG_CANDIDATES_MAX];
  cand_list l = {out, cap < CG_CANDIDATES_MAX ? cap : CG_CANDIDATES_MAX, 0, shape};
  const uint32_t n = cg_policy_candidates(rest, CG_CANDIDATES_MAX, cpu, isa, threads, shape);
  uint32_t own;
  cand_constant_b(&l, cpu, isa, threads);
  /* A 16-bit B: the tile pack widens it to float32 while a thin policy's
   * keeps it 16-bit, half the bytes a decode call reads, so the thin
   * kernels stay in the race. */
  own = b_bytes == 4u ? l.count : 0u;
  /* Decode-like products (few rows, B read from L3 or memory): the deep
   * panels fetched ahead beat the analytical blockings and the thin
   * kernels by more than a short race's noise, which with many
   * candidates would pick one of those now and then. */
  if (own > 0 && shape->m <= CG_CONST_B_DECODE_ROWS &&
      4.0 * (double)shape->k * (double)shape->n > (double)CG_CONST_PF_MIN)
    return l.count;
  for (uint32_t i = 0; i < n; i++) {
    /* The thin kernels stream a row-major copy of B; a B large enough
     * for the blocked driver to fetch ahead (CG_CONST_PF_MIN) its deep
     * panels read faster, and in a short race a thin candidate can win
     * on noise alone. */
    if (own > 0 && cg_kernel_table[rest[i].kernel].kind == CG_KIND_VM &&
        4.0 * (double)shape->k * (double)shape->n > (double)CG_CONST_PF_MIN)
      continue;
    cand_add(&l, rest[i]);
  }
  return l.count;
}

uint32_t cg_policy_candidates(cg_policy *out, uint32_t cap, const cg_cpu *cpu, uint32_t isa,
                              uint32_t threads, const cg_shape *shape) {
  cand_list l = {out, cap < CG_CANDIDATES_MAX ? cap : CG_CANDIDATES_MAX, 0, shape};
  const uint32_t thin = thin_kind(shape);
  const int small =
      fits(shape, l1_bytes(cpu)) ||
      (double)shape->m * (double)shape->n * (double)shape->k <= (double)CG_DIRECT_MACS;
  if (thin != CG_KIND_TILE) {
    cand_thin(&l, thin, cpu, isa, threads);
    /* Both dimensions thin (a dot product, a 4 x 4 outer product): the
     * other family too. */
    if (shape->m <= 4 && shape->n <= 4)
      cand_thin(&l, thin == CG_KIND_VM ? CG_KIND_MV : CG_KIND_VM, cpu, isa, threads);
  }
  if (small)
    cand_direct(&l, isa);
  cand_tile(&l, cpu, isa, threads);
  if (!small && fits(shape, l2_bytes(cpu)))
    cand_direct(&l, isa);
  return l.count;
}

void cg_policy_default(cg_policy *out, const cg_cpu *cpu, uint32_t isa, uint32_t threads,
                       const cg_shape *shape) {
  cg_policy list[CG_CANDIDATES_MAX];
  uint32_t n = cg_policy_candidates(list, CG_CANDIDATES_MAX, cpu, isa, threads, shape);
  if (n > 0)
    *out = list[0];
  else
    default_for_kernel(out, best_kernel(isa), cpu, threads, shape);
}
