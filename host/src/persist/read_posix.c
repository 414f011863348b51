/*
 * persist/read_posix.c - lock-free readers, change detection and the
 * explicit repair (docs/durability.md, "Reading" and W5) on POSIX.
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"

olc_status olc_persist__read(olc_buf *out, olc_file_id *id, const char *path, size_t max_file_size,
                             olc_error *err) {
  struct stat st;
  olc_status s;
  int fd;
  if (id != NULL)
    memset(id, 0, sizeof *id);
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "read", "no buffer or no path");
  olc_buf__reset(out);
  /* One open, read to EOF: P is never modified in place, so this is a
   * consistent snapshot even when a writer renames a new version now. */
  fd = OLC_FS(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)); /* a FIFO must not hang */
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT)
      return olc_error__sys(err, OLC_E_NOT_FOUND, e, "read", "no file '%s'", path);
    return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "read",
                          "cannot open '%s'", path);
  }
  s = olc_posix__read_fd(out, &st, fd, max_file_size, path, "read", err);
  OLC_FS(close(fd));
  if (s != OLC_OK) {
    olc_buf__reset(out);
    return s;
  }
  if (id != NULL)
    olc_posix__id_from_stat(id, &st);
  return OLC_OK;
}

olc_status olc_persist__stat(olc_file_id *id, const char *path, olc_error *err) {
  struct stat st;
  if (id == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "stat", "no identity or no path");
  memset(id, 0, sizeof *id);
  if (OLC_FS(stat(path, &st)) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR)
      return OLC_OK; /* absent */
    return olc_error__sys(err, OLC_E_IO, e, "stat", "cannot stat '%s'", path);
  }
  olc_posix__id_from_stat(id, &st);
  return OLC_OK;
}

/* "<base>.corrupt-YYYYmmddTHHMMSSZ.<8 hex>" */
static int corrupt_name(char *buf, size_t size, const char *base) {
  unsigned char r[4];
  struct tm tm;
  time_t now = time(NULL);
  char stamp[32];
  int n;
  if (gmtime_r(&now, &tm) == NULL || strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm) == 0)
    return -1;
  olc_persist__random(r, sizeof r);
  n = snprintf(buf, size, "%s.corrupt-%s.%02x%02x%02x%02x", base, stamp, r[0], r[1], r[2], r[3]);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The content check of repair: the whole file, or its first 4096 bytes
 * when it is larger than the limit (complete = 0). */
static olc_status repair_classify(const char *path, int dfd, const char *base,
                                  const olc_persist_options *opt, olc_persist_check_fn check,
                                  void *payload, olc_error *err) {
  olc_buf bytes = OLC_BUF_INIT;
  unsigned char head[4096];
  struct stat st;
  olc_status s;
  int fd;
  if (OLC_FS(fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW)) != 0) {
    int e = errno;
    if (e == ENOENT)
      return olc_error__sys(err, OLC_E_NOT_FOUND, e, "reload", "no file '%s'", path);
    return olc_error__sys(err, OLC_E_IO, e, "reload", "cannot look at '%s'", path);
  }
  /* Only a regular file can be a store: a directory, a planted symlink, a
   * FIFO or a device at P stays where it is. */
  if (!S_ISREG(st.st_mode))
    return olc_error__sys(err, OLC_E_INVALID, EINVAL, "repair",
                          "'%s' is %s, not a store file; nothing moved", path,
                          S_ISDIR(st.st_mode)   ? "a directory"
                          : S_ISLNK(st.st_mode) ? "a symbolic link"
                                                : "a FIFO, device or socket");
  fd = OLC_FS(openat(dfd, base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd < 0)
    return olc_error__sys(err, OLC_E_IO, errno, "reload", "cannot open '%s'", path);
  s = olc_posix__read_fd(&bytes, &st, fd, opt->max_file_size, path, "reload", err);
  if (s == OLC_E_LIMIT) {
    size_t n = olc_posix__read_head(fd, head, sizeof head);
    olc_error_clear(err);
    s = check(head, n, 0, payload, err);
  } else if (s == OLC_OK) {
    s = check(bytes.data, bytes.len, 1, payload, err);
  } /* else an I/O error, which says nothing about the content */
  OLC_FS(close(fd));
  olc_buf__free(&bytes);
  if (s == OLC_OK)
    return olc_error__set(err, OLC_E_BUSY, "repair", "'%s' is valid; nothing to repair", path);
  if (s == OLC_E_MALFORMED)
    olc_error_clear(err); /* the reason to move it, not an error */
  return s;
}

static olc_status repair_locked(char *moved_to, size_t moved_to_size, const char *path,
                                const char *base, int dfd, int lfd, const olc_persist_options *opt,
                                olc_persist_check_fn check, void *payload, olc_error *err) {
  char name[4096];
  olc_status s = repair_classify(path, dfd, base, opt, check, payload, err);
  int e;
  if (s != OLC_E_MALFORMED)
    return s;
  if (corrupt_name(name, sizeof name, base) != 0)
    return olc_error__set(err, OLC_E_INVALID, "repair", "file name too long: '%s'", path);
  e = olc_posix__gen_bump(lfd, 1); /* P disappears: readers must look */
  if (e == 0 && OLC_FS(renameat(dfd, base, dfd, name)) != 0)
    e = errno;
  (void)olc_posix__gen_bump(lfd, 0);
  if (e != 0)
    return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "rename",
                          "cannot move '%s' aside", path);
  OLC_FS(fsync(dfd)); /* best effort: the quarantine is not data */
  if (moved_to != NULL && moved_to_size > 0)
    snprintf(moved_to, moved_to_size, "%.*s%s", (int)(base - path), path, name);
  return OLC_OK;
}

olc_status olc_persist__repair(char *moved_to, size_t moved_to_size, const char *path,
                               const olc_persist_options *options, olc_persist_check_fn check,
                               void *payload, olc_error *err) {
  olc_persist_options opt;
  char *dir = NULL;
  const char *base = NULL;
  int dfd = -1, lfd = -1;
  olc_status s;
  s = olc_persist__repair_begin(&opt, &dir, &base, moved_to, moved_to_size, path, options,
                                check != NULL, err);
  if (s != OLC_OK)
    return s;
  olc_posix__mutex_lock();
  s = olc_posix__open_dir(&dfd, dir, 0, err);
  if (s == OLC_OK) {
    struct stat st;
    /* Nothing to repair, or nothing repair may move: no lock file is
     * created for it either. */
    if (OLC_FS(fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW)) != 0 && errno == ENOENT)
      s = olc_error__sys(err, OLC_E_NOT_FOUND, ENOENT, "reload", "no file '%s'", path);
    else if (!S_ISREG(st.st_mode))
      s = olc_error__sys(err, OLC_E_INVALID, EINVAL, "repair",
                         "'%s' is %s, not a store file; nothing moved", path,
                         S_ISDIR(st.st_mode)   ? "a directory"
                         : S_ISLNK(st.st_mode) ? "a symbolic link"
                                               : "a FIFO, device or socket");
  }
  if (s == OLC_OK)
    s = olc_posix__check_target(dfd, base, path, &opt, err);
  if (s == OLC_OK)
    s = olc_posix__lock(&lfd, dfd, base, path, opt.file_mode, opt.lock_timeout_ms, err);
  if (s == OLC_OK) {
    s = olc_posix__gen_prepare(lfd, path, err);
    if (s == OLC_OK)
      s = repair_locked(moved_to, moved_to_size, path, base, dfd, lfd, &opt, check, payload, err);
    olc_posix__unlock(lfd);
  }
  if (dfd >= 0)
    OLC_FS(close(dfd));
  olc_posix__mutex_unlock();
  free(dir);
  return s;
}
