/*
 * persist/gen_posix.c - mapping the generation counter of P.lock on POSIX
 * (persist.h, "change detection without a system call"): writable by writers under the lock,
 * read-only by readers.
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

void *olc_posix__gen_open(int lfd) {
  struct stat st;
  void *base;
  if (lfd < 0)
    return NULL; /* negative control without a lock: no counter either */
  if (OLC_FS(fstat(lfd, &st)) != 0 || !S_ISREG(st.st_mode))
    return NULL;
  /* Only ever grown, under the lock, and only while no reader can have it
   * mapped (readers map a file of at least OLC_PERSIST__GEN_SIZE bytes). */
  if (st.st_size < (off_t)OLC_PERSIST__GEN_SIZE &&
      OLC_FS(ftruncate(lfd, (off_t)OLC_PERSIST__GEN_SIZE)) != 0)
    return NULL;
  base = OLC_FS(mmap(NULL, OLC_PERSIST__GEN_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 0));
  if (base == MAP_FAILED)
    return NULL;
  olc_persist__gen_init(base);
  return base;
}

void olc_posix__gen_close(void *base) {
  if (base != NULL)
    OLC_FS(munmap(base, OLC_PERSIST__GEN_SIZE));
}

int olc_persist__gen_map_read(const void **base, void **handle, olc_file_id *id,
                              const char *lock_path) {
  struct stat st;
  void *p;
  int fd;
  *base = NULL;
  *handle = NULL;
  /* Closing any descriptor of P.lock drops every classic fcntl lock this
   * process holds on it (the fallback without OFD locks): never while a
   * writer of this process may hold one.  Busy: try at the next recheck. */
  if (!olc_posix__mutex_trylock())
    return -1;
  /* O_NOFOLLOW: a symlink planted at P.lock is never mapped. */
  fd = OLC_FS(open(lock_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  p = MAP_FAILED;
  if (fd >= 0 && OLC_FS(fstat(fd, &st)) == 0 && S_ISREG(st.st_mode) &&
      st.st_size >= (off_t)OLC_PERSIST__GEN_SIZE)
    p = OLC_FS(mmap(NULL, OLC_PERSIST__GEN_SIZE, PROT_READ, MAP_SHARED, fd, 0));
  if (fd >= 0)
    OLC_FS(close(fd)); /* the mapping keeps the file */
  olc_posix__mutex_unlock();
  if (p == MAP_FAILED)
    return -1;
  if (!olc_persist__gen_valid(p)) {
    OLC_FS(munmap(p, OLC_PERSIST__GEN_SIZE));
    return -1; /* no writer has initialized it yet */
  }
  olc_posix__id_from_stat(id, &st);
  *base = p;
  return 0;
}

void olc_persist__gen_unmap(const void *base, void *handle) {
  (void)handle;
  if (base != NULL)
    OLC_FS(munmap((void *)(uintptr_t)base, OLC_PERSIST__GEN_SIZE));
}
