/*
 * format/format.h - the version-1 text codec.  Bytes in, records out, and
 * back.  No file-system access, no locale dependence, no strto* / sscanf / strlen
 * on file bytes.
 *
 *   onnx_light_calibration_profiles 1
 *   profile exact calibrated
 *   backend "example_gpu"
 *   ...
 *   end
 *
 * Quoted values follow std::quoted with '"' as delimiter and '\\' as escape:
 * only those two bytes are escaped on output; every other byte (LF, CR, NUL,
 * 0xFF) is written raw, so the reader tokenizes bytes, not lines.
 */
#ifndef OLC_FORMAT_FORMAT_H
#define OLC_FORMAT_FORMAT_H

#include <stddef.h>

#include "record/record.h"
#include "util/buf.h"

#define OLC_FORMAT_MAGIC "onnx_light_calibration_profiles"
#define OLC_FORMAT_VERSION 1u

typedef struct olc_format_limits {
  size_t max_file_size;         /* whole input; default 64 MiB */
  size_t max_value_size;        /* one quoted value; default 16 MiB */
  size_t max_fields_per_record; /* default 4096 */
  size_t max_records;           /* default 10 million */
} olc_format_limits;

#define OLC_FORMAT_LIMITS_DEFAULT                                                                  \
  { (size_t)64 << 20, (size_t)16 << 20, 4096, 10000000 }

/*
 * Parses a whole file into out (which must be freshly initialized; on
 * failure it is left empty).  Records keep their file order; portable
 * structures are sorted.  limits may be NULL for the defaults, and a zero
 * field in it also means that field's default.
 *
 * Returns OLC_OK, OLC_E_MALFORMED (err->line/column/offset and message say
 * where and why: "empty file", "bad header", "unknown keyword \"x\"",
 * "missing field \"policy\"", "repeated field \"backend\"", "duplicate
 * record", "unterminated quote", "unexpected byte after closing quote",
 * "record cut short", "value too large", "too many fields", ...),
 * OLC_E_VERSION (a newer version; err->message names found and supported),
 * OLC_E_LIMIT (file too large; checked before anything else, so line and
 * column are 0 and offset is the limit), OLC_E_NOMEM.  Columns count bytes
 * from the last LF, also an LF inside a quoted value.  The in-file limits
 * (value size, fields per record, records) are OLC_E_MALFORMED with the
 * position of the offending value, field or record.
 */
olc_status olc_format__parse(olc_recset *out, const unsigned char *bytes, size_t len,
                             const olc_format_limits *limits, olc_error *err);

/*
 * Appends the canonical serialization of set to out: the header, then every
 * record in canonical order (the order of olc_recset__sort) with a fixed
 * field order.  Does not modify set.  Returns OLC_OK or OLC_E_NOMEM, or
 * OLC_E_INVALID for a set the reader would reject (a non-finite
 * measurement, a negative thread count, a repeated structure name, two
 * records with one identity); out may then hold a partial text.
 * A set that is already in canonical order is written without sorting.
 */
olc_status olc_format__write(olc_buf *out, const olc_recset *set);

/* Bytes already known to be one record's canonical serialization. */
typedef struct olc_format_span {
  const unsigned char *bytes; /* NULL: serialize the record */
  size_t len;
} olc_format_span;

/*
 * Appends the canonical serialization of a canonical set (normalized:
 * identity order, unique identities, as olc_recset__normalize leaves it)
 * in set order, copying reuse[i] for record i where reuse (may be NULL) has
 * bytes: the caller vouches that they are record i's canonical bytes (kept
 * from an earlier write of the same record), so the text equals
 * olc_format__write's.  Adjacent spans that lie one after the other are
 * copied at once.  offs (set->count + 1 entries, may be NULL) receives the
 * offset in out of each record and, last, the end.  Returns OLC_OK,
 * OLC_E_NOMEM, or OLC_E_INVALID (as olc_format__write, and for two
 * serialized neighbours out of order).
 */
olc_status olc_format__write_spans(olc_buf *out, size_t *offs, const olc_recset *set,
                                   const olc_format_span *reuse);

/* Appends one value in std::quoted form. */
olc_status olc_format__quote(olc_buf *out, const unsigned char *s, size_t len);

/* Appends the shortest decimal text of a finite double that reads back
 * bit-identically, independent of the C locale: the fewest significant
 * digits, in fixed or scientific form, whichever is shorter (fixed on a
 * tie), as C++17 std::to_chars writes it ("2.5", "100", "1e+06", "1e-07",
 * "-0").  OLC_E_INVALID for inf/nan. */
olc_status olc_format__double(olc_buf *out, double value);

/* Parses a double written by olc_format__double (or any decimal/exponent
 * form) from s[0..len), independent of the locale. Rejects inf/nan and
 * anything but [-+0-9.eE]. OLC_OK or OLC_E_MALFORMED. */
olc_status olc_format__parse_double(double *out, const char *s, size_t len);

#endif
