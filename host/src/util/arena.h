/*
 * util/arena.h - a bump allocator: many small allocations freed at once.
 * Records of one snapshot live in one arena, so loading 100k records costs a
 * few large mallocs, not a million small ones.
 */
#ifndef OLC_UTIL_ARENA_H
#define OLC_UTIL_ARENA_H

#include <stddef.h>

typedef struct olc_arena_block olc_arena_block;

typedef struct olc_arena {
  olc_arena_block *head;
  size_t total; /* bytes handed out, for statistics */
} olc_arena;

#define OLC_ARENA_INIT                                                                             \
  { NULL, 0 }

/* Aligned to max_align_t. NULL on out of memory or overflow. */
void *olc_arena__alloc(olc_arena *arena, size_t size);
/* Copies len bytes and appends a NUL. */
char *olc_arena__strndup(olc_arena *arena, const char *s, size_t len);
char *olc_arena__strdup(olc_arena *arena, const char *s);
void *olc_arena__memdup(olc_arena *arena, const void *p, size_t len);
void olc_arena__free(olc_arena *arena);

#endif
