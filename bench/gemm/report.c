/*
 * report.c - bench_gemm's output: one line per shape as it is measured, the
 * run's table in the README's form, or JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_gemm.h"

const char *bench_contestant_name(int c) {
  return c == C_CAL ? "cal" : c == C_DEF ? "def" : bench_peer_name(c);
}

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

static double peak_pct(const result *r, double peak) {
  return peak > 0 ? 100.0 * r->gf[C_CAL] / (peak * r->threads) : 0.0;
}

void bench_print_result(const result *r, double peak) {
  char bw[64] = "", best[64] = "no peer";
  if (r->big_bytes > 0)
    snprintf(bw, sizeof bw, ", %.1f GB/s%s", r->cal_gbs, r->out_of_cache ? "" : " in cache");
  if (r->best_peer >= 0)
    snprintf(best, sizeof best, "%.3fx %s", r->cal_best, bench_peer_name(r->best_peer));
  printf("%5ldx%5ldx%5ld t=%d ", r->s.m, r->s.n, r->s.k, r->threads);
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    if (r->ran[p])
      printf(" %s %.1f", bench_peer_name(p), r->gf[p]);
  printf("  cal %.1f (%s, %3.0f%% peak%s)  def %.1f (%.3fx)  cal/def %.3f  [%s]\n", r->gf[C_CAL],
         best, peak_pct(r, peak), bw, r->gf[C_DEF], r->def_best, r->cal_def, r->cal_text);
  printf("      fastest peer: %s; %d rounds",
         r->best_peer >= 0 ? bench_peer_name(r->best_peer) : "-", r->rounds);
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    if (r->why[p][0] != '\0')
      printf("; %s skipped: %s", bench_peer_name(p), r->why[p]);
  printf("\n");
  if (r->host_cal_s >= 0)
    printf("      host calibration: %.2f s (%zu candidates measured, %zu abandoned)\n",
           r->host_cal_s, r->measured, r->abandoned);
  fflush(stdout);
}

/* The run's table (README.md form): a column per peer that ran any shape. */
void bench_print_table(const result *res, int nres, double peak, const bench_stream_info *bw) {
  int used[BENCH_PEER_COUNT] = {0};
  for (int i = 0; i < nres; i++)
    for (int p = 0; p < BENCH_PEER_COUNT; p++)
      used[p] |= res[i].ran[p];
  printf("\n| shape | threads |");
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    if (used[p])
      printf(" %s |", bench_peer_name(p));
  printf(" calibrated | cal / fastest peer | def / fastest peer | %% of FMA peak | GB/s (%% of "
         "stream) | cal / def | calibrated policy |\n|---|---|");
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    if (used[p])
      printf("---|");
  printf("---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    char gbs[48] = "-";
    if (r->big_bytes > 0 && r->out_of_cache)
      snprintf(gbs, sizeof gbs, "%.1f (%.0f%%)", r->cal_gbs, 100.0 * r->cal_gbs / bw->stream_gbs);
    else if (r->big_bytes > 0)
      snprintf(gbs, sizeof gbs, "%.1f (in cache)", r->cal_gbs);
    printf("| %ldx%ldx%ld | %d |", r->s.m, r->s.n, r->s.k, r->threads);
    for (int p = 0; p < BENCH_PEER_COUNT; p++)
      if (used[p] && r->ran[p])
        printf(" %.1f |", r->gf[p]);
      else if (used[p])
        printf(" - |");
    printf(" %.1f | %.3fx (%s) | %.3fx | %.0f%% | %s | %.3f | `%s` |\n", r->gf[C_CAL], r->cal_best,
           r->best_peer >= 0 ? bench_peer_name(r->best_peer) : "-", r->def_best, peak_pct(r, peak),
           gbs, r->cal_def, r->cal_text + (strncmp(r->cal_text, "v1 ", 3) == 0 ? 3 : 0));
  }
}

/* A JSON string's body: the peers' descriptions hold paths and quotes. */
static void json_text(const char *s) {
  for (; *s != '\0'; s++)
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s >= 0x20)
      putchar(*s);
}

void bench_print_json(const result *res, int nres, double peak, const char *width,
                      const bench_stream_info *bw, const bench_peers *peers, const char *cpu) {
  double load[3] = {0, 0, 0};
  (void)getloadavg(load, 3);
  printf("{\"cpu\": \"%s\", \"load\": [%.2f, %.2f, %.2f], \"fma_peak_gflops_per_thread\": %.2f, "
         "\"fma_width\": \"%s\", \"stream_gbs\": %.2f, \"cache_bytes\": %zu, "
         "\"openblas_own_detection\": %d, \"peers\": [",
         cpu, load[0], load[1], load[2], peak, width, bw->stream_gbs, bw->cache_bytes,
         peers->env_fair);
  for (int p = 0, first = 1; p < BENCH_PEER_COUNT; p++) {
    if (!peers->selected[p])
      continue;
    printf("%s{\"name\": \"%s\", \"loaded\": %d, \"%s\": \"", first ? "" : ", ", bench_peer_name(p),
           peers->have[p], peers->have[p] ? "info" : "why");
    json_text(peers->have[p] ? peers->info[p] : peers->why[p]);
    printf("\"}");
    first = 0;
  }
  printf("], \"results\": [\n");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    printf("  {\"m\": %ld, \"n\": %ld, \"k\": %ld, \"threads\": %d, \"rounds\": %d, "
           "\"peer_gflops\": {",
           r->s.m, r->s.n, r->s.k, r->threads, r->rounds);
    for (int p = 0, first = 1; p < BENCH_PEER_COUNT; p++)
      if (r->ran[p]) {
        printf("%s\"%s\": %.2f", first ? "" : ", ", bench_peer_name(p), r->gf[p]);
        first = 0;
      }
    printf("}, \"calibrated_to_peer\": {");
    for (int p = 0, first = 1; p < BENCH_PEER_COUNT; p++)
      if (r->ran[p]) {
        printf("%s\"%s\": %.4f", first ? "" : ", ", bench_peer_name(p), r->vs_peer[0][p]);
        first = 0;
      }
    printf("}, \"skipped\": {");
    for (int p = 0, first = 1; p < BENCH_PEER_COUNT; p++)
      if (r->why[p][0] != '\0') {
        printf("%s\"%s\": \"", first ? "" : ", ", bench_peer_name(p));
        json_text(r->why[p]);
        printf("\"");
        first = 0;
      }
    printf("}, \"calibrated_gflops\": %.2f, \"default_gflops\": %.2f, \"fastest_peer\": \"%s\", "
           "\"calibrated_ratio\": %.4f, \"default_ratio\": %.4f, "
           "\"calibrated_to_default\": %.4f, \"calibrated_peak_pct\": %.1f, "
           "\"stream_operand_bytes\": %.0f, \"out_of_cache\": %d, \"calibrated_gbs\": %.2f, "
           "\"calibrated_policy\": \"%s\", \"default_policy\": \"%s\", "
           "\"host_calibration_s\": %.3f}%s\n",
           r->gf[C_CAL], r->gf[C_DEF], r->best_peer >= 0 ? bench_peer_name(r->best_peer) : "",
           r->cal_best, r->def_best, r->cal_def, peak_pct(r, peak), r->big_bytes, r->out_of_cache,
           r->cal_gbs, r->cal_text, r->def_text, r->host_cal_s, i + 1 < nres ? "," : "");
  }
  printf("]}\n");
}
