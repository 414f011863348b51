/*
 * tests/host/test_runtime_threads.c - one host used by 8 threads at
 * once: each selects (on_miss, no time limit) and executes, over 24
 * workload descriptions that mock_det (bucket = m) maps to 10 keys, through
 * its own bindings and through olc_host_select's cache, in an order of its
 * own.  Every key is measured exactly once, each execute matches the
 * reference, and every thread ends with the same policy per workload.
 * ThreadSanitizer runs it (tests/sanitize/tsan.sh).
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "runtime_util.h"

#define THREADS 8
#define WORKLOADS 24
#define ROUNDS 30
#define N 4
#define K 4

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_threads");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* m of workload i: 1..8 exact, then 8 sizes in 17-32 and 8 in 33-64. */
static long m_of(int i) { return i < 8 ? i + 1 : i < 16 ? 17 + 2 * (i - 8) : 33 + 4 * (i - 16); }

typedef struct shared {
  olc_host *host;
  rt_workload rw[WORKLOADS];
  atomic_int failures;
  char last[THREADS][WORKLOADS][32]; /* each thread's last policy per workload */
} shared;

typedef struct worker {
  shared *sh;
  int id;
  olc_binding *b[WORKLOADS];
  pthread_t t;
} worker;

static void fail(shared *sh, const char *what, int i, olc_status st) {
  fprintf(stderr, "\n  workload %d: %s (%s)\n", i, what, olc_status_name(st));
  atomic_fetch_add(&sh->failures, 1);
}

/* One select and one execute of workload i, checked. */
static void one(worker *w, int i, int round) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  shared *sh = w->sh;
  /* Every thread waits for the key's measurement (not the nearest
   * measured workload's policy meanwhile): each gets its record. */
  on_miss.wait = 1;
  long m = m_of(i);
  float a[64 * K], b[K * N], c[64 * N], want[64 * N];
  const olc_selection *s = NULL;
  olc_status st;
  if ((round + w->id) % 2 == 0)
    st = olc_binding_select(&s, w->b[i], &on_miss, NULL);
  else
    st = olc_host_select(&s, sh->host, &sh->rw[i].w, &on_miss, NULL);
  if (st != OLC_OK || s == NULL) {
    fail(sh, "select", i, st);
    return;
  }
  rt_fill(a, (size_t)(m * K), (unsigned)(i + round));
  rt_fill(b, K * N, (unsigned)w->id);
  rt_fill(c, (size_t)(m * N), 7);
  memcpy(want, c, sizeof(float) * (size_t)(m * N));
  rt_reference(m, N, K, 1.0f, a, K, b, N, 1.0f, want, N);
  st = olc_selection_matmul_f32(s, m, N, K, 1.0f, a, K, b, N, 1.0f, c, N, NULL);
  if (st != OLC_OK || memcmp(c, want, sizeof(float) * (size_t)(m * N)) != 0)
    fail(sh, "execute", i, st);
  rt_policy(s, sh->last[w->id][i], sizeof sh->last[w->id][i]);
}

static void *run(void *p) {
  worker *w = p;
  int r, j;
  for (r = 0; r < ROUNDS; r++)
    for (j = 0; j < WORKLOADS; j++)
      one(w, (j * 7 + w->id * 5 + r) % WORKLOADS, r);
  return NULL;
}

static void test_threads(void) {
  static shared sh;
  static worker w[THREADS];
  olc_host_stats st;
  rt_host h;
  olc_error err;
  int i, t;
  memset(&sh, 0, sizeof sh);
  rt_open(&h, tmp, NULL, "threads.txt", "[plugin.mock_det]\ncandidates = 3,1,2\nbucket = m\n");
  sh.host = h.s.host;
  for (i = 0; i < WORKLOADS; i++)
    rt_matmul(&sh.rw[i], NULL, m_of(i), N, K);
  for (t = 0; t < THREADS; t++) {
    w[t].sh = &sh;
    w[t].id = t;
    for (i = 0; i < WORKLOADS; i++)
      OLC_ASSERT_OK(olc_host_bind(&w[t].b[i], h.s.host, &sh.rw[i].w, &err), &err);
  }
  for (t = 0; t < THREADS; t++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&w[t].t, NULL, run, &w[t]), 0);
  for (t = 0; t < THREADS; t++)
    pthread_join(w[t].t, NULL);
  CU_ASSERT_EQUAL(atomic_load(&sh.failures), 0);
  olc_host__stats(&st, h.s.host);
  CU_ASSERT_EQUAL(st.slots, 10);
  CU_ASSERT_EQUAL(st.measurements, 10); /* each key once */
  CU_ASSERT_EQUAL(st.bindings, WORKLOADS);
  CU_ASSERT_EQUAL(rt_records(&h), 20);
  for (i = 0; i < WORKLOADS; i++)
    for (t = 1; t < THREADS; t++)
      CU_ASSERT_STRING_EQUAL(sh.last[t][i], sh.last[0][i]);
  for (t = 0; t < THREADS; t++)
    for (i = 0; i < WORKLOADS; i++)
      olc_binding_free(w[t].b[i]);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_threads", setup, teardown);
  CU_add_test(s, "8 threads select and execute", test_threads);
  return olc_test_run(argc, argv);
}
