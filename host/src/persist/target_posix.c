/*
 * persist/target_posix.c - what is at a path before anything is created
 * next to it: the probe the store uses to tell stores from other files, and
 * the writers' check that no P.lock appears beside something that is not a
 * store (a directory, /dev/null, /etc/passwd).
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

static olc_persist_kind kind_of(mode_t mode) {
  if (S_ISREG(mode))
    return OLC_PERSIST_FILE;
  if (S_ISDIR(mode))
    return OLC_PERSIST_DIRECTORY;
  if (S_ISLNK(mode))
    return OLC_PERSIST_SYMLINK;
  return OLC_PERSIST_SPECIAL;
}

size_t olc_posix__read_head(int fd, unsigned char *buf, size_t cap) {
  size_t got = 0;
  while (got < cap) {
    ssize_t r = OLC_FS(pread(fd, buf + got, cap - got, (off_t)got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  return got;
}

/* The kind of dfd/name (or of path when dfd < 0) and, for a regular file,
 * its size and head.  0, or an errno (ENOENT: absent). */
static int look(olc_persist_probe *out, int dfd, const char *name) {
  struct stat st;
  int fd;
  memset(out, 0, sizeof *out);
  if (OLC_FS(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) != 0)
    return errno;
  out->kind = kind_of(st.st_mode);
  if (out->kind != OLC_PERSIST_FILE)
    return 0;
  out->size = (uint64_t)st.st_size;
  fd = OLC_FS(openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd < 0)
    return errno;
  out->head_len = olc_posix__read_head(fd, out->head, sizeof out->head);
  OLC_FS(close(fd));
  return 0;
}

olc_status olc_persist__probe(olc_persist_probe *out, const char *path, olc_error *err) {
  int e;
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "probe", "no output or no path");
  e = look(out, AT_FDCWD, path);
  if (e == ENOENT || e == ENOTDIR) {
    memset(out, 0, sizeof *out);
    return OLC_OK; /* absent */
  }
  if (e != 0)
    return olc_error__sys(err, OLC_E_IO, e, "probe", "cannot look at '%s'", path);
  return OLC_OK;
}

olc_status olc_posix__check_target(int dfd, const char *base, const char *path,
                                   const olc_persist_options *opt, olc_error *err) {
  char lock[4096];
  struct stat st;
  olc_persist_probe p;
  int e;
  if ((size_t)snprintf(lock, sizeof lock, "%s.lock", base) >= sizeof lock)
    return olc_error__set(err, OLC_E_INVALID, "lock-open", "file name too long: '%s'", path);
  if (OLC_FS(fstatat(dfd, lock, &st, AT_SYMLINK_NOFOLLOW)) == 0)
    return OLC_OK; /* P.lock exists: opening it creates nothing */
  e = look(&p, dfd, base);
  if (e == ENOENT)
    return OLC_OK; /* a new file */
  if (e != 0)
    return olc_error__sys(err, OLC_E_IO, e, "lock-open", "cannot look at '%s'", path);
  if (p.kind != OLC_PERSIST_FILE)
    return olc_error__sys(err, OLC_E_INVALID, EINVAL, "lock-open",
                          "'%s' is %s, not a store file; nothing written", path,
                          olc_persist__kind_str(p.kind));
  if (opt->probe != NULL)
    return opt->probe(p.head, p.head_len, p.size, path, opt->probe_payload, err);
  return OLC_OK;
}
