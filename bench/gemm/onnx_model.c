/*
 * onnx_model.c - see onnx_model.h.  The protobuf wire format: each field
 * a tag (number << 3 | wire type) then a varint (type 0) or a length and
 * bytes (type 2); a nested message is written into its own buffer and
 * appended as bytes.  Field numbers are onnx.proto's.
 */
#include "onnx_model.h"

#include <stdlib.h>
#include <string.h>

typedef struct pb {
  unsigned char *p;
  size_t len, cap;
  int oom;
} pb;

static void pb_bytes(pb *w, const void *bytes, size_t n) {
  if (w->oom)
    return;
  if (w->len + n > w->cap) {
    size_t cap = w->cap ? w->cap : 64;
    unsigned char *p;
    while (cap < w->len + n)
      cap *= 2;
    p = realloc(w->p, cap);
    if (p == NULL) {
      w->oom = 1;
      return;
    }
    w->p = p, w->cap = cap;
  }
  memcpy(w->p + w->len, bytes, n);
  w->len += n;
}

static void pb_varint(pb *w, uint64_t v) {
  unsigned char b[10];
  size_t n = 0;
  do {
    b[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v != 0);
  pb_bytes(w, b, n);
}

static void pb_int(pb *w, unsigned field, int64_t v) {
  pb_varint(w, (uint64_t)field << 3);
  pb_varint(w, (uint64_t)v);
}

static void pb_len(pb *w, unsigned field, const void *bytes, size_t n) {
  pb_varint(w, (uint64_t)field << 3 | 2);
  pb_varint(w, n);
  pb_bytes(w, bytes, n);
}

static void pb_str(pb *w, unsigned field, const char *s) { pb_len(w, field, s, strlen(s)); }

/* Appends sub as field of w and empties sub. */
static void pb_msg(pb *w, unsigned field, pb *sub) {
  w->oom |= sub->oom;
  pb_len(w, field, sub->p, sub->len);
  free(sub->p);
  memset(sub, 0, sizeof *sub);
}

/* ValueInfoProto: name 1, type 2; TypeProto: tensor_type 1;
 * TypeProto.Tensor: elem_type 1, shape 2; TensorShapeProto: dim 1;
 * Dimension: dim_value 1. */
static void value_info(pb *graph, unsigned field, const char *name, int64_t rows, int64_t cols) {
  pb vi = {0}, type = {0}, tensor = {0}, shape = {0}, dim = {0};
  pb_int(&dim, 1, rows);
  pb_msg(&shape, 1, &dim);
  pb_int(&dim, 1, cols);
  pb_msg(&shape, 1, &dim);
  pb_int(&tensor, 1, 1 /* FLOAT */);
  pb_msg(&tensor, 2, &shape);
  pb_msg(&type, 1, &tensor);
  pb_str(&vi, 1, name);
  pb_msg(&vi, 2, &type);
  pb_msg(graph, field, &vi);
}

unsigned char *bench_onnx_matmul_model(int64_t m, int64_t n, int64_t k, const float *b,
                                       size_t *len) {
  pb model = {0}, graph = {0}, node = {0}, init = {0}, opset = {0};
  /* NodeProto: input 1, output 2, name 3, op_type 4. */
  pb_str(&node, 1, "A");
  pb_str(&node, 1, "B");
  pb_str(&node, 2, "Y");
  pb_str(&node, 3, "matmul");
  pb_str(&node, 4, "MatMul");
  /* TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian,
   * as x86 stores floats). */
  pb_int(&init, 1, k);
  pb_int(&init, 1, n);
  pb_int(&init, 2, 1 /* FLOAT */);
  pb_str(&init, 8, "B");
  pb_len(&init, 9, b, (size_t)(k * n) * sizeof(float));
  /* GraphProto: node 1, name 2, initializer 5, input 11, output 12. */
  pb_msg(&graph, 1, &node);
  pb_str(&graph, 2, "bench_matmul");
  pb_msg(&graph, 5, &init);
  value_info(&graph, 11, "A", m, k);
  value_info(&graph, 12, "Y", m, n);
  /* ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8
   * (OperatorSetIdProto: domain 1, version 2). */
  pb_int(&model, 1, 7);
  pb_str(&model, 2, "olc bench_gemm");
  pb_msg(&model, 7, &graph);
  pb_str(&opset, 1, "");
  pb_int(&opset, 2, 13);
  pb_msg(&model, 8, &opset);
  if (model.oom) {
    free(model.p);
    return NULL;
  }
  *len = model.len;
  return model.p;
}
