/*
 * peer_ort.c - ONNX Runtime (see peers.h), loaded with dlopen and driven
 * through its C API: OrtGetApiBase()->GetApi gives a table of function
 * pointers that only grows, so each entry the bench calls is taken at its
 * fixed index (declared below with its signature; nothing else of the API
 * is needed).  Per shape: a session over a one-node MatMul model with B
 * an initializer (so ONNX Runtime prepacks it), intra_op_num_threads the
 * thread count, and A and Y bound to the bench's buffers; each call is
 * one Run.
 *
 * The library: $BENCH_ORT_LIB, else the build's BENCH_ORT_LIB, else the
 * npm package onnxruntime-node (installed with --ignore-scripts, which
 * carries the CPU library) under ~/.cache/olc-bench/onnxruntime-node.
 */
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_model.h"
#include "peer_adapters.h"

#ifndef BENCH_ORT_LIB
#define BENCH_ORT_LIB ""
#endif
#define ORT_NPM_GLOB                                                                               \
  "/.cache/olc-bench/onnxruntime-node/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/"        \
  "libonnxruntime.so*"

/* Opaque handles of the C API. */
typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;

typedef struct ort_api_base {
  const void *(*GetApi)(uint32_t version);
  const char *(*GetVersionString)(void);
} ort_api_base;

/* The entries used, by their index in OrtApi (present since version 1;
 * the table is append-only). */
enum {
  ORT_GET_ERROR_MESSAGE = 2,
  ORT_CREATE_ENV = 3,
  ORT_CREATE_SESSION_FROM_ARRAY = 8,
  ORT_RUN = 9,
  ORT_CREATE_SESSION_OPTIONS = 10,
  ORT_SET_INTRA_OP_NUM_THREADS = 24,
  ORT_SET_INTER_OP_NUM_THREADS = 25,
  ORT_CREATE_TENSOR_WITH_DATA = 49,
  ORT_CREATE_CPU_MEMORY_INFO = 69,
  ORT_RELEASE_STATUS = 93,
  ORT_RELEASE_MEMORY_INFO = 94,
  ORT_RELEASE_SESSION = 95,
  ORT_RELEASE_VALUE = 96,
  ORT_RELEASE_SESSION_OPTIONS = 100,
};
#define ORT_API_LEVEL 11 /* ONNX Runtime 1.11 and later */
#define ORT_LOGGING_LEVEL_WARNING 2
#define ORT_ARENA_ALLOCATOR 1
#define ORT_MEM_TYPE_DEFAULT 0
#define ORT_FLOAT 1

static struct {
  void *const *api;
  OrtEnv *env;
  OrtMemoryInfo *cpu;
  const char *(*error_message)(const OrtStatus *);
  void (*release_status)(OrtStatus *);
  OrtStatus *(*run)(OrtSession *, const void *, const char *const *, const OrtValue *const *,
                    size_t, const char *const *, size_t, OrtValue **);
} ort;

#define ORT_FN(index) (ort.api[index])

typedef struct ort_plan {
  OrtSession *session;
  OrtValue *a, *y;
} ort_plan;

/* why <- the status's message; frees it; -1 (0 when st is NULL). */
static int ort_fail(OrtStatus *st, const char *what, char *why, size_t why_cap) {
  if (st == NULL)
    return 0;
  snprintf(why, why_cap, "ONNX Runtime: %s: %s", what, ort.error_message(st));
  ort.release_status(st);
  return -1;
}

static void *ort_load(char *tried, size_t cap) {
  const char *env = getenv("BENCH_ORT_LIB"), *home = getenv("HOME");
  void *dl = NULL;
  char pattern[1024];
  glob_t g;
  if (env != NULL && env[0] != '\0') {
    snprintf(tried, cap, "%s", env);
    return dlopen(env, RTLD_NOW | RTLD_LOCAL);
  }
  if (BENCH_ORT_LIB[0] != '\0') {
    snprintf(tried, cap, "%s", BENCH_ORT_LIB);
    if ((dl = dlopen(BENCH_ORT_LIB, RTLD_NOW | RTLD_LOCAL)) != NULL)
      return dl;
  }
  snprintf(pattern, sizeof pattern, "%s%s", home != NULL ? home : "", ORT_NPM_GLOB);
  snprintf(tried, cap, "%s", pattern);
  if (glob(pattern, 0, NULL, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc && dl == NULL; i++)
      if ((dl = dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
        snprintf(tried, cap, "%s", g.gl_pathv[i]);
    globfree(&g);
  }
  return dl;
}

static int ort_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  char path[1024];
  const ort_api_base *(*get_base)(void);
  const ort_api_base *base;
  void *dl = ort_load(path, sizeof path);
  OrtStatus *(*create_env)(int, const char *, OrtEnv **);
  OrtStatus *(*cpu_info)(int, int, OrtMemoryInfo **);
  if (dl == NULL) {
    snprintf(why, why_cap,
             "libonnxruntime.so not found (%s; set BENCH_ORT_LIB, or run npm install "
             "--ignore-scripts onnxruntime-node@1.30.0 in ~/.cache/olc-bench/onnxruntime-node)",
             path);
    return -1;
  }
  *(void **)&get_base = dlsym(dl, "OrtGetApiBase");
  if (get_base == NULL || (base = get_base()) == NULL ||
      (ort.api = base->GetApi(ORT_API_LEVEL)) == NULL) {
    snprintf(why, why_cap, "%s: no OrtGetApiBase, or its API is older than level %d", path,
             ORT_API_LEVEL);
    return -1;
  }
  *(void **)&ort.error_message = ORT_FN(ORT_GET_ERROR_MESSAGE);
  *(void **)&ort.release_status = ORT_FN(ORT_RELEASE_STATUS);
  *(void **)&ort.run = ORT_FN(ORT_RUN);
  *(void **)&create_env = ORT_FN(ORT_CREATE_ENV);
  *(void **)&cpu_info = ORT_FN(ORT_CREATE_CPU_MEMORY_INFO);
  if (ort.env == NULL && (ort_fail(create_env(ORT_LOGGING_LEVEL_WARNING, "bench_gemm", &ort.env),
                                   "CreateEnv", why, why_cap) != 0 ||
                          ort_fail(cpu_info(ORT_ARENA_ALLOCATOR, ORT_MEM_TYPE_DEFAULT, &ort.cpu),
                                   "CreateCpuMemoryInfo", why, why_cap) != 0))
    return -1;
  snprintf(info, info_cap, "%s (%s), session per shape, B an initializer", base->GetVersionString(),
           path);
  return 0;
}

static void ort_free(void *plan) {
  ort_plan *x = plan;
  void (*release_value)(OrtValue *);
  void (*release_session)(OrtSession *);
  if (x == NULL)
    return;
  *(void **)&release_value = ORT_FN(ORT_RELEASE_VALUE);
  *(void **)&release_session = ORT_FN(ORT_RELEASE_SESSION);
  release_value(x->a);
  release_value(x->y);
  release_session(x->session);
  free(x);
}

static int ort_tensor(OrtValue **out, void *data, int64_t rows, int64_t cols, char *why,
                      size_t why_cap) {
  OrtStatus *(*create)(const OrtMemoryInfo *, void *, size_t, const int64_t *, size_t, int,
                       OrtValue **);
  const int64_t shape[2] = {rows, cols};
  *(void **)&create = ORT_FN(ORT_CREATE_TENSOR_WITH_DATA);
  return ort_fail(
      create(ort.cpu, data, (size_t)(rows * cols) * sizeof(float), shape, 2, ORT_FLOAT, out),
      "CreateTensorWithDataAsOrtValue", why, why_cap);
}

static int ort_plan_make(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
  OrtStatus *(*create_options)(OrtSessionOptions **);
  OrtStatus *(*intra)(OrtSessionOptions *, int), *(*inter)(OrtSessionOptions *, int);
  OrtStatus *(*create_session)(const OrtEnv *, const void *, size_t, const OrtSessionOptions *,
                               OrtSession **);
  void (*release_options)(OrtSessionOptions *);
  OrtSessionOptions *opt = NULL;
  size_t len = 0;
  unsigned char *model = bench_onnx_matmul_model(args->m, args->n, args->k, args->b, &len);
  ort_plan *x = calloc(1, sizeof *x);
  int rc = -1;
  *(void **)&create_options = ORT_FN(ORT_CREATE_SESSION_OPTIONS);
  *(void **)&intra = ORT_FN(ORT_SET_INTRA_OP_NUM_THREADS);
  *(void **)&inter = ORT_FN(ORT_SET_INTER_OP_NUM_THREADS);
  *(void **)&create_session = ORT_FN(ORT_CREATE_SESSION_FROM_ARRAY);
  *(void **)&release_options = ORT_FN(ORT_RELEASE_SESSION_OPTIONS);
  if (model == NULL || x == NULL) {
    snprintf(why, why_cap, "out of memory");
    goto done;
  }
  if (ort_fail(create_options(&opt), "CreateSessionOptions", why, why_cap) != 0 ||
      ort_fail(intra(opt, args->threads), "SetIntraOpNumThreads", why, why_cap) != 0 ||
      ort_fail(inter(opt, 1), "SetInterOpNumThreads", why, why_cap) != 0 ||
      ort_fail(create_session(ort.env, model, len, opt, &x->session), "CreateSessionFromArray", why,
               why_cap) != 0 ||
      ort_tensor(&x->a, (void *)(uintptr_t)args->a, args->m, args->k, why, why_cap) != 0 ||
      ort_tensor(&x->y, args->c, args->m, args->n, why, why_cap) != 0)
    goto done;
  *plan = x;
  x = NULL;
  rc = 0;
done:
  if (opt != NULL)
    release_options(opt);
  ort_free(x);
  free(model);
  return rc;
}

static void ort_run(void *plan) {
  ort_plan *x = plan;
  static const char *const in_names[1] = {"A"}, *const out_names[1] = {"Y"};
  const OrtValue *in[1] = {x->a};
  OrtStatus *st = ort.run(x->session, NULL, in_names, in, 1, out_names, 1, &x->y);
  if (st != NULL) /* the output check before timing reports the failure */
    ort.release_status(st);
}

const bench_peer_adapter bench_peer_ort = {"ONNX Runtime", "ort",   ort_open,
                                           ort_plan_make,  ort_run, ort_free};
