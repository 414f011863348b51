/*
 * tests/host/test_runtime_execute.c - olc_selection_execute and
 * olc_selection_matmul_f32 through mock_det's execute: MatMul against a
 * plain reference on ragged shapes, wide leading dimensions, m or n = 1,
 * alpha/beta cases (beta 0 overwrites NaN in C); every tensor check the
 * host makes before the plugin sees anything (C untouched); what the
 * plugin refuses; a plugin built for ABI 1.0 and one without execute
 * (they load and calibrate, execute says it cannot); nothing is written;
 * an output overlapping an input refused for every plugin; views (rank 0,
 * stride 0, transposed) handed only to a plugin that takes them.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_util.h"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_execute");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* The on_miss selection of a small MatMul of backend in scenario. */
static const olc_selection *selection(rt_host *h, const char *scenario, const char *backend,
                                      const char *file) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_workload rw;
  const olc_selection *s = NULL;
  olc_error err;
  rt_open(h, tmp, scenario, file, NULL);
  rt_matmul(&rw, backend, 4, 4, 4);
  OLC_ASSERT_OK(olc_host_select(&s, h->s.host, &rw.w, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  return s;
}

typedef struct shape {
  int64_t m, n, k, pad; /* leading dimensions are width + pad */
  float alpha, beta;
} shape;

static void check_shape(const olc_selection *s, const shape *sh) {
  int64_t lda = sh->k + sh->pad, ldb = sh->n + sh->pad, ldc = sh->n + sh->pad, i;
  size_t na = (size_t)(sh->m * lda), nb = (size_t)(sh->k * ldb), nc = (size_t)(sh->m * ldc);
  float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
  float *c = malloc(nc * sizeof *c), *want = malloc(nc * sizeof *want);
  olc_error err;
  CU_ASSERT_FATAL(a != NULL && b != NULL && c != NULL && want != NULL);
  rt_fill(a, na, 1);
  rt_fill(b, nb, 2);
  rt_fill(c, nc, 3);
  if (sh->beta == 0.0f)
    for (i = 0; i < (int64_t)nc; i++)
      c[i] = NAN; /* never read */
  /* want keeps the padding past each row as it is: so must execute. */
  memcpy(want, c, nc * sizeof *c);
  rt_reference(sh->m, sh->n, sh->k, sh->alpha, a, lda, b, ldb, sh->beta, want, ldc);
  OLC_ASSERT_OK(olc_selection_matmul_f32(s, sh->m, sh->n, sh->k, sh->alpha, a, lda, b, ldb,
                                         sh->beta, c, ldc, &err),
                &err);
  for (i = 0; i < (int64_t)nc; i++)
    if (!(c[i] == want[i] || (isnan(c[i]) && isnan(want[i])))) {
      fprintf(stderr, "\n  %lldx%lldx%lld pad %lld: c[%lld] = %g, want %g\n", (long long)sh->m,
              (long long)sh->n, (long long)sh->k, (long long)sh->pad, (long long)i, c[i], want[i]);
      CU_FAIL("execute differs from the reference");
      break;
    }
  free(a);
  free(b);
  free(c);
  free(want);
}

static void test_matmul(void) {
  static const shape shapes[] = {{4, 4, 4, 0, 1, 0}, {1, 7, 3, 0, 1, 0},    {9, 1, 5, 2, 1, 0},
                                 {5, 6, 1, 3, 2, 1}, {13, 11, 7, 5, 1, 1},  {3, 17, 9, 1, -1, 0.5f},
                                 {6, 6, 6, 0, 0, 1}, {2, 3, 4, 7, 0.5f, -2}};
  rt_host h;
  const olc_selection *s = selection(&h, NULL, NULL, "matmul.txt");
  size_t i, before = rt_records(&h);
  for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    check_shape(s, &shapes[i]);
  CU_ASSERT_EQUAL(rt_records(&h), before); /* execute writes nothing */
  rt_close(&h);
}

/* A 2 x 2 matrix description. */
static olc_tensor t2(void *data, int64_t rows, int64_t cols, int64_t ld) {
  olc_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = OLC_DTYPE_FLOAT32;
  t.rank = 2;
  t.dims[0] = rows;
  t.dims[1] = cols;
  t.strides[0] = ld;
  t.strides[1] = 1;
  t.data = data;
  return t;
}

typedef struct bad_case {
  int which; /* 0: A, 1: B, 2: C */
  int what;  /* what to break */
  olc_status status;
  const char *needle;
} bad_case;

enum {
  NULL_DATA,
  RANK0,
  RANK9,
  DIM0,
  STRIDE0,
  LD_SMALL,
  OVERFLOW,
  DTYPE,
  TRANSPOSED,
  RANK3,
  MISFIT,
  FLOAT64,
  NEG_STRIDE,
  BYTES_OVERFLOW,
  ADDRESS_END,
  OUT_REPEATS,
  BROADCAST_ROW
};

static void breakit(olc_tensor *t, int what) {
  switch (what) {
  case NULL_DATA:
    t->data = NULL;
    break;
  case RANK0:
    t->rank = 0;
    break;
  case RANK9:
    t->rank = 9;
    break;
  case DIM0:
    t->dims[0] = 0;
    break;
  case STRIDE0:
    t->strides[1] = 0;
    break;
  case LD_SMALL:
    t->strides[0] = 1;
    break;
  case OVERFLOW:
    t->dims[0] = INT64_MAX / 2;
    t->strides[0] = 4;
    break;
  case DTYPE:
    t->dtype = 99;
    break;
  case TRANSPOSED:
    t->strides[0] = 1;
    t->strides[1] = 2;
    break;
  case RANK3:
    t->rank = 3;
    t->dims[2] = 1;
    t->strides[2] = 1;
    t->strides[1] = 1;
    t->strides[0] = 2;
    break;
  case MISFIT:
    t->dims[1] = 1;
    break;
  case FLOAT64:
    t->dtype = OLC_DTYPE_FLOAT64;
    break;
  case NEG_STRIDE:
    t->strides[1] = -1;
    break;
  case BYTES_OVERFLOW: /* the extent fits int64, its bytes do not */
    t->dims[0] = INT64_MAX / 8;
    t->strides[0] = 3;
    break;
  case ADDRESS_END: /* 16 bytes that would wrap around the address space */
    t->data = (void *)(UINTPTR_MAX - 7);
    break;
  case OUT_REPEATS: /* both rows of an output on one */
    t->strides[0] = 0;
    break;
  case BROADCAST_ROW: /* one row read twice: a view */
    t->strides[0] = 0;
    break;
  }
}

static void test_bad_tensors(void) {
  static const bad_case cases[] = {
      {0, NULL_DATA, OLC_E_INVALID, "input 0: data is a null pointer"},
      {1, RANK0, OLC_E_UNSUPPORTED,
       "input 1 is a view (rank 0): plugin mock_det does not take views"},
      {2, RANK9, OLC_E_INVALID, "output 0: rank 9 is not 0 to 8"},
      {0, DIM0, OLC_E_INVALID, "input 0: dimension 0 is 0 (below 1)"},
      {1, STRIDE0, OLC_E_UNSUPPORTED,
       "input 1 is a view (stride 1 is 0): plugin mock_det does not take views"},
      {1, NEG_STRIDE, OLC_E_INVALID, "input 1: stride 1 is -1 (below 0)"},
      {2, LD_SMALL, OLC_E_INVALID, "output 0: leading dimension 1 is smaller than the width 2"},
      {0, OVERFLOW, OLC_E_INVALID, "input 0: its extent overflows int64"},
      {1, BYTES_OVERFLOW, OLC_E_INVALID, "input 1: its size in bytes overflows int64"},
      {2, ADDRESS_END, OLC_E_INVALID, "output 0: its bytes run past the end of the address space"},
      {1, DTYPE, OLC_E_INVALID, "input 1: unknown dtype 99"},
      {1, TRANSPOSED, OLC_E_UNSUPPORTED,
       "input 1 is a view (strides not row-major): plugin mock_det does not take views"},
      {0, BROADCAST_ROW, OLC_E_UNSUPPORTED,
       "input 0 is a view (stride 0 is 0): plugin mock_det does not take views"},
      {2, OUT_REPEATS, OLC_E_INVALID, "output 0: stride 0 is 0 on a dimension of 2"},
      {0, RANK3, OLC_E_UNSUPPORTED, "only rank-2 operands"},
      {2, MISFIT, OLC_E_INVALID, "plugin mock_det: execute: A, B and C do not fit together"},
      {2, FLOAT64, OLC_E_UNSUPPORTED, "only float32 operands"}};
  /* c as large as a float64 C of 2 x 2, so that no case but ADDRESS_END
   * reaches past it into a or b. */
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[8] = {7, 7, 7, 7};
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_tensor in[2], out[1];
  rt_host h;
  const olc_selection *s = selection(&h, NULL, NULL, "bad.txt");
  olc_error err;
  size_t i;
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    olc_tensor *t = cases[i].which < 2 ? &in[cases[i].which] : &out[0];
    in[0] = t2(a, 2, 2, 2);
    in[1] = t2(b, 2, 2, 2);
    out[0] = t2(c, 2, 2, 2);
    breakit(t, cases[i].what);
    CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), cases[i].status);
    if (strstr(err.message, cases[i].needle) == NULL) {
      fprintf(stderr, "\n  case %lu: \"%s\" lacks \"%s\"\n", (unsigned long)i, err.message,
              cases[i].needle);
      CU_FAIL("the message");
    }
    CU_ASSERT(c[0] == 7 && c[1] == 7 && c[2] == 7 && c[3] == 7); /* C untouched */
  }
  args.input_count = OLC_EXECUTE_MAX_OPERANDS + 1;
  CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_INVALID);
  args.input_count = 2;
  args.version = 0;
  CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_selection_execute(NULL, &args, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, 2, 2, 0, 1, a, 2, b, 2, 0, c, 2, &err),
                  OLC_E_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, "k is 0 (below 1)");
  CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, 2, 2, 2, 1, a, 1, b, 2, 0, c, 2, &err),
                  OLC_E_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, "lda 1 is smaller than k 2");
  CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, 2, 2, 2, 1, a, 2, NULL, 2, 0, c, 2, &err),
                  OLC_E_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, "b is a null pointer");
  CU_ASSERT(c[0] == 7 && c[3] == 7);
  rt_close(&h);
}

/* An output whose bytes overlap an input's is refused for every plugin,
 * before the plugin sees it (mock_det does not check: it would compute in
 * place). */
static void expect_overlap_refused(const olc_selection *s) {
  float buf[16], c0[16];
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_tensor in[2], out[1];
  olc_error err;
  int i;
  for (i = 0; i < 16; i++)
    buf[i] = c0[i] = (float)i;
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  for (i = 0; i < 3; i++) {
    in[0] = t2(buf, 2, 2, 2);     /* buf[0..4) */
    in[1] = t2(buf + 8, 2, 2, 2); /* buf[8..12) */
    /* C over A's tail, over B's head, and C = A (in place). */
    out[0] = t2(i == 0 ? buf + 2 : i == 1 ? buf + 6 : buf, 2, 2, 2);
    CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_UNSUPPORTED);
    if (strstr(err.message, i == 1 ? "output 0 overlaps input 1" : "output 0 overlaps input 0") ==
        NULL) {
      fprintf(stderr, "\n  overlap %d: \"%s\"\n", i, err.message);
      CU_FAIL("the overlap message");
    }
  }
  CU_ASSERT(memcmp(buf, c0, sizeof buf) == 0); /* nothing written */
  /* Adjacent is not overlapping: C right after A. */
  in[0] = t2(buf, 2, 2, 2);
  in[1] = t2(buf + 8, 2, 2, 2);
  out[0] = t2(buf + 4, 2, 2, 2);
  OLC_ASSERT_OK(olc_selection_execute(s, &args, &err), &err);
}

static void test_overlap(void) {
  rt_host h;
  expect_overlap_refused(selection(&h, NULL, NULL, "overlap.txt"));
  rt_close(&h);
  expect_overlap_refused(selection(&h, "views", "mock_views", "overlap_views.txt"));
  rt_close(&h);
}

/* C = A * B on views: A and B as described, against the reference on
 * their row-major copies. */
static void check_views(const olc_selection *s, const olc_tensor *A, const olc_tensor *B) {
  float a[16], b[16], c[16], want[16];
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_tensor in[2], out[1];
  olc_error err;
  int64_t i, j, m = A->dims[0], k = A->dims[1], n = B->dims[1];
  for (i = 0; i < m; i++)
    for (j = 0; j < k; j++)
      a[i * k + j] = ((const float *)A->data)[i * A->strides[0] + j * A->strides[1]];
  for (i = 0; i < k; i++)
    for (j = 0; j < n; j++)
      b[i * n + j] = ((const float *)B->data)[i * B->strides[0] + j * B->strides[1]];
  memset(want, 0, sizeof want);
  rt_reference(m, n, k, 1, a, k, b, n, 0, want, n);
  memset(c, 0, sizeof c);
  in[0] = *A;
  in[1] = *B;
  out[0] = t2(c, m, n, n);
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  OLC_ASSERT_OK(olc_selection_execute(s, &args, &err), &err);
  CU_ASSERT(memcmp(c, want, (size_t)(m * n) * sizeof(float)) == 0);
}

/* A plugin that takes views (ABI 1.3, OLC_PLUGIN_FEATURE_VIEWS) is handed
 * them as described: a transposed operand, a broadcast row (stride 0),
 * rank 0; a plugin built against the 1.2 header is never handed one, even
 * with the feature's bit set past the end of its table. */
static void test_views(void) {
  float x[16], y[16];
  olc_tensor at, bt, row, scalar;
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_tensor in[2], out[1];
  float c[16];
  rt_host h;
  const olc_selection *s = selection(&h, "views", "mock_views", "views.txt");
  olc_error err;
  rt_fill(x, 16, 5);
  rt_fill(y, 16, 6);
  at = t2(x, 3, 2, 1); /* A' (3 x 2) of a row-major 2 x 3: strides {1, 3} */
  at.strides[1] = 3;
  bt = t2(y, 2, 4, 1); /* B' (2 x 4) of a row-major 4 x 2: strides {1, 2} */
  bt.strides[1] = 2;
  check_views(s, &at, &bt);
  row = t2(x, 3, 2, 0); /* one row of 2 for each of 3 rows */
  check_views(s, &row, &bt);
  /* Rank 0 reaches the plugin, which says what it got. */
  memset(&scalar, 0, sizeof scalar);
  scalar.dtype = OLC_DTYPE_FLOAT32;
  scalar.data = y;
  in[0] = at;
  in[1] = scalar;
  out[0] = t2(c, 3, 1, 1);
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "rank 0 reached the plugin"));
  rt_close(&h);
  /* The 1.2 table: the host refuses, the plugin never sees it. */
  s = selection(&h, "abi_1_2", "mock_v12", "views12.txt");
  in[0] = at;
  in[1] = bt;
  out[0] = t2(c, 3, 4, 4);
  CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_UNSUPPORTED);
  CU_ASSERT_STRING_EQUAL(err.message,
                         "input 0 is a view (strides not row-major): plugin mock_v12 does not take "
                         "views");
  in[1] = scalar;
  CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_UNSUPPORTED);
  in[0] = t2(x, 3, 2, 2);
  CU_ASSERT_EQUAL(olc_selection_execute(s, &args, &err), OLC_E_UNSUPPORTED);
  CU_ASSERT_STRING_EQUAL(err.message,
                         "input 1 is a view (rank 0): plugin mock_v12 does not take views");
  rt_close(&h);
}

/* A plugin of ABI 1.0 and one without execute load, calibrate and select;
 * execute says why it cannot.  A failing execute gives the plugin's
 * message. */
static void test_cannot_execute(void) {
  static const char *const scenario[2] = {"abi_1_0", "no_execute"};
  static const char *const backend[2] = {"mock_v10", "mock_noexec"};
  static const char *const needle[2] = {
      "plugin 'mock_v10' was built for plugin ABI 1.0 and cannot execute",
      "plugin 'mock_noexec' does not implement execute and cannot execute"};
  float a[1] = {1}, b[1] = {2}, c[1] = {3};
  rt_host h;
  olc_error err;
  int i;
  for (i = 0; i < 2; i++) {
    const olc_selection *s = selection(&h, scenario[i], backend[i], "cannot.txt");
    CU_ASSERT_FALSE(olc_selection_can_execute(s));
    CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, 1, 1, 1, 1, a, 1, b, 1, 0, c, 1, &err),
                    OLC_E_UNSUPPORTED);
    CU_ASSERT_STRING_EQUAL(err.message, needle[i]);
    CU_ASSERT(c[0] == 3);
    rt_close(&h);
  }
  rt_open(&h, tmp, NULL, "fails.txt", "[plugin.mock_det]\nexecute = fail\n");
  {
    rt_workload rw;
    const olc_selection *s;
    rt_matmul(&rw, NULL, 1, 1, 1);
    CU_ASSERT_EQUAL(olc_host_select(&s, h.s.host, &rw.w, NULL, &err), OLC_FIRST_CANDIDATE);
    CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, 1, 1, 1, 1, a, 1, b, 1, 0, c, 1, &err),
                    OLC_E_PLUGIN);
    CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_det: execute failed on purpose");
    CU_ASSERT_EQUAL(err.backend_code, -1);
  }
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_execute", setup, teardown);
  CU_add_test(s, "matmul against the reference", test_matmul);
  CU_add_test(s, "bad tensors, refused variants", test_bad_tensors);
  CU_add_test(s, "abi 1.0, no execute, a failing execute", test_cannot_execute);
  CU_add_test(s, "an output overlapping an input, every plugin", test_overlap);
  CU_add_test(s, "views: passed to a plugin that takes them, else refused", test_views);
  return olc_test_run(argc, argv);
}
