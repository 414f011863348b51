/*
 * tests/integration/persist_writer.c - a writer process for the durability
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
 *
 * Exit status: 0 success, 1 failure (message on stderr), 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int update(const char *path, job *j, int64_t timeout_ms, olc_status *out) {
  olc_persist_options o;
  olc_error err;
  o.lock_timeout_ms = timeout_ms;
  o.tmp_grace_seconds = 0;
  o.file_mode = 0600;
  o.max_file_size = 1 << 20;
  olc_error_clear(&err);
  *out = olc_persist__update(NULL, NULL, path, &o, merge, j, &err);
  if (*out != OLC_OK && *out != OLC_E_LOCK_TIMEOUT)
    fprintf(stderr, "persist_writer: %s: %s: %s\n", olc_status_name(*out), err.where, err.message);
  return *out == OLC_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  job j = {NULL, 0, NULL, NULL};
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
  fprintf(stderr, "usage: persist_writer inc|hold|forkexec|fdcheck|timeout ...\n");
  return 2;
}
