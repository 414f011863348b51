/*
 * bench_gemm.c - cpu_gemm against the fastest of its peers, in one
 * process, interleaved: main, the host's calibration and the run's table.
 *
 * For each thread count and shape (table.c): the loaded peers (peers.h:
 * OpenBLAS with its own CPU detection, BLIS, oneDNN's sgemm and matmul
 * primitive, libxsmm, XNNPACK, Eigen, ONNX Runtime; --peers picks some),
 * cpu_gemm with the selected ("calibrated") policy and cpu_gemm with its
 * first candidate ("default"), each output checked against a
 * double-precision product, are timed in turn, in the orders of a balanced
 * Latin square (each one runs right after each other equally often), on
 * the same operands; cpu_gemm runs through its ABI 1.1 execute, as a
 * runtime calls it.  Reported:
 * medians in GFLOP/s, the share of the measured FMA peak (the widest FMA
 * the machine runs), for thin shapes the rate at which the large operand
 * streams and, where it exceeds the last-level cache, its share of the
 * measured streaming read rate; the ratios are medians of the rounds'
 * paired ratios, against each peer and against the fastest one (lowest
 * median time) of the shape, named.  The calibrated policy is the one the host's
 * calibrate-and-select loop selects (olc_host_calibrate through the public
 * API, in process, in-memory store, one workload per shape, the bench's
 * thread count); --policy TEXT overrides it.  --quality runs the
 * calibration-quality report (quality.c), --overhead the fixed call cost
 * alone (overhead.c, also printed at the head of every run), --buckets the
 * bucket check (buckets.c), --concurrency 8 callers on one instance
 * (concurrency.c), --nearest the answer a miss gets from the nearest
 * measured shape against a calibrated one (nearest.c), --stability whether
 * repeated calibrations pick policies as fast as each other and as the
 * best candidate (stability.c).
 *
 * usage: see options.c (--table picks the shapes: the peers' table by
 * default, the earlier one with --table classic).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "host_cal.h"
#include "olc/plugin.h"
#include "olc_stub_host.h"
#include "options.h"
#include "peers.h"

/* The host's calibration of every shape for one thread count (with the
 * isa cap, in the plugin's own ini section, when one is given). */
static void host_calibrate(const options *o, int threads, bench_hc_workload *hw) {
  char err[512], extra[256];
  olc_calibration_settings quick;
  memset(hw, 0, sizeof(*hw) * (size_t)o->nshapes);
  /* --quick (the ctest that keeps the table working) calibrates within
   * the embedded default configuration's budget: the host's default
   * (30 s a shape) made it the longest test of the suite. */
  if (o->quick) {
    if (olc_calibration_defaults(&quick) != OLC_OK)
      bench_die("calibration defaults");
    quick.max_seconds_per_workload = 5;
    quick.min_seconds = 0.05;
  }
  for (int si = 0; si < o->nshapes; si++)
    hw[si].m = o->shapes[si].m, hw[si].n = o->shapes[si].n, hw[si].k = o->shapes[si].k;
  snprintf(extra, sizeof extra, "%s%s%s%s", BENCH_ONLY_CPU_GEMM,
           o->isa != NULL ? "[plugin.cpu_gemm]\nisa = " : "", o->isa != NULL ? o->isa : "",
           o->isa != NULL ? "\n" : "");
  if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "cpu_gemm", (uint32_t)threads, o->quick ? &quick : NULL,
                         extra, hw, (size_t)o->nshapes, err, sizeof(err)) != 0)
    bench_die("host calibration: %s", err);
  for (int si = 0; si < o->nshapes; si++)
    if (!hw[si].ok)
      bench_die("host calibration of %s: %s", hw[si].name, hw[si].message);
}

/* Every shape for every thread count; returns the number of results. */
static int run_table(const options *o, const olc_plugin *pl, bench_peers *peers,
                     const bench_stream_info *bw, double peak, result *results) {
  int nres = 0;
  for (int ti = 0; ti < o->nthreads; ti++) {
    bench_shape_run x;
    static bench_hc_workload hw[MAX_SHAPES];
    const olc_plugin_kv cap = {"isa", o->isa};
    memset(&x, 0, sizeof(x));
    memset(hw, 0, sizeof(hw));
    if (o->forced == NULL)
      host_calibrate(o, o->threads[ti], hw);
    x.pl = pl;
    x.peers = peers;
    x.threads = o->threads[ti], x.reps = o->reps, x.bw = bw;
    if (pl->create(&olc_stub_host, o->isa != NULL ? &cap : NULL, o->isa != NULL ? 1u : 0u,
                   (uint32_t)o->threads[ti], &x.inst) != OLC_PLUGIN_OK)
      bench_die("create");
    for (int si = 0; si < o->nshapes; si++) {
      result *r = &results[nres++];
      x.cal_text = o->forced != NULL ? o->forced : hw[si].policy;
      bench_run_shape(&x, o->shapes[si], r);
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
  char cpu[256], desc[4096];
  double peak, load[3] = {0, 0, 0};
  int nres;
  bench_peers_fair_env(argv, "bench_gemm");
  bench_parse_args(&o, argc, argv);
  olc_stub_host_set_log_level(OLC_PLUGIN_LOG_WARN);
  pl = bench_load_plugin(o.plugin_path);
  if (o.quality)
    return bench_quality_report(pl, &olc_stub_host, o.threads[0], o.quality, o.json) == 0 ? 0 : 1;
  if (o.stability)
    return bench_stability_report(pl, &olc_stub_host, o.shapes, o.nshapes, o.stability, o.reps,
                                  o.isa, o.contention, o.json) == 0
               ? 0
               : 1;
  if (o.cold)
    return bench_cold_report(pl, &olc_stub_host, o.threads[0], o.reps, o.json) == 0 ? 0 : 1;
  if (o.buckets)
    return bench_buckets_report(pl, &olc_stub_host, o.threads[0], o.reps, o.json) == 0 ? 0 : 1;
  if (o.nearest)
    return bench_nearest_report(pl, &olc_stub_host, o.threads[0], o.reps, o.quick, o.json) == 0 ? 0
                                                                                                : 1;
  if (o.concurrency)
    return bench_concurrency_report(pl, &olc_stub_host, o.threads[0], o.reps, o.json) == 0 ? 0 : 1;
  bench_peers_open(&peers, o.peers);
  if (o.overhead)
    return bench_overhead_report(pl, &olc_stub_host, &peers, o.threads[0], o.json) == 0 ? 0 : 1;
  bench_cpu_name(cpu, sizeof cpu);
  bench_peers_describe(&peers, desc, sizeof desc);
  peak = bench_fma_peak_gflops(&width);
  if (bench_stream(&bw) != 0)
    bench_die("out of memory for the streaming measurement");
  (void)getloadavg(load, 3);
  if (!o.json) {
    printf("cpu: %s; load average %.2f %.2f %.2f\n%s\n", cpu, load[0], load[1], load[2], desc);
    if (o.isa != NULL)
      printf("cpu_gemm capped at isa=%s (instances and the host's calibration)\n", o.isa);
    printf("FMA peak (%s): %.1f GFLOP/s per thread; streaming read %.1f GB/s per core (%d "
           "streams); reads faster up to %zu MiB (%.1f GB/s)\n",
           width, peak, bw.stream_gbs, bw.streams, bw.cache_bytes >> 20, bw.cache_gbs);
    int n = 2, rounds;
    for (int p = 0; p < BENCH_PEER_COUNT; p++)
      n += peers.have[p];
    rounds = bench_rounds(o.reps, n);
    if (rounds != o.reps)
      printf("rounds per shape: %d with every loaded peer (--reps %d rounded up to whole cycles "
             "of the %d orders of %d contestants; fewer where a peer skips a shape)\n",
             rounds, o.reps, bench_square_rows(n), n);
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
