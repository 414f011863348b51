/*
 * table.c - one shape of bench_gemm's main table: every loaded peer (its
 * plan made once: packed weights, a session, a JIT kernel), cpu_gemm with
 * the selected ("calibrated") policy and cpu_gemm with its first candidate
 * ("default") on the same operands; each output checked against a
 * double-precision product, then rounds timed in the orders of a balanced
 * Latin square (each contestant runs right after each other equally
 * often).  cpu_gemm runs through its ABI 1.1 execute, as a runtime calls
 * it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_gemm.h"

#define MAX_CANDS 64

typedef struct bench {
  const olc_plugin *pl;
  void *inst;
  shape s;
  float *a, *b, *c; /* shared by every contestant */
  const void *policy[C_COUNT];
  bench_peer_plan plan[BENCH_PEER_COUNT];
  bench_exec exec;     /* cpu_gemm's arguments, on the same operands */
  int iters;           /* calls per sample, so a sample lasts >= ~20 ms */
  int who[C_COUNT], n; /* the contestants of this shape */
} bench;

static float *alloc_matrix(long count) {
  size_t bytes = ((size_t)count * sizeof(float) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
  void *p = NULL;
  if (posix_memalign(&p, 2u << 20, bytes) != 0)
    bench_die("out of memory");
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* same treatment as the plugin's */
  for (long i = 0; i < count; i++)
    ((float *)p)[i] = (float)((i * 7919 % 2001) - 1000) * 1e-3f;
  return p;
}

static void call_once(bench *x, int who) {
  if (who < BENCH_PEER_COUNT)
    bench_peer_plan_run(&x->plan[who]);
  else if (bench_exec_call(x->pl, x->inst, x->policy[who], &x->exec) != OLC_PLUGIN_OK)
    bench_die("execute");
}

static double time_contestant(bench *x, int who) {
  double t0 = bench_now_s();
  for (int i = 0; i < x->iters; i++)
    call_once(x, who);
  return (bench_now_s() - t0) / x->iters;
}

static void time_rounds(bench *x, int rounds, double *t[C_COUNT]) {
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < x->n; i++) {
      int who = x->who[bench_square_at(x->n, r, i)];
      t[who][r] = time_contestant(x, who);
    }
}

/* Runs each contestant once on a poisoned C and checks its output: a
 * contestant that computes something else would make its times
 * meaningless. */
static void check_outputs(bench *x, result *res) {
  const bench_peer_args args = {x->s.m, x->s.n, x->s.k, x->a, x->b, x->c, 1};
  const size_t count = (size_t)(x->s.m * x->s.n);
  for (int i = 0; i < x->n; i++) {
    int who = x->who[i];
    for (size_t j = 0; j < count; j++)
      x->c[j] = NAN;
    call_once(x, who);
    res->check[who] = bench_peer_check(&args, x->c);
    if (!(res->check[who] <= 1.0))
      bench_die("%ldx%ldx%ld: %s's output is off the double-precision product (%.3g of the "
                "float32 bound)",
                x->s.m, x->s.n, x->s.k, bench_contestant_name(who), res->check[who]);
  }
}

static void summarise(const bench *x, int reps, double *t[C_COUNT], const bench_stream_info *bw,
                      result *res) {
  const double flops = 2.0 * (double)x->s.m * (double)x->s.n * (double)x->s.k;
  double med[C_COUNT];
  memset(med, 0, sizeof med);
  res->best_peer = -1;
  for (int i = 0; i < x->n; i++) {
    int c = x->who[i];
    res->ran[c] = 1;
    med[c] = bench_med(t[c], reps);
    res->gf[c] = med[c] > 0 ? flops / med[c] * 1e-9 : 0.0;
    if (c < BENCH_PEER_COUNT) {
      res->vs_peer[0][c] = bench_paired(t[c], t[C_CAL], reps);
      res->vs_peer[1][c] = bench_paired(t[c], t[C_DEF], reps);
      if (res->best_peer < 0 || med[c] < med[res->best_peer])
        res->best_peer = c;
    }
  }
  res->cal_best = res->best_peer >= 0 ? res->vs_peer[0][res->best_peer] : 0;
  res->def_best = res->best_peer >= 0 ? res->vs_peer[1][res->best_peer] : 0;
  res->cal_def = bench_paired(t[C_DEF], t[C_CAL], reps);
  res->big_bytes = 0;
  if (x->s.m <= 4 || x->s.n <= 4) {
    double a = 4.0 * (double)x->s.m * (double)x->s.k, b = 4.0 * (double)x->s.k * (double)x->s.n;
    res->big_bytes = a > b ? a : b;
    res->cal_gbs = res->big_bytes / med[C_CAL] * 1e-9;
    res->out_of_cache = res->big_bytes > (double)bw->cache_bytes;
  }
}

typedef struct cand_set {
  void *p[MAX_CANDS];
  int n;
} cand_set;

static int32_t emit_cand(void *ctx, void *policy) {
  cand_set *s = ctx;
  if (s->n >= MAX_CANDS)
    return OLC_PLUGIN_E_LIMIT;
  s->p[s->n++] = policy;
  return OLC_PLUGIN_OK;
}

/* The plans of the loaded peers; a peer that cannot take this shape (or
 * thread count) is left out with its reason. */
static void make_plans(bench *x, const bench_shape_run *run, result *res) {
  const bench_peer_args args = {x->s.m, x->s.n, x->s.k, x->a, x->b, x->c, run->threads};
  x->n = 0;
  for (int p = 0; p < BENCH_PEER_COUNT; p++) {
    if (!run->peers->have[p])
      continue;
    if (bench_peer_plan_make(&x->plan[p], run->peers, p, &args, res->why[p], sizeof res->why[p]) ==
        0)
      x->who[x->n++] = p;
  }
  x->who[x->n++] = C_CAL;
  x->who[x->n++] = C_DEF;
}

void bench_run_shape(const bench_shape_run *run, shape s, result *res) {
  bench_workload w;
  cand_set cands = {{0}, 0};
  olc_plugin_policy_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, &cands, emit_cand};
  double *t[C_COUNT];
  void *cal = NULL;
  static bench x;
  int reps;
  memset(&x, 0, sizeof x);
  memset(res, 0, sizeof *res);
  x.pl = run->pl, x.inst = run->inst, x.s = s;
  bench_workload_init(&w, "bench", s.m, s.n, s.k);
  if (x.pl->candidates(x.inst, &w.wl, &sink) != OLC_PLUGIN_OK || cands.n == 0)
    bench_die("candidates");
  if (x.pl->validate(x.inst, run->cal_text, strlen(run->cal_text), &cal) != OLC_PLUGIN_OK)
    bench_die("policy '%s' rejected", run->cal_text);
  x.a = alloc_matrix(s.m * s.k);
  x.b = alloc_matrix(s.k * s.n);
  x.c = alloc_matrix(s.m * s.n);
  x.policy[C_CAL] = cal, x.policy[C_DEF] = cands.p[0];
  bench_exec_init(&x.exec, s.m, s.n, s.k, x.a, x.b, x.c);
  make_plans(&x, run, res);
  reps = bench_rounds(run->reps, x.n);
  for (int c = 0; c < C_COUNT; c++) {
    t[c] = calloc((size_t)reps, sizeof(double));
    if (t[c] == NULL)
      bench_die("out of memory");
  }
  check_outputs(&x, res);
  x.iters = 1;
  {
    double one = time_contestant(&x, C_CAL);
    one = time_contestant(&x, C_CAL);
    x.iters = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-7 ? one : 1e-7)) + 1;
  }
  for (int i = 0; i < x.n; i++) /* warm: every plan's first timed call is not its first */
    (void)time_contestant(&x, x.who[i]);
  time_rounds(&x, reps, t);
  res->s = s;
  res->threads = run->threads;
  res->rounds = reps;
  summarise(&x, reps, t, run->bw, res);
  if (bench_policy_text(x.pl, x.inst, cal, res->cal_text, sizeof res->cal_text) != 0 ||
      bench_policy_text(x.pl, x.inst, cands.p[0], res->def_text, sizeof res->def_text) != 0)
    bench_die("serialize");
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    bench_peer_plan_free(&x.plan[p]);
  for (int i = 0; i < cands.n; i++)
    x.pl->release_policy(x.inst, cands.p[i]);
  x.pl->release_policy(x.inst, cal);
  free(x.a), free(x.b), free(x.c);
  for (int c = 0; c < C_COUNT; c++)
    free(t[c]);
}
