/*
 * tests/persist/test_hostile_targets.c - what the store moves, replaces or
 * creates a lock file next to (issue 12 items 1 and 5), through the public
 * API:
 *
 * - repair moves only a regular file that is plausibly a damaged store (an
 *   empty file, a prefix of the header, the header and then something that
 *   does not parse); a store path that is or leads to another file (a
 *   stand-in for /etc/passwd), a valid file of a newer version and a
 *   directory are refused with their own message, and no lock file appears
 *   next to them; OLC_REPAIR_FORCE moves a regular file anyway, never a
 *   directory;
 * - a save or an import on a store path that is not a store, and an export
 *   onto a directory, a FIFO, a device or a file that is not a store,
 *   create no lock file next to the target and change nothing;
 * - export, import and open refuse a store's lock file (P.lock beside an
 *   existing or this store, or a file carrying the lock file's header), a
 *   store's temporary, and (export) the store itself; while another
 *   process holds the lock, an export onto P.lock leaves the lock file's
 *   inode alone.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "olc/store.h"
#include "test_store_setup.h"
#include "test_support.h"

static const char victim_text[] = "root:x:0:0:root:/root:/bin/bash\n";
static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("targets");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

static char *at(const char *name) { return olc_test_path(tmp, name); }

static olc_store *open_at(const char *path) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error err;
  o.path = path;
  o.lock_timeout_ms = 2000;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  return s;
}

static olc_status save(olc_store *s, const char *backend, olc_error *err) {
  olc_key key = olc_test_matmul_key(backend, "d");
  olc_save_request req = olc_test_bit_exact_request(&key, "p", 1, NULL, 0);
  return olc_store_install_override(s, &req, err);
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* Entries of the temporary directory whose name contains part. */
static int count_named(const char *part) {
  DIR *d = opendir(tmp);
  struct dirent *e;
  int n = 0;
  while (d != NULL && (e = readdir(d)) != NULL)
    if (strstr(e->d_name, part) != NULL)
      n++;
  if (d != NULL)
    closedir(d);
  return n;
}

static int same_content(const char *path, const char *text) {
  size_t n = 0;
  unsigned char *b = olc_test_read_file(path, &n);
  int same = b != NULL && n == strlen(text) && memcmp(b, text, n) == 0;
  free(b);
  return same;
}

static void fresh(void) {
  olc_test_rmtree(tmp);
  CU_ASSERT_EQUAL_FATAL(mkdir(tmp, 0700), 0);
}

/* ---------------------------------------------------------------- repair */

/* Repairs the store at path; expects want, and that the file stays. */
static void repair_refused(const char *path, const char *text, olc_status want) {
  char moved[4096], *lock = malloc(strlen(path) + 6);
  olc_store *s = open_at(path);
  olc_error err;
  int quarantined = count_named(".corrupt-");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lock);
  sprintf(lock, "%s.lock", path);
  OLC_ASSERT_STATUS(want, olc_store_repair(s, 0, moved, sizeof moved, &err), &err);
  printf("\n  repair %s: %s", strrchr(path, '/') + 1, err.message);
  CU_ASSERT_EQUAL(count_named(".corrupt-"), quarantined);
  if (text != NULL)
    CU_ASSERT(same_content(olc_store_path(s), text));
  CU_ASSERT_FALSE(exists(lock));
  olc_store_free(s);
  free(lock);
}

static void test_repair_foreign_file(void) {
  char *victim = at("passwd"), *link = at("s.txt"), *vlock = at("passwd.lock");
  char moved[4096];
  olc_store *s;
  olc_error err;
  fresh();
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(victim, victim_text, strlen(victim_text)), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(victim, link), 0);
  /* Through a symlink, and named directly. */
  repair_refused(link, victim_text, OLC_E_INVALID);
  repair_refused(victim, victim_text, OLC_E_INVALID);
  CU_ASSERT_FALSE(exists(vlock));
  CU_ASSERT(same_content(victim, victim_text));
  /* --force: a regular file is moved all the same. */
  s = open_at(link);
  OLC_ASSERT_OK(olc_store_repair(s, OLC_REPAIR_FORCE, moved, sizeof moved, &err), &err);
  CU_ASSERT_FALSE(exists(victim));
  CU_ASSERT(same_content(moved, victim_text));
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_repair(s, 2u, moved, sizeof moved, &err), &err);
  olc_store_free(s);
  free(victim);
  free(link);
  free(vlock);
}

static void test_repair_newer_and_directory(void) {
  static const char newer[] = "onnx_light_calibration_profiles 2\nwhatever a version 2 holds\n";
  char *p = at("s.txt"), *d = at("d.txt");
  char moved[4096];
  olc_store *s;
  olc_error err;
  fresh();
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, newer, sizeof newer - 1), 0);
  repair_refused(p, newer, OLC_E_VERSION);
  s = open_at(p);
  OLC_ASSERT_OK(olc_store_repair(s, OLC_REPAIR_FORCE, moved, sizeof moved, &err), &err);
  CU_ASSERT(same_content(moved, newer));
  olc_store_free(s);
  /* A directory at the store path: never moved, not even with --force. */
  CU_ASSERT_EQUAL_FATAL(mkdir(d, 0700), 0);
  repair_refused(d, NULL, OLC_E_INVALID);
  s = open_at(d);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_repair(s, OLC_REPAIR_FORCE, moved, sizeof moved, &err),
                    &err);
  CU_ASSERT_TRUE(exists(d));
  olc_store_free(s);
  free(p);
  free(d);
}

/* What repair does move: an empty file, a prefix of the header, the header
 * followed by something that does not parse. */
static void test_repair_plausible(void) {
  static const char *const damaged[] = {"", "onnx_light_cal", "onnx_light_calibration_profiles 1",
                                        "onnx_light_calibration_profiles 1\nprofile exact\n"};
  char *p = at("s.txt");
  char moved[4096];
  size_t i;
  olc_error err;
  for (i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
    olc_store *s;
    fresh();
    CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, damaged[i], strlen(damaged[i])), 0);
    s = open_at(p);
    OLC_ASSERT_OK(olc_store_repair(s, 0, moved, sizeof moved, &err), &err);
    CU_ASSERT(same_content(moved, damaged[i]));
    CU_ASSERT_FALSE(exists(p));
    olc_store_free(s);
  }
  free(p);
}

/* ------------------------------------------------ no lock beside a victim */

static void test_no_lock_beside_victims(void) {
  char *victim = at("passwd"), *vlock = at("passwd.lock"), *store = at("s.txt");
  char *dir = at("dir"), *fifo = at("fifo"), *dev = at("null"), *notes = at("notes.txt");
  char *targets[4];
  olc_store *s;
  olc_error err;
  size_t n = 0, i;
  fresh();
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(victim, victim_text, strlen(victim_text)), 0);
  /* override set and import with the victim as the store. */
  s = open_at(victim);
  OLC_ASSERT_STATUS(OLC_E_MALFORMED, save(s, "x", &err), &err);
  printf("\n  override set on a non-store: %s", err.message);
  CU_ASSERT_FALSE(exists(vlock));
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(store, "onnx_light_calibration_profiles 1\n", 34), 0);
  OLC_ASSERT_STATUS(OLC_E_MALFORMED, olc_store_import_file(s, store, &n, &err), &err);
  CU_ASSERT_FALSE(exists(vlock));
  CU_ASSERT(same_content(victim, victim_text));
  olc_store_free(s);
  /* export onto a directory, a FIFO, a device (root) and a foreign file. */
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(notes, "notes\n", 6), 0);
  targets[0] = dir;
  targets[1] = fifo;
  targets[2] = notes;
  targets[3] = mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0 ? dev : NULL;
  s = open_at(store);
  OLC_ASSERT_OK(save(s, "y", &err), &err);
  for (i = 0; i < 4; i++) {
    char lock[4200];
    if (targets[i] == NULL)
      continue;
    snprintf(lock, sizeof lock, "%s.lock", targets[i]);
    OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_export_file(s, targets[i], 0, &err), &err);
    printf("\n  export onto %s: %s", strrchr(targets[i], '/') + 1, err.message);
    CU_ASSERT_FALSE(exists(lock));
  }
  CU_ASSERT(same_content(notes, "notes\n"));
  olc_store_free(s);
  free(victim);
  free(vlock);
  free(store);
  free(dir);
  free(fifo);
  free(dev);
  free(notes);
}

/* ------------------------------------------- lock files and temporaries */

static void test_lock_and_temporaries_refused(void) {
  char *p = at("s.txt"), *lock = at("s.txt.lock"), *other = at("b.txt");
  char *olock = at("b.txt.lock"), *copy = at("copy.bin"),
       *tmpname = at("s.txt.77.0123456789abcdef.tmp");
  const char *refused[5];
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s, *t = NULL;
  olc_error err;
  size_t i, n = 0;
  unsigned char *lockbytes;
  fresh();
  s = open_at(p);
  OLC_ASSERT_OK(save(s, "a", &err), &err);
  t = open_at(other);
  OLC_ASSERT_OK(save(t, "b", &err), &err);
  olc_store_free(t);
  t = NULL;
  lockbytes = olc_test_read_file(lock, &n);
  CU_ASSERT_FATAL(lockbytes != NULL && n == 4096);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(copy, lockbytes, n), 0); /* the header, renamed */
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(tmpname, "onnx_light_calibration_profiles 1\n", 34), 0);
  free(lockbytes);
  refused[0] = lock;
  refused[1] = olock;
  refused[2] = copy;
  refused[3] = tmpname;
  refused[4] = p;
  for (i = 0; i < 5; i++) {
    OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_export_file(s, refused[i], 0, &err), &err);
    printf("\n  export: %s", err.message);
    if (i < 4) {
      OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_import_file(s, refused[i], &n, &err), &err);
      printf("\n  import: %s", err.message);
    }
  }
  /* The lock file under other names: a symbolic link, a path through "..". */
  {
    char *ll = at("ll"), *sub = at("sub"), *dotdot = at("sub/../s.txt.lock");
    CU_ASSERT_EQUAL_FATAL(symlink(lock, ll), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
    OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_export_file(s, ll, 0, &err), &err);
    OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_export_file(s, dotdot, 0, &err), &err);
    OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_import_file(s, ll, &n, &err), &err);
    free(ll);
    free(sub);
    free(dotdot);
  }
  /* open (--store) on a lock file or a temporary */
  for (i = 0; i < 4; i++) {
    o.path = refused[i];
    OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_open(&t, &o, &err), &err);
    printf("\n  open: %s", err.message);
  }
  olc_store_free(s);
  free(p);
  free(lock);
  free(other);
  free(olock);
  free(copy);
  free(tmpname);
}

/* The case: another process holds the lock while this one exports
 * onto P.lock.  The lock file keeps its inode (mutual exclusion holds). */
static void test_export_onto_held_lock(void) {
  char *p = at("s.txt"), *lock = at("s.txt.lock");
  struct stat before, after;
  olc_store *s;
  olc_error err;
  olc_status st;
  int ready[2];
  char b;
  pid_t pid;
  fresh();
  s = open_at(p);
  OLC_ASSERT_OK(save(s, "a", &err), &err);
  CU_ASSERT_EQUAL_FATAL(stat(lock, &before), 0);
  CU_ASSERT_EQUAL_FATAL(pipe(ready), 0);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    /* Holds the store lock (the writers' OFD lock on P.lock) until killed. */
    struct flock fl;
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fd < 0 || fcntl(fd, F_OFD_SETLK, &fl) != 0 || write(ready[1], "r", 1) != 1)
      _exit(1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  CU_ASSERT_EQUAL(read(ready[0], &b, 1), 1);
  st = olc_store_export_file(s, lock, 0, &err);
  kill(pid, SIGKILL); /* before any assertion can end the test */
  waitpid(pid, NULL, 0);
  printf("\n  export onto a held P.lock: %s (%s)", olc_status_str(st), err.message);
  CU_ASSERT_EQUAL(st, OLC_E_INVALID);
  CU_ASSERT_EQUAL(stat(lock, &after), 0);
  CU_ASSERT_EQUAL(before.st_ino, after.st_ino);
  close(ready[0]);
  olc_store_free(s);
  free(p);
  free(lock);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("hostile_targets", setup, teardown);
  CU_add_test(s, "repair refuses a file that is not a store", test_repair_foreign_file);
  CU_add_test(s, "repair refuses a newer version and a directory", test_repair_newer_and_directory);
  CU_add_test(s, "repair moves damaged stores", test_repair_plausible);
  CU_add_test(s, "no lock file beside a target that is not a store", test_no_lock_beside_victims);
  CU_add_test(s, "lock files, temporaries and the store itself refused",
              test_lock_and_temporaries_refused);
  CU_add_test(s, "export onto a held P.lock", test_export_onto_held_lock);
  return olc_test_run(argc, argv);
}
