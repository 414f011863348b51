/*
 * cold.c - bench_gemm --cold: what cold caches cost cpu_gemm, the figure
 * [calibration] rotating_buffer_mb measures (host/src/calibrate/rotate.h).
 * For one small, one medium and one large shape, the plugin's first
 * candidate runs warm (one prepared instance, its operands cached after
 * the first run) and cold (runs rotating through prepared instances whose
 * operands total more than COLD_MB, as the host's rotating buffer does),
 * interleaved warm/cold/warm/cold in one process; each round's sample is
 * the median of its calls, and the figure is the median of the rounds'
 * paired ratios cold / warm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"

#define COLD_MB 256.0 /* well past the last-level cache of any CPU here */
#define CALLS 16      /* per round and mode */

typedef struct first_sink {
  const olc_plugin *pl;
  void *inst;
  void *first;
} first_sink;

static int32_t keep_first(void *ctx, void *policy) {
  first_sink *f = ctx;
  if (f->first == NULL)
    f->first = policy;
  else
    f->pl->release_policy(f->inst, policy);
  return OLC_PLUGIN_OK;
}

static double secs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The median time of CALLS runs over states[0..count) in turn, from *next. */
static double sample(const olc_plugin *pl, void *inst, const olc_plugin_workload *w, void **states,
                     int count, int *next, const void *policy) {
  double t[CALLS];
  for (int i = 0; i < CALLS; i++) {
    void *s = states[*next];
    double t0 = secs();
    *next = *next + 1 < count ? *next + 1 : 0;
    if (pl->run(inst, w, s, policy) != OLC_PLUGIN_OK)
      return -1;
    t[i] = secs() - t0;
  }
  return bench_median(t, CALLS);
}

/* One shape: its warm and cold medians (s) and the paired ratio. */
static int one_shape(const olc_plugin *pl, void *inst, long m, long n, long k, int rounds,
                     double out[4]) {
  bench_workload w;
  first_sink f = {pl, inst, NULL};
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &f, keep_first};
  double bytes = 4.0 * (double)(m * k + k * n + m * n), *warm, *cold, *ratio;
  int count = (int)(COLD_MB * 1048576.0 / bytes) + 2, made = 0, wn = 0, cn = 0, rc = -1;
  void **states = calloc((size_t)count, sizeof *states);
  bench_workload_init(&w, "cold", m, n, k);
  warm = calloc((size_t)rounds, sizeof *warm);
  cold = calloc((size_t)rounds, sizeof *cold);
  ratio = calloc((size_t)rounds, sizeof *ratio);
  if (states == NULL || warm == NULL || cold == NULL || ratio == NULL ||
      pl->candidates(inst, &w.wl, &sink) != OLC_PLUGIN_OK || f.first == NULL)
    goto done;
  for (made = 0; made < count; made++)
    if (pl->prepare(inst, &w.wl, &states[made]) != OLC_PLUGIN_OK)
      goto done;
  for (int r = 0; r < rounds; r++) {
    warm[r] = sample(pl, inst, &w.wl, states, 1, &wn, f.first);
    cold[r] = sample(pl, inst, &w.wl, states, count, &cn, f.first);
    if (warm[r] <= 0 || cold[r] <= 0)
      goto done;
    ratio[r] = cold[r] / warm[r];
  }
  out[0] = bench_median(warm, (size_t)rounds);
  out[1] = bench_median(cold, (size_t)rounds);
  out[2] = bench_median(ratio, (size_t)rounds);
  out[3] = count;
  rc = 0;
done:
  for (int i = 0; i < made; i++)
    pl->unprepare(inst, states[i]);
  pl->release_policy(inst, f.first);
  free(states);
  free(warm);
  free(cold);
  free(ratio);
  return rc;
}

int bench_cold_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int reps,
                      int json) {
  static const long shapes[3][3] = {{64, 64, 64}, {384, 384, 384}, {1536, 1536, 1536}};
  static const char *const names[3] = {"small", "medium", "large"};
  int rounds = reps > 2 ? reps : 9;
  char cpu[256];
  double load[3] = {0, 0, 0};
  void *inst = NULL;
  if (pl->create(h, NULL, 0, (uint32_t)threads, &inst) != OLC_PLUGIN_OK)
    return -1;
  bench_cpu_name(cpu, sizeof cpu);
  (void)getloadavg(load, 3);
  if (json)
    printf("{\"cpu\":\"%s\",\"threads\":%d,\"load\":%.2f,\"cold_mb\":%.0f,\"rows\":[", cpu, threads,
           load[0], COLD_MB);
  else
    printf("cpu: %s; %d thread(s); load average %.2f %.2f %.2f\n"
           "first candidate, warm (one instance) vs cold (rotating > %.0f MiB), %d paired rounds\n"
           "%-8s %-16s %12s %12s %10s %10s\n",
           cpu, threads, load[0], load[1], load[2], COLD_MB, rounds, "size", "shape", "warm us",
           "cold us", "cold/warm", "instances");
  for (int i = 0; i < 3; i++) {
    double r[4];
    if (one_shape(pl, inst, shapes[i][0], shapes[i][1], shapes[i][2], rounds, r) != 0) {
      pl->destroy(inst);
      return -1;
    }
    if (json)
      printf("%s{\"size\":\"%s\",\"m\":%ld,\"n\":%ld,\"k\":%ld,\"warm_us\":%.3f,\"cold_us\":%.3f,"
             "\"cold_over_warm\":%.4f,\"instances\":%.0f}",
             i ? "," : "", names[i], shapes[i][0], shapes[i][1], shapes[i][2], r[0] * 1e6,
             r[1] * 1e6, r[2], r[3]);
    else
      printf("%-8s %5ldx%5ldx%-5ld %12.2f %12.2f %10.3f %10.0f\n", names[i], shapes[i][0],
             shapes[i][1], shapes[i][2], r[0] * 1e6, r[1] * 1e6, r[2], r[3]);
  }
  (void)getloadavg(load, 3);
  if (json)
    printf("],\"load_end\":%.2f}\n", load[0]);
  else
    printf("load average at the end %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  pl->destroy(inst);
  return 0;
}
