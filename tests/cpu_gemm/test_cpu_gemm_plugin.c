/*
 * test_cpu_gemm_plugin.c - cpu_gemm.so loaded with dlopen and driven through
 * the plugin ABI by a minimal local host table (the real host loader lives
 * elsewhere): entry, create/destroy, key stability, candidates, strict
 * validate with reasons, serialize round trip, prepare/run/flops.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "olc/plugin.h"
#include "test_support.h"

/* ---- the local host ---- */
static _Thread_local char err_msg[256];
static _Thread_local int32_t err_code;

static void h_log(void *ctx, int32_t level, const char *message) {
  (void)ctx;
  fprintf(stderr, "[plugin log %d] %s\n", level, message);
}
static void h_set_error(void *ctx, int32_t code, const char *message) {
  (void)ctx;
  err_code = code;
  snprintf(err_msg, sizeof(err_msg), "%s", message);
}
static uint64_t h_now_ns(void *ctx) {
  struct timespec ts;
  (void)ctx;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static int32_t h_lookup(void *ctx, void *instance, const olc_plugin_workload *w,
                        const olc_plugin_byte_sink *out) {
  (void)ctx, (void)instance, (void)w, (void)out;
  return OLC_PLUGIN_E_NOT_FOUND;
}
static int32_t h_save(void *ctx, void *instance, const olc_plugin_workload *w, const void *p,
                      uint64_t len, const olc_plugin_measurement *m, uint32_t count) {
  (void)ctx, (void)instance, (void)w, (void)p, (void)len, (void)m, (void)count;
  return OLC_PLUGIN_E_UNSUPPORTED;
}
static const olc_plugin_host host = {sizeof(olc_plugin_host),
                                     OLC_PLUGIN_ABI_MINOR,
                                     NULL,
                                     h_log,
                                     h_set_error,
                                     h_now_ns,
                                     h_lookup,
                                     h_save};

static void *dl;
static const olc_plugin *pl;

/* ---- sinks ---- */
typedef struct key_rec {
  char processor[512];
  uint32_t threads;
  char structure[256];
} key_rec;
static int32_t k_proc(void *ctx, const char *p) {
  snprintf(((key_rec *)ctx)->processor, 512, "%s", p);
  return OLC_PLUGIN_OK;
}
static int32_t k_threads(void *ctx, uint32_t t) {
  ((key_rec *)ctx)->threads = t;
  return OLC_PLUGIN_OK;
}
static int32_t k_struct(void *ctx, const char *name, const char *value) {
  key_rec *k = ctx;
  size_t len = strlen(k->structure);
  snprintf(k->structure + len, sizeof(k->structure) - len, "%s=%s;", name, value);
  return OLC_PLUGIN_OK;
}

typedef struct cands {
  void *p[64];
  int n, stop_after;
} cands;
static int32_t c_emit(void *ctx, void *policy) {
  cands *c = ctx;
  c->p[c->n++] = policy;
  return c->stop_after > 0 && c->n >= c->stop_after ? OLC_PLUGIN_E_LIMIT : OLC_PLUGIN_OK;
}

typedef struct bytes {
  char s[256];
  size_t len;
} bytes;
static int32_t b_write(void *ctx, const void *data, uint64_t len) {
  bytes *b = ctx;
  if (b->len + len >= sizeof(b->s))
    return OLC_PLUGIN_E_LIMIT;
  memcpy(b->s + b->len, data, (size_t)len);
  b->len += (size_t)len;
  b->s[b->len] = '\0';
  return OLC_PLUGIN_OK;
}

static olc_plugin_kv props[4];
static olc_plugin_workload wl;

static void set_workload(const char *op, const char *m, const char *n, const char *k) {
  props[0] = (olc_plugin_kv){"dtype", "float32"};
  props[1] = (olc_plugin_kv){"m", m};
  props[2] = (olc_plugin_kv){"n", n};
  props[3] = (olc_plugin_kv){"k", k};
  memset(&wl, 0, sizeof(wl));
  wl.struct_size = sizeof(wl);
  wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  wl.name = "mm";
  wl.operator_name = op;
  wl.properties = props;
  wl.property_count = 4;
}

static int init_suite(void) {
  olc_plugin_entry_fn entry;
  dl = dlopen(CG_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", CG_TEST_PLUGIN, dlerror());
    return 1;
  }
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL)
    return 1;
  if (entry(2u, &host, &pl) != OLC_PLUGIN_E_ABI) /* wrong major refused */
    return 1;
  return entry(OLC_PLUGIN_ABI_MAJOR, &host, &pl) == OLC_PLUGIN_OK ? 0 : 1;
}

static int clean_suite(void) {
  if (dl != NULL)
    dlclose(dl);
  return 0;
}

static void test_table(void) {
  CU_ASSERT_STRING_EQUAL(pl->name, "cpu_gemm");
  CU_ASSERT_STRING_EQUAL(pl->implementation_version, "1");
  CU_ASSERT_EQUAL(pl->abi_major, OLC_PLUGIN_ABI_MAJOR);
  CU_ASSERT_EQUAL(pl->operator_count, 1u);
  CU_ASSERT_STRING_EQUAL(pl->operators[0], "MatMul");
  CU_ASSERT(pl->create && pl->destroy && pl->key && pl->candidates && pl->validate &&
            pl->serialize && pl->release_policy && pl->run && pl->prepare && pl->unprepare &&
            pl->flops);
}

static void get_key(void *inst, key_rec *k, int32_t expect) {
  olc_plugin_key_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, k, k_proc, k_threads, k_struct};
  memset(k, 0, sizeof(*k));
  CU_ASSERT_EQUAL(pl->key(inst, &wl, &sink), expect);
}

static void test_key(void) {
  void *a = NULL, *b = NULL;
  key_rec ka, kb;
  CU_ASSERT_EQUAL_FATAL(pl->create(&host, NULL, 0, 2, &a), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL_FATAL(pl->create(&host, NULL, 0, 2, &b), OLC_PLUGIN_OK);
  set_workload("MatMul", "64", "4096", "512");
  get_key(a, &ka, OLC_PLUGIN_OK);
  get_key(b, &kb, OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(ka.processor, kb.processor);
  CU_ASSERT_STRING_EQUAL(ka.structure, "dtype=float32;m=64;n=4096;k=512;");
  CU_ASSERT_STRING_EQUAL(ka.structure, kb.structure);
  CU_ASSERT_EQUAL(ka.threads, 2u);
  CU_ASSERT_PTR_NOT_NULL(strstr(ka.processor, " isa="));
  CU_ASSERT_PTR_NOT_NULL(strstr(ka.processor, " L1d="));
  fprintf(stderr, "processor: %s\n", ka.processor);
  get_key(a, &kb, OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(ka.processor, kb.processor);
  /* Not served / malformed workloads. */
  set_workload("Conv", "64", "64", "64");
  get_key(a, &kb, OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "Conv"));
  set_workload("MatMul", "64", "x", "64");
  get_key(a, &kb, OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "n=x"));
  set_workload("MatMul", "64", "64", "64");
  wl.property_count = 3; /* k missing */
  get_key(a, &kb, OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "k is missing"));
  pl->destroy(a);
  pl->destroy(b);
}

static void test_isa_config(void) {
  void *inst = NULL;
  key_rec k;
  olc_plugin_kv cfg[1] = {{"isa", "ref"}};
  olc_plugin_kv bad[1] = {{"isa", "sse9"}};
  const char *avx2 = "v1 kernel=avx2_6x16 mc=72 kc=256 nc=512 split=none pack=ab";
  CU_ASSERT_EQUAL(pl->create(&host, bad, 1, 1, &inst), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "sse9"));
  CU_ASSERT_EQUAL_FATAL(pl->create(&host, cfg, 1, 1, &inst), OLC_PLUGIN_OK);
  set_workload("MatMul", "8", "8", "8");
  get_key(inst, &k, OLC_PLUGIN_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(k.processor, " isa=ref"));
  CU_ASSERT_EQUAL(pl->validate(inst, avx2, strlen(avx2), NULL), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_msg, "needs avx2"));
  pl->destroy(inst);
}

static void test_candidates_roundtrip_run(void) {
  void *inst = NULL, *state = NULL;
  cands c;
  olc_plugin_policy_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, &c, c_emit};
  double flops = 0;
  CU_ASSERT_EQUAL_FATAL(pl->create(&host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  set_workload("MatMul", "67", "131", "259");
  memset(&c, 0, sizeof(c));
  CU_ASSERT_EQUAL_FATAL(pl->candidates(inst, &wl, &sink), OLC_PLUGIN_OK);
  CU_ASSERT(c.n >= 4 && c.n <= 24);
  CU_ASSERT_EQUAL_FATAL(pl->prepare(inst, &wl, &state), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(pl->flops(inst, &wl, &flops), OLC_PLUGIN_OK);
  CU_ASSERT_DOUBLE_EQUAL(flops, 2.0 * 67 * 131 * 259, 0.5);
  for (int i = 0; i < c.n; i++) {
    bytes b = {{0}, 0}, b2 = {{0}, 0};
    olc_plugin_byte_sink out = {sizeof(out), OLC_PLUGIN_ABI_MINOR, &b, b_write};
    olc_plugin_byte_sink out2 = {sizeof(out2), OLC_PLUGIN_ABI_MINOR, &b2, b_write};
    void *back = NULL;
    CU_ASSERT_EQUAL_FATAL(pl->serialize(inst, c.p[i], &out), OLC_PLUGIN_OK);
    CU_ASSERT(strncmp(b.s, "v1 kernel=", 10) == 0);
    CU_ASSERT_EQUAL(pl->validate(inst, b.s, b.len, NULL), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL_FATAL(pl->validate(inst, b.s, b.len, &back), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(pl->serialize(inst, back, &out2), OLC_PLUGIN_OK);
    CU_ASSERT_STRING_EQUAL(b.s, b2.s);
    CU_ASSERT_EQUAL(pl->run(inst, &wl, state, back), OLC_PLUGIN_OK);
    pl->release_policy(inst, back);
  }
  /* run refuses a state prepared for another shape */
  set_workload("MatMul", "67", "131", "258");
  CU_ASSERT_EQUAL(pl->run(inst, &wl, state, c.p[0]), OLC_PLUGIN_E_INVALID);
  set_workload("MatMul", "67", "131", "259");
  CU_ASSERT_EQUAL(pl->run(inst, &wl, NULL, c.p[0]), OLC_PLUGIN_E_INVALID);
  for (int i = 0; i < c.n; i++)
    pl->release_policy(inst, c.p[i]);
  pl->release_policy(inst, NULL);
  /* A sink that refuses stops the emission without failing. */
  memset(&c, 0, sizeof(c));
  c.stop_after = 2;
  CU_ASSERT_EQUAL(pl->candidates(inst, &wl, &sink), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(c.n, 2);
  for (int i = 0; i < c.n; i++)
    pl->release_policy(inst, c.p[i]);
  pl->unprepare(inst, state);
  pl->destroy(inst);
}

static void test_validate_rejects(void) {
  void *inst = NULL, *p = (void *)&inst;
  static const char *const bad[] = {"v1 kernel=ref_4x8", "junk",
                                    "v1 kernel=ref_4x8 mc=64 kc=256 nc=512 split=none pack=ab x",
                                    "v1 kernel=ref_4x8 mc=64 kc=0 nc=512 split=none pack=ab"};
  CU_ASSERT_EQUAL_FATAL(pl->create(&host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    err_msg[0] = '\0';
    p = (void *)&inst;
    CU_ASSERT_EQUAL(pl->validate(inst, bad[i], strlen(bad[i]), &p), OLC_PLUGIN_E_INVALID);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT(strncmp(err_msg, "cpu_gemm: policy", 16) == 0);
  }
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
  CU_add_test(s, "isa_config", test_isa_config);
  CU_add_test(s, "candidates_roundtrip_run", test_candidates_roundtrip_run);
  CU_add_test(s, "validate_rejects", test_validate_rejects);
  return olc_test_run(argc, argv);
}
