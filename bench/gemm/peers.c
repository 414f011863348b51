/*
 * peers.c - see peers.h: the table of adapters, --peers, the re-executed
 * environment and the check against a double-precision product.
 */
#include "peers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_adapters.h"

/* Set in the re-executed process, so that it happens once. */
#define FAIR_MARK "BENCH_GEMM_PEERS_FAIR"

/* The adapters in BENCH_PEER_* order; NULL where the build lacks the
 * library, with the reason. */
typedef struct peer_row {
  const bench_peer_adapter *ad;
  const char *name, *key, *missing;
} peer_row;

static const peer_row peer_rows[BENCH_PEER_COUNT] = {
    {&bench_peer_openblas, "OpenBLAS", "openblas", NULL},
    {&bench_peer_blis, "BLIS", "blis", NULL},
#ifdef BENCH_HAVE_DNNL
    {&bench_peer_dnnl_sgemm, "oneDNN-sgemm", "onednn-sgemm", NULL},
    {&bench_peer_dnnl_matmul, "oneDNN-matmul", "onednn-matmul", NULL},
#else
    {NULL, "oneDNN-sgemm", "onednn-sgemm", "not built: oneDNN not found (install libdnnl-dev)"},
    {NULL, "oneDNN-matmul", "onednn-matmul", "not built: oneDNN not found (install libdnnl-dev)"},
#endif
#ifdef BENCH_HAVE_LIBXSMM
    {&bench_peer_libxsmm, "libxsmm", "libxsmm", NULL},
#else
    {NULL, "libxsmm", "libxsmm", "not built: libxsmm not found (install libxsmm-dev)"},
#endif
#ifdef BENCH_HAVE_XNNPACK
    {&bench_peer_xnnpack, "XNNPACK", "xnnpack", NULL},
#else
    {NULL, "XNNPACK", "xnnpack",
     "not built: XNNPACK not found (install libxnnpack-dev libpthreadpool-dev)"},
#endif
#ifdef BENCH_HAVE_EIGEN
    {&bench_peer_eigen, "Eigen", "eigen", NULL},
#else
    {NULL, "Eigen", "eigen", "not built: Eigen 3 or a C++ compiler not found (libeigen3-dev)"},
#endif
    {&bench_peer_ort, "ONNX Runtime", "ort", NULL},
};

const bench_peer_adapter *bench_peer_adapter_get(int which, const char **why) {
  if (which < 0 || which >= BENCH_PEER_COUNT)
    return NULL;
  if (why != NULL)
    *why = peer_rows[which].missing;
  return peer_rows[which].ad;
}

const char *bench_peer_name(int which) {
  return which >= 0 && which < BENCH_PEER_COUNT ? peer_rows[which].name : "?";
}

void bench_peers_fair_env(char **argv, const char *tool) {
  if (getenv(FAIR_MARK) != NULL)
    return;
  if (setenv(FAIR_MARK, "1", 1) != 0)
    return;
  bench_peer_blis_arch_env();
  (void)unsetenv("OPENBLAS_CORETYPE");
  (void)unsetenv("OPENBLAS_L2_SIZE");
  /* OpenBLAS's idle threads spin 2^28 cycles after each call by default;
   * 2^19 (~0.2 ms) is about as long as cpu_gemm's pool spins.  An explicit
   * setting is kept. */
  if (getenv("OPENBLAS_THREAD_TIMEOUT") == NULL)
    (void)setenv("OPENBLAS_THREAD_TIMEOUT", "19", 1);
  execv("/proc/self/exe", argv);
  fprintf(stderr,
          "%s: cannot re-execute for OpenBLAS's own CPU detection; the OpenBLAS figures use "
          "the inherited OPENBLAS_CORETYPE\n",
          tool);
}

int bench_peers_select(int selected[BENCH_PEER_COUNT], const char *list, char *why, size_t cap) {
  const char *s = list;
  memset(selected, 0, sizeof(int) * BENCH_PEER_COUNT);
  while (*s != '\0') {
    size_t len = strcspn(s, ",");
    int found = 0;
    if (len == 3 && strncmp(s, "all", 3) == 0) {
      for (int i = 0; i < BENCH_PEER_COUNT; i++)
        selected[i] = 1;
      found = 1;
    }
    for (int i = 0; i < BENCH_PEER_COUNT && !found; i++)
      if (strlen(peer_rows[i].key) == len && strncmp(s, peer_rows[i].key, len) == 0)
        selected[i] = found = 1;
    if (!found) {
      snprintf(why, cap, "unknown peer '%.*s' in --peers %s (want all or a list of:", (int)len, s,
               list);
      for (int i = 0; i < BENCH_PEER_COUNT; i++) {
        size_t used = strlen(why);
        snprintf(why + used, cap - used, " %s", peer_rows[i].key);
      }
      strncat(why, ")", cap - strlen(why) - 1);
      return -1;
    }
    s += len;
    if (*s == ',')
      s++;
  }
  return 0;
}

void bench_peers_open(bench_peers *p, const int *selected) {
  memset(p, 0, sizeof(*p));
  p->env_fair = getenv("OPENBLAS_CORETYPE") == NULL && getenv("OPENBLAS_L2_SIZE") == NULL;
  for (int i = 0; i < BENCH_PEER_COUNT; i++) {
    const peer_row *r = &peer_rows[i];
    p->selected[i] = selected == NULL || selected[i];
    if (!p->selected[i])
      continue;
    if (r->ad == NULL) {
      snprintf(p->why[i], sizeof p->why[i], "%s", r->missing);
      continue;
    }
    if (r->ad->open(p->info[i], sizeof p->info[i], p->why[i], sizeof p->why[i]) == 0)
      p->have[i] = 1;
  }
  if (p->have[BENCH_PEER_OPENBLAS] && !p->env_fair) {
    size_t used = strlen(p->info[BENCH_PEER_OPENBLAS]);
    snprintf(p->info[BENCH_PEER_OPENBLAS] + used, sizeof p->info[0] - used,
             " (OPENBLAS_CORETYPE inherited)");
  }
}

void bench_peers_close(bench_peers *p) {
  /* The libraries keep threads and TLS: none is unloaded (as the host
   * does with plugins). */
  memset(p->have, 0, sizeof p->have);
}

int bench_peer_plan_make(bench_peer_plan *out, const bench_peers *p, int which,
                         const bench_peer_args *args, char *why, size_t cap) {
  out->ad = NULL, out->plan = NULL;
  if (which < 0 || which >= BENCH_PEER_COUNT || !p->have[which]) {
    snprintf(why, cap, "not loaded");
    return -1;
  }
  if (peer_rows[which].ad->plan(&out->plan, args, why, cap) != 0)
    return -1;
  out->ad = peer_rows[which].ad;
  return 0;
}

void bench_peer_plan_free(bench_peer_plan *pp) {
  if (pp->ad != NULL)
    pp->ad->free(pp->plan);
  pp->ad = NULL, pp->plan = NULL;
}

void bench_peers_describe(const bench_peers *p, char *out, size_t cap) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < BENCH_PEER_COUNT && used < cap; i++) {
    if (!p->selected[i])
      continue;
    if (p->have[i])
      snprintf(out + used, cap - used, "%speer %s: %s", used ? "\n" : "", peer_rows[i].name,
               p->info[i]);
    else
      snprintf(out + used, cap - used, "%speer %s: skipped: %s", used ? "\n" : "",
               peer_rows[i].name, p->why[i]);
    used = strlen(out);
  }
}

double bench_peer_check(const bench_peer_args *args, const float *c) {
  const int64_t m = args->m, n = args->n, k = args->k;
  /* Every row up to 2^28 multiply-adds, then a spread of about 64 rows. */
  const int64_t step = (double)m * (double)n * (double)k <= (double)(1 << 28) ? 1 : (m + 63) / 64;
  double *ref = calloc((size_t)n, sizeof(double)), *mag = calloc((size_t)n, sizeof(double));
  double worst = 0;
  const double eps = 1.0 / (1 << 23);
  if (ref == NULL || mag == NULL) {
    free(ref), free(mag);
    return NAN;
  }
  for (int64_t i = 0; i < m; i += step) {
    memset(ref, 0, (size_t)n * sizeof(double));
    memset(mag, 0, (size_t)n * sizeof(double));
    for (int64_t l = 0; l < k; l++) {
      const double av = args->a[i * k + l];
      const float *brow = args->b + l * n;
      for (int64_t j = 0; j < n; j++) {
        ref[j] += av * brow[j];
        mag[j] += fabs(av * brow[j]);
      }
    }
    for (int64_t j = 0; j < n; j++) {
      const double e = fabs((double)c[i * n + j] - ref[j]);
      const double bound = (double)k * eps * mag[j] + 1e-30;
      if (isnan(e)) {
        worst = NAN;
        goto done;
      }
      worst = e / bound > worst ? e / bound : worst;
    }
  }
done:
  free(ref), free(mag);
  return worst;
}
