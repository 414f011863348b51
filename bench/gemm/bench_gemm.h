/*
 * bench_gemm.h - what the parts of bench_gemm share.
 */
#ifndef BENCH_GEMM_H
#define BENCH_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "olc/plugin.h"

/*
 * Extra configuration for the host's calibration of cpu_gemm: the other
 * plugins of the build stay unloaded, so that the bench's process holds
 * only what it measures (example_gpu on PoCL brings its own threads).  An
 * early series of runs with example_gpu loaded showed cpu_gemm 2-3x slower
 * for about a second; a later A/B did not reproduce it (see README.md).
 */
#ifndef BENCH_ONLY_CPU_GEMM
#define BENCH_ONLY_CPU_GEMM "[plugin.example_gpu]\nenabled = false\n"
#endif

/* The serialized text of a policy object; 0, or -1 on failure. */
int bench_policy_text(const olc_plugin *pl, void *inst, const void *policy, char *buf, size_t size);

/* The measured single-thread FMA peak (GFLOP/s) with the widest FMA the
 * CPU runs; *width: "zmm", "ymm" or "none". */
double bench_fma_peak_gflops(const char **width);

/* The single-core streaming read rate and the size below which reads are
 * served faster (the effective last-level cache). */
typedef struct bench_stream_info {
  double stream_gbs;  /* 1 GiB buffer, the best over 1-16 concurrent streams */
  int streams;        /* how many streams that was */
  size_t cache_bytes; /* largest power of two read >= 1.3 x stream_gbs (0: none) */
  double cache_gbs;   /* its rate */
} bench_stream_info;
int bench_stream(bench_stream_info *out);

/* The arguments of C = A x B through the plugin's execute (row-major,
 * leading dimensions = widths), built once and reused for every call, as a
 * runtime keeps a layer's tensor descriptions. */
typedef struct bench_exec {
  olc_plugin_workload wl;
  olc_plugin_kv props[1];
  olc_plugin_tensor in[2], out;
  olc_plugin_exec_args args;
} bench_exec;
void bench_exec_init(bench_exec *e, long m, long n, long k, const float *a, const float *b,
                     float *c);
/* The plugin's status. */
int32_t bench_exec_call(const olc_plugin *pl, void *inst, const void *policy, const bench_exec *e);

/* bench_exec_init + bench_exec_call. */
int32_t bench_execute(const olc_plugin *pl, void *inst, const void *policy, long m, long n, long k,
                      const float *a, const float *b, float *c);

/* A MatMul workload description with its own storage. */
typedef struct bench_workload {
  olc_plugin_workload wl;
  olc_plugin_kv props[4];
  char dims[3][24];
} bench_workload;
void bench_workload_init(bench_workload *w, const char *name, long m, long n, long k);

/* Seconds per call of fn(arg), median of samples of enough calls for
 * ~10 ms each (thread CPU time with --cputime). */
double bench_time_calls(void (*fn)(void *), void *arg, int samples);

/* --overhead (and the head of every run): the fixed cost of a call. */
int bench_overhead_report(const olc_plugin *pl, const olc_plugin_host *h, const void *peers,
                          int threads, int json);

/* --concurrency: 8 threads executing at once on one instance, the plugin's
 * rule (a busy pool sends a call to its own thread) against serializing. */
int bench_concurrency_report(const olc_plugin *pl, const olc_plugin_host *h, int threads,
                             int rounds, int json);

/* --cold: the first candidate warm vs cold (rotating prepared instances),
 * one small, medium and large shape, paired rounds (cold.c). */
int bench_cold_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int reps,
                      int json);

/* --nearest: the nearest measured workload's policy (a never-mode miss)
 * against a calibrated one over unseen shapes (nearest.c); quick: a few. */
int bench_nearest_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int reps,
                         int quick, int json);

/* --buckets: whether the policy the host's loop selects changes within
 * cpu_gemm's key buckets (README.md). */
int bench_buckets_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int reps,
                         int json);

/* One row of --quality. */
typedef struct bench_quality_row {
  char name[64];
  long m, n, k;
  int threads;
  double loop_s;         /* wall time of olc_host_calibrate for the workload */
  int loop_measured;     /* candidates the loop measured */
  int loop_abandoned;    /* of which abandoned early */
  char policy[256];      /* the loop's pick */
  int candidates;        /* measured exhaustively */
  int pick, best;        /* candidate indexes (pick -1: not a candidate) */
  double pick_s, best_s; /* medians per run in the exhaustive pass */
  double exhaustive_s;   /* wall time of the exhaustive pass */
  /* pick / best - 1 from Q_PAIRS interleaved re-measurements of the two
   * (median of the paired ratios; 0 when the pick is the best), so that
   * a load change between their single exhaustive measurements does not
   * decide the gap. */
  double paired_gap;
} bench_quality_row;

/* Runs --quality on the cpu_gemm workloads of config/default.ini; returns
 * the number of rows, or -1 (with a message on stderr). */
int bench_quality(const olc_plugin *pl, const olc_plugin_host *h, uint32_t threads,
                  bench_quality_row *rows, int max_rows);

/* --quality [ROUNDS]: runs bench_quality ROUNDS times and prints every
 * round and, per workload, the median gap and time share over the rounds
 * (a table, or a JSON object).  Returns 0, or -1. */
int bench_quality_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int rounds,
                         int json);

/* ---- shared by the parts of the main table ---- */
extern int bench_use_cputime; /* --cputime: the calling thread's CPU time */
extern int bench_use_min;     /* --min: best sample instead of the median */

/* Seconds from the bench's clock (wall, or thread CPU time). */
double bench_now_s(void);
/* A one-line error on stderr (with the stub host's last message), exit 1. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The median of v (the minimum with --min); v is left as it was. */
double bench_med(const double *v, int n);
/* How much faster than a the rounds' times b are: the median of the
 * rounds' ratios a[r] / b[r] (with --min, the ratio of the minima). */
double bench_paired(const double *a, const double *b, int n);

/* Loads the plugin at path through its entry (ABI 1.1, execute). */
const olc_plugin *bench_load_plugin(const char *path);

/* ---- the main table (table.c measures, report.c prints) ---- */
#include "peers.h"

typedef struct shape {
  long m, n, k;
} shape;

/* --stability [N]: N calibrations of each shape through the host's loop,
 * each with a fresh store, their distinct picks and the exhaustive pass's
 * best timed against each other in interleaved rounds (stability.c, one
 * thread, thread CPU time); isa: cpu_gemm's cap or NULL; contention: the
 * calibrations' [calibration] contention (olc_contention_mode, -1: the
 * host's default).  Returns 0, or -1 (with a message on stderr). */
int bench_stability_report(const olc_plugin *pl, const olc_plugin_host *h, const shape *shapes,
                           int nshapes, int runs, int rounds, const char *isa, int contention,
                           int json);

/* The shape tables (shapes.c): NULL for an unknown name. */
const shape *bench_shape_table(const char *name, int *count);
/* Their names, for the usage line: "peers, classic, all". */
extern const char *const bench_shape_table_names;

/* Contestants: the peers (BENCH_PEER_*), then cpu_gemm calibrated and
 * with its first candidate. */
#define C_CAL BENCH_PEER_COUNT
#define C_DEF (BENCH_PEER_COUNT + 1)
#define C_COUNT (BENCH_PEER_COUNT + 2)

/* "OpenBLAS", ..., "cal", "def". */
const char *bench_contestant_name(int c);

/* One shape's figures in one run. */
typedef struct result {
  shape s;
  int threads;
  int ran[C_COUNT];                /* timed in this shape */
  double gf[C_COUNT];              /* GFLOP/s, medians (0: not run) */
  double vs_peer[2][C_COUNT];      /* [cal, def] / peer, medians of paired ratios */
  double check[C_COUNT];           /* bench_peer_check of the output before timing */
  char why[BENCH_PEER_COUNT][128]; /* why a loaded peer did not run this shape */
  int best_peer;                   /* the fastest peer (lowest median time); -1: none */
  double cal_best, def_best, cal_def;
  double big_bytes;  /* the large operand of a thin shape (0: not thin) */
  int out_of_cache;  /* it exceeds the measured last-level cache */
  double cal_gbs;    /* its rate under the calibrated policy */
  double host_cal_s; /* host's calibration of this shape (< 0: not used) */
  size_t measured, abandoned;
  int rounds;
  char cal_text[256], def_text[256];
} result;

/* One shape measured (table.c). */
typedef struct bench_shape_run {
  const olc_plugin *pl;
  void *inst;
  const bench_peers *peers;
  int threads, reps;
  const char *cal_text;
  const bench_stream_info *bw;
} bench_shape_run;
void bench_run_shape(const bench_shape_run *x, shape s, result *res);

/* The rounds a shape with n contestants runs: reps rounded up to whole
 * cycles of its balanced Latin square. */
int bench_rounds(int reps, int n);
/* The rows of that square (square.c). */
int bench_square_rows(int n);
/* The contestant (0 .. n-1) at position col of the row-th round. */
int bench_square_at(int n, int row, int col);

void bench_cpu_name(char *out, size_t cap);
void bench_print_result(const result *r, double peak);
void bench_print_table(const result *res, int nres, double peak, const bench_stream_info *bw);
void bench_print_json(const result *res, int nres, double peak, const char *width,
                      const bench_stream_info *bw, const bench_peers *peers, const char *cpu);

#endif
