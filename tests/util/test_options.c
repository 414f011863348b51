/*
 * tests/util/test_options.c - the versioned-struct copy (util/options.h)
 * over the table of every caller-filled struct: each version's bytes come
 * from the caller, the rest from the defaults, versions 0 and newer are
 * refused with their message; and the tables agree with the headers.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"
#include "util/options.h"

static const olc_options_layout *const layouts[] = {
    &olc_options__store,  &olc_options__save,      &olc_options__lookup,
    &olc_options__host,   &olc_options__calibrate, &olc_options__workload,
    &olc_options__select, &olc_options__execute,   &olc_options__verify,
};
#define NLAYOUTS (sizeof layouts / sizeof layouts[0])

/* A caller's struct of version v: its v's bytes set to 0x5A, then 0xA5 up
 * to past the current size (what must never be read). */
static void check_version(const olc_options_layout *l, uint32_t v) {
  size_t have = l->ends[v - 1], i;
  unsigned char *src = malloc(l->size + 32), *dst = malloc(l->size);
  const unsigned char *def = l->defaults;
  olc_error e;
  uint32_t got;
  CU_ASSERT_PTR_NOT_NULL_FATAL(src);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
  memset(src, 0xA5, l->size + 32);
  memset(src, 0x5A, have);
  memcpy(src, &v, sizeof v);
  OLC_ASSERT_OK(olc_options__load(dst, l, src, "test", &e), &e);
  memcpy(&got, dst, sizeof got);
  CU_ASSERT_EQUAL(got, l->current);
  for (i = sizeof got; i < have; i++)
    if (dst[i] != 0x5A)
      break;
  CU_ASSERT_EQUAL(i, have); /* every byte of version v is the caller's */
  CU_ASSERT(memcmp(dst + have, def + have, l->size - have) == 0); /* the rest: defaults */
  free(src);
  free(dst);
}

static void test_every_version(void) {
  size_t k;
  uint32_t v;
  for (k = 0; k < NLAYOUTS; k++)
    for (v = 1; v <= layouts[k]->current; v++)
      check_version(layouts[k], v);
}

static void test_tables(void) {
  size_t k;
  uint32_t v;
  for (k = 0; k < NLAYOUTS; k++) {
    const olc_options_layout *l = layouts[k];
    CU_ASSERT(l->current >= 1);
    CU_ASSERT(l->ends[0] > sizeof(uint32_t));
    for (v = 2; v <= l->current; v++)
      CU_ASSERT(l->ends[v - 1] > l->ends[v - 2]); /* each version added a field */
    CU_ASSERT(l->ends[l->current - 1] <= l->size);
  }
  /* The current version ends with the struct's last field: a field
   * appended without a version (and a row) leaves bytes after it. */
#define LAST_ROW_ENDS(layout, type)                                                                \
  CU_ASSERT(sizeof(type) - (layout).ends[(layout).current - 1] < _Alignof(type))
  LAST_ROW_ENDS(olc_options__store, olc_store_options);
  LAST_ROW_ENDS(olc_options__save, olc_save_request);
  LAST_ROW_ENDS(olc_options__lookup, olc_lookup_options);
  LAST_ROW_ENDS(olc_options__host, olc_host_options);
  LAST_ROW_ENDS(olc_options__calibrate, olc_calibrate_options);
  LAST_ROW_ENDS(olc_options__workload, olc_workload);
  LAST_ROW_ENDS(olc_options__select, olc_select_options);
  LAST_ROW_ENDS(olc_options__execute, olc_execute_args);
  LAST_ROW_ENDS(olc_options__verify, olc_verify_options);
  CU_ASSERT_EQUAL(olc_options__store.current, OLC_STORE_OPTIONS_VERSION);
  CU_ASSERT_EQUAL(olc_options__save.current, OLC_SAVE_REQUEST_VERSION);
  CU_ASSERT_EQUAL(olc_options__lookup.current, OLC_LOOKUP_OPTIONS_VERSION);
  CU_ASSERT_EQUAL(olc_options__host.current, OLC_HOST_OPTIONS_VERSION);
  CU_ASSERT_EQUAL(olc_options__calibrate.current, OLC_CALIBRATE_OPTIONS_VERSION);
  CU_ASSERT_EQUAL(olc_options__workload.current, OLC_WORKLOAD_VERSION);
  CU_ASSERT_EQUAL(olc_options__select.current, OLC_SELECT_OPTIONS_VERSION);
  CU_ASSERT_EQUAL(olc_options__execute.current, OLC_EXECUTE_ARGS_VERSION);
  CU_ASSERT_EQUAL(olc_options__verify.current, OLC_VERIFY_OPTIONS_VERSION);
  CU_ASSERT_STRING_EQUAL(olc_options__calibrate.name, "olc_calibrate_options");
}

/* The mechanism a later version relies on, on a struct of two versions
 * (every public struct is at version 1 since 1.0): a version-1 caller's
 * struct lacks b, which takes its default however the bytes after the
 * caller's struct look; a version-2 caller's b is read; 3 is refused. */
typedef struct two_versions {
  uint32_t version;
  int a;    /* version 1 */
  double b; /* version 2 */
} two_versions;

static const two_versions two_defaults = {2u, 7, 1.5};
static const size_t two_ends[] = {offsetof(two_versions, a) + sizeof(int),
                                  offsetof(two_versions, b) + sizeof(double)};
static const olc_options_layout two_layout = {"two_versions", 2u, sizeof(two_versions),
                                              &two_defaults, two_ends};

static void test_older_version_defaults(void) {
  two_versions caller, got;
  char want[OLC_ERROR_MESSAGE_SIZE];
  olc_error e;
  memset(&caller, 0xA5, sizeof caller); /* b's bytes: not the caller's */
  caller.version = 1;
  caller.a = 3;
  OLC_ASSERT_OK(olc_options__load(&got, &two_layout, &caller, "test", &e), &e);
  CU_ASSERT_EQUAL(got.version, 2u);
  CU_ASSERT_EQUAL(got.a, 3);
  CU_ASSERT_EQUAL(got.b, 1.5);
  caller.version = 2;
  caller.b = 5.0;
  OLC_ASSERT_OK(olc_options__load(&got, &two_layout, &caller, "test", &e), &e);
  CU_ASSERT_EQUAL(got.a, 3);
  CU_ASSERT_EQUAL(got.b, 5.0);
  caller.version = 3;
  CU_ASSERT_EQUAL(olc_options__load(&got, &two_layout, &caller, "test", &e), OLC_E_INVALID);
  snprintf(want, sizeof want, "two_versions version 3 is newer than this library's 2");
  CU_ASSERT_STRING_EQUAL(e.message, want);
}

/* Release 1.0 starts every history: each struct is at version 1. */
static void test_one_zero_layouts(void) {
  size_t k;
  for (k = 0; k < NLAYOUTS; k++)
    CU_ASSERT_EQUAL(layouts[k]->current, 1u);
}

static void test_refused(void) {
  olc_store_options caller = OLC_STORE_OPTIONS_INIT, got;
  char want[OLC_ERROR_MESSAGE_SIZE];
  olc_error e;
  caller.version = 0;
  caller.path = "x";
  CU_ASSERT_EQUAL(olc_options__load(&got, &olc_options__store, &caller, "open", &e), OLC_E_INVALID);
  snprintf(want, sizeof want,
           "olc_store_options version 0 is invalid (this library accepts 1 to %u)",
           (unsigned)OLC_STORE_OPTIONS_VERSION);
  CU_ASSERT_STRING_EQUAL(e.message, want);
  CU_ASSERT_STRING_EQUAL(e.where, "open");
  CU_ASSERT_PTR_NULL(got.path); /* refused: the defaults, nothing of the caller's */
  caller.version = OLC_STORE_OPTIONS_VERSION + 1;
  CU_ASSERT_EQUAL(olc_options__load(&got, &olc_options__store, &caller, "open", &e), OLC_E_INVALID);
  snprintf(want, sizeof want, "olc_store_options version %u is newer than this library's %u",
           (unsigned)OLC_STORE_OPTIONS_VERSION + 1, (unsigned)OLC_STORE_OPTIONS_VERSION);
  CU_ASSERT_STRING_EQUAL(e.message, want);
  /* NULL: the defaults */
  OLC_ASSERT_OK(olc_options__load(&got, &olc_options__store, NULL, "open", &e), &e);
  CU_ASSERT(memcmp(&got, olc_options__store.defaults, sizeof got) == 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("options", NULL, NULL);
  CU_add_test(s, "every version of every struct", test_every_version);
  CU_add_test(s, "the tables agree with the headers", test_tables);
  CU_add_test(s, "an older version's missing fields: defaults", test_older_version_defaults);
  CU_add_test(s, "every struct at its 1.0 layout, version 1", test_one_zero_layouts);
  CU_add_test(s, "version 0, newer, NULL", test_refused);
  return olc_test_run(argc, argv);
}
