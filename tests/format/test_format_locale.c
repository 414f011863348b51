/*
 * tests/format/test_format_locale.c - numbers do not depend on the C locale.
 *
 * A host that calls setlocale(LC_ALL, "") under a locale with a decimal
 * comma must still write "2.5" and read it back.  Uses an installed locale
 * with a decimal comma, else compiles de_DE.UTF-8 with localedef into a
 * temporary LOCPATH (glibc keeps the locale sources in libc-bin /
 * locales); when neither works the test exits 77 (skipped).
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "test_support.h"
#include "util/buf.h"

static const char *comma_locale;

static void test_comma_locale(void) {
  static const char in[] = "onnx_light_calibration_profiles 1\n"
                           "profile exact calibrated\n"
                           "backend \"b\"\noperator \"o\"\nimplementation \"1\"\n"
                           "model_digest \"d\"\nprocessor \"p\"\nthread_count 8\n"
                           "measurement \"median_latency\" 2.5 \"us\"\n"
                           "measurement \"x\" 1234567.125 \"us\"\n"
                           "measurement \"y\" 0.30000000000000004 \"us\"\n"
                           "policy \"x\"\nend\n";
  char probe[16];
  olc_buf out = OLC_BUF_INIT;
  olc_recset set = OLC_RECSET_INIT;
  olc_error err;
  double v = 0;

  /* the locale really is in effect for printf */
  snprintf(probe, sizeof(probe), "%.1f", 2.5);
  CU_ASSERT_STRING_EQUAL(probe, "2,5");

  OLC_ASSERT_OK(olc_format__double(&out, 2.5), NULL);
  CU_ASSERT(out.len == 3 && memcmp(out.data, "2.5", 3) == 0);
  OLC_ASSERT_OK(olc_format__parse_double(&v, "2.5", 3), NULL);
  CU_ASSERT_EQUAL(v, 2.5);
  CU_ASSERT_EQUAL(olc_format__parse_double(&v, "2,5", 3), OLC_E_MALFORMED);
  /* the slow path (printf/strtod) too */
  olc_buf__reset(&out);
  OLC_ASSERT_OK(olc_format__double(&out, 0.1 + 0.2), NULL);
  CU_ASSERT(out.len == 19 && memcmp(out.data, "0.30000000000000004", 19) == 0);
  OLC_ASSERT_OK(olc_format__parse_double(&v, "1.5e300", 7), NULL);
  CU_ASSERT_EQUAL(v, 1.5e300);

  olc_buf__reset(&out);
  OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)in, sizeof(in) - 1, NULL, &err),
                &err);
  CU_ASSERT_EQUAL(set.recs[0].measurements[0].value, 2.5);
  CU_ASSERT_EQUAL(set.recs[0].measurements[2].value, 0.1 + 0.2);
  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  CU_ASSERT(out.len == sizeof(in) - 1 && memcmp(out.data, in, out.len) == 0);
  olc_recset__free(&set);
  olc_buf__free(&out);
}

static int try_locales(void) {
  static const char *const candidates[] = {"de_DE.UTF-8", "de_DE.utf8",  "de_DE",
                                           "fr_FR.UTF-8", "fr_FR.utf8",  "nl_NL.UTF-8",
                                           "ru_RU.UTF-8", "es_ES.UTF-8", "it_IT.UTF-8"};
  size_t i;
  for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
    if (setlocale(LC_ALL, candidates[i]) != NULL) {
      const struct lconv *lc = localeconv();
      if (lc != NULL && strcmp(lc->decimal_point, ",") == 0) {
        comma_locale = candidates[i];
        return 1;
      }
    }
  }
  return 0;
}

/* Compiles de_DE.UTF-8 into dir and points glibc at it. */
static int generate_locale(const char *dir) {
#ifdef _WIN32
  (void)dir;
  return 0; /* Windows ships its locales; try_locales found none */
#else
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", dir);
  if (system(cmd) == -1)
    return 0;
  if (setenv("LOCPATH", dir, 1) != 0)
    return 0;
  return try_locales();
#endif
}

int main(int argc, char **argv) {
  char *dir = NULL;
  int rc;
  CU_pSuite s;
  if (!try_locales()) {
    dir = olc_test_tmpdir("locale");
    if (dir == NULL || !generate_locale(dir)) {
      fprintf(stderr, "skipped: no locale with a decimal comma is installed and localedef "
                      "could not build de_DE.UTF-8 (apt-get install locales)\n");
      if (dir != NULL)
        olc_test_rmtree(dir);
      free(dir);
      return 77;
    }
  }
  printf("using locale %s%s\n", comma_locale, dir != NULL ? " (generated)" : "");
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("format_locale", NULL, NULL);
  CU_add_test(s, "decimal-comma locale writes and reads 2.5", test_comma_locale);
  rc = olc_test_run(argc, argv);
  if (dir != NULL)
    olc_test_rmtree(dir);
  free(dir);
  return rc;
}
