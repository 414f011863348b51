/*
 * tests/persist/test_durability_torn_reads_kills.c - docs/durability.md C2 (torn
 * reads), C4 (the close() pitfall) and 4.2 K3 (random kill -9 rounds).
 * Suites c2, c4, k3.  Negative controls: c2 with OLC_TEST_DISABLE=rename
 * must see torn reads; c4 with OLC_TEST_DISABLE=ofd (classic fcntl locks)
 * must lose the lock when another descriptor of P.lock is closed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "durability_util.h"
#include "persist/persist.h"
#include "test_support.h"
#include "util/buf.h"

static char *mdir;
static char *mpath;

static int msetup(void) {
  mdir = olc_test_tmpdir("more");
  mpath = olc_test_path(mdir, "store.txt");
  return mdir == NULL || mpath == NULL;
}

static int mteardown(void) {
  olc_test_rmtree(mdir);
  free(mdir);
  free(mpath);
  return 0;
}

static void fresh(void) {
  olc_test_rmtree(mdir);
  CU_ASSERT_EQUAL_FATAL(mkdir(mdir, 0700), 0);
}

/* A file of ~1.5 KB (50 filler entries) so that a torn write is visible. */
static void store_padded(long counter) {
  counter_map m;
  char name[COUNTER_NAME], *text;
  size_t n = 0;
  int i;
  m.n = 0;
  counter_add(&m, "counter", counter);
  for (i = 0; i < 50; i++) {
    snprintf(name, sizeof name, "fill-%02d", i);
    counter_add(&m, name, 1000000000L + i);
  }
  text = counter_format(&m, &n);
  CU_ASSERT_FATAL(text != NULL);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(mpath, text, n), 0);
  free(text);
}

/* ---- C2: lock-free readers while two writers replace the file ---- */

static void test_c2_torn_reads(void) {
  const char *w0[] = {OLC_PERSIST_WRITER, "inc", mpath, "1000000", "a", NULL};
  const char *w1[] = {OLC_PERSIST_WRITER, "inc", mpath, "1000000", "b", NULL};
  pid_t p0, p1;
  olc_buf b = OLC_BUF_INIT;
  long reads = 0, errors = 0;
  double end;
  fresh();
  store_padded(0);
  p0 = dur_spawn(w0, NULL, NULL);
  p1 = dur_spawn(w1, NULL, NULL);
  CU_ASSERT_FATAL(p0 > 0 && p1 > 0);
  end = dur_now() + 1.5;
  while (dur_now() < end) {
    counter_map m;
    olc_status st = olc_persist__read(&b, NULL, mpath, 1 << 20, NULL);
    reads++;
    if (st != OLC_OK || counter_parse(&m, b.data, b.len) != 0)
      errors++;
  }
  kill(p0, SIGKILL);
  kill(p1, SIGKILL);
  dur_wait(p0);
  dur_wait(p1);
  olc_buf__free(&b);
  fprintf(stderr, "\n  %ld reads, %ld torn or failed\n", reads, errors);
  CU_ASSERT(reads > 100);
  if (dur_negative("rename")) {
    CU_ASSERT(errors > 0); /* in-place writes must be seen torn */
  } else {
    CU_ASSERT_EQUAL(errors, 0);
  }
}

/* ---- C4: another descriptor of P.lock is opened and closed ---- */

static void test_c4_close_pitfall(void) {
  const char *holder_argv[] = {OLC_PERSIST_WRITER, "c4", mpath, "800", NULL};
  const char *second[] = {OLC_PERSIST_WRITER, "timeout", mpath, "300", NULL};
  char c = 0;
  int fd = -1, status;
  pid_t holder;
  fresh();
  store_padded(1);
  holder = dur_spawn(holder_argv, NULL, &fd);
  CU_ASSERT_FATAL(holder > 0);
  CU_ASSERT_EQUAL_FATAL(read(fd, &c, 1), 1);
  close(fd);
  status = dur_run(second, NULL);
  if (dur_negative("ofd")) {
    /* Classic fcntl locks: the close() released the holder's lock, so the
     * second writer got in - the reason OFD locks are required. */
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) != 0);
  } else {
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0); /* timed out */
  }
  status = dur_wait(holder); /* the holder still commits */
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- K3: random kill -9 rounds ---- */

static void test_k3_random_kills(void) {
  const char *e = getenv("OLC_K3_SEED");
  const char *r = getenv("OLC_K3_ROUNDS");
  unsigned seed = e ? (unsigned)strtoul(e, NULL, 10) : (unsigned)time(NULL);
  int rounds = r ? atoi(r) : 40, round, violations = 0;
  long last = 0;
  fprintf(stderr, "\n  K3 seed %u (replay: OLC_K3_SEED=%u), %d rounds\n", seed, seed, rounds);
  srand(seed);
  fresh();
  store_padded(0);
  for (round = 0; round < rounds; round++) {
    const char *next[] = {OLC_PERSIST_WRITER, "inc", mpath, "1", "n", NULL};
    char key[3][16];
    pid_t pids[3];
    int n = 1 + rand() % 3, i, loaded, st;
    counter_map m;
    struct timespec ts;
    for (i = 0; i < n; i++) {
      const char *argv[] = {OLC_PERSIST_WRITER, "inc", mpath, "100000", key[i], NULL};
      snprintf(key[i], sizeof key[i], "k%d", i);
      pids[i] = dur_spawn(argv, NULL, NULL);
    }
    ts.tv_sec = 0;
    ts.tv_nsec = (long)(rand() % 40) * 1000000L;
    nanosleep(&ts, NULL);
    for (i = 0; i < n; i++) {
      kill(pids[i], SIGKILL);
      dur_wait(pids[i]);
    }
    loaded = dur_load(&m, mpath);
    if (loaded != 1 || counter_get(&m, "counter") < last || olc_test_count_tmp(mdir) > 1) {
      violations++;
      fprintf(stderr, "  round %d: file state %d, %d temporaries\n", round, loaded,
              olc_test_count_tmp(mdir));
      break;
    }
    st = dur_run(next, NULL);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || olc_test_count_tmp(mdir) != 0 ||
        dur_load(&m, mpath) != 1) {
      violations++;
      fprintf(stderr, "  round %d: the next writer failed or left a temporary\n", round);
      break;
    }
    last = counter_get(&m, "counter");
  }
  fprintf(stderr, "  %d rounds, counter %ld, %d violations\n", round, last, violations);
  CU_ASSERT_EQUAL(violations, 0);
}

/* ---- privileged processes ignore the environment (issue 6, 4) ---- */

static char *secure_copy; /* a setuid copy of persist_writer */

/* 0 when a setuid test can run here: root, and a directory where the
 * setuid bit works; the copy is made then. */
int dur_secure_prepare(void);
int dur_secure_prepare(void) {
  char *d, cmd[8192];
  struct statvfs vfs;
  if (geteuid() != 0)
    return -1;
  d = olc_test_tmpdir("secure");
  if (d == NULL || statvfs(d, &vfs) != 0 || (vfs.f_flag & ST_NOSUID)) {
    free(d);
    return -1;
  }
  secure_copy = olc_test_path(d, "persist_writer_suid");
  free(d);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chown 65534:65534 '%s'", OLC_PERSIST_WRITER,
           secure_copy, secure_copy);
  if (system(cmd) != 0 || chmod(secure_copy, 0755) != 0)
    return -1;
  return 0;
}

static void default_path_of(char *out, size_t size, const char *program) {
  char cmd[8192];
  snprintf(
      cmd, sizeof cmd,
      "ASAN_OPTIONS=detect_leaks=0 HOME=/evil-home XDG_CACHE_HOME=/evil-cache '%s' defaultpath",
      program);
  olc_test_capture_line(cmd, out, size);
}

static void test_secure_environment(void) {
  char plain[4096], suid[4096];
  CU_ASSERT_FATAL(secure_copy != NULL);
  /* Control: an ordinary process honours XDG_CACHE_HOME. */
  default_path_of(plain, sizeof plain, secure_copy);
  fprintf(stderr, "\n  plain:  %s", plain);
  CU_ASSERT_STRING_EQUAL(plain, "0 /evil-cache/onnx-light/calibration_profiles.txt");
  /* setuid (euid 65534, uid 0): AT_SECURE, the environment is ignored and
   * the passwd entry of the real uid decides. */
  CU_ASSERT_EQUAL_FATAL(chmod(secure_copy, 04755), 0);
  default_path_of(suid, sizeof suid, secure_copy);
  fprintf(stderr, "\n  setuid: %s\n", suid);
  CU_ASSERT(strncmp(suid, "1 /", 3) == 0);
  CU_ASSERT(strstr(suid, "evil") == NULL);
  CU_ASSERT(strstr(suid, "/.cache/onnx-light/calibration_profiles.txt") != NULL);
  unlink(secure_copy);
  {
    char *slash = strrchr(secure_copy, '/');
    if (slash != NULL) {
      *slash = 0;
      rmdir(secure_copy);
    }
  }
  free(secure_copy);
  secure_copy = NULL;
}

int test_durability_torn_reads_kills_register(void);
int test_durability_torn_reads_kills_register(void) {
  CU_pSuite s = CU_add_suite("c2", msetup, mteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "C2 no torn reads while writers replace the file", test_c2_torn_reads);
  s = CU_add_suite("c4", msetup, mteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "C4 closing another descriptor of P.lock keeps the lock", test_c4_close_pitfall);
  s = CU_add_suite("k3", msetup, mteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "K3 random kill -9 rounds", test_k3_random_kills);
  s = CU_add_suite("secure", NULL, NULL);
  if (s == NULL)
    return -1;
  CU_add_test(s, "a setuid process ignores HOME and XDG_CACHE_HOME", test_secure_environment);
  return 0;
}
