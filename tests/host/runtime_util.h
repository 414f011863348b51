/*
 * tests/host/runtime_util.h - what the runtime tests share: a host over
 * the mock plugins and a store file in a fresh directory, workloads
 * described in code, and a plain MatMul reference.
 */
#ifndef OLC_TEST_RUNTIME_UTIL_H
#define OLC_TEST_RUNTIME_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

/* A host over the plugins of scenario (a directory under
 * OLC_MOCK_PLUGIN_ROOT; NULL: good) with the store file store in dir:
 * fast measuring settings, in-process unless extra begins with
 * "isolation", and extra ini text appended to [calibration] (NULL: none). */
typedef struct rt_host {
  olc_test_session s;
} rt_host;

void rt_open(rt_host *h, const char *dir, const char *scenario, const char *store,
             const char *extra);
/* The same with a host that reads the environment (OLC_WORKER). */
void rt_open_env(rt_host *h, const char *dir, const char *scenario, const char *store,
                 const char *extra);
void rt_close(rt_host *h);

/* A MatMul workload of mock_det (dtype float32, m, n, k). */
typedef struct rt_workload {
  olc_workload w;
  olc_property props[4];
  char m[24], n[24], k[24];
} rt_workload;

void rt_matmul(rt_workload *rw, const char *backend, long m, long n, long k);

/* Binds rw (asserting OLC_OK). */
olc_binding *rt_bind(rt_host *h, const rt_workload *rw);

/* A select options struct in mode m. */
olc_select_options rt_mode(int mode);

/* Keys measured by the host so far. */
uint64_t rt_measurements(rt_host *h);
/* Records in the store. */
size_t rt_records(rt_host *h);

/* The policy of s as text ("spin_us=100"); "" for NULL. */
const char *rt_policy(const olc_selection *s, char *buf, size_t size);

/* C = alpha * A * B + beta * C plainly (row-major, leading dimensions). */
void rt_reference(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                  const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
/* A deterministic fill: small integers, exact in fp32 sums. */
void rt_fill(float *x, size_t count, unsigned seed);

#endif
