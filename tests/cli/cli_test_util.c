/*
 * tests/cli/cli_test_util.c - spawning olc and a strict JSON checker.
 */
#include "cli_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

extern char **environ;

static char *env_entry(const char *name, const char *value) {
  size_t n = strlen(name) + strlen(value) + 2;
  char *s = malloc(n);
  if (s != NULL)
    snprintf(s, n, "%s=%s", name, value);
  return s;
}

int cli_test_run(cli_run *r, const char *dir, const char *const *env, const char *const *argv) {
  return cli_test_run_program(r, OLC_CLI_PATH, dir, env, argv);
}

int cli_test_runv(cli_run *r, const char *dir, const char *const *env, const char *const *prefix,
                  const char *first, va_list ap) {
  const char *argv[64];
  size_t n = 0;
  const char *a;
  for (; prefix != NULL && *prefix != NULL; prefix++)
    if (n < 63)
      argv[n++] = *prefix;
  for (a = first; a != NULL; a = va_arg(ap, const char *)) {
    if (n == 63)
      return -1;
    argv[n++] = a;
  }
  argv[n] = NULL;
  cli_run_free(r);
  return cli_test_run(r, dir, env, argv);
}

int cli_test_run_program(cli_run *r, const char *program, const char *dir, const char *const *env,
                         const char *const *argv) {
  static const char *pass[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",  "LD_LIBRARY_PATH",
                               "PATH",         "TMPDIR",        "OLC_CONTENTION"};
  char *envp[64], *args[128];
  char cache[4096];
  char *out_path = olc_test_path(dir, "stdout.txt");
  char *err_path = olc_test_path(dir, "stderr.txt");
  posix_spawn_file_actions_t fa;
  size_t ne = 0, na = 0, i;
  pid_t pid;
  int status, rc = -1;

  memset(r, 0, sizeof *r);
  r->code = -1;
  snprintf(cache, sizeof cache, "%s/cache", dir);
  envp[ne++] = env_entry("HOME", dir);
  envp[ne++] = env_entry("XDG_CACHE_HOME", cache);
  envp[ne++] = env_entry("LC_ALL", "C");
  for (i = 0; i < sizeof pass / sizeof pass[0]; i++) {
    const char *v = getenv(pass[i]);
    if (v != NULL)
      envp[ne++] = env_entry(pass[i], v);
  }
  for (i = 0; env != NULL && env[i] != NULL && ne < 60; i++) {
    /* An entry of env replaces the default of the same name (the first
     * match is the one getenv finds). */
    size_t k, nl = strcspn(env[i], "=");
    for (k = 0; k < ne; k++)
      if (strncmp(envp[k], env[i], nl) == 0 && envp[k][nl] == '=') {
        free(envp[k]);
        envp[k] = envp[--ne];
        break;
      }
    envp[ne] = malloc(strlen(env[i]) + 1);
    if (envp[ne] != NULL)
      strcpy(envp[ne], env[i]);
    ne++;
  }
  envp[ne] = NULL;
  /* posix_spawn wants char *const[]: hand it copies. */
  args[na++] = strdup(program);
  for (i = 0; argv[i] != NULL && na < 126; i++)
    args[na++] = strdup(argv[i]);
  args[na] = NULL;

  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (posix_spawn(&pid, args[0], &fa, NULL, args, envp) == 0 && waitpid(pid, &status, 0) == pid) {
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r->out = (char *)olc_test_read_file(out_path, &r->out_len);
    r->err = (char *)olc_test_read_file(err_path, NULL);
    rc = r->out != NULL && r->err != NULL ? 0 : -1;
  }
  posix_spawn_file_actions_destroy(&fa);
  for (i = 0; i < ne; i++)
    free(envp[i]);
  if (r->out == NULL)
    r->out = calloc(1, 1);
  if (r->err == NULL)
    r->err = calloc(1, 1);
  /* Shown by ctest --output-on-failure when an assertion fails. */
  fprintf(stderr, "[olc");
  for (i = 1; i < na; i++)
    fprintf(stderr, " %s", args[i]);
  fprintf(stderr, "] -> %d\n%s", r->code, r->err != NULL ? r->err : "");
  for (i = 0; i < na; i++)
    free(args[i]);
  free(out_path);
  free(err_path);
  return rc;
}

void cli_run_free(cli_run *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

int cli_test_olcv(cli_run *r, const char *dir, const char *const *env, const char *const *prefix,
                  const char *first, va_list ap) {
  int rc = cli_test_runv(r, dir, env, prefix, first, ap);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  return r->code;
}

int cli_test_olc(cli_run *r, const char *dir, const char *const *env, const char *first, ...) {
  va_list ap;
  int code;
  va_start(ap, first);
  code = cli_test_olcv(r, dir, env, NULL, first, ap);
  va_end(ap);
  return code;
}

int cli_test_dir_open(char **dir, const char *tag, ...) {
  va_list ap;
  char **path;
  int rc;
  *dir = olc_test_tmpdir(tag);
  rc = *dir != NULL ? 0 : -1;
  va_start(ap, tag);
  while ((path = va_arg(ap, char **)) != NULL) {
    const char *name = va_arg(ap, const char *);
    *path = *dir != NULL ? olc_test_path(*dir, name) : NULL;
    if (*path == NULL)
      rc = -1;
  }
  va_end(ap);
  return rc;
}

void cli_test_dir_close(cli_run *r, char **dir, ...) {
  va_list ap;
  char **path;
  cli_run_free(r);
  olc_test_rmtree(*dir);
  free(*dir);
  *dir = NULL;
  va_start(ap, dir);
  while ((path = va_arg(ap, char **)) != NULL) {
    free(*path);
    *path = NULL;
  }
  va_end(ap);
}

void cli_test_copy_file(const char *dir, const char *src, const char *sub, mode_t mode) {
  char path[4096];
  const char *base = strrchr(src, '/');
  unsigned char *data;
  size_t len = 0;
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/%s%s", dir, sub, base != NULL ? base : "/x");
  data = olc_test_read_file(src, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(data);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, data, len), 0);
  CU_ASSERT_EQUAL(chmod(path, mode), 0);
  free(data);
}

/* Reads the terminal's master side until pid has exited and nothing more
 * comes; the exit status in *code.  Reading while it runs matters: a full
 * terminal buffer would block the child. */
static void pty_read_all(int master, pid_t pid, char *buf, size_t size, int *code) {
  size_t len = 0;
  int status = 0, done = 0;
  while (!done || len + 1 < size) {
    struct pollfd pfd = {master, POLLIN, 0};
    ssize_t n = 0;
    if (poll(&pfd, 1, 50) > 0)
      n = read(master, buf + len, size - 1 - len);
    if (n > 0) {
      len += (size_t)n;
      continue;
    }
    if (done)
      break; /* drained: EIO once the slave is closed, or nothing more */
    if (waitpid(pid, &status, WNOHANG) == pid) {
      *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      done = 1;
    }
    if (n < 0 && errno != EIO && errno != EAGAIN && errno != EINTR)
      break;
  }
  if (!done && waitpid(pid, &status, 0) == pid)
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  buf[len] = 0;
}

/* fd of the child: the terminal when it is tty_fd, else /dev/null. */
static void pty_out(posix_spawn_file_actions_t *fa, int fd, int tty_fd, const char *slave) {
  if (fd == tty_fd)
    posix_spawn_file_actions_addopen(fa, fd, slave, O_RDWR | O_NOCTTY, 0);
  else
    posix_spawn_file_actions_addopen(fa, fd, "/dev/null", O_WRONLY, 0);
}

char *cli_test_run_pty(const char *const *argv, char *const *envp, int tty_fd, unsigned short cols,
                       int *code) {
  static char buf[65536];
  char *args[8];
  posix_spawn_file_actions_t fa;
  size_t na, i;
  pid_t pid;
  int master;
  const char *slave;
  *code = -1;
  master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
      (slave = ptsname(master)) == NULL) {
    if (master >= 0)
      close(master);
    return NULL;
  }
  if (cols > 0) {
    struct winsize ws;
    memset(&ws, 0, sizeof ws);
    ws.ws_col = cols;
    ws.ws_row = 24;
    CU_ASSERT_EQUAL(ioctl(master, TIOCSWINSZ, &ws), 0);
  }
  for (na = 0; argv[na] != NULL && na < 7; na++)
    args[na] = strdup(argv[na]);
  args[na] = NULL;
  buf[0] = 0;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pty_out(&fa, 1, tty_fd, slave);
  pty_out(&fa, 2, tty_fd, slave);
  if (posix_spawn(&pid, args[0], &fa, NULL, args, envp != NULL ? envp : environ) == 0)
    pty_read_all(master, pid, buf, sizeof buf, code);
  posix_spawn_file_actions_destroy(&fa);
  close(master);
  for (i = 0; i < na; i++)
    free(args[i]);
  return buf;
}

size_t cli_test_count(const char *s, const char *needle) {
  size_t n = 0;
  for (s = strstr(s, needle); s != NULL; s = strstr(s + 1, needle))
    n++;
  return n;
}

size_t cli_test_lines(const char *s) {
  size_t n = 0;
  for (; *s != 0; s++)
    if (*s == '\n' || s[1] == 0)
      n++;
  return n;
}

/* ---- a strict recursive-descent JSON checker ---- */

static const char *js_ws(const char *p) {
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
    p++;
  return p;
}

static int js_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *js_string(const char *p) {
  if (*p != '"')
    return NULL;
  for (p++; *p != '"'; p++) {
    if (*p == 0 || (unsigned char)*p < 0x20)
      return NULL;
    if (*p == '\\') {
      p++;
      if (*p == 'u') {
        int k;
        for (k = 1; k <= 4; k++)
          if (!js_hex(p[k]))
            return NULL;
        p += 4;
      } else if (*p == 0 || strchr("\"\\/bfnrt", *p) == NULL) {
        return NULL;
      }
    }
  }
  return p + 1;
}

static const char *js_digits(const char *p) {
  if (*p < '0' || *p > '9')
    return NULL;
  while (*p >= '0' && *p <= '9')
    p++;
  return p;
}

static const char *js_number(const char *p) {
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if ((p = js_digits(p)) == NULL)
    return NULL;
  if (*p == '.' && (p = js_digits(p + 1)) == NULL)
    return NULL;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if ((p = js_digits(p)) == NULL)
      return NULL;
  }
  return p;
}

static const char *js_value(const char *p, int depth) {
  if (depth > 64)
    return NULL;
  p = js_ws(p);
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    int object = *p == '{';
    p = js_ws(p + 1);
    if (*p == close)
      return p + 1;
    for (;;) {
      if (object) {
        if ((p = js_string(js_ws(p))) == NULL)
          return NULL;
        p = js_ws(p);
        if (*p != ':')
          return NULL;
        p++;
      }
      if ((p = js_value(p, depth + 1)) == NULL)
        return NULL;
      p = js_ws(p);
      if (*p == close)
        return p + 1;
      if (*p != ',')
        return NULL;
      p++;
    }
  }
  if (*p == '"')
    return js_string(p);
  if (strncmp(p, "true", 4) == 0)
    return p + 4;
  if (strncmp(p, "false", 5) == 0)
    return p + 5;
  if (strncmp(p, "null", 4) == 0)
    return p + 4;
  return js_number(p);
}

int cli_test_json_valid(const char *text) {
  const char *p = js_value(text, 0);
  return p != NULL && *js_ws(p) == 0;
}
