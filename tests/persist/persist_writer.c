/*
 * tests/persist/persist_writer.c - a writer process for the durability
 * tests: read-modify-write updates of a counter file (counter_format.h)
 * through olc_persist__update.  The OLC_TEST_* hooks come from the
 * environment.
 *
 *   persist_writer inc PATH N KEY     N updates: counter += 1, KEY += 1
 *   persist_writer hold PATH MS       one update whose merge prints "L\n"
 *                                     on stdout, then sleeps MS ms
 *   persist_writer forkexec PATH SELF one update whose merge runs
 *                                     "SELF fdcheck" and fails if it fails
 *   persist_writer fdcheck PREFIX     exit 3 when a PREFIX*.lock or *.tmp
 *                                     file is open in this process
 *   persist_writer timeout PATH MS    one update with lock timeout MS; exit
 *                                     0 on OLC_E_LOCK_TIMEOUT, 1 otherwise
 *   persist_writer once PATH          one update; prints "<STATUS> <where>"
 *                                     and exits 0 whatever the status
 *   persist_writer defaultpath        prints "<AT_SECURE> <default path>"
 *   persist_writer c4 PATH MS         C4: the merge opens and closes
 *                                     PATH.lock, prints "L", sleeps MS ms
 *
 * Exit status: 0 success, 1 failure (message on stderr), 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counter_format.h"
#include "persist/persist.h"
#include "util/buf.h"

typedef struct job {
  const char *key;
  long hold_ms;
  const char *self;
  const char *path;
  int reopen_lock; /* C4: open and close PATH.lock inside the lock */
} job;

static olc_status merge(olc_buf *out, int *unchanged, const unsigned char *base, size_t len,
                        int exists, void *payload, olc_error *err) {
  job *j = payload;
  counter_map m;
  char *text;
  size_t n = 0;
  olc_status st;
  (void)unchanged;
  (void)err;
  if (!exists)
    m.n = 0;
  else if (counter_parse(&m, base, len) != 0)
    return OLC_E_MALFORMED;
  if (counter_add(&m, "counter", 1) != 0 || (j->key && counter_add(&m, j->key, 1) != 0))
    return OLC_E_LIMIT;
  if (j->reopen_lock) {
    char lock[4096];
    int fd;
    snprintf(lock, sizeof lock, "%s.lock", j->path);
    fd = open(lock, O_RDWR | O_CLOEXEC);
    if (fd < 0 || close(fd) != 0)
      return OLC_E_IO;
  }
  if (j->hold_ms > 0) {
    struct timespec ts;
    if (write(1, "L\n", 2) != 2)
      return OLC_E_IO;
    ts.tv_sec = j->hold_ms / 1000;
    ts.tv_nsec = (j->hold_ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  if (j->self != NULL) {
    int status = 0;
    pid_t pid = fork();
    if (pid == 0) {
      execl(j->self, j->self, "fdcheck", j->path, (char *)NULL);
      _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      return OLC_E_INTERNAL;
  }
  text = counter_format(&m, &n);
  if (text == NULL)
    return OLC_E_NOMEM;
  st = olc_buf__append(out, text, n);
  free(text);
  return st;
}

/* Only descriptors under prefix count: the test runner may pass its own
 * (ctest's log file, for one). */
static int fdcheck(const char *prefix) {
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  int bad = 0;
  if (d == NULL)
    return 0; /* no /proc: nothing to check here */
  while ((e = readdir(d)) != NULL) {
    char link[300], target[4096];
    ssize_t n;
    size_t l;
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
      continue;
    target[n] = 0;
    l = (size_t)n;
    if (strncmp(target, prefix, strlen(prefix)) != 0)
      continue;
    if ((l > 5 && strcmp(target + l - 5, ".lock") == 0) ||
        (l > 4 && strcmp(target + l - 4, ".tmp") == 0)) {
      fprintf(stderr, "persist_writer: inherited descriptor %s -> %s\n", e->d_name, target);
      bad = 1;
    }
  }
  closedir(d);
  return bad ? 3 : 0;
}

/* F2: real ENOSPC on a 64 KiB tmpfs (run under "unshare -rm"); 77 when
 * mounting is impossible. */
static olc_status fill(olc_buf *out, int *unchanged, const unsigned char *base, size_t len,
                       int exists, void *payload, olc_error *err) {
  size_t n = *(const size_t *)payload;
  (void)unchanged;
  (void)base;
  (void)len;
  (void)exists;
  (void)err;
  if (olc_buf__reserve(out, n) != OLC_OK)
    return OLC_E_NOMEM;
  memset(out->data, 'f', n);
  out->len = n;
  return OLC_OK;
}

static int enospc_check(void) {
  char dir[] = "/tmp/olc-enospc-XXXXXX", path[64];
  olc_persist_options o = {1000, 0, 0600, 0, NULL, NULL, NULL};
  olc_buf b = OLC_BUF_INIT;
  olc_error err;
  size_t n = 40000;
  olc_status st;
  int bad = 0;
  if (mkdtemp(dir) == NULL)
    return 77;
  if (mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0) {
    fprintf(stderr, "skipped: cannot mount a tmpfs: %s\n", strerror(errno));
    rmdir(dir);
    return 77;
  }
  snprintf(path, sizeof path, "%s/p.txt", dir);
  st = olc_persist__update(NULL, NULL, path, &o, fill, &n, &err);
  bad |= st != OLC_OK;
  n = 41000; /* old + new no longer fit */
  st = olc_persist__update(NULL, NULL, path, &o, fill, &n, &err);
  printf("update over a full tmpfs: %s %s\n", olc_status_name(st), err.where);
  bad |= st != OLC_E_NOSPC;
  bad |= olc_persist__read(&b, NULL, path, 0, &err) != OLC_OK || b.len != 40000;
  n = 10000; /* fits next to the old file: succeeds */
  st = olc_persist__update(NULL, NULL, path, &o, fill, &n, &err);
  bad |= st != OLC_OK;
  bad |= olc_persist__read(&b, NULL, path, 0, &err) != OLC_OK || b.len != 10000;
  {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
      if (strstr(e->d_name, ".tmp") != NULL)
        bad = 1;
    if (d != NULL)
      closedir(d);
  }
  olc_buf__free(&b);
  umount(dir);
  rmdir(dir);
  printf("%s\n", bad ? "FAIL" : "PASS: ENOSPC left the old file intact, no temporary");
  return bad;
}

static int update(const char *path, job *j, int64_t timeout_ms, olc_status *out) {
  olc_persist_options o;
  olc_error err;
  o.lock_timeout_ms = timeout_ms;
  o.tmp_grace_seconds = 0;
  o.file_mode = 0600;
  o.max_file_size = 1 << 20;
  o.probe = NULL;
  o.probe_payload = NULL;
  o.absorb = NULL;
  olc_error_clear(&err);
  *out = olc_persist__update(NULL, NULL, path, &o, merge, j, &err);
  if (*out != OLC_OK && *out != OLC_E_LOCK_TIMEOUT)
    fprintf(stderr, "persist_writer: %s: %s: %s\n", olc_status_name(*out), err.where, err.message);
  return *out == OLC_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  job j = {NULL, 0, NULL, NULL, 0};
  olc_status st;
  if (argc == 3 && strcmp(argv[1], "fdcheck") == 0)
    return fdcheck(argv[2]);
  if (argc == 5 && strcmp(argv[1], "inc") == 0) {
    long i, n = atol(argv[3]);
    j.key = argv[4];
    for (i = 0; i < n; i++)
      if (update(argv[2], &j, 30000, &st) != 0)
        return 1;
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "hold") == 0) {
    j.hold_ms = atol(argv[3]);
    return update(argv[2], &j, 30000, &st);
  }
  if (argc == 4 && strcmp(argv[1], "forkexec") == 0) {
    j.self = argv[3];
    j.path = argv[2];
    return update(argv[2], &j, 30000, &st);
  }
  if (argc == 4 && strcmp(argv[1], "timeout") == 0) {
    update(argv[2], &j, atol(argv[3]), &st);
    return st == OLC_E_LOCK_TIMEOUT ? 0 : 1;
  }
  if (argc == 3 && strcmp(argv[1], "once") == 0) {
    olc_persist_options o;
    olc_error err;
    o.lock_timeout_ms = 5000;
    o.tmp_grace_seconds = 0;
    o.file_mode = 0600;
    o.max_file_size = 1 << 20;
    o.probe = NULL;
    o.probe_payload = NULL;
    o.absorb = NULL;
    olc_error_clear(&err);
    char line[128];
    size_t off = 0, n;
    st = olc_persist__update(NULL, NULL, argv[2], &o, merge, &j, &err);
    snprintf(line, sizeof line, "%s %s\n", olc_status_name(st), err.where[0] ? err.where : "-");
    /* write(2) with an EINTR loop: the tests inject EINTR into write. */
    n = strlen(line);
    while (off < n) {
      ssize_t r = write(1, line + off, n - off);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return 1;
      off += (size_t)r;
    }
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "c4") == 0) {
    j.hold_ms = atol(argv[3]);
    j.path = argv[2];
    j.reopen_lock = 1;
    return update(argv[2], &j, 30000, &st);
  }
  if (argc == 2 && strcmp(argv[1], "defaultpath") == 0) {
    char buf[4096];
    olc_error err;
    if (olc_persist__default_path(buf, sizeof buf, &err) != OLC_OK)
      snprintf(buf, sizeof buf, "error: %s", err.message);
    printf("%lu %s\n", getauxval(AT_SECURE), buf);
    fflush(stdout);
    /* _exit: LeakSanitizer cannot run in a setuid process (ASan builds). */
    _exit(0);
  }
  if (argc == 2 && strcmp(argv[1], "enospc") == 0)
    return enospc_check();
  fprintf(stderr, "usage: persist_writer inc|hold|forkexec|fdcheck|timeout ...\n");
  return 2;
}
