/*
 * tests/persist/test_hostile_lockfile.c - the generation counter of P.lock
 * under attack (issue 12 items 3 and 4; docs/durability.md, "When the lock file is replaced"),
 * through the public API with real processes:
 *
 * - full: on a full 64 KiB tmpfs, a first write (no P.lock yet) and a
 *   write next to an empty P.lock left by an older version fail with
 *   OLC_E_NOSPC and change nothing; no process is killed by SIGBUS.  Once
 *   there is room again the same writes succeed.  Needs a mount namespace
 *   (root, or an unprivileged user namespace): exit 77 without one.
 * - sabotage: while one process truncates P.lock, cuts it to a few bytes
 *   and overwrites its header with garbage in a loop, 4 writer processes
 *   save 25 records each and 2 reader processes list the store: no process
 *   is killed by a signal, every save succeeds, the file holds every
 *   record (mutual exclusion held), every reader sees all of them and got
 *   at most one warning about the damaged lock file.
 * - replace: the same while another process renames a fresh file over
 *   P.lock every 5 ms, REPLACE_ROUNDS rounds: no signal, every save
 *   succeeds or fails cleanly (OLC_E_LOCK: the lock file kept being
 *   replaced), the file parses, holds every save reported done (none lost,
 *   issue 37 item 13) and no key that was never saved, and every reader
 *   sees what it holds.  "replace" runs in TMPDIR, "replace_tmpfs" on
 *   /dev/shm when it is a tmpfs (exit 77 otherwise).  With
 *   OLC_TEST_DISABLE=relock the writers overlap far more often and the
 *   commit's exchange alone must keep every save; with
 *   OLC_TEST_DISABLE=exchange,relock (the negative control) saves are lost.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "olc/store.h"
#include "test_store_setup.h"
#include "test_support.h"

#define WRITERS 4
#define PER_WRITER 25
#define READERS 2
#define REPLACE_ROUNDS 4
#define TMPFS_MAGIC_NUMBER 0x01021994L

static char *tmp;
static char *path;
static char *lock;

static int setup(void) {
  if (olc_test_store_dir("lockfile", "p.txt", &tmp, &path) != 0)
    return 1;
  lock = olc_test_path(tmp, "p.txt.lock");
  return lock == NULL;
}

static int teardown(void) {
  olc_test_store_dir_free(&tmp, &path);
  free(lock);
  return 0;
}

static olc_status open_store(olc_store **s, const char *p, olc_error *err) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  o.path = p;
  o.lock_timeout_ms = 20000;
  return olc_store_open(s, &o, err);
}

static olc_status save_key(olc_store *s, const char *backend, olc_error *err) {
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_key key = olc_test_matmul_key(backend, "d");
  olc_save_request req = olc_test_bit_exact_request(&key, "p", 1, &m, 1);
  return olc_store_save(s, &req, err);
}

static olc_status save_once(const char *p, const char *backend, olc_error *err) {
  olc_store *s = NULL;
  olc_status st = open_store(&s, p, err);
  if (st == OLC_OK)
    st = save_key(s, backend, err);
  olc_store_free(s);
  return st;
}

/* "exit N" or "signal N" of a wait status; 1 when it was a signal. */
static int describe(int status, char *buf, size_t size) {
  if (WIFSIGNALED(status)) {
    snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
    return 1;
  }
  snprintf(buf, size, "exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

/* ------------------------------------------------------------- full */

/* Why the child could not mount its tmpfs (said when the test skips). */
static char no_mount_why[256];

/* A private mount namespace (root, else an unprivileged user namespace
 * mapping this user to root); -1 when neither is allowed, with the
 * reason in no_mount_why. */
static int private_mounts(void) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  char map[64];
  int fd, e;
  if (unshare(CLONE_NEWNS) != 0) {
    e = errno;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      snprintf(no_mount_why, sizeof no_mount_why,
               "unshare(CLONE_NEWNS) as uid %lu: %s; unshare(CLONE_NEWUSER|CLONE_NEWNS): %s",
               (unsigned long)uid, strerror(e), strerror(errno));
      return -1;
    }
    fd = open("/proc/self/setgroups", O_WRONLY);
    if (fd >= 0) {
      (void)!write(fd, "deny", 4);
      close(fd);
    }
    snprintf(map, sizeof map, "0 %lu 1", (unsigned long)uid);
    fd = open("/proc/self/uid_map", O_WRONLY);
    if (fd < 0 || write(fd, map, strlen(map)) < 0)
      return -1;
    close(fd);
    snprintf(map, sizeof map, "0 %lu 1", (unsigned long)gid);
    fd = open("/proc/self/gid_map", O_WRONLY);
    if (fd < 0 || write(fd, map, strlen(map)) < 0)
      return -1;
    close(fd);
  }
  return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* Writes filler until the file system is full. */
static int fill(const char *filler) {
  static char block[4096];
  int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return -1;
  memset(block, 'f', sizeof block);
  for (;;) {
    ssize_t r = write(fd, block, sizeof block);
    if (r < 0 && errno == ENOSPC)
      break;
    if (r <= 0) {
      close(fd);
      return -1;
    }
  }
  /* Also the last partial page. */
  while (write(fd, block, 1) == 1) {
  }
  close(fd);
  return 0;
}

/* The child's checks on the full tmpfs mounted at dir; 0 when all held,
 * else the number of the first that did not. */
static int full_checks(const char *dir) {
  char p[512], l[512], filler[512];
  size_t n = 0;
  olc_error err;
  olc_status st;
  int fd;
  snprintf(p, sizeof p, "%s/p.txt", dir);
  snprintf(l, sizeof l, "%s/p.txt.lock", dir);
  snprintf(filler, sizeof filler, "%s/filler", dir);
  if (fill(filler) != 0)
    return 10;
  /* A first write: P.lock is created here and needs its page. */
  st = save_once(p, "first", &err);
  printf("\n  first write on a full tmpfs: %s (%s: %s)", olc_status_str(st), err.where,
         err.message);
  if (st != OLC_E_NOSPC)
    return 11;
  if (access(p, F_OK) == 0 || olc_test_count_tmp(dir) != 0)
    return 12;
  /* An empty P.lock of an older version next to a valid P. */
  if (unlink(filler) != 0 || save_once(p, "old", &err) != OLC_OK)
    return 13;
  fd = open(l, O_WRONLY | O_TRUNC);
  if (fd < 0)
    return 14;
  close(fd);
  if (fill(filler) != 0)
    return 15;
  st = save_once(p, "second", &err);
  printf("\n  write next to an empty P.lock on a full tmpfs: %s (%s)", olc_status_str(st),
         err.message);
  if (st != OLC_E_NOSPC)
    return 16;
  if (olc_store_check_file(p, &n, &err) != OLC_OK || n != 1 || olc_test_count_tmp(dir) != 0)
    return 17;
  /* Room again: the same write succeeds. */
  if (unlink(filler) != 0 || save_once(p, "second", &err) != OLC_OK)
    return 18;
  if (olc_store_check_file(p, &n, &err) != OLC_OK || n != 2)
    return 19;
  return 0;
}

static void test_full_fs(void) {
  char *dir = olc_test_path(tmp, "mnt");
  int status = -1;
  char what[64];
  pid_t pid;
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    if (private_mounts() != 0) {
      if (no_mount_why[0] == 0)
        snprintf(no_mount_why, sizeof no_mount_why, "a private mount namespace: %s",
                 strerror(errno));
      fprintf(stderr, "\n  no mount namespace here (%s): skipped\n", no_mount_why);
      _exit(77);
    }
    if (mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700") != 0) {
      fprintf(stderr, "\n  cannot mount a tmpfs in a private mount namespace (%s): skipped\n",
              strerror(errno));
      _exit(77);
    }
    _exit(full_checks(dir));
  }
  CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
  free(dir);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    exit(77); /* never a pass; the child said why */
  describe(status, what, sizeof what);
  printf("\n  full tmpfs child: %s", what);
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* --------------------------------------------------------- sabotage */

/* One of the attacks on P.lock, in turn; never returns. */
static void attacker(int replace) {
  static const char junk[24] = "garbage!garbage!garbage";
  char fresh[1024];
  unsigned i;
  snprintf(fresh, sizeof fresh, "%s.new", lock);
  for (i = 0;; i++) {
    struct timespec ts = {0, 200000};
    int fd;
    if (replace) {
      /* Another inode at the name: empty, or with a plausible header. */
      fd = open(fresh, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        if (i % 2 == 1)
          (void)!write(fd, "olcgen01\0\0\0\0\0\0\0\0", 16);
        close(fd);
        (void)rename(fresh, lock);
      }
      ts.tv_nsec = 5000000;
    } else if (i % 3 == 0) {
      fd = open(lock, O_WRONLY | O_TRUNC); /* ": > P.lock" */
      if (fd >= 0)
        close(fd);
    } else if (i % 3 == 1) {
      (void)truncate(lock, 12); /* a header cut short */
    } else {
      fd = open(lock, O_WRONLY);
      if (fd >= 0) {
        (void)!pwrite(fd, junk, sizeof junk, 0);
        close(fd);
      }
    }
    nanosleep(&ts, NULL);
  }
}

/* The file where writer w lists the keys it was told were saved. */
static void done_list(char *buf, size_t size, int w) { snprintf(buf, size, "%s/ok-%d", tmp, w); }

static int writer(int w) {
  olc_store *s = NULL;
  olc_error err;
  char name[32], list[1024];
  int j, failed = 0;
  FILE *ok;
  done_list(list, sizeof list, w);
  ok = fopen(list, "w");
  if (ok == NULL || open_store(&s, path, &err) != OLC_OK)
    return 100;
  for (j = 0; j < PER_WRITER; j++) {
    olc_status st;
    snprintf(name, sizeof name, "w%d_%d", w, j);
    st = save_key(s, name, &err);
    if (st != OLC_OK && st != OLC_COMMITTED_UNSYNCED) {
      fprintf(stderr, "\n  writer %d: %s: %s", w, olc_status_str(st), err.message);
      /* Clean failures only: the lock file kept being replaced. */
      failed += st == OLC_E_LOCK ? 1 : 100;
    } else {
      fprintf(ok, "%s\n", name);
    }
  }
  olc_store_free(s);
  if (fclose(ok) != 0)
    return 100;
  return failed > 100 ? 100 : failed;
}

/* Of the keys the writers were told were saved, how many the file lacks
 * (each named); *foreign: records of keys nobody saved. */
static size_t count_lost(size_t *foreign) {
  olc_store *s = NULL;
  olc_record_list *list = NULL;
  olc_error err;
  char line[64], name[1024];
  size_t lost = 0, i, n = 0;
  int w;
  *foreign = 0;
  if (open_store(&s, path, &err) != OLC_OK || olc_store_list(&list, s, &err) != OLC_OK) {
    olc_store_free(s);
    return (size_t)-1;
  }
  n = olc_record_list_count(list);
  for (i = 0; i < n; i++) {
    const char *b = olc_record_list_get(list, i)->backend;
    *foreign += strcmp(b, "seed") != 0 && b[0] != 'w';
  }
  for (w = 0; w < WRITERS; w++) {
    FILE *f;
    done_list(name, sizeof name, w);
    f = fopen(name, "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
      int found = 0;
      line[strcspn(line, "\n")] = 0;
      for (i = 0; i < n && !found; i++)
        found = strcmp(olc_record_list_get(list, i)->backend, line) == 0;
      if (!found) {
        if (lost < 10)
          printf("\n  lost: %s", line);
        lost++;
      }
    }
    if (f != NULL)
      fclose(f);
  }
  olc_record_list_free(list);
  olc_store_free(s);
  return lost;
}

/* Lists the store until it holds `want` records (0: until the file named
 * by ready exists, then as many as the file holds); 0 when seen. */
static int reader(size_t want, const char *done_flag) {
  olc_store *s = NULL;
  olc_error err;
  time_t deadline = time(NULL) + 60;
  if (open_store(&s, path, &err) != OLC_OK)
    return 2;
  while (time(NULL) < deadline) {
    olc_record_list *list = NULL;
    size_t n = 0, target = want;
    int done = access(done_flag, F_OK) == 0;
    if (done && target == 0 && olc_store_check_file(path, &target, &err) != OLC_OK)
      break;
    if (olc_store_list(&list, s, &err) == OLC_OK)
      n = olc_record_list_count(list);
    olc_record_list_free(list);
    if (done && n == target) {
      /* The damage was reported once at most (the store keeps it). */
      olc_diagnostic d;
      int warnings = 0;
      while (olc_store_next_diagnostic(&d, s) == OLC_OK)
        warnings += strcmp(d.where, "watch") == 0;
      printf("\n  reader %ld: %d watch warning(s)", (long)getpid(), warnings);
      olc_store_free(s);
      return warnings <= 1 ? 0 : 4;
    }
  }
  olc_store_free(s);
  return 3;
}

static pid_t spawn(int kind, int arg, const char *flag) {
  pid_t pid;
  fflush(NULL);
  pid = fork();
  if (pid != 0)
    return pid;
  if (kind == 0)
    attacker(arg);
  if (kind == 1)
    _exit(writer(arg));
  _exit(reader((size_t)arg, flag));
}

/* One round; for replace, the number of saves reported done that the
 * file lacks. */
static size_t sabotage_run(int replace) {
  pid_t att, wr[WRITERS], rd[READERS];
  char *flag = olc_test_path(tmp, replace ? "done-replace" : "done-sabotage");
  char what[64];
  olc_error err;
  size_t n = 0, total = WRITERS * PER_WRITER + 1, saved = 1, lost = 0, foreign = 0;
  int i, status, signals = 0, failed = 0;
  unlink(path);
  unlink(lock);
  unlink(flag);
  OLC_ASSERT_OK(save_once(path, "seed", &err), &err);
  att = spawn(0, replace, NULL);
  for (i = 0; i < READERS; i++)
    rd[i] = spawn(2, replace ? 0 : (int)total, flag);
  for (i = 0; i < WRITERS; i++)
    wr[i] = spawn(1, i, NULL);
  for (i = 0; i < WRITERS; i++) {
    CU_ASSERT_EQUAL(waitpid(wr[i], &status, 0), wr[i]);
    signals += describe(status, what, sizeof what);
    /* The exit status counts the failed saves (100: another failure). */
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) < 100);
    if (WIFEXITED(status) && WEXITSTATUS(status) <= PER_WRITER) {
      failed += WEXITSTATUS(status);
      saved += (size_t)(PER_WRITER - WEXITSTATUS(status));
    }
    printf("\n  writer %d: %s", i, what);
  }
  kill(att, SIGKILL);
  waitpid(att, &status, 0);
  CU_ASSERT_EQUAL(olc_test_write_file(flag, "", 0), 0);
  for (i = 0; i < READERS; i++) {
    CU_ASSERT_EQUAL(waitpid(rd[i], &status, 0), rd[i]);
    signals += describe(status, what, sizeof what);
    printf("\n  reader %d: %s", i, what);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  CU_ASSERT_EQUAL(signals, 0);
  OLC_ASSERT_OK(olc_store_check_file(path, &n, &err), &err);
  printf("\n  %s: %zu saves succeeded, %d refused (lock file replaced), the file holds %zu",
         replace ? "replace" : "sabotage", saved, failed, n);
  if (!replace) {
    /* The lock's inode never changed: nothing may be lost or refused. */
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(n, total);
  } else {
    /* A save that failed after its file was in place (the lock file kept
     * being replaced while it merged another writer's) may be there too:
     * what counts is that every save reported done is. */
    lost = count_lost(&foreign);
    printf(", %zu of the saves reported done lost", lost);
    CU_ASSERT_EQUAL(foreign, 0);
    CU_ASSERT(n <= total);
  }
  free(flag);
  return lost;
}

static void test_sabotage(void) { (void)sabotage_run(0); }

/* Rounds of the replace attack in the store directory set up (tmp). */
static void replace_rounds(void) {
  const char *off = getenv("OLC_TEST_DISABLE");
  int negative = off != NULL && strstr(off, "exchange") != NULL;
  size_t lost = 0;
  int r;
  for (r = 0; r < REPLACE_ROUNDS; r++) {
    size_t l = sabotage_run(1);
    if (l == (size_t)-1) {
      CU_FAIL("the store could not be listed");
      return;
    }
    lost += l;
  }
  printf("\n  replace: %zu save(s) reported done were lost in %d rounds", lost, REPLACE_ROUNDS);
  if (negative) {
    CU_ASSERT(lost > 0); /* without the exchange's check overlapping writers lose saves */
  } else {
    CU_ASSERT_EQUAL(lost, 0);
  }
}

static void test_replace(void) { replace_rounds(); }

/* The same on a tmpfs (/dev/shm): another file system's rename and inode
 * numbers. */
static void test_replace_tmpfs(void) {
  struct statfs fs;
  char *keep_tmp = tmp, *keep_path = path, *keep_lock = lock;
  char tmpl[] = "/dev/shm/olc-lockfile-XXXXXX";
  if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC_NUMBER || mkdtemp(tmpl) == NULL) {
    fprintf(stderr, "\n  /dev/shm is not a writable tmpfs here: skipped\n");
    exit(77); /* never a pass */
  }
  tmp = tmpl;
  path = olc_test_path(tmp, "p.txt");
  lock = olc_test_path(tmp, "p.txt.lock");
  CU_ASSERT_FATAL(path != NULL && lock != NULL);
  replace_rounds();
  olc_test_rmtree(tmp);
  free(path);
  free(lock);
  tmp = keep_tmp;
  path = keep_path;
  lock = keep_lock;
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("full", setup, teardown);
  CU_add_test(s, "a full file system: OLC_E_NOSPC, never SIGBUS", test_full_fs);
  s = CU_add_suite("sabotage", setup, teardown);
  CU_add_test(s, "P.lock truncated, cut short and garbled under load", test_sabotage);
  s = CU_add_suite("replace", setup, teardown);
  CU_add_test(s, "P.lock replaced under load", test_replace);
  s = CU_add_suite("replace_tmpfs", setup, teardown);
  CU_add_test(s, "P.lock replaced under load, on a tmpfs", test_replace_tmpfs);
  return olc_test_run(argc, argv);
}
