/*
 * olc/export.h - the one export macro of the library.
 *
 * The library is built with hidden visibility; only declarations marked
 * OLC_API are exported.  Define OLC_STATIC when linking the static library
 * on Windows.
 */
#ifndef OLC_EXPORT_H
#define OLC_EXPORT_H

#if defined(_WIN32) && !defined(OLC_STATIC)
#if defined(OLC_BUILDING)
#define OLC_API __declspec(dllexport)
#else
#define OLC_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define OLC_API __attribute__((visibility("default")))
#else
#define OLC_API
#endif

#endif /* OLC_EXPORT_H */
