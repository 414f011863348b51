/*
 * packed_bench.c - cpu_gemm through the runtime path against every peer,
 * each contender as its users run it, one thread:
 *
 * - "olc packed": B (k x n, an ONNX initializer) bound as a constant of
 *   the workload (olc_workload.constants), selected (calibrated on a miss,
 *   packing outside the timed runs), packed once by the binding for the
 *   selected policy; each call is olc_binding_execute with A and C only;
 * - "olc per call": a plain binding of the same product (its own key and
 *   record), each call olc_selection_matmul_f32 with B;
 * - the peers (peers.h). Those that prepare the weight once at creation
 *   (oneDNN's matmul primitive with the weights reordered, XNNPACK's
 *   fully-connected operator, ONNX Runtime with B an initializer) are
 *   compared with olc packed; those handed B on every call (OpenBLAS,
 *   BLIS, dnnl_sgemm, libxsmm's JIT kernel, Eigen) with olc per call.
 *
 * Every contender's output is checked against a double-precision product
 * first.  Rounds alternate the order (olc first, then last); a round times
 * enough calls of each for about 20 ms of thread CPU time.  Each figure is
 * the median of the rounds; each ratio the median over rounds of the
 * matching olc form's time over the peer's in the same round.  A shape's
 * verdict is the larger of olc packed / the fastest preparing peer and olc
 * per call / the fastest per-call peer (at most 1: olc at least as fast).
 * --packed table runs bench_gemm's table of shapes and ends with the
 * table in Markdown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_runtime.h"
#include "bench_util.h"
#include "peers.h"

#define OLC_PACKED 0 /* contenders: olc's two forms, then 2 + each peer */
#define OLC_CALL 1
#define CONTENDERS (2 + BENCH_PEER_COUNT)
#define MAX_ROUNDS 101
#define MAX_TABLE 16

/* Whether peer p prepares B once, at creation (compared with olc packed). */
static int prepares_b(int p) {
  return p == BENCH_PEER_DNNL_MATMUL || p == BENCH_PEER_XNNPACK || p == BENCH_PEER_ORT;
}

/* The olc form peer p is compared with. */
static int olc_form(int p) { return prepares_b(p) ? OLC_PACKED : OLC_CALL; }

static const char *contender_name(int who) {
  return who == OLC_PACKED ? "olc packed"
         : who == OLC_CALL ? "olc per call"
                           : bench_peer_name(who - 2);
}

typedef struct packed_run {
  br_shape s;     /* label, properties, operands (s.binding: the constant's) */
  br_shape plain; /* the same product bound without constants */
  olc_constant constant;
  olc_tensor t[3]; /* A, B given as zeroed (the binding's constant), C */
  olc_execute_args args;
  const bench_peers *peers;
  int ran[BENCH_PEER_COUNT];
  bench_peer_plan plan[BENCH_PEER_COUNT];
} packed_run;

/* One shape's figures, for the closing table. */
typedef struct packed_row {
  long m, n, k;
  double us[CONTENDERS]; /* medians; 0: not run */
  double ratio[BENCH_PEER_COUNT];
  int fastest[2]; /* per call, preparing: the fastest peer of each kind (-1: none) */
  char policy[2][160];
} packed_row;

static void olc_call(packed_run *r, int who) {
  olc_error err;
  br_shape *s = &r->s;
  olc_status st = who == OLC_PACKED
                      ? olc_binding_execute(s->binding, s->sel, &r->args, &err)
                      : olc_selection_matmul_f32(r->plain.sel, s->m, s->n, s->k, 1.0f, s->a, s->k,
                                                 s->b, s->n, 0.0f, s->c, s->n, &err);
  if (st != OLC_OK)
    br_die("packed %s: %s: %s", s->label, contender_name(who), err.message);
}

static void call(packed_run *r, int who) {
  if (who <= OLC_CALL)
    olc_call(r, who);
  else
    bench_peer_plan_run(&r->plan[who - 2]);
}

static int runs(const packed_run *r, int who) { return who <= OLC_CALL || r->ran[who - 2]; }

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

/* Binds s and selects (calibrating on a miss). */
static void bind_select(br_shape *s, const char *what) {
  olc_status st;
  olc_error err;
  if (olc_host_bind(&s->binding, s->host, &s->w, &err) != OLC_OK)
    br_die("packed %s: bind (%s): %s", s->label, what, err.message);
  st = olc_binding_select(&s->sel, s->binding, NULL, &err);
  if (st < 0)
    br_die("packed %s: select (%s): %s", s->label, what, err.message);
  if (st == OLC_FIRST_CANDIDATE || st == OLC_NEAREST_RECORD)
    printf("packed %s: %s not tuned for it (%s)\n", s->label, what, olc_selection_message(s->sel));
}

/* Binds the shape with B constant, and again without constants. */
static void bind_both(packed_run *r, olc_host *host) {
  br_shape *s = &r->s;
  olc_execute_args args_init = OLC_EXECUTE_ARGS_INIT;
  br_workload(s, host, "sha256:0000000000000000000000000000000000000000000000000000000000000001");
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
  s->w.constants = &r->constant;
  s->w.constant_count = 1;
  bind_select(s, "B constant");
  r->plain.m = s->m, r->plain.n = s->n, r->plain.k = s->k;
  br_workload(&r->plain, host,
              "sha256:0000000000000000000000000000000000000000000000000000000000000001");
  bind_select(&r->plain, "B per call");
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
    if (!runs(r, who))
      continue;
    memset(r->s.c, 0xff, (size_t)(r->s.m * r->s.n) * sizeof(float)); /* NaN */
    call(r, who);
    e = bench_peer_check(&args, r->s.c);
    if (!(e <= 1.0))
      br_die("packed %s: %s's output is off the product (%.3g of the float32 bound)", r->s.label,
             contender_name(who), e);
  }
}

static void policy_text(char *out, size_t cap, const olc_selection *sel) {
  size_t len = 0;
  const unsigned char *pol = olc_selection_policy(sel, &len);
  snprintf(out, cap, "%.*s", pol != NULL ? (int)len : 0, pol != NULL ? (const char *)pol : "");
}

/* The fastest peer of each kind; the shape's verdict (0: no peer). */
static double verdict(packed_row *row) {
  double worst = 0;
  int kind;
  row->fastest[0] = row->fastest[1] = -1;
  for (int p = 0; p < BENCH_PEER_COUNT; p++) {
    int *f = &row->fastest[prepares_b(p)];
    if (row->us[2 + p] > 0 && (*f < 0 || row->us[2 + p] < row->us[2 + *f]))
      *f = p;
  }
  for (kind = 0; kind < 2; kind++)
    if (row->fastest[kind] >= 0 && row->ratio[row->fastest[kind]] > worst)
      worst = row->ratio[row->fastest[kind]];
  return worst;
}

static void measure(packed_run *r, int rounds, packed_row *row) {
  static double t[CONTENDERS][MAX_ROUNDS], ratio[MAX_ROUNDS];
  double flop = 2.0 * (double)r->s.m * (double)r->s.n * (double)r->s.k, one;
  int who, i, reps;
  one = time_calls(r, OLC_CALL, 1);
  reps = one > 0 ? (int)(2e7 / one) + 1 : 1;
  reps = reps > 1000 ? 1000 : reps;
  for (i = 0; i < rounds; i++)
    for (who = 0; who < CONTENDERS; who++) {
      int c = i % 2 ? CONTENDERS - 1 - who : who;
      t[c][i] = runs(r, c) ? time_calls(r, c, reps) : 0;
    }
  memset(row, 0, sizeof *row);
  row->m = r->s.m, row->n = r->s.n, row->k = r->s.k;
  for (who = 0; who < CONTENDERS; who++)
    row->us[who] = runs(r, who) ? bench_median(t[who], (size_t)rounds) / 1e3 : 0;
  for (who = 2; who < CONTENDERS; who++) {
    if (!runs(r, who))
      continue;
    for (i = 0; i < rounds; i++)
      ratio[i] = t[olc_form(who - 2)][i] / t[who][i];
    row->ratio[who - 2] = bench_median(ratio, (size_t)rounds);
  }
  policy_text(row->policy[0], sizeof row->policy[0], r->plain.sel);
  policy_text(row->policy[1], sizeof row->policy[1], r->s.sel);
  printf("packed %-14s olc packed %9.1f us (%.1f GFLOP/s, packed %.1f MiB)  olc per call %9.1f us "
         "(%.1f GFLOP/s)",
         r->s.label, row->us[OLC_PACKED], flop / (row->us[OLC_PACKED] * 1e3),
         (double)olc_binding_packed_bytes(r->s.binding) / 1048576.0, row->us[OLC_CALL],
         flop / (row->us[OLC_CALL] * 1e3));
  for (who = 2; who < CONTENDERS; who++)
    if (runs(r, who))
      printf("  %s %9.1f us (%s/%s %.3fx)", contender_name(who), row->us[who],
             olc_form(who - 2) == OLC_PACKED ? "packed" : "call", contender_name(who),
             row->ratio[who - 2]);
  printf("  (%d calls a round)\n", reps);
  printf("packed %-14s verdict %.3f (olc / the fastest peer of its kind); policies: per call "
         "%s, packed %s\n",
         r->s.label, verdict(row), row->policy[0], row->policy[1]);
}

static void run_shape(olc_host *host, const bench_peers *peers, const long shape[3], int rounds,
                      packed_row *row) {
  packed_run *r = calloc(1, sizeof *r);
  int p;
  if (r == NULL)
    br_die("out of memory");
  r->s.m = shape[0];
  r->s.n = shape[1];
  r->s.k = shape[2];
  r->peers = peers;
  bind_both(r, host);
  if (!olc_selection_can_execute(r->s.sel)) {
    printf("packed %s: skipped: the plugin has no execute\n", r->s.label);
  } else {
    make_plans(r);
    check_outputs(r);
    measure(r, rounds, row);
  }
  for (p = 0; p < BENCH_PEER_COUNT; p++)
    if (r->ran[p])
      bench_peer_plan_free(&r->plan[p]);
  olc_binding_free(r->plain.binding);
  br_release(&r->s);
  free(r);
}

static void fmt_ratio(char *out, size_t cap, const packed_row *row, int kind) {
  int p = row->fastest[kind];
  if (p < 0)
    snprintf(out, cap, "-");
  else
    snprintf(out, cap, "%.3fx (%s)", row->ratio[p], bench_peer_name(p));
}

/* The run's table in Markdown: a column per peer that ran any shape. */
static void print_table(const packed_row *rows, int count) {
  int used[CONTENDERS] = {0}, who, i;
  for (i = 0; i < count; i++)
    for (who = 0; who < CONTENDERS; who++)
      used[who] |= rows[i].us[who] > 0;
  printf("\n| shape |");
  for (who = 0; who < CONTENDERS; who++)
    if (used[who])
      printf(" %s (us) |", contender_name(who));
  printf(" per call / fastest per-call peer | packed / fastest preparing peer | verdict |\n|---|");
  for (who = 0; who < CONTENDERS; who++)
    if (used[who])
      printf("---|");
  printf("---|---|---|\n");
  for (i = 0; i < count; i++) {
    packed_row row = rows[i];
    char call_r[64], pack_r[64];
    double v;
    if (row.us[OLC_CALL] <= 0)
      continue;
    v = verdict(&row);
    fmt_ratio(call_r, sizeof call_r, &row, 0);
    fmt_ratio(pack_r, sizeof pack_r, &row, 1);
    printf("| %ldx%ldx%ld |", row.m, row.n, row.k);
    for (who = 0; who < CONTENDERS; who++)
      if (used[who] && row.us[who] > 0)
        printf(" %.1f |", row.us[who]);
      else if (used[who])
        printf(" - |");
    printf(" %s | %s | %.3f |\n", call_r, pack_r, v);
  }
}

void br_packed_bench(olc_host *host, int rounds, const long (*shapes)[3], int count,
                     const char *peer_list) {
  static packed_row rows[MAX_TABLE];
  char why[512], line[4096];
  int selected[BENCH_PEER_COUNT], i;
  bench_peers peers;
  if (bench_peers_select(selected, peer_list, why, sizeof why) != 0)
    br_die("%s", why);
  bench_peers_open(&peers, selected);
  bench_peers_describe(&peers, line, sizeof line);
  printf("packed: olc packed (B a constant of the binding, olc_binding_execute) against the peers "
         "that prepare the weights at creation, olc per call (olc_selection_matmul_f32) against "
         "those handed B on every call; one thread\n%s\n",
         line);
  count = count > MAX_TABLE ? MAX_TABLE : count;
  for (i = 0; i < count; i++)
    run_shape(host, &peers, shapes[i], rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds, &rows[i]);
  print_table(rows, count);
  bench_peers_close(&peers);
}
