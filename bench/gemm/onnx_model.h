/*
 * onnx_model.h - the bytes of a one-node ONNX model (a small protobuf
 * writer: the bench needs no ONNX library to feed ONNX Runtime).
 */
#ifndef BENCH_GEMM_ONNX_MODEL_H
#define BENCH_GEMM_ONNX_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Y = MatMul(A, B): A float [m, k] the input "A", B float [k, n] an
 * initializer holding b (row-major), Y float [m, n] the output "Y"; opset
 * 13.  Returns malloc'd bytes (free them) and *len, or NULL when out of
 * memory. */
unsigned char *bench_onnx_matmul_model(int64_t m, int64_t n, int64_t k, const float *b,
                                       size_t *len);

#endif
