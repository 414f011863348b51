/* util/arena.c - bump allocator in chained blocks. */
#include "util/arena.h"
#include "util/bigmem.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct olc_arena_block {
  olc_arena_block *next;
  size_t used;
  size_t size;
  max_align_t data[]; /* aligned storage */
};

#define ARENA_ALIGN (sizeof(max_align_t))
#define ARENA_MIN_BLOCK ((size_t)64 * 1024)

void *olc_arena__alloc(olc_arena *arena, size_t size) {
  olc_arena_block *b = arena->head;
  size_t rounded;
  if (size > SIZE_MAX - ARENA_ALIGN)
    return NULL;
  rounded = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
  if (rounded == 0)
    rounded = ARENA_ALIGN;
  if (b == NULL || b->size - b->used < rounded) {
    size_t bsize = ARENA_MIN_BLOCK;
    if (b != NULL && b->size < ((size_t)8 << 20))
      bsize = b->size * 2; /* grow geometrically up to 8 MiB blocks */
    if (bsize < rounded)
      bsize = rounded;
    if (bsize > SIZE_MAX - sizeof(olc_arena_block))
      return NULL;
    b = malloc(sizeof(olc_arena_block) + bsize);
    if (b == NULL)
      return NULL;
    olc_bigmem__advise(b, sizeof(olc_arena_block) + bsize);
    b->next = arena->head;
    b->used = 0;
    b->size = bsize;
    arena->head = b;
  }
  {
    void *p = (unsigned char *)b->data + b->used;
    b->used += rounded;
    arena->total += size;
    return p;
  }
}

char *olc_arena__strndup(olc_arena *arena, const char *s, size_t len) {
  char *p;
  if (len == SIZE_MAX)
    return NULL;
  p = olc_arena__alloc(arena, len + 1);
  if (p == NULL)
    return NULL;
  if (len)
    memcpy(p, s, len);
  p[len] = 0;
  return p;
}

char *olc_arena__strdup(olc_arena *arena, const char *s) {
  return olc_arena__strndup(arena, s, strlen(s));
}

void *olc_arena__memdup(olc_arena *arena, const void *p, size_t len) {
  return olc_arena__strndup(arena, p, len);
}

void olc_arena__free(olc_arena *arena) {
  olc_arena_block *b = arena->head;
  while (b != NULL) {
    olc_arena_block *next = b->next;
    free(b);
    b = next;
  }
  arena->head = NULL;
  arena->total = 0;
}
