/*
 * format/parse_int.h - the parser state shared by parse.c,
 * parse_error.c and parse_finish.c.
 */
#ifndef OLC_FORMAT_PARSE_INT_H
#define OLC_FORMAT_PARSE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "util/error.h"

/* Field keywords; the order is the canonical (write) order. */
enum {
  PF_BACKEND = 0,
  PF_OPERATOR,
  PF_IMPLEMENTATION,
  PF_MODEL_DIGEST,
  PF_PROCESSOR,
  PF_THREAD_COUNT,
  PF_STRUCTURE,
  PF_MEASUREMENT,
  PF_POLICY,
  PF_END,
  PF_PROFILE,
  PF_UNKNOWN
};

/* A structure entry with the position of its field, for error reports. */
typedef struct olc_format_prop {
  olc_property p;
  const unsigned char *at;
} olc_format_prop;

typedef struct olc_format_parser {
  const unsigned char *base, *p, *end;
  olc_format_limits lim;
  olc_recset *set;
  olc_error *err;
  char *pool; /* string pool: as many bytes as the file */
  /* scratch for the record being read */
  olc_measurement *ms;
  size_t ms_count, ms_cap;
  olc_format_prop *props;
  size_t props_count, props_cap;
  /* file offset of each record's `profile`, for duplicate reports */
  size_t *rec_off;
  size_t rec_off_cap;
} olc_format_parser;

const char *olc_format__field_name(int field);
void olc_format__show(char *out, size_t size, const unsigned char *s, size_t n);
/* 1-based line and byte column of at. */
void olc_format__position(const unsigned char *base, const unsigned char *at, uint32_t *line,
                          uint32_t *column);
/* Fills ps->err (message, line, column, offset of at); returns code. */
olc_status olc_format__fail(olc_format_parser *ps, const unsigned char *at, olc_status code,
                            const char *fmt, ...) OLC_PRINTF(4, 5);
/* Reads one quoted value at ps->p into the pool. */
olc_status olc_format__quoted(olc_format_parser *ps, int field, int allow_nul, const char **out,
                              size_t *out_len);
/* Sorts and checks the structure, copies the scratch arrays into the arena
 * and appends r to the set. */
olc_status olc_format__finish_record(olc_format_parser *ps, olc_record *r, const unsigned char *kw);
/* 1 when the records are in strictly increasing identity order, as every
 * file this library writes is: then no identity repeats, and one
 * comparison per record replaces the duplicate check's hashing. */
int olc_format__strictly_ordered(const olc_recset *set);
/* Rejects the first record (in file order) whose identity repeats. */
olc_status olc_format__check_duplicates(olc_format_parser *ps);

#endif
