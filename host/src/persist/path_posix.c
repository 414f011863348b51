/*
 * persist/path_posix.c - the default store path and path resolution on
 * POSIX.
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

#define OLC_PERSIST__SUBPATH "onnx-light/calibration_profiles.txt"

/* Environment of an unprivileged process only (setuid/setgid/capabilities:
 * NULL), so that a privileged caller never writes where the caller of the
 * program points it. */
static const char *env_get(const char *name) {
#if defined(__GLIBC__)
  return secure_getenv(name);
#else
  if (getuid() != geteuid() || getgid() != getegid())
    return NULL;
  return getenv(name);
#endif
}

const char *olc_persist__env(const char *name) {
  const char *v = env_get(name);
  return v != NULL && v[0] != 0 ? v : NULL;
}

static olc_status put_path(char *buf, size_t size, const char *dir, const char *sub,
                           olc_error *err) {
  int n = snprintf(buf, size, "%s%s%s", dir, dir[0] != 0 && dir[strlen(dir) - 1] == '/' ? "" : "/",
                   sub);
  if (n < 0 || (size_t)n >= size)
    return olc_error__set(err, OLC_E_LIMIT, "default-path",
                          "the default store path under '%s' does not fit %zu bytes", dir, size);
  return OLC_OK;
}

olc_status olc_persist__default_path(char *buf, size_t size, olc_error *err) {
  const char *xdg, *home;
  struct passwd pw, *res = NULL;
  char pwbuf[4096];
  int e;
  if (buf == NULL || size == 0)
    return olc_error__set(err, OLC_E_INVALID, "default-path", "no buffer");
  buf[0] = 0;
  xdg = env_get("XDG_CACHE_HOME");
  if (xdg != NULL && xdg[0] == '/') /* the XDG spec: relative values are invalid */
    return put_path(buf, size, xdg, OLC_PERSIST__SUBPATH, err);
  home = env_get("HOME");
  /* A relative HOME is ignored like a relative XDG_CACHE_HOME: the store
   * must not move with the working directory. */
  if (home != NULL && home[0] == '/')
    return put_path(buf, size, home, ".cache/" OLC_PERSIST__SUBPATH, err);
  olc_persist__count();
  e = getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &res);
  if (e != 0 || res == NULL || pw.pw_dir == NULL || pw.pw_dir[0] == 0)
    return olc_error__sys(err, OLC_E_NOT_FOUND, e ? e : ENOENT, "default-path",
                          "no home directory: HOME is unset and uid %ld has no passwd entry",
                          (long)getuid());
  return put_path(buf, size, pw.pw_dir, ".cache/" OLC_PERSIST__SUBPATH, err);
}

/* dir made absolute (realpath when it exists, else cwd + dir as written),
 * then "/" base. */
static olc_status join_resolved(char **out, const char *path, olc_error *err) {
  char *dir = NULL, *real = NULL, *abs = NULL;
  const char *base;
  olc_status st = olc_persist__split(&dir, &base, path, err);
  size_t n;
  if (st != OLC_OK)
    return st;
  real = OLC_FS(realpath(dir, NULL));
  if (real == NULL) {
    if (errno != ENOENT && errno != ENOTDIR) {
      st = olc_error__sys(err, OLC_E_IO, errno, "resolve", "cannot resolve '%s'", dir);
      goto done;
    }
    if (dir[0] == '/') {
      real = strdup(dir);
    } else {
      char cwd[PATH_MAX];
      if (OLC_FS(getcwd(cwd, sizeof cwd)) == NULL) {
        st = olc_error__sys(err, OLC_E_IO, errno, "resolve", "cannot get the current directory");
        goto done;
      }
      n = strlen(cwd) + strlen(dir) + 2;
      real = malloc(n);
      if (real != NULL)
        snprintf(real, n, "%s/%s", cwd, dir);
    }
    if (real == NULL) {
      st = olc_error__set(err, OLC_E_NOMEM, "resolve", "out of memory resolving '%s'", path);
      goto done;
    }
  }
  n = strlen(real) + strlen(base) + 2;
  abs = malloc(n);
  if (abs == NULL) {
    st = olc_error__set(err, OLC_E_NOMEM, "resolve", "out of memory resolving '%s'", path);
    goto done;
  }
  snprintf(abs, n, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", base);
  *out = abs;
done:
  free(real);
  free(dir);
  return st;
}

olc_status olc_persist__absolute(char **out, const char *path, olc_error *err) {
  char cwd[PATH_MAX];
  size_t n;
  if (out == NULL || path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "absolute", "empty path");
  *out = NULL;
  if (path[0] == '/') {
    *out = strdup(path);
  } else {
    if (OLC_FS(getcwd(cwd, sizeof cwd)) == NULL)
      return olc_error__sys(err, OLC_E_IO, errno, "absolute",
                            "cannot make the path absolute: cannot get the current directory");
    n = strlen(cwd) + strlen(path) + 2;
    *out = malloc(n);
    if (*out != NULL)
      snprintf(*out, n, "%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/", path);
  }
  if (*out == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "absolute", "out of memory for path '%s'", path);
  return OLC_OK;
}

olc_status olc_persist__resolve(char **out, const char *path, olc_error *err) {
  char *cur = NULL;
  olc_status st;
  int hops;
  if (out == NULL || path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "resolve", "empty store path");
  *out = NULL;
  st = join_resolved(&cur, path, err);
  /* Follow P itself while it is a symlink (even a dangling one): the data
   * file is then replaced at its target, never through the link. */
  for (hops = 0; st == OLC_OK; hops++) {
    struct stat lst;
    char target[PATH_MAX];
    ssize_t len;
    char *next, *joined;
    size_t n;
    if (OLC_FS(lstat(cur, &lst)) != 0 || !S_ISLNK(lst.st_mode))
      break;
    if (hops == 40) {
      st = olc_error__sys(err, OLC_E_IO, ELOOP, "resolve", "too many symlinks at '%s'", path);
      break;
    }
    len = OLC_FS(readlink(cur, target, sizeof target - 1));
    if (len < 0) {
      st = olc_error__sys(err, OLC_E_IO, errno, "resolve", "cannot read the link '%s'", cur);
      break;
    }
    target[len] = 0;
    if (target[0] == '/') {
      joined = strdup(target);
    } else {
      n = strlen(cur) + (size_t)len + 2;
      joined = malloc(n);
      if (joined != NULL)
        snprintf(joined, n, "%.*s%s", (int)(strrchr(cur, '/') - cur + 1), cur, target);
    }
    if (joined == NULL) {
      st = olc_error__set(err, OLC_E_NOMEM, "resolve", "out of memory resolving '%s'", path);
      break;
    }
    next = NULL;
    st = join_resolved(&next, joined, err);
    free(joined);
    free(cur);
    cur = next;
  }
  if (st != OLC_OK) {
    free(cur);
    return st;
  }
  *out = cur;
  return OLC_OK;
}

char *olc_persist__runtime_dir(void) {
  const char *xdg = env_get("XDG_RUNTIME_DIR");
  struct stat st;
  /* The XDG spec: absolute, owned by the user, only the user may write it
   * (otherwise another user could plant the lock file). */
  if (xdg == NULL || xdg[0] != '/' || OLC_FS(stat(xdg, &st)) != 0)
    return NULL;
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0)
    return NULL;
  return strdup(xdg);
}
