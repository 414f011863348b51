/*
 * onnx_runner's parts: tensors (TensorProto decoding, element access,
 * comparison: tensor.c), the graph (model reading, nodes, execution
 * through olc: graph.c) and the program (onnx_runner.c).
 */
#ifndef ONNX_RUNNER_H
#define ONNX_RUNNER_H

#include <olc/olc.h>

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

/* Exit statuses (onnx_runner's usage text documents them). */
#define RN_OK 0
#define RN_MISMATCH 1
#define RN_BAD_INPUT 2
#define RN_OLC_FAILED 3
#define RN_SKIP 77

/* What failed: the exit status and one line naming file and field. */
typedef struct rn_error {
  int code;
  char message[768];
} rn_error;

/* Records a failure (the first one wins) and returns its code. */
int rn_fail(rn_error *e, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Puts a formatted prefix before e's message; returns e->code. */
int rn_prefix(rn_error *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * A tensor as the runner holds it: a view (dims, strides in elements, the
 * first element) of memory that some tensor owns.  Transpose makes views
 * without copying; the operands of MatMul and Gemm are handed to olc as
 * the views they are.
 */
typedef struct rn_tensor {
  uint32_t dtype; /* OLC_DTYPE_FLOAT32, _FLOAT16, _BFLOAT16 */
  uint32_t rank;  /* 0 .. OLC_TENSOR_MAX_RANK */
  int64_t dims[OLC_TENSOR_MAX_RANK];
  int64_t strides[OLC_TENSOR_MAX_RANK];
  void *data;
  void *owned;  /* the buffer this tensor frees, NULL for a view */
  int constant; /* an initializer, or a view of one */
} rn_tensor;

/* "float32", "float16", "bfloat16" (the dtype property's values). */
const char *rn_dtype_name(uint32_t dtype);
/* Bytes of one element (0 for an unknown dtype). */
size_t rn_dtype_size(uint32_t dtype);
/* The number of elements (1 for rank 0). */
int64_t rn_tensor_count(const rn_tensor *t);
/* A new contiguous row-major tensor of the dims; RN_OK or an error. */
int rn_tensor_alloc(rn_tensor *t, uint32_t dtype, uint32_t rank, const int64_t *dims, rn_error *e);
void rn_tensor_free(rn_tensor *t);
/* The tensor's description for olc (a view of the same memory). */
olc_tensor rn_tensor_olc(const rn_tensor *t);
/* "3x4" (at most size bytes). */
void rn_dims_text(char *out, size_t size, uint32_t rank, const int64_t *dims);

/* Element i (row-major order over dims) of a view, as a double. */
double rn_tensor_get(const rn_tensor *t, int64_t i);
/* Element at a flat offset (in elements) of data, as a double. */
double rn_load(uint32_t dtype, const void *data, int64_t offset);
/* Stores v at a flat offset, rounded to nearest even for float16/bfloat16. */
void rn_store(uint32_t dtype, void *data, int64_t offset, double v);

/* IEEE binary16 and bfloat16 conversions (round to nearest even). */
float rn_half_to_float(uint16_t h);
uint16_t rn_float_to_half(float f);
float rn_bfloat16_to_float(uint16_t b);
uint16_t rn_float_to_bfloat16(float f);

/*
 * Decodes a TensorProto into t (an owned contiguous buffer).  where names
 * it in messages ("FILE: tensor 'x'").  RN_OK or RN_BAD_INPUT.
 */
int rn_tensor_decode(rn_tensor *t, const Onnx__TensorProto *p, const char *where, rn_error *e);

/* The whole file (free()), or NULL: *missing set when it does not exist
 * (nothing recorded in e), else the failure recorded in e. */
unsigned char *rn_read_file(size_t *len, const char *path, int *missing, rn_error *e);

/*
 * Reads a TensorProto file: *proto (freed with
 * onnx__tensor_proto__free_unpacked) and the decoded tensor.  RN_OK,
 * RN_BAD_INPUT, or -1 when the file does not exist (nothing printed).
 */
int rn_tensor_read(rn_tensor *t, Onnx__TensorProto **proto, const char *path, rn_error *e);

/* Tolerances of the comparison. */
typedef struct rn_tolerance {
  double rtol, atol; /* < 0: the dtype's default */
} rn_tolerance;

/* The comparison's result for one output. */
typedef struct rn_compare {
  int64_t count, bad;      /* elements, elements outside the tolerance */
  int64_t worst;           /* index of the largest excess over the tolerance */
  double max_abs;          /* largest |actual - expected| */
  double max_rel;          /* largest |actual - expected| / |expected| (expected != 0) */
  double rtol, atol;       /* what was applied */
  double actual, expected; /* at worst */
} rn_compare;

/*
 * Compares actual with expected as numpy.testing.assert_allclose does
 * (|a - e| <= atol + rtol * |e|, NaN equal to NaN).  Shapes and dtypes
 * must agree: otherwise RN_MISMATCH with the message naming both.
 */
int rn_tensor_compare(rn_compare *out, const rn_tensor *actual, const rn_tensor *expected,
                      const rn_tolerance *tol, rn_error *e);

/* ---------------------------------------------------------------- graph */

typedef struct rn_graph rn_graph;

/* How the graph runs through olc. */
typedef struct rn_run_options {
  const char *backend; /* the plugin serving MatMul and Gemm ("cpu_gemm") */
  int select_mode;     /* olc_select_mode */
  int verbose;         /* print each binding's selection */
} rn_run_options;

/*
 * Reads and checks a model: every node one of MatMul, Gemm, Transpose,
 * Add, Relu of the default domain with its inputs defined before it.
 * RN_OK or RN_BAD_INPUT.
 */
int rn_graph_load(rn_graph **out, const char *path, rn_error *e);
void rn_graph_free(rn_graph *g);
/* The graph inputs fed by test data (those that are not initializers). */
size_t rn_graph_input_count(const rn_graph *g);
const char *rn_graph_input_name(const rn_graph *g, size_t i);
size_t rn_graph_output_count(const rn_graph *g);
const char *rn_graph_output_name(const rn_graph *g, size_t i);

/*
 * Runs the graph on inputs (rn_graph_input_count of them, in order; their
 * data borrowed until the next run): MatMul and Gemm through olc on host,
 * the others in the runner.  The outputs are valid until the next run or
 * rn_graph_free.  RN_OK, RN_BAD_INPUT (shapes that do not fit the
 * operator), RN_OLC_FAILED, RN_SKIP (the backend is not loaded here).
 */
int rn_graph_run(rn_graph *g, olc_host *host, const rn_run_options *opt, const rn_tensor *inputs,
                 rn_error *e);
const rn_tensor *rn_graph_output(const rn_graph *g, size_t i);

#endif /* ONNX_RUNNER_H */
