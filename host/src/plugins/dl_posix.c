/*
 * plugins/dl_posix.c - the loader's platform layer on POSIX: dlopen/dlsym
 * under the loader's lock (dl_lock.c), directory scanning, permission checks
 * and the environment.
 */
#include "plugins/plugins_int.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

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

olc_status olc_plugins__list_dir(char ***names, size_t *count, const char *dir, olc_error *err) {
  olc_plugins_names list = {NULL, 0, 0};
  DIR *d;
  struct dirent *e;
  olc_status st = OLC_OK;
  *names = NULL;
  *count = 0;
  d = opendir(dir);
  if (d == NULL)
    return olc_error__sys(err, OLC_E_IO, errno, "opendir", "plugin directory %s", dir);
  while (st == OLC_OK && (e = readdir(d)) != NULL) {
    if (!olc_plugins__has_suffix(e->d_name))
      continue;
    /* Every entry with the suffix is listed, files or not: one that is not
     * a regular file gets a report entry saying what it is
     * (olc_plugins__not_regular) and is never opened (dlopen on a FIFO
     * would block). */
    if (olc_plugins__names_push(&list, e->d_name) != OLC_OK)
      st = olc_error__set(err, OLC_E_NOMEM, "readdir", "out of memory");
  }
  closedir(d);
  return olc_plugins__names_finish(&list, st, names, count);
}

static const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

int olc_plugins__not_regular(const char *path, char *msg, size_t size) {
  struct stat lst, st;
  char ebuf[128];
  if (lstat(path, &lst) != 0) {
    snprintf(msg, size, "not a regular file: cannot stat %s: %s", path,
             olc_error__strerror(errno, ebuf, sizeof ebuf));
    return 1;
  }
  if (!S_ISLNK(lst.st_mode)) {
    if (S_ISREG(lst.st_mode))
      return 0;
    snprintf(msg, size, "not a regular file: %s", kind_of(lst.st_mode));
    return 1;
  }
  if (stat(path, &st) != 0) {
    int e = errno;
    if (e == ELOOP)
      snprintf(msg, size, "not a regular file: a symbolic link loop");
    else if (e == ENOENT)
      snprintf(msg, size, "not a regular file: a dangling symbolic link");
    else
      snprintf(msg, size, "not a regular file: a symbolic link that cannot be followed: %s",
               olc_error__strerror(e, ebuf, sizeof ebuf));
    return 1;
  }
  if (S_ISREG(st.st_mode))
    return 0;
  snprintf(msg, size, "not a regular file: a symbolic link to %s", kind_of(st.st_mode));
  return 1;
}

/* One file or directory on the way to a plugin (the OpenSSH StrictModes
 * rule): owned by root or this user, and writable by nobody else, except a
 * root-owned directory with the sticky bit (/tmp), where others can add
 * names but not rename or remove ours. */
static int insecure_stat(const char *path, const char *what, int dir, char *msg, size_t size) {
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
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
      !(dir && (st.st_mode & S_ISVTX) != 0 && st.st_uid == 0)) {
    snprintf(msg, size, "%s %s is writable by %s", what, path,
             (st.st_mode & S_IWOTH) != 0 ? "all users" : "its group");
    return 1;
  }
  return 0;
}

/* The directory holding path and every directory above it, up to the
 * root: whoever can write any of them can rename the way to the file. */
static int insecure_ancestors(const char *path, char *msg, size_t size) {
  char *dir = strdup(path);
  char *slash;
  int bad = 0;
  if (dir == NULL) {
    snprintf(msg, size, "out of memory");
    return 1;
  }
  for (;;) {
    slash = strrchr(dir, '/');
    if (slash == NULL)
      break; /* a relative path: the loader only passes absolute ones */
    if (slash == dir)
      slash[1] = 0;
    else
      *slash = 0;
    bad = insecure_stat(dir, "directory", 1, msg, size);
    if (bad || strcmp(dir, "/") == 0)
      break;
  }
  free(dir);
  return bad;
}

int olc_plugins__insecure(const char *path, char *msg, size_t size) {
  char *real;
  int bad;
  if (insecure_stat(path, "file", 0, msg, size))
    return 1;
  /* Every directory on the way as listed, and as resolved when the file is
   * a link. */
  bad = insecure_ancestors(path, msg, size);
  if (!bad) {
    real = realpath(path, NULL);
    if (real != NULL && strcmp(real, path) != 0)
      bad = insecure_stat(real, "file", 0, msg, size) || insecure_ancestors(real, msg, size);
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
