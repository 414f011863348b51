/*
 * peer_blis.c - BLIS, loaded apart with dlopen (see peers.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_adapters.h"

/* BLIS's own choice of sub-configuration, for the report. */
#define BLIS_OWN "BENCH_GEMM_BLIS_OWN"

typedef void (*bli_sgemm_fn)(int transa, int transb, int64_t m, int64_t n, int64_t k,
                             const float *alpha, const float *a, int64_t rs_a, int64_t cs_a,
                             const float *b, int64_t rs_b, int64_t cs_b, const float *beta,
                             float *c, int64_t rs_c, int64_t cs_c);
typedef void (*bli_sgemv_fn)(int transa, int conjx, int64_t m, int64_t n, const float *alpha,
                             const float *a, int64_t rs_a, int64_t cs_a, const float *x,
                             int64_t incx, const float *beta, float *y, int64_t incy);

static struct {
  bli_sgemm_fn sgemm;
  bli_sgemv_fn sgemv;
  void (*set_threads)(int64_t n);
} blis;

static const char *blis_path(void) {
  const char *path = getenv("BENCH_BLIS_LIB");
  return path != NULL ? path : "libblis.so.4";
}

/* Its own choice is asked for in the first process; when it is generic,
 * the re-executed one gets the sub-configuration for the CPU's ISA
 * (BLIS_ARCH_TYPE: 0 = skx for AVX-512, 6 = zen3 on AMD / 3 = haswell on
 * others for AVX2), as BLIS would pick on a CPU it knows.  An explicit
 * BLIS_ARCH_TYPE is kept. */
void bench_peer_blis_arch_env(void) {
  void *dl;
  int (*arch_id)(void);
  char *(*arch_string)(int);
  const char *own;
  if (getenv("BLIS_ARCH_TYPE") != NULL)
    return;
  dl = dlopen(blis_path(), RTLD_NOW | RTLD_LOCAL);
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

static int blis_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  char *(*arch_string)(int);
  int (*arch_id)(void);
  char *(*version)(void);
  void (*init)(void);
  const char *own = getenv(BLIS_OWN), *arch;
  void *dl = dlopen(blis_path(), RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) {
    snprintf(why, why_cap, "BLIS not found (%s); install libblis-dev", dlerror());
    return -1;
  }
  *(void **)&blis.sgemm = dlsym(dl, "bli_sgemm");
  *(void **)&blis.sgemv = dlsym(dl, "bli_sgemv");
  *(void **)&blis.set_threads = dlsym(dl, "bli_thread_set_num_threads");
  *(void **)&init = dlsym(dl, "bli_init");
  *(void **)&arch_id = dlsym(dl, "bli_arch_query_id");
  *(void **)&arch_string = dlsym(dl, "bli_arch_string");
  *(void **)&version = dlsym(dl, "bli_info_get_version_str");
  if (blis.sgemm == NULL || blis.sgemv == NULL || blis.set_threads == NULL || init == NULL) {
    snprintf(why, why_cap, "%s lacks bli_sgemm", blis_path());
    return -1;
  }
  init();
  arch = arch_id != NULL && arch_string != NULL ? arch_string(arch_id()) : "?";
  if (own != NULL && strcmp(own, arch) != 0)
    snprintf(info, info_cap, "%s, config %s (its own detection: %s, which runs portable kernels)",
             version != NULL ? version() : "?", arch, own);
  else
    snprintf(info, info_cap, "%s, config %s", version != NULL ? version() : "?", arch);
  return 0;
}

static int blis_plan(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  blis.set_threads(args->threads);
  return bench_peer_plan_args(plan, args, why, why_cap);
}

/* BLIS's trans_t and conj_t values (blis.h). */
#define BLI_NO_TRANSPOSE 0
#define BLI_TRANSPOSE 8
#define BLI_NO_CONJUGATE 0

/* Its gemv when m or n is 1, as for OpenBLAS (BLIS's gemm runs those
 * shapes several times slower too). */
static void blis_run(void *plan) {
  const bench_peer_args *x = plan;
  const float one = 1.0f, zero = 0.0f;
  if (x->n == 1) /* c (m) = A (m x k) b (k) */
    blis.sgemv(BLI_NO_TRANSPOSE, BLI_NO_CONJUGATE, x->m, x->k, &one, x->a, x->k, 1, x->b, 1, &zero,
               x->c, 1);
  else if (x->m == 1) /* c (n) = B^T (n x k) a (k) */
    blis.sgemv(BLI_TRANSPOSE, BLI_NO_CONJUGATE, x->k, x->n, &one, x->b, x->n, 1, x->a, 1, &zero,
               x->c, 1);
  else /* row-major: row stride ld, column stride 1 */
    blis.sgemm(BLI_NO_TRANSPOSE, BLI_NO_TRANSPOSE, x->m, x->n, x->k, &one, x->a, x->k, 1, x->b,
               x->n, 1, &zero, x->c, x->n, 1);
}

const bench_peer_adapter bench_peer_blis = {"BLIS",    "blis",   blis_open,
                                            blis_plan, blis_run, bench_peer_plan_args_free};
