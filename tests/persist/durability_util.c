/* tests/persist/durability_util.c - see durability_util.h. */
#include "durability_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

pid_t dur_spawn(const char *const argv[], const char *const env[], int *out_fd) {
  int p[2] = {-1, -1};
  pid_t pid;
  if (out_fd != NULL && pipe(p) != 0)
    return -1;
  pid = fork();
  if (pid == 0) {
    size_t i;
    for (i = 0; env != NULL && env[i] != NULL; i++)
      putenv(strdup(env[i])); /* the child execs right after */
    if (out_fd != NULL) {
      dup2(p[1], 1);
      close(p[0]);
      close(p[1]);
    }
    {
      /* execvp wants char *const[]: copies, the child execs right away. */
      char *copy[32];
      for (i = 0; i < 31 && argv[i] != NULL; i++)
        copy[i] = strdup(argv[i]);
      copy[i] = NULL;
      execvp(copy[0], copy);
    }
    _exit(127);
  }
  if (out_fd != NULL) {
    close(p[1]);
    if (pid < 0)
      close(p[0]);
    else
      *out_fd = p[0];
  }
  return pid;
}

int dur_wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return status;
}

int dur_run(const char *const argv[], const char *const env[]) {
  pid_t pid = dur_spawn(argv, env, NULL);
  return pid < 0 ? -1 : dur_wait(pid);
}

int dur_load(counter_map *m, const char *path) {
  size_t n = 0;
  unsigned char *p = olc_test_read_file(path, &n);
  int r;
  m->n = 0;
  if (p == NULL)
    return 0;
  r = counter_parse(m, p, n) == 0 ? 1 : -1;
  free(p);
  return r;
}

int dur_store(const char *path, long value) {
  counter_map m;
  char *text;
  size_t n = 0;
  int r;
  m.n = 0;
  counter_add(&m, "counter", value);
  counter_add(&m, "filler-a", 1234567);
  counter_add(&m, "filler-b", 7654321);
  text = counter_format(&m, &n);
  if (text == NULL)
    return -1;
  r = olc_test_write_file(path, text, n);
  free(text);
  return r;
}

int dur_negative(const char *safety) {
  const char *v = getenv("OLC_TEST_DISABLE");
  return v != NULL && strstr(v, safety) != NULL;
}

double dur_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
