/* config/values.c - value parsers and path helpers of the ini config. */
#include "config/config.h"
#include "util/platform.h"
#include "util/text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <unistd.h>
#endif

/* Relative path from the installed bin directory to the installed plugin
 * directory; config/CMakeLists.txt computes it from GNUInstallDirs. */
#ifndef OLC_BIN_TO_PLUGIN_DIR
#define OLC_BIN_TO_PLUGIN_DIR "../lib/olc/plugins"
#endif
/* The same to the installed system profile layer's directory. */
#ifndef OLC_BIN_TO_PROFILE_DIR
#define OLC_BIN_TO_PROFILE_DIR "../share/onnx-light/profiles.d"
#endif
/* The same two from the directory that holds the installed library (its
 * libdir; bin on Windows, where a DLL lives next to the programs). */
#ifndef OLC_LIB_TO_PLUGIN_DIR
#define OLC_LIB_TO_PLUGIN_DIR "olc/plugins"
#endif
#ifndef OLC_LIB_TO_PROFILE_DIR
#define OLC_LIB_TO_PROFILE_DIR "../share/onnx-light/profiles.d"
#endif

static int lower_eq(const char *a, const char *b) {
  for (; *a != 0 && *b != 0; a++, b++) {
    char ca = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
    if (ca != *b)
      return 0;
  }
  return *a == 0 && *b == 0;
}

int olc_config__parse_bool(int *out, const char *s) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  size_t i;
  for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (lower_eq(s, yes[i])) {
      *out = 1;
      return 1;
    }
    if (lower_eq(s, no[i])) {
      *out = 0;
      return 1;
    }
  }
  return 0;
}

int olc_config__parse_int(int64_t *out, const char *s, int64_t min, int64_t max) {
  int negative = 0;
  uint64_t v = 0;
  const char *p = s;
  if (*p == '-') {
    negative = 1;
    p++;
  } else if (*p == '+') {
    p++;
  }
  if (*p < '0' || *p > '9')
    return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (v > (UINT64_MAX - 9u) / 10u)
      return 0;
    v = v * 10u + (uint64_t)(*p - '0');
  }
  if (*p != 0 || v > (uint64_t)INT64_MAX)
    return 0;
  *out = negative ? -(int64_t)v : (int64_t)v;
  return *out >= min && *out <= max;
}

/* Decimal digits are accumulated as an integer mantissa and scaled by a
 * power of ten: strtod would follow the C locale's decimal point, and a
 * library must not depend on the program's setlocale. */
int olc_config__parse_decimal(double *out, const char *s) {
  const char *p = s;
  double mantissa = 0.0;
  long exponent = 0;
  int digits = 0, negative = 0;
  if (*p == '-' || *p == '+')
    negative = *p++ == '-';
  for (; *p >= '0' && *p <= '9'; p++, digits++)
    mantissa = mantissa * 10.0 + (double)(*p - '0');
  if (*p == '.') {
    for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
      mantissa = mantissa * 10.0 + (double)(*p - '0');
      exponent--;
    }
  }
  if (digits == 0)
    return 0;
  if (*p == 'e' || *p == 'E') {
    int64_t e;
    if (!olc_config__parse_int(&e, p + 1, -300, 300))
      return 0;
    exponent += (long)e;
  } else if (*p != 0) {
    return 0;
  }
  mantissa *= pow(10.0, (double)exponent);
  /* Finite test without isfinite(), which mingw-w64 warns about: inf - inf
   * and nan - nan are nan, which compares unequal to 0. */
  if (!(mantissa - mantissa == 0.0))
    return 0;
  *out = negative ? -mantissa : mantissa;
  return 1;
}

static char *join3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *p = malloc(n);
  if (p != NULL)
    snprintf(p, n, "%s%s%s", a, b, c);
  return p;
}

char *olc_config__resolve_path(const char *value, const char *base_dir, const char **why) {
  static const char exe_token[] = "@exe_dir@";
  static const char install_token[] = "@install_plugin_dir@";
  static const char profile_token[] = "@install_profile_dir@";
  char *result = NULL;
  char cwd[PATH_MAX];
  *why = "out of memory";
  if (strncmp(value, exe_token, sizeof exe_token - 1) == 0 ||
      strncmp(value, install_token, sizeof install_token - 1) == 0 ||
      strncmp(value, profile_token, sizeof profile_token - 1) == 0) {
    int install = strncmp(value, install_token, sizeof install_token - 1) == 0;
    int profile = !install && value[1] == 'i';
    const char *rest = value +
                       (install   ? sizeof install_token
                        : profile ? sizeof profile_token
                                  : sizeof exe_token) -
                       1;
    char *exe = olc_util__exe_dir();
    if (exe == NULL) {
      *why = "the executable's directory is unknown";
      return NULL;
    }
    result = install   ? join3(exe, "/" OLC_BIN_TO_PLUGIN_DIR, rest)
             : profile ? join3(exe, "/" OLC_BIN_TO_PROFILE_DIR, rest)
                       : join3(exe, "", rest);
    free(exe);
    return result;
  }
  if (value[0] == 0) {
    *why = "empty path";
    return NULL;
  }
  if (olc_util__is_absolute(value))
    return strdup(value);
  if (base_dir == NULL) {
#ifndef _WIN32
    if (getcwd(cwd, sizeof cwd) == NULL) {
      *why = "the current directory is unknown";
      return NULL;
    }
    base_dir = cwd;
#else
    (void)cwd;
    base_dir = ".";
#endif
  }
  return join3(base_dir, "/", value);
}

char *olc_config__resolve_library_path(const char *value) {
  static const char install_token[] = "@install_plugin_dir@";
  static const char profile_token[] = "@install_profile_dir@";
  int install = strncmp(value, install_token, sizeof install_token - 1) == 0;
  int profile = strncmp(value, profile_token, sizeof profile_token - 1) == 0;
  char *lib, *result;
  if (!install && !profile)
    return NULL;
  lib = olc_util__library_dir();
  if (lib == NULL)
    return NULL;
  result = install ? join3(lib, "/" OLC_LIB_TO_PLUGIN_DIR, value + sizeof install_token - 1)
                   : join3(lib, "/" OLC_LIB_TO_PROFILE_DIR, value + sizeof profile_token - 1);
  free(lib);
  return result;
}
