/*
 * tests/store/test_workload_identity.c - the workload identity grammar of
 * olc/store.h: the canonical structure text (sorted, percent-encoded, and
 * split back into the same properties), the digest of a workload's exact
 * key, the workload identity of digests and records, the buffer rules and
 * the refused inputs.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "test_store_util.h"

static char *text_of(const olc_property *p, size_t n) {
  static char buf[1024];
  size_t len = 0;
  olc_error e;
  OLC_ASSERT_OK(olc_store_structure_text(buf, sizeof buf, &len, p, n, &e), &e);
  CU_ASSERT_EQUAL(len, strlen(buf));
  return buf;
}

static void test_sorted_and_joined(void) {
  static const olc_property p[] = {{"n", "512"}, {"m", "64"}, {"k", "256"}, {"dtype", "float32"}};
  CU_ASSERT_STRING_EQUAL(text_of(p, 4), "dtype=float32;k=256;m=64;n=512");
  CU_ASSERT_STRING_EQUAL(text_of(p, 1), "n=512");
  CU_ASSERT_STRING_EQUAL(text_of(NULL, 0), "");
}

static void test_escapes(void) {
  static const olc_property p[] = {{"a=b", "x;y"}, {"c", "50%#1\n\t"}, {"d", "\x7f~ok"}};
  /* Only '%', ';', '=', '#' and bytes below 0x20 are encoded, in upper case. */
  CU_ASSERT_STRING_EQUAL(text_of(p, 3), "a%3Db=x%3By;c=50%25%231%0A%09;d=\x7f~ok");
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Decodes one percent-encoded field of len bytes; -1 on a bad escape or a
 * raw separator (which the text must never hold inside a field). */
static int decode_field(char *out, const char *s, size_t len) {
  size_t i, o = 0;
  for (i = 0; i < len; i++) {
    if (s[i] == '#' || s[i] == ';' || s[i] == '=')
      return -1;
    if (s[i] != '%') {
      out[o++] = s[i];
      continue;
    }
    if (i + 2 >= len)
      return -1;
    if (hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0)
      return -1;
    out[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
    i += 2;
  }
  out[o] = 0;
  return 0;
}

/* Splits the text at ';' then '=' and decodes: it must give back exactly
 * the sorted properties. */
static void check_round_trip(const olc_property *sorted, size_t n) {
  const char *t = text_of(sorted, n), *p = t;
  char name[256], value[256];
  size_t i;
  for (i = 0; i < n; i++) {
    const char *end = strchr(p, ';'), *eq;
    if (end == NULL)
      end = p + strlen(p);
    eq = memchr(p, '=', (size_t)(end - p));
    CU_ASSERT_PTR_NOT_NULL_FATAL(eq);
    CU_ASSERT_EQUAL_FATAL(decode_field(name, p, (size_t)(eq - p)), 0);
    CU_ASSERT_EQUAL_FATAL(decode_field(value, eq + 1, (size_t)(end - eq - 1)), 0);
    CU_ASSERT_STRING_EQUAL(name, sorted[i].name);
    CU_ASSERT_STRING_EQUAL(value, sorted[i].value);
    p = *end == ';' ? end + 1 : end;
  }
  CU_ASSERT_EQUAL(*p, 0);
  CU_ASSERT_PTR_NULL(strchr(t, '#'));
}

static unsigned next_rand(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 16;
}

/* Random bytes from an alphabet rich in the bytes that must be encoded. */
static void random_text(char *out, size_t len, unsigned *seed) {
  static const char alphabet[] = "%;=#\x01\x1f a9Z~-,.:\xc3\xa9";
  size_t j;
  for (j = 0; j < len; j++)
    out[j] = alphabet[next_rand(seed) % (sizeof alphabet - 1)];
  out[len] = 0;
}

static void test_round_trip(void) {
  unsigned seed = 7u;
  int round;
  for (round = 0; round < 200; round++) {
    char names[4][16], values[4][16];
    olc_property p[4];
    size_t n = 1 + (size_t)round % 4, i;
    for (i = 0; i < n; i++) {
      /* Distinct names in sorted order: each begins with its index. */
      names[i][0] = (char)('a' + i);
      random_text(names[i] + 1, next_rand(&seed) % 8, &seed);
      random_text(values[i], next_rand(&seed) % 15, &seed);
      p[i].name = names[i];
      p[i].value = values[i];
    }
    check_round_trip(p, n);
  }
}

static void test_digests(void) {
  static const olc_property p[] = {{"m", "64"}, {"dtype", "float32"}};
  char buf[128];
  size_t len = 99;
  olc_error e;
  OLC_ASSERT_OK(olc_store_workload_digest(buf, sizeof buf, &len, "sha256:ab", p, 2, &e), &e);
  CU_ASSERT_STRING_EQUAL(buf, "sha256:ab#dtype=float32;m=64");
  CU_ASSERT_EQUAL(len, strlen(buf));
  OLC_ASSERT_OK(olc_store_workload_digest(buf, sizeof buf, &len, NULL, p, 2, &e), &e);
  CU_ASSERT_STRING_EQUAL(buf, "workload:dtype=float32;m=64");
  OLC_ASSERT_OK(olc_store_workload_digest(buf, sizeof buf, NULL, "m#1", p, 1, &e), &e);
  CU_ASSERT_STRING_EQUAL(buf, "m#1#m=64");
  /* The identity is what follows the last '#', else the workload: prefix. */
  CU_ASSERT_STRING_EQUAL(olc_store_workload_of_digest("m#1#m=64"), "m=64");
  CU_ASSERT_STRING_EQUAL(olc_store_workload_of_digest("workload:dtype=float32;m=64"),
                         "dtype=float32;m=64");
  CU_ASSERT_STRING_EQUAL(olc_store_workload_of_digest("workload:"), "");
  CU_ASSERT_STRING_EQUAL(olc_store_workload_of_digest("sha256:ab#"), "");
  CU_ASSERT_PTR_NULL(olc_store_workload_of_digest("sha256:ab"));
  CU_ASSERT_PTR_NULL(olc_store_workload_of_digest("Workload:m=1"));
  CU_ASSERT_PTR_NULL(olc_store_workload_of_digest(NULL));
}

static void test_buffer_rules(void) {
  static const olc_property p[] = {{"m", "64"}};
  char buf[5];
  size_t len = 0;
  olc_error e;
  /* Asking for the size. */
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_store_structure_text(NULL, 0, &len, p, 1, &e), &e);
  CU_ASSERT_EQUAL(len, 4);
  /* "m=64" needs 5 bytes with its NUL: 4 is too small, 5 fits. */
  memset(buf, 'x', sizeof buf);
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_store_structure_text(buf, 4, &len, p, 1, &e), &e);
  CU_ASSERT_EQUAL(len, 4);
  CU_ASSERT_STRING_EQUAL(buf, "");
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "5-byte"));
  OLC_ASSERT_OK(olc_store_structure_text(buf, 5, &len, p, 1, &e), &e);
  CU_ASSERT_STRING_EQUAL(buf, "m=64");
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_store_workload_digest(buf, sizeof buf, &len, "d", p, 1, &e),
                    &e);
  CU_ASSERT_EQUAL(len, 6);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_structure_text(NULL, 4, &len, p, 1, &e), &e);
}

static void test_refused(void) {
  static const olc_property dup[] = {{"m", "1"}, {"n", "2"}, {"m", "3"}};
  static const olc_property noname[] = {{"", "1"}};
  static const olc_property nullvalue[] = {{"m", NULL}};
  char buf[64] = "junk";
  olc_error e;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_structure_text(buf, sizeof buf, NULL, dup, 3, &e), &e);
  CU_ASSERT_STRING_EQUAL(e.message, "structural property \"m\" is given twice");
  CU_ASSERT_STRING_EQUAL(buf, "");
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_structure_text(buf, sizeof buf, NULL, noname, 1, &e),
                    &e);
  CU_ASSERT_STRING_EQUAL(e.message, "structural property 0 has no name");
  OLC_ASSERT_STATUS(OLC_E_INVALID,
                    olc_store_workload_digest(buf, sizeof buf, NULL, "d", nullvalue, 1, &e), &e);
  CU_ASSERT_STRING_EQUAL(e.message, "structural property \"m\" has a NULL value");
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_structure_text(buf, sizeof buf, NULL, NULL, 2, &e),
                    &e);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_record_workload(buf, sizeof buf, NULL, NULL, &e), &e);
}

/* The identity of stored records: exact ones from their digest, portable
 * ones from their structure, none for a legacy digest. */
static void test_record_identity(void) {
  static const olc_property p[] = {{"n", "a;b"}, {"m", "64"}};
  olc_store *s = tsu_open_memory();
  olc_record_list *list = NULL;
  char digest[128], buf[128];
  olc_key k = tsu_key("1", digest, "cpu", 8);
  size_t i, len, seen = 0;
  olc_error e;
  k.structure = p;
  k.structure_count = 2;
  OLC_ASSERT_OK(olc_store_workload_digest(digest, sizeof digest, NULL, "sha256:ab", p, 2, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVELS_DEFAULT, 0, &e), &e);
  k.model_digest = "sha256:ab";
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  OLC_ASSERT_OK(olc_store_list(&list, s, &e), &e);
  for (i = 0; i < olc_record_list_count(list); i++) {
    const olc_record *r = olc_record_list_get(list, i);
    olc_status st = olc_record_workload(buf, sizeof buf, &len, r, &e);
    if (r->level == OLC_LEVEL_PORTABLE || strchr(r->model_digest, '#') != NULL) {
      OLC_ASSERT_OK(st, &e);
      CU_ASSERT_STRING_EQUAL(buf, "m=64;n=a%3Bb");
      CU_ASSERT_EQUAL(len, strlen("m=64;n=a%3Bb"));
    } else {
      OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, st, &e);
      CU_ASSERT_STRING_EQUAL(buf, "");
      CU_ASSERT_EQUAL(len, 0);
      CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "sha256:ab"));
    }
    seen++;
  }
  CU_ASSERT_EQUAL(seen, 3);
  olc_record_list_free(list);
  olc_store_free(s);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("workload_identity", NULL, NULL);
  CU_add_test(suite, "sorted_and_joined", test_sorted_and_joined);
  CU_add_test(suite, "escapes", test_escapes);
  CU_add_test(suite, "round_trip", test_round_trip);
  CU_add_test(suite, "digests", test_digests);
  CU_add_test(suite, "buffer_rules", test_buffer_rules);
  CU_add_test(suite, "refused", test_refused);
  CU_add_test(suite, "record_identity", test_record_identity);
  return olc_test_run(argc, argv);
}
