/* tests/host/runtime_util.c - see runtime_util.h. */
#include "runtime_util.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

static void open_as(rt_host *h, const char *dir, const char *scenario, const char *store,
                    const char *extra, int read_env) {
  char text[4096];
  int n =
      snprintf(text, sizeof text,
               "[host]\nplugin_dirs = %s/%s\nthreads = 2\n"
               "[store]\npath = %s\n"
               "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
               "%s%s",
               OLC_MOCK_PLUGIN_ROOT, scenario != NULL ? scenario : "good",
               store != NULL ? store : "profiles.txt",
               extra != NULL && strncmp(extra, "isolation", 9) == 0 ? "" : "isolation = false\n",
               extra != NULL ? extra : "");
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  if (read_env)
    olc_test_session_open_env(&h->s, dir, text, (size_t)n);
  else
    olc_test_session_open(&h->s, dir, text, (size_t)n);
}

void rt_open(rt_host *h, const char *dir, const char *scenario, const char *store,
             const char *extra) {
  open_as(h, dir, scenario, store, extra, 0);
}

void rt_open_env(rt_host *h, const char *dir, const char *scenario, const char *store,
                 const char *extra) {
  open_as(h, dir, scenario, store, extra, 1);
}

void rt_close(rt_host *h) { olc_test_session_close(&h->s); }

void rt_matmul(rt_workload *rw, const char *backend, long m, long n, long k) {
  olc_workload init = OLC_WORKLOAD_INIT;
  memset(rw, 0, sizeof *rw);
  rw->w = init;
  snprintf(rw->m, sizeof rw->m, "%ld", m);
  snprintf(rw->n, sizeof rw->n, "%ld", n);
  snprintf(rw->k, sizeof rw->k, "%ld", k);
  rw->props[0].name = "dtype";
  rw->props[0].value = "float32";
  rw->props[1].name = "m";
  rw->props[1].value = rw->m;
  rw->props[2].name = "n";
  rw->props[2].value = rw->n;
  rw->props[3].name = "k";
  rw->props[3].value = rw->k;
  rw->w.backend = backend != NULL ? backend : "mock_det";
  rw->w.operator_name = "MatMul";
  rw->w.properties = rw->props;
  rw->w.property_count = 4;
}

olc_binding *rt_bind(rt_host *h, const rt_workload *rw) {
  olc_binding *b = NULL;
  olc_error err;
  OLC_ASSERT_OK(olc_host_bind(&b, h->s.host, &rw->w, &err), &err);
  return b;
}

olc_select_options rt_mode(int mode) {
  olc_select_options o = OLC_SELECT_OPTIONS_INIT;
  o.mode = mode;
  return o;
}

uint64_t rt_measurements(rt_host *h) {
  olc_host_stats st;
  olc_host__stats(&st, h->s.host);
  return st.measurements;
}

size_t rt_records(rt_host *h) {
  olc_record_list *list = NULL;
  olc_error err;
  size_t n;
  OLC_ASSERT_OK(olc_store_list(&list, h->s.store, &err), &err);
  n = olc_record_list_count(list);
  olc_record_list_free(list);
  return n;
}

const char *rt_policy(const olc_selection *s, char *buf, size_t size) {
  size_t len = 0;
  const unsigned char *p = olc_selection_policy(s, &len);
  snprintf(buf, size, "%.*s", p != NULL ? (int)len : 0, p != NULL ? (const char *)p : "");
  return buf;
}

void rt_reference(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                  const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  int64_t i, j, p;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      double acc = 0;
      for (p = 0; p < k; p++)
        acc += (double)a[i * lda + p] * (double)b[p * ldb + j];
      c[i * ldc + j] =
          (float)((double)alpha * acc + (beta != 0.0f ? (double)beta * (double)c[i * ldc + j] : 0));
    }
}

void rt_fill(float *x, size_t count, unsigned seed) {
  size_t i;
  unsigned v = seed * 2654435761u + 1u;
  for (i = 0; i < count; i++) {
    v = v * 1103515245u + 12345u;
    x[i] = (float)((int)((v >> 16) % 9u) - 4);
  }
}
