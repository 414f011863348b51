/*
 * stability.c - bench_gemm --stability [N]: does the host's loop select
 * the same policy, or policies as fast, each time it calibrates a shape?
 *
 * For each shape: N independent calibrations, each through the host's
 * loop with a fresh in-memory store (host_cal.c: olc_host_calibrate in
 * process, the host's [calibration] defaults, one thread); then every
 * candidate the plugin offers is timed once (the exhaustive pass) and the
 * best few of it, with every distinct policy the N calibrations picked,
 * are timed against each other in rounds, interleaved (a rotating order,
 * every other round reversed), each sample enough execute calls for
 * SAMPLE_S of the calling thread's CPU time.  Reported per shape: each
 * pick's median time, the spread (the largest median paired ratio between
 * two picks), the worst pick against the exhaustive best (the fastest of
 * the re-timed ones by median; median paired ratio), and PASS / FAIL of
 * each against GOAL.  The load average is printed at the start and the
 * end, with a warning above QUIET_LOAD.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"
#include "host_cal.h"

#define S_MAX_CANDS 256
#define S_MAX_RUNS 16 /* calibrations per shape */
#define S_TOP 3       /* exhaustive candidates re-timed in the rounds */
#define S_MAX_C (S_MAX_RUNS + S_TOP)
#define EXH_SAMPLE_S 0.005 /* each candidate's sample in the exhaustive pass */
#define SAMPLE_S 0.02      /* each sample in the rounds */
#define GOAL 1.02
#define QUIET_LOAD 0.5

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds of thread CPU time per execute of policy, calls enough for
 * at_least seconds (one call at least, after one untimed call); < 0 when a
 * call failed. */
static double time_policy(const olc_plugin *pl, void *inst, const void *policy, const bench_exec *e,
                          double at_least) {
  long calls = 1;
  if (bench_exec_call(pl, inst, policy, e) != OLC_PLUGIN_OK)
    return -1.0;
  for (;;) {
    double t0 = cpu_s(), dt;
    for (long i = 0; i < calls; i++)
      (void)bench_exec_call(pl, inst, policy, e);
    dt = cpu_s() - t0;
    if (dt >= at_least)
      return dt / (double)calls;
    calls = dt > 0 ? (long)((double)calls * (1.2 * at_least / dt)) + 1 : calls * 2;
  }
}

typedef struct cands {
  void *p[S_MAX_CANDS];
  int n;
} cands;

static int32_t emit(void *ctx, void *policy) {
  cands *c = ctx;
  if (c->n >= S_MAX_CANDS)
    return OLC_PLUGIN_E_LIMIT;
  c->p[c->n++] = policy;
  return OLC_PLUGIN_OK;
}

/* A contestant of the rounds: a distinct pick, an exhaustive finalist or
 * both. */
typedef struct contestant {
  char text[256];
  void *policy; /* validated from text, released at the end */
  int picks;    /* how many of the N calibrations picked it */
  int top;      /* among the exhaustive pass's S_TOP best */
  double *t;    /* per round */
  double median;
} contestant;

static int find(const contestant *c, int n, const char *text) {
  for (int i = 0; i < n; i++)
    if (strcmp(c[i].text, text) == 0)
      return i;
  return -1;
}

/* Median over the rounds of t_a / t_b. */
static double paired(const contestant *a, const contestant *b, int rounds) {
  double r[256];
  for (int i = 0; i < rounds; i++)
    r[i] = a->t[i] / b->t[i];
  return bench_median(r, (size_t)rounds);
}

typedef struct shape_result {
  double spread, worst, cal_s, exh_s, rounds_s;
  int distinct, candidates, pass;
} shape_result;

static int one_shape(const olc_plugin *pl, void *inst, shape s, int runs, int rounds,
                     const olc_calibration_settings *cal, const char *extra, int json, int last,
                     shape_result *out) {
  bench_hc_workload w[S_MAX_RUNS];
  contestant c[S_MAX_C];
  cands all;
  bench_workload bw;
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &all, emit};
  bench_exec e;
  float *a = NULL, *b = NULL, *cm = NULL;
  double exh[S_MAX_CANDS], t0;
  int nc = 0, best = -1, npicks, rc = -1;
  char err[512];
  memset(c, 0, sizeof c);
  memset(&all, 0, sizeof all);
  memset(out, 0, sizeof *out);
  /* 1. N calibrations, each with a store of its own. */
  t0 = wall_s();
  for (int i = 0; i < runs; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].m = s.m, w[i].n = s.n, w[i].k = s.k;
    if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "cpu_gemm", 1, cal, extra, &w[i], 1, err,
                           sizeof err) != 0 ||
        !w[i].ok) {
      fprintf(stderr, "bench_gemm: calibration of %ldx%ldx%ld: %s\n", s.m, s.n, s.k,
              w[i].ok ? err : w[i].message);
      return -1;
    }
    if (find(c, nc, w[i].policy) < 0)
      snprintf(c[nc++].text, sizeof c[0].text, "%s", w[i].policy);
    c[find(c, nc, w[i].policy)].picks++;
  }
  out->cal_s = wall_s() - t0;
  npicks = nc;
  a = calloc((size_t)(s.m * s.k), sizeof(float)), b = calloc((size_t)(s.k * s.n), sizeof(float));
  cm = calloc((size_t)(s.m * s.n), sizeof(float));
  if (a == NULL || b == NULL || cm == NULL)
    goto done;
  for (long i = 0; i < s.m * s.k; i++)
    a[i] = (float)(i % 7) * 0.1f;
  for (long i = 0; i < s.k * s.n; i++)
    b[i] = (float)(i % 5) * 0.1f;
  bench_exec_init(&e, s.m, s.n, s.k, a, b, cm);
  /* 2. The exhaustive pass: every candidate once; its S_TOP best join. */
  bench_workload_init(&bw, "stability", s.m, s.n, s.k);
  if (pl->candidates(inst, &bw.wl, &sink) != OLC_PLUGIN_OK || all.n == 0)
    goto done;
  t0 = wall_s();
  for (int i = 0; i < all.n; i++)
    if ((exh[i] = time_policy(pl, inst, all.p[i], &e, EXH_SAMPLE_S)) < 0)
      goto done;
  out->exh_s = wall_s() - t0;
  out->candidates = all.n;
  for (int k = 0; k < S_TOP && k < all.n; k++) {
    int j = -1;
    char text[256];
    for (int i = 0; i < all.n; i++)
      if (exh[i] >= 0 && (j < 0 || exh[i] < exh[j]))
        j = i;
    exh[j] = -1.0; /* taken */
    if (bench_policy_text(pl, inst, all.p[j], text, sizeof text) != 0)
      goto done;
    if (find(c, nc, text) < 0)
      snprintf(c[nc++].text, sizeof c[0].text, "%s", text);
    c[find(c, nc, text)].top = 1;
  }
  /* 3. The rounds, interleaved. */
  for (int i = 0; i < nc; i++) {
    c[i].t = calloc((size_t)rounds, sizeof(double));
    if (c[i].t == NULL ||
        pl->validate(inst, c[i].text, strlen(c[i].text), &c[i].policy) != OLC_PLUGIN_OK)
      goto done;
  }
  t0 = wall_s();
  for (int r = 0; r < rounds; r++)
    for (int q = 0; q < nc; q++) {
      int i = r % 2 == 0 ? (q + r) % nc : (nc - 1 - q + r) % nc;
      if ((c[i].t[r] = time_policy(pl, inst, c[i].policy, &e, SAMPLE_S)) <= 0)
        goto done;
    }
  out->rounds_s = wall_s() - t0;
  for (int i = 0; i < nc; i++) {
    double v[256];
    memcpy(v, c[i].t, (size_t)rounds * sizeof *v);
    c[i].median = bench_median(v, (size_t)rounds);
    if (c[i].top && (best < 0 || c[i].median < c[best].median))
      best = i;
  }
  out->distinct = npicks;
  out->spread = 1.0, out->worst = 0.0;
  for (int i = 0; i < npicks; i++) {
    double g = paired(&c[i], &c[best], rounds);
    out->worst = g > out->worst ? g : out->worst;
    for (int j = 0; j < npicks; j++) {
      double sp = i == j ? 1.0 : paired(&c[i], &c[j], rounds);
      out->spread = sp > out->spread ? sp : out->spread;
    }
  }
  out->pass = out->spread <= GOAL && out->worst <= GOAL;
  if (json) {
    printf("  {\"m\": %ld, \"n\": %ld, \"k\": %ld, \"calibrations\": %d, \"distinct_picks\": %d, "
           "\"spread\": %.4f, \"worst_vs_best\": %.4f, \"pass\": %s, \"candidates\": %d, "
           "\"calibration_s\": %.2f, \"exhaustive_s\": %.2f, \"rounds_s\": %.2f, \"timed\": [",
           s.m, s.n, s.k, runs, npicks, out->spread, out->worst, out->pass ? "true" : "false",
           all.n, out->cal_s, out->exh_s, out->rounds_s);
    for (int i = 0; i < nc; i++)
      printf("%s{\"policy\": \"%s\", \"picked\": %d, \"exhaustive_top\": %s, \"median_us\": %.3f, "
             "\"vs_best\": %.4f}",
             i > 0 ? ", " : "", c[i].text, c[i].picks, c[i].top ? "true" : "false",
             c[i].median * 1e6, paired(&c[i], &c[best], rounds));
    printf("]}%s\n", last ? "" : ",");
  } else {
    printf("%ldx%ldx%ld: %d calibration%s, %d distinct pick%s; spread %.3f %s, worst pick / "
           "exhaustive best %.3f %s (calibrations %.1f s, %d candidates %.1f s, rounds %.1f s)\n",
           s.m, s.n, s.k, runs, runs > 1 ? "s" : "", npicks, npicks > 1 ? "s" : "", out->spread,
           out->spread <= GOAL ? "PASS" : "FAIL", out->worst, out->worst <= GOAL ? "PASS" : "FAIL",
           out->cal_s, all.n, out->exh_s, out->rounds_s);
    for (int i = 0; i < nc; i++)
      printf("    %-6s %9.1f us  x%.3f  %s\n",
             c[i].picks > 0 ? (i == best ? "pick*" : "pick") : (i == best ? "best" : "top"),
             c[i].median * 1e6, paired(&c[i], &c[best], rounds), c[i].text);
    for (int i = 0; i < npicks; i++)
      if (c[i].picks > 1)
        printf("    (picked %d times: %s)\n", c[i].picks, c[i].text);
    fflush(stdout);
  }
  rc = 0;
done:
  for (int i = 0; i < nc; i++) {
    if (c[i].policy != NULL)
      pl->release_policy(inst, c[i].policy);
    free(c[i].t);
  }
  for (int i = 0; i < all.n; i++)
    pl->release_policy(inst, all.p[i]);
  free(a), free(b), free(cm);
  if (rc != 0)
    fprintf(stderr, "bench_gemm: stability of %ldx%ldx%ld failed\n", s.m, s.n, s.k);
  return rc;
}

int bench_stability_report(const olc_plugin *pl, const olc_plugin_host *h, const shape *shapes,
                           int nshapes, int runs, int rounds, const char *isa, int contention,
                           int json) {
  const olc_plugin_kv cap = {"isa", isa};
  olc_calibration_settings cal;
  double load[3] = {0, 0, 0}, t0 = wall_s();
  char extra[256];
  void *inst = NULL;
  int rc = 0, passed = 0;
  runs = runs < 1 ? 1 : runs > S_MAX_RUNS ? S_MAX_RUNS : runs;
  rounds = rounds < 1 ? 1 : rounds > 256 ? 256 : rounds;
  snprintf(extra, sizeof extra, "%s%s%s%s", BENCH_ONLY_CPU_GEMM,
           isa != NULL ? "[plugin.cpu_gemm]\nisa = " : "", isa != NULL ? isa : "",
           isa != NULL ? "\n" : "");
  if (olc_calibration_defaults(&cal) != OLC_OK)
    return -1;
  if (contention >= 0)
    cal.contention = contention;
  if (pl->create(h, isa != NULL ? &cap : NULL, isa != NULL ? 1u : 0u, 1, &inst) != OLC_PLUGIN_OK)
    return -1;
  (void)getloadavg(load, 3);
  if (json)
    printf("{\"stability\": {\"calibrations\": %d, \"rounds\": %d, \"goal\": %.2f, "
           "\"contention\": %d, \"load_start\": %.2f, \"shapes\": [\n",
           runs, rounds, GOAL, cal.contention, load[0]);
  else
    printf("calibration stability (1 thread, thread CPU time): %d calibrations per shape, each "
           "with a fresh store; the distinct picks and the exhaustive pass's %d best timed in %d "
           "interleaved rounds; goal: spread and worst / best <= %.2f%s\n"
           "load average at the start %.2f %.2f %.2f%s\n",
           runs, S_TOP, rounds, GOAL,
           cal.contention == OLC_CONTENTION_WAIT ? ""
           : cal.contention == OLC_CONTENTION_MARK
               ? "; contention = mark (no waits for a quiet machine)"
               : "; contention = ignore",
           load[0], load[1], load[2],
           load[0] > QUIET_LOAD ? "  WARNING: above 0.5, not a quiet machine" : "");
  for (int i = 0; i < nshapes && rc == 0; i++) {
    shape_result r;
    rc = one_shape(pl, inst, shapes[i], runs, rounds, &cal, extra, json, i + 1 == nshapes, &r);
    passed += rc == 0 && r.pass;
  }
  (void)getloadavg(load, 3);
  /* No summary after a failure: the test reads it as the mode's success. */
  if (rc == 0 && json)
    printf("], \"passed\": %d, \"load_end\": %.2f, \"seconds\": %.1f}}\n", passed, load[0],
           wall_s() - t0);
  else if (rc == 0)
    printf("%d of %d shapes pass; %.0f s; load average at the end %.2f %.2f %.2f%s\n", passed,
           nshapes, wall_s() - t0, load[0], load[1], load[2],
           load[0] > QUIET_LOAD ? "  WARNING: above 0.5, not a quiet machine" : "");
  pl->destroy(inst);
  return rc;
}
