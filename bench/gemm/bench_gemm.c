/*
 * bench_gemm.c - cpu_gemm against the faster of OpenBLAS and BLIS, in one
 * process, interleaved.
 *
 * For each thread count and shape: the two peers (peers.c: OpenBLAS with
 * its own CPU detection, BLIS loaded apart), cpu_gemm with the selected
 * ("calibrated") policy and cpu_gemm with its first candidate ("default")
 * are timed in turn, in the orders of a balanced Latin square (each one
 * runs right after each other equally often), on the same operands; cpu_gemm
 * runs through its ABI 1.1 execute, as a runtime calls it.  Reported:
 * medians in GFLOP/s, the share of the measured FMA peak (the widest FMA
 * the machine runs), for thin shapes the rate at which the large operand
 * streams and, where it exceeds the last-level cache, its share of the
 * measured streaming read rate; the ratios are medians of the rounds'
 * paired ratios, against each peer and against the faster one (lower
 * median time) of the shape.  The calibrated policy is the one the host's
 * calibrate-and-select loop selects (olc_host_calibrate through the public
 * API, in process, in-memory store, one workload per shape, the bench's
 * thread count); --policy TEXT overrides it.  --quality runs the
 * calibration-quality report (quality.c), --overhead the fixed call cost
 * alone (overhead.c, also printed at the head of every run), --buckets the
 * bucket check (buckets.c), --concurrency 8 callers on one instance
 * (concurrency.c).
 *
 * usage: bench_gemm [--json] [--quick] [--min] [--cputime] [--threads 1,2] [--reps N]
 *                   [--shape MxNxK]... [--policy TEXT] [--quality [ROUNDS]] [--overhead]
 *                   [--buckets] [--concurrency] [--cold] [--plugin PATH]
 */
#include <errno.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench_gemm.h"
#include "bench_util.h"
#include "host_cal.h"
#include "olc/plugin.h"
#include "olc_stub_host.h"
#include "peers.h"

#define MAX_SHAPES 32
#define MAX_CANDS 64

/* Cubes and the earlier skinny shapes; the small problems of issue 14;
 * matrix-vector and thin shapes with the matrix in cache (4-16 MiB), at
 * 64 MiB (partly served by the last-level cache here) and at 256 MiB
 * (beyond any). */
static const shape default_shapes[] = {
    {256, 256, 256},  {512, 512, 512},  {1024, 1024, 1024}, {2048, 2048, 2048}, {2048, 2048, 256},
    {64, 4096, 4096}, {4096, 64, 4096}, {32, 32, 32},       {64, 1, 1216},      {1, 1024, 1024},
    {1024, 1, 1024},  {4, 1024, 1024},  {1024, 4, 1024},    {2048, 1, 2048},    {1, 4096, 4096},
    {4096, 1, 4096},  {4, 4096, 4096},  {4096, 4, 4096},    {1, 8192, 8192},    {8192, 1, 8192}};

/* --cputime: the calling thread's CPU time instead of wall time, so that
 * preemption by other processes on a shared machine does not count (only
 * meaningful with one thread). */
static int use_cputime;
static int use_min; /* --min: best sample instead of the median (loaded machines) */

static double now_s(void) {
  struct timespec ts;
  if (!use_cputime)
    return (double)olc_stub_host_now_ns() * 1e-9;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench_gemm: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "%s%s\n", olc_stub_host_last_error()->message[0] ? ": " : "",
          olc_stub_host_last_error()->message);
  va_end(ap);
  exit(1);
}

static double median(const double *v, int n) {
  double *s = malloc((size_t)n * sizeof(double)), m;
  if (s == NULL)
    die("out of memory");
  memcpy(s, v, (size_t)n * sizeof(double));
  m = bench_median(s, (size_t)n); /* sorts s: s[0] is the best */
  if (use_min)
    m = s[0];
  free(s);
  return m;
}

/* How much faster than a the rounds' times b are: the median of the
 * rounds' ratios a[r] / b[r] (with --min, the ratio of the minima). */
static double paired(const double *a, const double *b, int n) {
  double *q = calloc((size_t)n, sizeof(double)), ma = a[0], mb = b[0], m;
  if (q == NULL)
    die("out of memory");
  for (int r = 0; r < n; r++) {
    q[r] = a[r] / b[r];
    ma = a[r] < ma ? a[r] : ma;
    mb = b[r] < mb ? b[r] : mb;
  }
  m = use_min ? ma / mb : median(q, n);
  free(q);
  return m;
}

double bench_time_calls(void (*fn)(void *), void *arg, int samples) {
  double t[64], one;
  long calls = 1;
  samples = samples < 1 ? 1 : samples > 64 ? 64 : samples;
  fn(arg);
  for (;;) { /* calls per sample: ~10 ms */
    double t0 = now_s();
    for (long i = 0; i < calls; i++)
      fn(arg);
    one = now_s() - t0;
    if (one >= 0.01 || calls >= (1l << 26))
      break;
    calls *= 2;
  }
  for (int s = 0; s < samples; s++) {
    double t0 = now_s();
    for (long i = 0; i < calls; i++)
      fn(arg);
    t[s] = (now_s() - t0) / (double)calls;
  }
  return median(t, samples);
}

/* ---- the plugin side ---- */
typedef struct text_buf {
  char s[256];
  size_t len;
} text_buf;
static int32_t write_text(void *ctx, const void *bytes, uint64_t len) {
  text_buf *t = ctx;
  if (t->len + len >= sizeof(t->s))
    return OLC_PLUGIN_E_LIMIT;
  memcpy(t->s + t->len, bytes, (size_t)len);
  t->len += (size_t)len;
  t->s[t->len] = '\0';
  return OLC_PLUGIN_OK;
}

int bench_policy_text(const olc_plugin *pl, void *inst, const void *policy, char *buf,
                      size_t size) {
  text_buf t;
  olc_plugin_byte_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, &t, write_text};
  t.len = 0;
  t.s[0] = '\0';
  if (pl->serialize(inst, policy, &sink) != OLC_PLUGIN_OK)
    return -1;
  snprintf(buf, size, "%s", t.s);
  return 0;
}

void bench_exec_init(bench_exec *e, long m, long n, long k, const float *a, const float *b,
                     float *c) {
  memset(e, 0, sizeof *e);
  e->props[0] = (olc_plugin_kv){"dtype", "float32"};
  e->wl.struct_size = sizeof e->wl, e->wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  e->wl.name = "bench", e->wl.operator_name = "MatMul";
  e->wl.properties = e->props, e->wl.property_count = 1;
  e->in[0] = olc_stub_matrix(a, m, k, k), e->in[1] = olc_stub_matrix(b, k, n, n);
  e->out = olc_stub_matrix(c, m, n, n);
  e->args.struct_size = sizeof e->args, e->args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  e->args.inputs = e->in, e->args.input_count = 2;
  e->args.outputs = &e->out, e->args.output_count = 1;
  e->args.alpha = 1.0, e->args.beta = 0.0;
}

int32_t bench_exec_call(const olc_plugin *pl, void *inst, const void *policy, const bench_exec *e) {
  return pl->execute(inst, &e->wl, policy, &e->args);
}

int32_t bench_execute(const olc_plugin *pl, void *inst, const void *policy, long m, long n, long k,
                      const float *a, const float *b, float *c) {
  bench_exec e;
  bench_exec_init(&e, m, n, k, a, b, c);
  return bench_exec_call(pl, inst, policy, &e);
}

void bench_workload_init(bench_workload *w, const char *name, long m, long n, long k) {
  memset(w, 0, sizeof *w);
  snprintf(w->dims[0], sizeof w->dims[0], "%ld", m);
  snprintf(w->dims[1], sizeof w->dims[1], "%ld", n);
  snprintf(w->dims[2], sizeof w->dims[2], "%ld", k);
  w->props[0] = (olc_plugin_kv){"dtype", "float32"};
  w->props[1] = (olc_plugin_kv){"m", w->dims[0]};
  w->props[2] = (olc_plugin_kv){"n", w->dims[1]};
  w->props[3] = (olc_plugin_kv){"k", w->dims[2]};
  w->wl.struct_size = sizeof w->wl;
  w->wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->wl.name = name;
  w->wl.operator_name = "MatMul";
  w->wl.properties = w->props;
  w->wl.property_count = 4;
}

/* ---- one shape ---- */
typedef struct bench {
  const olc_plugin *pl;
  void *inst;
  const bench_peers *peers;
  shape s;
  float *a, *b, *c; /* shared by every contestant */
  const void *policy[C_COUNT];
  bench_exec exec; /* cpu_gemm's arguments, on the same operands */
  int iters;       /* calls per sample, so a sample lasts >= ~20 ms */
} bench;

static float *alloc_matrix(long count) {
  size_t bytes = ((size_t)count * sizeof(float) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
  void *p = NULL;
  if (posix_memalign(&p, 2u << 20, bytes) != 0)
    die("out of memory");
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* same treatment as the plugin's */
  for (long i = 0; i < count; i++)
    ((float *)p)[i] = (float)((i * 7919 % 2001) - 1000) * 1e-3f;
  return p;
}

static double time_contestant(bench *x, int who) {
  double t0 = now_s();
  for (int i = 0; i < x->iters; i++) {
    if (who == C_OB || who == C_BLIS)
      bench_peer_sgemm(x->peers, who, x->s.m, x->s.n, x->s.k, 1.0f, x->a, x->s.k, x->b, x->s.n,
                       0.0f, x->c, x->s.n);
    else if (bench_exec_call(x->pl, x->inst, x->policy[who], &x->exec) != OLC_PLUGIN_OK)
      die("execute");
  }
  return (now_s() - t0) / x->iters;
}

/* Balanced Latin squares: over a cycle of rows, each contestant runs right
 * after each other equally often. */
static const int order4[4][4] = {{0, 1, 3, 2}, {1, 2, 0, 3}, {2, 3, 1, 0}, {3, 0, 2, 1}};
static const int order3[6][3] = {{0, 2, 3}, {2, 3, 0}, {3, 0, 2},
                                 {3, 2, 0}, {0, 3, 2}, {2, 0, 3}}; /* no BLIS */

/* The rounds a shape runs: --reps rounded up to whole cycles of the
 * square, without which the first rows' orders run once more than the
 * others (with --reps 9 and BLIS: cpu_gemm last, OpenBLAS first in three
 * rounds of nine) and the orders' position bias leans the medians. */
/* The rows of the square in use (its orders, one a round). */
static int square_rows(int with_blis) {
  return with_blis ? (int)(sizeof order4 / sizeof order4[0])
                   : (int)(sizeof order3 / sizeof order3[0]);
}

static int bench_rounds(int reps, int with_blis) {
  const int rows = square_rows(with_blis);
  return (reps + rows - 1) / rows * rows;
}

static void time_rounds(bench *x, int reps, double *t[C_COUNT]) {
  const int with_blis = x->peers->have[BENCH_PEER_BLIS];
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < (with_blis ? 4 : 3); i++) {
      int who = with_blis ? order4[r % 4][i] : order3[r % 6][i];
      t[who][r] = time_contestant(x, who);
    }
  }
}

static void summarise(const bench *x, int reps, double *t[C_COUNT], const bench_stream_info *bw,
                      result *res) {
  const double flops = 2.0 * (double)x->s.m * (double)x->s.n * (double)x->s.k;
  const int with_blis = x->peers->have[BENCH_PEER_BLIS];
  double med[C_COUNT];
  for (int c = 0; c < C_COUNT; c++) {
    med[c] = c == C_BLIS && !with_blis ? 0 : median(t[c], reps);
    res->gf[c] = med[c] > 0 ? flops / med[c] * 1e-9 : 0.0;
  }
  for (int p = 0; p < 2; p++) {
    res->vs_peer[0][p] = p == C_BLIS && !with_blis ? 0 : paired(t[p], t[C_CAL], reps);
    res->vs_peer[1][p] = p == C_BLIS && !with_blis ? 0 : paired(t[p], t[C_DEF], reps);
  }
  res->best_peer = with_blis && med[C_BLIS] < med[C_OB] ? C_BLIS : C_OB;
  res->cal_best = res->vs_peer[0][res->best_peer];
  res->def_best = res->vs_peer[1][res->best_peer];
  res->cal_def = paired(t[C_DEF], t[C_CAL], reps);
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

static void run_shape(bench *x, int threads, int reps, const char *cal_text,
                      const bench_stream_info *bw, result *res) {
  bench_workload w;
  cand_set cands = {{0}, 0};
  olc_plugin_policy_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, &cands, emit_cand};
  double *t[C_COUNT];
  void *cal = NULL;
  reps = bench_rounds(reps, x->peers->have[BENCH_PEER_BLIS]);
  bench_workload_init(&w, "bench", x->s.m, x->s.n, x->s.k);
  for (int c = 0; c < C_COUNT; c++) {
    t[c] = calloc((size_t)reps, sizeof(double));
    if (t[c] == NULL)
      die("out of memory");
  }
  if (x->pl->candidates(x->inst, &w.wl, &sink) != OLC_PLUGIN_OK || cands.n == 0)
    die("candidates");
  if (x->pl->validate(x->inst, cal_text, strlen(cal_text), &cal) != OLC_PLUGIN_OK)
    die("policy '%s' rejected", cal_text);
  x->a = alloc_matrix(x->s.m * x->s.k);
  x->b = alloc_matrix(x->s.k * x->s.n);
  x->c = alloc_matrix(x->s.m * x->s.n);
  x->policy[C_CAL] = cal, x->policy[C_DEF] = cands.p[0];
  bench_exec_init(&x->exec, x->s.m, x->s.n, x->s.k, x->a, x->b, x->c);
  x->iters = 1;
  {
    double one = time_contestant(x, C_OB);
    one = time_contestant(x, C_OB);
    x->iters = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-7 ? one : 1e-7)) + 1;
  }
  time_contestant(x, C_CAL);
  time_contestant(x, C_DEF);
  time_rounds(x, reps, t);
  res->s = x->s;
  res->threads = threads;
  summarise(x, reps, t, bw, res);
  if (bench_policy_text(x->pl, x->inst, cal, res->cal_text, sizeof res->cal_text) != 0 ||
      bench_policy_text(x->pl, x->inst, cands.p[0], res->def_text, sizeof res->def_text) != 0)
    die("serialize");
  for (int i = 0; i < cands.n; i++)
    x->pl->release_policy(x->inst, cands.p[i]);
  x->pl->release_policy(x->inst, cal);
  free(x->a), free(x->b), free(x->c);
  for (int c = 0; c < C_COUNT; c++)
    free(t[c]);
}

/* ---- main ---- */

typedef struct options {
  const char *plugin_path, *forced;
  const char *isa; /* cpu_gemm's isa cap (its [plugin.cpu_gemm] isa), or NULL */
  int quality, overhead, buckets, concurrency, cold, json, reps, nthreads, threads[8], nshapes;
  shape shapes[MAX_SHAPES];
} options;

static void usage(void) {
  fprintf(stderr, "usage: bench_gemm [--json] [--quick] [--min] [--cputime] [--threads 1,2] "
                  "[--reps N] [--shape MxNxK]... [--policy TEXT] [--quality [ROUNDS]] "
                  "[--overhead] [--buckets] [--concurrency] [--cold] [--plugin PATH] "
                  "[--isa ref|avx2|avx512]\n");
  exit(2);
}

/* A whole decimal count in [1, max], or a one-line error naming the
 * option. */
static int parse_count(const char *text, const char *option, long max) {
  char *end;
  long v;
  errno = 0;
  v = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 1 || v > max)
    die("bad %s %s (want a whole number from 1 to %ld)", option, text, max);
  return (int)v;
}

static void parse_args(options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->plugin_path = CG_BENCH_PLUGIN;
  o->reps = 7;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--cputime") == 0) {
      use_cputime = 1;
    } else if (strcmp(a, "--min") == 0) {
      use_min = 1;
    } else if (strcmp(a, "--quick") == 0) {
      o->reps = 3;
      if (o->nshapes == 0)
        o->shapes[o->nshapes++] = (shape){256, 256, 256},
        o->shapes[o->nshapes++] = (shape){1, 1024, 1024};
    } else if (strcmp(a, "--threads") == 0 && more) {
      for (char *s = strtok(argv[++i], ","); s != NULL && o->nthreads < 8; s = strtok(NULL, ","))
        o->threads[o->nthreads++] = parse_count(s, "--threads", 256);
    } else if (strcmp(a, "--reps") == 0 && more) {
      o->reps = parse_count(argv[++i], "--reps", 100000);
    } else if (strcmp(a, "--shape") == 0 && more && o->nshapes < MAX_SHAPES) {
      shape s;
      if (sscanf(argv[++i], "%ldx%ldx%ld", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 || s.k < 1)
        die("bad --shape %s (want MxNxK)", argv[i]);
      o->shapes[o->nshapes++] = s;
    } else if (strcmp(a, "--policy") == 0 && more) {
      o->forced = argv[++i];
    } else if (strcmp(a, "--plugin") == 0 && more) {
      o->plugin_path = argv[++i];
    } else if (strcmp(a, "--isa") == 0 && more) {
      o->isa = argv[++i];
      if (strcmp(o->isa, "ref") != 0 && strcmp(o->isa, "avx2") != 0 &&
          strcmp(o->isa, "avx512") != 0)
        die("bad --isa %s (want ref, avx2 or avx512)", o->isa);
    } else if (strcmp(a, "--overhead") == 0) {
      o->overhead = 1;
    } else if (strcmp(a, "--cold") == 0) {
      o->cold = 1;
    } else if (strcmp(a, "--buckets") == 0) {
      o->buckets = 1;
    } else if (strcmp(a, "--concurrency") == 0) {
      o->concurrency = 1;
    } else if (strcmp(a, "--quality") == 0) {
      o->quality = 1;
      if (more && argv[i + 1][0] >= '1' && argv[i + 1][0] <= '9')
        o->quality = atoi(argv[++i]); /* rounds */
    } else {
      usage();
    }
  }
  /* One thread's CPU time says nothing of a product split over several. */
  for (int t = 0; use_cputime && t < o->nthreads; t++)
    if (o->threads[t] > 1)
      die("--cputime times the calling thread only: use it with --threads 1");
  if (o->nthreads == 0) {
    o->threads[o->nthreads++] = 1;
    if (!use_cputime)
      o->threads[o->nthreads++] = 2;
  }
  if (o->nshapes == 0)
    for (size_t i = 0; i < sizeof(default_shapes) / sizeof(default_shapes[0]); i++)
      o->shapes[o->nshapes++] = default_shapes[i];
}

static const olc_plugin *load_plugin(const char *path) {
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  olc_plugin_entry_fn entry;
  const olc_plugin *pl = NULL;
  if (dl == NULL)
    die("cannot load %s: %s", path, dlerror());
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL || entry(OLC_PLUGIN_ABI_MAJOR, &olc_stub_host, &pl) != OLC_PLUGIN_OK)
    die("no usable entry in %s", path);
  if (!OLC_PLUGIN_HAS_FIELD(pl, olc_plugin, execute) || pl->execute == NULL)
    die("%s has no execute (plugin ABI 1.0)", path);
  return pl;
}

/* The host's calibration of every shape for one thread count (with the
 * isa cap, in the plugin's own ini section, when one is given). */
static void host_calibrate(const options *o, int threads, bench_hc_workload *hw) {
  char err[512], extra[256];
  memset(hw, 0, sizeof(*hw) * (size_t)o->nshapes);
  for (int si = 0; si < o->nshapes; si++)
    hw[si].m = o->shapes[si].m, hw[si].n = o->shapes[si].n, hw[si].k = o->shapes[si].k;
  snprintf(extra, sizeof extra, "%s%s%s%s", BENCH_ONLY_CPU_GEMM,
           o->isa != NULL ? "[plugin.cpu_gemm]\nisa = " : "", o->isa != NULL ? o->isa : "",
           o->isa != NULL ? "\n" : "");
  if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "cpu_gemm", (uint32_t)threads, NULL, extra, hw,
                         (size_t)o->nshapes, err, sizeof(err)) != 0)
    die("host calibration: %s", err);
  for (int si = 0; si < o->nshapes; si++)
    if (!hw[si].ok)
      die("host calibration of %s: %s", hw[si].name, hw[si].message);
}

/* Every shape for every thread count; returns the number of results. */
static int run_table(const options *o, const olc_plugin *pl, bench_peers *peers,
                     const bench_stream_info *bw, double peak, result *results) {
  int nres = 0;
  for (int ti = 0; ti < o->nthreads; ti++) {
    bench x;
    static bench_hc_workload hw[MAX_SHAPES];
    const olc_plugin_kv cap = {"isa", o->isa};
    memset(&x, 0, sizeof(x));
    memset(hw, 0, sizeof(hw));
    if (o->forced == NULL)
      host_calibrate(o, o->threads[ti], hw);
    x.pl = pl;
    x.peers = peers;
    if (pl->create(&olc_stub_host, o->isa != NULL ? &cap : NULL, o->isa != NULL ? 1u : 0u,
                   (uint32_t)o->threads[ti], &x.inst) != OLC_PLUGIN_OK)
      die("create");
    bench_peers_threads(peers, o->threads[ti]);
    for (int si = 0; si < o->nshapes; si++) {
      result *r = &results[nres++];
      x.s = o->shapes[si];
      run_shape(&x, o->threads[ti], o->reps, o->forced != NULL ? o->forced : hw[si].policy, bw, r);
      r->host_cal_s = o->forced == NULL ? hw[si].seconds : -1.0;
      r->measured = hw[si].measured, r->abandoned = hw[si].abandoned;
      if (!o->json)
        bench_print_result(r, peak);
    }
    pl->destroy(x.inst);
  }
  return nres;
}

int main(int argc, char **argv) {
  static result results[MAX_SHAPES * 8];
  options o;
  bench_peers peers;
  bench_stream_info bw;
  const olc_plugin *pl;
  const char *width = "none";
  char cpu[256], desc[512];
  double peak, load[3] = {0, 0, 0};
  int nres;
  bench_peers_fair_env(argv, "bench_gemm");
  parse_args(&o, argc, argv);
  olc_stub_host_set_log_level(OLC_PLUGIN_LOG_WARN);
  pl = load_plugin(o.plugin_path);
  if (o.quality)
    return bench_quality_report(pl, &olc_stub_host, o.threads[0], o.quality, o.json) == 0 ? 0 : 1;
  if (o.cold)
    return bench_cold_report(pl, &olc_stub_host, o.threads[0], o.reps, o.json) == 0 ? 0 : 1;
  if (o.buckets)
    return bench_buckets_report(pl, &olc_stub_host, o.threads[0], o.reps, o.json) == 0 ? 0 : 1;
  if (o.concurrency)
    return bench_concurrency_report(pl, &olc_stub_host, o.threads[0], o.reps, o.json) == 0 ? 0 : 1;
  bench_peers_open(&peers);
  if (o.overhead)
    return bench_overhead_report(pl, &olc_stub_host, &peers, o.threads[0], o.json) == 0 ? 0 : 1;
  bench_cpu_name(cpu, sizeof cpu);
  bench_peers_describe(&peers, desc, sizeof desc);
  peak = bench_fma_peak_gflops(&width);
  if (bench_stream(&bw) != 0)
    die("out of memory for the streaming measurement");
  (void)getloadavg(load, 3);
  if (!o.json) {
    printf("cpu: %s; load average %.2f %.2f %.2f\n%s\n", cpu, load[0], load[1], load[2], desc);
    if (o.isa != NULL)
      printf("cpu_gemm capped at isa=%s (instances and the host's calibration)\n", o.isa);
    printf("FMA peak (%s): %.1f GFLOP/s per thread; streaming read %.1f GB/s per core (%d "
           "streams); reads faster up to %zu MiB (%.1f GB/s)\n",
           width, peak, bw.stream_gbs, bw.streams, bw.cache_bytes >> 20, bw.cache_gbs);
    const int with_blis = peers.have[BENCH_PEER_BLIS], rounds = bench_rounds(o.reps, with_blis);
    if (rounds != o.reps)
      printf("rounds per shape: %d (--reps %d rounded up to whole cycles of the %d orders)\n",
             rounds, o.reps, square_rows(with_blis));
    bench_overhead_report(pl, &olc_stub_host, &peers, 1, 0);
  }
  nres = run_table(&o, pl, &peers, &bw, peak, results);
  {
    /* Measured again at the end: the core's clock follows the machine's
     * load (199-223 GFLOP/s in three runs here), so the higher of the two
     * is the peak the shares are given against. */
    double again = bench_fma_peak_gflops(&width);
    if (!o.json)
      printf("\nFMA peak (%s) at the end: %.1f GFLOP/s per thread; shares below against %.1f\n",
             width, again, again > peak ? again : peak);
    peak = again > peak ? again : peak;
  }
  {
    /* The streaming rate too (the other processes' memory traffic). */
    bench_stream_info bw2;
    if (bench_stream(&bw2) == 0 && bw2.stream_gbs > bw.stream_gbs) {
      bw.stream_gbs = bw2.stream_gbs, bw.streams = bw2.streams;
    }
    if (!o.json)
      printf("streaming read at the end: %.1f GB/s; shares below against %.1f\n", bw2.stream_gbs,
             bw.stream_gbs);
  }
  if (o.json) {
    bench_print_json(results, nres, peak, width, &bw, &peers, cpu);
  } else {
    bench_print_table(results, nres, peak, &bw);
    (void)getloadavg(load, 3);
    printf("\nload average at the end %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  }
  bench_peers_close(&peers);
  return 0;
}
