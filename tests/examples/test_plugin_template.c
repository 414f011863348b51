/*
 * test_plugin_template.c - examples/plugin_template's template_matmul.so
 * loaded with dlopen and driven through the plugin ABI by the stub host
 * (plugin-api/stub): the table, key, candidates (and that a refusing sink stops
 * them), strict validation with messages that carry no plugin prefix, the
 * config entries, prepare/run, and execute against a plain reference on
 * ragged shapes, wide leading dimensions, alpha/beta cases, refused
 * variants, and from several threads at once.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "olc/plugin.h"
#include "olc_stub_host.h"
#include "test_support.h"

/* ---- the plugin ---- */
/* The calling thread's last set_error. */
#define err_msg (olc_stub_host_last_error()->message)

static void *dl;
static const olc_plugin *pl;

static void clear_error(void) { olc_stub_host_clear_error(); }

/* The plugin's own messages: set, and without a "template_matmul" prefix
 * (the host adds the plugin's name). */
static void expect_message(void) {
  CU_ASSERT(err_msg[0] != 0);
  CU_ASSERT(strncmp(err_msg, "template_matmul", 15) != 0);
}

static void *create(const olc_plugin_kv *config, uint32_t count) {
  void *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, config, count, 4, &inst), OLC_PLUGIN_OK);
  return inst;
}

static int init_suite(void) {
  olc_plugin_entry_fn entry;
  dl = dlopen(TEMPLATE_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", TEMPLATE_PLUGIN, dlerror());
    return 1;
  }
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL || entry(OLC_PLUGIN_ABI_MAJOR, &olc_stub_host, &pl) != OLC_PLUGIN_OK)
    return 1;
  return 0;
}

static int clean_suite(void) { return 0; } /* never dlclose (plugin.h) */

/* A workload of shape m x n x k. */
typedef struct wl {
  char m[16], n[16], k[16];
  olc_plugin_kv kv[4];
  olc_plugin_workload w;
} wl;

static const olc_plugin_workload *workload(wl *x, int m, int n, int k) {
  snprintf(x->m, sizeof x->m, "%d", m);
  snprintf(x->n, sizeof x->n, "%d", n);
  snprintf(x->k, sizeof x->k, "%d", k);
  x->kv[0] = (olc_plugin_kv){"dtype", "float32"};
  x->kv[1] = (olc_plugin_kv){"m", x->m};
  x->kv[2] = (olc_plugin_kv){"n", x->n};
  x->kv[3] = (olc_plugin_kv){"k", x->k};
  memset(&x->w, 0, sizeof x->w);
  x->w.struct_size = sizeof x->w;
  x->w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  x->w.name = "t";
  x->w.operator_name = "MatMul";
  x->w.properties = x->kv;
  x->w.property_count = 4;
  return &x->w;
}

/* ---- sinks ---- */
typedef struct key_rec {
  char processor[256];
  uint32_t threads;
  char structure[256];
} key_rec;
static int32_t k_proc(void *ctx, const char *p) {
  snprintf(((key_rec *)ctx)->processor, 256, "%s", p);
  return OLC_PLUGIN_OK;
}
static int32_t k_threads(void *ctx, uint32_t t) {
  ((key_rec *)ctx)->threads = t;
  return OLC_PLUGIN_OK;
}
static int32_t k_struct(void *ctx, const char *name, const char *value) {
  key_rec *k = ctx;
  size_t len = strlen(k->structure);
  snprintf(k->structure + len, sizeof k->structure - len, "%s=%s;", name, value);
  return OLC_PLUGIN_OK;
}

typedef struct cands {
  void *p[64];
  int count;
  int emits;
  int refuse_after; /* 0: never refuse */
} cands;
static int32_t c_emit(void *ctx, void *policy) {
  cands *c = ctx;
  c->emits++;
  if (c->count < 64)
    c->p[c->count++] = policy; /* owned here, refused or not */
  return c->refuse_after > 0 && c->emits >= c->refuse_after ? OLC_PLUGIN_E_LIMIT : OLC_PLUGIN_OK;
}
static int32_t candidates(void *inst, const olc_plugin_workload *w, cands *c) {
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, c, c_emit};
  return pl->candidates(inst, w, &sink);
}
static void release_all(void *inst, cands *c) {
  for (int i = 0; i < c->count; i++)
    pl->release_policy(inst, c->p[i]);
  c->count = 0;
}

typedef struct bytes {
  char text[128];
  size_t len;
} bytes;
static int32_t b_write(void *ctx, const void *data, uint64_t len) {
  bytes *b = ctx;
  if (b->len + len >= sizeof b->text)
    return OLC_PLUGIN_E_LIMIT;
  memcpy(b->text + b->len, data, (size_t)len);
  b->len += (size_t)len;
  b->text[b->len] = 0;
  return OLC_PLUGIN_OK;
}
static void serialize(void *inst, const void *policy, bytes *b) {
  olc_plugin_byte_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, b, b_write};
  b->len = 0;
  b->text[0] = 0;
  CU_ASSERT_EQUAL(pl->serialize(inst, policy, &sink), OLC_PLUGIN_OK);
}

/* ---- tests ---- */

static void test_table(void) {
  CU_ASSERT_STRING_EQUAL(pl->name, "template_matmul");
  CU_ASSERT_EQUAL(pl->abi_major, OLC_PLUGIN_ABI_MAJOR);
  CU_ASSERT(OLC_PLUGIN_HAS_FIELD(pl, olc_plugin, execute));
  CU_ASSERT_PTR_NOT_NULL(pl->execute);
  CU_ASSERT_PTR_NOT_NULL(pl->prepare);
  CU_ASSERT_EQUAL(pl->operator_count, 1u);
  CU_ASSERT_STRING_EQUAL(pl->operators[0], "MatMul");
}

static void test_key(void) {
  void *inst = create(NULL, 0);
  wl x;
  key_rec k;
  olc_plugin_key_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &k, k_proc, k_threads, k_struct,
                              NULL};
  memset(&k, 0, sizeof k);
  CU_ASSERT_EQUAL(pl->key(inst, workload(&x, 8, 512, 64), &sink), OLC_PLUGIN_OK);
  CU_ASSERT(k.processor[0] != 0);
  CU_ASSERT_EQUAL(k.threads, 1u); /* one thread, whatever create was given */
  CU_ASSERT_STRING_EQUAL(k.structure, "dtype=float32;m=8;n=512;k=64;");
  x.w.operator_name = "Conv";
  clear_error();
  CU_ASSERT_EQUAL(pl->key(inst, &x.w, &sink), OLC_PLUGIN_E_UNSUPPORTED);
  expect_message();
  workload(&x, 8, 512, 64);
  x.kv[2].value = "05";
  clear_error();
  CU_ASSERT_EQUAL(pl->key(inst, &x.w, &sink), OLC_PLUGIN_E_INVALID);
  expect_message();
  pl->destroy(inst);
}

static void test_candidates(void) {
  void *inst = create(NULL, 0);
  wl x;
  cands c;
  bytes b;
  memset(&c, 0, sizeof c);
  CU_ASSERT_EQUAL(candidates(inst, workload(&x, 256, 256, 256), &c), OLC_PLUGIN_OK);
  CU_ASSERT(c.count >= 4);
  serialize(inst, c.p[0], &b);
  CU_ASSERT_STRING_EQUAL(b.text, "v1 mb=64 nb=64 kb=128"); /* the guess comes first */
  for (int i = 0; i < c.count; i++) {
    void *back = NULL;
    bytes again;
    serialize(inst, c.p[i], &b);
    CU_ASSERT_EQUAL(pl->validate(inst, b.text, b.len, &back), OLC_PLUGIN_OK);
    serialize(inst, back, &again);
    CU_ASSERT_STRING_EQUAL(again.text, b.text);
    for (int j = 0; j < i; j++) { /* no candidate twice */
      bytes other;
      serialize(inst, c.p[j], &other);
      CU_ASSERT(strcmp(other.text, b.text) != 0);
    }
    pl->release_policy(inst, back);
  }
  release_all(inst, &c);
  /* A 1 x 1 x 1 product clips every row to one policy. */
  CU_ASSERT_EQUAL(candidates(inst, workload(&x, 1, 1, 1), &c), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(c.count, 1);
  release_all(inst, &c);
  /* A sink that refuses stops the emission: no call after the refusal. */
  memset(&c, 0, sizeof c);
  c.refuse_after = 2;
  CU_ASSERT_EQUAL(candidates(inst, workload(&x, 256, 256, 256), &c), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(c.emits, 2);
  release_all(inst, &c);
  pl->destroy(inst);
}

static void test_validate(void) {
  static const char *const bad[] = {"",
                                    "v1",
                                    "v1 mb=64 nb=64",
                                    "v1 mb=064 nb=64 kb=128",
                                    "v1 mb=64 nb=64 kb=128 ",
                                    "v2 mb=64 nb=64 kb=128",
                                    "v1 mb=0 nb=64 kb=128",
                                    "v1 mb=2048 nb=64 kb=128",
                                    "v1 nb=64 mb=64 kb=128",
                                    "v1  mb=64 nb=64 kb=128",
                                    "v1 mb=+4 nb=64 kb=128"};
  void *inst = create(NULL, 0);
  void *p = &p;
  CU_ASSERT_EQUAL(pl->validate(inst, "v1 mb=1 nb=1024 kb=7", 20, NULL), OLC_PLUGIN_OK);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    clear_error();
    CU_ASSERT_EQUAL(pl->validate(inst, bad[i], strlen(bad[i]), &p), OLC_PLUGIN_E_INVALID);
    CU_ASSERT_PTR_NULL(p);
    expect_message();
  }
  /* Bytes are not NUL-terminated: only len of them count. */
  CU_ASSERT_EQUAL(pl->validate(inst, "v1 mb=8 nb=8 kb=8X", 17, NULL), OLC_PLUGIN_OK);
  pl->destroy(inst);
}

static void test_config(void) {
  olc_plugin_kv cfg[3] = {{"enabled", "true"}, {"critical", "false"}, {"max_block", "32"}};
  olc_plugin_kv unknown = {"tile", "4"};
  void *inst = create(cfg, 3), *none = &none;
  wl x;
  cands c;
  memset(&c, 0, sizeof c);
  CU_ASSERT_EQUAL(candidates(inst, workload(&x, 256, 256, 256), &c), OLC_PLUGIN_OK);
  for (int i = 0; i < c.count; i++) {
    bytes b;
    unsigned mb, nb, kb;
    serialize(inst, c.p[i], &b);
    CU_ASSERT_EQUAL(sscanf(b.text, "v1 mb=%u nb=%u kb=%u", &mb, &nb, &kb), 3);
    CU_ASSERT(mb <= 32 && nb <= 32 && kb <= 32);
  }
  release_all(inst, &c);
  clear_error();
  CU_ASSERT_EQUAL(pl->validate(inst, "v1 mb=64 nb=8 kb=8", 18, NULL), OLC_PLUGIN_E_INVALID);
  expect_message();
  pl->destroy(inst);
  clear_error();
  CU_ASSERT_EQUAL(pl->create(&olc_stub_host, &unknown, 1, 1, &none), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NULL(none);
  CU_ASSERT(strstr(err_msg, "tile") != NULL);
  expect_message();
}

static void test_prepare_run(void) {
  void *inst = create(NULL, 0), *state = NULL;
  wl x;
  cands c;
  double flops = 0;
  memset(&c, 0, sizeof c);
  workload(&x, 33, 17, 65);
  CU_ASSERT_EQUAL(candidates(inst, &x.w, &c), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL_FATAL(pl->prepare(inst, &x.w, &state), OLC_PLUGIN_OK);
  for (int i = 0; i < c.count; i++)
    CU_ASSERT_EQUAL(pl->run(inst, &x.w, state, c.p[i]), OLC_PLUGIN_OK);
  pl->unprepare(inst, state);
  CU_ASSERT_EQUAL(pl->flops(inst, &x.w, &flops), OLC_PLUGIN_OK);
  CU_ASSERT_DOUBLE_EQUAL(flops, 2.0 * 33 * 17 * 65, 0.5);
  release_all(inst, &c);
  pl->destroy(inst);
}

/* ---- execute ---- */

#define SENTINEL 12345.0f

typedef struct product {
  int64_t m, n, k, lda, ldb, ldc;
  float *a, *b, *c;
  double *want, *scale; /* the reference and the magnitude of its terms */
} product;

static float value(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 9) & 0x3fffu) / 8192.0f - 1.0f;
}

/* Operands with rows wider than the matrices (lda > k, ...), C's padding
 * holding a sentinel, and C itself NaN when beta == 0 (it must not be read). */
static void product_init(product *p, int64_t m, int64_t n, int64_t k, double alpha, double beta,
                         unsigned seed) {
  p->m = m, p->n = n, p->k = k, p->lda = k + 3, p->ldb = n + 1, p->ldc = n + 5;
  p->a = malloc((size_t)(m * p->lda) * sizeof(float));
  p->b = malloc((size_t)(k * p->ldb) * sizeof(float));
  p->c = malloc((size_t)(m * p->ldc) * sizeof(float));
  p->want = malloc((size_t)(m * n) * sizeof(double));
  p->scale = malloc((size_t)(m * n) * sizeof(double));
  CU_ASSERT_FATAL(p->a && p->b && p->c && p->want && p->scale);
  for (int64_t i = 0; i < m * p->lda; i++)
    p->a[i] = value(&seed);
  for (int64_t i = 0; i < k * p->ldb; i++)
    p->b[i] = value(&seed);
  for (int64_t i = 0; i < m * p->ldc; i++)
    p->c[i] = i % p->ldc >= n ? SENTINEL : beta == 0.0 ? NAN : value(&seed);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double sum = 0, mag = 0, c0 = beta == 0.0 ? 0 : beta * p->c[i * p->ldc + j];
      for (int64_t q = 0; alpha != 0.0 && q < k; q++) {
        double t = (double)p->a[i * p->lda + q] * p->b[q * p->ldb + j];
        sum += t;
        mag += t < 0 ? -t : t;
      }
      p->want[i * n + j] = alpha * sum + c0;
      p->scale[i * n + j] = (alpha < 0 ? -alpha : alpha) * mag + (c0 < 0 ? -c0 : c0);
    }
}

static void product_free(product *p) {
  free(p->a), free(p->b), free(p->c), free(p->want), free(p->scale);
}

typedef struct call {
  olc_plugin_tensor in[2], out[1];
  olc_plugin_exec_args args;
} call;

static void call_init(call *x, const product *p, double alpha, double beta) {
  x->in[0] = olc_stub_matrix(p->a, p->m, p->k, p->lda);
  x->in[1] = olc_stub_matrix(p->b, p->k, p->n, p->ldb);
  x->out[0] = olc_stub_matrix(p->c, p->m, p->n, p->ldc);
  memset(&x->args, 0, sizeof x->args);
  x->args.struct_size = sizeof x->args;
  x->args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  x->args.inputs = x->in, x->args.input_count = 2;
  x->args.outputs = x->out, x->args.output_count = 1;
  x->args.alpha = alpha, x->args.beta = beta;
}

/* Mismatches of C against the reference, padding included. */
static int product_check(const product *p) {
  int bad = 0;
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t j = 0; j < p->ldc; j++) {
      double got = p->c[i * p->ldc + j];
      if (j >= p->n) {
        bad += got != SENTINEL;
        continue;
      }
      double d = got - p->want[i * p->n + j];
      bad += !((d < 0 ? -d : d) <= 1e-5 * p->scale[i * p->n + j] + 1e-6);
    }
  return bad;
}

static int run_product(void *inst, const void *policy, int64_t m, int64_t n, int64_t k,
                       double alpha, double beta, unsigned seed) {
  product p;
  call x;
  int bad;
  product_init(&p, m, n, k, alpha, beta, seed);
  call_init(&x, &p, alpha, beta);
  clear_error();
  if (pl->execute(inst, NULL, policy, &x.args) != OLC_PLUGIN_OK) {
    fprintf(stderr, "execute failed: %s\n", err_msg);
    product_free(&p);
    return 1;
  }
  bad = product_check(&p);
  product_free(&p);
  return bad;
}

static void test_execute_reference(void) {
  static const int64_t shapes[][3] = {{1, 1, 1},    {1, 17, 5},   {17, 1, 33},
                                      {33, 65, 17}, {70, 3, 130}, {5, 300, 2}};
  static const double ab[][2] = {{1, 0}, {0.5, 2}, {-1, 1}, {0, 0.5}, {2, 0}};
  static const char *const odd[] = {"v1 mb=1 nb=1 kb=1", "v1 mb=3 nb=5 kb=7"};
  void *inst = create(NULL, 0);
  wl x;
  cands c;
  int bad = 0, products = 0;
  memset(&c, 0, sizeof c);
  CU_ASSERT_EQUAL(candidates(inst, workload(&x, 256, 256, 256), &c), OLC_PLUGIN_OK);
  for (size_t i = 0; i < 2; i++)
    CU_ASSERT_EQUAL(pl->validate(inst, odd[i], strlen(odd[i]), &c.p[c.count++]), OLC_PLUGIN_OK);
  for (int i = 0; i < c.count; i++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (size_t j = 0; j < sizeof ab / sizeof ab[0]; j++, products++)
        bad += run_product(inst, c.p[i], shapes[s][0], shapes[s][1], shapes[s][2], ab[j][0],
                           ab[j][1], (unsigned)(products + 1));
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(products >= 100);
  release_all(inst, &c);
  pl->destroy(inst);
}

/* A refused call returns its status with a message and leaves C alone. */
static void expect_refused(void *inst, const void *policy, call *x, const product *p,
                           int32_t want) {
  size_t n = (size_t)(p->m * p->ldc) * sizeof(float);
  float *before = malloc(n);
  CU_ASSERT_FATAL(before != NULL);
  memcpy(before, p->c, n);
  clear_error();
  CU_ASSERT_EQUAL(pl->execute(inst, NULL, policy, &x->args), want);
  expect_message();
  CU_ASSERT(memcmp(before, p->c, n) == 0);
  free(before);
}

static void test_execute_refused(void) {
  void *inst = create(NULL, 0), *policy = NULL;
  product p;
  call x;
  wl w;
  CU_ASSERT_EQUAL_FATAL(pl->validate(inst, "v1 mb=8 nb=8 kb=8", 17, &policy), OLC_PLUGIN_OK);
  product_init(&p, 9, 10, 11, 1, 1, 7);
  call_init(&x, &p, 1, 1);
  x.in[0].dtype = OLC_PLUGIN_DTYPE_FLOAT16;
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_UNSUPPORTED);
  call_init(&x, &p, 1, 1);
  x.in[0].rank = 3; /* batched */
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_UNSUPPORTED);
  call_init(&x, &p, 1, 1);
  x.in[1] = olc_stub_matrix(p.b, p.k, p.n, 1), x.in[1].strides[1] = p.ldb; /* transposed B */
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_UNSUPPORTED);
  call_init(&x, &p, 1, 1);
  x.in[0].data = p.c; /* A overlaps C */
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_UNSUPPORTED);
  call_init(&x, &p, 1, 1);
  x.in[1].dims[0] = p.k - 1; /* k of A != k of B */
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_INVALID);
  call_init(&x, &p, 1, 1);
  x.out[0].dims[1] = p.n - 1; /* C is not m x n */
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_INVALID);
  call_init(&x, &p, 1, 1);
  x.args.input_count = 1;
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_INVALID);
  call_init(&x, &p, 1, 1);
  x.in[0].strides[0] = p.k - 1; /* a leading dimension under the row */
  expect_refused(inst, policy, &x, &p, OLC_PLUGIN_E_INVALID);
  call_init(&x, &p, 1, 1);
  clear_error();
  workload(&w, 9, 10, 11);
  w.w.operator_name = "Conv";
  CU_ASSERT_EQUAL(pl->execute(inst, &w.w, policy, &x.args), OLC_PLUGIN_E_UNSUPPORTED);
  expect_message();
  /* The workload's shape need not be the operands': any shape works. */
  CU_ASSERT_EQUAL(pl->execute(inst, workload(&w, 512, 512, 512), policy, &x.args), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(product_check(&p), 0);
  product_free(&p);
  pl->release_policy(inst, policy);
  pl->destroy(inst);
}

/* Reentrancy: one instance, four threads, each its own operands and
 * policy, executing at once. */
typedef struct worker {
  void *inst;
  void *policy;
  int index;
  int bad;
} worker;

static void *execute_loop(void *arg) {
  worker *w = arg;
  for (int round = 0; round < 20; round++)
    w->bad += run_product(w->inst, w->policy, 31 + w->index, 47 - w->index, 29 + 3 * w->index,
                          round % 2 ? 1.0 : 0.5, round % 3 ? 0.0 : 1.0,
                          (unsigned)(100 * w->index + round + 1));
  return NULL;
}

static void test_execute_threads(void) {
  static const char *const texts[4] = {"v1 mb=64 nb=64 kb=128", "v1 mb=4 nb=8 kb=16",
                                       "v1 mb=7 nb=3 kb=5", "v1 mb=32 nb=16 kb=1"};
  void *inst = create(NULL, 0);
  pthread_t t[4];
  worker w[4];
  for (int i = 0; i < 4; i++) {
    w[i].inst = inst, w[i].index = i, w[i].bad = 0, w[i].policy = NULL;
    CU_ASSERT_EQUAL_FATAL(pl->validate(inst, texts[i], strlen(texts[i]), &w[i].policy),
                          OLC_PLUGIN_OK);
  }
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, execute_loop, &w[i]), 0);
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    CU_ASSERT_EQUAL(w[i].bad, 0);
    pl->release_policy(inst, w[i].policy);
  }
  pl->destroy(inst);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("plugin_template", init_suite, clean_suite);
  CU_add_test(s, "table", test_table);
  CU_add_test(s, "key", test_key);
  CU_add_test(s, "candidates", test_candidates);
  CU_add_test(s, "validate", test_validate);
  CU_add_test(s, "config", test_config);
  CU_add_test(s, "prepare_run", test_prepare_run);
  CU_add_test(s, "execute_reference", test_execute_reference);
  CU_add_test(s, "execute_refused", test_execute_refused);
  CU_add_test(s, "execute_threads", test_execute_threads);
  return olc_test_run(argc, argv);
}
