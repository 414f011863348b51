/*
 * Text helpers shared by the modules: UTF-8 well-formedness, absolute
 * paths and separators, and freeing a list of names.  Thread-safe.
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

/* 1 when c separates path components here ('/'; Windows: '\\' too). */
int olc_util__is_sep(char c);

/* dir and name joined by this platform's separator ('\\' on Windows;
 * none added when dir ends with one): malloc'd, NULL when out of memory. */
char *olc_util__join_path(const char *dir, const char *name);

/* Trims blanks (spaces and tabs) from both ends of s[0..*len): returns
 * the first byte kept and sets *len to what is left (0: all blank). */
const char *olc_util__trim(const char *s, size_t *len);

/* Frees names[0..count) and names (NULL: nothing). */
void olc_util__free_names(char **names, size_t count);

#endif /* OLC_UTIL_TEXT_H */
