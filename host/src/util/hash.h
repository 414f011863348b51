/*
 * util/hash.h - the 64-bit string hash shared by the store's candidate
 * index and the config parser's name sets.  Not cryptographic: inputs are
 * compared exactly after a hash match, so collisions cost time, never
 * correctness.
 */
#ifndef OLC_UTIL_HASH_H
#define OLC_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A finalizer that spreads every input bit over the whole word. */
static inline uint64_t olc_hash__mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/* FNV-1a over the NUL-terminated s (NULL hashes as ""), chained from h. */
static inline uint64_t olc_hash__str(uint64_t h, const char *s) {
  const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");
  h ^= 0xcbf29ce484222325ULL;
  for (; *p != 0; p++) {
    h ^= *p;
    h *= 0x100000001b3ULL;
  }
  return olc_hash__mix(h ^ 0xff); /* the terminator keeps "ab"+"c" apart from "a"+"bc" */
}

/* The same hash as olc_hash__str over the len bytes at s (a prefix of a
 * string hashes as the string it would be if cut there). */
static inline uint64_t olc_hash__mem(uint64_t h, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i;
  h ^= 0xcbf29ce484222325ULL;
  for (i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return olc_hash__mix(h ^ 0xff);
}

#endif
