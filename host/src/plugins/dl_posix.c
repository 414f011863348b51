/*
 * plugins/dl_posix.c - the loader's platform layer on POSIX: dlopen/dlsym
 * under one process-wide lock, directory scanning, permission checks, the
 * environment and the monotonic clock.
 */
#include "plugins/plugins_int.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"

/*
 * dlerror() state is per thread on glibc but global on some libcs, and
 * loader-internal state (constructors, TLS setup) is not reentrant
 * everywhere: every dl* call and the library registry share this lock.
 */
static pthread_mutex_t plugins_lock = PTHREAD_MUTEX_INITIALIZER;

void olc_plugins__lock(void) { (void)pthread_mutex_lock(&plugins_lock); }

void olc_plugins__unlock(void) { (void)pthread_mutex_unlock(&plugins_lock); }

static pthread_mutex_t plugins_lifecycle = PTHREAD_MUTEX_INITIALIZER;

void olc_plugins__lifecycle_lock(void) { (void)pthread_mutex_lock(&plugins_lifecycle); }

void olc_plugins__lifecycle_unlock(void) { (void)pthread_mutex_unlock(&plugins_lifecycle); }

static void copy_dlerror(char *msg, size_t size, const char *fallback) {
  const char *e = dlerror();
  size_t i;
  snprintf(msg, size, "%s", e != NULL ? e : fallback);
  /* dlerror text may span lines (rare, but the report is one line). */
  for (i = 0; msg[i] != 0; i++)
    if (msg[i] == '\n' || msg[i] == '\r')
      msg[i] = ' ';
}

void *olc_plugins__dl_open(const char *path, char *msg, size_t size) {
  void *h;
  olc_plugins__lock();
  (void)dlerror();
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    copy_dlerror(msg, size, "dlopen failed");
  olc_plugins__unlock();
  return h;
}

void *olc_plugins__dl_sym(void *handle, const char *name, char *msg, size_t size) {
  void *p;
  olc_plugins__lock();
  (void)dlerror();
  p = dlsym(handle, name);
  if (p == NULL)
    copy_dlerror(msg, size, "symbol not found");
  olc_plugins__unlock();
  return p;
}

char *olc_plugins__realpath(const char *path) { return realpath(path, NULL); }

int olc_plugins__is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

size_t olc_plugins__suffix_len(const char *name) {
#if defined(__APPLE__)
  static const char *const suffixes[] = {".dylib", ".so"};
#else
  static const char *const suffixes[] = {".so"};
#endif
  size_t n = strlen(name);
  size_t i;
  for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    size_t k = strlen(suffixes[i]);
    /* A bare ".so" has no stem: not a plugin file. */
    if (n > k && strcmp(name + n - k, suffixes[i]) == 0)
      return k;
  }
  return 0;
}

int olc_plugins__has_suffix(const char *name) { return olc_plugins__suffix_len(name) != 0; }

char *olc_plugins__join(const char *dir, const char *name) {
  size_t a = strlen(dir);
  size_t b = strlen(name);
  char *p = malloc(a + b + 2);
  if (p == NULL)
    return NULL;
  memcpy(p, dir, a);
  if (a == 0 || dir[a - 1] != '/')
    p[a++] = '/';
  memcpy(p + a, name, b + 1);
  return p;
}

void olc_plugins__free_names(char **names, size_t count) {
  size_t i;
  if (names == NULL)
    return;
  for (i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

static olc_status names_push(char ***names, size_t *count, size_t *cap, const char *name) {
  char *copy;
  if (*count == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    char **n = realloc(*names, ncap * sizeof *n);
    if (n == NULL)
      return OLC_E_NOMEM;
    *names = n;
    *cap = ncap;
  }
  copy = strdup(name);
  if (copy == NULL)
    return OLC_E_NOMEM;
  (*names)[(*count)++] = copy;
  return OLC_OK;
}

olc_status olc_plugins__list_dir(char ***names, size_t *count, const char *dir, olc_error *err) {
  DIR *d;
  struct dirent *e;
  size_t cap = 0;
  olc_status st = OLC_OK;
  *names = NULL;
  *count = 0;
  d = opendir(dir);
  if (d == NULL)
    return olc_error__sys(err, OLC_E_IO, errno, "opendir", "plugin directory %s", dir);
  while (st == OLC_OK && (e = readdir(d)) != NULL) {
    char *full;
    struct stat sb;
    if (!olc_plugins__has_suffix(e->d_name))
      continue;
    full = olc_plugins__join(dir, e->d_name);
    if (full == NULL) {
      st = olc_error__set(err, OLC_E_NOMEM, "readdir", "out of memory");
      break;
    }
    /* stat follows links: a link to a plugin file counts, a directory or a
     * fifo with a plugin suffix does not (dlopen on a fifo would block). */
    if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode)) {
      if (names_push(names, count, &cap, e->d_name) != OLC_OK)
        st = olc_error__set(err, OLC_E_NOMEM, "readdir", "out of memory");
    }
    free(full);
  }
  closedir(d);
  if (st != OLC_OK) {
    olc_plugins__free_names(*names, *count);
    *names = NULL;
    *count = 0;
  }
  return st;
}

static int insecure_stat(const char *path, const char *what, char *msg, size_t size) {
  struct stat st;
  uid_t me = geteuid();
  if (stat(path, &st) != 0) {
    char ebuf[128];
    snprintf(msg, size, "cannot stat %s %s: %s", what, path,
             olc_error__strerror(errno, ebuf, sizeof ebuf));
    return 1;
  }
  if (st.st_uid != me && st.st_uid != 0) {
    snprintf(msg, size, "%s %s is owned by another user (uid %lu)", what, path,
             (unsigned long)st.st_uid);
    return 1;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    snprintf(msg, size, "%s %s is writable by %s", what, path,
             (st.st_mode & S_IWOTH) != 0 ? "all users" : "its group");
    return 1;
  }
  return 0;
}

int olc_plugins__insecure(const char *path, char *msg, size_t size) {
  char *dir;
  char *slash;
  int bad;
  if (insecure_stat(path, "file", msg, size))
    return 1;
  /* The directory that holds the file (as listed, and as resolved when the
   * file is a link): whoever can write it can swap the file. */
  dir = strdup(path);
  if (dir == NULL) {
    snprintf(msg, size, "out of memory");
    return 1;
  }
  slash = strrchr(dir, '/');
  if (slash != NULL) {
    if (slash == dir)
      slash[1] = 0;
    else
      *slash = 0;
  }
  bad = insecure_stat(dir, "directory", msg, size);
  free(dir);
  if (!bad) {
    char *real = realpath(path, NULL);
    if (real != NULL && strcmp(real, path) != 0)
      bad = olc_plugins__insecure(real, msg, size);
    free(real);
  }
  return bad;
}

const char *olc_plugins__env_path(void) {
  /* secure_getenv already answers NULL for setuid/setgid/capability
   * processes (AT_SECURE); the id comparison covers libcs without it. */
  if (getuid() != geteuid() || getgid() != getegid())
    return NULL;
#if defined(__GLIBC__)
  return secure_getenv("OLC_PLUGIN_PATH");
#else
  return getenv("OLC_PLUGIN_PATH");
#endif
}

char olc_plugins__path_separator(void) { return ':'; }

uint64_t olc_plugins__now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
