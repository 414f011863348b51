/*
 * Text checks shared by the modules: UTF-8 well-formedness and absolute
 * paths.  Pure functions of their arguments; thread-safe.
 */
#ifndef OLC_UTIL_TEXT_H
#define OLC_UTIL_TEXT_H

#include <stddef.h>

/* 1 when text[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF), else 0.  NUL bytes are ASCII. */
int olc_util__utf8_valid(const char *text, size_t len);

/* 1 when path is absolute on this platform (Windows: a drive letter or a
 * leading slash or backslash), else 0.  path must not be NULL. */
int olc_util__is_absolute(const char *path);

#endif /* OLC_UTIL_TEXT_H */
