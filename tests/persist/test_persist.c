/*
 * tests/persist/test_persist.c - the POSIX write path of persist/ (docs/durability.md,
 * W0-W13): first write, no-op merge, GC, modes, locking, threads, and a fault at
 * every named step (F-tests through the OLC_TEST_HOOKS hooks).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/persist.h"
#include "test_support.h"
#include "util/buf.h"

/* ---- a counter file format of our own: "<decimal>\n" ---- */

static int parse_counter(const unsigned char *p, size_t n, long *out) {
  size_t i;
  long v = 0;
  if (n < 2 || p[n - 1] != '\n')
    return -1;
  for (i = 0; i + 1 < n; i++) {
    if (p[i] < '0' || p[i] > '9' || v > 100000000L)
      return -1;
    v = v * 10 + (p[i] - '0');
  }
  *out = v;
  return 0;
}

typedef struct counter_op {
  long add;       /* 0: leave unchanged */
  int seen_exist; /* base_exists as seen by the transform */
  long seen;
} counter_op;

static olc_status counter_transform(olc_buf *out, int *unchanged, const unsigned char *base,
                                    size_t len, int exists, void *payload, olc_error *err) {
  counter_op *op = payload;
  long v = 0;
  char text[32];
  (void)err;
  op->seen_exist = exists;
  if (exists && parse_counter(base, len, &v) != 0)
    return OLC_E_MALFORMED;
  op->seen = v;
  if (op->add == 0) {
    *unchanged = 1;
    return OLC_OK;
  }
  snprintf(text, sizeof text, "%ld\n", v + op->add);
  return olc_buf__puts(out, text);
}

static char *dir;
static char *path;
static char *lock_path;

static int setup(void) {
  dir = olc_test_tmpdir("persist");
  path = olc_test_path(dir, "store.txt");
  lock_path = olc_test_path(dir, "store.txt.lock");
  olc_persist__set_hooks(NULL);
  return dir == NULL || path == NULL || lock_path == NULL;
}

static int teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_rmtree(dir);
  free(dir);
  free(path);
  free(lock_path);
  return 0;
}

static olc_persist_options opts(void) {
  olc_persist_options o;
  o.lock_timeout_ms = 2000;
  o.tmp_grace_seconds = 0;
  o.file_mode = 0600;
  o.max_file_size = 1 << 20;
  o.probe = NULL;
  o.probe_payload = NULL;
  o.absorb = NULL;
  return o;
}

static olc_status bump(long add, olc_error *err) {
  olc_persist_options o = opts();
  counter_op op = {add, 0, 0};
  return olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, err);
}

static long counter_value(void) {
  size_t n = 0;
  long v = -1;
  unsigned char *p = olc_test_read_file(path, &n);
  if (p == NULL || parse_counter(p, n, &v) != 0)
    v = -1;
  free(p);
  return v;
}

static void reset_store(const char *content) {
  olc_test_rmtree(dir);
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
  if (content != NULL)
    CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, content, strlen(content)), 0);
}

static void test_first_write_creates_dirs(void) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {5, 0, 0};
  olc_file_id id, id2;
  int written = 0;
  struct stat st;
  char *deep = olc_test_path(dir, "a/b/c/store.txt");
  char *adir = olc_test_path(dir, "a");
  mode_t um = umask(022);
  umask(um);
  o.file_mode = 0644;
  OLC_ASSERT_OK(olc_persist__update(&id, &written, deep, &o, counter_transform, &op, &err), &err);
  CU_ASSERT_EQUAL(written, 1);
  CU_ASSERT_EQUAL(op.seen_exist, 0);
  CU_ASSERT_EQUAL_FATAL(stat(adir, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
  CU_ASSERT_EQUAL_FATAL(stat(deep, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 0777, 0644 & ~um);
  CU_ASSERT(id.exists);
  CU_ASSERT_EQUAL(id.ino, (uint64_t)st.st_ino);
  CU_ASSERT_EQUAL(id.size, 2);
  OLC_ASSERT_OK(olc_persist__stat(&id2, deep, &err), &err);
  CU_ASSERT(olc_file_id__equal(&id, &id2));
  free(deep);
  free(adir);
  {
    char *lock = olc_test_path(dir, "a/b/c/store.txt.lock");
    CU_ASSERT_EQUAL(stat(lock, &st), 0);
    free(lock);
  }
}

static void test_update_and_unchanged(void) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {0, 0, 0};
  olc_file_id a, b;
  int written = 1;
  uint64_t calls;
  reset_store("41\n");
  OLC_ASSERT_OK(bump(1, &err), &err);
  CU_ASSERT_EQUAL(counter_value(), 42);
  OLC_ASSERT_OK(olc_persist__stat(&a, path, &err), &err);
  calls = olc_persist__call_count();
  OLC_ASSERT_OK(olc_persist__update(&b, &written, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT(olc_persist__call_count() > calls);
  CU_ASSERT_EQUAL(written, 0);
  CU_ASSERT_EQUAL(op.seen_exist, 1);
  CU_ASSERT_EQUAL(op.seen, 42);
  CU_ASSERT(olc_file_id__equal(&a, &b)); /* no write: same inode, same mtime */
  CU_ASSERT_EQUAL(olc_test_count_tmp(dir), 0);
}

static void test_mode_preserved(void) {
  olc_error err;
  struct stat st;
  reset_store("1\n");
  CU_ASSERT_EQUAL_FATAL(chmod(path, 0640), 0);
  OLC_ASSERT_OK(bump(1, &err), &err);
  CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
  CU_ASSERT_EQUAL(counter_value(), 2);
}

static void test_malformed_base_refused(void) {
  olc_error err;
  size_t n = 0;
  unsigned char *p;
  reset_store("garbage");
  OLC_ASSERT_STATUS(OLC_E_MALFORMED, bump(1, &err), &err);
  p = olc_test_read_file(path, &n);
  CU_ASSERT(p != NULL && n == 7 && memcmp(p, "garbage", 7) == 0);
  free(p);
  CU_ASSERT_EQUAL(olc_test_count_tmp(dir), 0);
}

static void test_base_too_large(void) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {1, 0, 0};
  reset_store("123456789\n");
  o.max_file_size = 4;
  o.probe = NULL;
  o.probe_payload = NULL;
  o.absorb = NULL;
  OLC_ASSERT_STATUS(OLC_E_LIMIT,
                    olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT_EQUAL(counter_value(), 123456789);
}

static void test_symlink_never_written_through(void) {
  olc_error err;
  char *target = olc_test_path(dir, "target.txt");
  size_t n = 0;
  unsigned char *p;
  reset_store(NULL);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(target, "7\n", 2), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(target, path), 0);
  /* Refused before P.lock is created next to it... */
  OLC_ASSERT_STATUS(OLC_E_INVALID, bump(1, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.where, "lock-open");
  CU_ASSERT_EQUAL(access(lock_path, F_OK), -1);
  /* ...and, with a P.lock there already, at the reload (O_NOFOLLOW). */
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(lock_path, "", 0), 0);
  OLC_ASSERT_STATUS(OLC_E_IO, bump(1, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.where, "reload");
  p = olc_test_read_file(target, &n);
  CU_ASSERT(p != NULL && n == 2 && memcmp(p, "7\n", 2) == 0);
  free(p);
  free(target);
}

/* A FIFO (or a directory) planted at P: readers and writers fail at once
 * with OLC_E_IO instead of hanging or writing. */
static void test_not_a_regular_file(void) {
  olc_error err;
  olc_buf b = OLC_BUF_INIT;
  reset_store(NULL);
  CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
  OLC_ASSERT_STATUS(OLC_E_IO, olc_persist__read(&b, NULL, path, 0, &err), &err);
  /* No P.lock yet: refused before one is created next to it. */
  OLC_ASSERT_STATUS(OLC_E_INVALID, bump(1, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.where, "lock-open");
  CU_ASSERT_EQUAL(access(lock_path, F_OK), -1);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(lock_path, "", 0), 0);
  OLC_ASSERT_STATUS(OLC_E_IO, bump(1, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.where, "reload");
  CU_ASSERT_EQUAL(unlink(path), 0);
  CU_ASSERT_EQUAL(unlink(lock_path), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
  OLC_ASSERT_STATUS(OLC_E_INVALID, bump(1, &err), &err);
  CU_ASSERT_EQUAL(access(lock_path, F_OK), -1);
  CU_ASSERT_EQUAL(olc_test_count_tmp(dir), 0);
  olc_buf__free(&b);
}

static void make_file(const char *name, long age_s) {
  char *p = olc_test_path(dir, name);
  struct timespec ts[2];
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, "x", 1), 0);
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= age_s;
  ts[1] = ts[0];
  CU_ASSERT_EQUAL(utimensat(AT_FDCWD, p, ts, 0), 0);
  free(p);
}

static int exists_in_dir(const char *name) {
  char *p = olc_test_path(dir, name);
  struct stat st;
  int r = lstat(p, &st) == 0;
  free(p);
  return r;
}

static void test_gc_exact_pattern_and_grace(void) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {1, 0, 0};
  char *victim;
  reset_store("1\n");
  make_file("store.txt.123.0123456789abcdef.tmp", 10);
  make_file("store.txt.77.fedcba9876543210.tmp", 7200);
  make_file("store.txt.x.0123456789abcdef.tmp", 7200);   /* pid not a number */
  make_file("store.txt.1.0123456789ABCDEF.tmp", 7200);   /* upper-case hex */
  make_file("store.txt.1.0123456789abcde.tmp", 7200);    /* 15 hex */
  make_file("other.txt.1.0123456789abcdef.tmp", 7200);   /* other store */
  make_file("store.txt.1.0123456789abcdef.tmp.x", 7200); /* suffix */
  victim = olc_test_path(dir, "victim");
  CU_ASSERT_EQUAL(olc_test_write_file(victim, "v", 1), 0);
  {
    char *link = olc_test_path(dir, "store.txt.5.aaaaaaaaaaaaaaaa.tmp");
    CU_ASSERT_EQUAL(symlink(victim, link), 0); /* a symlink is never deleted */
    free(link);
  }
  o.tmp_grace_seconds = 3600;
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT(exists_in_dir("store.txt.123.0123456789abcdef.tmp")); /* younger than grace */
  CU_ASSERT(!exists_in_dir("store.txt.77.fedcba9876543210.tmp"));
  o.tmp_grace_seconds = 0;
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT(!exists_in_dir("store.txt.123.0123456789abcdef.tmp"));
  CU_ASSERT(exists_in_dir("store.txt.x.0123456789abcdef.tmp"));
  CU_ASSERT(exists_in_dir("store.txt.1.0123456789ABCDEF.tmp"));
  CU_ASSERT(exists_in_dir("store.txt.1.0123456789abcde.tmp"));
  CU_ASSERT(exists_in_dir("other.txt.1.0123456789abcdef.tmp"));
  CU_ASSERT(exists_in_dir("store.txt.1.0123456789abcdef.tmp.x"));
  CU_ASSERT(exists_in_dir("store.txt.5.aaaaaaaaaaaaaaaa.tmp"));
  CU_ASSERT(exists_in_dir("victim"));
  CU_ASSERT_EQUAL(counter_value(), 3);
  free(victim);
}

/* A leftover whose timestamp is ahead of the clock (a finer file-system
 * clock, or a server's) has age 0: removed with grace 0, kept with any
 * other grace (it is never taken for an old file). */
static void test_gc_future_timestamp(void) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {1, 0, 0};
  reset_store("1\n");
  make_file("store.txt.9.00000000000000aa.tmp", -30);
  o.tmp_grace_seconds = 60;
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT(exists_in_dir("store.txt.9.00000000000000aa.tmp"));
  o.tmp_grace_seconds = 0;
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT(!exists_in_dir("store.txt.9.00000000000000aa.tmp"));
  CU_ASSERT_EQUAL(olc_test_count_tmp(dir), 0);
  CU_ASSERT_EQUAL(counter_value(), 3);
}

/* A lock held through another open file description of P.lock conflicts
 * with the writer's OFD lock (and with the classic fallback). */
static int hold_lock(int classic) {
  char *lp = olc_test_path(dir, "store.txt.lock");
  int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  struct flock fl;
  free(lp);
  if (fd < 0)
    return -1;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fd, classic ? F_SETLK : F_OFD_SETLK, &fl) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void lock_timeout_case(unsigned disabled) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {1, 0, 0};
  olc_persist_hooks h;
  int fd;
  memset(&h, 0, sizeof h);
  h.disabled_safety = disabled;
  olc_persist__set_hooks(&h);
  reset_store("10\n");
  fd = hold_lock(0);
  CU_ASSERT_FATAL(fd >= 0);
  o.lock_timeout_ms = 150;
  OLC_ASSERT_STATUS(OLC_E_LOCK_TIMEOUT,
                    olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.where, "lock");
  CU_ASSERT_EQUAL(counter_value(), 10);
  o.lock_timeout_ms = 0; /* a single try */
  OLC_ASSERT_STATUS(OLC_E_LOCK_TIMEOUT,
                    olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  close(fd);
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT_EQUAL(counter_value(), 11);
  olc_persist__set_hooks(NULL);
}

static void test_lock_timeout_ofd(void) { lock_timeout_case(0); }
static void test_lock_timeout_classic(void) { lock_timeout_case(16u /* classic fcntl */); }

static void test_lock_forever_waits(void) {
  olc_error err;
  olc_persist_options o = opts();
  counter_op op = {1, 0, 0};
  reset_store("1\n");
  o.lock_timeout_ms = -1; /* F_OFD_SETLKW on a free lock */
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, path, &o, counter_transform, &op, &err), &err);
  CU_ASSERT_EQUAL(counter_value(), 2);
}

typedef struct thread_arg {
  int n;
  int failures;
} thread_arg;

static void *thread_main(void *p) {
  thread_arg *a = p;
  int i;
  for (i = 0; i < a->n; i++)
    if (bump(1, NULL) != OLC_OK)
      a->failures++;
  return NULL;
}

static void test_threads_lose_nothing(void) {
  pthread_t t[8];
  thread_arg a[8];
  int i, fds = olc_test_count_fds();
  reset_store(NULL);
  for (i = 0; i < 8; i++) {
    a[i].n = 50;
    a[i].failures = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, thread_main, &a[i]), 0);
  }
  for (i = 0; i < 8; i++) {
    pthread_join(t[i], NULL);
    CU_ASSERT_EQUAL(a[i].failures, 0);
  }
  CU_ASSERT_EQUAL(counter_value(), 400);
  CU_ASSERT_EQUAL(olc_test_count_tmp(dir), 0);
  CU_ASSERT_EQUAL(olc_test_count_fds(), fds); /* no descriptor leaked */
}

int test_persist_faults_register(void);
int test_persist_path_register(void);
int test_persist_watch_register(void);

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("persist", setup, teardown);
  CU_add_test(s, "first write creates dirs 0700 and the file", test_first_write_creates_dirs);
  CU_add_test(s, "update, then unchanged merge writes nothing", test_update_and_unchanged);
  CU_add_test(s, "an existing file keeps its mode", test_mode_preserved);
  CU_add_test(s, "a malformed base is never overwritten", test_malformed_base_refused);
  CU_add_test(s, "a base over the size limit is refused", test_base_too_large);
  CU_add_test(s, "a symlink in place of P is never written through",
              test_symlink_never_written_through);
  CU_add_test(s, "a FIFO or directory at P fails, never hangs", test_not_a_regular_file);
  CU_add_test(s, "gc: exact pattern, grace, no symlinks", test_gc_exact_pattern_and_grace);
  CU_add_test(s, "gc: a timestamp ahead of the clock is age 0", test_gc_future_timestamp);
  CU_add_test(s, "lock timeout (OFD)", test_lock_timeout_ofd);
  CU_add_test(s, "lock timeout (classic fcntl)", test_lock_timeout_classic);
  CU_add_test(s, "infinite timeout takes a free lock", test_lock_forever_waits);
  CU_add_test(s, "8 threads x 50 increments lose nothing", test_threads_lose_nothing);
  if (test_persist_faults_register() != 0 || test_persist_path_register() != 0 ||
      test_persist_watch_register() != 0)
    return 1;
  return olc_test_run(argc, argv);
}
