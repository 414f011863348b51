/* store/version.c - the library version string. */
#include "olc/store.h"

#define OLC_STR2(x) #x
#define OLC_STR(x) OLC_STR2(x)

#if defined(OLC_VERSION_MAJOR) && defined(OLC_VERSION_MINOR) && defined(OLC_VERSION_PATCH)
#define OLC_VERSION_TEXT                                                                           \
  OLC_STR(OLC_VERSION_MAJOR) "." OLC_STR(OLC_VERSION_MINOR) "." OLC_STR(OLC_VERSION_PATCH)
#else
#error "OLC_VERSION_MAJOR/MINOR/PATCH come from the CMake project version"
#endif

const char *olc_version(void) { return OLC_VERSION_TEXT; }
