/*
 * prefetch.h - the cursor with which the prefetching thin kernels walk
 * the next group of rows of their large operand.  Included by the kernel
 * sources after <immintrin.h> (for _mm_prefetch), inside their ISA guard.
 */
#ifndef CG_KERNELS_PREFETCH_H
#define CG_KERNELS_PREFETCH_H

#include <stdint.h>

/*
 * The prefetching thin kernels (*_vm4_prefetch, *_mv4_prefetch) fetch the
 * next group's rows into L2 while the group's own are used:
 * `rows` segments of `len` floats, `stride` floats apart, one line a
 * pf_line call, in memory order, as many lines a step as the step
 * consumes.  The hardware prefetchers follow each of a group's 8 rows as
 * a stream of its own, and with four FMAs a line and C's lines in between
 * they keep too few lines in flight: a plain read of 8 rows side by side
 * (even of 2 rows far apart) runs below the rate of one sequential
 * stream, and fetching the next group in memory order, one stream for
 * the hardware, brings it back to the sequential rate.  Into L2 (hint
 * T2): a group ahead is 16-128 KiB for rows of 2-16 KiB, which beside the
 * group in use is too much for L1: fetched there it evicts lines in use.
 * Prefetches never fault; the segments lie inside the operand.
 */
typedef struct pf_cursor {
  uintptr_t row; /* an address, not a pointer: after the last row it is
                  * past the operand, where pointer arithmetic is undefined */
  int64_t off, len, stride, rows;
} pf_cursor;

/* The rows after [first, first + rows) of a matrix x, ld floats apart,
 * len floats of each read: as many as `rows`, none at or past `total`
 * (no rows at all after the last group).  The one rule of every
 * prefetching kernel for what it fetches next. */
static inline pf_cursor pf_after(const float *x, int64_t ld, int64_t len, int64_t first,
                                 int64_t rows, int64_t total) {
  const int64_t next = first + rows, left = total - next;
  pf_cursor q = {(uintptr_t)x + (uintptr_t)(next * ld) * sizeof(float), 0, len * 4, ld * 4,
                 left < rows ? left : rows};
  return q;
}

/* Nothing to fetch: the cursor of the kernels that do not prefetch. */
static inline pf_cursor pf_none(void) {
  pf_cursor q = {0, 0, 0, 0, 0};
  return q;
}

static inline void pf_line(pf_cursor *q) {
  if (q->rows <= 0)
    return;
  _mm_prefetch((const char *)(q->row + (uintptr_t)q->off), _MM_HINT_T2);
  q->off += 64;
  if (q->off >= q->len) {
    q->off = 0;
    q->row += (uintptr_t)q->stride;
    q->rows--;
  }
}

#endif
