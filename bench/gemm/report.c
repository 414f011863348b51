/*
 * report.c - bench_gemm's output: one line per shape as it is measured, the
 * run's table in the README's form, or JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_gemm.h"

const char *const bench_contestant_names[4] = {"OpenBLAS", "BLIS", "cal", "def"};

/* "AMD EPYC (family 26, model 2)" from /proc/cpuinfo, where there is one. */
void bench_cpu_name(char *out, size_t cap) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256], name[128] = "unknown CPU";
  int family = -1, model = -1;
  if (f != NULL) {
    while (fgets(line, sizeof line, f) != NULL) {
      char *v = strchr(line, ':');
      if (v == NULL)
        continue;
      v += 2;
      v[strcspn(v, "\n")] = '\0';
      if (strncmp(line, "model name", 10) == 0 && strcmp(name, "unknown CPU") == 0)
        snprintf(name, sizeof name, "%s", v);
      else if (strncmp(line, "cpu family", 10) == 0 && family < 0)
        family = atoi(v);
      else if (strncmp(line, "model\t", 6) == 0 && model < 0)
        model = atoi(v);
    }
    fclose(f);
  }
  snprintf(out, cap, "%s (family %d, model %d), %ld logical CPUs", name, family, model,
           sysconf(_SC_NPROCESSORS_ONLN));
}

void bench_print_result(const result *r, double peak) {
  char bw[64] = "";
  if (r->big_bytes > 0)
    snprintf(bw, sizeof bw, ", %.1f GB/s%s", r->cal_gbs, r->out_of_cache ? "" : " in cache");
  printf("%5ldx%5ldx%5ld t=%d  OpenBLAS %6.1f  BLIS %6.1f  cal %6.1f (%.3fx %s, %3.0f%% peak%s)  "
         "def %6.1f (%.3fx)  cal/def %.3f  [%s]\n",
         r->s.m, r->s.n, r->s.k, r->threads, r->gf[C_OB], r->gf[C_BLIS], r->gf[C_CAL], r->cal_best,
         bench_contestant_names[r->best_peer],
         peak > 0 ? 100.0 * r->gf[C_CAL] / (peak * r->threads) : 0.0, bw, r->gf[C_DEF], r->def_best,
         r->cal_def, r->cal_text);
  if (r->host_cal_s >= 0)
    printf("      host calibration: %.2f s (%zu candidates measured, %zu abandoned)\n",
           r->host_cal_s, r->measured, r->abandoned);
  fflush(stdout);
}

/* The run's table (README.md form). */
void bench_print_table(const result *res, int nres, double peak, const bench_stream_info *bw) {
  printf(
      "\n| shape | threads | OpenBLAS | BLIS | calibrated | cal / faster peer | def / faster peer "
      "| %% of FMA peak | GB/s (%% of stream) | cal / def | calibrated policy |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    char gbs[48] = "-";
    if (r->big_bytes > 0 && r->out_of_cache)
      snprintf(gbs, sizeof gbs, "%.1f (%.0f%%)", r->cal_gbs, 100.0 * r->cal_gbs / bw->stream_gbs);
    else if (r->big_bytes > 0)
      snprintf(gbs, sizeof gbs, "%.1f (in cache)", r->cal_gbs);
    printf("| %ldx%ldx%ld | %d | %.1f | %.1f | %.1f | %.3fx (%s) | %.3fx | %.0f%% | %s | %.3f | "
           "`%s` |\n",
           r->s.m, r->s.n, r->s.k, r->threads, r->gf[C_OB], r->gf[C_BLIS], r->gf[C_CAL],
           r->cal_best, bench_contestant_names[r->best_peer], r->def_best,
           peak > 0 ? 100.0 * r->gf[C_CAL] / (peak * r->threads) : 0.0, gbs, r->cal_def,
           r->cal_text + (strncmp(r->cal_text, "v1 ", 3) == 0 ? 3 : 0));
  }
}

void bench_print_json(const result *res, int nres, double peak, const char *width,
                      const bench_stream_info *bw, const bench_peers *peers, const char *cpu) {
  double load[3] = {0, 0, 0};
  (void)getloadavg(load, 3);
  printf("{\"cpu\": \"%s\", \"load\": [%.2f, %.2f, %.2f], \"fma_peak_gflops_per_thread\": %.2f, "
         "\"fma_width\": \"%s\", \"stream_gbs\": %.2f, \"cache_bytes\": %zu, "
         "\"openblas_core\": \"%s\", \"openblas_own_detection\": %d, \"blis\": \"%s\", "
         "\"results\": [\n",
         cpu, load[0], load[1], load[2], peak, width, bw->stream_gbs, bw->cache_bytes,
         peers->openblas_core, peers->env_fair,
         peers->have[BENCH_PEER_BLIS] ? peers->blis_arch : "");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    printf("  {\"m\": %ld, \"n\": %ld, \"k\": %ld, \"threads\": %d, \"openblas_gflops\": %.2f, "
           "\"blis_gflops\": %.2f, \"calibrated_gflops\": %.2f, \"default_gflops\": %.2f, "
           "\"faster_peer\": \"%s\", \"calibrated_ratio\": %.4f, \"default_ratio\": %.4f, "
           "\"calibrated_to_openblas\": %.4f, \"calibrated_to_blis\": %.4f, "
           "\"calibrated_to_default\": %.4f, \"calibrated_peak_pct\": %.1f, "
           "\"stream_operand_bytes\": %.0f, \"out_of_cache\": %d, \"calibrated_gbs\": %.2f, "
           "\"calibrated_policy\": \"%s\", \"default_policy\": \"%s\", "
           "\"host_calibration_s\": %.3f}%s\n",
           r->s.m, r->s.n, r->s.k, r->threads, r->gf[C_OB], r->gf[C_BLIS], r->gf[C_CAL],
           r->gf[C_DEF], bench_contestant_names[r->best_peer], r->cal_best, r->def_best,
           r->vs_peer[0][C_OB], r->vs_peer[0][C_BLIS], r->cal_def,
           peak > 0 ? 100.0 * r->gf[C_CAL] / (peak * r->threads) : 0.0, r->big_bytes,
           r->out_of_cache, r->cal_gbs, r->cal_text, r->def_text, r->host_cal_s,
           i + 1 < nres ? "," : "");
  }
  printf("]}\n");
}
