/*
 * persist/gen_posix.c - the generation counter of P.lock on POSIX
 * (persist.h, "change detection"; docs/durability.md, "The change counter").
 *
 * The counter is never mapped: anyone who may write P.lock can truncate it,
 * and a load or store through a mapping of a truncated file is a SIGBUS.
 * Writers read and write it with pread/pwrite on their locked descriptor,
 * readers with pread on a descriptor they keep: a short or garbled file is
 * then a return value, never a signal.
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

static int pread_all(int fd, unsigned char *buf, size_t n, off_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = OLC_FS(pread(fd, buf + got, n - got, off + (off_t)got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  return got == n ? 0 : -1;
}

static int pwrite_all(int fd, const unsigned char *buf, size_t n, off_t off) {
  size_t put = 0;
  while (put < n) {
    ssize_t r = OLC_FS(pwrite(fd, buf + put, n - put, off + (off_t)put));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return errno;
    if (r == 0)
      return EIO;
    put += (size_t)r;
  }
  return 0;
}

/* Blocks for the whole page, so no later write to it can meet a full file
 * system (and an older reader that maps the page never faults on a hole).
 * posix_fallocate, else zeros written where the file is short. */
static int allocate_page(int fd, off_t size) {
  static const unsigned char zeros[OLC_PERSIST__GEN_SIZE];
  int e;
  do
    e = OLC_FS(posix_fallocate(fd, 0, (off_t)OLC_PERSIST__GEN_SIZE));
  while (e == EINTR);
  if (e == 0 || e == ENOSPC || e == EDQUOT || e == EFBIG)
    return e;
  /* No fallocate here (EOPNOTSUPP, EINVAL on some file systems). */
  if (size >= (off_t)OLC_PERSIST__GEN_SIZE)
    return 0;
  return pwrite_all(fd, zeros + size, OLC_PERSIST__GEN_SIZE - (size_t)size, size);
}

olc_status olc_posix__gen_prepare(int lfd, const char *path, olc_error *err) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  struct stat st;
  int e;
  if (lfd < 0)
    return OLC_OK; /* negative control without a lock: no counter either */
  if (OLC_FS(fstat(lfd, &st)) != 0)
    return olc_error__sys(err, OLC_E_IO, errno, "lock", "cannot stat the lock file '%s.lock'",
                          path);
  if (!S_ISREG(st.st_mode))
    return olc_error__sys(err, OLC_E_LOCK, EINVAL, "lock",
                          "the lock file '%s.lock' is not a regular file", path);
  e = allocate_page(lfd, st.st_size);
  if (e != 0)
    return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "lock",
                          "cannot allocate the lock file '%s.lock'", path);
  if (pread_all(lfd, h, sizeof h, 0) == 0 && olc_persist__gen_header_valid(h))
    return OLC_OK;
  /* New, left by an older version, or garbled: a fresh header with a new
   * instance, so a reader never takes the restarted count for its own. */
  olc_persist__gen_header_init(h);
  e = pwrite_all(lfd, h, sizeof h, 0);
  if (e != 0)
    return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "lock",
                          "cannot write the lock file '%s.lock'", path);
  return OLC_OK;
}

int olc_posix__gen_bump(int lfd, int to_odd) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  uint64_t g;
  if (lfd < 0)
    return 0;
  /* Anyone who may write P.lock may have cut or garbled it since the lock
   * was taken: then a fresh header (a new instance) is bumped. */
  if (pread_all(lfd, h, sizeof h, 0) != 0 || !olc_persist__gen_header_valid(h)) {
    olc_persist__gen_header_init(h);
    memcpy(&g, h + OLC_PERSIST__GEN_OFFSET, sizeof g);
    g = to_odd ? olc_persist__gen_next_odd(g) : olc_persist__gen_next_even(g);
    memcpy(h + OLC_PERSIST__GEN_OFFSET, &g, sizeof g);
    return pwrite_all(lfd, h, sizeof h, 0);
  }
  memcpy(&g, h + OLC_PERSIST__GEN_OFFSET, sizeof g);
  g = to_odd ? olc_persist__gen_next_odd(g) : olc_persist__gen_next_even(g);
  memcpy(h, &g, sizeof g);
  return pwrite_all(lfd, h, sizeof g, OLC_PERSIST__GEN_OFFSET);
}

int olc_posix__gen_get(int lfd, uint64_t *gen, uint64_t *instance) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  if (lfd < 0 || pread_all(lfd, h, sizeof h, 0) != 0 || !olc_persist__gen_header_valid(h))
    return -1;
  memcpy(gen, h + OLC_PERSIST__GEN_OFFSET, sizeof *gen);
  memcpy(instance, h + OLC_PERSIST__GEN_INSTANCE, sizeof *instance);
  return 0;
}

int olc_persist__gen_open_read(olc_persist_gen_src *src, olc_file_id *id, const char *lock_path) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  struct stat st;
  int fd, ok = 0;
  src->fd = -1;
  src->base = NULL;
  src->handle = NULL;
  /* Closing any descriptor of P.lock drops every classic fcntl lock this
   * process holds on it (the fallback without OFD locks): never while a
   * writer of this process may hold one.  Busy: try at the next recheck. */
  if (!olc_posix__mutex_trylock())
    return -1;
  /* O_NOFOLLOW: a symlink planted at P.lock is never read. */
  fd = OLC_FS(open(lock_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd >= 0 && OLC_FS(fstat(fd, &st)) == 0 && S_ISREG(st.st_mode) &&
      pread_all(fd, h, sizeof h, 0) == 0 && olc_persist__gen_header_valid(h))
    ok = 1;
  if (!ok && fd >= 0)
    OLC_FS(close(fd));
  olc_posix__mutex_unlock();
  if (!ok)
    return -1; /* none yet, not a file, or no writer has initialized it */
  olc_posix__id_from_stat(id, &st);
  memcpy(&src->instance, h + OLC_PERSIST__GEN_INSTANCE, sizeof src->instance);
  src->fd = fd;
  return 0;
}

int olc_persist__gen_read(const olc_persist_gen_src *src, uint64_t *gen) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  uint64_t inst;
  if (src->fd < 0 || pread_all((int)src->fd, h, sizeof h, 0) != 0 ||
      !olc_persist__gen_header_valid(h))
    return -1; /* cut short or garbled since it was opened */
  memcpy(&inst, h + OLC_PERSIST__GEN_INSTANCE, sizeof inst);
  if (inst != src->instance)
    return -1; /* re-initialized: another count */
  memcpy(gen, h + OLC_PERSIST__GEN_OFFSET, sizeof *gen);
  return 0;
}

void olc_persist__gen_close_read(olc_persist_gen_src *src) {
  if (src->fd < 0)
    return;
  olc_posix__mutex_lock(); /* see olc_persist__gen_open_read */
  OLC_FS(close((int)src->fd));
  olc_posix__mutex_unlock();
  src->fd = -1;
}
