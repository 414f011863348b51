/*
 * format/format_int.h - helpers shared by the files of the format module.
 */
#ifndef OLC_FORMAT_FORMAT_INT_H
#define OLC_FORMAT_FORMAT_INT_H

#include <stddef.h>

/* The longest numeric token olc_format__parse_double accepts. */
#define OLC_FORMAT_NUMBER_MAX 64

/* Longest text olc_format__double produces ("-1.2345678901234567e-308"). */
#define OLC_FORMAT_DOUBLE_MAX 32

/* Writes the shortest round-trip text of a finite value into buf (at least
 * OLC_FORMAT_DOUBLE_MAX bytes, not NUL-terminated); returns its length, or 0
 * when the value is not finite or the C locale is unavailable. */
size_t olc_format__double_text(char *buf, double value);

#endif
