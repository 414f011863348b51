/*
 * buckets.c - bench_gemm --buckets: does the policy the host's loop selects
 * change within one of cpu_gemm's key buckets?  For each case (a bucket of
 * m or n, the other dimensions fixed), three sizes of the bucket (its low
 * end, middle and top) are calibrated by the host's loop, each in a store
 * of its own (so that none is served another's record); then every
 * selected policy is timed on every size through execute, interleaved
 * (rounds in rotating order), and its loss against the policy selected for
 * that size is the median of the rounds' paired ratios (thread CPU time with
 * one thread; the same policy text counts as no loss).  A bucket is
 * sound when every size's best is within the noise of the others'
 * policies: the record of whichever size arrives first serves them all.
 * The cases cover each side of the limits below which sizes keep records
 * of their own (bucket.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"
#include "host_cal.h"

typedef struct bucket_case {
  const char *label;
  int dim_is_m;
  long other, k; /* n (dim m) or m (dim n), and k */
  long sizes[3];
} bucket_case;

static const bucket_case cases[] = {
    {"m 9-16", 1, 1024, 1024, {9, 12, 16}},
    {"m 17-32", 1, 1024, 1024, {17, 24, 32}},
    {"m 33-64", 1, 1024, 1024, {33, 48, 64}},
    {"m 65-128", 1, 1024, 1024, {65, 96, 128}},
    {"m 129-256", 1, 1024, 1024, {129, 192, 256}},
    {"m 1025-2048", 1, 1024, 1024, {1025, 1536, 2048}},
    {"n 33-64 (m 256)", 0, 256, 1024, {33, 48, 64}},
    {"n 65-128 (m 256)", 0, 256, 1024, {65, 96, 128}},
    {"n 129-256 (m 256)", 0, 256, 1024, {129, 192, 256}},
    {"n 257-512 (m 256)", 0, 256, 1024, {257, 384, 512}},
    {"n 1025-2048 (m 256)", 0, 256, 1024, {1025, 1536, 2048}},
    {"n 513-1024 (m 1)", 0, 1, 1024, {513, 768, 1024}},
    {"n 2049-4096 (m 1)", 0, 1, 1024, {2049, 3072, 4096}},
    {"n 2049-4096 (m 64)", 0, 64, 1024, {2049, 3072, 4096}},
};

/* One thread: its CPU time, so that preemption by the other processes of a
 * shared machine does not decide a loss (wall time otherwise). */
static int use_cpu_clock;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(use_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void dims(const bucket_case *c, int i, long *m, long *n, long *k) {
  *m = c->dim_is_m ? c->sizes[i] : c->other;
  *n = c->dim_is_m ? c->other : c->sizes[i];
  *k = c->k;
}

/* Seconds per execute of policy on m x n x k, calls enough for ~10 ms. */
static double time_policy(const olc_plugin *pl, void *inst, const void *policy, long m, long n,
                          long k, const float *a, const float *b, float *cm) {
  double t0, dt;
  long calls = 1;
  for (;;) {
    t0 = now_s();
    for (long i = 0; i < calls; i++)
      (void)bench_execute(pl, inst, policy, m, n, k, a, b, cm);
    dt = now_s() - t0;
    if (dt >= 0.02)
      return dt / (double)calls;
    calls *= 2;
  }
}

/* loss[i][j]: policy i on size j against policy j, median paired ratio - 1
 * (0 without measuring when the two are the same policy). */
static int cross(const olc_plugin *pl, void *inst, void *pol[3], int same[3][3],
                 const bucket_case *c, int reps, double loss[3][3]) {
  for (int j = 0; j < 3; j++) {
    long m, n, k;
    float *a, *b, *cm;
    double *t[3];
    dims(c, j, &m, &n, &k);
    a = calloc((size_t)(m * k), sizeof(float)), b = calloc((size_t)(k * n), sizeof(float));
    cm = calloc((size_t)(m * n), sizeof(float));
    for (int i = 0; i < 3; i++)
      t[i] = calloc((size_t)reps, sizeof(double));
    if (a == NULL || b == NULL || cm == NULL || t[0] == NULL || t[1] == NULL || t[2] == NULL)
      return -1;
    for (long i = 0; i < m * k; i++)
      a[i] = (float)(i % 7) * 0.1f;
    for (long i = 0; i < k * n; i++)
      b[i] = (float)(i % 5) * 0.1f;
    for (int r = 0; r < reps; r++)
      for (int q = 0; q < 3; q++) {
        int i = (q + r) % 3;
        t[i][r] = time_policy(pl, inst, pol[i], m, n, k, a, b, cm);
      }
    for (int i = 0; i < 3; i++) {
      double *q = calloc((size_t)reps, sizeof(double));
      if (q == NULL)
        return -1;
      if (same[i][j]) {
        loss[i][j] = 0.0;
        free(q);
        continue;
      }
      for (int r = 0; r < reps; r++)
        q[r] = t[i][r] / t[j][r];
      qsort(q, (size_t)reps, sizeof(double), bench_cmp_double);
      loss[i][j] = q[reps / 2] - 1.0;
      free(q);
    }
    for (int i = 0; i < 3; i++)
      free(t[i]);
    free(a), free(b), free(cm);
  }
  return 0;
}

static int one_case(const olc_plugin *pl, const olc_plugin_host *h, void *inst, int threads,
                    int reps, const bucket_case *c, int json, int last) {
  bench_hc_workload w[3];
  void *pol[3] = {NULL, NULL, NULL};
  double loss[3][3], worst = 0.0, secs = 0.0;
  int same[3][3], distinct;
  char err[512];
  int rc = -1;
  (void)h;
  memset(w, 0, sizeof w);
  for (int i = 0; i < 3; i++) {
    dims(c, i, &w[i].m, &w[i].n, &w[i].k);
    if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "cpu_gemm", (uint32_t)threads, NULL,
                           BENCH_ONLY_CPU_GEMM, &w[i], 1, err, sizeof err) != 0 ||
        !w[i].ok) {
      fprintf(stderr, "bench_gemm: calibration of %s: %s\n", w[i].name,
              w[i].ok ? err : w[i].message);
      goto done;
    }
    secs += w[i].seconds;
    if (pl->validate(inst, w[i].policy, strlen(w[i].policy), &pol[i]) != OLC_PLUGIN_OK)
      goto done;
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      same[i][j] = strcmp(w[i].policy, w[j].policy) == 0;
  if (cross(pl, inst, pol, same, c, reps, loss) != 0)
    goto done;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (i != j && loss[i][j] > worst)
        worst = loss[i][j];
  distinct = 1 + !same[0][1] + (!same[0][2] && !same[1][2]);
  if (json) {
    printf("  {\"bucket\": \"%s\", \"sizes\": [%ld, %ld, %ld], \"policies\": [\"%s\", \"%s\", "
           "\"%s\"], \"distinct_picks\": %d, \"worst_loss_pct\": %.2f, \"loss_pct\": [[%.2f, %.2f, "
           "%.2f], [%.2f, %.2f, "
           "%.2f], [%.2f, %.2f, %.2f]], \"calibration_s\": %.2f}%s\n",
           c->label, c->sizes[0], c->sizes[1], c->sizes[2], w[0].policy, w[1].policy, w[2].policy,
           distinct, 100 * worst, 100 * loss[0][0], 100 * loss[0][1], 100 * loss[0][2],
           100 * loss[1][0], 100 * loss[1][1], 100 * loss[1][2], 100 * loss[2][0], 100 * loss[2][1],
           100 * loss[2][2], secs, last ? "" : ",");
  } else {
    printf("%-20s sizes %ld/%ld/%ld (k %ld, %s %ld): %d distinct pick%s, worst loss %.1f%%\n",
           c->label, c->sizes[0], c->sizes[1], c->sizes[2], c->k, c->dim_is_m ? "n" : "m", c->other,
           distinct, distinct > 1 ? "s" : "", 100 * worst);
    for (int i = 0; i < 3; i++)
      printf("    picked at %5ld: [%s]  on the sizes: %+.1f%% %+.1f%% %+.1f%%\n", c->sizes[i],
             w[i].policy, 100 * loss[i][0], 100 * loss[i][1], 100 * loss[i][2]);
    fflush(stdout);
  }
  rc = 0;
done:
  for (int i = 0; i < 3; i++)
    pl->release_policy(inst, pol[i]);
  return rc;
}

int bench_buckets_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int reps,
                         int json) {
  const int count = (int)(sizeof cases / sizeof cases[0]);
  void *inst = NULL;
  int rc = 0;
  use_cpu_clock = threads == 1;
  if (pl->create(h, NULL, 0, (uint32_t)threads, &inst) != OLC_PLUGIN_OK)
    return -1;
  if (json)
    printf("{\"buckets\": {\"threads\": %d, \"reps\": %d, \"cases\": [\n", threads, reps);
  else
    printf("bucket check (%d thread%s, %d rounds): the loop's pick at three sizes of a bucket, "
           "each timed on every size; loss = against that size's own pick\n",
           threads, threads > 1 ? "s" : "", reps);
  for (int i = 0; i < count && rc == 0; i++)
    rc = one_case(pl, h, inst, threads, reps, &cases[i], json, i + 1 == count);
  if (json)
    printf("]}}\n");
  pl->destroy(inst);
  return rc;
}
