/*
 * test_cpu_gemm_plugin.c - cpu_gemm.so loaded with dlopen and driven through
 * the plugin ABI by a minimal local host table (cg_plugin_host.c; the real
 * host loader lives elsewhere): entry, create/destroy, key stability and
 * buckets, candidates, strict validate with reasons, serialize round trip,
 * prepare/run/flops.  execute has its own test (test_cpu_gemm_execute.c).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_plugin_host.h"
#include "olc/plugin.h"
#include "test_support.h"

#define pl cg_test_plugin
#define err_msg cg_test_err_msg

static int init_suite(void) { return cg_test_load(CG_TEST_PLUGIN); }

static int clean_suite(void) {
  cg_test_unload();
  return 0;
}

static void test_table(void) {
  CU_ASSERT_STRING_EQUAL(pl->name, "cpu_gemm");
  /* "2": thin kernels and bucketed keys (records of "1" are outdated). */
  CU_ASSERT_STRING_EQUAL(pl->implementation_version, "2");
  CU_ASSERT_EQUAL(pl->abi_major, OLC_PLUGIN_ABI_MAJOR);
  CU_ASSERT_EQUAL(pl->abi_minor, OLC_PLUGIN_ABI_MINOR);
  /* ABI 1.2: the numerical check's tolerances, one row per operator and
   * dtype (float32, float16, bfloat16). */
  CU_ASSERT_EQUAL_FATAL(pl->tolerance_count, 6u);
  for (uint32_t i = 0; i < pl->tolerance_count; i++) {
    CU_ASSERT_STRING_EQUAL(pl->tolerances[i].operator_name, i < 3 ? "MatMul" : "Gemm");
    CU_ASSERT(pl->tolerances[i].atol > 0 && pl->tolerances[i].rtol > 0);
  }
  CU_ASSERT_EQUAL(pl->operator_count, 2u);
  CU_ASSERT_STRING_EQUAL(pl->operators[0], "MatMul");
  CU_ASSERT_STRING_EQUAL(pl->operators[1], "Gemm");
  /* ABI 1.3: views, and B packed once. */
  CU_ASSERT_EQUAL(pl->features & OLC_PLUGIN_FEATURE_VIEWS, OLC_PLUGIN_FEATURE_VIEWS);
  CU_ASSERT(pl->pack != NULL && pl->release_packed != NULL);
  CU_ASSERT(pl->create && pl->destroy && pl->key && pl->candidates && pl->validate &&
            pl->serialize && pl->release_policy && pl->run && pl->prepare && pl->unprepare &&
            pl->flops);
  CU_ASSERT(OLC_PLUGIN_HAS_FIELD(pl, olc_plugin, execute) && pl->execute != NULL);
}

static void test_key(void) {
  void *a = NULL, *b = NULL;
  cg_test_workload w;
  cg_test_key ka, kb;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &a), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &b), OLC_PLUGIN_OK);
  cg_test_workload_set(&w, "MatMul", "64", "4096", "512");
  CU_ASSERT_EQUAL(cg_test_get_key(a, &w.wl, &ka), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(cg_test_get_key(b, &w.wl, &kb), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(ka.processor, kb.processor);
  /* m and n bucketed, k exact. */
  CU_ASSERT_STRING_EQUAL(ka.structure, "dtype=float32;m=33-64;n=2049-4096;k=512;");
  CU_ASSERT_STRING_EQUAL(ka.structure, kb.structure);
  CU_ASSERT_EQUAL(ka.threads, 2u);
  CU_ASSERT_PTR_NOT_NULL(strstr(ka.processor, " isa="));
  CU_ASSERT_PTR_NOT_NULL(strstr(ka.processor, " L1d="));
  fprintf(stderr, "processor: %s\n", ka.processor);
  CU_ASSERT_EQUAL(cg_test_get_key(a, &w.wl, &kb), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(ka.processor, kb.processor);
  cg_test_workload_set(&w, "MatMul", "3", "16", "7");
  CU_ASSERT_EQUAL(cg_test_get_key(a, &w.wl, &ka), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(ka.structure, "dtype=float32;m=3;n=16;k=7;");
  /* Not served / malformed workloads. */
  cg_test_workload_set(&w, "Conv", "64", "64", "64");
  CU_ASSERT_EQUAL(cg_test_get_key(a, &w.wl, &kb), OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "Conv"));
  cg_test_workload_set(&w, "MatMul", "64", "x", "64");
  CU_ASSERT_EQUAL(cg_test_get_key(a, &w.wl, &kb), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "n=x"));
  cg_test_workload_set(&w, "MatMul", "64", "64", "64");
  w.wl.property_count = 3; /* k missing */
  CU_ASSERT_EQUAL(cg_test_get_key(a, &w.wl, &kb), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "k is missing"));
  pl->destroy(a);
  pl->destroy(b);
}

/* The value of property name in a key's structure text. */
static int structure_value(const char *structure, const char *name, char *out, size_t cap) {
  char pat[16];
  const char *p, *end;
  snprintf(pat, sizeof pat, ";%s=", name);
  p = strstr(structure, pat);
  if (p == NULL)
    return -1;
  p += strlen(pat);
  end = strchr(p, ';');
  if (end == NULL || (size_t)(end - p) >= cap)
    return -1;
  memcpy(out, p, (size_t)(end - p));
  out[end - p] = '\0';
  return 0;
}

/* "lo-hi" or "v": the bucket must hold v. */
static int bucket_holds(const char *text, long long v) {
  long long lo, hi;
  char tail;
  if (sscanf(text, "%lld-%lld%c", &lo, &hi, &tail) == 2)
    return lo <= v && v <= hi && lo < hi;
  if (sscanf(text, "%lld%c", &lo, &tail) == 1)
    return lo == v;
  return 0;
}

/* Dynamic shapes: 200 distinct m values (and n values) give a bounded
 * number of distinct keys, each bucket holding its value, and the same
 * bucket gives the same candidates. */
static void test_key_buckets(void) {
  void *inst = NULL;
  char seen[128][64];
  int distinct = 0;
  unsigned long long x = 88172645463325252ull;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  for (int dim = 0; dim < 2; dim++) {
    distinct = 0;
    for (int i = 0; i < 200; i++) {
      cg_test_workload w;
      cg_test_key k;
      char v[64];
      long long val;
      int found = 0;
      /* 100 consecutive sizes (sequence lengths 1..100), then 100 spread
       * over 101..1048576. */
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      val = i < 100 ? i + 1 : 101 + (long long)(x % 1048476u);
      if (dim == 0)
        cg_test_workload_shape(&w, val, 64, 256);
      else
        cg_test_workload_shape(&w, 64, val, 256);
      CU_ASSERT_EQUAL_FATAL(cg_test_get_key(inst, &w.wl, &k), OLC_PLUGIN_OK);
      CU_ASSERT_EQUAL_FATAL(structure_value(k.structure, dim == 0 ? "m" : "n", v, sizeof v), 0);
      CU_ASSERT(bucket_holds(v, val));
      for (int j = 0; j < distinct && !found; j++)
        found = strcmp(seen[j], v) == 0;
      if (!found && distinct < 128)
        snprintf(seen[distinct++], sizeof seen[0], "%s", v);
    }
    /* The exact sizes (16 of m, 64 of n), then one bucket per power of
     * two up to 2^20. */
    fprintf(stderr, "%s: 200 values, %d distinct keys\n", dim == 0 ? "m" : "n", distinct);
    CU_ASSERT(distinct <= (dim == 0 ? 16 : 64) + 16);
    CU_ASSERT(distinct < 100);
  }
  /* Two sizes of one bucket: the same key and the same candidates. */
  {
    cg_test_workload w1, w2;
    cg_test_key k1, k2;
    cg_test_cands c1, c2;
    memset(&c1, 0, sizeof c1), memset(&c2, 0, sizeof c2);
    cg_test_workload_shape(&w1, 129, 1000, 512);
    cg_test_workload_shape(&w2, 250, 1024, 512);
    CU_ASSERT_EQUAL(cg_test_get_key(inst, &w1.wl, &k1), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(cg_test_get_key(inst, &w2.wl, &k2), OLC_PLUGIN_OK);
    CU_ASSERT_STRING_EQUAL(k1.structure, k2.structure);
    CU_ASSERT_STRING_EQUAL(k1.structure, "dtype=float32;m=129-256;n=513-1024;k=512;");
    CU_ASSERT_EQUAL(cg_test_candidates(inst, &w1.wl, &c1), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(cg_test_candidates(inst, &w2.wl, &c2), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL_FATAL(c1.n, c2.n);
    for (int i = 0; i < c1.n; i++) {
      cg_test_bytes b1, b2;
      CU_ASSERT_EQUAL(cg_test_serialize(inst, c1.p[i], &b1), OLC_PLUGIN_OK);
      CU_ASSERT_EQUAL(cg_test_serialize(inst, c2.p[i], &b2), OLC_PLUGIN_OK);
      CU_ASSERT_STRING_EQUAL(b1.s, b2.s);
    }
    cg_test_release_all(inst, &c1);
    cg_test_release_all(inst, &c2);
  }
  pl->destroy(inst);
}

/* The key accepts its own bucket text as a value and gives the same key
 * (prune --foreign keys a stored record's workload from its structure);
 * text that is not one of its buckets stays invalid, and so does a bucket
 * everywhere a real size is needed (candidates). */
static void test_key_own_buckets(void) {
  static const char *const bad[] = {"100-256", "129-255", "129-512", "33-16",  "17-17", "1-1",
                                    "0-16",    "17-",     "-32",     "17-32-", "17--32"};
  void *inst = NULL;
  cg_test_workload w;
  cg_test_key k1, k2;
  cg_test_cands c;
  memset(&c, 0, sizeof c);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  cg_test_workload_set(&w, "MatMul", "200", "1000", "512");
  CU_ASSERT_EQUAL_FATAL(cg_test_get_key(inst, &w.wl, &k1), OLC_PLUGIN_OK);
  cg_test_workload_set(&w, "MatMul", "129-256", "513-1024", "512");
  CU_ASSERT_EQUAL(cg_test_get_key(inst, &w.wl, &k2), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k1.structure, k2.structure);
  CU_ASSERT_STRING_EQUAL(k1.processor, k2.processor);
  CU_ASSERT_EQUAL(k1.threads, k2.threads);
  /* The largest bucket of m with the largest k its smallest m allows. */
  cg_test_workload_set(&w, "MatMul", "524289-1048576", "1", "2047");
  CU_ASSERT_EQUAL(cg_test_get_key(inst, &w.wl, &k2), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k2.structure, "dtype=float32;m=524289-1048576;n=1;k=2047;");
  cg_test_workload_set(&w, "MatMul", "129-256", "8", "8");
  CU_ASSERT_EQUAL(cg_test_candidates(inst, &w.wl, &c), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "m=129-256 is a bucket of the key, not a size"));
  cg_test_release_all(inst, &c);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cg_test_workload_set(&w, "MatMul", bad[i], "8", "8");
    CU_ASSERT_EQUAL(cg_test_get_key(inst, &w.wl, &k2), OLC_PLUGIN_E_INVALID);
    cg_test_workload_set(&w, "MatMul", "8", "8", bad[i]); /* k is never bucketed */
    CU_ASSERT_EQUAL(cg_test_get_key(inst, &w.wl, &k2), OLC_PLUGIN_E_INVALID);
  }
  cg_test_workload_set(&w, "MatMul", "8", "65-128", "33-64");
  CU_ASSERT_EQUAL(cg_test_get_key(inst, &w.wl, &k2), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "k=33-64"));
  pl->destroy(inst);
}

static void test_isa_config(void) {
  void *inst = NULL;
  cg_test_workload w;
  cg_test_key k;
  olc_plugin_kv cfg[1] = {{"isa", "ref"}};
  olc_plugin_kv bad[1] = {{"isa", "sse9"}};
  const char *avx2 = "v1 kernel=avx2_6x16 mc=72 kc=256 nc=512 split=none pack=ab";
  CU_ASSERT_EQUAL(pl->create(&olc_stub_host, bad, 1, 1, &inst), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "sse9"));
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, cfg, 1, 1, &inst), OLC_PLUGIN_OK);
  cg_test_workload_set(&w, "MatMul", "8", "8", "8");
  CU_ASSERT_EQUAL(cg_test_get_key(inst, &w.wl, &k), OLC_PLUGIN_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(k.processor, " isa=ref"));
  CU_ASSERT_EQUAL(pl->validate(inst, avx2, strlen(avx2), NULL), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "needs avx2"));
  pl->destroy(inst);
}

/* Every candidate of a workload round-trips through serialize/validate
 * and runs on the prepared state. */
static void roundtrip_run(void *inst, const char *m, const char *n, const char *k) {
  void *state = NULL;
  cg_test_workload w;
  cg_test_cands c;
  double flops = 0;
  memset(&c, 0, sizeof(c));
  cg_test_workload_set(&w, "MatMul", m, n, k);
  CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &w.wl, &c), OLC_PLUGIN_OK);
  CU_ASSERT(c.n >= 4 && c.n <= 24);
  CU_ASSERT_EQUAL_FATAL(pl->prepare(inst, &w.wl, &state), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(pl->flops(inst, &w.wl, &flops), OLC_PLUGIN_OK);
  CU_ASSERT_DOUBLE_EQUAL(flops, 2.0 * atof(m) * atof(n) * atof(k), 0.5);
  for (int i = 0; i < c.n; i++) {
    cg_test_bytes b, b2;
    void *back = NULL;
    CU_ASSERT_EQUAL_FATAL(cg_test_serialize(inst, c.p[i], &b), OLC_PLUGIN_OK);
    CU_ASSERT(strncmp(b.s, "v1 kernel=", 10) == 0);
    CU_ASSERT_EQUAL(pl->validate(inst, b.s, b.len, NULL), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL_FATAL(pl->validate(inst, b.s, b.len, &back), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(cg_test_serialize(inst, back, &b2), OLC_PLUGIN_OK);
    CU_ASSERT_STRING_EQUAL(b.s, b2.s);
    CU_ASSERT_EQUAL(pl->run(inst, &w.wl, state, back), OLC_PLUGIN_OK);
    pl->release_policy(inst, back);
  }
  /* run refuses a state prepared for another shape */
  cg_test_workload_set(&w, "MatMul", m, n, "258");
  CU_ASSERT_EQUAL(pl->run(inst, &w.wl, state, c.p[0]), OLC_PLUGIN_E_INVALID);
  cg_test_workload_set(&w, "MatMul", m, n, k);
  CU_ASSERT_EQUAL(pl->run(inst, &w.wl, NULL, c.p[0]), OLC_PLUGIN_E_INVALID);
  cg_test_release_all(inst, &c);
  pl->unprepare(inst, state);
}

static void test_candidates_roundtrip_run(void) {
  void *inst = NULL;
  cg_test_workload w;
  cg_test_cands c;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  roundtrip_run(inst, "67", "131", "259");
  roundtrip_run(inst, "1", "300", "259"); /* vm first */
  roundtrip_run(inst, "300", "1", "259"); /* mv first */
  roundtrip_run(inst, "32", "32", "32");  /* direct first */
  pl->release_policy(inst, NULL);
  /* A sink that refuses stops the emission without failing. */
  memset(&c, 0, sizeof(c));
  c.stop_after = 2;
  cg_test_workload_set(&w, "MatMul", "67", "131", "259");
  CU_ASSERT_EQUAL(cg_test_candidates(inst, &w.wl, &c), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(c.n, 2);
  cg_test_release_all(inst, &c);
  pl->destroy(inst);
}

/* The plugin's first guess per shape family. */
static void test_first_guess(void) {
  static const struct {
    const char *m, *n, *k, *kernel_part, *pack;
  } cases[] = {
      /* "_vm4" and "_mv4" also match the streaming variants, the first
       * guess where the large operand exceeds this machine's LLC. */
      {"1", "4096", "4096", "_vm4", "pack=none"}, {"4", "1024", "512", "_vm4 ", "pack=none"},
      {"4096", "1", "4096", "_mv4", "pack=none"}, {"64", "1", "1216", "_mv4 ", "pack=none"},
      {"1", "1", "4096", "_mv4 ", "pack=none"},   {"32", "32", "32", "x", "split=none pack=none"},
      {"1024", "1024", "1024", "x", "pack=ab"}};
  void *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cg_test_workload w;
    cg_test_cands c;
    cg_test_bytes b;
    memset(&c, 0, sizeof c);
    cg_test_workload_set(&w, "MatMul", cases[i].m, cases[i].n, cases[i].k);
    CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &w.wl, &c), OLC_PLUGIN_OK);
    CU_ASSERT_FATAL(c.n >= 1);
    CU_ASSERT_EQUAL(cg_test_serialize(inst, c.p[0], &b), OLC_PLUGIN_OK);
    if (strstr(b.s, cases[i].kernel_part) == NULL || strstr(b.s, cases[i].pack) == NULL) {
      fprintf(stderr, "%sx%sx%s: first guess %s\n", cases[i].m, cases[i].n, cases[i].k, b.s);
      CU_FAIL("unexpected first guess");
    }
    cg_test_release_all(inst, &c);
  }
  pl->destroy(inst);
}

static void test_validate_rejects(void) {
  void *inst = NULL, *p = (void *)&inst;
  static const char *const bad[] = {"v1 kernel=ref_4x8", "junk",
                                    "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab x",
                                    "v1 kernel=ref_4x8 mc=64 kc=0 nc=512 split=none pack=ab",
                                    /* thin kernels: one text per behaviour */
                                    "v1 kernel=ref_vm4 mc=8 kc=16 nc=512 split=none pack=none",
                                    "v1 kernel=ref_vm4 mc=4 kc=16 nc=512 split=ic pack=none",
                                    "v1 kernel=ref_vm4 mc=4 kc=16 nc=512 split=none pack=b",
                                    "v1 kernel=ref_mv4 mc=4 kc=16 nc=8 split=none pack=none",
                                    "v1 kernel=ref_mv4 mc=4 kc=16 nc=4 split=jc pack=none"};
  static const char *const good[] = {"v1 kernel=ref_vm4 mc=4 kc=16 nc=512 split=jc pack=none",
                                     "v1 kernel=ref_mv4 mc=4 kc=1024 nc=4 split=ic pack=none"};
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    olc_stub_host_clear_error();
    p = (void *)&inst;
    CU_ASSERT_EQUAL(pl->validate(inst, bad[i], strlen(bad[i]), &p), OLC_PLUGIN_E_INVALID);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT(strncmp(err_msg, "policy", 6) == 0);
  }
  for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
    CU_ASSERT_EQUAL(pl->validate(inst, good[i], strlen(good[i]), NULL), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(pl->validate(inst, "", 0, NULL), OLC_PLUGIN_E_INVALID);
  pl->destroy(inst);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_plugin", init_suite, clean_suite);
  CU_add_test(s, "table", test_table);
  CU_add_test(s, "key", test_key);
  CU_add_test(s, "key_buckets", test_key_buckets);
  CU_add_test(s, "key_own_buckets", test_key_own_buckets);
  CU_add_test(s, "isa_config", test_isa_config);
  CU_add_test(s, "candidates_roundtrip_run", test_candidates_roundtrip_run);
  CU_add_test(s, "first_guess", test_first_guess);
  CU_add_test(s, "validate_rejects", test_validate_rejects);
  return olc_test_run(argc, argv);
}
