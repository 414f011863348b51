/*
 * tests/recorded/test_recorded_format.c - the recorded-workloads format
 * (host/recorded.h): a round trip through write and parse, the key that
 * deduplicates, percent-encoding, every malformed line named by
 * FILE:LINE:COLUMN, a newer version, a store refused (and a record file
 * refused by the store's parser), and the locked append and remove on disk:
 * a malformed or foreign file is never rewritten.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "host/recorded.h"
#include "olc/store.h"
#include "test_support.h"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("recorded_format");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

static olc_property props[3] = {{"n", "4"}, {"m", "8"}, {"note", "a b=c%"}};

static olc_recorded_entry entry(const char *identity, int64_t threads) {
  olc_recorded_entry e;
  memset(&e, 0, sizeof e);
  e.backend = "mock_det";
  e.operator_name = "MatMul";
  e.processor = "mock cpu (AVX-512)";
  e.threads = threads;
  e.identity = identity;
  e.model = "sha256:00ff";
  e.props = props;
  e.prop_count = 3;
  return e;
}

static olc_status parse_text(olc_recorded_set *set, const char *text, olc_error *err) {
  return olc_recorded__parse(set, (const unsigned char *)text, strlen(text), "rec.txt", err);
}

static void test_round_trip(void) {
  olc_recorded_set a = OLC_RECORDED_SET_INIT, b = OLC_RECORDED_SET_INIT;
  olc_recorded_entry e1 = entry("sha256:00ff#m=8;n=4", 2), e2 = entry("sha256:00ff#m=8;n=4", 4);
  olc_buf out = OLC_BUF_INIT;
  olc_error err;
  int added;
  OLC_ASSERT_OK(olc_recorded__add(&a, &e1, &added), NULL);
  CU_ASSERT_EQUAL(added, 1);
  OLC_ASSERT_OK(olc_recorded__add(&a, &e1, &added), NULL); /* the same key: one record */
  CU_ASSERT_EQUAL(added, 0);
  OLC_ASSERT_OK(olc_recorded__add(&a, &e2, &added), NULL); /* another thread count */
  CU_ASSERT_EQUAL(added, 1);
  e2.model = NULL;
  OLC_ASSERT_OK(olc_recorded__write(&out, &a), NULL);
  OLC_ASSERT_OK(olc_buf__terminate(&out), NULL);
  CU_ASSERT_EQUAL(strncmp((const char *)out.data, "# onnx-light recorded workloads v1\n", 35), 0);
  /* Spaces, '%' and '=' in a name are encoded; properties sorted. */
  CU_ASSERT_PTR_NOT_NULL(strstr((const char *)out.data, " processor=mock%20cpu%20%28AVX-512%29 "));
  CU_ASSERT_PTR_NOT_NULL(
      strstr((const char *)out.data, " prop.m=8 prop.n=4 prop.note=a%20b=c%25\n"));
  OLC_ASSERT_OK(olc_recorded__parse(&b, out.data, out.len, "rec.txt", &err), &err);
  CU_ASSERT_EQUAL_FATAL(b.count, 2);
  CU_ASSERT_TRUE(olc_recorded__same(&a.v[0], &b.v[0]));
  CU_ASSERT_STRING_EQUAL(b.v[0].processor, "mock cpu (AVX-512)");
  CU_ASSERT_STRING_EQUAL(b.v[0].model, "sha256:00ff");
  CU_ASSERT_EQUAL(b.v[1].threads, 4);
  CU_ASSERT_EQUAL_FATAL(b.v[0].prop_count, 3);
  CU_ASSERT_STRING_EQUAL(b.v[0].props[2].name, "note");
  CU_ASSERT_STRING_EQUAL(b.v[0].props[2].value, "a b=c%");
  CU_ASSERT_EQUAL(b.v[0].line, 2);
  olc_buf__free(&out);
  olc_recorded__free(&a);
  olc_recorded__free(&b);
}

/* Each bad file: its status and the start of "rec.txt:LINE:COL: ...". */
static void expect_bad(const char *text, olc_status want, const char *where, const char *what) {
  olc_recorded_set set = OLC_RECORDED_SET_INIT;
  olc_error err;
  olc_error_clear(&err);
  CU_ASSERT_EQUAL(parse_text(&set, text, &err), want);
  if (strncmp(err.message, where, strlen(where)) != 0 || strstr(err.message, what) == NULL) {
    fprintf(stderr, "\n  %s: got '%s', want '%s ... %s'\n", text, err.message, where, what);
    CU_FAIL("the message");
  }
  olc_recorded__free(&set);
}

#define HDR "# onnx-light recorded workloads v1\n"
#define REC "workload backend=b operator=O processor=p threads=2 identity=i model=-"

static void test_malformed(void) {
  expect_bad("onnx_light_calibration_profiles 1\n", OLC_E_MALFORMED,
             "rec.txt:1:1:", "a calibration profile store, not a recorded-workloads file");
  expect_bad("hello\n", OLC_E_MALFORMED, "rec.txt:1:1:", "not a recorded-workloads file");
  expect_bad("# onnx-light recorded workloads v2\n", OLC_E_VERSION,
             "rec.txt:1:34:", "version 2 is newer than this build's (1)");
  expect_bad("# onnx-light recorded workloads v\n", OLC_E_MALFORMED,
             "rec.txt:1:34:", "expected a version");
  expect_bad(HDR "workload\n", OLC_E_MALFORMED, "rec.txt:2:1:", "expected \"workload\"");
  expect_bad(HDR REC, OLC_E_MALFORMED, "rec.txt:2:", "no newline");
  expect_bad(HDR REC " extra=1\n", OLC_E_MALFORMED, "rec.txt:2:72:", "unknown field \"extra\"");
  expect_bad(HDR REC "  prop.m=1\n", OLC_E_MALFORMED, "rec.txt:2:72:", "one space");
  expect_bad(HDR REC " prop.m=1 prop.m=2\n", OLC_E_MALFORMED,
             "rec.txt:2:81:", "property \"m\" twice");
  expect_bad(HDR REC " prop.m=%zz\n", OLC_E_MALFORMED, "rec.txt:2:79:", "bad percent escape");
  expect_bad(HDR REC " prop.m=%00\n", OLC_E_MALFORMED, "rec.txt:2:79:", "%00");
  expect_bad(HDR REC " prop.m=%ff\n", OLC_E_MALFORMED, "rec.txt:2:79:", "not UTF-8");
  expect_bad(HDR REC " backend=c\n", OLC_E_MALFORMED, "rec.txt:2:72:", "\"backend\" twice");
  expect_bad(HDR "workload backend=b operator=O threads=2 identity=i model=-\n", OLC_E_MALFORMED,
             "rec.txt:2:", "missing field \"processor\"");
  expect_bad(HDR "workload backend=b operator=O processor=p threads=-2 identity=i model=-\n",
             OLC_E_MALFORMED, "rec.txt:2:51:", "not a thread count");
  expect_bad(HDR "workload backend= operator=O processor=p threads=2 identity=i model=-\n",
             OLC_E_MALFORMED, "rec.txt:2:18:", "\"backend\" is empty");
}

static void test_accepted(void) {
  olc_recorded_set set = OLC_RECORDED_SET_INIT;
  olc_error err;
  OLC_ASSERT_OK(parse_text(&set, "", &err), &err); /* an empty file records nothing yet */
  CU_ASSERT_EQUAL(set.count, 0);
  /* Blank lines, and a key twice (a hand edit) is one record. */
  OLC_ASSERT_OK(parse_text(&set, HDR "\n" REC "\n\n" REC " prop.m=1\n", &err), &err);
  CU_ASSERT_EQUAL(set.count, 1);
  CU_ASSERT_PTR_NULL(set.v[0].model);
  olc_recorded__free(&set);
}

/* The store's parser refuses a recorded file, at 1:1. */
static void test_store_refuses(void) {
  olc_recset set = OLC_RECSET_INIT;
  olc_error err;
  const char text[] = HDR REC "\n";
  olc_error_clear(&err);
  CU_ASSERT_NOT_EQUAL(
      olc_format__parse(&set, (const unsigned char *)text, sizeof text - 1, NULL, &err), OLC_OK);
  CU_ASSERT_EQUAL(err.line, 1);
  CU_ASSERT_EQUAL(err.column, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "a recorded-workloads file"));
  olc_recset__free(&set);
  /* The two magics are the same text (recorded.c keeps its own copy). */
  CU_ASSERT_STRING_EQUAL(OLC_FORMAT_MAGIC, "onnx_light_calibration_profiles");
}

static char *path_of(const char *name) {
  char *p = malloc(strlen(tmp) + strlen(name) + 2);
  sprintf(p, "%s/%s", tmp, name);
  return p;
}

static void test_file_append_remove(void) {
  char *path = path_of("rec.txt");
  olc_recorded_entry e1 = entry("id1", 2), e2 = entry("id2", 2);
  olc_recorded_set got = OLC_RECORDED_SET_INIT, done = OLC_RECORDED_SET_INIT;
  olc_error err;
  size_t removed;
  int added;
  OLC_ASSERT_OK(olc_recorded__load(&got, path, &err), &err); /* missing: empty */
  CU_ASSERT_EQUAL(got.count, 0);
  e1.processor = ""; /* a key the format cannot hold: refused, nothing created */
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_recorded__append(&added, path, &e1, 1000, &err), &err);
  CU_ASSERT_EQUAL(olc_recorded__load(&got, path, &err), OLC_OK);
  CU_ASSERT_EQUAL(got.count, 0);
  e1.processor = "mock cpu (AVX-512)";
  OLC_ASSERT_OK(olc_recorded__append(&added, path, &e1, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 1);
  OLC_ASSERT_OK(olc_recorded__append(&added, path, &e1, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 0);
  OLC_ASSERT_OK(olc_recorded__append(&added, path, &e2, 1000, &err), &err);
  OLC_ASSERT_OK(olc_recorded__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL(got.count, 2);
  OLC_ASSERT_OK(olc_recorded__add(&done, &e1, &added), NULL);
  OLC_ASSERT_OK(olc_recorded__remove(&removed, path, &done, 1000, &err), &err);
  CU_ASSERT_EQUAL(removed, 1);
  olc_recorded__free(&got);
  OLC_ASSERT_OK(olc_recorded__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL_FATAL(got.count, 1);
  CU_ASSERT_STRING_EQUAL(got.v[0].identity, "id2");
  olc_recorded__free(&got);
  olc_recorded__free(&done);
  free(path);
}

/* A file that is malformed, newer, or a store: refused, byte for byte
 * unchanged. */
static void expect_untouched(const char *name, const char *text, olc_status want) {
  char *path = path_of(name);
  olc_recorded_entry e = entry("id", 2);
  olc_recorded_set done = OLC_RECORDED_SET_INIT;
  unsigned char *after;
  size_t len = 0, removed = 9;
  olc_error err;
  int added;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, strlen(text)), 0);
  olc_error_clear(&err);
  CU_ASSERT_EQUAL(olc_recorded__append(&added, path, &e, 1000, &err), want);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  OLC_ASSERT_OK(olc_recorded__add(&done, &e, &added), NULL);
  CU_ASSERT_EQUAL(olc_recorded__remove(&removed, path, &done, 1000, &err), want);
  CU_ASSERT_EQUAL(removed, 0);
  after = olc_test_read_file(path, &len);
  CU_ASSERT_FATAL(after != NULL);
  CU_ASSERT_TRUE(len == strlen(text) && memcmp(after, text, len) == 0);
  free(after);
  olc_recorded__free(&done);
  free(path);
}

static void test_file_never_rewritten(void) {
  expect_untouched("bad.txt", HDR REC " oops\n", OLC_E_MALFORMED);
  expect_untouched("newer.txt", "# onnx-light recorded workloads v7\n" REC "\n", OLC_E_VERSION);
  expect_untouched("store.txt", "onnx_light_calibration_profiles 1\n", OLC_E_MALFORMED);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("recorded-format", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "write, parse, the key", test_round_trip);
  CU_add_test(s, "malformed and newer files", test_malformed);
  CU_add_test(s, "empty files, blank lines, a key twice", test_accepted);
  CU_add_test(s, "the store's parser refuses a recorded file", test_store_refuses);
  CU_add_test(s, "append and remove on disk", test_file_append_remove);
  CU_add_test(s, "a bad file is never rewritten", test_file_never_rewritten);
  return olc_test_run(argc, argv);
}
