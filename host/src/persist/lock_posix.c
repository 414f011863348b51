/*
 * persist/lock_posix.c - directory, lock, read and GC helpers of the POSIX
 * write path (docs/durability.md W1, W2, W3, W5, W13).
 */
#include "persist/posix_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/platform.h"

static olc_util_mutex writer_mutex = OLC_UTIL_MUTEX_INIT;
/* This thread holds writer_mutex (a fork from inside a transform must not
 * wait for it); and whether the fork handlers took it. */
static _Thread_local int holds_writer_mutex;
static int fork_took_mutex;

void olc_posix__mutex_lock(void) {
  olc_util__mutex_lock(&writer_mutex);
  holds_writer_mutex = 1;
}
void olc_posix__mutex_unlock(void) {
  holds_writer_mutex = 0;
  olc_util__mutex_unlock(&writer_mutex);
}
int olc_posix__mutex_trylock(void) {
  if (!olc_util__mutex_trylock(&writer_mutex))
    return 0;
  holds_writer_mutex = 1;
  return 1;
}

/* Every locked write holds writer_mutex from before P.lock is opened until
 * after it is closed: holding it across fork() means no child inherits a
 * held lock (an OFD lock lives as long as any copy of its descriptor) nor
 * a locked mutex.  A fork from the writing thread itself (a transform that
 * forks and execs) keeps its O_CLOEXEC descriptors. */
void olc_persist__fork_prepare(void) {
  fork_took_mutex = !holds_writer_mutex;
  if (fork_took_mutex)
    olc_util__mutex_lock(&writer_mutex);
}

void olc_persist__fork_done(void) {
  if (fork_took_mutex)
    olc_util__mutex_unlock(&writer_mutex);
  fork_took_mutex = 0;
}

/* mkdir -p with mode 0700: creates the parent first when it is missing. */
static int mkdir_p(char *dir) {
  size_t n;
  char *slash;
  if (OLC_FS(mkdir(dir, 0700)) == 0 || errno == EEXIST)
    return 0;
  if (errno != ENOENT)
    return -1;
  slash = strrchr(dir, '/');
  if (slash == NULL || slash == dir)
    return -1;
  n = (size_t)(slash - dir);
  *slash = 0;
  if (mkdir_p(dir) != 0) {
    *slash = '/';
    return -1;
  }
  *slash = '/';
  (void)n;
  if (OLC_FS(mkdir(dir, 0700)) == 0 || errno == EEXIST)
    return 0;
  return -1;
}

olc_status olc_posix__open_dir(int *dfd, const char *dir, int create, olc_error *err) {
  int e = olc_persist__hook_fail(OLC_STEP_MKDIR);
  *dfd = -1;
  if (e == 0) {
    *dfd = OLC_FS(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    e = *dfd < 0 ? errno : 0;
    if (e == ENOENT && create) {
      char *copy = strdup(dir);
      if (copy == NULL)
        return olc_error__set(err, OLC_E_NOMEM, "mkdir", "out of memory for '%s'", dir);
      e = mkdir_p(copy) == 0 ? 0 : errno;
      free(copy);
      if (e == 0) {
        *dfd = OLC_FS(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        e = *dfd < 0 ? errno : 0;
      }
    }
  }
  if (e == ENOENT && !create)
    return olc_error__sys(err, OLC_E_NOT_FOUND, e, "mkdir", "no directory '%s'", dir);
  if (e != 0)
    return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "mkdir",
                          "cannot open or create directory '%s'", dir);
  olc_persist__hook_crash(OLC_STEP_MKDIR);
  return OLC_OK;
}

int olc_posix__setlk(int fd, int wait, int *ofd) {
  for (;;) {
    struct flock fl;
    int cmd;
    memset(&fl, 0, sizeof fl); /* l_pid must be 0 for OFD locks */
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (*ofd)
      cmd = wait ? F_OFD_SETLKW : F_OFD_SETLK;
    else
      cmd = wait ? F_SETLKW : F_SETLK;
    if (OLC_FS(fcntl(fd, cmd, &fl)) == 0)
      return 0;
    if (errno == EINTR)
      continue;
    if (errno == EINVAL && *ofd) {
      *ofd = 0; /* kernel without OFD locks (< 3.15, not Linux) */
      continue;
    }
    if (errno == EAGAIN || errno == EACCES || errno == EWOULDBLOCK)
      return EAGAIN;
    return errno;
  }
}

static olc_status acquire(int lfd, const char *path, int64_t timeout_ms, olc_error *err) {
  int ofd = !olc_persist__hook_disabled(OLC_PERSIST__SAFETY_CLASSIC);
  int64_t start = olc_util__now_ms();
  int64_t delay = 1;
  for (;;) {
    int e = olc_persist__hook_fail(OLC_STEP_LOCK);
    if (e == 0)
      e = olc_posix__setlk(lfd, timeout_ms < 0, &ofd);
    if (e == 0)
      return OLC_OK;
    if (e == EAGAIN || e == EACCES || e == EWOULDBLOCK) {
      olc_status busy = olc_persist__lock_busy(timeout_ms, start, &delay, path, err);
      if (busy != OLC_OK)
        return busy;
      continue;
    }
    return olc_error__sys(err, OLC_E_LOCK, e, "lock", "cannot lock '%s.lock'", path);
  }
}

int olc_posix__lock_current(int lfd, int dfd, const char *base) {
  char name[4096];
  struct stat held, named;
  if (lfd < 0 || olc_persist__hook_disabled(OLC_PERSIST__SAFETY_RELOCK))
    return 1; /* negative controls: no lock, or no check of it */
  if ((size_t)snprintf(name, sizeof name, "%s.lock", base) >= sizeof name)
    return 0;
  return OLC_FS(fstat(lfd, &held)) == 0 &&
         OLC_FS(fstatat(dfd, name, &named, AT_SYMLINK_NOFOLLOW)) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

static olc_status open_lock(int *lfd, int dfd, const char *name, const char *path, uint32_t mode,
                            olc_error *err) {
  int e = olc_persist__hook_fail(OLC_STEP_LOCK_OPEN);
  if (e == 0) {
    *lfd = OLC_FS(openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode));
    e = *lfd < 0 ? errno : 0;
  }
  if (e != 0)
    return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, "lock-open",
                          "cannot open the lock file '%s.lock'", path);
  olc_persist__hook_crash(OLC_STEP_LOCK_OPEN);
  return OLC_OK;
}

olc_status olc_posix__lock(int *lfd, int dfd, const char *base, const char *path, uint32_t mode,
                           int64_t timeout_ms, olc_error *err) {
  char name[4096];
  int64_t start = olc_util__now_ms();
  olc_status st;
  int tries;
  *lfd = -1;
  if (olc_persist__hook_disabled(OLC_SAFETY_LOCK))
    return OLC_OK; /* negative control: no lock at all */
  if ((size_t)snprintf(name, sizeof name, "%s.lock", base) >= sizeof name)
    return olc_error__set(err, OLC_E_INVALID, "lock-open", "file name too long: '%s'", path);
  for (tries = 0; tries < OLC_PERSIST__LOCK_TRIES; tries++) {
    int64_t left = timeout_ms;
    if (timeout_ms >= 0) {
      left = timeout_ms - (olc_util__now_ms() - start);
      if (left < 0)
        left = 0;
    }
    st = open_lock(lfd, dfd, name, path, mode, err);
    if (st == OLC_OK)
      st = acquire(*lfd, path, left, err);
    if (st == OLC_OK && olc_posix__lock_current(*lfd, dfd, base)) {
      olc_persist__hook_crash(OLC_STEP_LOCK);
      return OLC_OK;
    }
    if (*lfd >= 0)
      OLC_FS(close(*lfd));
    *lfd = -1;
    if (st != OLC_OK)
      return st;
    /* A lock on a file that no longer has the name excludes nobody: whoever
     * opens P.lock now gets another inode.  Lock the one named P.lock. */
  }
  return olc_error__set(err, OLC_E_LOCK, "lock", "the lock file '%s.lock' keeps being replaced",
                        path);
}

void olc_posix__unlock(int lfd) {
  if (lfd >= 0) {
    /* No explicit F_UNLCK: close() drops the OFD lock (and the classic one)
     * atomically, and an unlock failure could not be acted upon anyway. */
    OLC_FS(close(lfd));
  }
  olc_persist__hook_crash(OLC_STEP_UNLOCK);
}

olc_status olc_posix__read_fd(olc_buf *out, struct stat *st, int fd, size_t max, const char *path,
                              const char *where, olc_error *err) {
  size_t cap;
  olc_status s;
  if (OLC_FS(fstat(fd, st)) != 0)
    return olc_error__sys(err, OLC_E_IO, errno, where, "cannot stat '%s'", path);
  if (!S_ISREG(st->st_mode))
    return olc_error__sys(err, OLC_E_IO, EINVAL, where, "'%s' is not a regular file", path);
  if (max != 0 && (uint64_t)st->st_size > (uint64_t)max)
    return olc_error__set(err, OLC_E_LIMIT, where, "'%s' is larger than %zu bytes", path, max);
  cap = (size_t)st->st_size + 1; /* +1: EOF is seen without growing */
  for (;;) {
    ssize_t r;
    s = olc_buf__reserve(out, cap);
    if (s != OLC_OK)
      return olc_error__set(err, s, where, "cannot hold '%s' in memory", path);
    r = OLC_FS(read(fd, out->data + out->len, cap));
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return olc_error__sys(err, olc_persist__errno_status(errno, OLC_E_IO), errno, where,
                            "cannot read '%s'", path);
    }
    if (r == 0)
      return OLC_OK;
    out->len += (size_t)r;
    if (max != 0 && out->len > max)
      return olc_error__set(err, OLC_E_LIMIT, where, "'%s' is larger than %zu bytes", path, max);
    cap = 4096; /* the file grew (a negative-control in-place writer) */
  }
}

/* FNV-1a over the bytes of s. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211u;
  }
  return h;
}

static olc_util_once tag_once = OLC_UTIL_ONCE_INIT;
static char ns_tag[OLC_PERSIST__TAG_LEN + 1];

/* This boot's id and this process's pid namespace: a pid in a temporary's
 * name means something here only when both are the same. */
static void make_tag(void) {
  char boot[64];
  struct stat st;
  uint64_t h = 14695981039346656037u;
  ssize_t n = -1;
  int fd = OLC_FS(open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC));
  if (fd >= 0) {
    n = OLC_FS(read(fd, boot, sizeof boot));
    OLC_FS(close(fd));
  }
  if (n <= 0 || OLC_FS(stat("/proc/self/ns/pid", &st)) != 0)
    return; /* unknown: temporaries get no tag, dead writers wait for the grace */
  h = fnv1a(h, boot, (size_t)n);
  h = fnv1a(h, (const char *)&st.st_dev, sizeof st.st_dev);
  h = fnv1a(h, (const char *)&st.st_ino, sizeof st.st_ino);
  snprintf(ns_tag, sizeof ns_tag, "%06x", (unsigned)(h >> 40));
}

const char *olc_posix__ns_tag(void) {
  olc_util__once(&tag_once, make_tag);
  return ns_tag;
}

/* Network and cluster file systems: a pid in a name there may be another
 * host's. */
static int local_fs(int dfd) {
  static const unsigned long remote[] = {
      0x6969ul,     /* NFS */
      0x517bul,     /* SMB */
      0xff534d42ul, /* CIFS */
      0xfe534d42ul, /* SMB2 */
      0x00c36400ul, /* Ceph */
      0x5346414ful, /* AFS */
      0x73757245ul, /* Coda */
      0x01021997ul, /* 9P */
      0x65735546ul, /* FUSE (may be anything) */
      0x0bd00bd0ul, /* Lustre */
      0x01161970ul, /* GFS2 */
      0x7461636ful, /* OCFS2 */
      0x564cul,     /* NCP */
  };
  struct statfs fs;
  size_t i;
  if (OLC_FS(fstatfs(dfd, &fs)) != 0)
    return 0;
  for (i = 0; i < sizeof remote / sizeof remote[0]; i++)
    if ((unsigned long)fs.f_type == remote[i])
      return 0;
  return 1;
}

/* 1 when the temporary's writer is gone: its name carries this boot's and
 * pid namespace's tag, and no process has its pid, or the pid is ours (this
 * process creates and removes its temporaries under the writer mutex, which
 * the caller holds: one of ours is an earlier write's that could not be
 * removed). */
static int writer_gone(const char *name, const char *base) {
  const char *tag = olc_posix__ns_tag(), *p = name + strlen(base) + 1;
  long pid = 0;
  if (tag[0] == 0)
    return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    pid = pid * 10 + (*p - '0');
    if (pid > INT_MAX)
      return 0;
  }
  if (pid <= 0 || strncmp(p + 1, tag, OLC_PERSIST__TAG_LEN) != 0)
    return 0;
  if ((pid_t)pid == getpid())
    return 1;
  return OLC_FS(kill((pid_t)pid, 0)) != 0 && errno == ESRCH;
}

void olc_posix__gc(int dfd, const char *base, uint32_t grace_seconds) {
  DIR *d;
  struct dirent *e;
  int fd, local;
  time_t now = time(NULL);
  if (olc_persist__hook_fail(OLC_STEP_GC) != 0)
    return; /* an injected GC failure is ignored like a real one */
  fd = OLC_FS(openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd < 0)
    return;
  d = fdopendir(fd);
  if (d == NULL) {
    OLC_FS(close(fd));
    return;
  }
  local = local_fs(dfd);
  for (;;) {
    struct stat st;
    errno = 0;
    e = OLC_FS(readdir(d));
    if (e == NULL)
      break;
    if (!olc_persist__is_tmp_name(e->d_name, base))
      continue;
    if (OLC_FS(fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) != 0 || !S_ISREG(st.st_mode))
      continue;
    /* A timestamp ahead of time() counts as age 0: the file system may
     * take it from a finer clock than time()'s (a temporary written in
     * the same second can look a second younger than now), or from a
     * server's.  So grace 0 removes every leftover, and a future file is
     * never taken for an old one.  A writer that is gone (we hold the
     * lock; its pid is of this pid namespace, on a local file system)
     * leaves nothing worth waiting for. */
    if ((now > st.st_mtime ? (uint64_t)(now - st.st_mtime) : 0u) >= grace_seconds ||
        (local && writer_gone(e->d_name, base)))
      OLC_FS(unlinkat(dfd, e->d_name, 0));
  }
  OLC_FS(closedir(d));
}

/* "Umask:\t0022" in /proc/self/status (Linux >= 4.7). */
static int umask_from_proc(mode_t *out) {
  char buf[4096];
  size_t len = 0;
  const char *p;
  int fd = OLC_FS(open("/proc/self/status", O_RDONLY | O_CLOEXEC));
  if (fd < 0)
    return -1;
  for (;;) {
    ssize_t r = OLC_FS(read(fd, buf + len, sizeof buf - 1 - len));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    len += (size_t)r;
    if (len == sizeof buf - 1)
      break;
  }
  OLC_FS(close(fd));
  buf[len] = 0;
  p = strstr(buf, "\nUmask:");
  if (p == NULL)
    return -1;
  p += 7;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p < '0' || *p > '7')
    return -1;
  *out = 0;
  while (*p >= '0' && *p <= '7')
    *out = (mode_t)((*out << 3) | (mode_t)(*p++ - '0'));
  *out &= 0777;
  return 0;
}

mode_t olc_posix__umask(void) {
  mode_t m;
  if (umask_from_proc(&m) == 0)
    return m;
  /* Fallback (no /proc): the classic read-by-setting, under the writer
   * mutex; a thread creating files at this instant could see umask 077. */
  m = umask(077);
  umask(m);
  return m;
}

void olc_posix__id_from_stat(olc_file_id *id, const struct stat *st) {
  id->exists = 1;
  id->dev = (uint64_t)st->st_dev;
  id->ino = (uint64_t)st->st_ino;
  id->size = (uint64_t)st->st_size;
  id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + (int64_t)st->st_mtim.tv_nsec;
}
