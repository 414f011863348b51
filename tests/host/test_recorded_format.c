/*
 * tests/host/test_recorded_format.c - the recorded-workloads format
 * (host/misses.h): a round trip through write and parse, the key that
 * deduplicates, percent-encoding, every malformed line named by
 * FILE:LINE:COLUMN, a newer version, a store refused (and a record file
 * refused by the store's parser), and the locked append and remove on disk:
 * a foreign or newer file is never rewritten.  Issue 37 item 4: a bad
 * record line is skipped and kept (an append or a remove goes on), and the
 * writer refuses what the reader would (more than 256 properties, a line
 * over the limit).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "host/misses.h"
#include "olc/store.h"
#include "persist/persist.h"
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

static olc_misses_entry entry(const char *identity, int64_t threads) {
  olc_misses_entry e;
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

static olc_status parse_text(olc_misses_set *set, const char *text, olc_error *err) {
  return olc_misses__parse(set, (const unsigned char *)text, strlen(text), "rec.txt", err);
}

static void test_round_trip(void) {
  olc_misses_set a = OLC_MISSES_SET_INIT, b = OLC_MISSES_SET_INIT;
  olc_misses_entry e1 = entry("sha256:00ff#m=8;n=4", 2), e2 = entry("sha256:00ff#m=8;n=4", 4);
  olc_buf out = OLC_BUF_INIT;
  olc_error err;
  int added;
  OLC_ASSERT_OK(olc_misses__add(&a, &e1, &added), NULL);
  CU_ASSERT_EQUAL(added, 1);
  OLC_ASSERT_OK(olc_misses__add(&a, &e1, &added), NULL); /* the same key: one record */
  CU_ASSERT_EQUAL(added, 0);
  OLC_ASSERT_OK(olc_misses__add(&a, &e2, &added), NULL); /* another thread count */
  CU_ASSERT_EQUAL(added, 1);
  e2.model = NULL;
  OLC_ASSERT_OK(olc_misses__write(&out, &a), NULL);
  OLC_ASSERT_OK(olc_buf__terminate(&out), NULL);
  CU_ASSERT_EQUAL(strncmp((const char *)out.data, "# onnx-light recorded workloads v1\n", 35), 0);
  /* Spaces, '%' and '=' in a name are encoded; properties sorted. */
  CU_ASSERT_PTR_NOT_NULL(strstr((const char *)out.data, " processor=mock%20cpu%20%28AVX-512%29 "));
  CU_ASSERT_PTR_NOT_NULL(
      strstr((const char *)out.data, " prop.m=8 prop.n=4 prop.note=a%20b=c%25\n"));
  OLC_ASSERT_OK(olc_misses__parse(&b, out.data, out.len, "rec.txt", &err), &err);
  CU_ASSERT_EQUAL_FATAL(b.count, 2);
  CU_ASSERT_TRUE(olc_misses__same(&a.v[0], &b.v[0]));
  CU_ASSERT_STRING_EQUAL(b.v[0].processor, "mock cpu (AVX-512)");
  CU_ASSERT_STRING_EQUAL(b.v[0].model, "sha256:00ff");
  CU_ASSERT_EQUAL(b.v[1].threads, 4);
  CU_ASSERT_EQUAL_FATAL(b.v[0].prop_count, 3);
  CU_ASSERT_STRING_EQUAL(b.v[0].props[2].name, "note");
  CU_ASSERT_STRING_EQUAL(b.v[0].props[2].value, "a b=c%");
  CU_ASSERT_EQUAL(b.v[0].line, 2);
  olc_buf__free(&out);
  olc_misses__free(&a);
  olc_misses__free(&b);
}

/* Each bad file: its status and the start of "rec.txt:LINE:COL: ...". */
static void expect_bad(const char *text, olc_status want, const char *where, const char *what) {
  olc_misses_set set = OLC_MISSES_SET_INIT;
  olc_error err;
  olc_error_clear(&err);
  CU_ASSERT_EQUAL(parse_text(&set, text, &err), want);
  if (strncmp(err.message, where, strlen(where)) != 0 || strstr(err.message, what) == NULL) {
    fprintf(stderr, "\n  %s: got '%s', want '%s ... %s'\n", text, err.message, where, what);
    CU_FAIL("the message");
  }
  olc_misses__free(&set);
}

#define HDR "# onnx-light recorded workloads v1\n"
#define REC "workload backend=b operator=O processor=p threads=2 identity=i model=-"

/* A file whose one record line (line 2) is bad: it parses, with that line
 * skipped and kept, and the good record after it read. */
static void expect_skipped(const char *text, const char *where, const char *what) {
  olc_misses_set set = OLC_MISSES_SET_INIT;
  char *full = malloc(strlen(text) + sizeof REC + 16);
  olc_error err;
  sprintf(full, "%s" REC " prop.z=1\n", text);
  olc_error_clear(&err);
  OLC_ASSERT_OK(parse_text(&set, full, &err), &err);
  CU_ASSERT_EQUAL(set.count, 1);
  CU_ASSERT_EQUAL_FATAL(set.bad_count, 1);
  CU_ASSERT_EQUAL(set.bad[0].line, 2);
  if (strncmp(set.bad[0].message, where, strlen(where)) != 0 ||
      strstr(set.bad[0].message, what) == NULL) {
    fprintf(stderr, "\n  %s: got '%s', want '%s ... %s'\n", text, set.bad[0].message, where, what);
    CU_FAIL("the message");
  }
  CU_ASSERT_TRUE(set.bad[0].len == strcspn(text + strlen(HDR), "\n") &&
                 memcmp(set.bad[0].text, text + strlen(HDR), set.bad[0].len) == 0);
  olc_misses__free(&set);
  free(full);
}

static void test_malformed(void) {
  expect_bad("onnx_light_calibration_profiles 1\n", OLC_E_MALFORMED,
             "rec.txt:1:1:", "a calibration profile store, not a recorded-workloads file");
  expect_bad("hello\n", OLC_E_MALFORMED, "rec.txt:1:1:", "not a recorded-workloads file");
  expect_bad("# onnx-light recorded workloads v2\n", OLC_E_VERSION,
             "rec.txt:1:34:", "version 2 is newer than this build's (1)");
  expect_bad("# onnx-light recorded workloads v\n", OLC_E_MALFORMED,
             "rec.txt:1:34:", "expected a version");
}

/* A bad record line is skipped: the rest of the file parses, the line is
 * kept with its place and message ("rec.txt:LINE:COL: ..."). */
static void test_bad_lines(void) {
  expect_skipped(HDR "workload\n", "rec.txt:2:1:", "expected \"workload\"");
  expect_skipped(HDR REC " extra=1\n", "rec.txt:2:72:", "unknown field \"extra\"");
  expect_skipped(HDR REC "  prop.m=1\n", "rec.txt:2:72:", "one space");
  expect_skipped(HDR REC " prop.m=1 prop.m=2\n", "rec.txt:2:81:", "property \"m\" twice");
  expect_skipped(HDR REC " prop.m=%zz\n", "rec.txt:2:79:", "bad percent escape");
  expect_skipped(HDR REC " prop.m=%00\n", "rec.txt:2:79:", "%00");
  expect_skipped(HDR REC " prop.m=%ff\n", "rec.txt:2:79:", "not UTF-8");
  expect_skipped(HDR REC " backend=c\n", "rec.txt:2:72:", "\"backend\" twice");
  expect_skipped(HDR "workload backend=b operator=O threads=2 identity=i model=-\n",
                 "rec.txt:2:", "missing field \"processor\"");
  expect_skipped(HDR "workload backend=b operator=O processor=p threads=-2 identity=i model=-\n",
                 "rec.txt:2:51:", "not a thread count");
  expect_skipped(HDR "workload backend= operator=O processor=p threads=2 identity=i model=-\n",
                 "rec.txt:2:18:", "\"backend\" is empty");
  /* More properties than a workload may have (olc_host_bind's 256). */
  {
    char *text = malloc(sizeof HDR + sizeof REC + 257 * 16 + 2), *at;
    int i;
    at = text + sprintf(text, HDR REC);
    for (i = 0; i < 257; i++)
      at += sprintf(at, " prop.p%03d=1", i);
    strcpy(at, "\n");
    expect_skipped(text, "rec.txt:2:", "more than 256 properties");
    free(text);
  }
  /* A line over the limit (the writer never makes one). */
  {
    size_t n = OLC_MISSES_MAX_LINE + 10;
    char *text = malloc(sizeof HDR + sizeof REC + n + 16);
    sprintf(text, HDR REC " prop.big=");
    memset(text + strlen(text), 'x', n);
    strcpy(text + strlen(HDR) + strlen(REC) + 10 + n, "\n");
    expect_skipped(text, "rec.txt:2:", "line longer than");
    free(text);
  }
  /* The last line without its newline (a hand edit) is read like any
   * other: a bad one stays bad, a good one is a record (kept as a bad line
   * it would come back as a record once written with its newline). */
  {
    olc_misses_set set = OLC_MISSES_SET_INIT;
    olc_error err;
    OLC_ASSERT_OK(parse_text(&set, HDR REC " prop.z=1\n" REC " prop.y", &err), &err);
    CU_ASSERT_EQUAL(set.count, 1);
    CU_ASSERT_EQUAL_FATAL(set.bad_count, 1);
    CU_ASSERT_EQUAL(set.bad[0].len, strlen(REC " prop.y"));
    olc_misses__free(&set);
    OLC_ASSERT_OK(parse_text(&set,
                             HDR "workload backend=b operator=o processor=p threads=1 "
                                 "identity=i model=- prop.m=1",
                             &err),
                  &err);
    CU_ASSERT_EQUAL(set.count, 1);
    CU_ASSERT_EQUAL(set.bad_count, 0);
    olc_misses__free(&set);
  }
}

static void test_accepted(void) {
  olc_misses_set set = OLC_MISSES_SET_INIT;
  olc_error err;
  OLC_ASSERT_OK(parse_text(&set, "", &err), &err); /* an empty file records nothing yet */
  CU_ASSERT_EQUAL(set.count, 0);
  /* Blank lines, and a key twice (a hand edit) is one record. */
  OLC_ASSERT_OK(parse_text(&set, HDR "\n" REC "\n\n" REC " prop.m=1\n", &err), &err);
  CU_ASSERT_EQUAL(set.count, 1);
  CU_ASSERT_PTR_NULL(set.v[0].model);
  olc_misses__free(&set);
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
  /* The two magics are the same text (misses_format.c keeps its own copy). */
  CU_ASSERT_STRING_EQUAL(OLC_FORMAT_MAGIC, "onnx_light_calibration_profiles");
}

static char *path_of(const char *name) {
  char *p = malloc(strlen(tmp) + strlen(name) + 2);
  sprintf(p, "%s/%s", tmp, name);
  return p;
}

static void test_file_append_remove(void) {
  char *path = path_of("rec.txt");
  olc_misses_entry e1 = entry("id1", 2), e2 = entry("id2", 2);
  olc_misses_set got = OLC_MISSES_SET_INIT, done = OLC_MISSES_SET_INIT;
  olc_error err;
  size_t removed;
  int added;
  OLC_ASSERT_OK(olc_misses__load(&got, path, &err), &err); /* missing: empty */
  CU_ASSERT_EQUAL(got.count, 0);
  e1.processor = ""; /* a key the format cannot hold: refused, nothing created */
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_misses__append(&added, path, &e1, 1000, &err), &err);
  CU_ASSERT_EQUAL(olc_misses__load(&got, path, &err), OLC_OK);
  CU_ASSERT_EQUAL(got.count, 0);
  e1.processor = "mock cpu (AVX-512)";
  OLC_ASSERT_OK(olc_misses__append(&added, path, &e1, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 1);
  OLC_ASSERT_OK(olc_misses__append(&added, path, &e1, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 0);
  OLC_ASSERT_OK(olc_misses__append(&added, path, &e2, 1000, &err), &err);
  OLC_ASSERT_OK(olc_misses__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL(got.count, 2);
  OLC_ASSERT_OK(olc_misses__add(&done, &e1, &added), NULL);
  OLC_ASSERT_OK(olc_misses__remove(&removed, path, &done, 1000, &err), &err);
  CU_ASSERT_EQUAL(removed, 1);
  olc_misses__free(&got);
  OLC_ASSERT_OK(olc_misses__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL_FATAL(got.count, 1);
  CU_ASSERT_STRING_EQUAL(got.v[0].identity, "id2");
  olc_misses__free(&got);
  olc_misses__free(&done);
  free(path);
}

/* Another writer, as another process would act while this one commits:
 * the lock file replaced (one it holds), then its file renamed over the
 * recorded file, right before this writer's commit. */
typedef struct other_writer {
  char *lock, *fresh, *file, *path;
  int fired;
} other_writer;

static void other_commits(olc_step step, void *payload) {
  other_writer *b = payload;
  if (step != OLC_STEP_RENAME || b->fired)
    return;
  b->fired = 1;
  CU_ASSERT_EQUAL(olc_test_write_file(b->fresh, "", 0), 0);
  CU_ASSERT_EQUAL(rename(b->fresh, b->lock), 0);
  CU_ASSERT_EQUAL(rename(b->file, b->path), 0);
}

/* Issue 37 item 13: the commit takes the other writer's file out (the
 * lock file replaced while held) and merges it back.  That writer removed
 * id1 (tuned) and recorded id3; this one records id4.  The file holds id2,
 * id3 and id4: a union would bring the removed id1 back. */
static void test_file_displaced_removal(void) {
  olc_misses_entry e1 = entry("id1", 2), e2 = entry("id2", 2), e3 = entry("id3", 2);
  olc_misses_entry e4 = entry("id4", 2);
  olc_misses_set got = OLC_MISSES_SET_INIT, done = OLC_MISSES_SET_INIT;
  olc_persist_hooks h;
  other_writer b;
  unsigned char *text;
  size_t len = 0, removed, i;
  olc_error err;
  int added, seen[5] = {0};
  memset(&b, 0, sizeof b);
  b.path = path_of("displaced.txt");
  b.lock = path_of("displaced.txt.lock");
  b.fresh = path_of("fresh.lock");
  b.file = path_of("other.txt");
  OLC_ASSERT_OK(olc_misses__append(&added, b.path, &e1, 1000, &err), &err);
  OLC_ASSERT_OK(olc_misses__append(&added, b.path, &e2, 1000, &err), &err);
  text = olc_test_read_file(b.path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(b.file, text, len), 0);
  free(text);
  OLC_ASSERT_OK(olc_misses__add(&done, &e1, &added), NULL);
  OLC_ASSERT_OK(olc_misses__remove(&removed, b.file, &done, 1000, &err), &err);
  CU_ASSERT_EQUAL(removed, 1);
  OLC_ASSERT_OK(olc_misses__append(&added, b.file, &e3, 1000, &err), &err);
  memset(&h, 0, sizeof h);
  h.at_step = other_commits;
  h.at_step_payload = &b;
  olc_persist__set_hooks(&h);
  OLC_ASSERT_OK(olc_misses__append(&added, b.path, &e4, 1000, &err), &err);
  olc_persist__set_hooks(NULL);
  CU_ASSERT(b.fired);
  OLC_ASSERT_OK(olc_misses__load(&got, b.path, &err), &err);
  for (i = 0; i < got.count; i++)
    if (strlen(got.v[i].identity) == 3 && got.v[i].identity[2] >= '1' &&
        got.v[i].identity[2] <= '4')
      seen[got.v[i].identity[2] - '0']++;
  CU_ASSERT_EQUAL(got.count, 3);
  CU_ASSERT_EQUAL(seen[1], 0);
  CU_ASSERT_EQUAL(seen[2], 1);
  CU_ASSERT_EQUAL(seen[3], 1);
  CU_ASSERT_EQUAL(seen[4], 1);
  olc_misses__free(&got);
  olc_misses__free(&done);
  free(b.path);
  free(b.lock);
  free(b.fresh);
  free(b.file);
}

/* A file that is malformed, newer, or a store: refused, byte for byte
 * unchanged. */
static void expect_untouched(const char *name, const char *text, olc_status want) {
  char *path = path_of(name);
  olc_misses_entry e = entry("id", 2);
  olc_misses_set done = OLC_MISSES_SET_INIT;
  unsigned char *after;
  size_t len = 0, removed = 9;
  olc_error err;
  int added;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, strlen(text)), 0);
  olc_error_clear(&err);
  CU_ASSERT_EQUAL(olc_misses__append(&added, path, &e, 1000, &err), want);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  OLC_ASSERT_OK(olc_misses__add(&done, &e, &added), NULL);
  CU_ASSERT_EQUAL(olc_misses__remove(&removed, path, &done, 1000, &err), want);
  CU_ASSERT_EQUAL(removed, 0);
  after = olc_test_read_file(path, &len);
  CU_ASSERT_FATAL(after != NULL);
  CU_ASSERT_TRUE(len == strlen(text) && memcmp(after, text, len) == 0);
  free(after);
  olc_misses__free(&done);
  free(path);
}

static void test_file_never_rewritten(void) {
  expect_untouched("newer.txt", "# onnx-light recorded workloads v7\n" REC "\n", OLC_E_VERSION);
  expect_untouched("store.txt", "onnx_light_calibration_profiles 1\n", OLC_E_MALFORMED);
}

/* One bad line (a hand edit, or an older writer's) does not stop
 * recording: an append and a remove go on, the line is kept as it was. */
static void test_file_bad_line_kept(void) {
  static const char text[] = HDR REC " oops\n" REC " prop.z=1\n";
  char *path = path_of("bad_line.txt");
  olc_misses_entry e = entry("id", 2);
  olc_misses_set got = OLC_MISSES_SET_INIT, done = OLC_MISSES_SET_INIT;
  unsigned char *after;
  size_t removed = 0;
  olc_error err;
  int added = 0;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, strlen(text)), 0);
  OLC_ASSERT_OK(olc_misses__append(&added, path, &e, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 1);
  OLC_ASSERT_OK(olc_misses__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL(got.count, 2);
  CU_ASSERT_EQUAL(got.bad_count, 1);
  olc_misses__free(&got);
  OLC_ASSERT_OK(olc_misses__add(&done, &e, &added), NULL);
  OLC_ASSERT_OK(olc_misses__remove(&removed, path, &done, 1000, &err), &err);
  CU_ASSERT_EQUAL(removed, 1);
  after = olc_test_read_file(path, NULL);
  CU_ASSERT_FATAL(after != NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr((const char *)after, "\n" REC " oops\n"));
  free(after);
  OLC_ASSERT_OK(olc_misses__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL(got.count, 1);
  CU_ASSERT_EQUAL(got.bad_count, 1);
  olc_misses__free(&got);
  olc_misses__free(&done);
  free(path);
}

/* What the reader accepts the writer writes, and what it would refuse the
 * writer does not write: 256 properties (olc_host_bind's most) are
 * recorded; an entry whose line would pass the reader's limit is refused
 * (OLC_E_LIMIT, the file unchanged), and recording goes on. */
static void test_file_limits(void) {
  char *path = path_of("limits.txt");
  olc_property *many = calloc(OLC_MISSES_MAX_PROPS + 1, sizeof *many);
  char(*names)[8] = calloc(OLC_MISSES_MAX_PROPS + 1, sizeof *names);
  char *big = malloc(OLC_MISSES_MAX_LINE);
  olc_misses_entry wide = entry("wide", 2), huge = entry("huge", 2), after = entry("after", 2);
  olc_misses_set got = OLC_MISSES_SET_INIT;
  olc_property one;
  olc_error err;
  size_t i;
  int added = 0;
  CU_ASSERT_FATAL(many != NULL && names != NULL && big != NULL);
  for (i = 0; i <= OLC_MISSES_MAX_PROPS; i++) {
    snprintf(names[i], sizeof names[i], "p%03u", (unsigned)i);
    many[i].name = names[i];
    many[i].value = "1";
  }
  wide.props = many;
  wide.prop_count = OLC_MISSES_MAX_PROPS;
  OLC_ASSERT_OK(olc_misses__append(&added, path, &wide, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 1);
  /* One more than the reader takes: refused. */
  wide.identity = "wider";
  wide.prop_count = OLC_MISSES_MAX_PROPS + 1;
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_misses__append(&added, path, &wide, 1000, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  /* A value that would make the line too long: refused. */
  memset(big, 'x', OLC_MISSES_MAX_LINE - 1);
  big[OLC_MISSES_MAX_LINE - 1] = 0;
  one.name = "big";
  one.value = big;
  huge.props = &one;
  huge.prop_count = 1;
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_misses__append(&added, path, &huge, 1000, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "line"));
  OLC_ASSERT_OK(olc_misses__append(&added, path, &after, 1000, &err), &err);
  CU_ASSERT_EQUAL(added, 1);
  OLC_ASSERT_OK(olc_misses__load(&got, path, &err), &err);
  CU_ASSERT_EQUAL(got.count, 2);
  CU_ASSERT_EQUAL(got.bad_count, 0);
  CU_ASSERT_EQUAL(got.count > 0 ? got.v[0].prop_count : 0, OLC_MISSES_MAX_PROPS);
  olc_misses__free(&got);
  free(many);
  free(names);
  free(big);
  free(path);
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
  CU_add_test(s, "a removal in a displaced file stays removed", test_file_displaced_removal);
  CU_add_test(s, "a bad file is never rewritten", test_file_never_rewritten);
  CU_add_test(s, "malformed record lines are skipped", test_bad_lines);
  CU_add_test(s, "a bad line is kept, recording goes on", test_file_bad_line_kept);
  CU_add_test(s, "the writer keeps to the reader's limits", test_file_limits);
  return olc_test_run(argc, argv);
}
