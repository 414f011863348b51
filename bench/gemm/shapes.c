/*
 * shapes.c - bench_gemm's shape tables (--table NAME).
 */
#include <string.h>

#include "bench_gemm.h"

/* The default: what runtimes meet and what issue 40 holds cpu_gemm to
 * against the inference peers: cubes from small to large; decode (one to
 * sixteen rows against a 4096-wide or LLaMA-7B MLP weight); BERT-base's
 * seq-128 products (attention 768x768, MLP 768 -> 3072); and mid shapes
 * from speech and vision models (Whisper's 1500 frames, a ResNet/ViT
 * 196-patch layer, a 35-row product). */
static const shape peers_shapes[] = {
    {32, 32, 32},     {64, 64, 64},     {256, 256, 256}, {1024, 1024, 1024}, {2048, 2048, 2048},
    {1, 4096, 4096},  {1, 11008, 4096}, {4, 4096, 4096}, {16, 4096, 4096},   {128, 768, 768},
    {128, 3072, 768}, {64, 1500, 2816}, {35, 700, 2048}, {196, 256, 2304}};

/* The earlier default (issue 14's table, the README's results before the
 * inference peers): cubes and the earlier skinny shapes; small problems;
 * matrix-vector and thin shapes with the matrix in cache (4-16 MiB), at
 * 64 MiB (partly served by the last-level cache) and at 256 MiB (beyond
 * any). */
static const shape classic_shapes[] = {
    {256, 256, 256},  {512, 512, 512},  {1024, 1024, 1024}, {2048, 2048, 2048}, {2048, 2048, 256},
    {64, 4096, 4096}, {4096, 64, 4096}, {32, 32, 32},       {64, 1, 1216},      {1, 1024, 1024},
    {1024, 1, 1024},  {4, 1024, 1024},  {1024, 4, 1024},    {2048, 1, 2048},    {1, 4096, 4096},
    {4096, 1, 4096},  {4, 4096, 4096},  {4096, 4, 4096},    {1, 8192, 8192},    {8192, 1, 8192}};

#define COUNT(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* Both, without the shapes they share. */
static shape all_shapes[COUNT(peers_shapes) + COUNT(classic_shapes)];

const char *const bench_shape_table_names = "peers, classic, all";

const shape *bench_shape_table(const char *name, int *count) {
  if (strcmp(name, "peers") == 0) {
    *count = COUNT(peers_shapes);
    return peers_shapes;
  }
  if (strcmp(name, "classic") == 0) {
    *count = COUNT(classic_shapes);
    return classic_shapes;
  }
  if (strcmp(name, "all") == 0) {
    int n = 0;
    for (int i = 0; i < COUNT(peers_shapes); i++)
      all_shapes[n++] = peers_shapes[i];
    for (int i = 0; i < COUNT(classic_shapes); i++) {
      int seen = 0;
      for (int j = 0; j < COUNT(peers_shapes); j++)
        seen |= memcmp(&classic_shapes[i], &peers_shapes[j], sizeof(shape)) == 0;
      if (!seen)
        all_shapes[n++] = classic_shapes[i];
    }
    *count = n;
    return all_shapes;
  }
  return NULL;
}
