/*
 * tests/persist/test_hostile_leftovers.c - temporaries left behind (issue
 * 12 item 7; docs/durability.md W5):
 *
 * - gone: a writer killed after writing its temporary leaves
 *   P.<pid>.<hex>.tmp; the next writer (default grace, one hour) removes it
 *   at once because that pid is of this pid namespace (the hex begins with
 *   its tag) and no longer exists.  Controls: a leftover named after a live
 *   process, and one whose tag is another namespace's, stay.
 * - append: in an append-only directory (chattr +a) the rename fails and
 *   the temporary cannot be unlinked: the error names it.  Once the flag is
 *   gone the next writer removes it (its writer is gone).  Needs root and a
 *   file system with the append-only flag: exit 77 otherwise.  The store
 *   lies in a directory with a long name (120 bytes), so the message would
 *   not hold the store's path twice: the temporary must still be named in
 *   full.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "olc/store.h"
#include "persist/persist.h"
#include "test_store_setup.h"
#include "test_support.h"

static char *tmp;
static char *dir; /* the store's directory: tmp, or a long-named one in it */
static char *path;

static int setup(void) {
  tmp = olc_test_tmpdir("leftovers");
  dir = tmp != NULL ? strdup(tmp) : NULL;
  path = dir != NULL ? olc_test_path(dir, "p.txt") : NULL;
  olc_persist__set_hooks(NULL);
  return path == NULL;
}

/* Moves the store into a directory with a 120-byte name. */
static void use_long_dir(void) {
  char name[121];
  memset(name, 'd', sizeof name - 1);
  name[sizeof name - 1] = 0;
  free(path);
  path = olc_test_path(tmp, name);
  free(dir);
  dir = path;
  path = olc_test_path(dir, "p.txt");
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
}

static int teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_rmtree(tmp);
  free(tmp);
  free(dir);
  free(path);
  return 0;
}

static olc_status save(const char *backend, olc_error *err) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT; /* grace 3600 s */
  olc_key key = olc_test_matmul_key(backend, "d");
  olc_save_request req = olc_test_bit_exact_request(&key, "p", 1, NULL, 0);
  o.path = path;
  return olc_test_save_once(&o, &req, err);
}

/* The name of the one temporary in the directory (into name), or 0. */
static int find_tmp(char *name, size_t size) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d != NULL && (e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0) {
      snprintf(name, size, "%s", e->d_name);
      n++;
    }
  }
  if (d != NULL)
    closedir(d);
  return n;
}

static int exists(const char *name) {
  char *p = olc_test_path(dir, name);
  struct stat st;
  int r = lstat(p, &st) == 0;
  free(p);
  return r;
}

/* A writer killed right after writing its temporary; its pid (reaped). */
static pid_t killed_writer(void) {
  int status = 0;
  pid_t pid;
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    olc_persist_hooks h;
    olc_error err;
    memset(&h, 0, sizeof h);
    h.crash_step = OLC_STEP_WRITE;
    olc_persist__set_hooks(&h);
    (void)save("killed", &err);
    _exit(3);
  }
  CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT_FATAL(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  return pid;
}

static void test_dead_writer_leftover(void) {
  char left[256], live[256], foreign[256];
  const char *hex;
  olc_error err;
  pid_t pid;
  OLC_ASSERT_OK(save("first", &err), &err);
  pid = killed_writer();
  CU_ASSERT_EQUAL_FATAL(find_tmp(left, sizeof left), 1);
  printf("\n  leftover of the killed writer %ld: %s", (long)pid, left);
  /* P.<pid>.<6 hex tag><10 hex>.tmp: two controls built from its tag. */
  hex = strrchr(left, '.') - 16;
  snprintf(live, sizeof live, "p.txt.%ld.%.6s0123456789.tmp", (long)getppid(), hex);
  snprintf(foreign, sizeof foreign, "p.txt.%ld.%c%.5s0123456789.tmp", (long)pid,
           hex[0] == 'a' ? 'b' : 'a', hex + 1);
  {
    char *a = olc_test_path(dir, live), *b = olc_test_path(dir, foreign);
    CU_ASSERT_EQUAL(olc_test_write_file(a, "x", 1), 0);
    CU_ASSERT_EQUAL(olc_test_write_file(b, "x", 1), 0);
    free(a);
    free(b);
  }
  OLC_ASSERT_OK(save("next", &err), &err);
  CU_ASSERT_FALSE(exists(left));   /* its writer is gone: removed at once */
  CU_ASSERT_TRUE(exists(live));    /* a live pid: the grace protects it */
  CU_ASSERT_TRUE(exists(foreign)); /* another namespace's pid means nothing here */
}

/* ------------------------------------------------------------ append */

/* A failed save in the append-only directory: the message names the
 * leftover; the next save (the flag gone) removes it. */
static void append_round(int long_dir) {
  char left[256], msg[1024], *full;
  olc_error err;
  int fds[2], status = 0;
  ssize_t n;
  pid_t pid;
  OLC_ASSERT_OK(save("first", &err), &err);
  if (olc_test_set_append_only(dir, 1) != 0) {
    fprintf(stderr, "\n  cannot set the append-only flag here (needs root, ext4/xfs/btrfs): "
                    "skipped\n");
    exit(77); /* never a pass */
  }
  CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    olc_status st = save("second", &err);
    snprintf(msg, sizeof msg, "%s: %s", olc_status_str(st), err.message);
    (void)!write(fds[1], msg, strlen(msg));
    _exit(st == OLC_OK ? 0 : 1);
  }
  close(fds[1]);
  n = read(fds[0], msg, sizeof msg - 1);
  close(fds[0]);
  msg[n > 0 ? n : 0] = 0;
  waitpid(pid, &status, 0);
  CU_ASSERT_EQUAL(olc_test_set_append_only(dir, 0), 0);
  printf("\n  save in an append-only directory: %s", msg);
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  CU_ASSERT_EQUAL_FATAL(find_tmp(left, sizeof left), 1);
  full = olc_test_path(dir, left);
  if (!long_dir) {
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, full)); /* named with its path */
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "could not be removed"));
  } else {
    /* Its path and the store's would not both fit: its file name comes
     * first (the error after it may be cut short). */
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, left));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "beside the store could not be removed"));
  }
  free(full);
  /* Its writer is gone: the next writer removes it at once. */
  OLC_ASSERT_OK(save("third", &err), &err);
  CU_ASSERT_EQUAL(find_tmp(left, sizeof left), 0);
}

/* The failed save in this process, which lives on (a server): its next
 * save removes the leftover all the same. */
static void append_in_process(void) {
  char left[256];
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(olc_test_set_append_only(dir, 1), 0);
  OLC_ASSERT_STATUS(OLC_E_IO, save("fourth", &err), &err);
  CU_ASSERT_EQUAL(olc_test_set_append_only(dir, 0), 0);
  CU_ASSERT_EQUAL_FATAL(find_tmp(left, sizeof left), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, left));
  OLC_ASSERT_OK(save("fifth", &err), &err);
  CU_ASSERT_EQUAL(find_tmp(left, sizeof left), 0);
}

static void test_append_only_directory(void) {
  append_round(0);
  append_in_process();
  use_long_dir();
  append_round(1);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("gone", setup, teardown);
  CU_add_test(s, "a dead writer's temporary goes at once", test_dead_writer_leftover);
  s = CU_add_suite("append", setup, teardown);
  CU_add_test(s, "an append-only directory: the leftover is named", test_append_only_directory);
  return olc_test_run(argc, argv);
}
