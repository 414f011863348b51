/*
 * Tensors of onnx_runner: TensorProto decoding, float16/bfloat16
 * conversions, strided element access and the comparison with expected
 * outputs.
 */
#include "runner.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rn_fail(rn_error *e, int code, const char *fmt, ...) {
  va_list ap;
  if (e->code != RN_OK)
    return e->code;
  e->code = code;
  va_start(ap, fmt);
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  va_end(ap);
  return code;
}

int rn_prefix(rn_error *e, const char *fmt, ...) {
  char prefix[400], inner[sizeof e->message];
  size_t pl, il;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  pl = strlen(prefix);
  memcpy(inner, e->message, sizeof inner);
  inner[sizeof inner - 1] = '\0';
  il = strlen(inner);
  if (pl > sizeof e->message - 1)
    pl = sizeof e->message - 1;
  if (il > sizeof e->message - 1 - pl)
    il = sizeof e->message - 1 - pl; /* the end of a long message goes */
  memcpy(e->message, prefix, pl);
  memcpy(e->message + pl, inner, il);
  e->message[pl + il] = '\0';
  return e->code;
}

const char *rn_dtype_name(uint32_t dtype) {
  switch (dtype) {
  case OLC_DTYPE_FLOAT32:
    return "float32";
  case OLC_DTYPE_FLOAT16:
    return "float16";
  case OLC_DTYPE_BFLOAT16:
    return "bfloat16";
  default:
    return "unknown";
  }
}

size_t rn_dtype_size(uint32_t dtype) {
  switch (dtype) {
  case OLC_DTYPE_FLOAT32:
    return 4;
  case OLC_DTYPE_FLOAT16:
  case OLC_DTYPE_BFLOAT16:
    return 2;
  default:
    return 0;
  }
}

int64_t rn_tensor_count(const rn_tensor *t) {
  int64_t n = 1;
  for (uint32_t i = 0; i < t->rank; i++)
    n *= t->dims[i];
  return n;
}

void rn_dims_text(char *out, size_t size, uint32_t rank, const int64_t *dims) {
  size_t used = 0;
  out[0] = '\0';
  if (rank == 0) {
    snprintf(out, size, "scalar");
    return;
  }
  for (uint32_t i = 0; i < rank && used < size; i++) {
    int n = snprintf(out + used, size - used, "%s%lld", i > 0 ? "x" : "", (long long)dims[i]);
    if (n < 0)
      return;
    used += (size_t)n;
  }
}

int rn_tensor_alloc(rn_tensor *t, uint32_t dtype, uint32_t rank, const int64_t *dims, rn_error *e) {
  int64_t count = 1, stride = 1;
  memset(t, 0, sizeof *t);
  t->dtype = dtype;
  t->rank = rank;
  for (uint32_t i = 0; i < rank; i++) {
    if (dims[i] < 1 || count > INT64_MAX / 16 / dims[i])
      return rn_fail(e, RN_BAD_INPUT, "a tensor of %lld elements along axis %u is not supported",
                     (long long)dims[i], (unsigned)i);
    t->dims[i] = dims[i];
    count *= dims[i];
  }
  for (uint32_t i = rank; i-- > 0;) {
    t->strides[i] = stride;
    stride *= t->dims[i];
  }
  if ((uint64_t)count > SIZE_MAX / 8)
    return rn_fail(e, RN_BAD_INPUT, "a tensor of %lld elements is too large", (long long)count);
  t->owned = malloc((size_t)count * rn_dtype_size(dtype) + 1);
  if (t->owned == NULL)
    return rn_fail(e, RN_BAD_INPUT, "out of memory for a tensor of %lld elements",
                   (long long)count);
  t->data = t->owned;
  return RN_OK;
}

void rn_tensor_free(rn_tensor *t) {
  if (t == NULL)
    return;
  free(t->owned);
  memset(t, 0, sizeof *t);
}

olc_tensor rn_tensor_olc(const rn_tensor *t) {
  olc_tensor o;
  memset(&o, 0, sizeof o);
  o.dtype = t->dtype;
  o.rank = t->rank;
  for (uint32_t i = 0; i < t->rank; i++) {
    o.dims[i] = t->dims[i];
    o.strides[i] = t->strides[i];
  }
  o.data = t->data;
  return o;
}

/* ------------------------------------------------------ float16, bfloat16 */

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

float rn_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0x1f) /* infinity or NaN */
    return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) { /* zero or subnormal: mant * 2^-24 */
    float v = (float)mant * 5.9604644775390625e-8f;
    return sign != 0 ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t rn_float_to_half(float f) {
  uint32_t u = float_bits(f), sign = (u >> 16) & 0x8000u, abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) /* infinity, or NaN kept quiet */
    return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) /* rounds to above 65504 */
    return (uint16_t)(sign | 0x7c00u);
  if (abs < 0x38800000u) { /* below 2^-14: subnormal half, round to nearest even */
    float v = bits_float(abs) * 16777216.0f; /* in units of 2^-24 */
    uint32_t q = (uint32_t)v;
    float r = v - (float)q;
    if (r > 0.5f || (r == 0.5f && (q & 1u) != 0))
      q++;
    return (uint16_t)(sign | q);
  }
  {
    uint32_t mant = abs & 0x7fffffu, exp = (abs >> 23) - 112u;
    uint32_t h = (exp << 10) | (mant >> 13), rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0))
      h++; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | h);
  }
}

float rn_bfloat16_to_float(uint16_t b) { return bits_float((uint32_t)b << 16); }

uint16_t rn_float_to_bfloat16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN stays NaN (quiet) */
    return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* ------------------------------------------------------- element access */

double rn_load(uint32_t dtype, const void *data, int64_t offset) {
  if (dtype == OLC_DTYPE_FLOAT32)
    return (double)((const float *)data)[offset];
  if (dtype == OLC_DTYPE_FLOAT16)
    return (double)rn_half_to_float(((const uint16_t *)data)[offset]);
  return (double)rn_bfloat16_to_float(((const uint16_t *)data)[offset]);
}

void rn_store(uint32_t dtype, void *data, int64_t offset, double v) {
  if (dtype == OLC_DTYPE_FLOAT32)
    ((float *)data)[offset] = (float)v;
  else if (dtype == OLC_DTYPE_FLOAT16)
    ((uint16_t *)data)[offset] = rn_float_to_half((float)v);
  else
    ((uint16_t *)data)[offset] = rn_float_to_bfloat16((float)v);
}

double rn_tensor_get(const rn_tensor *t, int64_t i) {
  int64_t off = 0;
  for (uint32_t d = t->rank; d-- > 0;) {
    off += (i % t->dims[d]) * t->strides[d];
    i /= t->dims[d];
  }
  return rn_load(t->dtype, t->data, off);
}

/* ------------------------------------------------------------ decoding */

static uint32_t olc_dtype_of(int32_t onnx_type) {
  switch (onnx_type) {
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    return OLC_DTYPE_FLOAT32;
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
    return OLC_DTYPE_FLOAT16;
  case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
    return OLC_DTYPE_BFLOAT16;
  default:
    return 0;
  }
}

int rn_tensor_decode(rn_tensor *t, const Onnx__TensorProto *p, const char *where, rn_error *e) {
  uint32_t dtype = p->has_data_type ? olc_dtype_of(p->data_type) : 0;
  int64_t dims[OLC_TENSOR_MAX_RANK];
  size_t elem, count;
  memset(t, 0, sizeof *t);
  if (dtype == 0)
    return rn_fail(e, RN_BAD_INPUT,
                   "%s: data_type %d is not supported (float 1, float16 10, bfloat16 16)", where,
                   p->has_data_type ? (int)p->data_type : 0);
  if (p->n_dims > OLC_TENSOR_MAX_RANK)
    return rn_fail(e, RN_BAD_INPUT, "%s: dims: rank %zu is above %u", where, p->n_dims,
                   (unsigned)OLC_TENSOR_MAX_RANK);
  if (p->n_external_data > 0 || (p->has_data_location && p->data_location != 0))
    return rn_fail(e, RN_BAD_INPUT, "%s: external_data is not supported", where);
  if (p->segment != NULL)
    return rn_fail(e, RN_BAD_INPUT, "%s: segment is not supported", where);
  for (size_t i = 0; i < p->n_dims; i++) {
    if (p->dims[i] < 1)
      return rn_fail(e, RN_BAD_INPUT, "%s: dims[%zu] is %lld (empty tensors are not supported)",
                     where, i, (long long)p->dims[i]);
    dims[i] = p->dims[i];
  }
  if (rn_tensor_alloc(t, dtype, (uint32_t)p->n_dims, dims, e) != RN_OK)
    return rn_prefix(e, "%s: dims: ", where);
  elem = rn_dtype_size(dtype);
  count = (size_t)rn_tensor_count(t);
  if (p->has_raw_data) {
    if (p->raw_data.len != count * elem) {
      rn_tensor_free(t);
      return rn_fail(e, RN_BAD_INPUT, "%s: raw_data holds %zu bytes, dims need %zu", where,
                     p->raw_data.len, count * elem);
    }
    /* raw_data is little-endian (onnx.proto says so); the copy assumes a
     * little-endian host. */
    memcpy(t->data, p->raw_data.data, count * elem);
  } else if (dtype == OLC_DTYPE_FLOAT32) {
    if (p->n_float_data != count) {
      rn_tensor_free(t);
      return rn_fail(e, RN_BAD_INPUT, "%s: float_data holds %zu values, dims need %zu", where,
                     p->n_float_data, count);
    }
    memcpy(t->data, p->float_data, count * elem);
  } else {
    /* float16 and bfloat16 without raw_data: one element in the low 16 bits of each int32. */
    if (p->n_int32_data != count) {
      rn_tensor_free(t);
      return rn_fail(e, RN_BAD_INPUT, "%s: int32_data holds %zu values, dims need %zu", where,
                     p->n_int32_data, count);
    }
    for (size_t i = 0; i < count; i++)
      ((uint16_t *)t->data)[i] = (uint16_t)((uint32_t)p->int32_data[i] & 0xffffu);
  }
  return RN_OK;
}

unsigned char *rn_read_file(size_t *len, const char *path, int *missing, rn_error *e) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  size_t cap = 0, used = 0;
  *missing = 0;
  if (f == NULL) {
    *missing = 1;
    return NULL;
  }
  for (;;) {
    if (used == cap) {
      unsigned char *grown;
      if (cap > ((size_t)1 << 31)) {
        rn_fail(e, RN_BAD_INPUT, "%s: larger than 2 GiB", path);
        break;
      }
      cap = cap == 0 ? 65536 : cap * 2;
      grown = realloc(buf, cap);
      if (grown == NULL) {
        rn_fail(e, RN_BAD_INPUT, "%s: out of memory reading it", path);
        break;
      }
      buf = grown;
    }
    used += fread(buf + used, 1, cap - used, f);
    if (ferror(f)) {
      rn_fail(e, RN_BAD_INPUT, "%s: read error", path);
      break;
    }
    if (feof(f)) {
      fclose(f);
      *len = used;
      return buf;
    }
  }
  fclose(f);
  free(buf);
  return NULL;
}

int rn_tensor_read(rn_tensor *t, Onnx__TensorProto **proto, const char *path, rn_error *e) {
  size_t len = 0;
  int missing;
  unsigned char *bytes = rn_read_file(&len, path, &missing, e);
  char where[600];
  *proto = NULL;
  memset(t, 0, sizeof *t);
  if (bytes == NULL)
    return missing ? -1 : e->code;
  *proto = onnx__tensor_proto__unpack(NULL, len, bytes);
  free(bytes);
  if (*proto == NULL)
    return rn_fail(e, RN_BAD_INPUT, "%s: not a TensorProto (protobuf does not parse)", path);
  snprintf(where, sizeof where, "%s: tensor '%s'", path,
           (*proto)->name != NULL ? (*proto)->name : "");
  if (rn_tensor_decode(t, *proto, where, e) != RN_OK) {
    onnx__tensor_proto__free_unpacked(*proto, NULL);
    *proto = NULL;
    return e->code;
  }
  return RN_OK;
}

/* ---------------------------------------------------------- comparison */

/* ONNX's backend tests compare with rtol 1e-3, atol 1e-7; float16 and
 * bfloat16 outputs are rounded once more than a float64 reference cast
 * to them, so they get a relative tolerance of two of their ulps. */
static void default_tolerance(double *rtol, double *atol, uint32_t dtype) {
  *atol = 1e-7;
  *rtol = dtype == OLC_DTYPE_FLOAT16 ? 2.0 / 1024 : dtype == OLC_DTYPE_BFLOAT16 ? 2.0 / 128 : 1e-3;
}

int rn_tensor_compare(rn_compare *out, const rn_tensor *actual, const rn_tensor *expected,
                      const rn_tolerance *tol, rn_error *e) {
  char da[128], de[128];
  double worst_excess = -1;
  memset(out, 0, sizeof *out);
  rn_dims_text(da, sizeof da, actual->rank, actual->dims);
  rn_dims_text(de, sizeof de, expected->rank, expected->dims);
  if (actual->rank != expected->rank ||
      memcmp(actual->dims, expected->dims, sizeof(int64_t) * actual->rank) != 0)
    return rn_fail(e, RN_MISMATCH, "shape %s, expected %s", da, de);
  if (actual->dtype != expected->dtype)
    return rn_fail(e, RN_MISMATCH, "dtype %s, expected %s", rn_dtype_name(actual->dtype),
                   rn_dtype_name(expected->dtype));
  default_tolerance(&out->rtol, &out->atol, expected->dtype);
  if (tol != NULL && tol->rtol >= 0)
    out->rtol = tol->rtol;
  if (tol != NULL && tol->atol >= 0)
    out->atol = tol->atol;
  out->count = rn_tensor_count(expected);
  for (int64_t i = 0; i < out->count; i++) {
    double a = rn_tensor_get(actual, i), x = rn_tensor_get(expected, i);
    double diff = fabs(a - x), excess;
    if (isnan(a) && isnan(x))
      continue;
    if (isinf(x) && a == x)
      continue;
    if (isnan(diff))
      diff = INFINITY;
    excess = diff - (out->atol + out->rtol * fabs(x));
    if (diff > out->max_abs)
      out->max_abs = diff;
    if (x != 0 && diff / fabs(x) > out->max_rel)
      out->max_rel = diff / fabs(x);
    if (excess > 0)
      out->bad++;
    if (excess > worst_excess) {
      worst_excess = excess;
      out->worst = i;
      out->actual = a;
      out->expected = x;
    }
  }
  return out->bad == 0 ? RN_OK : RN_MISMATCH;
}
