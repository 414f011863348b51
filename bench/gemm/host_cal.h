/*
 * host_cal.h - the "calibrated" policy of the GEMM benchmarks, obtained from
 * the host's real calibrate-and-select loop through the public API
 * (olc_config_load_string, olc_store_open, olc_host_open,
 * olc_host_calibrate), with an in-memory store.  Shared by bench/gemm and
 * bench/gemm-opencl.
 */
#ifndef BENCH_HOST_CAL_H
#define BENCH_HOST_CAL_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"

/* One workload to calibrate, and what the loop made of it. */
typedef struct bench_hc_workload {
  char name[64]; /* [workload.NAME]; empty: generated from the shape */
  long m, n, k;
  /* Filled in by bench_hc_calibrate: */
  int ok;            /* a record was selected */
  char policy[256];  /* the selected record's policy bytes, as text */
  double seconds;    /* wall time of olc_host_calibrate for this workload */
  size_t measured;   /* candidates the loop measured */
  size_t abandoned;  /* of which abandoned early */
  char message[256]; /* why not ok, or the loop's warning */
} bench_hc_workload;

/*
 * Calibrates each workload through the host, one olc_host_calibrate call
 * per workload (so that each one's wall time is its own), in process.
 * plugin_dir: the build's plugin directory; backend: "cpu_gemm" or
 * "example_gpu"; threads: the [host] thread count; cal: the [calibration]
 * settings (NULL: the host's defaults); extra_ini: appended to the
 * generated configuration (e.g. a [plugin.NAME] section), may be NULL.
 * Returns 0 when the loop ran (check each ok), -1 with err set otherwise.
 */
int bench_hc_calibrate(const char *plugin_dir, const char *backend, uint32_t threads,
                       const olc_calibration_settings *cal, const char *extra_ini,
                       bench_hc_workload *w, size_t count, char *err, size_t err_size);

#endif
