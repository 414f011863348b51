/*
 * test_example_gpu_onnx.c - example_gpu serving ONNX's MatMul and Gemm as
 * runtimes describe them (ABI 1.3 views), on the machine's OpenCL device,
 * loaded with dlopen through the stub host:
 * - Gemm with each transpose combination (a transposed operand as a view,
 *   strides {1, ld}) and each kind of bias C (none, rank 0, rank 1, a
 *   column, the matrix, broadcasts as stride-0 views), alpha and beta;
 * - batched MatMul with numpy broadcasting of the leading dimensions,
 *   rank-1 operands, a stride-0 batch and a transposed batch of B;
 * every result against a double-precision reference computed here from
 * the tensor descriptions (numpy's rules written out again), padding
 * outside each view holding NaN so that a stray read poisons the result;
 * - the key: each layout property (trans_a, trans_b, batch_a, batch_b,
 *   bias) changes the structure, a property at its default is left out of
 *   it and declared through use_property, unknown properties, float16 and
 *   bfloat16 are refused;
 * - prepare and run in each layout (transposed operands, batches, bias).
 * Exits 77 when no device exists.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "egpu.h"
#include "egpu_harness.h"
#include "test_support.h"

#define Y_SENTINEL (-777.0f)
#define N_POLICIES 3

static void *g_handle;
static const olc_plugin *g_table;
static egpu_instance *g_inst;
/* The first, a middle and the last (simplest) candidate of a workload. */
static void *g_policies[N_POLICIES];

/* ---- workloads --------------------------------------------------------- */

#define WL_MAX_PROPS 14
typedef struct wl {
  olc_plugin_workload w;
  olc_plugin_kv props[WL_MAX_PROPS];
  char dims[3][16];
} wl;

static void wl_set(wl *x, const char *key, const char *value) {
  CU_ASSERT_FATAL(x->w.property_count < WL_MAX_PROPS);
  x->props[x->w.property_count].key = key;
  x->props[x->w.property_count].value = value;
  x->w.property_count++;
}

static void wl_make(wl *x, const char *op, unsigned m, unsigned n, unsigned k) {
  memset(x, 0, sizeof *x);
  x->w.struct_size = sizeof x->w;
  x->w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  x->w.name = "onnx";
  x->w.operator_name = op;
  x->w.properties = x->props;
  snprintf(x->dims[0], sizeof x->dims[0], "%u", m);
  snprintf(x->dims[1], sizeof x->dims[1], "%u", n);
  snprintf(x->dims[2], sizeof x->dims[2], "%u", k);
  wl_set(x, "dtype", "float32");
  wl_set(x, "m", x->dims[0]);
  wl_set(x, "n", x->dims[1]);
  wl_set(x, "k", x->dims[2]);
}

/* ---- tensors ----------------------------------------------------------- */

static uint32_t next_random(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return *seed >> 8;
}

static float random_value(uint32_t *seed) { return (float)next_random(seed) / 8388608.0f - 1.0f; }

/* A buffer of n floats, NaN everywhere: the views below fill what they cover. */
static float *nan_buffer(size_t n) {
  float *x = malloc((n > 0 ? n : 1) * sizeof(float));
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  for (i = 0; i < n; i++)
    x[i] = NAN;
  return x;
}

static olc_plugin_tensor tensor(float *data, uint32_t rank, const int64_t *dims,
                                const int64_t *strides) {
  olc_plugin_tensor t;
  uint32_t i;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.abi_minor = OLC_PLUGIN_ABI_MINOR;
  t.dtype = OLC_PLUGIN_DTYPE_FLOAT32;
  t.rank = rank;
  for (i = 0; i < rank; i++)
    t.dims[i] = dims[i], t.strides[i] = strides[i];
  t.data = data;
  return t;
}

/* Elements the view covers (the last one's index + 1). */
static size_t tensor_extent(const olc_plugin_tensor *t) {
  size_t e = 1;
  uint32_t i;
  for (i = 0; i < t->rank; i++)
    e += (size_t)(t->dims[i] - 1) * (size_t)t->strides[i];
  return e;
}

/* The element at a multi-index of the view. */
static float *at(const olc_plugin_tensor *t, const int64_t *index) {
  size_t off = 0;
  uint32_t i;
  for (i = 0; i < t->rank; i++)
    off += (size_t)index[i] * (size_t)t->strides[i];
  return (float *)t->data + off;
}

/* Fills every element the view reaches with random values (repeats of a
 * broadcast element get the last value written: the same memory). */
static void fill_view(const olc_plugin_tensor *t, uint32_t seed) {
  int64_t index[OLC_PLUGIN_MAX_RANK] = {0};
  uint32_t i;
  if (t->rank == 0) {
    *(float *)t->data = random_value(&seed);
    return;
  }
  for (;;) {
    *at(t, index) = random_value(&seed);
    for (i = t->rank; i-- > 0;) {
      if (++index[i] < t->dims[i])
        break;
      index[i] = 0;
    }
    if (i == UINT32_MAX)
      return;
  }
}

/* Row-major strides over dims, with the last dimension padded by pad. */
static void contiguous(uint32_t rank, const int64_t *dims, int64_t pad, int64_t *strides) {
  int64_t s = 1;
  uint32_t i;
  for (i = rank; i-- > 0;) {
    strides[i] = s;
    s *= dims[i] + (i + 1 == rank ? pad : 0);
  }
}

/* |got - ref| within a bound scaled by the magnitudes summed. */
static int close_enough(double got, double ref, double mag) {
  return fabs(got - ref) <= 1e-5 * mag + 1e-6;
}

/* ---- Gemm -------------------------------------------------------------- */

enum { B_NONE, B_SCALAR, B_ROW, B_ONE, B_COL, B_MATRIX, B_ROW_VIEW, B_MATRIX_T, B_KINDS };
static const char *const g_bias_names[B_KINDS] = {"none",
                                                  "rank-0 scalar",
                                                  "row {n}",
                                                  "rank-1 {1}",
                                                  "column {m,1}",
                                                  "matrix {m,n}",
                                                  "row as view {m,n} strides {0,1}",
                                                  "transposed matrix {m,n} strides {1,m}"};

/* The bias C of a kind, over fresh memory. */
static olc_plugin_tensor make_bias(int kind, unsigned m, unsigned n, float **mem, uint32_t seed) {
  int64_t dims[2] = {m, n}, strides[2] = {(int64_t)n + 2, 1};
  uint32_t rank = 2;
  olc_plugin_tensor t;
  switch (kind) {
  case B_SCALAR:
    rank = 0;
    break;
  case B_ROW:
    rank = 1, dims[0] = n, strides[0] = 1;
    break;
  case B_ONE:
    rank = 1, dims[0] = 1, strides[0] = 1;
    break;
  case B_COL:
    dims[1] = 1, strides[0] = 1, strides[1] = 1;
    break;
  case B_ROW_VIEW:
    strides[0] = 0;
    break;
  case B_MATRIX_T:
    strides[0] = 1, strides[1] = m;
    break;
  default:
    break;
  }
  t = tensor(NULL, rank, dims, strides);
  *mem = nan_buffer(tensor_extent(&t));
  t.data = *mem;
  fill_view(&t, seed);
  return t;
}

/* C's value at (i, j) of Y as ONNX broadcasts it (unidirectionally). */
static double bias_at(const olc_plugin_tensor *c, unsigned i, unsigned j) {
  int64_t index[2];
  if (c->rank == 0)
    return *(const float *)c->data;
  if (c->rank == 1) {
    index[0] = c->dims[0] == 1 ? 0 : j;
    return *at(c, index);
  }
  index[0] = c->dims[0] == 1 ? 0 : i;
  index[1] = c->dims[1] == 1 ? 0 : j;
  return *at(c, index);
}

/* Y = alpha A' B' + beta C with A', B' views over padded storage (a
 * transposed operand stored k x m: dims {m, k}, strides {1, m + 3}). */
static long gemm_case(const void *policy, unsigned m, unsigned n, unsigned k, int ta, int tb,
                      int bias, double alpha, double beta, uint32_t seed) {
  int64_t da[2] = {m, k}, sa[2], db[2] = {k, n}, sb[2], dy[2] = {m, n}, sy[2] = {n + 2, 1};
  olc_plugin_tensor in[3], out;
  olc_plugin_exec_args args;
  float *a, *b, *y, *c = NULL;
  long bad = 0;
  unsigned i, j, p;
  wl w;
  int32_t rc;
  if (ta)
    sa[0] = 1, sa[1] = m + 3;
  else
    sa[0] = k + 3, sa[1] = 1;
  if (tb)
    sb[0] = 1, sb[1] = k + 1;
  else
    sb[0] = n + 1, sb[1] = 1;
  in[0] = tensor(NULL, 2, da, sa);
  in[1] = tensor(NULL, 2, db, sb);
  a = nan_buffer(tensor_extent(&in[0]));
  b = nan_buffer(tensor_extent(&in[1]));
  in[0].data = a, in[1].data = b;
  fill_view(&in[0], seed);
  fill_view(&in[1], seed + 1);
  if (bias != B_NONE)
    in[2] = make_bias(bias, m, n, &c, seed + 2);
  /* Y is not read by Gemm: NaN inside, a sentinel in its padding. */
  y = nan_buffer((size_t)m * (n + 2));
  for (i = 0; i < m; i++)
    y[i * (n + 2) + n] = y[i * (n + 2) + n + 1] = Y_SENTINEL;
  out = tensor(y, 2, dy, sy);
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in;
  args.outputs = &out;
  args.input_count = bias != B_NONE ? 3u : 2u;
  args.output_count = 1;
  args.alpha = alpha;
  args.beta = beta;
  wl_make(&w, "Gemm", m, n, k);
  rc = g_table->execute(g_inst, &w.w, policy, &args);
  if (rc != OLC_PLUGIN_OK) {
    fprintf(stderr, "gemm %ux%ux%u ta=%d tb=%d bias %s: %d %s\n", m, n, k, ta, tb,
            g_bias_names[bias], (int)rc, harness_last_error.message);
    bad = -1;
    goto done;
  }
  for (i = 0; i < m; i++)
    for (j = 0; j < n + 2; j++) {
      double got = y[i * (n + 2) + j], ref = 0.0, mag = 0.0;
      if (j >= n) {
        bad += got != Y_SENTINEL;
        continue;
      }
      for (p = 0; p < k; p++) {
        int64_t ia[2] = {i, p}, ib[2] = {p, j};
        double t = (double)*at(&in[0], ia) * (double)*at(&in[1], ib);
        ref += t;
        mag += fabs(t);
      }
      ref *= alpha;
      mag *= fabs(alpha);
      if (bias != B_NONE && beta != 0.0) {
        ref += beta * bias_at(&in[2], i, j);
        mag += fabs(beta * bias_at(&in[2], i, j));
      }
      if (!close_enough(got, ref, mag)) {
        if (bad < 3)
          fprintf(stderr, "gemm ta=%d tb=%d bias %s alpha %g beta %g: Y[%u][%u] = %g, want %g\n",
                  ta, tb, g_bias_names[bias], alpha, beta, i, j, got, ref);
        bad++;
      }
    }
done:
  free(a);
  free(b);
  free(c);
  free(y);
  return bad;
}

/* Each transpose combination with each bias kind, three policies, ragged. */
static void test_gemm_layouts(void) {
  static const double scalars[][2] = {{1.0, 1.0}, {0.5, -2.0}, {-1.5, 0.0}, {2.0, 0.25}};
  int ta, tb, bias, pol;
  long bad = 0;
  for (pol = 0; pol < N_POLICIES; pol++)
    for (ta = 0; ta < 2; ta++)
      for (tb = 0; tb < 2; tb++)
        for (bias = 0; bias < B_KINDS; bias++) {
          const double *ab = scalars[(ta * 2 + tb + bias + pol) % 4];
          long r = gemm_case(g_policies[pol], 37, 29, 19, ta, tb, bias, ab[0], ab[1],
                             (uint32_t)(100 * pol + 10 * (ta * 2 + tb) + bias));
          CU_ASSERT_EQUAL(r, 0);
          bad += r;
        }
  /* Edges: a row, a column, a single element, transposed. */
  CU_ASSERT_EQUAL(gemm_case(g_policies[0], 1, 17, 5, 1, 1, B_ROW, 1.0, 1.0, 7), 0);
  CU_ASSERT_EQUAL(gemm_case(g_policies[0], 17, 1, 5, 1, 0, B_COL, 1.0, 1.0, 8), 0);
  CU_ASSERT_EQUAL(gemm_case(g_policies[0], 1, 1, 1, 1, 1, B_SCALAR, 3.0, -1.0, 9), 0);
  CU_ASSERT_EQUAL(gemm_case(g_policies[0], 70, 65, 33, 0, 1, B_MATRIX_T, 1.0, 1.0, 10), 0);
}

/* alpha 0: Y = beta C broadcast (A and B not read); no C: Y = 0. */
static void test_gemm_alpha_zero(void) {
  int bias;
  for (bias = 0; bias < B_KINDS; bias++) {
    CU_ASSERT_EQUAL(gemm_case(g_policies[0], 9, 7, 5, 1, 0, bias, 0.0, 2.0, 50 + (uint32_t)bias),
                    0);
    CU_ASSERT_EQUAL(gemm_case(g_policies[0], 9, 7, 5, 0, 1, bias, 0.0, 0.0, 60 + (uint32_t)bias),
                    0);
  }
}

/* ---- batched MatMul ---------------------------------------------------- */

typedef struct mm_case {
  const char *what;
  uint32_t ra, rb;
  int64_t da[OLC_PLUGIN_MAX_RANK], db[OLC_PLUGIN_MAX_RANK];
  int b_transposed; /* B's matrices stored n x k: strides {.., 1, k} */
  int a_batch_zero; /* A's first batch dim has stride 0 (one matrix repeated) */
} mm_case;

static const mm_case g_mm_cases[] = {
    {"2x3 batch of A, plain B", 4, 2, {2, 3, 7, 5}, {5, 6}, 0, 0},
    {"A 2x1, B 1x3: both broadcast", 4, 4, {2, 1, 7, 5}, {1, 3, 5, 6}, 0, 0},
    {"plain A, batch of B", 2, 3, {9, 4}, {4, 4, 11}, 0, 0},
    {"B's batch longer", 3, 4, {3, 7, 5}, {2, 3, 5, 6}, 0, 0},
    {"rank-1 A", 1, 3, {5}, {2, 5, 6}, 0, 0},
    {"rank-1 B", 3, 1, {2, 7, 5}, {5}, 0, 0},
    {"rank-1 both: a scalar", 1, 1, {13}, {13}, 0, 0},
    {"rank-1 A, rank-2 B", 1, 2, {33}, {33, 17}, 0, 0},
    {"transposed batch of B", 3, 3, {3, 7, 5}, {3, 5, 6}, 1, 0},
    {"stride-0 batch of A", 3, 3, {4, 7, 5}, {4, 5, 6}, 0, 1},
    {"ragged, larger", 3, 3, {2, 67, 45}, {2, 45, 70}, 0, 0},
};

/* Where the output's batch index b (of the broadcast dims by) sits in an
 * operand's batch dims (right-aligned, 1 broadcast). */
static void batch_index(uint32_t yr, const int64_t *by, const int64_t *yi, uint32_t xr,
                        const int64_t *bx, int64_t *xi) {
  uint32_t i;
  (void)by;
  for (i = 0; i < xr; i++)
    xi[i] = bx[i] == 1 ? 0 : yi[i + yr - xr];
}

static long matmul_case(const void *policy, const mm_case *mc, double alpha, double beta,
                        uint32_t seed) {
  uint32_t bra = mc->ra > 2 ? mc->ra - 2 : 0, brb = mc->rb > 2 ? mc->rb - 2 : 0;
  uint32_t yr, br = bra > brb ? bra : brb, i, yrank;
  int64_t by[OLC_PLUGIN_MAX_RANK], sa[OLC_PLUGIN_MAX_RANK], sb[OLC_PLUGIN_MAX_RANK];
  int64_t dy[OLC_PLUGIN_MAX_RANK], sy[OLC_PLUGIN_MAX_RANK], yi[OLC_PLUGIN_MAX_RANK];
  int64_t m = mc->ra > 1 ? mc->da[mc->ra - 2] : 1, k = mc->da[mc->ra - 1];
  int64_t n = mc->rb > 1 ? mc->db[mc->rb - 1] : 1, count = 1, b;
  olc_plugin_tensor in[2], out;
  olc_plugin_exec_args args;
  float *a, *bb, *y, *y0;
  size_t ny;
  long bad = 0;
  wl w;
  int32_t rc;
  /* The broadcast batch dims. */
  for (i = 0; i < br; i++) {
    int64_t x = i + bra >= br ? mc->da[i + bra - br] : 1;
    int64_t z = i + brb >= br ? mc->db[i + brb - br] : 1;
    by[i] = x != 1 ? x : z;
    count *= by[i];
  }
  contiguous(mc->ra, mc->da, 1, sa);
  contiguous(mc->rb, mc->db, 2, sb);
  if (mc->b_transposed) {
    /* Each k x n matrix of B stored n x k (+1). */
    sb[mc->rb - 2] = 1;
    sb[mc->rb - 1] = k + 1;
    for (i = mc->rb - 2; i-- > 0;)
      sb[i] = (i + 1 == mc->rb - 2 ? n * (k + 1) : sb[i + 1] * mc->db[i + 1]);
  }
  if (mc->a_batch_zero)
    sa[0] = 0;
  in[0] = tensor(NULL, mc->ra, mc->da, sa);
  in[1] = tensor(NULL, mc->rb, mc->db, sb);
  a = nan_buffer(tensor_extent(&in[0]));
  bb = nan_buffer(tensor_extent(&in[1]));
  in[0].data = a, in[1].data = bb;
  fill_view(&in[0], seed);
  fill_view(&in[1], seed + 1);
  /* Y: batch dims, then m unless A is rank 1, then n unless B is. */
  yrank = 0;
  for (i = 0; i < br; i++)
    dy[yrank++] = by[i];
  if (mc->ra > 1)
    dy[yrank++] = m;
  if (mc->rb > 1)
    dy[yrank++] = n;
  contiguous(yrank, dy, 0, sy);
  out = tensor(NULL, yrank, dy, sy);
  ny = tensor_extent(&out);
  y = nan_buffer(ny);
  y0 = nan_buffer(ny);
  out.data = y;
  if (beta != 0.0) {
    fill_view(&out, seed + 2);
    memcpy(y0, y, ny * sizeof(float));
  }
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in;
  args.outputs = &out;
  args.input_count = 2;
  args.output_count = 1;
  args.alpha = alpha;
  args.beta = beta;
  wl_make(&w, "MatMul", (unsigned)m, (unsigned)n, (unsigned)k);
  rc = g_table->execute(g_inst, &w.w, policy, &args);
  if (rc != OLC_PLUGIN_OK) {
    fprintf(stderr, "matmul %s: %d %s\n", mc->what, (int)rc, harness_last_error.message);
    bad = -1;
    goto done;
  }
  yr = br;
  for (b = 0; b < count; b++) {
    int64_t rest = b, r, c, p;
    for (i = br; i-- > 0;)
      yi[i] = rest % by[i], rest /= by[i];
    for (r = 0; r < m; r++)
      for (c = 0; c < n; c++) {
        int64_t ia[OLC_PLUGIN_MAX_RANK], ib[OLC_PLUGIN_MAX_RANK], iy[OLC_PLUGIN_MAX_RANK];
        double ref = 0.0, mag = 0.0, got;
        uint32_t q = yr;
        batch_index(yr, by, yi, bra, mc->da, ia);
        batch_index(yr, by, yi, brb, mc->db, ib);
        for (p = 0; p < k; p++) {
          double t;
          if (mc->ra > 1)
            ia[bra] = r, ia[bra + 1] = p;
          else
            ia[0] = p;
          if (mc->rb > 1)
            ib[brb] = p, ib[brb + 1] = c;
          else
            ib[0] = p;
          t = (double)*at(&in[0], ia) * (double)*at(&in[1], ib);
          ref += t;
          mag += fabs(t);
        }
        memcpy(iy, yi, sizeof(int64_t) * br);
        if (mc->ra > 1)
          iy[q++] = r;
        if (mc->rb > 1)
          iy[q++] = c;
        ref *= alpha;
        mag *= fabs(alpha);
        if (beta != 0.0) {
          double old = y0[at(&out, iy) - y];
          ref += beta * old;
          mag += fabs(beta * old);
        }
        got = *at(&out, iy);
        if (!close_enough(got, ref, mag)) {
          if (bad < 3)
            fprintf(stderr, "matmul %s: product %lld [%lld][%lld] = %g, want %g\n", mc->what,
                    (long long)b, (long long)r, (long long)c, got, ref);
          bad++;
        }
      }
  }
done:
  free(a);
  free(bb);
  free(y);
  free(y0);
  return bad;
}

static void test_matmul_batched(void) {
  size_t c;
  int pol;
  for (pol = 0; pol < N_POLICIES; pol++)
    for (c = 0; c < sizeof g_mm_cases / sizeof g_mm_cases[0]; c++) {
      CU_ASSERT_EQUAL(matmul_case(g_policies[pol], &g_mm_cases[c], 1.0, 0.0, (uint32_t)(c * 3)), 0);
      CU_ASSERT_EQUAL(
          matmul_case(g_policies[pol], &g_mm_cases[c], 0.5, -1.0, (uint32_t)(c * 3 + 1)), 0);
    }
  /* alpha 0: Y = beta Y, A and B unread. */
  CU_ASSERT_EQUAL(matmul_case(g_policies[0], &g_mm_cases[1], 0.0, 2.0, 77), 0);
  CU_ASSERT_EQUAL(matmul_case(g_policies[0], &g_mm_cases[4], 0.0, 0.0, 78), 0);
}

/* Descriptions that do not fit: INVALID; float16 operands: UNSUPPORTED. */
static void test_matmul_refused(void) {
  float a[64], b[64], y[64];
  int64_t da[3] = {2, 3, 4}, sa[3] = {12, 4, 1}, db[3] = {3, 4, 2}, sb[3] = {8, 2, 1};
  int64_t dy[3] = {3, 3, 2}, sy[3] = {6, 2, 1}, dc[1] = {3}, sc[1] = {1};
  olc_plugin_tensor in[3], out;
  olc_plugin_exec_args args;
  wl w;
  memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(y, 0, sizeof y);
  in[0] = tensor(a, 3, da, sa);
  in[1] = tensor(b, 3, db, sb); /* batch 2 against 3: no broadcast */
  out = tensor(y, 3, dy, sy);
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in;
  args.outputs = &out;
  args.input_count = 2;
  args.output_count = 1;
  args.alpha = 1.0;
  wl_make(&w, "MatMul", 3, 2, 4);
  olc_stub_host_clear_error();
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "do not broadcast"));
  /* Y of the wrong batch. */
  da[0] = 3, sa[0] = 12;
  in[0] = tensor(a, 3, da, sa);
  dy[0] = 2;
  out = tensor(y, 3, dy, sy);
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "do not fit"));
  dy[0] = 3;
  out = tensor(y, 3, dy, sy);
  /* float16 and bfloat16 operands: not implemented. */
  in[1].dtype = OLC_PLUGIN_DTYPE_FLOAT16;
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "float16"));
  in[1].dtype = OLC_PLUGIN_DTYPE_BFLOAT16;
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "bfloat16"));
  in[1].dtype = OLC_PLUGIN_DTYPE_FLOAT32;
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_OK);
  /* MatMul takes no C; Gemm takes no batch; Gemm's C must broadcast. */
  in[2] = tensor(a + 40, 1, dc, sc);
  args.input_count = 3;
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "two inputs"));
  wl_make(&w, "Gemm", 3, 2, 4);
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "rank 3"));
  in[0] = tensor(a, 2, da + 1, sa + 1);
  in[1] = tensor(b, 2, db + 1, sb + 1);
  out = tensor(y, 2, dy + 1, sy + 1);
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "does not broadcast"));
  dc[0] = 2;
  in[2] = tensor(a + 40, 1, dc, sc);
  CU_ASSERT_EQUAL(g_table->execute(g_inst, &w.w, g_policies[0], &args), OLC_PLUGIN_OK);
}

/* ---- the key ----------------------------------------------------------- */

typedef struct key_seen {
  harness_key k;
  int used_count;
  char used[8][32];
} key_seen;

static int32_t ks_processor(void *ctx, const char *p) {
  return hk_processor(&((key_seen *)ctx)->k, p);
}
static int32_t ks_threads(void *ctx, uint32_t t) { return hk_threads(&((key_seen *)ctx)->k, t); }
static int32_t ks_structure(void *ctx, const char *name, const char *value) {
  return hk_structure(&((key_seen *)ctx)->k, name, value);
}
static int32_t ks_use(void *ctx, const char *name) {
  key_seen *s = ctx;
  if (s->used_count >= 8)
    return OLC_PLUGIN_E_LIMIT;
  snprintf(s->used[s->used_count++], sizeof s->used[0], "%s", name);
  return OLC_PLUGIN_OK;
}

static int32_t key_of(const wl *w, key_seen *s) {
  olc_plugin_key_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, s,     ks_processor,
                              ks_threads,  ks_structure,         ks_use};
  memset(s, 0, sizeof *s);
  olc_stub_host_clear_error();
  return g_table->key(g_inst, &w->w, &sink);
}

/* The structure as one line, "name=value;..." */
static void structure_text(const key_seen *s, char *buf, size_t size) {
  size_t pos = 0;
  int i;
  buf[0] = '\0';
  for (i = 0; i < s->k.structure_count && pos < size; i++)
    pos += (size_t)snprintf(buf + pos, size - pos, "%s=%s;", s->k.names[i], s->k.values[i]);
}

static int was_used(const key_seen *s, const char *name) {
  int i;
  for (i = 0; i < s->used_count; i++)
    if (strcmp(s->used[i], name) == 0)
      return 1;
  return 0;
}

static void expect_structure(const wl *w, const char *want) {
  key_seen s;
  char text[512];
  int32_t rc = key_of(w, &s);
  CU_ASSERT_EQUAL(rc, OLC_PLUGIN_OK);
  if (rc != OLC_PLUGIN_OK)
    fprintf(stderr, "key: %s\n", harness_last_error.message);
  structure_text(&s, text, sizeof text);
  if (strcmp(text, want) != 0)
    fprintf(stderr, "structure %s, want %s\n", text, want);
  CU_ASSERT_STRING_EQUAL(text, want);
}

/* Each layout property changes the structure; its plain twin keys as before. */
static void test_key_layouts(void) {
  wl w;
  wl_make(&w, "Gemm", 64, 32, 16);
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;");
  wl_set(&w, "trans_a", "1");
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;trans_a=1;");
  wl_set(&w, "trans_b", "1");
  wl_set(&w, "bias", "row");
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;trans_a=1;trans_b=1;bias=row;");
  wl_make(&w, "Gemm", 64, 32, 16);
  wl_set(&w, "bias", "scalar");
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;bias=scalar;");
  wl_make(&w, "MatMul", 64, 32, 16);
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;");
  wl_set(&w, "batch_a", "2x1");
  wl_set(&w, "batch_b", "1x3");
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;batch_a=2x1;batch_b=1x3;");
  wl_make(&w, "MatMul", 64, 32, 16);
  wl_set(&w, "batch_b", "4");
  wl_set(&w, "trans_b", "1");
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;trans_b=1;batch_b=4;");
}

/* Explicit defaults key like their absence, and are declared as read. */
static void test_key_defaults(void) {
  wl w;
  key_seen s;
  olc_plugin_key_sink old = {offsetof(olc_plugin_key_sink, use_property),
                             OLC_PLUGIN_ABI_MINOR,
                             &s,
                             ks_processor,
                             ks_threads,
                             ks_structure,
                             ks_use};
  double flops = 0.0;
  wl_make(&w, "Gemm", 64, 32, 16);
  wl_set(&w, "trans_a", "0");
  wl_set(&w, "trans_b", "0");
  wl_set(&w, "bias", "none");
  wl_set(&w, "dtype_b", "float32");
  expect_structure(&w, "dtype=float32;m=64;n=32;k=16;");
  CU_ASSERT_EQUAL(key_of(&w, &s), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(s.used_count, 4);
  CU_ASSERT(was_used(&s, "trans_a") && was_used(&s, "trans_b") && was_used(&s, "bias") &&
            was_used(&s, "dtype_b"));
  /* A sink of ABI 1.2 (no use_property) is not called past its size. */
  memset(&s, 0, sizeof s);
  CU_ASSERT_EQUAL(g_table->key(g_inst, &w.w, &old), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(s.used_count, 0);
  CU_ASSERT_EQUAL(s.k.structure_count, 4);
  /* Empty batches are no batch; a layout not at its default is not declared. */
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "batch_a", "");
  wl_set(&w, "batch_b", "3");
  expect_structure(&w, "dtype=float32;m=8;n=8;k=8;batch_b=3;");
  CU_ASSERT_EQUAL(key_of(&w, &s), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(s.used_count, 1);
  CU_ASSERT_STRING_EQUAL(s.used[0], "batch_a");
  /* flops count every product of the batch. */
  wl_make(&w, "MatMul", 3, 5, 7);
  wl_set(&w, "batch_a", "2x1");
  wl_set(&w, "batch_b", "4");
  CU_ASSERT_EQUAL(g_table->flops(g_inst, &w.w, &flops), OLC_PLUGIN_OK);
  CU_ASSERT_DOUBLE_EQUAL(flops, 2.0 * 3 * 5 * 7 * 8, 1e-9);
}

static void expect_key_refused(const wl *w, int32_t code, const char *needle) {
  key_seen s;
  int32_t rc = key_of(w, &s);
  if (rc != code || strstr(harness_last_error.message, needle) == NULL)
    fprintf(stderr, "\n  expected %d \"%s\", got %d \"%s\"\n", (int)code, needle, (int)rc,
            harness_last_error.message);
  CU_ASSERT_EQUAL(rc, code);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, needle));
}

static void test_key_refused(void) {
  wl w;
  wl_make(&w, "Gemm", 8, 8, 8);
  wl_set(&w, "colour", "blue");
  expect_key_refused(&w, OLC_PLUGIN_E_UNSUPPORTED, "property colour is not served");
  wl_make(&w, "Gemm", 8, 8, 8);
  w.props[0].value = "float16";
  expect_key_refused(&w, OLC_PLUGIN_E_UNSUPPORTED, "dtype float16 is not served");
  w.props[0].value = "bfloat16";
  expect_key_refused(&w, OLC_PLUGIN_E_UNSUPPORTED, "dtype bfloat16 is not served");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "dtype_b", "bfloat16");
  expect_key_refused(&w, OLC_PLUGIN_E_UNSUPPORTED, "dtype_b bfloat16");
  wl_make(&w, "Gemm", 8, 8, 8);
  wl_set(&w, "trans_a", "2");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "trans_a=2 is not 0 or 1");
  wl_make(&w, "Gemm", 8, 8, 8);
  wl_set(&w, "bias", "diagonal");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "bias=diagonal");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "bias", "row");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "MatMul has no bias");
  wl_make(&w, "Gemm", 8, 8, 8);
  wl_set(&w, "batch_a", "2");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "batch_a is MatMul's");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "batch_a", "2x0");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "batch_a=2x0");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "batch_a", "2x");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "batch_a=2x");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "batch_a", "2");
  wl_set(&w, "batch_b", "3");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "do not broadcast");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "trans_a", "1");
  wl_set(&w, "trans_a", "1");
  expect_key_refused(&w, OLC_PLUGIN_E_INVALID, "given twice");
  wl_make(&w, "MatMul", 8, 8, 8);
  wl_set(&w, "batch_a", "300x300");
  expect_key_refused(&w, OLC_PLUGIN_E_UNSUPPORTED, "products in a batch");
  wl_make(&w, "Conv", 8, 8, 8);
  expect_key_refused(&w, OLC_PLUGIN_E_UNSUPPORTED, "only MatMul and Gemm");
}

/* The key accepts the structure it reports (olc prune --foreign). */
static void test_key_roundtrip(void) {
  wl w, back;
  key_seen s, s2;
  char t1[512], t2[512];
  int i;
  wl_make(&w, "MatMul", 8, 9, 10);
  wl_set(&w, "trans_a", "1");
  wl_set(&w, "batch_a", "2x3");
  wl_set(&w, "batch_b", "3");
  CU_ASSERT_EQUAL_FATAL(key_of(&w, &s), OLC_PLUGIN_OK);
  memset(&back, 0, sizeof back);
  back.w = w.w;
  back.w.properties = back.props;
  back.w.property_count = 0;
  for (i = 0; i < s.k.structure_count; i++)
    wl_set(&back, s.k.names[i], s.k.values[i]);
  CU_ASSERT_EQUAL_FATAL(key_of(&back, &s2), OLC_PLUGIN_OK);
  structure_text(&s, t1, sizeof t1);
  structure_text(&s2, t2, sizeof t2);
  CU_ASSERT_STRING_EQUAL(t1, t2);
}

/* ---- prepare and run in the workload's layout -------------------------- */

static void read_buffer(cl_mem buf, float *out, size_t n) {
  CU_ASSERT_EQUAL(
      clEnqueueReadBuffer(g_inst->queue, buf, CL_TRUE, 0, n * sizeof(float), out, 0, NULL, NULL),
      CL_SUCCESS);
}

/* Y - A B (from the state's host copies of the first A and B). */
static void run_residual(const egpu_state *s, double *d) {
  unsigned m = s->shape.m, n = s->shape.n, k = s->shape.k, i, j, p;
  float *y = malloc((size_t)m * n * sizeof(float));
  CU_ASSERT_PTR_NOT_NULL_FATAL(y);
  read_buffer(s->c, y, (size_t)m * n);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      double ref = 0.0;
      for (p = 0; p < k; p++)
        ref += (double)s->host_a[i * k + p] * (double)s->host_b[p * n + j];
      d[i * n + j] = y[i * n + j] - ref;
    }
  free(y);
}

/* prepare, run with two policies, then check the first product. */
static void layout_run(const char *op, const char *p1, const char *v1, const char *p2,
                       const char *v2, const char *bias) {
  enum { M = 21, N = 13, K = 9 };
  wl w;
  void *state = NULL;
  double d[M * N];
  int pol, bad = 0;
  unsigned i, j;
  wl_make(&w, op, M, N, K);
  if (p1 != NULL)
    wl_set(&w, p1, v1);
  if (p2 != NULL)
    wl_set(&w, p2, v2);
  if (bias != NULL)
    wl_set(&w, "bias", bias);
  CU_ASSERT_EQUAL_FATAL(g_table->prepare(g_inst, &w.w, &state), OLC_PLUGIN_OK);
  for (pol = 0; pol < N_POLICIES; pol++)
    CU_ASSERT_EQUAL(g_table->run(g_inst, &w.w, state, g_policies[pol]), OLC_PLUGIN_OK);
  run_residual(state, d);
  /* Without a bias Y = A B; with one, Y - A B is the bias broadcast. */
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      double want = bias == NULL                  ? 0.0
                    : strcmp(bias, "scalar") == 0 ? d[0]
                    : strcmp(bias, "row") == 0    ? d[j]
                    : strcmp(bias, "col") == 0    ? d[i * N]
                                                  : d[i * N + j];
      bad += !(fabs(d[i * N + j] - want) <= 1e-4) || (bias != NULL && !(fabs(d[i * N + j]) > 0.0));
    }
  if (bad > 0)
    fprintf(stderr, "run %s %s=%s %s=%s bias %s: %d bad\n", op, p1 ? p1 : "", v1 ? v1 : "",
            p2 ? p2 : "", v2 ? v2 : "", bias ? bias : "none", bad);
  CU_ASSERT_EQUAL(bad, 0);
  g_table->unprepare(g_inst, state);
}

static void test_run_layouts(void) {
  uint64_t bytes = 0;
  wl w;
  layout_run("Gemm", "trans_a", "1", NULL, NULL, NULL);
  layout_run("Gemm", "trans_b", "1", NULL, NULL, NULL);
  layout_run("Gemm", "trans_a", "1", "trans_b", "1", NULL);
  layout_run("Gemm", NULL, NULL, NULL, NULL, "scalar");
  layout_run("Gemm", "trans_a", "1", NULL, NULL, "row");
  layout_run("Gemm", "trans_b", "1", NULL, NULL, "col");
  layout_run("Gemm", NULL, NULL, NULL, NULL, "matrix");
  layout_run("MatMul", "batch_a", "2x1", "batch_b", "3", NULL);
  layout_run("MatMul", "batch_b", "4", "trans_b", "1", NULL);
  layout_run("MatMul", NULL, NULL, NULL, NULL, NULL);
  /* The rotating buffer sizes every operand of the batch. */
  wl_make(&w, "MatMul", 4, 5, 6);
  wl_set(&w, "batch_a", "2x1");
  wl_set(&w, "batch_b", "3");
  CU_ASSERT_EQUAL(g_table->operand_bytes(g_inst, &w.w, &bytes), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(bytes, 4u * (2 * 4 * 6 + 3 * 6 * 5 + 6 * 4 * 5));
}

/* ---- setup ------------------------------------------------------------- */

static void collect_policies(void) {
  harness_policies ps;
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &ps, hp_emit};
  wl w;
  int i;
  memset(&ps, 0, sizeof ps);
  wl_make(&w, "Gemm", 64, 64, 64);
  CU_ASSERT_EQUAL_FATAL(g_table->candidates(g_inst, &w.w, &sink), OLC_PLUGIN_OK);
  CU_ASSERT_FATAL(ps.count >= 1);
  g_policies[0] = ps.items[0];
  g_policies[1] = ps.items[ps.count / 2];
  g_policies[2] = ps.items[ps.count - 1];
  for (i = 0; i < ps.count; i++)
    if (i != 0 && i != ps.count / 2 && i != ps.count - 1)
      g_table->release_policy(g_inst, ps.items[i]);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  void *inst = NULL;
  int32_t rc;
  int result, i;
  g_table = harness_load(EGPU_PLUGIN_PATH, &g_handle);
  if (g_table == NULL) {
    fprintf(stderr, "cannot load %s\n", EGPU_PLUGIN_PATH);
    return 1;
  }
  rc = g_table->create(&harness_host, NULL, 0, 1, &inst);
  if (rc == OLC_PLUGIN_E_UNAVAILABLE) {
    fprintf(stderr, "skipped: %s\n", harness_last_error.message);
    return 77;
  }
  if (rc != OLC_PLUGIN_OK) {
    fprintf(stderr, "create failed (%d): %s\n", (int)rc, harness_last_error.message);
    return 1;
  }
  g_inst = inst;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("example_gpu_onnx", NULL, NULL);
  CU_add_test(s, "collect", collect_policies);
  CU_add_test(s, "key_layouts", test_key_layouts);
  CU_add_test(s, "key_defaults", test_key_defaults);
  CU_add_test(s, "key_refused", test_key_refused);
  CU_add_test(s, "key_roundtrip", test_key_roundtrip);
  CU_add_test(s, "gemm_layouts", test_gemm_layouts);
  CU_add_test(s, "gemm_alpha_zero", test_gemm_alpha_zero);
  CU_add_test(s, "matmul_batched", test_matmul_batched);
  CU_add_test(s, "matmul_refused", test_matmul_refused);
  CU_add_test(s, "run_layouts", test_run_layouts);
  CU_add_test(s, "messages_unprefixed", harness_test_messages_unprefixed);
  result = olc_test_run(argc, argv);
  for (i = 0; i < N_POLICIES; i++)
    if (g_policies[i] != NULL && (i == 0 || g_policies[i] != g_policies[i - 1]))
      g_table->release_policy(g_inst, g_policies[i]);
  g_table->destroy(inst);
  dlclose(g_handle);
  return result;
}
