/*
 * quality.c - bench_gemm --quality: how good and how cheap the host's
 * calibration is on the cpu_gemm workloads of config/default.ini.
 *
 * For each such workload: the host's loop calibrates it (wall time of
 * olc_host_calibrate, in-process, in-memory store, the file's [calibration]
 * settings); then every candidate the plugin offers is measured once,
 * exhaustively, the way the loop measures one (warm-up runs, then runs
 * until min_repetitions and min_seconds are both reached, median of the
 * per-run wall times), without early abandon.  Reported: the loop's pick's
 * median against the exhaustive best median (gap), and the loop's time as
 * a share of the exhaustive pass's time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"
#include "host_cal.h"

#define Q_MAX_WORKLOADS 16
#define Q_MAX_CANDS 256
#define Q_PAIRS 5 /* odd: the median is one of them */

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct cands {
  void *p[Q_MAX_CANDS];
  int n;
} cands;

static int32_t emit(void *ctx, void *policy) {
  cands *c = ctx;
  if (c->n >= Q_MAX_CANDS)
    return OLC_PLUGIN_E_LIMIT;
  c->p[c->n++] = policy;
  return OLC_PLUGIN_OK;
}

/* One candidate as the host's loop measures it, without abandon: median
 * seconds per run, or < 0 when a run failed. */
static double measure(const olc_plugin *pl, void *inst, const olc_plugin_workload *wl, void *state,
                      const void *policy, const olc_calibration_settings *cs) {
  double *t = NULL, start, med;
  size_t n = 0, cap = 0;
  for (uint32_t i = 0; i < cs->warmup; i++)
    if (pl->run(inst, wl, state, policy) != OLC_PLUGIN_OK)
      return -1.0;
  start = wall_s();
  for (;;) {
    double t0 = wall_s(), t1;
    if (pl->run(inst, wl, state, policy) != OLC_PLUGIN_OK) {
      free(t);
      return -1.0;
    }
    t1 = wall_s();
    if (n == cap) {
      double *g = realloc(t, (cap = cap * 2 + 16) * sizeof *t);
      if (g == NULL) {
        free(t);
        return -1.0;
      }
      t = g;
    }
    t[n++] = t1 - t0;
    if (n >= cs->min_repetitions && t1 - start >= cs->min_seconds)
      break;
  }
  med = bench_median(t, n);
  free(t);
  return med;
}

static long prop_long(const olc_workload_config *w, const char *key) {
  for (size_t i = 0; i < w->property_count; i++)
    if (strcmp(w->properties[i].name, key) == 0)
      return atol(w->properties[i].value);
  return 0;
}

/* The exhaustive pass for one workload; fills q. */
static int exhaustive(const olc_plugin *pl, void *inst, const bench_hc_workload *hw,
                      const olc_calibration_settings *cs, bench_quality_row *q) {
  olc_plugin_kv props[4];
  char dims[3][24];
  olc_plugin_workload wl;
  cands c;
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &c, emit};
  void *state = NULL, *pick = NULL;
  char pick_text[256], text[256];
  double t0, best = INFINITY;
  int rc = -1;
  memset(&c, 0, sizeof c);
  memset(&wl, 0, sizeof wl);
  snprintf(dims[0], sizeof dims[0], "%ld", hw->m);
  snprintf(dims[1], sizeof dims[1], "%ld", hw->n);
  snprintf(dims[2], sizeof dims[2], "%ld", hw->k);
  props[0].key = "dtype", props[0].value = "float32";
  props[1].key = "m", props[1].value = dims[0];
  props[2].key = "n", props[2].value = dims[1];
  props[3].key = "k", props[3].value = dims[2];
  wl.struct_size = sizeof wl;
  wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  wl.name = hw->name;
  wl.operator_name = "MatMul";
  wl.properties = props;
  wl.property_count = 4;
  q->pick = -1;
  q->best = -1;
  if (pl->validate(inst, hw->policy, strlen(hw->policy), &pick) != OLC_PLUGIN_OK ||
      bench_policy_text(pl, inst, pick, pick_text, sizeof pick_text) != 0 ||
      pl->candidates(inst, &wl, &sink) != OLC_PLUGIN_OK || c.n == 0 ||
      pl->prepare(inst, &wl, &state) != OLC_PLUGIN_OK)
    goto done;
  q->candidates = c.n;
  t0 = wall_s();
  for (int i = 0; i < c.n; i++) {
    double med = measure(pl, inst, &wl, state, c.p[i], cs);
    if (med < 0)
      goto done;
    if (med < best)
      best = med, q->best = i;
    if (bench_policy_text(pl, inst, c.p[i], text, sizeof text) != 0)
      text[0] = '\0';
    if (strcmp(text, pick_text) == 0)
      q->pick = i, q->pick_s = med;
    if (getenv("BENCH_QUALITY_VERBOSE") != NULL) /* every candidate's median, on stderr */
      fprintf(stderr, "  %s #%d %9.1f us  %s%s\n", hw->name, i, med * 1e6, text,
              q->pick == i ? "  <- loop's pick" : "");
  }
  q->exhaustive_s = wall_s() - t0;
  q->best_s = best;
  if (q->pick < 0) /* not among the candidates (cannot happen today): measure it alone */
    q->pick_s = measure(pl, inst, &wl, state, pick, cs);
  rc = q->pick_s > 0 ? 0 : -1;
  /* The gap from pick/best pairs measured back to back, in alternating
   * order, rather than from two measurements taken up to a second apart. */
  q->paired_gap = 0.0;
  if (rc == 0 && q->pick != q->best) {
    double ratio[Q_PAIRS];
    const void *best_policy = c.p[q->best];
    for (int i = 0; i < Q_PAIRS && rc == 0; i++) {
      double a, b;
      if (i % 2 == 0)
        a = measure(pl, inst, &wl, state, pick, cs),
        b = measure(pl, inst, &wl, state, best_policy, cs);
      else
        b = measure(pl, inst, &wl, state, best_policy, cs),
        a = measure(pl, inst, &wl, state, pick, cs);
      if (a < 0 || b < 0)
        rc = -1;
      else
        ratio[i] = a / b;
    }
    if (rc == 0) {
      qsort(ratio, Q_PAIRS, sizeof *ratio, bench_cmp_double);
      q->paired_gap = ratio[Q_PAIRS / 2] - 1.0;
    }
  }
done:
  if (state != NULL)
    pl->unprepare(inst, state);
  for (int i = 0; i < c.n; i++)
    pl->release_policy(inst, c.p[i]);
  pl->release_policy(inst, pick);
  return rc;
}

int bench_quality(const olc_plugin *pl, const olc_plugin_host *h, uint32_t threads,
                  bench_quality_row *rows, int max_rows) {
  olc_config *def = NULL;
  olc_error e;
  bench_hc_workload w[Q_MAX_WORKLOADS];
  olc_calibration_settings cs;
  char err[512];
  size_t count = 0;
  void *inst = NULL;
  int n = -1;
  memset(&e, 0, sizeof e);
  memset(w, 0, sizeof w);
  if (olc_config_load_file(&def, BENCH_DEFAULT_INI, &e) != OLC_OK) {
    fprintf(stderr, "bench_gemm: %s\n", e.message);
    return -1;
  }
  cs = *olc_config_calibration(def);
  for (size_t i = 0;
       i < olc_config_workload_count(def) && count < Q_MAX_WORKLOADS && (int)count < max_rows;
       i++) {
    const olc_workload_config *wc = olc_config_workload(def, i);
    if (strcmp(wc->backend, "cpu_gemm") != 0)
      continue;
    snprintf(w[count].name, sizeof w[count].name, "%s", wc->name);
    w[count].m = prop_long(wc, "m");
    w[count].n = prop_long(wc, "n");
    w[count].k = prop_long(wc, "k");
    count++;
  }
  if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "cpu_gemm", threads, &cs, BENCH_ONLY_CPU_GEMM, w, count,
                         err, sizeof err) != 0) {
    fprintf(stderr, "bench_gemm: host calibration: %s\n", err);
    goto done;
  }
  if (pl->create(h, NULL, 0, threads, &inst) != OLC_PLUGIN_OK)
    goto done;
  for (size_t i = 0; i < count; i++) {
    bench_quality_row *q = &rows[i];
    memset(q, 0, sizeof *q);
    if (snprintf(q->name, sizeof q->name, "%s", w[i].name) >= (int)sizeof q->name)
      q->name[sizeof q->name - 1] = 0; /* a long workload name is shown cut */
    q->m = w[i].m, q->n = w[i].n, q->k = w[i].k;
    q->threads = (int)threads;
    q->loop_s = w[i].seconds;
    q->loop_measured = (int)w[i].measured;
    q->loop_abandoned = (int)w[i].abandoned;
    snprintf(q->policy, sizeof q->policy, "%s", w[i].policy);
    if (!w[i].ok) {
      fprintf(stderr, "bench_gemm: %s: %s\n", w[i].name, w[i].message);
      goto done;
    }
    if (exhaustive(pl, inst, &w[i], &cs, q) != 0) {
      fprintf(stderr, "bench_gemm: %s: exhaustive pass failed\n", w[i].name);
      goto done;
    }
  }
  n = (int)count;
done:
  if (inst != NULL)
    pl->destroy(inst);
  olc_config_free(def);
  return n;
}

#define Q_MAX_ROUNDS 32

int bench_quality_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int rounds,
                         int json) {
  static bench_quality_row q[Q_MAX_ROUNDS][Q_MAX_WORKLOADS];
  double gap[Q_MAX_WORKLOADS][Q_MAX_ROUNDS], tp[Q_MAX_WORKLOADS][Q_MAX_ROUNDS];
  int n = 0;
  rounds = rounds < 1 ? 1 : rounds > Q_MAX_ROUNDS ? Q_MAX_ROUNDS : rounds;
  if (json)
    printf("{\"quality\": {\"threads\": %d, \"rounds\": [\n", threads);
  else
    printf("calibration quality (config/default.ini, cpu_gemm workloads, %d thread%s, %d round%s)\n"
           "%-5s %-13s %-13s %5s %4s %4s %9s %9s %6s %6s %7s %7s %6s  %s\n",
           threads, threads > 1 ? "s" : "", rounds, rounds > 1 ? "s" : "", "round", "workload",
           "m x n x k", "cands", "meas", "aban", "pick us", "best us", "pass%", "gap%", "loop s",
           "exh s", "time%", "pick");
  for (int ri = 0; ri < rounds; ri++) {
    n = bench_quality(pl, h, (uint32_t)threads, q[ri], Q_MAX_WORKLOADS);
    if (n < 0)
      return -1;
    for (int i = 0; i < n; i++) {
      const bench_quality_row *r = &q[ri][i];
      char shp[48];
      double pass = 100.0 * (r->pick_s / r->best_s - 1.0);
      gap[i][ri] = 100.0 * r->paired_gap;
      tp[i][ri] = 100.0 * r->loop_s / r->exhaustive_s;
      snprintf(shp, sizeof shp, "%ldx%ldx%ld", r->m, r->n, r->k);
      if (json)
        printf("  {\"round\": %d, \"workload\": \"%s\", \"m\": %ld, \"n\": %ld, \"k\": %ld, "
               "\"candidates\": %d, \"loop_measured\": %d, \"loop_abandoned\": %d, "
               "\"pick\": %d, \"best\": %d, \"pick_median_us\": %.3f, "
               "\"best_median_us\": %.3f, \"pass_gap_pct\": %.2f, \"gap_pct\": %.2f, "
               "\"loop_s\": %.3f, "
               "\"exhaustive_s\": %.3f, \"time_pct\": %.1f, \"policy\": \"%s\"}%s\n",
               ri + 1, r->name, r->m, r->n, r->k, r->candidates, r->loop_measured,
               r->loop_abandoned, r->pick, r->best, r->pick_s * 1e6, r->best_s * 1e6, pass,
               gap[i][ri], r->loop_s, r->exhaustive_s, tp[i][ri], r->policy,
               ri + 1 < rounds || i + 1 < n ? "," : "");
      else
        printf("%-5d %-13s %-13s %5d %4d %4d %9.1f %9.1f %6.1f %6.1f %7.2f %7.2f %6.1f  %s\n",
               ri + 1, r->name, shp, r->candidates, r->loop_measured, r->loop_abandoned,
               r->pick_s * 1e6, r->best_s * 1e6, pass, gap[i][ri], r->loop_s, r->exhaustive_s,
               tp[i][ri], r->policy);
      fflush(stdout);
    }
  }
  if (json)
    printf("], \"summary\": [\n");
  else
    printf("median over %d round%s (goals: gap <= 3%%, time <= 25%%):\n", rounds,
           rounds > 1 ? "s" : "");
  for (int i = 0; i < n; i++) {
    double g[Q_MAX_ROUNDS], t[Q_MAX_ROUNDS], gmax = 0.0;
    for (int ri = 0; ri < rounds; ri++)
      g[ri] = gap[i][ri], t[ri] = tp[i][ri], gmax = g[ri] > gmax ? g[ri] : gmax;
    if (json)
      printf("  {\"workload\": \"%s\", \"gap_pct_median\": %.2f, \"gap_pct_max\": %.2f, "
             "\"time_pct_median\": %.1f}%s\n",
             q[0][i].name, bench_median(g, (size_t)rounds), gmax, bench_median(t, (size_t)rounds),
             i + 1 < n ? "," : "");
    else
      printf("  %-13s gap %5.1f%% (max %5.1f%%)  time %5.1f%%\n", q[0][i].name,
             bench_median(g, (size_t)rounds), gmax, bench_median(t, (size_t)rounds));
  }
  if (json)
    printf("]}}\n");
  return 0;
}
