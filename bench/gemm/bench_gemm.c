/*
 * bench_gemm.c - cpu_gemm against OpenBLAS, in one process, interleaved.
 *
 * For each thread count and shape: OpenBLAS cblas_sgemm, cpu_gemm with the
 * selected ("calibrated") policy and cpu_gemm with its analytical default
 * (its first candidate) are timed in turn, A/B/C/A/C/B... (the two
 * policies alternate in running right after OpenBLAS), and
 * the medians reported in GFLOP/s and as a share of the measured FMA peak;
 * the ratios (to OpenBLAS, calibrated to default) are medians of the
 * rounds' paired ratios.  cpu_gemm is driven through its plugin ABI, as the host drives
 * it.  The calibrated policy is the one the host's calibrate-and-select
 * loop selects (olc_host_calibrate through the public API, in process,
 * in-memory store, one workload per shape, the bench's thread count);
 * --policy TEXT overrides it, and --search uses the older in-bench search
 * instead (select_policy(); --exhaustive N then also measures every
 * candidate N times).  --quality runs the calibration-quality report on
 * the cpu_gemm workloads of config/default.ini instead (quality.c).
 *
 * usage: bench_gemm [--json] [--quick] [--min] [--cputime] [--threads 1,2] [--reps N]
 *                   [--shape MxNxK]... [--policy TEXT] [--search [--exhaustive N]]
 *                   [--quality [ROUNDS]] [--plugin PATH]
 */
#include <cblas.h>
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
#include "host_cal.h"
#include "olc/plugin.h"

void openblas_set_num_threads(int num_threads);
double bench_fma_peak_gflops(void);

#define MAX_SHAPES 16
#define MAX_CANDS 64

typedef struct shape {
  long m, n, k;
} shape;

static const shape default_shapes[] = {{256, 256, 256},    {512, 512, 512},   {1024, 1024, 1024},
                                       {2048, 2048, 2048}, {2048, 2048, 256}, {64, 4096, 4096},
                                       {4096, 64, 4096}};

/* ---- minimal host table ---- */
static _Thread_local char last_error[256];

static void h_log(void *ctx, int32_t level, const char *msg) {
  (void)ctx;
  if (level <= OLC_PLUGIN_LOG_WARN)
    fprintf(stderr, "cpu_gemm: %s\n", msg);
}
static void h_set_error(void *ctx, int32_t code, const char *msg) {
  (void)ctx;
  (void)code;
  snprintf(last_error, sizeof(last_error), "%s", msg);
}
static uint64_t h_now(void *ctx) {
  struct timespec ts;
  (void)ctx;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static int32_t h_lookup(void *ctx, void *inst, const olc_plugin_workload *w,
                        const olc_plugin_byte_sink *out) {
  (void)ctx, (void)inst, (void)w, (void)out;
  return OLC_PLUGIN_E_NOT_FOUND;
}
static int32_t h_save(void *ctx, void *inst, const olc_plugin_workload *w, const void *p,
                      uint64_t len, const olc_plugin_measurement *m, uint32_t count) {
  (void)ctx, (void)inst, (void)w, (void)p, (void)len, (void)m, (void)count;
  return OLC_PLUGIN_E_UNSUPPORTED;
}
static const olc_plugin_host host = {sizeof(olc_plugin_host),
                                     OLC_PLUGIN_ABI_MINOR,
                                     NULL,
                                     h_log,
                                     h_set_error,
                                     h_now,
                                     h_lookup,
                                     h_save};

/* --cputime: the calling thread's CPU time instead of wall time, so that
 * preemption by other processes on a shared machine does not count (only
 * meaningful with one thread). */
static int use_cputime;

static double now_s(void) {
  struct timespec ts;
  if (!use_cputime)
    return (double)h_now(NULL) * 1e-9;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench_gemm: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "%s%s\n", last_error[0] ? ": " : "", last_error);
  va_end(ap);
  exit(1);
}

/* ---- policy sinks ---- */
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

/* ---- one benchmark context ---- */
typedef struct bench {
  const olc_plugin *pl;
  void *inst;
  olc_plugin_workload wl;
  olc_plugin_kv props[4];
  char dims[3][24];
  void *state;
  shape s;
  float *a, *b, *c; /* OpenBLAS's operands */
  int iters;        /* runs per sample, so a sample lasts >= ~20 ms */
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

static void policy_text(bench *x, const void *policy, text_buf *t) {
  if (bench_policy_text(x->pl, x->inst, policy, t->s, sizeof(t->s)) != 0)
    die("serialize");
}

static double time_plugin(bench *x, const void *policy) {
  double t0 = now_s();
  for (int i = 0; i < x->iters; i++) {
    if (x->pl->run(x->inst, &x->wl, x->state, policy) != OLC_PLUGIN_OK)
      die("run");
  }
  return (now_s() - t0) / x->iters;
}

static double time_openblas(bench *x) {
  double t0 = now_s();
  for (int i = 0; i < x->iters; i++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)x->s.m, (int)x->s.n, (int)x->s.k,
                1.0f, x->a, (int)x->s.k, x->b, (int)x->s.n, 0.0f, x->c, (int)x->s.n);
  return (now_s() - t0) / x->iters;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int use_min; /* --min: best sample instead of the median (loaded machines) */

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  if (use_min)
    return v[0];
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

/* Samples per candidate kept by the selection (successive halving). */
#define SEL_MAX_SAMPLES 16

typedef struct cand_stats {
  double t[SEL_MAX_SAMPLES];
  int n;
  int alive;
} cand_stats;

static double cand_median(const cand_stats *c) {
  double v[SEL_MAX_SAMPLES];
  memcpy(v, c->t, sizeof(double) * (size_t)c->n);
  return median(v, c->n);
}

/* Calibration-quality figures for --exhaustive. */
typedef struct sel_report {
  double loop_s, exhaustive_s; /* time spent measuring */
  double gap;                  /* pick's median / exhaustive best's median - 1 */
  int exhaustive_best;
} sel_report;

/*
 * The policy to benchmark as "calibrated".  Hook: once the host's loop and
 * store exist, look the workload up with host.store_lookup and validate it
 * here.  Until then: a search over the candidates in the spirit of the
 * host's loop, by successive halving (one sample each, keep the better
 * half, twice the samples, ... until two remain, then 5 more samples each;
 * the best median wins).  With rep_exh > 0 every candidate is also
 * measured rep_exh times to report how far the pick is from the true best.
 */
static int select_policy(bench *x, cand_set *cands, const char *forced, void **forced_policy,
                         int rep_exh, sel_report *rep) {
  cand_stats st[MAX_CANDS];
  int alive = cands->n, runs = 1, best = 0;
  double t0;
  memset(rep, 0, sizeof(*rep));
  rep->exhaustive_best = -1; /* not measured */
  if (forced != NULL) {
    if (x->pl->validate(x->inst, forced, strlen(forced), forced_policy) != OLC_PLUGIN_OK)
      die("policy '%s' rejected", forced);
    return -1;
  }
  memset(st, 0, sizeof(st));
  for (int i = 0; i < cands->n; i++)
    st[i].alive = 1;
  t0 = now_s();
  time_plugin(x, cands->p[0]); /* warm-up: buffers, caches */
  for (;;) {
    int final = alive <= 2;
    int take = final ? 5 : runs;
    for (int r = 0; r < take; r++) {
      for (int i = 0; i < cands->n; i++) {
        if (st[i].alive && st[i].n < SEL_MAX_SAMPLES)
          st[i].t[st[i].n++] = time_plugin(x, cands->p[i]);
      }
    }
    if (final)
      break;
    /* Keep the better half (by median so far). */
    for (int drop = alive - (alive + 1) / 2; drop > 0; drop--) {
      int worst = -1;
      for (int i = 0; i < cands->n; i++) {
        if (st[i].alive && (worst < 0 || cand_median(&st[i]) > cand_median(&st[worst])))
          worst = i;
      }
      st[worst].alive = 0;
      alive--;
    }
    runs *= 2;
  }
  for (int i = 0; i < cands->n; i++) {
    if (st[i].alive && (!st[best].alive || cand_median(&st[i]) < cand_median(&st[best])))
      best = i;
  }
  rep->loop_s = now_s() - t0;
  if (rep_exh > 0) {
    double best_med = INFINITY, pick_med = 0;
    t0 = now_s();
    for (int i = 0; i < cands->n; i++) {
      cand_stats e;
      memset(&e, 0, sizeof(e));
      for (int r = 0; r < rep_exh && r < SEL_MAX_SAMPLES; r++)
        e.t[e.n++] = time_plugin(x, cands->p[i]);
      double med = cand_median(&e);
      if (med < best_med)
        best_med = med, rep->exhaustive_best = i;
      if (i == best)
        pick_med = med;
    }
    rep->exhaustive_s = now_s() - t0;
    rep->gap = pick_med / best_med - 1.0;
  }
  return best;
}

static void set_dim(bench *x, int i, const char *key, long v) {
  snprintf(x->dims[i], sizeof(x->dims[i]), "%ld", v);
  x->props[i + 1].key = key;
  x->props[i + 1].value = x->dims[i];
}

typedef struct result {
  shape s;
  int threads;
  double ob, cal, def;            /* GFLOP/s, medians */
  double cal_ob, def_ob, cal_def; /* medians of the rounds' paired ratios */
  int ncands, pick;
  sel_report sel;
  double host_cal_s;   /* host's calibration of this shape (< 0: not used) */
  char cal_source[16]; /* "host", "--policy", "search" */
  char cal_text[256], def_text[256];
} result;

static void run_shape(bench *x, int threads, int reps, int exhaustive, const char *forced,
                      result *res) {
  cand_set cands = {{0}, 0};
  olc_plugin_policy_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, &cands, emit_cand};
  double flops = 2.0 * (double)x->s.m * (double)x->s.n * (double)x->s.k;
  double *tob = calloc((size_t)reps, sizeof(double)), *tcal = calloc((size_t)reps, sizeof(double));
  double *tdef = calloc((size_t)reps, sizeof(double));
  void *forced_policy = NULL, *cal;
  text_buf t;
  int sel;
  memset(&x->wl, 0, sizeof(x->wl));
  x->wl.struct_size = sizeof(x->wl);
  x->wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  x->wl.name = "bench";
  x->wl.operator_name = "MatMul";
  x->props[0].key = "dtype";
  x->props[0].value = "float32";
  set_dim(x, 0, "m", x->s.m);
  set_dim(x, 1, "n", x->s.n);
  set_dim(x, 2, "k", x->s.k);
  x->wl.properties = x->props;
  x->wl.property_count = 4;
  if (tob == NULL || tcal == NULL || tdef == NULL)
    die("out of memory");
  if (x->pl->prepare(x->inst, &x->wl, &x->state) != OLC_PLUGIN_OK)
    die("prepare");
  x->a = alloc_matrix(x->s.m * x->s.k);
  x->b = alloc_matrix(x->s.k * x->s.n);
  x->c = alloc_matrix(x->s.m * x->s.n);
  if (x->pl->candidates(x->inst, &x->wl, &sink) != OLC_PLUGIN_OK || cands.n == 0)
    die("candidates");
  x->iters = 1;
  {
    double one = time_openblas(x);
    one = time_openblas(x);
    x->iters = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-6 ? one : 1e-6)) + 1;
  }
  sel = select_policy(x, &cands, forced, &forced_policy, exhaustive, &res->sel);
  res->ncands = cands.n;
  res->pick = sel;
  cal = sel >= 0 ? cands.p[sel] : forced_policy;
  time_plugin(x, cands.p[0]);
  for (int r = 0; r < reps; r++) {
    /* OpenBLAS, then the two policies in alternating order: each runs
     * right after OpenBLAS in half of the rounds (the one that does was
     * measured 1-2% slower, even with the same policy in both places). */
    tob[r] = time_openblas(x);
    if (r % 2 == 0) {
      tcal[r] = time_plugin(x, cal);
      tdef[r] = time_plugin(x, cands.p[0]);
    } else {
      tdef[r] = time_plugin(x, cands.p[0]);
      tcal[r] = time_plugin(x, cal);
    }
  }
  res->s = x->s;
  res->threads = threads;
  res->cal_ob = paired(tob, tcal, reps);
  res->def_ob = paired(tob, tdef, reps);
  res->cal_def = paired(tdef, tcal, reps);
  res->ob = flops / median(tob, reps) * 1e-9;
  res->cal = flops / median(tcal, reps) * 1e-9;
  res->def = flops / median(tdef, reps) * 1e-9;
  policy_text(x, cal, &t);
  snprintf(res->cal_text, sizeof(res->cal_text), "%s", t.s);
  policy_text(x, cands.p[0], &t);
  snprintf(res->def_text, sizeof(res->def_text), "%s", t.s);
  for (int i = 0; i < cands.n; i++)
    x->pl->release_policy(x->inst, cands.p[i]);
  x->pl->release_policy(x->inst, forced_policy);
  x->pl->unprepare(x->inst, x->state);
  x->state = NULL;
  free(x->a), free(x->b), free(x->c), free(tob), free(tcal), free(tdef);
}

/*
 * OpenBLAS's idle threads spin for 2^OPENBLAS_THREAD_TIMEOUT cycles (2^28,
 * about 0.1 s, by default) after each call and after start-up before they
 * sleep.  In this one process that spinning took the second CPU from
 * cpu_gemm's threads: its 2-thread runs measured 4-7 x slower right after
 * an OpenBLAS call or the start, and the host's calibration then chose
 * one thread.  2^19 cycles (~0.2 ms at 3 GHz) is about as long as
 * cpu_gemm's own pool spins (threads.c), so both hand off alike.  The
 * variable is read when OpenBLAS loads, before main: the bench re-executes
 * itself once with it set (an explicit setting is kept).
 */
static void fair_openblas_spin(char **argv) {
  if (getenv("OPENBLAS_THREAD_TIMEOUT") != NULL)
    return;
  if (setenv("OPENBLAS_THREAD_TIMEOUT", "19", 1) != 0)
    return;
  execv("/proc/self/exe", argv);
  fprintf(stderr, "bench_gemm: cannot re-execute with OPENBLAS_THREAD_TIMEOUT=19; "
                  "2-thread figures may suffer from OpenBLAS's idle spinning\n");
}

int main(int argc, char **argv) {
  const char *plugin_path = CG_BENCH_PLUGIN, *forced = NULL;
  int search = 0, quality = 0;
  int json = 0, reps = 7, exhaustive = 0, nthreads = 0, threads[8], nshapes = 0;
  shape shapes[MAX_SHAPES];
  result results[MAX_SHAPES * 8];
  int nres = 0;
  double peak;
  void *dl;
  olc_plugin_entry_fn entry;
  const olc_plugin *pl;
  fair_openblas_spin(argv);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--cputime") == 0) {
      use_cputime = 1;
    } else if (strcmp(argv[i], "--min") == 0) {
      use_min = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      reps = 3;
      if (nshapes == 0)
        shapes[nshapes++] = (shape){256, 256, 256};
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      for (char *s = strtok(argv[++i], ","); s != NULL && nthreads < 8; s = strtok(NULL, ","))
        threads[nthreads++] = atoi(s) > 0 ? atoi(s) : 1;
    } else if (strcmp(argv[i], "--exhaustive") == 0 && i + 1 < argc) {
      exhaustive = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
      reps = reps < 1 ? 1 : reps;
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && nshapes < MAX_SHAPES) {
      shape s;
      if (sscanf(argv[++i], "%ldx%ldx%ld", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 || s.k < 1)
        die("bad --shape %s (want MxNxK)", argv[i]);
      shapes[nshapes++] = s;
    } else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
      forced = argv[++i];
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      plugin_path = argv[++i];
    } else if (strcmp(argv[i], "--search") == 0) {
      search = 1;
    } else if (strcmp(argv[i], "--quality") == 0) {
      quality = 1;
      if (i + 1 < argc && argv[i + 1][0] >= '1' && argv[i + 1][0] <= '9')
        quality = atoi(argv[++i]); /* rounds */
    } else {
      fprintf(stderr, "usage: bench_gemm [--json] [--quick] [--min] [--cputime] [--threads 1,2] "
                      "[--reps N] [--exhaustive N] "
                      "[--shape MxNxK]... [--policy TEXT] [--search] [--quality [ROUNDS]] "
                      "[--plugin PATH]\n");
      return 2;
    }
  }
  if (nthreads == 0)
    threads[nthreads++] = 1, threads[nthreads++] = 2;
  if (nshapes == 0) {
    for (size_t i = 0; i < sizeof(default_shapes) / sizeof(default_shapes[0]); i++)
      shapes[nshapes++] = default_shapes[i];
  }
  dl = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL)
    die("cannot load %s: %s", plugin_path, dlerror());
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL || entry(OLC_PLUGIN_ABI_MAJOR, &host, &pl) != OLC_PLUGIN_OK)
    die("no usable entry in %s", plugin_path);
  if (quality)
    return bench_quality_report(pl, &host, threads[0], quality, json) == 0 ? 0 : 1;
  peak = bench_fma_peak_gflops();
  for (int ti = 0; ti < nthreads; ti++) {
    bench x;
    bench_hc_workload hw[MAX_SHAPES];
    memset(&x, 0, sizeof(x));
    memset(hw, 0, sizeof(hw));
    if (forced == NULL && !search) {
      char err[512];
      for (int si = 0; si < nshapes; si++)
        hw[si].m = shapes[si].m, hw[si].n = shapes[si].n, hw[si].k = shapes[si].k;
      if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "cpu_gemm", (uint32_t)threads[ti], NULL,
                             BENCH_ONLY_CPU_GEMM, hw, (size_t)nshapes, err, sizeof(err)) != 0)
        die("host calibration: %s", err);
      for (int si = 0; si < nshapes; si++)
        if (!hw[si].ok)
          die("host calibration of %s: %s", hw[si].name, hw[si].message);
    }
    x.pl = pl;
    if (pl->create(&host, NULL, 0, (uint32_t)threads[ti], &x.inst) != OLC_PLUGIN_OK)
      die("create");
    openblas_set_num_threads(threads[ti]);
    for (int si = 0; si < nshapes; si++) {
      const char *pol = forced != NULL ? forced : search ? NULL : hw[si].policy;
      x.s = shapes[si];
      run_shape(&x, threads[ti], reps, search ? exhaustive : 0, pol, &results[nres++]);
      results[nres - 1].host_cal_s = pol == hw[si].policy ? hw[si].seconds : -1.0;
      snprintf(results[nres - 1].cal_source, sizeof(results[nres - 1].cal_source), "%s",
               forced != NULL ? "--policy"
               : search       ? "search"
                              : "host");
      if (!json) {
        const result *r = &results[nres - 1];
        printf("%5ldx%5ldx%5ld t=%d  openblas %6.1f  cal %6.1f (%.2fx, %3.0f%% peak)  def %6.1f "
               "(%.2fx)  cal/def %.3f  [%s]\n",
               r->s.m, r->s.n, r->s.k, r->threads, r->ob, r->cal, r->cal_ob,
               peak > 0 ? 100.0 * r->cal / (peak * r->threads) : 0.0, r->def, r->def_ob, r->cal_def,
               r->cal_text);
        if (r->host_cal_s >= 0)
          printf("      host calibration: %.2f s (%zu candidates measured, %zu abandoned)\n",
                 r->host_cal_s, hw[si].measured, hw[si].abandoned);
        if (search && exhaustive > 0)
          printf("      calibration: %d candidates, pick #%d, exhaustive best #%d, gap %.1f%%, "
                 "loop time %.0f%% of exhaustive\n",
                 r->ncands, r->pick, r->sel.exhaustive_best, 100.0 * r->sel.gap,
                 100.0 * r->sel.loop_s / r->sel.exhaustive_s);
        fflush(stdout);
      }
    }
    pl->destroy(x.inst);
  }
  if (json) {
    printf("{\"fma_peak_gflops_per_thread\": %.2f, \"results\": [\n", peak);
    for (int i = 0; i < nres; i++) {
      const result *r = &results[i];
      printf("  {\"m\": %ld, \"n\": %ld, \"k\": %ld, \"threads\": %d, \"openblas_gflops\": %.2f, "
             "\"calibrated_gflops\": %.2f, \"default_gflops\": %.2f, \"calibrated_ratio\": %.3f, "
             "\"default_ratio\": %.3f, \"calibrated_to_default\": %.3f, "
             "\"calibrated_peak_pct\": %.1f, "
             "\"calibrated_policy\": \"%s\", \"default_policy\": \"%s\", \"candidates\": %d, "
             "\"pick\": %d, \"exhaustive_best\": %d, \"gap_pct\": %.2f, \"loop_s\": %.3f, "
             "\"exhaustive_s\": %.3f, \"calibrated_source\": \"%s\", "
             "\"host_calibration_s\": %.3f}%s\n",
             r->s.m, r->s.n, r->s.k, r->threads, r->ob, r->cal, r->def, r->cal_ob, r->def_ob,
             r->cal_def, peak > 0 ? 100.0 * r->cal / (peak * r->threads) : 0.0, r->cal_text,
             r->def_text, r->ncands, r->pick, r->sel.exhaustive_best, 100.0 * r->sel.gap,
             r->sel.loop_s, r->sel.exhaustive_s, r->cal_source, r->host_cal_s,
             i + 1 < nres ? "," : "");
    }
    printf("]}\n");
  } else {
    printf("measured FMA peak: %.1f GFLOP/s per thread\n", peak);
  }
  return 0;
}
