/*
 * mlp_bench.c - the example's inference latency (examples/runtime_integration:
 * the 3-layer MLP 256 -> 512 -> 512 -> 128, ReLU between layers) with the
 * olc-selected cpu_gemm policies, executed through the host, against the
 * same layers through the peers of bench/gemm (peers.h: OpenBLAS with its
 * own CPU detection, BLIS, oneDNN, libxsmm, XNNPACK, Eigen, ONNX Runtime;
 * --peers picks some), one thread each, each layer a plan of its own made
 * once (weights packed, a session) as a runtime prepares a model.
 *
 * Per batch size: the three layers are bound with the model's bytes as
 * their identity and selected (calibrated on a miss), the outputs of every
 * contender are checked against the example's reference, then rounds
 * alternate the order of olc and the peers; a round times enough forward
 * passes of each for about 2 ms of thread CPU time.  The figure for olc is
 * the median of its rounds; the ratio is the median over rounds of olc's
 * time over the fastest peer's time in the same round (the fastest peer is
 * the one with the lowest median).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_runtime.h"
#include "bench_util.h"
#include "mlp.h"
#include "peers.h"

#define CONTENDERS (1 + BENCH_PEER_COUNT) /* 0: olc, 1 + peer */

typedef struct mlp_run {
  const mlp *m;
  long batch;
  const olc_selection *sel[MLP_MAX_LAYERS];
  olc_binding *binding[MLP_MAX_LAYERS];
  char dims[MLP_MAX_LAYERS][3][24];
  olc_property props[MLP_MAX_LAYERS][4];
  float *x, *buf[2], *out, *ref;
  const bench_peers *peers;
  int ran[BENCH_PEER_COUNT];                              /* every layer has a plan */
  bench_peer_plan plan[BENCH_PEER_COUNT][MLP_MAX_LAYERS]; /* in -> out of each layer */
} mlp_run;

/* Layer l's input and output buffers (the same for every contender). */
static const float *layer_in(const mlp_run *r, uint32_t l) {
  return l == 0 ? r->x : r->buf[(l - 1) % 2];
}

static float *layer_out(const mlp_run *r, uint32_t l) {
  return l + 1 == r->m->layers ? r->out : r->buf[l % 2];
}

static void relu(float *c, size_t count) {
  size_t i;
  for (i = 0; i < count; i++)
    c[i] = c[i] < 0 ? 0 : c[i];
}

/* One forward pass through contender who; the output in r->out. */
static void forward(mlp_run *r, int who) {
  const mlp *m = r->m;
  uint32_t l;
  olc_error err;
  for (l = 0; l < m->layers; l++) {
    int64_t k = m->width[l], n = m->width[l + 1];
    float *c = layer_out(r, l);
    if (who == 0) {
      if (olc_selection_matmul_f32(r->sel[l], r->batch, n, k, 1.0f, layer_in(r, l), k,
                                   r->m->weights[l], n, 0.0f, c, n, &err) != OLC_OK)
        br_die("mlp layer %u: %s", (unsigned)l, err.message);
    } else {
      bench_peer_plan_run(&r->plan[who - 1][l]);
    }
    if (l + 1 < m->layers)
      relu(c, (size_t)(r->batch * n));
  }
}

static void bind_layers(mlp_run *r, olc_host *host) {
  const mlp *m = r->m;
  uint32_t l;
  olc_error err;
  for (l = 0; l < m->layers; l++) {
    olc_workload w = OLC_WORKLOAD_INIT;
    olc_status st;
    snprintf(r->dims[l][0], 24, "%ld", r->batch);
    snprintf(r->dims[l][1], 24, "%u", (unsigned)m->width[l + 1]);
    snprintf(r->dims[l][2], 24, "%u", (unsigned)m->width[l]);
    r->props[l][0] = (olc_property){"dtype", "float32"};
    r->props[l][1] = (olc_property){"m", r->dims[l][0]};
    r->props[l][2] = (olc_property){"n", r->dims[l][1]};
    r->props[l][3] = (olc_property){"k", r->dims[l][2]};
    w.backend = "cpu_gemm";
    w.operator_name = "MatMul";
    w.properties = r->props[l];
    w.property_count = 4;
    w.model_bytes = m->bytes;
    w.model_len = m->size;
    if (olc_host_bind(&r->binding[l], host, &w, &err) != OLC_OK)
      br_die("mlp bind: %s", err.message);
    st = olc_binding_select(&r->sel[l], r->binding[l], NULL, &err);
    if (st < 0)
      br_die("mlp select: %s", err.message);
  }
}

/* Each loaded peer's plans, one a layer; a peer that cannot plan a layer
 * is left out, with the reason printed. */
static void make_plans(mlp_run *r) {
  char why[256];
  for (int p = 0; p < BENCH_PEER_COUNT; p++) {
    uint32_t l;
    if (!r->peers->have[p])
      continue;
    for (l = 0; l < r->m->layers; l++) {
      const bench_peer_args args = {r->batch,
                                    r->m->width[l + 1],
                                    r->m->width[l],
                                    layer_in(r, l),
                                    r->m->weights[l],
                                    layer_out(r, l),
                                    1};
      if (bench_peer_plan_make(&r->plan[p][l], r->peers, p, &args, why, sizeof why) != 0)
        break;
    }
    r->ran[p] = l == r->m->layers;
    if (!r->ran[p]) {
      printf("mlp batch %ld: %s skipped: %s\n", r->batch, bench_peer_name(p), why);
      while (l-- > 0)
        bench_peer_plan_free(&r->plan[p][l]);
    }
  }
}

static void free_plans(mlp_run *r) {
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    for (uint32_t l = 0; r->ran[p] && l < r->m->layers; l++)
      bench_peer_plan_free(&r->plan[p][l]);
}

static float *alloc_floats(size_t count) {
  float *p = calloc(count, sizeof *p);
  if (p == NULL)
    br_die("out of memory");
  return p;
}

/* ns per forward pass of contender who over reps passes. */
static double time_passes(mlp_run *r, int who, int reps) {
  double t0 = br_cpu_ns();
  int i;
  for (i = 0; i < reps; i++)
    forward(r, who);
  return (br_cpu_ns() - t0) / reps;
}

static void measure(mlp_run *r, int rounds) {
  double t[CONTENDERS][101], ratio[BENCH_PEER_COUNT][101], med[CONTENDERS];
  int who, i, best = -1, reps;
  double one = time_passes(r, 0, 1);
  reps = one > 0 ? (int)(2e6 / one) + 1 : 1;
  reps = reps > 2000 ? 2000 : reps;
  for (i = 0; i < rounds; i++)
    for (who = 0; who < CONTENDERS; who++) {
      /* odd rounds run the contenders in the reverse order */
      int c = i % 2 ? CONTENDERS - 1 - who : who;
      t[c][i] = c == 0 || r->ran[c - 1] ? time_passes(r, c, reps) : 0;
    }
  for (who = 1; who < CONTENDERS; who++)
    for (i = 0; i < rounds; i++)
      ratio[who - 1][i] = t[who][i] > 0 ? t[0][i] / t[who][i] : 0;
  for (who = 0; who < CONTENDERS; who++) {
    med[who] = bench_median(t[who], (size_t)rounds);
    if (who > 0 && r->ran[who - 1] && (best < 0 || med[who] < med[best]))
      best = who;
  }
  printf("mlp batch %-3ld olc %9.1f us", r->batch, med[0] / 1e3);
  for (who = 1; who < CONTENDERS; who++)
    if (r->ran[who - 1])
      printf("  %s %9.1f us", bench_peer_name(who - 1), med[who] / 1e3);
  if (best > 0)
    printf("  olc/fastest peer (%s) %.3fx", bench_peer_name(best - 1),
           bench_median(ratio[best - 1], (size_t)rounds));
  printf("  (%d passes a round)\n", reps);
}

static void run_batch(const mlp *m, olc_host *host, const bench_peers *peers, long batch,
                      int rounds) {
  mlp_run r;
  size_t widest = 0, outs;
  uint32_t l;
  int who;
  memset(&r, 0, sizeof r);
  r.m = m;
  r.batch = batch;
  r.peers = peers;
  for (l = 0; l <= m->layers; l++)
    widest = m->width[l] > widest ? m->width[l] : widest;
  outs = (size_t)batch * m->width[m->layers];
  r.x = alloc_floats((size_t)batch * m->width[0]);
  r.buf[0] = alloc_floats((size_t)batch * widest);
  r.buf[1] = alloc_floats((size_t)batch * widest);
  r.out = alloc_floats(outs);
  r.ref = alloc_floats(outs);
  mlp_input(r.x, (size_t)batch * m->width[0]);
  if (mlp_reference(m, batch, r.x, r.ref) != 0)
    br_die("out of memory");
  bind_layers(&r, host);
  make_plans(&r);
  for (who = 0; who < CONTENDERS; who++) {
    double e;
    if (who > 0 && !r.ran[who - 1])
      continue;
    forward(&r, who);
    e = mlp_max_error(r.out, r.ref, outs);
    if (!(e < 1e-4))
      br_die("mlp batch %ld: %s's output is off the reference by %.3g", batch,
             who == 0 ? "olc" : bench_peer_name(who - 1), e);
  }
  measure(&r, rounds);
  free_plans(&r);
  for (l = 0; l < m->layers; l++)
    olc_binding_free(r.binding[l]);
  free(r.x);
  free(r.buf[0]);
  free(r.buf[1]);
  free(r.out);
  free(r.ref);
}

void br_mlp_bench(olc_host *host, const char *dir, int rounds, const char *peers_list) {
  static const long batches[] = {1, 8, 64};
  char path[1200], why[512], peers_line[4096];
  int selected[BENCH_PEER_COUNT];
  bench_peers peers;
  mlp m;
  size_t i;
  snprintf(path, sizeof path, "%s/mlp.bin", dir);
  if (mlp_write(path, why, sizeof why) != 0 || mlp_read(&m, path, why, sizeof why) != 0)
    br_die("mlp: %s", why);
  if (bench_peers_select(selected, peers_list, why, sizeof why) != 0)
    br_die("%s", why);
  bench_peers_open(&peers, selected);
  bench_peers_describe(&peers, peers_line, sizeof peers_line);
  printf("mlp: the example's model %u", (unsigned)m.width[0]);
  for (i = 1; i <= m.layers; i++)
    printf(" -> %u", (unsigned)m.width[i]);
  printf(", one thread\n%s\n", peers_line);
  for (i = 0; i < sizeof batches / sizeof batches[0]; i++)
    run_batch(&m, host, &peers, batches[i], rounds);
  bench_peers_close(&peers);
  mlp_free(&m);
}
