/*
 * tests/store/test_store_readonly_fs.c - read-only mode on a file system
 * that refuses writes: a tmpfs remounted read-only in a private mount
 * namespace (unshare(CLONE_NEWNS), root or a user namespace), and a
 * directory made immutable (FS_IMMUTABLE_FL, root).  olc_store_writable
 * names the path and why; a read-only handle reads, follows, saves in
 * memory; a writable handle's save fails cleanly.  Exits 77 when neither
 * can be made here.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "olc/store.h"
#include "test_support.h"

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    fprintf(stderr, "\n");                                                                         \
    return 1;                                                                                      \
  } while (0)

static olc_key key_of(const char *impl) {
  static const olc_property st[] = {{"m", "64"}};
  olc_key k;
  memset(&k, 0, sizeof k);
  k.backend = "b";
  k.operator_name = "MatMul";
  k.implementation = impl;
  k.model_digest = "model";
  k.processor = "cpu";
  k.thread_count = 1;
  k.structure = st;
  k.structure_count = 1;
  return k;
}

static olc_status put(olc_store *s, const char *impl, olc_error *e) {
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_key k = key_of(impl);
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  r.key = &k;
  r.measurements = &m;
  r.measurement_count = 1;
  r.policy = impl;
  r.policy_len = strlen(impl);
  return olc_store_save(s, &r, e);
}

static int selects(olc_store *s, const char *impl) {
  olc_key k = key_of(impl);
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  const olc_record *r;
  int ok;
  o.key = &k;
  (void)olc_store_lookup(&res, s, &o, NULL);
  r = res != NULL ? olc_lookup_result_selected(res) : NULL;
  ok = r != NULL && strcmp((const char *)r->policy, impl) == 0;
  olc_lookup_result_free(res);
  return ok;
}

static olc_store *open_store(const char *path, int read_only) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = path;
  o.read_only = read_only;
  if (olc_store_open(&s, &o, &e) != OLC_OK)
    fprintf(stderr, "open %s: %s\n", path, e.message);
  return s;
}

/* The checks on a directory that refuses writes; why is the expected
 * reason in olc_store_writable's message. */
static int check_refusing_dir(const char *path, const char *why) {
  olc_store_fs_info info;
  olc_error e;
  olc_store *s = open_store(path, 0);
  olc_status st;
  if (s == NULL)
    FAIL("open failed");
  if (!selects(s, "a"))
    FAIL("the seeded record is not selected");
  st = olc_store_writable(s, &info, &e);
  if (st != OLC_E_READ_ONLY || strstr(e.message, why) == NULL || strstr(e.message, path) == NULL)
    FAIL("writable: %s (%s), want OLC_E_READ_ONLY naming %s and '%s'", olc_status_name(st),
         e.message, path, why);
  st = put(s, "b", &e);
  if (st == OLC_OK)
    FAIL("a save on a refusing directory succeeded");
  olc_store_free(s);
  s = open_store(path, 1);
  if (s == NULL || !selects(s, "a"))
    FAIL("read-only handle does not select the seeded record");
  if ((st = put(s, "b", &e)) != OLC_OK || !selects(s, "b"))
    FAIL("read-only save in memory: %s", olc_status_name(st));
  olc_store_free(s);
  return 0;
}

static int seed(const char *path) {
  olc_error e;
  olc_store *s = open_store(path, 0);
  if (s == NULL || put(s, "a", &e) != OLC_OK)
    FAIL("seed %s: %s", path, e.message);
  olc_store_free(s);
  return 0;
}

/* In a child: a private mount namespace, a tmpfs at dir, a store in it,
 * then the tmpfs remounted read-only.  77 when the namespace or the mount
 * cannot be made. */
static int ro_mount_child(const char *dir) {
  char path[512];
  if (unshare(CLONE_NEWNS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
    return 77;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return 77;
  if (mount("olc-test", dir, "tmpfs", 0, "size=1m") != 0)
    return 77;
  snprintf(path, sizeof path, "%s/profiles.txt", dir);
  if (seed(path) != 0)
    return 1;
  if (mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0)
    return 77;
  return check_refusing_dir(path, "read-only file system");
}

static int run_ro_mount(const char *dir) {
  int status;
  pid_t pid = fork();
  if (pid == 0)
    _exit(ro_mount_child(dir));
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return 1;
  return WEXITSTATUS(status);
}

static int run_immutable(const char *dir) {
  char path[600], sub[512];
  int rc;
  snprintf(sub, sizeof sub, "%s/imm", dir);
  snprintf(path, sizeof path, "%s/profiles.txt", sub);
  if (mkdir(sub, 0700) != 0 || seed(path) != 0)
    return 1;
  if (olc_test_set_immutable(sub, 1) != 0)
    return 77;
  rc = check_refusing_dir(path, "cannot write the directory");
  olc_test_set_immutable(sub, 0);
  return rc;
}

int main(void) {
  char tmpl[] = "/tmp/olc-rofs-XXXXXX", cmd[600];
  const char *dir = mkdtemp(tmpl);
  int a, b;
  if (dir == NULL)
    return 1;
  a = run_ro_mount(dir);
  printf("read-only tmpfs in a private mount namespace: %s\n", a == 0    ? "passed"
                                                               : a == 77 ? "cannot be made here"
                                                                         : "FAILED");
  b = run_immutable(dir);
  printf("immutable directory: %s\n", b == 0    ? "passed"
                                      : b == 77 ? "cannot be made here"
                                                : "FAILED");
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  if ((a != 0 && a != 77) || (b != 0 && b != 77))
    return 1;
  return a == 77 && b == 77 ? 77 : 0;
}
