/*
 * util/bigmem.h - advice for large heap blocks (the store's file bytes,
 * its parse pool, record arrays, the serialization).
 */
#ifndef OLC_UTIL_BIGMEM_H
#define OLC_UTIL_BIGMEM_H

#include <stddef.h>

/* Blocks at least this large are advised. */
#define OLC_BIGMEM_MIN ((size_t)4 << 20)

/*
 * Asks the kernel to back the 2 MiB-aligned pages inside [p, p + n) with
 * transparent huge pages (Linux madvise MADV_HUGEPAGE; nothing elsewhere,
 * nothing for blocks under OLC_BIGMEM_MIN).  Touching a fresh 32 MiB block
 * then takes 16 page faults instead of 8192.  Only advice: the block's
 * contents and ownership are unchanged, a refusal is ignored.  Thread-safe.
 */
void olc_bigmem__advise(void *p, size_t n);

#endif
