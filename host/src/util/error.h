/*
 * util/error.h - filling an olc_error.  All helpers accept err == NULL.
 */
#ifndef OLC_UTIL_ERROR_H
#define OLC_UTIL_ERROR_H

#include "olc/error.h"

#if defined(__MINGW32__) && defined(__MINGW_PRINTF_FORMAT)
/* mingw-w64's printf understands %zu only under its own format archetype. */
#define OLC_PRINTF(fmt, args) __attribute__((format(__MINGW_PRINTF_FORMAT, fmt, args)))
#elif defined(__GNUC__)
#define OLC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define OLC_PRINTF(fmt, args)
#endif

/* Sets code, where (may be NULL) and a formatted message; returns code. */
olc_status olc_error__set(olc_error *err, olc_status code, const char *where, const char *fmt, ...)
    OLC_PRINTF(4, 5);

/* The same, and records sys_errno; the message gets ": <strerror>" appended. */
olc_status olc_error__sys(olc_error *err, olc_status code, int sys_errno, const char *where,
                          const char *fmt, ...) OLC_PRINTF(5, 6);

/* Sets line/column/offset of a parse error; returns err->code (or OLC_E_MALFORMED). */
void olc_error__at(olc_error *err, uint32_t line, uint32_t column, uint64_t offset);

/* Maps an errno to OLC_E_NOSPC for ENOSPC/EDQUOT, else the given fallback. */
olc_status olc_error__from_errno(int sys_errno, olc_status fallback);

/* Thread-safe strerror into a caller buffer. */
const char *olc_error__strerror(int sys_errno, char *buf, size_t size);

#endif
