/*
 * test_cpu_gemm_policy.c - the cpu_gemm core linked directly: the policy
 * codec (round trips of every candidate, the texts it refuses) and the
 * candidate generator (blocking after the probed caches, the thin kernels
 * and their streaming variants on synthetic CPUs).  That the candidates
 * compute the right product: test_cpu_gemm_core.c.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "kernels/kernels.h"
#include "policy.h"
#include "probe.h"
#include "test_support.h"

static cg_cpu cpu;

static int init_suite(void) {
  cg_probe(&cpu);
  return 0;
}

static void test_policy_roundtrip(void) {
  const cg_shape shapes_rt[] = {{512, 512, 512}, {64, 4096, 4096}, {4096, 64, 4096}, {1, 1, 1}};
  for (size_t s = 0; s < sizeof(shapes_rt) / sizeof(shapes_rt[0]); s++) {
    for (uint32_t threads = 1; threads <= 2; threads++) {
      cg_policy cands[CG_CANDIDATES_MAX];
      uint32_t n =
          cg_policy_candidates(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, threads, &shapes_rt[s]);
      cg_policy def;
      CU_ASSERT(n >= 1 && n <= CG_CANDIDATES_MAX);
      cg_policy_default(&def, &cpu, cpu.isa, threads, &shapes_rt[s]);
      CU_ASSERT_EQUAL(memcmp(&def, &cands[0], sizeof(def)), 0);
      for (uint32_t i = 0; i < n; i++) {
        char text[CG_POLICY_TEXT_MAX], why[200], again[CG_POLICY_TEXT_MAX];
        cg_policy back;
        size_t len = cg_policy_format(text, sizeof(text), &cands[i]);
        CU_ASSERT_FATAL(len > 0);
        CU_ASSERT_EQUAL_FATAL(cg_policy_parse(&back, text, len, cpu.isa, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(memcmp(&back, &cands[i], sizeof(back)), 0);
        CU_ASSERT_EQUAL(cg_policy_format(again, sizeof(again), &back), len);
        CU_ASSERT_EQUAL(memcmp(again, text, len), 0);
        for (uint32_t j = 0; j < i; j++)
          CU_ASSERT_NOT_EQUAL(memcmp(&cands[j], &cands[i], sizeof(cands[i])), 0);
      }
    }
  }
}

static void test_policy_rejects(void) {
  static const char *const bad[] = {
      "",
      "v2 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab",
      "v1",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab extra=1",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab bogus",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab ",
      "v1  kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 mc=64 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=nope_1x1 mc=64 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=63 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=0 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=064 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=-4 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=9000 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=100 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=99999992 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=8192 nc=16384 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=ir pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=c",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab\n",
      "v1 kernel=ref_4x8 mc=6 4 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj3",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj8",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj1",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj02",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj22",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=bj2",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab2",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj2 pack=abj",
      "v1 kernel=ref_4x8 kc=256 mc=64 nc=512 split=none pack=ab",
      "v1 mc=64 kernel=ref_4x8 kc=256 nc=512 split=none pack=ab",
      "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 pack=ab split=none",
      "v1 kernel=avx2_6x16 kc=256 nc=4096 mc=612 split=none pack=abj4",
  };
  char why[200];
  cg_policy p;
  CU_ASSERT_EQUAL(cg_policy_parse(&p, "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab",
                                  56, CG_ISA_REF, why, sizeof(why)),
                  0);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    why[0] = '\0';
    if (cg_policy_parse(&p, bad[i], strlen(bad[i]), CG_ISA_AVX512, why, sizeof(why)) == 0) {
      fprintf(stderr, "accepted: '%s'\n", bad[i]);
      CU_FAIL("bad policy accepted");
    }
    CU_ASSERT(strncmp(why, "policy: ", 8) == 0);
  }
  /* One policy, one text: a reordered policy names the key that broke the order. */
  CU_ASSERT_EQUAL(cg_policy_parse(&p, "v1 kernel=ref_4x8 kc=256 mc=64 nc=512 split=none pack=ab",
                                  56, CG_ISA_REF, why, sizeof(why)),
                  -1);
  CU_ASSERT_STRING_EQUAL(why, "policy: key out of order (kernel mc kc nc split pack), found 'kc'");
  /* Raw bytes are never echoed into the reason: it stays one printable line. */
  {
    const char raw[] = "\x01\xff\n v1 kernel=\x7f";
    CU_ASSERT_EQUAL(cg_policy_parse(&p, raw, sizeof(raw) - 1, CG_ISA_AVX512, why, sizeof(why)), -1);
    for (const char *q = why; *q != '\0'; q++)
      CU_ASSERT(*q >= 0x20 && *q < 0x7f);
  }
  /* A kernel above the instance's ISA level is refused with a reason. */
  CU_ASSERT_EQUAL(cg_policy_parse(&p, "v1 kernel=avx2_6x16 mc=72 kc=256 nc=512 split=ic pack=b", 55,
                                  CG_ISA_REF, why, sizeof(why)),
                  -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "needs avx2"));
  CU_ASSERT_EQUAL(cg_policy_parse(&p, "v1 kernel=avx512_12x32 mc=72 kc=256 nc=512 split=ic pack=b",
                                  58, CG_ISA_AVX2, why, sizeof(why)),
                  -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "needs avx512"));
  /* The grouped forms of abj, and check() refusing a group elsewhere. */
  CU_ASSERT_EQUAL(cg_policy_parse(&p, "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj4",
                                  58, CG_ISA_REF, why, sizeof(why)),
                  0);
  CU_ASSERT(p.pack == (CG_PACK_A | CG_PACK_BJ) && p.bj_group == 2);
  CU_ASSERT_EQUAL(cg_policy_parse(&p, "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=abj2",
                                  58, CG_ISA_REF, why, sizeof(why)),
                  0);
  CU_ASSERT(p.pack == (CG_PACK_A | CG_PACK_BJ) && p.bj_group == 1);
  p.pack = CG_PACK_A | CG_PACK_B;
  CU_ASSERT_EQUAL(cg_policy_check(&p, CG_ISA_REF, why, sizeof(why)), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "group"));
  p.pack = CG_PACK_A | CG_PACK_BJ, p.bj_group = CG_BJ_GROUP_MAX + 1;
  CU_ASSERT_EQUAL(cg_policy_check(&p, CG_ISA_REF, why, sizeof(why)), -1);
}

static void test_candidate_blocking(void) {
  /* The analytical default follows the probed caches: the packed blocks fit
   * the levels they are meant for (K a multiple of the slice: no equal
   * slices deeper than the model's). */
  const cg_cache *l1 = cg_probe_data_cache(&cpu, 1), *l2 = cg_probe_data_cache(&cpu, 2);
  const cg_kernel_info *ki = &cg_kernel_table[cg_kernel_best(CG_KIND_TILE, cpu.isa)];
  cg_shape big = {4096, 4096, 0};
  cg_policy d;
  int64_t base;
  CU_ASSERT_FATAL(l1 != NULL && l2 != NULL);
  /* The base slice: half of L1 for the B micro-panel. */
  base = (int64_t)(l1->size / 2 / (ki->nr * 4u));
  base = base < 64 ? 64 : base - base % 8;
  big.k = 16 * base;
  cg_policy_default(&d, &cpu, cpu.isa, 1, &big);
  CU_ASSERT_EQUAL(&cg_kernel_table[d.kernel], ki);
  CU_ASSERT_EQUAL(ki->isa, cpu.isa);
  CU_ASSERT((uint64_t)d.kc * ki->nr * 4u <= l1->size);
  CU_ASSERT((uint64_t)d.mc * d.kc * 4u <= l2->size);
  CU_ASSERT(d.pack == (CG_PACK_A | CG_PACK_B));
  /* K two slices deep or more: a KC twice the shallow one for half the MC
   * (fewer passes over C), and the shallow blocking still a candidate. */
  {
    /* K one base slice deep: not doubled. */
    cg_shape shallow = {4096, 4096, base};
    cg_policy ds, cands[CG_CANDIDATES_MAX];
    uint32_t n = cg_policy_candidates(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, 1, &big);
    int found = 0;
    cg_policy_default(&ds, &cpu, cpu.isa, 1, &shallow);
    CU_ASSERT(ds.pack == (CG_PACK_A | CG_PACK_B));
    CU_ASSERT_EQUAL(d.kc, 2 * ds.kc);
    CU_ASSERT(d.mc <= ds.mc / 2 && d.mc + ki->mr > ds.mc / 2);
    CU_ASSERT_FATAL(n >= 1);
    CU_ASSERT(memcmp(&cands[0], &d, sizeof(d)) == 0);
    for (uint32_t i = 1; i < n; i++)
      found |= cands[i].kc == d.kc / 2 && cands[i].mc == d.mc * 2 && cands[i].nc == d.nc &&
               cands[i].pack == d.pack && cands[i].kernel == d.kernel;
    CU_ASSERT(found);
  }
  /* K up to 1.5 base slices deep is one slice; M up to 1.25 blocks is one
   * block (2048x2048x256 and 256^3 measured 0.88x and 0.94x OpenBLAS with a
   * full slice and a thin one). */
  {
    cg_policy one, d2;
    cg_shape k_one = {2048, 2048, 0}, m_one = {0, 2048, 2048};
    cg_policy_default(&d2, &cpu, cpu.isa, 1, &(cg_shape){4096, 4096, 64});
    k_one.k = (int64_t)d2.kc + (int64_t)d2.kc / 2 - 8;
    cg_policy_default(&one, &cpu, cpu.isa, 1, &k_one);
    if ((uint64_t)k_one.k * ki->nr * 4u <= l1->size / 4 * 3)
      CU_ASSERT_EQUAL(one.kc, (uint32_t)k_one.k);
    cg_policy_default(&d2, &cpu, cpu.isa, 1, &(cg_shape){4096, 4096, 4096});
    m_one.m = (int64_t)d2.mc + 1;
    cg_policy_default(&one, &cpu, cpu.isa, 1, &m_one);
    CU_ASSERT(one.mc >= (uint32_t)m_one.m && one.mc < (uint32_t)m_one.m + ki->mr);
  }
  /* Skinny M: B packed by the kernels, and (when the kernel can copy) the
   * grouped forms among the first candidates, where early abandon keeps
   * them in the race. */
  {
    cg_shape skinny = {64, 4096, 4096};
    cg_policy cands[CG_CANDIDATES_MAX];
    uint32_t n = cg_policy_candidates(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, 1, &skinny);
    int grouped = 0;
    CU_ASSERT_FATAL(n >= 1);
    CU_ASSERT(cands[0].pack == (CG_PACK_A | CG_PACK_BJ) && cands[0].bj_group == 0);
    for (uint32_t i = 1; i < n && i < 4; i++)
      grouped += cands[i].bj_group != 0;
    CU_ASSERT_EQUAL(grouped, cg_kernel_table[cands[0].kernel].packed_copy != NULL ? 3 : 0);
  }
  /* Few rows: the vm block's rows of C take up to a quarter of L2, more
   * than half of L1 when N is long enough, so each row of B is read in
   * long runs. */
  {
    cg_policy v;
    const cg_shape few = {4, 65536, 64};
    cg_policy_default(&v, &cpu, cpu.isa, 1, &few);
    CU_ASSERT_EQUAL(cg_kernel_table[v.kernel].kind, (uint32_t)CG_KIND_VM);
    CU_ASSERT((uint64_t)v.nc * 4u * 4u <= l2->size / 4);
    if (l2->size / 4 > l1->size / 2)
      CU_ASSERT((uint64_t)v.nc * 4u * 4u > l1->size / 2);
  }
  /* K that the model's KC does not divide: the guess cuts it into equal
   * slices (up to a rounding to 8), not full slices and a thin last one. */
  {
    static const int64_t ks[] = {1000, 1030, 3000, 4100};
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
      cg_policy g;
      uint64_t used;
      cg_policy_default(&g, &cpu, cpu.isa, 1, &(cg_shape){1024, 1024, ks[i]});
      used = ((uint64_t)ks[i] + g.kc - 1) / g.kc;
      CU_ASSERT(g.kc * used - (uint64_t)ks[i] < 8u * used);
      CU_ASSERT((uint64_t)g.mc * g.kc * 4u <= l2->size);
    }
  }
}

/* How many of a candidate list use a kernel, and whether the first does. */
static int count_kernel(const cg_policy *c, uint32_t n, const char *name, int *first) {
  int count = 0;
  const int ki = cg_kernel_find(name, strlen(name));
  CU_ASSERT_FATAL(ki >= 0);
  for (uint32_t i = 0; i < n; i++)
    count += c[i].kernel == (uint32_t)ki;
  *first = n > 0 && c[0].kernel == (uint32_t)ki;
  return count;
}

/* A CPU with the given ISA and caches: L1d 32K, L2 1M, L3 l3 bytes (0:
 * none known). */
static void synthetic_cpu(cg_cpu *c, uint32_t isa, uint64_t l3) {
  memset(c, 0, sizeof(*c));
  c->isa = isa;
  c->caches[0] = (cg_cache){1, CG_CACHE_DATA, 32u << 10, 8, 64, 1};
  c->caches[1] = (cg_cache){2, CG_CACHE_UNIFIED, 1u << 20, 8, 64, 1};
  c->caches[2] = (cg_cache){3, CG_CACHE_UNIFIED, l3, 16, 64, 2};
  c->cache_count = l3 > 0 ? 3 : 2;
}

/* Thin shapes: every SIMD thin kernel of the family that the CPU runs is a
 * candidate (the AVX2 ones on an AVX-512 CPU), a streaming variant only
 * for the row (vm) or column (mv) counts where it differs from its kind's
 * kernel (AVX2 vm: one to four; AVX2 mv: one and four; AVX-512 vm: two
 * to four; AVX-512 mv: four; the prefetching variants: vm two to four,
 * mv four), and first where the large operand exceeds the last-level
 * cache (the prefetching variant where there is one). */
static void test_candidate_thin_kernels(void) {
  enum { Z = CG_ISA_AVX512, Y = CG_ISA_AVX2 };
  static const struct {
    uint32_t isa, l3_mib; /* l3_mib 0: no L3 known */
    cg_shape shape;
    /* also: a kernel that must be among the candidates; absent: one that
     * must not (NULL: nothing checked) */
    const char *first, *also, *absent;
  } cases[] = {
      {Z, 8, {1, 4096, 4096}, "avx2_vm4_stream", "avx512_vm4", "avx512_vm4_stream"},
      {Z, 8, {1, 256, 256}, "avx512_vm4", "avx2_vm4_stream", NULL},
      {Z, 0, {1, 4096, 4096}, "avx512_vm4", "avx2_vm4_stream", NULL},
      {Z, 8, {2, 4096, 4096}, "avx512_vm4_prefetch", "avx512_vm4_stream", NULL},
      {Z, 8, {1, 4096, 4096}, "avx2_vm4_stream", "avx2_vm4", "avx512_vm4_prefetch"},
      {Z, 8, {4, 256, 256}, "avx512_vm4", "avx512_vm4_prefetch", NULL},
      {Z, 8, {4, 256, 256}, "avx512_vm4", "avx512_vm4_stream", NULL},
      {Z, 0, {4, 4096, 4096}, "avx512_vm4", "avx512_vm4_stream", NULL},
      {Y, 8, {4, 4096, 4096}, "avx2_vm4_prefetch", "avx2_vm4_stream", "avx512_vm4_prefetch"},
      {Y, 8, {4096, 4, 4096}, "avx2_mv4_prefetch", "avx2_mv4_stream", "avx512_mv4_prefetch"},
      {Y, 8, {4096, 1, 4096}, "avx2_mv4_stream", "avx2_mv4", "avx2_mv4_prefetch"},
      {Y, 8, {3, 256, 256}, "avx2_vm4", "avx2_vm4_stream", NULL},
      {Z, 8, {4096, 1, 4096}, "avx2_mv4_stream", "avx512_mv4", NULL},
      {Z, 8, {64, 1, 1216}, "avx512_mv4", "avx2_mv4_stream", NULL},
      {Z, 8, {4096, 3, 4096}, "avx512_mv4", "avx2_mv4", "avx2_mv4_stream"},
      {Z, 8, {4096, 4, 4096}, "avx512_mv4_prefetch", "avx512_mv4_stream", NULL},
      {Z, 8, {1024, 4, 1024}, "avx512_mv4", "avx512_mv4_prefetch", NULL},
      {Z, 8, {4096, 1, 4096}, "avx2_mv4_stream", "avx512_mv4", "avx512_mv4_prefetch"},
      {Z, 8, {4096, 2, 4096}, "avx512_mv4", "avx2_mv4", "avx512_mv4_stream"},
      {Y, 8, {1024, 4, 1024}, "avx2_mv4", "avx2_mv4_stream", "avx512_mv4"},
      {Y, 8, {1, 4096, 4096}, "avx2_vm4_stream", "avx2_vm4", "avx2_vm4_prefetch"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cg_cpu c;
    cg_policy cands[CG_CANDIDATES_MAX];
    uint32_t n;
    int first, ignored;
    uint32_t kind;
    synthetic_cpu(&c, cases[i].isa, (uint64_t)cases[i].l3_mib << 20);
    n = cg_policy_candidates(cands, CG_CANDIDATES_MAX, &c, c.isa, 1, &cases[i].shape);
    CU_ASSERT(count_kernel(cands, n, cases[i].first, &first) >= 1);
    if (!first)
      fprintf(stderr, "thin case %zu: first candidate is not %s\n", i, cases[i].first);
    CU_ASSERT(first);
    CU_ASSERT(count_kernel(cands, n, cases[i].also, &ignored) >= 1);
    /* The family's AVX2 kernel is always there (with AVX-512: next to the
     * AVX-512 one). */
    kind = cg_kernel_table[cands[0].kernel].kind;
    CU_ASSERT(count_kernel(cands, n, kind == CG_KIND_VM ? "avx2_vm4" : "avx2_mv4", &ignored) >= 1);
    if (cases[i].absent != NULL)
      CU_ASSERT_EQUAL(count_kernel(cands, n, cases[i].absent, &ignored), 0);
    for (uint32_t j = 0; j < n; j++)
      CU_ASSERT_EQUAL(cg_policy_check(&cands[j], c.isa, NULL, 0), 0);
  }
  /* With threads, every thin kernel also with the other split: the
   * guess's splitting threshold is a guess, and a split below it can win
   * on some machines, so measurement must see both (the figure is in
   * bench/gemm/README.md, "cand_thin with threads"). */
  {
    cg_cpu c;
    cg_policy cands[CG_CANDIDATES_MAX];
    const cg_shape shape = {64, 1, 1216};
    const int ki = cg_kernel_find("avx2_mv4", strlen("avx2_mv4"));
    uint32_t n, split = 0;
    synthetic_cpu(&c, CG_ISA_AVX512, 8u << 20);
    n = cg_policy_candidates(cands, CG_CANDIDATES_MAX, &c, c.isa, 2, &shape);
    for (uint32_t j = 0; j < n; j++)
      split |= cands[j].kernel == (uint32_t)ki ? 1u << cands[j].split : 0u;
    CU_ASSERT_EQUAL(split, (1u << CG_SPLIT_NONE) | (1u << CG_SPLIT_IC));
  }
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_policy", init_suite, NULL);
  CU_add_test(s, "policy_roundtrip", test_policy_roundtrip);
  CU_add_test(s, "policy_rejects", test_policy_rejects);
  CU_add_test(s, "candidate_blocking", test_candidate_blocking);
  CU_add_test(s, "candidate_thin_kernels", test_candidate_thin_kernels);
  return olc_test_run(argc, argv);
}
