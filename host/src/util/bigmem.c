/* util/bigmem.c - huge-page advice for large heap blocks (bigmem.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#endif
#include "util/bigmem.h"

#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define BIGMEM_HUGE ((uintptr_t)2 << 20)

void olc_bigmem__advise(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  uintptr_t lo, hi;
  if (p == NULL || n < OLC_BIGMEM_MIN)
    return;
  /* Only whole huge pages inside the block: the advice must not reach
   * memory the block does not own. */
  lo = ((uintptr_t)p + BIGMEM_HUGE - 1) & ~(BIGMEM_HUGE - 1);
  hi = ((uintptr_t)p + n) & ~(BIGMEM_HUGE - 1);
  if (hi > lo)
    (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}
