/*
 * tests/examples/test_onnx_runner_tensor.c - onnx_runner's tensors
 * (examples/onnx_runner/tensor.c): float16 and bfloat16 conversions against
 * exact references, TensorProto decoding of each storage field with the
 * messages of bad ones, strided element access, and the comparison's
 * tolerance at its edges.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runner.h"
#include "test_support.h"

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Every half and bfloat16 that is not NaN goes to float and back unchanged. */
static void test_round_trips(void) {
  uint32_t bad_h = 0, bad_b = 0;
  for (uint32_t i = 0; i < 65536u; i++) {
    uint16_t h = (uint16_t)i;
    if ((h & 0x7c00u) != 0x7c00u || (h & 0x3ffu) == 0)
      bad_h += rn_float_to_half(rn_half_to_float(h)) != h;
    if ((h & 0x7f80u) != 0x7f80u || (h & 0x7fu) == 0)
      bad_b += rn_float_to_bfloat16(rn_bfloat16_to_float(h)) != h;
  }
  CU_ASSERT_EQUAL(bad_h, 0u);
  CU_ASSERT_EQUAL(bad_b, 0u);
  CU_ASSERT(isnan(rn_half_to_float(rn_float_to_half(NAN))));
  CU_ASSERT(isnan(rn_bfloat16_to_float(rn_float_to_bfloat16(NAN))));
}

/* The nearest of two neighbouring values, ties to the even one. */
static uint16_t nearest(double x, uint16_t lo, double vlo, double vhi) {
  double dlo = fabs(x - vlo), dhi = fabs(vhi - x);
  if (dlo < dhi || (dlo == dhi && (lo & 1u) == 0))
    return lo;
  return (uint16_t)(lo + 1u);
}

/* float -> bfloat16 and float -> half round to nearest even: checked on a
 * spread of floats (every 997th bit pattern, positive and negative)
 * against the neighbours each lies between. */
static void test_rounding(void) {
  uint32_t bad_b = 0, bad_h = 0;
  for (uint64_t u = 0; u < 0x7f800000u; u += 997u) {
    for (int neg = 0; neg < 2; neg++) {
      float f = float_of((uint32_t)u | (neg ? 0x80000000u : 0u));
      uint16_t lo = (uint16_t)(bits_of(f) >> 16) & 0x7fffu;
      /* Above the largest finite bfloat16, IEEE rounds as if 2^128 came
       * next (and gives infinity for it). */
      double hi =
          lo == 0x7f7fu ? ldexp(1.0, 128) : (double)rn_bfloat16_to_float((uint16_t)(lo + 1u));
      uint16_t want = nearest(fabs((double)f), lo, (double)rn_bfloat16_to_float(lo), hi);
      want |= neg ? 0x8000u : 0u;
      bad_b += rn_float_to_bfloat16(f) != want;
      if (fabs((double)f) < 65520.0) { /* below: a finite half */
        uint16_t h = rn_float_to_half(f), mag = h & 0x7fffu, low;
        double a = fabs((double)f);
        /* the half just below |f| (or equal), from the result's neighbours */
        low = (double)rn_half_to_float(mag) > a ? (uint16_t)(mag - 1u) : mag;
        want = nearest(a, low, (double)rn_half_to_float(low),
                       (double)rn_half_to_float((uint16_t)(low + 1u)));
        bad_h += mag != want || (neg && f != 0 && (h & 0x8000u) == 0);
      }
    }
  }
  CU_ASSERT_EQUAL(bad_b, 0u);
  CU_ASSERT_EQUAL(bad_h, 0u);
  CU_ASSERT_EQUAL(rn_float_to_half(65520.0f), 0x7c00u); /* rounds to infinity */
  CU_ASSERT_EQUAL(rn_float_to_half(65504.0f), 0x7bffu);
  CU_ASSERT_EQUAL(rn_float_to_half(5.9604644775390625e-8f), 1u);  /* the smallest subnormal */
  CU_ASSERT_EQUAL(rn_float_to_half(2.98023223876953125e-8f), 0u); /* half of it: to even */
  CU_ASSERT_EQUAL(rn_float_to_half(1.0f + 1.0f / 2048), 0x3c00u); /* a tie goes to even */
  CU_ASSERT_EQUAL(rn_float_to_half(1.0f + 3.0f / 2048), 0x3c02u);
}

/* Each storage field decodes, and a field that does not fit says which. */
static void test_decode(void) {
  Onnx__TensorProto p = ONNX__TENSOR_PROTO__INIT;
  int64_t dims[2] = {2, 3};
  float f[6] = {1, 2, 3, 4, 5, 6};
  int32_t halves[6] = {0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600}; /* 1..6 */
  uint16_t bf[6] = {0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0};    /* 1..6 */
  rn_tensor t;
  rn_error e;
  p.n_dims = 2, p.dims = dims;
  p.has_data_type = 1, p.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  p.n_float_data = 6, p.float_data = f;
  memset(&e, 0, sizeof e);
  CU_ASSERT_EQUAL_FATAL(rn_tensor_decode(&t, &p, "x.pb", &e), RN_OK);
  CU_ASSERT_EQUAL(t.rank, 2u);
  CU_ASSERT_EQUAL(t.strides[0], 3);
  CU_ASSERT_EQUAL(rn_tensor_get(&t, 5), 6.0);
  rn_tensor_free(&t);

  p.n_float_data = 0, p.float_data = NULL;
  p.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
  p.n_int32_data = 6, p.int32_data = halves;
  CU_ASSERT_EQUAL_FATAL(rn_tensor_decode(&t, &p, "x.pb", &e), RN_OK);
  CU_ASSERT_EQUAL(t.dtype, OLC_DTYPE_FLOAT16);
  for (int64_t i = 0; i < 6; i++)
    CU_ASSERT_EQUAL(rn_tensor_get(&t, i), (double)(i + 1));
  rn_tensor_free(&t);

  p.n_int32_data = 0, p.int32_data = NULL;
  p.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
  p.has_raw_data = 1, p.raw_data.len = sizeof bf, p.raw_data.data = (uint8_t *)bf;
  CU_ASSERT_EQUAL_FATAL(rn_tensor_decode(&t, &p, "x.pb", &e), RN_OK);
  CU_ASSERT_EQUAL(t.dtype, OLC_DTYPE_BFLOAT16);
  CU_ASSERT_EQUAL(rn_tensor_get(&t, 4), 5.0);
  rn_tensor_free(&t);

  p.raw_data.len = sizeof bf - 2;
  CU_ASSERT_EQUAL(rn_tensor_decode(&t, &p, "x.pb: tensor 'w'", &e), RN_BAD_INPUT);
  CU_ASSERT_STRING_EQUAL(e.message, "x.pb: tensor 'w': raw_data holds 10 bytes, dims need 12");

  memset(&e, 0, sizeof e);
  p.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  CU_ASSERT_EQUAL(rn_tensor_decode(&t, &p, "x.pb", &e), RN_BAD_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "x.pb: data_type 7 is not supported"));

  memset(&e, 0, sizeof e);
  p.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  dims[1] = 0;
  CU_ASSERT_EQUAL(rn_tensor_decode(&t, &p, "x.pb", &e), RN_BAD_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "x.pb: dims[1] is 0"));
}

/* A transposed view reads the transposed elements; a comparison with it
 * sees its row-major order. */
static void test_views_and_compare(void) {
  float data[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3 */
  float want[6] = {1, 4, 2, 5, 3, 6}; /* its 3 x 2 transpose */
  rn_tensor v, x;
  rn_compare c;
  rn_tolerance tol = {-1, -1};
  rn_error e;
  memset(&v, 0, sizeof v);
  v.dtype = OLC_DTYPE_FLOAT32, v.rank = 2, v.data = data;
  v.dims[0] = 3, v.dims[1] = 2, v.strides[0] = 1, v.strides[1] = 3;
  x = v;
  x.data = want, x.strides[0] = 2, x.strides[1] = 1;
  memset(&e, 0, sizeof e);
  CU_ASSERT_EQUAL(rn_tensor_compare(&c, &v, &x, &tol, &e), RN_OK);
  CU_ASSERT_EQUAL(c.max_abs, 0.0);
  CU_ASSERT_EQUAL(c.rtol, 1e-3);
  CU_ASSERT_EQUAL(c.atol, 1e-7);

  /* At the edge: |a - e| = atol + rtol * |e| passes, a little more fails. */
  want[5] = 1000.0f, data[5] = 1001.0f; /* 1 = 1e-7 + 1e-3 * 1000 - 1e-7 */
  tol.atol = 0;
  CU_ASSERT_EQUAL(rn_tensor_compare(&c, &v, &x, &tol, &e), RN_OK);
  data[5] = 1001.0625f;
  CU_ASSERT_EQUAL(rn_tensor_compare(&c, &v, &x, &tol, &e), RN_MISMATCH);
  CU_ASSERT_EQUAL(c.bad, 1);
  CU_ASSERT_EQUAL(c.worst, 5);
  CU_ASSERT_EQUAL(c.expected, 1000.0);

  /* NaN equals NaN, not a number. */
  data[5] = want[5] = NAN;
  CU_ASSERT_EQUAL(rn_tensor_compare(&c, &v, &x, &tol, &e), RN_OK);
  want[5] = 1.0f;
  CU_ASSERT_EQUAL(rn_tensor_compare(&c, &v, &x, &tol, &e), RN_MISMATCH);

  /* Another shape is a mismatch naming both. */
  x.dims[0] = 2, x.dims[1] = 3, x.strides[0] = 3;
  CU_ASSERT_EQUAL(rn_tensor_compare(&c, &v, &x, &tol, &e), RN_MISMATCH);
  CU_ASSERT_STRING_EQUAL(e.message, "shape 3x2, expected 2x3");

  /* float16 gets two of its ulps: 2049 against 2048 passes (one ulp is 2). */
  {
    uint16_t a16[1] = {rn_float_to_half(2050.0f)}, e16[1] = {rn_float_to_half(2048.0f)};
    rn_tensor ha, he;
    memset(&ha, 0, sizeof ha);
    ha.dtype = OLC_DTYPE_FLOAT16, ha.rank = 1, ha.dims[0] = 1, ha.strides[0] = 1, ha.data = a16;
    he = ha;
    he.data = e16;
    tol.atol = -1;
    memset(&e, 0, sizeof e);
    CU_ASSERT_EQUAL(rn_tensor_compare(&c, &ha, &he, &tol, &e), RN_OK);
    a16[0] = rn_float_to_half(2058.0f);
    CU_ASSERT_EQUAL(rn_tensor_compare(&c, &ha, &he, &tol, &e), RN_MISMATCH);
  }
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("onnx_runner_tensor", NULL, NULL);
  CU_add_test(s, "round_trips", test_round_trips);
  CU_add_test(s, "rounding", test_rounding);
  CU_add_test(s, "decode", test_decode);
  CU_add_test(s, "views_and_compare", test_views_and_compare);
  return olc_test_run(argc, argv);
}
