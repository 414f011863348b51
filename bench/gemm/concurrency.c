/*
 * concurrency.c - bench_gemm --concurrency: 8 threads executing at once on
 * one instance (the instance's thread count: --threads), as many runtime
 * sessions do, under the plugin's rule (a split policy runs on the pool
 * when it is free, else on the calling thread alone) against the other
 * choice, serializing the calls (emulated here: a mutex around execute, so
 * each call finds the pool free and runs on it).  Reported: products per
 * second over all threads (medians over rounds that alternate the two
 * rules, and the median of the rounds' paired ratios), for a blocked cube
 * and a matrix-vector product whose first candidates split, and a small
 * product that does not (both rules run it on the callers' threads; the
 * emulated serialization there only shows what a global lock would cost).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"

#define CC_THREADS 8
#define CC_CALLS 24

typedef struct cc_shape {
  long m, n, k;
} cc_shape;

static const cc_shape cc_shapes[] = {{512, 512, 512}, {1, 4096, 4096}, {64, 1, 1216}};

typedef struct cc_run {
  const olc_plugin *pl;
  void *inst;
  const void *policy;
  cc_shape s;
  int serialize, calls;
  pthread_mutex_t mu;
  pthread_barrier_t start;
  double lat[CC_THREADS][512];
  int failures;
} cc_run;

typedef struct cc_arg {
  cc_run *run;
  int me;
} cc_arg;

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *cc_worker(void *p) {
  cc_arg *arg = p;
  cc_run *r = arg->run;
  float *a = calloc((size_t)(r->s.m * r->s.k), sizeof(float));
  float *b = calloc((size_t)(r->s.k * r->s.n), sizeof(float));
  float *c = calloc((size_t)(r->s.m * r->s.n), sizeof(float));
  bench_exec e;
  if (a == NULL || b == NULL || c == NULL) {
    r->failures++;
    pthread_barrier_wait(&r->start);
    return NULL;
  }
  bench_exec_init(&e, r->s.m, r->s.n, r->s.k, a, b, c);
  (void)bench_exec_call(r->pl, r->inst, r->policy, &e); /* this thread's warm-up */
  pthread_barrier_wait(&r->start);
  for (int i = 0; i < r->calls; i++) {
    double t0 = wall_s();
    int32_t rc;
    if (r->serialize)
      pthread_mutex_lock(&r->mu);
    rc = bench_exec_call(r->pl, r->inst, r->policy, &e);
    if (r->serialize)
      pthread_mutex_unlock(&r->mu);
    r->lat[arg->me][i] = wall_s() - t0;
    if (rc != OLC_PLUGIN_OK)
      r->failures++;
  }
  free(a), free(b), free(c);
  return NULL;
}

/* Products per second and the median latency of one configuration. */
static int cc_measure(cc_run *r, double *per_s, double *median_s) {
  static double all[CC_THREADS * 512];
  pthread_t t[CC_THREADS];
  cc_arg args[CC_THREADS];
  double t0, dt;
  int n = 0;
  pthread_mutex_init(&r->mu, NULL);
  pthread_barrier_init(&r->start, NULL, CC_THREADS + 1);
  for (int i = 0; i < CC_THREADS; i++) {
    args[i].run = r, args[i].me = i;
    if (pthread_create(&t[i], NULL, cc_worker, &args[i]) != 0)
      return -1;
  }
  pthread_barrier_wait(&r->start);
  t0 = wall_s();
  for (int i = 0; i < CC_THREADS; i++)
    pthread_join(t[i], NULL);
  dt = wall_s() - t0;
  pthread_barrier_destroy(&r->start);
  pthread_mutex_destroy(&r->mu);
  for (int i = 0; i < CC_THREADS; i++)
    for (int j = 0; j < r->calls; j++)
      all[n++] = r->lat[i][j];
  qsort(all, (size_t)n, sizeof(double), bench_cmp_double);
  *per_s = (double)n / dt;
  *median_s = all[n / 2];
  return r->failures == 0 ? 0 : -1;
}

static int32_t keep_first(void *ctx, void *policy) {
  *(void **)ctx = policy;
  return OLC_PLUGIN_E_LIMIT;
}

#define CC_ROUNDS_MAX 32

/* One shape: rounds alternating the two rules; medians of each rule's
 * throughput and of the rounds' paired ratios. */
static int cc_shape_report(const olc_plugin *pl, void *inst, const cc_shape *s, int rounds,
                           int json, int last) {
  static cc_run r;
  bench_workload w;
  void *policy = NULL;
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &policy, keep_first};
  double per[2][CC_ROUNDS_MAX], ratio[CC_ROUNDS_MAX], med;
  char text[160];
  int rc = 0;
  bench_workload_init(&w, "concurrency", s->m, s->n, s->k);
  if (pl->candidates(inst, &w.wl, &sink) != OLC_PLUGIN_OK || policy == NULL ||
      bench_policy_text(pl, inst, policy, text, sizeof text) != 0)
    return -1;
  for (int i = 0; i < rounds && rc == 0; i++) {
    for (int q = 0; q < 2 && rc == 0; q++) {
      int mode = (q + i) % 2;
      memset(&r, 0, sizeof r);
      r.pl = pl, r.inst = inst, r.policy = policy, r.s = *s;
      r.serialize = mode, r.calls = CC_CALLS;
      rc = cc_measure(&r, &per[mode][i], &med);
    }
    ratio[i] = per[0][i] / per[1][i];
  }
  if (rc == 0) {
    double p0 = bench_median(per[0], (size_t)rounds), p1 = bench_median(per[1], (size_t)rounds);
    double q = bench_median(ratio, (size_t)rounds);
    if (json)
      printf("  {\"m\": %ld, \"n\": %ld, \"k\": %ld, \"policy\": \"%s\", \"caller_per_s\": %.1f, "
             "\"serialized_per_s\": %.1f, \"caller_to_serialized\": %.3f}%s\n",
             s->m, s->n, s->k, text, p0, p1, q, last ? "" : ",");
    else
      printf("  %4ldx%4ldx%4ld  busy pool -> caller's thread %9.1f/s, serialized on the pool "
             "%9.1f/s: %.3fx  [%s]\n",
             s->m, s->n, s->k, p0, p1, q, text);
  }
  pl->release_policy(inst, policy);
  return rc;
}

int bench_concurrency_report(const olc_plugin *pl, const olc_plugin_host *h, int threads,
                             int rounds, int json) {
  const size_t count = sizeof cc_shapes / sizeof cc_shapes[0];
  void *inst = NULL;
  int rc = 0;
  rounds = rounds < 1 ? 1 : rounds > CC_ROUNDS_MAX ? CC_ROUNDS_MAX : rounds;
  if (pl->create(h, NULL, 0, (uint32_t)threads, &inst) != OLC_PLUGIN_OK)
    return -1;
  if (json)
    printf("{\"concurrency\": {\"threads\": %d, \"callers\": %d, \"rounds\": %d, \"results\": [\n",
           threads, CC_THREADS, rounds);
  else
    printf("%d callers at once on one %d-thread instance, %d calls each, %d rounds (products per "
           "second, medians; the ratio is the median of the rounds' paired ratios):\n",
           CC_THREADS, threads, CC_CALLS, rounds);
  for (size_t si = 0; si < count && rc == 0; si++)
    rc = cc_shape_report(pl, inst, &cc_shapes[si], rounds, json, si + 1 == count);
  if (json)
    printf("]}}\n");
  pl->destroy(inst);
  return rc;
}
