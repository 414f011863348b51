/*
 * packed_bench.c - products with a constant weight packed once, as an
 * inference runtime runs a model's linear layers: B (k x n, an ONNX
 * initializer) is bound as a constant of the workload (olc_workload
 * .constants), selected (calibrated on a miss, packing outside the timed
 * runs), packed once by the binding for the selected policy, and each call
 * is olc_binding_execute with A and C only.  The peers are those that
 * also prepare the weight once at creation (peers.h): oneDNN's matmul
 * primitive with the weights reordered into the layout it picks, XNNPACK's
 * fully-connected operator (weights packed at creation) and ONNX Runtime
 * with B as the initializer of a one-node model; one thread each.  Every
 * contender's output is checked against a double-precision product first.
 *
 * Rounds alternate the order (olc first, then last); a round times enough
 * calls of each for about 20 ms of thread CPU time.  Each figure is the
 * median of the rounds; the ratios are medians over rounds of olc's time
 * over each peer's in the same round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_runtime.h"
#include "bench_util.h"
#include "peers.h"

#define PACKED_PEERS "onednn-matmul,xnnpack,ort"
#define CONTENDERS (1 + BENCH_PEER_COUNT) /* 0: olc, 1 + peer */
#define MAX_ROUNDS 101

typedef struct packed_run {
  br_shape s; /* label, properties, operands (s.binding: the constant's) */
  olc_constant constant;
  olc_tensor t[3]; /* A, B given as zeroed (the binding's constant), C */
  olc_execute_args args;
  const bench_peers *peers;
  int ran[BENCH_PEER_COUNT];
  bench_peer_plan plan[BENCH_PEER_COUNT];
} packed_run;

static void olc_call(packed_run *r) {
  olc_error err;
  if (olc_binding_execute(r->s.binding, r->s.sel, &r->args, &err) != OLC_OK)
    br_die("packed %s: olc_binding_execute: %s", r->s.label, err.message);
}

static void call(packed_run *r, int who) {
  if (who == 0)
    olc_call(r);
  else
    bench_peer_plan_run(&r->plan[who - 1]);
}

/* ns per call of contender who over reps calls. */
static double time_calls(packed_run *r, int who, int reps) {
  double t0 = br_cpu_ns();
  int i;
  for (i = 0; i < reps; i++)
    call(r, who);
  return (br_cpu_ns() - t0) / reps;
}

static void fill(float *p, size_t count, unsigned seed) {
  size_t i;
  for (i = 0; i < count; i++)
    p[i] = (float)((i * 2654435761u + seed) % 2001u) / 1000.0f - 1.0f;
}

/* Binds the shape with B constant and selects (calibrating on a miss). */
static void bind_constant(packed_run *r, olc_host *host) {
  br_shape *s = &r->s;
  olc_workload init = OLC_WORKLOAD_INIT;
  olc_execute_args args_init = OLC_EXECUTE_ARGS_INIT;
  olc_status st;
  olc_error err;
  br_describe(s);
  s->a = malloc((size_t)(s->m * s->k) * sizeof(float));
  s->b = malloc((size_t)(s->k * s->n) * sizeof(float));
  s->c = malloc((size_t)(s->m * s->n) * sizeof(float));
  if (s->a == NULL || s->b == NULL || s->c == NULL)
    br_die("out of memory");
  fill(s->a, (size_t)(s->m * s->k), 1);
  fill(s->b, (size_t)(s->k * s->n), 7);
  memset(&r->t, 0, sizeof r->t);
  r->t[0] = (olc_tensor){OLC_DTYPE_FLOAT32, 2, {s->m, s->k}, {s->k, 1}, s->a};
  r->t[2] = (olc_tensor){OLC_DTYPE_FLOAT32, 2, {s->m, s->n}, {s->n, 1}, s->c};
  r->constant.input = 1;
  r->constant.tensor = (olc_tensor){OLC_DTYPE_FLOAT32, 2, {s->k, s->n}, {s->n, 1}, s->b};
  s->w = init;
  s->w.backend = "cpu_gemm";
  s->w.operator_name = "MatMul";
  s->w.properties = s->props;
  s->w.property_count = 4;
  s->w.model_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000001";
  s->w.constants = &r->constant;
  s->w.constant_count = 1;
  s->host = host;
  if (olc_host_bind(&s->binding, host, &s->w, &err) != OLC_OK)
    br_die("packed %s: bind: %s", s->label, err.message);
  st = olc_binding_select(&s->sel, s->binding, NULL, &err);
  if (st < 0)
    br_die("packed %s: select: %s", s->label, err.message);
  if (st == OLC_FIRST_CANDIDATE || st == OLC_NEAREST_RECORD)
    printf("packed %s: not tuned for it (%s)\n", s->label, olc_selection_message(s->sel));
  r->args = args_init;
  r->args.inputs = r->t;
  r->args.input_count = 2;
  r->args.outputs = &r->t[2];
  r->args.output_count = 1;
}

/* Each loaded peer's plan; one that cannot plan the shape is left out. */
static void make_plans(packed_run *r) {
  const bench_peer_args args = {r->s.m, r->s.n, r->s.k, r->s.a, r->s.b, r->s.c, 1};
  char why[256];
  int p;
  for (p = 0; p < BENCH_PEER_COUNT; p++) {
    if (!r->peers->have[p])
      continue;
    r->ran[p] = bench_peer_plan_make(&r->plan[p], r->peers, p, &args, why, sizeof why) == 0;
    if (!r->ran[p])
      printf("packed %s: %s skipped: %s\n", r->s.label, bench_peer_name(p), why);
  }
}

/* Every contender's output within the float32 bound of the product. */
static void check_outputs(packed_run *r) {
  const bench_peer_args args = {r->s.m, r->s.n, r->s.k, r->s.a, r->s.b, r->s.c, 1};
  int who;
  for (who = 0; who < CONTENDERS; who++) {
    double e;
    if (who > 0 && !r->ran[who - 1])
      continue;
    memset(r->s.c, 0xff, (size_t)(r->s.m * r->s.n) * sizeof(float)); /* NaN */
    call(r, who);
    e = bench_peer_check(&args, r->s.c);
    if (!(e <= 1.0))
      br_die("packed %s: %s's output is off the product (%.3g of the float32 bound)", r->s.label,
             who == 0 ? "olc" : bench_peer_name(who - 1), e);
  }
}

static void measure(packed_run *r, int rounds) {
  static double t[CONTENDERS][MAX_ROUNDS], ratio[BENCH_PEER_COUNT][MAX_ROUNDS];
  double med[CONTENDERS], one, flop = 2.0 * (double)r->s.m * (double)r->s.n * (double)r->s.k;
  int who, i, reps;
  one = time_calls(r, 0, 1);
  reps = one > 0 ? (int)(2e7 / one) + 1 : 1;
  reps = reps > 1000 ? 1000 : reps;
  for (i = 0; i < rounds; i++)
    for (who = 0; who < CONTENDERS; who++) {
      int c = i % 2 ? CONTENDERS - 1 - who : who;
      t[c][i] = c == 0 || r->ran[c - 1] ? time_calls(r, c, reps) : 0;
    }
  for (who = 1; who < CONTENDERS; who++)
    for (i = 0; i < rounds; i++)
      ratio[who - 1][i] = t[who][i] > 0 ? t[0][i] / t[who][i] : 0;
  for (who = 0; who < CONTENDERS; who++)
    med[who] = bench_median(t[who], (size_t)rounds);
  printf("packed %-14s olc %9.1f us (%.1f GFLOP/s, packed %.1f MiB)", r->s.label, med[0] / 1e3,
         flop / med[0], (double)olc_binding_packed_bytes(r->s.binding) / 1048576.0);
  for (who = 1; who < CONTENDERS; who++)
    if (r->ran[who - 1])
      printf("  %s %9.1f us (olc/%s %.3fx)", bench_peer_name(who - 1), med[who] / 1e3,
             bench_peer_name(who - 1), bench_median(ratio[who - 1], (size_t)rounds));
  printf("  (%d calls a round)\n", reps);
  {
    size_t len = 0;
    const unsigned char *pol = olc_selection_policy(r->s.sel, &len);
    if (pol != NULL)
      printf("packed %-14s policy %.*s\n", r->s.label, (int)len, (const char *)pol);
  }
}

static void run_shape(olc_host *host, const bench_peers *peers, long m, long n, long k,
                      int rounds) {
  packed_run *r = calloc(1, sizeof *r);
  int p;
  if (r == NULL)
    br_die("out of memory");
  r->s.m = m;
  r->s.n = n;
  r->s.k = k;
  r->peers = peers;
  bind_constant(r, host);
  if (!olc_selection_can_execute(r->s.sel)) {
    printf("packed %s: skipped: the plugin has no execute\n", r->s.label);
  } else {
    make_plans(r);
    check_outputs(r);
    measure(r, rounds);
  }
  for (p = 0; p < BENCH_PEER_COUNT; p++)
    if (r->ran[p])
      bench_peer_plan_free(&r->plan[p]);
  br_release(&r->s);
  free(r);
}

void br_packed_bench(olc_host *host, int rounds, const long (*shapes)[3], int count) {
  char why[512], line[4096];
  int selected[BENCH_PEER_COUNT], i;
  bench_peers peers;
  if (bench_peers_select(selected, PACKED_PEERS, why, sizeof why) != 0)
    br_die("%s", why);
  bench_peers_open(&peers, selected);
  bench_peers_describe(&peers, line, sizeof line);
  printf("packed: B constant (olc_workload.constants, olc_binding_execute) against the peers "
         "that prepare the weights at creation, one thread\n%s\n",
         line);
  for (i = 0; i < count; i++)
    run_shape(host, &peers, shapes[i][0], shapes[i][1], shapes[i][2],
              rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds);
  bench_peers_close(&peers);
}
