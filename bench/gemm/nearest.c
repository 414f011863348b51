/*
 * nearest.c - bench_gemm --nearest: how far the answer a runtime gets on a
 * miss (select mode never: the policy of the nearest measured workload,
 * OLC_NEAREST_RECORD, by cpu_gemm's distance) lies from a calibrated one,
 * over shapes the store has not seen.
 *
 * The host (public API, in-memory store, in process) calibrates a grid of
 * "seen" shapes; for each unseen shape a never-mode select gives the
 * nearest answer, then an on_miss select calibrates the shape itself.
 * The three policies (nearest, calibrated, and the plugin's first
 * candidate, what a miss got before) are timed through execute in turn,
 * reps rounds; reported: each one's median time against the calibrated
 * one's (paired ratios' median), and the neighbour it came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "olc/olc.h"

typedef struct dims3 {
  long m, n, k;
} dims3;

static const dims3 seen_quick[] = {{64, 64, 64}, {256, 256, 256}, {64, 256, 256}};
static const dims3 unseen_quick[] = {{96, 96, 96}, {192, 160, 200}};
static const dims3 seen_full[] = {{64, 64, 64},     {128, 128, 128},    {256, 256, 256},
                                  {512, 512, 512},  {1024, 1024, 1024}, {64, 1024, 1024},
                                  {1024, 64, 1024}, {256, 1024, 256},   {16, 512, 512}};
static const dims3 unseen_full[] = {{96, 96, 96},    {192, 192, 192},  {384, 384, 384},
                                    {768, 768, 768}, {100, 700, 900},  {48, 1024, 1024},
                                    {320, 900, 320}, {700, 100, 1100}, {24, 400, 600}};

typedef struct nearest_ctx {
  olc_config *config;
  olc_store *store;
  olc_host *host;
} nearest_ctx;

static void open_host(nearest_ctx *c, int threads) {
  char ini[1024];
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_error e;
  int n = snprintf(ini, sizeof ini,
                   "[host]\nplugin_dirs = %s\nthreads = %d\n[store]\npersistence = false\n"
                   "layers =\n%s",
                   BENCH_PLUGIN_DIR, threads, BENCH_ONLY_CPU_GEMM);
  memset(c, 0, sizeof *c);
  if (n <= 0 || (size_t)n >= sizeof ini ||
      olc_config_load_string(&c->config, ini, (size_t)n, "<bench --nearest>", NULL, &e) != OLC_OK)
    bench_die("--nearest: configuration");
  olc_config_store_options(c->config, &so);
  if (olc_store_open(&c->store, &so, &e) != OLC_OK)
    bench_die("--nearest: store: %s", e.message);
  ho.ignore_env = 1;
  if (olc_host_open(&c->host, c->config, c->store, &ho, &e) != OLC_OK)
    bench_die("--nearest: host: %s", e.message);
}

/* Selects shape d in mode; the policy's bytes into buf (NUL-terminated),
 * the status returned, the neighbour's identity into from. */
static olc_status select_shape(nearest_ctx *c, dims3 d, int mode, char *buf, size_t size,
                               char *from, size_t from_size) {
  char m[24], n[24], k[24];
  olc_property props[4] = {{"dtype", "float32"}, {"m", m}, {"n", n}, {"k", k}};
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_select_options o = OLC_SELECT_OPTIONS_INIT;
  const olc_selection *s = NULL;
  const unsigned char *p;
  size_t len = 0;
  olc_error e;
  olc_status st;
  snprintf(m, sizeof m, "%ld", d.m);
  snprintf(n, sizeof n, "%ld", d.n);
  snprintf(k, sizeof k, "%ld", d.k);
  w.backend = "cpu_gemm";
  w.operator_name = "MatMul";
  w.properties = props;
  w.property_count = 4;
  o.mode = mode;
  o.in_process = 1; /* measured here, as the bench then runs it */
  st = olc_host_select(&s, c->host, &w, &o, &e);
  if (st < 0)
    bench_die("--nearest: select %ldx%ldx%ld: %s", d.m, d.n, d.k, e.message);
  p = olc_selection_policy(s, &len);
  if (len >= size)
    bench_die("--nearest: policy too long");
  memcpy(buf, p, len);
  buf[len] = '\0';
  if (from != NULL)
    snprintf(from, from_size, "%s",
             olc_selection_nearest(s) != NULL
                 ? olc_store_workload_of_digest(olc_selection_nearest(s)->model_digest)
                 : "-");
  return st;
}

static double time_policy(const olc_plugin *pl, void *inst, const void *policy, dims3 d,
                          const float *a, const float *b, float *cm) {
  double t0, dt;
  long calls = 1;
  for (;;) {
    t0 = bench_now_s();
    for (long i = 0; i < calls; i++)
      (void)bench_execute(pl, inst, policy, d.m, d.n, d.k, a, b, cm);
    dt = bench_now_s() - t0;
    if (dt >= 0.01)
      return dt / (double)calls;
    calls *= 2;
  }
}

static void *policy_of(const olc_plugin *pl, void *inst, const char *text) {
  void *p = NULL;
  if (pl->validate(inst, text, strlen(text), &p) != OLC_PLUGIN_OK)
    bench_die("--nearest: policy %s does not validate", text);
  return p;
}

/* The first candidate the plugin offers (what a miss got before); the
 * sink owns what it is given, so the rest are released at once. */
typedef struct first_ctx {
  const olc_plugin *pl;
  void *inst;
  void *first;
} first_ctx;

static int32_t first_emit(void *ctx, void *policy) {
  first_ctx *f = ctx;
  if (f->first == NULL)
    f->first = policy;
  else
    f->pl->release_policy(f->inst, policy);
  return OLC_PLUGIN_OK;
}

int bench_nearest_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int reps,
                         int quick, int json) {
  const dims3 *seen = quick ? seen_quick : seen_full, *unseen = quick ? unseen_quick : unseen_full;
  size_t nseen = quick ? sizeof seen_quick / sizeof *seen : sizeof seen_full / sizeof *seen;
  size_t nunseen =
      quick ? sizeof unseen_quick / sizeof *unseen : sizeof unseen_full / sizeof *unseen;
  nearest_ctx c;
  void *inst = NULL;
  char text[256];
  open_host(&c, threads);
  for (size_t i = 0; i < nseen; i++)
    (void)select_shape(&c, seen[i], OLC_SELECT_ON_MISS, text, sizeof text, NULL, 0);
  if (pl->create(h, NULL, 0, (uint32_t)threads, &inst) != OLC_PLUGIN_OK)
    bench_die("--nearest: create");
  if (json)
    printf("{\"schema\": 1, \"report\": \"nearest\", \"threads\": %d, \"rows\": [", threads);
  else
    printf("nearest answer on a miss against a calibrated one (%d thread%s, %zu seen shapes)\n"
           "%-16s %-40s %12s %12s %12s\n",
           threads, threads == 1 ? "" : "s", nseen, "unseen shape", "nearest measured",
           "calibrated", "nearest", "first cand.");
  for (size_t i = 0; i < nunseen; i++) {
    dims3 d = unseen[i];
    char near_text[256], cal_text[256], from[256], shape_text[48];
    olc_status st =
        select_shape(&c, d, OLC_SELECT_NEVER, near_text, sizeof near_text, from, sizeof from);
    void *pol[3];
    first_ctx first = {pl, inst, NULL};
    double *t[3], med[3], ratio[2];
    float *a = calloc((size_t)(d.m * d.k), sizeof(float));
    float *b = calloc((size_t)(d.k * d.n), sizeof(float));
    float *cm = calloc((size_t)(d.m * d.n), sizeof(float));
    bench_workload w;
    olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &first, first_emit};
    (void)select_shape(&c, d, OLC_SELECT_ON_MISS, cal_text, sizeof cal_text, NULL, 0);
    bench_workload_init(&w, "nearest", d.m, d.n, d.k);
    (void)pl->candidates(inst, &w.wl, &sink);
    if (a == NULL || b == NULL || cm == NULL || first.first == NULL)
      bench_die("--nearest: out of memory or no candidate");
    pol[0] = policy_of(pl, inst, cal_text);
    pol[1] = policy_of(pl, inst, near_text);
    pol[2] = first.first;
    for (int q = 0; q < 3; q++)
      if ((t[q] = calloc((size_t)reps, sizeof(double))) == NULL)
        bench_die("--nearest: out of memory");
    for (int r = 0; r < reps; r++)
      for (int q = 0; q < 3; q++) {
        int j = (q + r) % 3;
        t[j][r] = time_policy(pl, inst, pol[j], d, a, b, cm);
      }
    for (int q = 0; q < 3; q++)
      med[q] = bench_med(t[q], reps);
    ratio[0] = bench_paired(t[1], t[0], reps);
    ratio[1] = bench_paired(t[2], t[0], reps);
    snprintf(shape_text, sizeof shape_text, "%ldx%ldx%ld", d.m, d.n, d.k);
    if (json)
      printf("%s\n {\"shape\": \"%s\", \"status\": \"%s\", \"from\": \"%s\", "
             "\"calibrated_us\": %.3f, \"nearest_us\": %.3f, \"first_us\": %.3f, "
             "\"nearest_ratio\": %.4f, \"first_ratio\": %.4f}",
             i == 0 ? "" : ",", shape_text, olc_status_name(st), from, med[0] * 1e6, med[1] * 1e6,
             med[2] * 1e6, ratio[0], ratio[1]);
    else
      printf("%-16s %-40s %9.1f us %9.1f us %9.1f us  (x%.2f, first x%.2f)\n", shape_text,
             st == OLC_NEAREST_RECORD ? from : "(none: first cand.)", med[0] * 1e6, med[1] * 1e6,
             med[2] * 1e6, ratio[0], ratio[1]);
    for (int q = 0; q < 3; q++) {
      pl->release_policy(inst, pol[q]);
      free(t[q]);
    }
    free(a);
    free(b);
    free(cm);
  }
  if (json)
    printf("\n]}\n");
  pl->destroy(inst);
  olc_host_free(c.host);
  olc_store_free(c.store);
  olc_config_free(c.config);
  return 0;
}
