/*
 * tests/store/test_version.c - the release version three ways agree: the
 * macros of olc/version.h, olc_version() of the library, and the CMake
 * project version (OLC_TEST_PROJECT_VERSION, given by the build).  The
 * SONAME is checked by soname.cmake (test_soname).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "olc/olc.h"
#include "test_support.h"

#ifndef OLC_TEST_PROJECT_VERSION
#error "OLC_TEST_PROJECT_VERSION must be defined (the CMake project version)"
#endif

static void test_macros_and_library(void) {
  char text[64];
  snprintf(text, sizeof text, "%d.%d.%d", OLC_VERSION_MAJOR, OLC_VERSION_MINOR, OLC_VERSION_PATCH);
  CU_ASSERT_STRING_EQUAL(text, OLC_VERSION_STRING);
  CU_ASSERT_STRING_EQUAL(olc_version(), OLC_VERSION_STRING);
  CU_ASSERT_EQUAL(OLC_VERSION_NUMBER,
                  OLC_VERSION_MAJOR * 10000 + OLC_VERSION_MINOR * 100 + OLC_VERSION_PATCH);
  /* Each part below 100, or the combined number would be ambiguous. */
  CU_ASSERT(OLC_VERSION_MINOR < 100 && OLC_VERSION_PATCH < 100);
}

static void test_project_version(void) {
  CU_ASSERT_STRING_EQUAL(OLC_VERSION_STRING, OLC_TEST_PROJECT_VERSION);
  CU_ASSERT_STRING_EQUAL(olc_version(), OLC_TEST_PROJECT_VERSION);
}

/* Release 1.0: what a program compiled against these headers can test. */
static void test_release_1_0(void) {
  CU_ASSERT_EQUAL(OLC_VERSION_MAJOR, 1);
#if OLC_VERSION_NUMBER < 10000
  CU_FAIL("OLC_VERSION_NUMBER below 1.0.0 in a 1.x release");
#endif
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("version", NULL, NULL);
  CU_add_test(s, "olc/version.h agrees with olc_version()", test_macros_and_library);
  CU_add_test(s, "both are the CMake project version", test_project_version);
  CU_add_test(s, "a 1.x release", test_release_1_0);
  return olc_test_run(argc, argv);
}
