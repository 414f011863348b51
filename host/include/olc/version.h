/*
 * olc/version.h - the library's release version, for the preprocessor.
 *
 * The version of the headers a program was compiled with; olc_version()
 * (olc/store.h) gives the library's at run time.  They follow semantic
 * versioning: a program built against MAJOR.x runs with any library of the
 * same MAJOR (the shared library's SONAME is libolc.so.MAJOR), and the
 * versioned structs (olc/store.h) let an older program's structs through.
 *
 * The plugin ABI has a version of its own (OLC_PLUGIN_ABI_MAJOR and
 * OLC_PLUGIN_ABI_MINOR in olc/plugin.h), independent of this one: a
 * release of the library may add to the ABI's minor, and a plugin built
 * against any 1.x minor of the ABI loads in every release that speaks ABI
 * major 1.
 *
 * These macros equal the CMake project version the library was built from
 * (project(olc VERSION ...)); host/src/store/version.c and
 * tests/store/test_version.c check it.
 */
#ifndef OLC_VERSION_H
#define OLC_VERSION_H

#define OLC_VERSION_MAJOR 1
#define OLC_VERSION_MINOR 0
#define OLC_VERSION_PATCH 0
/* One number to compare: MAJOR * 10000 + MINOR * 100 + PATCH (10000 for
 * 1.0.0), e.g. #if OLC_VERSION_NUMBER >= 10100. */
#define OLC_VERSION_NUMBER (OLC_VERSION_MAJOR * 10000 + OLC_VERSION_MINOR * 100 + OLC_VERSION_PATCH)
/* "MAJOR.MINOR.PATCH", what olc_version() returns for these headers. */
#define OLC_VERSION_STRING "1.0.0"

#endif /* OLC_VERSION_H */
