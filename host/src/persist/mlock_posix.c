/*
 * persist/mlock_posix.c - the file and lock calls of the measurement lock
 * (persist.h) on POSIX: an OFD write lock on the whole file, the classic
 * fcntl lock where the kernel has none.
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/platform.h"

static atomic_int local_held;

int olc_persist__mlock_local_take(void) {
  int expected = 0;
  return atomic_compare_exchange_strong(&local_held, &expected, 1);
}

void olc_persist__mlock_local_give(void) { atomic_store(&local_held, 0); }

int64_t olc_persist__pid(void) { return (int64_t)getpid(); }

/* Field 22 of /proc/self/stat (clock ticks after boot) placed on the wall
 * clock through the time since boot; 0 where there is no /proc. */
int64_t olc_persist__process_start_s(void) {
#if defined(__linux__)
  char buf[1024];
  const char *p;
  long hz = sysconf(_SC_CLK_TCK);
  unsigned long long ticks;
  int64_t boot_ms;
  ssize_t n;
  int field, fd = OLC_FS(open("/proc/self/stat", O_RDONLY | O_CLOEXEC));
  if (fd < 0)
    return 0;
  n = OLC_FS(read(fd, buf, sizeof buf - 1));
  OLC_FS(close(fd));
  if (n <= 0 || hz <= 0)
    return 0;
  buf[n] = 0;
  p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
  /* From the ')' ending field 2, each step lands on the space before the
   * next field: 20 steps reach the one before field 22, starttime (field 21
   * is itrealvalue, always 0: every holder would have started at boot). */
  for (field = 2; p != NULL && field < 22; field++)
    p = strchr(p + 1, ' ');
  if (p == NULL || sscanf(p + 1, "%llu", &ticks) != 1)
    return 0;
  boot_ms = olc_util__since_boot_ms();
  if (boot_ms < 0)
    return 0;
  return (olc_util__wall_ms() - boot_ms) / 1000 + (int64_t)(ticks / (unsigned long long)hz);
#else
  return 0;
#endif
}

static int open_file(const char *path) {
  /* O_NONBLOCK: a FIFO in its place must not block the open. */
  return OLC_FS(
      open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600));
}

/* Creates the directory of path (mkdir -p, 0700). */
static olc_status make_parent(const char *path, olc_error *err) {
  char *dir = NULL;
  const char *base;
  int dfd = -1;
  olc_status st = olc_persist__split(&dir, &base, path, err);
  if (st == OLC_OK)
    st = olc_posix__open_dir(&dfd, dir, 1, err);
  if (dfd >= 0)
    OLC_FS(close(dfd));
  free(dir);
  return st;
}

static olc_status open_failed(int e, const char *path, olc_error *err) {
  if (e == ELOOP || e == EMLINK)
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is a symbolic link", path);
  if (e == EISDIR)
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is a directory", path);
  return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "measure-lock",
                        "cannot open or create the measurement lock '%s'", path);
}

static olc_status check_file(int fd, const char *path, olc_error *err) {
  struct stat st;
  if (OLC_FS(fstat(fd, &st)) != 0)
    return olc_error__sys(err, OLC_E_IO, errno, "measure-lock", "cannot stat '%s'", path);
  if (!S_ISREG(st.st_mode))
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is not a regular file", path);
  if (st.st_uid != geteuid())
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' belongs to uid %ld, not to this user (%ld)",
                          path, (long)st.st_uid, (long)geteuid());
  return OLC_OK;
}

olc_status olc_persist__mlock_open(olc_persist_mlock *m, const char *path, olc_error *err) {
  int fd = open_file(path), e = fd < 0 ? errno : 0;
  olc_status st;
  if (fd < 0 && e == ENOENT) {
    st = make_parent(path, err);
    if (st != OLC_OK)
      return st;
    fd = open_file(path);
    e = fd < 0 ? errno : 0;
  }
  if (fd < 0)
    return open_failed(e, path, err);
  st = check_file(fd, path, err);
  if (st != OLC_OK) {
    OLC_FS(close(fd));
    return st;
  }
  m->fd = fd;
  return OLC_OK;
}

olc_status olc_persist__mlock_try(olc_persist_mlock *m, const char *path, olc_error *err) {
  int ofd = !olc_persist__hook_disabled(OLC_PERSIST__SAFETY_CLASSIC);
  int e = olc_posix__setlk((int)m->fd, 0, &ofd);
  if (e == 0)
    return OLC_OK;
  if (e == EAGAIN)
    return OLC_E_BUSY;
  return olc_error__sys(err, OLC_E_LOCK, e, "measure-lock", "cannot lock '%s'", path);
}

void olc_persist__mlock_put(olc_persist_mlock *m, const char *line, size_t len) {
  /* Best effort: the line is a hint for waiters. */
  if (OLC_FS(pwrite((int)m->fd, line, len, 0)) == (ssize_t)len)
    (void)OLC_FS(ftruncate((int)m->fd, (off_t)len));
}

size_t olc_persist__mlock_get(olc_persist_mlock *m, char *buf, size_t size) {
  ssize_t n = OLC_FS(pread((int)m->fd, buf, size - 1, 0));
  if (n < 0)
    n = 0;
  buf[n] = 0;
  return (size_t)n;
}

static int unlock_fd(int fd, int cmd) {
  struct flock fl;
  memset(&fl, 0, sizeof fl); /* l_pid must be 0 for OFD locks */
  fl.l_type = F_UNLCK;
  fl.l_whence = SEEK_SET;
  return OLC_FS(fcntl(fd, cmd, &fl));
}

void olc_persist__mlock_close(olc_persist_mlock *m) {
  if (m->fd < 0)
    return;
  /* Unlocked before the close: a child forked meanwhile shares the open
   * file description and would keep an OFD lock alive past our close. */
  if (unlock_fd((int)m->fd, F_OFD_SETLK) != 0)
    (void)unlock_fd((int)m->fd, F_SETLK);
  OLC_FS(close((int)m->fd));
  m->fd = -1;
}
