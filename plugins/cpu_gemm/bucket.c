/*
 * bucket.c - see bucket.h.
 */
#include "bucket.h"

#include <stdio.h>

void cg_bucket_range(int64_t v, int64_t exact, int64_t *lo, int64_t *hi) {
  int64_t top = exact;
  if (v <= exact) {
    *lo = *hi = v;
    return;
  }
  while (top < v)
    top *= 2;
  *lo = top / 2 + 1;
  *hi = top;
}

size_t cg_bucket_text(char *out, size_t cap, int64_t v, int64_t exact) {
  int64_t lo, hi;
  int w;
  cg_bucket_range(v, exact, &lo, &hi);
  if (lo == hi)
    w = snprintf(out, cap, "%lld", (long long)lo);
  else
    w = snprintf(out, cap, "%lld-%lld", (long long)lo, (long long)hi);
  return w > 0 && (size_t)w < cap ? (size_t)w : 0;
}
