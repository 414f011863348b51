/*
 * tests/persist/test_mlock.c - the measurement lock of the persist module
 * (persist.h, olc_persist__mlock_*): the file it creates, contention with
 * another process (OFD and classic fcntl locks), the bounded wait, cancel,
 * threads of one process, the hostile files in its place, the default
 * path, the holder line and the negative control.
 *
 * The other process is a forked child that takes the lock, says so on a
 * pipe and holds it until the parent writes to another pipe (or exits).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlock_holder.h"
#include "persist/persist_int.h"
#include "test_support.h"

static char *dir;

static int setup(void) {
  dir = olc_test_tmpdir("mlock");
  olc_persist__set_hooks(NULL);
  return dir == NULL;
}

static int teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_rmtree(dir);
  free(dir);
  return 0;
}

static olc_persist_mlock_wait wait_ms(int64_t ms) {
  olc_persist_mlock_wait w;
  memset(&w, 0, sizeof w);
  w.timeout_ms = ms;
  return w;
}

/* Asserts that an acquire gives expected; a lock granted against
 * expectation is released, so the following tests start clean. */
static void expect_status(olc_status expected, olc_persist_mlock **m, olc_persist_mlock_outcome *o,
                          const char *path, const olc_persist_mlock_wait *w, olc_error *err) {
  olc_status st;
  olc_error_clear(err);
  st = olc_persist__mlock_acquire(m, o, path, w, err);
  if (st != expected)
    olc_test_print_error("olc_persist__mlock_acquire", st, expected, err);
  CU_ASSERT_EQUAL(st, expected);
  if (st == OLC_OK && expected != OLC_OK) {
    olc_persist__mlock_release(*m);
    *m = NULL;
  }
}

/* ---- tests ---- */

static void test_creates_file_and_line(void) {
  char *path = olc_test_path(dir, "new/sub/measure.lock");
  char *sub = olc_test_path(dir, "new/sub");
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_outcome o;
  olc_persist_mlock_holder h;
  olc_persist_mlock_wait w = wait_ms(0);
  struct stat st;
  unsigned char *text;
  size_t len = 0;
  olc_error err;
  int fds = olc_test_count_fds();
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, &o, path, &w, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(m);
  CU_ASSERT_EQUAL(o.contended, 0);
  CU_ASSERT_EQUAL(o.waited_ms, 0);
  CU_ASSERT_EQUAL_FATAL(lstat(path, &st), 0);
  CU_ASSERT(S_ISREG(st.st_mode));
  CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
  CU_ASSERT_EQUAL_FATAL(stat(sub, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
  text = olc_test_read_file(path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  olc_persist__mlock_parse(&h, (const char *)text, len);
  CU_ASSERT_EQUAL(h.known, 1);
  CU_ASSERT_EQUAL(h.pid, (int64_t)getpid());
  CU_ASSERT(h.started_s > 0); /* Linux: from /proc/self/stat */
  CU_ASSERT(h.acquired_ms >= h.started_s * 1000 - 1000);
  free(text);
  olc_persist__mlock_release(m);
  /* The file stays, free again; no descriptor left open. */
  CU_ASSERT_EQUAL(lstat(path, &st), 0);
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, &o, path, &w, &err), &err);
  olc_persist__mlock_release(m);
  CU_ASSERT_EQUAL(olc_test_count_fds(), fds);
  olc_persist__mlock_release(NULL);
  free(path);
  free(sub);
}

/* Held by a child: a try finds it held and names the child; a wait that
 * lets the child go gets it. */
static void contention_with(unsigned disabled) {
  char *path = olc_test_path(dir, "contended.lock");
  olc_persist_hooks hk;
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_outcome o;
  olc_persist_mlock_wait w = wait_ms(0);
  mlock_holder h;
  olc_error err;
  memset(&hk, 0, sizeof hk);
  hk.disabled_safety = disabled;
  olc_persist__set_hooks(&hk);
  CU_ASSERT_EQUAL_FATAL(mlock_holder_start(&h, path, NULL, NULL), 0);
  expect_status(OLC_E_LOCK_TIMEOUT, &m, &o, path, &w, &err);
  CU_ASSERT_PTR_NULL(m);
  CU_ASSERT_EQUAL(o.contended, 1);
  CU_ASSERT_EQUAL(o.holder.known, 1);
  CU_ASSERT_EQUAL(o.holder.pid, (int64_t)h.pid);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  /* Forever, and the child lets go: this process gets it after it. */
  mlock_holder_let_go(&h);
  w = wait_ms(-1);
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, &o, path, &w, &err), &err);
  CU_ASSERT_EQUAL(mlock_holder_stop(&h), 0);
  /* Held here now: a second child cannot take it. */
  {
    pid_t pid = fork();
    int status = -1;
    if (pid == 0) {
      olc_persist_mlock *m2 = NULL;
      olc_persist_mlock_wait w0 = wait_ms(0);
      _exit(olc_persist__mlock_acquire(&m2, NULL, path, &w0, NULL) == OLC_E_LOCK_TIMEOUT ? 0 : 1);
    }
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  olc_persist__mlock_release(m);
  olc_persist__set_hooks(NULL);
  free(path);
}

static void test_contention_ofd(void) { contention_with(0); }
static void test_contention_classic(void) { contention_with(OLC_PERSIST__SAFETY_CLASSIC); }

static void test_timeout(void) {
  char *path = olc_test_path(dir, "timeout.lock");
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_outcome o;
  olc_persist_mlock_wait w = wait_ms(30);
  mlock_holder h;
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(mlock_holder_start(&h, path, NULL, NULL), 0);
  expect_status(OLC_E_LOCK_TIMEOUT, &m, &o, path, &w, &err);
  CU_ASSERT_PTR_NULL(m);
  CU_ASSERT_EQUAL(o.contended, 1);
  CU_ASSERT(o.waited_ms >= 30); /* it gives up only once the timeout passed */
  CU_ASSERT_EQUAL(o.holder.pid, (int64_t)h.pid);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "timed out"));
  CU_ASSERT_EQUAL(mlock_holder_stop(&h), 0);
  free(path);
}

typedef struct canceller {
  int calls;
  int stop_at;
  mlock_holder *release; /* when set: let this holder go at the first call */
} canceller;

static int on_cancel(void *payload) {
  canceller *c = payload;
  c->calls++;
  if (c->release != NULL)
    mlock_holder_let_go(c->release);
  return c->stop_at > 0 && c->calls >= c->stop_at;
}

static void test_cancel(void) {
  char *path = olc_test_path(dir, "cancel.lock");
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_outcome o;
  olc_persist_mlock_wait w = wait_ms(-1);
  canceller c = {0, 3, NULL};
  mlock_holder h;
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(mlock_holder_start(&h, path, NULL, NULL), 0);
  w.cancel = on_cancel;
  w.cancel_payload = &c;
  expect_status(OLC_E_CANCELLED, &m, &o, path, &w, &err);
  CU_ASSERT_PTR_NULL(m);
  CU_ASSERT_EQUAL(c.calls, 3);
  CU_ASSERT_EQUAL(o.holder.pid, (int64_t)h.pid);
  /* A cancel that never stops: polled while waiting, the wait ends once
   * the holder (let go at the first poll) is gone. */
  c.calls = 0;
  c.stop_at = 0;
  c.release = &h;
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, &o, path, &w, &err), &err);
  CU_ASSERT(c.calls >= 1);
  CU_ASSERT_EQUAL(o.contended, 1);
  olc_persist__mlock_release(m);
  CU_ASSERT_EQUAL(mlock_holder_stop(&h), 0);
  free(path);
}

/* One holder per process, whatever path a thread names. */
static void test_one_holder_per_process(void) {
  char *a = olc_test_path(dir, "a.lock");
  char *b = olc_test_path(dir, "b.lock");
  olc_persist_mlock *m = NULL, *m2 = NULL;
  olc_persist_mlock_outcome o;
  olc_persist_mlock_wait w = wait_ms(0);
  olc_error err;
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, NULL, a, &w, &err), &err);
  expect_status(OLC_E_LOCK_TIMEOUT, &m2, &o, a, &w, &err);
  CU_ASSERT_EQUAL(o.holder.pid, (int64_t)getpid());
  expect_status(OLC_E_LOCK_TIMEOUT, &m2, &o, b, &w, &err);
  olc_persist__mlock_release(m);
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m2, NULL, b, &w, &err), &err);
  olc_persist__mlock_release(m2);
  free(a);
  free(b);
}

/* What stands in the lock's place: a clear error, nothing followed or
 * changed, no blocking. */
static void expect_refused(const char *path, olc_status expected, const char *words) {
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_wait w = wait_ms(0);
  olc_error err;
  int fds = olc_test_count_fds();
  expect_status(expected, &m, NULL, path, &w, &err);
  CU_ASSERT_PTR_NULL(m);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  if (strstr(err.message, words) == NULL)
    fprintf(stderr, "\n  '%s' lacks '%s'\n", err.message, words);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, words));
  CU_ASSERT_EQUAL(olc_test_count_fds(), fds);
}

static void test_hostile_files(void) {
  char *target = olc_test_path(dir, "target");
  char *link_ = olc_test_path(dir, "link.lock");
  char *dangling = olc_test_path(dir, "dangling.lock");
  char *missing = olc_test_path(dir, "missing-target");
  char *fifo = olc_test_path(dir, "fifo.lock");
  char *sub = olc_test_path(dir, "dir.lock");
  char *under_file = olc_test_path(dir, "target/x.lock");
  unsigned char *text;
  size_t len;
  struct stat st;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(target, "keep\n", 5), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(target, link_), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(missing, dangling), 0);
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
  expect_refused(link_, OLC_E_LOCK, "symbolic link");
  expect_refused(dangling, OLC_E_LOCK, "symbolic link");
  expect_refused(fifo, OLC_E_LOCK, "not a regular file");
  expect_refused(sub, OLC_E_LOCK, "directory");
  expect_refused(under_file, OLC_E_IO, "cannot open or create");
  /* Nothing followed: the target unchanged, the missing one not created. */
  text = olc_test_read_file(target, &len);
  CU_ASSERT(text != NULL && len == 5 && memcmp(text, "keep\n", 5) == 0);
  free(text);
  CU_ASSERT_NOT_EQUAL(lstat(missing, &st), 0);
  free(target);
  free(link_);
  free(dangling);
  free(missing);
  free(fifo);
  free(sub);
  free(under_file);
}

/* Another user's file (needs root to make one) and a read-only directory
 * (root ignores modes): each case runs where it can. */
static void test_other_user_and_read_only(void) {
  char *theirs = olc_test_path(dir, "theirs.lock");
  char *ro = olc_test_path(dir, "ro");
  char *in_ro = olc_test_path(dir, "ro/measure.lock");
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(theirs, "", 0), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(ro, 0500), 0);
  if (geteuid() == 0) {
    CU_ASSERT_EQUAL_FATAL(chown(theirs, 65534, 65534), 0);
    expect_refused(theirs, OLC_E_LOCK, "belongs to uid 65534");
    printf("(read-only directory: not checked as root) ");
  } else {
    olc_persist_mlock *m = NULL;
    olc_persist_mlock_wait w = wait_ms(0);
    olc_error err;
    expect_refused(in_ro, OLC_E_IO, "cannot open or create");
    olc_error_clear(&err);
    (void)olc_persist__mlock_acquire(&m, NULL, in_ro, &w, &err);
    CU_ASSERT_EQUAL(err.sys_errno, EACCES);
    printf("(another user's file: not checked without root) ");
  }
  chmod(ro, 0700);
  free(theirs);
  free(ro);
  free(in_ro);
}

/* The negative control: granted without locking, twice at once. */
static void test_disabled_control(void) {
  char *path = olc_test_path(dir, "off.lock");
  olc_persist_hooks hk;
  olc_persist_mlock *m = NULL, *m2 = NULL;
  olc_persist_mlock_wait w = wait_ms(0);
  olc_error err;
  struct stat st;
  memset(&hk, 0, sizeof hk);
  hk.disabled_safety = OLC_PERSIST__SAFETY_MLOCK;
  olc_persist__set_hooks(&hk);
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, NULL, path, &w, &err), &err);
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m2, NULL, path, &w, &err), &err);
  CU_ASSERT_NOT_EQUAL(lstat(path, &st), 0); /* no file either */
  olc_persist__mlock_release(m);
  olc_persist__mlock_release(m2);
  olc_persist__set_hooks(NULL);
  free(path);
}

/* starttime, field 22 of /proc/self/stat, found here independently of the
 * library: the fields after the last ')' begin with field 3. */
static int64_t start_from_proc(void) {
  char buf[1024], *p, *tok, *save = NULL;
  unsigned long long ticks = 0;
  struct timespec real, boot;
  long hz = sysconf(_SC_CLK_TCK);
  int field = 3;
  FILE *f = fopen("/proc/self/stat", "r");
  size_t n;
  if (f == NULL)
    return -1;
  n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  p = strrchr(buf, ')');
  if (p == NULL || hz <= 0)
    return -1;
  for (tok = strtok_r(p + 1, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save), field++)
    if (field == 22) {
      ticks = strtoull(tok, NULL, 10);
      break;
    }
  if (field != 22 || clock_gettime(CLOCK_REALTIME, &real) != 0 ||
      clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
    return -1;
  return (int64_t)(real.tv_sec - boot.tv_sec) + (int64_t)(ticks / (unsigned long long)hz);
}

/* 0 when the library's start time is this process's (within the second
 * the two clock reads may straddle). */
static int start_matches(void) {
  int64_t got = olc_persist__process_start_s(), want = start_from_proc();
  printf("\n  process start: %lld, field 22 says %lld", (long long)got, (long long)want);
  return want > 0 && got >= want - 1 && got <= want + 1 ? 0 : 1;
}

/* The holder line's start is the process's start (field 22, starttime),
 * also when the command name holds spaces and parentheses. */
static void test_process_start(void) {
  int status = -1;
  pid_t pid;
  CU_ASSERT_EQUAL(start_matches(), 0);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    (void)prctl(PR_SET_NAME, "a) b (c d) 9", 0, 0, 0);
    _exit(start_matches());
  }
  CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int test_mlock_path_register(void);

int main(int argc, char **argv) {
  CU_pSuite s;
  signal(SIGPIPE, SIG_IGN); /* a holder that already exited */
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("mlock", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "creates its file 0600 and dir 0700, holder line", test_creates_file_and_line);
  CU_add_test(s, "another process holds it (OFD locks)", test_contention_ofd);
  CU_add_test(s, "another process holds it (classic fcntl)", test_contention_classic);
  CU_add_test(s, "bounded wait", test_timeout);
  CU_add_test(s, "cancel", test_cancel);
  CU_add_test(s, "one holder per process", test_one_holder_per_process);
  CU_add_test(s, "hostile files in its place", test_hostile_files);
  CU_add_test(s, "another user's file, read-only directory", test_other_user_and_read_only);
  CU_add_test(s, "negative control: disabled", test_disabled_control);
  CU_add_test(s, "the holder's process start (starttime)", test_process_start);
  if (test_mlock_path_register() != 0)
    return 1;
  return olc_test_run(argc, argv);
}
