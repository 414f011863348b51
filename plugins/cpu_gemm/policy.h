/*
 * policy.h - a cpu_gemm policy: micro-kernel, cache blocking, thread split
 * and packing, with its text codec and the candidate generator.
 *
 * Text form (version word first, keys in this order, single spaces):
 *   v1 kernel=avx2_6x16 mc=96 kc=256 nc=4096 split=ic pack=ab
 * pack is one of none, a, b, ab, bj, abj, abj2, abj4 (abjG: B packed by
 * the kernels G micro-panels at a time).
 */
#ifndef CPU_GEMM_POLICY_H
#define CPU_GEMM_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "probe.h"

/* Which loop the threads divide. */
#define CG_SPLIT_NONE 0 /* one thread does everything */
#define CG_SPLIT_IC 1   /* rows of C (MC/MR blocks), each thread packs its own B */
#define CG_SPLIT_JC 2   /* columns of C (NR panels), each thread packs its own A */

/* Which operands are packed; an unpacked operand is read in place.  BJ packs
 * B one micro-panel at a time right before use (into an L1-sized buffer,
 * with the next panel's source lines prefetched meanwhile): the choice for
 * few rows of A, where a whole packed B panel would cost a trip through L3. */
#define CG_PACK_A 1u
#define CG_PACK_B 2u
#define CG_PACK_BJ 4u
#define CG_PACK_MAX 5u     /* a|bj; b|bj is not a policy */
#define CG_BJ_GROUP_MAX 2u /* log2: groups of 1, 2 or 4 panels */

/* Limits enforced by validation (also bound the packing buffers). */
#define CG_MC_MAX 8192u
#define CG_KC_MAX 8192u
#define CG_NC_MAX 65536u
#define CG_PANEL_BYTES_MAX (256u << 20) /* kc * nc * 4 and mc * kc * 4 */
#define CG_POLICY_TEXT_MAX 128

typedef struct cg_policy {
  uint32_t kernel; /* index into cg_kernel_table */
  uint32_t mc, kc, nc;
  uint32_t split; /* CG_SPLIT_* */
  uint32_t pack;  /* CG_PACK_* bits */
  /* pack = a|bj only: the kernels pack B 2^bj_group panels at a time (a
   * wider read of each source row).  0 for every other pack. */
  uint32_t bj_group;
} cg_policy;

/* A GEMM shape. */
typedef struct cg_shape {
  int64_t m, n, k;
} cg_shape;

/*
 * Parses policy text strictly.  max_isa: the best ISA the instance may use.
 * Returns 0 and fills *out, or -1 with a one-line reason in why.
 */
int cg_policy_parse(cg_policy *out, const char *text, size_t len, uint32_t max_isa, char *why,
                    size_t why_cap);

/* Checks ranges and ISA; 0 or -1 with a reason. */
int cg_policy_check(const cg_policy *p, uint32_t max_isa, char *why, size_t why_cap);

/* The per-call form of cg_policy_check for a policy this plugin made (by
 * cg_policy_parse or the candidate generator, both of which ran the whole
 * check): what can still differ is the instance, so its kernel must be
 * one the instance's ISA runs.  1 when usable; 0: run cg_policy_check
 * for the reason.  Inline: on every execute. */
static inline int cg_policy_usable(const cg_policy *p, uint32_t max_isa) {
  return p->kernel < cg_kernel_count && cg_kernel_table[p->kernel].isa <= max_isa;
}

/* Canonical text; returns its length (< cap) or 0 when cap is too small. */
size_t cg_policy_format(char *out, size_t cap, const cg_policy *p);

/* The analytical default for a shape from the probed caches. */
void cg_policy_default(cg_policy *out, const cg_cpu *cpu, uint32_t isa, uint32_t threads,
                       const cg_shape *shape);

/*
 * The bounded candidate list, analytical default first, duplicates removed.
 * Returns how many were written (<= cap).
 */
uint32_t cg_policy_candidates(cg_policy *out, uint32_t cap, const cg_cpu *cpu, uint32_t isa,
                              uint32_t threads, const cg_shape *shape);

/*
 * The same for a workload whose B is a constant packed once (constant=b):
 * first the blockings that only pay once B's packing is free (see
 * candidates.c, cand_constant_b), then cg_policy_candidates' list, up to
 * cap in all.  b_bytes: B's element size as stored (4, or 2 for float16
 * and bfloat16, which a thin policy's pack keeps 16-bit).
 */
uint32_t cg_policy_candidates_constant_b(cg_policy *out, uint32_t cap, const cg_cpu *cpu,
                                         uint32_t isa, uint32_t threads, const cg_shape *shape,
                                         uint32_t b_bytes);

#define CG_CANDIDATES_MAX 24u

/* The bytes past which a constant B packed once is fetched ahead by the
 * blocked driver (gemm.c): far beyond any core's L2, so that it comes
 * from L3 or memory on every call. */
#define CG_CONST_PF_MIN (8u << 20)

#endif
