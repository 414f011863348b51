/*
 * overhead.c - the fixed cost of one call (bench_gemm --overhead, and the
 * head of every bench_gemm run): a 1x1x1 product timed per call through
 * execute with the plugin's first candidate (what a runtime gets: the thin
 * kernel), the direct path (a tile kernel, pack=none split=none: no
 * packing, no workspace), the blocked path (pack=ab: a workspace from the
 * instance's cache, A and B packed), a policy that splits over 2 threads
 * (the pool's hand-off), and run (which also decodes the workload's
 * properties); each loaded peer's 1x1x1 call (its plan made once) for
 * comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "peers.h"

typedef struct call {
  const olc_plugin *pl;
  void *inst, *state;
  const void *policy;
  bench_peer_plan plan;
  bench_workload w;
  bench_exec e;
  float a[64], b[64], c[64];
} call;

static void call_execute(void *arg) {
  call *x = arg;
  (void)bench_exec_call(x->pl, x->inst, x->policy, &x->e);
}

static void call_run(void *arg) {
  call *x = arg;
  (void)x->pl->run(x->inst, &x->w.wl, x->state, x->policy);
}

static void call_peer(void *arg) {
  call *x = arg;
  bench_peer_plan_run(&x->plan);
}

typedef struct first {
  void *p;
} first;

static int32_t keep_first(void *ctx, void *policy) {
  first *f = ctx;
  f->p = policy;
  return OLC_PLUGIN_E_LIMIT; /* one is enough */
}

/* The first candidate of an m x n x k workload on inst. */
static void *first_candidate(const olc_plugin *pl, void *inst, long m, long n, long k) {
  bench_workload w;
  first f = {NULL};
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &f, keep_first};
  bench_workload_init(&w, "overhead", m, n, k);
  if (pl->candidates(inst, &w.wl, &sink) != OLC_PLUGIN_OK)
    return NULL;
  return f.p;
}

typedef struct row {
  const char *what;
  double ns;
  char policy[160];
} row;

static void measure_policy(call *x, void *inst, void *policy, const char *what, row *r) {
  x->inst = inst, x->policy = policy;
  r->what = what;
  r->ns = bench_time_calls(call_execute, x, 9) * 1e9;
  if (bench_policy_text(x->pl, inst, policy, r->policy, sizeof r->policy) != 0)
    r->policy[0] = '\0';
}

int bench_overhead_report(const olc_plugin *pl, const olc_plugin_host *h, const void *peers_v,
                          int threads, int json) {
  const bench_peers *peers = peers_v;
  static call x;
  void *one = NULL, *two = NULL, *pol[4] = {NULL, NULL, NULL, NULL};
  row rows[8 + BENCH_PEER_COUNT];
  static char names[BENCH_PEER_COUNT][64];
  int n = 0, rc = -1;
  memset(&x, 0, sizeof x);
  x.pl = pl;
  bench_exec_init(&x.e, 1, 1, 1, x.a, x.b, x.c);
  (void)threads;
  if (pl->create(h, NULL, 0, 1, &one) != OLC_PLUGIN_OK || pl->create(h, NULL, 0, 2, &two))
    goto done;
  pol[0] = first_candidate(pl, one, 1, 1, 1);       /* thin: mv4 */
  pol[1] = first_candidate(pl, one, 32, 32, 32);    /* direct */
  pol[2] = first_candidate(pl, one, 256, 256, 256); /* blocked, packed */
  pol[3] = first_candidate(pl, two, 1024, 1024, 1024);
  if (pol[0] == NULL || pol[1] == NULL || pol[2] == NULL || pol[3] == NULL)
    goto done;
  measure_policy(&x, one, pol[0], "execute, first candidate of 1x1x1", &rows[n++]);
  measure_policy(&x, one, pol[1], "execute, direct path (first of 32x32x32)", &rows[n++]);
  measure_policy(&x, one, pol[2], "execute, blocked and packed (first of 256^3)", &rows[n++]);
  measure_policy(&x, two, pol[3], "execute, split on 2 threads (first of 1024^3)", &rows[n++]);
  bench_workload_init(&x.w, "overhead", 1, 1, 1);
  if (pl->prepare(one, &x.w.wl, &x.state) != OLC_PLUGIN_OK)
    goto done;
  x.inst = one, x.policy = pol[0];
  rows[n].what = "run, first candidate of 1x1x1 (decodes the workload)";
  rows[n].ns = bench_time_calls(call_run, &x, 9) * 1e9;
  snprintf(rows[n++].policy, sizeof rows[0].policy, "%s", rows[0].policy);
  pl->unprepare(one, x.state);
  for (int p = 0; p < BENCH_PEER_COUNT; p++) {
    const bench_peer_args args = {1, 1, 1, x.a, x.b, x.c, 1};
    char why[256];
    if (!peers->have[p] || bench_peer_plan_make(&x.plan, peers, p, &args, why, sizeof why) != 0)
      continue;
    snprintf(names[p], sizeof names[p], "%s, 1x1x1 (its plan made once)", bench_peer_name(p));
    rows[n].what = names[p];
    rows[n].ns = bench_time_calls(call_peer, &x, 9) * 1e9;
    rows[n++].policy[0] = '\0';
    bench_peer_plan_free(&x.plan);
  }
  if (json) {
    printf("{\"call_cost_ns\": [\n");
    for (int i = 0; i < n; i++)
      printf("  {\"what\": \"%s\", \"ns\": %.1f, \"policy\": \"%s\"}%s\n", rows[i].what, rows[i].ns,
             rows[i].policy, i + 1 < n ? "," : "");
    printf("]}\n");
  } else {
    printf("fixed cost of a call (1x1x1, median ns per call):\n");
    for (int i = 0; i < n; i++)
      printf("  %8.1f ns  %-56s %s\n", rows[i].ns, rows[i].what, rows[i].policy);
  }
  rc = 0;
done:
  for (int i = 0; i < 4; i++)
    if (pol[i] != NULL)
      pl->release_policy(i == 3 ? two : one, pol[i]);
  if (one != NULL)
    pl->destroy(one);
  if (two != NULL)
    pl->destroy(two);
  return rc;
}
