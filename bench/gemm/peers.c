/*
 * peers.c - see peers.h.
 */
#include "peers.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void openblas_set_num_threads(int num_threads);
char *openblas_get_corename(void);
char *openblas_get_config(void);

/* Set in the re-executed process, so that it happens once. */
#define FAIR_MARK "BENCH_GEMM_PEERS_FAIR"
/* BLIS's own choice of sub-configuration, for the report. */
#define BLIS_OWN "BENCH_GEMM_BLIS_OWN"

/* BLIS 0.9 does not know every CPU (AMD family 26 here) and then runs its
 * portable "generic" kernels.  Its own choice is asked for in this, the
 * first, process; when it is generic, the re-executed one gets the BLIS
 * sub-configuration for the ISA the CPU has (BLIS_ARCH_TYPE: 0 = skx for
 * AVX-512, 6 = zen3 on AMD / 3 = haswell on others for AVX2), as BLIS
 * would pick on a CPU it knows.  An explicit BLIS_ARCH_TYPE is kept. */
static void blis_arch_env(void) {
  const char *path = getenv("BENCH_BLIS_LIB");
  void *dl;
  int (*arch_id)(void);
  char *(*arch_string)(int);
  const char *own;
  if (getenv("BLIS_ARCH_TYPE") != NULL)
    return;
  dl = dlopen(path != NULL ? path : "libblis.so.4", RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL)
    return;
  *(void **)&arch_id = dlsym(dl, "bli_arch_query_id");
  *(void **)&arch_string = dlsym(dl, "bli_arch_string");
  if (arch_id == NULL || arch_string == NULL)
    return;
  own = arch_string(arch_id());
  (void)setenv(BLIS_OWN, own != NULL ? own : "?", 1);
  if (own == NULL || strcmp(own, "generic") != 0)
    return;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    (void)setenv("BLIS_ARCH_TYPE", "0", 1);
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    (void)setenv("BLIS_ARCH_TYPE", __builtin_cpu_is("amd") ? "6" : "3", 1);
#endif
}

void bench_peers_fair_env(char **argv, const char *tool) {
  if (getenv(FAIR_MARK) != NULL)
    return;
  if (setenv(FAIR_MARK, "1", 1) != 0)
    return;
  blis_arch_env();
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

static void load_blis(bench_peers *p) {
  const char *path = getenv("BENCH_BLIS_LIB");
  char *(*arch_string)(int);
  int (*arch_id)(void);
  char *(*version)(void);
  void (*init)(void);
  p->blis_dl = dlopen(path != NULL ? path : "libblis.so.4", RTLD_NOW | RTLD_LOCAL);
  if (p->blis_dl == NULL) {
    snprintf(p->blis_why, sizeof p->blis_why, "BLIS not found (%s); install libblis-dev",
             dlerror());
    return;
  }
  *(void **)&p->bli_sgemm = dlsym(p->blis_dl, "bli_sgemm");
  *(void **)&p->bli_sgemv = dlsym(p->blis_dl, "bli_sgemv");
  *(void **)&p->bli_set_threads = dlsym(p->blis_dl, "bli_thread_set_num_threads");
  *(void **)&init = dlsym(p->blis_dl, "bli_init");
  *(void **)&arch_id = dlsym(p->blis_dl, "bli_arch_query_id");
  *(void **)&arch_string = dlsym(p->blis_dl, "bli_arch_string");
  *(void **)&version = dlsym(p->blis_dl, "bli_info_get_version_str");
  if (p->bli_sgemm == NULL || p->bli_sgemv == NULL || p->bli_set_threads == NULL || init == NULL) {
    snprintf(p->blis_why, sizeof p->blis_why, "%s lacks bli_sgemm", path ? path : "libblis.so.4");
    return;
  }
  init();
  snprintf(p->blis_arch, sizeof p->blis_arch, "%s",
           arch_id != NULL && arch_string != NULL ? arch_string(arch_id()) : "?");
  snprintf(p->blis_version, sizeof p->blis_version, "%s", version != NULL ? version() : "?");
  if (getenv(BLIS_OWN) != NULL && strcmp(getenv(BLIS_OWN), p->blis_arch) != 0)
    snprintf(p->blis_own, sizeof p->blis_own, "%s", getenv(BLIS_OWN));
  p->have[BENCH_PEER_BLIS] = 1;
}

void bench_peers_open(bench_peers *p) {
  memset(p, 0, sizeof(*p));
  p->have[BENCH_PEER_OPENBLAS] = 1;
  snprintf(p->openblas_core, sizeof p->openblas_core, "%s", openblas_get_corename());
  snprintf(p->openblas_config, sizeof p->openblas_config, "%s", openblas_get_config());
  p->env_fair = getenv("OPENBLAS_CORETYPE") == NULL && getenv("OPENBLAS_L2_SIZE") == NULL;
  load_blis(p);
}

void bench_peers_close(bench_peers *p) {
  /* BLIS keeps threads and TLS: never dlclose it (as the host does with
   * plugins). */
  p->blis_dl = NULL;
}

void bench_peers_threads(bench_peers *p, int threads) {
  openblas_set_num_threads(threads);
  if (p->have[BENCH_PEER_BLIS])
    p->bli_set_threads(threads);
}

/* BLIS's trans_t and conj_t values (blis.h). */
#define BLI_NO_TRANSPOSE 0
#define BLI_TRANSPOSE 8
#define BLI_NO_CONJUGATE 0

static void blis_product(const bench_peers *p, int64_t m, int64_t n, int64_t k, float alpha,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                         float *c, int64_t ldc) {
  if (n == 1) /* c (m) = A (m x k) b (k, stride ldb) */
    p->bli_sgemv(BLI_NO_TRANSPOSE, BLI_NO_CONJUGATE, m, k, &alpha, a, lda, 1, b, ldb, &beta, c,
                 ldc);
  else if (m == 1) /* c (n) = B^T (n x k) a (k) */
    p->bli_sgemv(BLI_TRANSPOSE, BLI_NO_CONJUGATE, k, n, &alpha, b, ldb, 1, a, 1, &beta, c, 1);
  else /* row-major: row stride ld, column stride 1 */
    p->bli_sgemm(BLI_NO_TRANSPOSE, BLI_NO_TRANSPOSE, m, n, k, &alpha, a, lda, 1, b, ldb, 1, &beta,
                 c, ldc, 1);
}

void bench_peer_sgemm(const bench_peers *p, int which, int64_t m, int64_t n, int64_t k, float alpha,
                      const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                      float *c, int64_t ldc) {
  if (which == BENCH_PEER_BLIS)
    blis_product(p, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else if (n == 1)
    cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)m, (int)k, alpha, a, (int)lda, b, (int)ldb, beta,
                c, (int)ldc);
  else if (m == 1)
    cblas_sgemv(CblasRowMajor, CblasTrans, (int)k, (int)n, alpha, b, (int)ldb, a, 1, beta, c, 1);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, alpha, a,
                (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

const char *bench_peer_name(int which) { return which == BENCH_PEER_BLIS ? "BLIS" : "OpenBLAS"; }

void bench_peers_describe(const bench_peers *p, char *out, size_t cap) {
  if (p->have[BENCH_PEER_BLIS])
    snprintf(out, cap, "peers: OpenBLAS core %s%s (%s); BLIS %s, config %s%s%s%s", p->openblas_core,
             p->env_fair ? " (own detection)" : " (OPENBLAS_CORETYPE inherited)",
             p->openblas_config, p->blis_version, p->blis_arch,
             p->blis_own[0] ? " (its own detection: " : "", p->blis_own,
             p->blis_own[0] ? ", which runs portable kernels)" : "");
  else
    snprintf(out, cap, "peers: OpenBLAS core %s%s (%s); %s: BLIS skipped", p->openblas_core,
             p->env_fair ? " (own detection)" : " (OPENBLAS_CORETYPE inherited)",
             p->openblas_config, p->blis_why);
}
