/*
 * test_peers.c - what bench_gemm's figures rest on, without timing: the
 * rounds' orders are balanced Latin squares; the output check accepts a
 * correct product and rejects a wrong one; --peers parses; every loaded
 * peer computes the product (each one absent is skipped, so the test needs
 * none of them).  Exit 0, or 1 with a line per failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "peers.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* Over a cycle: each row a permutation, each contestant in each position
 * equally often, each ordered pair adjacent equally often. */
static void test_square(void) {
  for (int n = 2; n <= BENCH_PEER_COUNT + 2; n++) {
    const int rows = bench_square_rows(n);
    int pos[12][12], adj[12][12];
    memset(pos, 0, sizeof pos);
    memset(adj, 0, sizeof adj);
    for (int r = 0; r < rows; r++) {
      int seen[12] = {0};
      for (int c = 0; c < n; c++) {
        int who = bench_square_at(n, r, c);
        CHECK(who >= 0 && who < n, "n %d row %d col %d: %d", n, r, c, who);
        if (who < 0 || who >= n)
          return;
        seen[who]++, pos[who][c]++;
        if (c > 0)
          adj[bench_square_at(n, r, c - 1)][who]++;
      }
      for (int w = 0; w < n; w++)
        CHECK(seen[w] == 1, "n %d row %d: contestant %d %d times", n, r, w, seen[w]);
    }
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++) {
        CHECK(pos[a][b] == rows / n, "n %d: %d at position %d %d times", n, a, b, pos[a][b]);
        if (a != b)
          CHECK(adj[a][b] == adj[0][1], "n %d: %d right after %d %d times, 1 after 0 %d", n, b, a,
                adj[a][b], adj[0][1]);
      }
    CHECK(bench_rounds(1, n) == rows && bench_rounds(rows + 1, n) == 2 * rows,
          "n %d: rounds not whole cycles", n);
  }
}

static void product(const bench_peer_args *x, float *c) {
  for (int64_t i = 0; i < x->m; i++)
    for (int64_t j = 0; j < x->n; j++) {
      double s = 0;
      for (int64_t l = 0; l < x->k; l++)
        s += (double)x->a[i * x->k + l] * x->b[l * x->n + j];
      c[i * x->n + j] = (float)s;
    }
}

static void fill(float *v, size_t count, unsigned seed) {
  for (size_t i = 0; i < count; i++)
    v[i] = (float)((i * 7919u + seed) % 2001u) * 1e-3f - 1.0f;
}

static void test_check(void) {
  enum { M = 13, N = 17, K = 19 };
  float a[M * K], b[K * N], c[M * N];
  const bench_peer_args x = {M, N, K, a, b, c, 1};
  fill(a, M * K, 1), fill(b, K * N, 2);
  product(&x, c);
  CHECK(bench_peer_check(&x, c) <= 1.0, "a correct product rejected (%g)", bench_peer_check(&x, c));
  c[5 * N + 3] += 1e-2f;
  CHECK(bench_peer_check(&x, c) > 1.0, "one wrong element accepted");
  c[5 * N + 3] = NAN;
  CHECK(isnan(bench_peer_check(&x, c)), "a NaN accepted");
}

static void test_select(void) {
  int sel[BENCH_PEER_COUNT];
  char why[512];
  CHECK(bench_peers_select(sel, "openblas,ort", why, sizeof why) == 0 && sel[BENCH_PEER_OPENBLAS] &&
            sel[BENCH_PEER_ORT] && !sel[BENCH_PEER_BLIS],
        "openblas,ort");
  CHECK(bench_peers_select(sel, "all", why, sizeof why) == 0 && sel[BENCH_PEER_EIGEN], "all");
  CHECK(bench_peers_select(sel, "openblas,mkl", why, sizeof why) != 0 &&
            strstr(why, "unknown peer 'mkl'") != NULL,
        "mkl accepted (%s)", why);
}

/* Every loaded peer on a few shapes (one is 1 x n: the gemv paths). */
static void test_peers(void) {
  static const int64_t shapes[][3] = {{1, 1, 1}, {7, 33, 19}, {1, 96, 40}, {40, 1, 24}};
  bench_peers peers;
  char line[4096];
  bench_peers_open(&peers, NULL);
  bench_peers_describe(&peers, line, sizeof line);
  printf("%s\n", line);
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    float *a = malloc((size_t)(m * k) * sizeof(float)),
          *b = malloc((size_t)(k * n) * sizeof(float));
    float *c = malloc((size_t)(m * n) * sizeof(float));
    const bench_peer_args x = {m, n, k, a, b, c, 1};
    if (a == NULL || b == NULL || c == NULL)
      abort();
    fill(a, (size_t)(m * k), 3), fill(b, (size_t)(k * n), 4);
    for (int p = 0; p < BENCH_PEER_COUNT; p++) {
      bench_peer_plan plan;
      char why[256];
      if (!peers.have[p])
        continue;
      if (bench_peer_plan_make(&plan, &peers, p, &x, why, sizeof why) != 0) {
        CHECK(0, "%s: no plan for %ldx%ldx%ld: %s", bench_peer_name(p), (long)m, (long)n, (long)k,
              why);
        continue;
      }
      for (int64_t i = 0; i < m * n; i++)
        c[i] = NAN;
      bench_peer_plan_run(&plan);
      CHECK(bench_peer_check(&x, c) <= 1.0, "%s: %ldx%ldx%ld off the product (%g)",
            bench_peer_name(p), (long)m, (long)n, (long)k, bench_peer_check(&x, c));
      bench_peer_plan_free(&plan);
    }
    free(a), free(b), free(c);
  }
  bench_peers_close(&peers);
}

int main(void) {
  test_square();
  test_check();
  test_select();
  test_peers();
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
