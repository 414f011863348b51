/*
 * bucket.h - the buckets cpu_gemm reports for the m and n of a workload's
 * key (plugin.h, key): every value up to an exact limit (16 for m, 64 for
 * n) is its own bucket, larger ones fall into power-of-two ranges
 * (2^j, 2^(j+1)], written "<lo>-<hi>" with lo = 2^j + 1 ("129-256").  A
 * runtime that meets many sizes of one dimension then gets one record per
 * bucket; candidates are generated for the bucket's upper end, so that every
 * policy of a bucket is blocked for all of its sizes.  The evidence for the
 * limits (bench_gemm --buckets) is in bench/gemm/README.md.
 */
#ifndef CPU_GEMM_BUCKET_H
#define CPU_GEMM_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/* Exact limits: below them a few rows (MR = 12 or 6, the thin kernels at
 * m <= 4) or a few columns (NR = 32 or 16) change the best policy. */
#define CG_BUCKET_EXACT_M 16
#define CG_BUCKET_EXACT_N 64

/* The bucket [*lo, *hi] holding v (v >= 1), exact up to `exact` (a power
 * of two). */
void cg_bucket_range(int64_t v, int64_t exact, int64_t *lo, int64_t *hi);

/* The bucket's text ("7", "129-256"); returns its length (< cap), or 0
 * when cap is too small. */
size_t cg_bucket_text(char *out, size_t cap, int64_t v, int64_t exact);

#endif
