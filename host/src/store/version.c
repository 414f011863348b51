/* store/version.c - the library version string. */
#include "olc/store.h"

#define OLC_STR2(x) #x
#define OLC_STR(x) OLC_STR2(x)

#if !defined(OLC_PROJECT_VERSION_MAJOR) || !defined(OLC_PROJECT_VERSION_MINOR) ||                  \
    !defined(OLC_PROJECT_VERSION_PATCH)
#error "OLC_PROJECT_VERSION_MAJOR/MINOR/PATCH come from the CMake project version"
#endif

/* olc/version.h is written by hand: a release that changes project(olc
 * VERSION ...) without it does not build. */
_Static_assert(OLC_VERSION_MAJOR == OLC_PROJECT_VERSION_MAJOR &&
                   OLC_VERSION_MINOR == OLC_PROJECT_VERSION_MINOR &&
                   OLC_VERSION_PATCH == OLC_PROJECT_VERSION_PATCH,
               "olc/version.h differs from the CMake project version");

#define OLC_VERSION_TEXT                                                                           \
  OLC_STR(OLC_PROJECT_VERSION_MAJOR)                                                               \
  "." OLC_STR(OLC_PROJECT_VERSION_MINOR) "." OLC_STR(OLC_PROJECT_VERSION_PATCH)

const char *olc_version(void) { return OLC_VERSION_TEXT; }
