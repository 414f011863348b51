/*
 * persist/fs_posix.c - what the file system under a store allows, found
 * without writing anything: statvfs (a read-only mount), access(W_OK) on
 * the directory and the file, and the file system's type from statfs and
 * /proc/self/mountinfo (network file systems: persist.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#endif

#include "persist/posix_int.h"
#include "util/error.h"

#define FS_MOUNTINFO_LINE 8192

#if defined(__linux__)
/* The statfs magic numbers of network file systems (FUSE, 0x65735546, is
 * decided by its subtype from mountinfo), and of the common local ones, so
 * that the type has a name where mountinfo does not show the mount (a
 * chroot, some containers). */
static const char *magic_name(unsigned long magic) {
  static const struct {
    unsigned long magic;
    const char *name;
  } known[] = {
      {0x6969ul, "nfs"},         {0x517bul, "smb"},       {0xff534d42ul, "cifs"},
      {0xfe534d42ul, "smb2"},    {0x01021997ul, "9p"},    {0x00c36400ul, "ceph"},
      {0x5346414ful, "afs"},     {0x73757245ul, "coda"},  {0x0bd00bd0ul, "lustre"},
      {0x564cul, "ncpfs"},       {0x65735546ul, "fuse"},  {0xef53ul, "ext2/ext3/ext4"},
      {0x58465342ul, "xfs"},     {0x9123683eul, "btrfs"}, {0x01021994ul, "tmpfs"},
      {0x794c7630ul, "overlay"}, {0x2fc12fc1ul, "zfs"},   {0xf2f52010ul, "f2fs"},
      {0x858458f6ul, "ramfs"},   {0x4d44ul, "vfat"},      {0x2011bab0ul, "exfat"},
  };
  size_t i;
  for (i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i].magic == magic)
      return known[i].name;
  return NULL;
}

/* Reads the file-system type ("ext4", "fuse.sshfs") of the mount that
 * holds dir (device dev) from /proc/self/mountinfo: of the lines with the
 * device's major:minor, the one whose mount point is the longest prefix
 * of dir (bind mounts share a device). */
static void mountinfo_type(char *type, size_t size, const char *dir, dev_t dev) {
  char line[FS_MOUNTINFO_LINE], want[32];
  size_t best = 0;
  int found = 0;
  FILE *f = (olc_persist__count(), fopen("/proc/self/mountinfo", "re"));
  if (f == NULL)
    return;
  snprintf(want, sizeof want, "%u:%u", major(dev), minor(dev));
  while (fgets(line, sizeof line, f) != NULL) {
    char id[32], mnt[4096], fstype[64];
    const char *sep = strstr(line, " - ");
    size_t n;
    /* id parent maj:min root mount-point ... - fstype source options */
    if (sep == NULL || sscanf(line, "%*s %*s %31s %*s %4095s", id, mnt) != 2 ||
        strcmp(id, want) != 0 || sscanf(sep + 3, "%63s", fstype) != 1)
      continue;
    n = strlen(mnt);
    if (strncmp(dir, mnt, n) == 0 && (dir[n] == '/' || dir[n] == 0 || n == 1)) {
      if (found && n <= best)
        continue;
      best = n;
    } else if (found) {
      continue;
    }
    found = 1;
    snprintf(type, size, "%s", fstype);
  }
  fclose(f);
}
#endif

/* The nearest existing ancestor directory of path's directory (the writer
 * creates the missing ones), malloc'ed. */
static olc_status existing_dir(char **out, const char *path, olc_error *err) {
  const char *base;
  char *dir;
  struct stat st;
  olc_status s = olc_persist__split(&dir, &base, path, err);
  if (s != OLC_OK)
    return s;
  for (;;) {
    char *slash;
    if (OLC_FS(stat(dir, &st)) == 0 || strcmp(dir, "/") == 0 || strcmp(dir, ".") == 0)
      break;
    slash = strrchr(dir, '/');
    if (slash == NULL)
      snprintf(dir, 2, ".");
    else if (slash == dir)
      dir[1] = 0;
    else
      *slash = 0;
  }
  *out = dir;
  return OLC_OK;
}

static void probe_type(olc_persist_fs *out, const char *dir) {
  const char *hooked = olc_persist__hook_fs_type();
#if defined(__linux__)
  struct statfs fs;
  struct stat st;
  if (OLC_FS(statfs(dir, &fs)) == 0) {
    const char *name = magic_name((unsigned long)fs.f_type);
    if (name != NULL)
      snprintf(out->type, sizeof out->type, "%s", name);
  }
  if (OLC_FS(stat(dir, &st)) == 0) {
    char real[4096];
    const char *at = OLC_FS(realpath(dir, real)) != NULL ? real : dir;
    mountinfo_type(out->type, sizeof out->type, at, st.st_dev);
  }
#else
  (void)dir;
#endif
  if (hooked != NULL)
    snprintf(out->type, sizeof out->type, "%s", hooked);
  out->network = olc_persist__fs_type_is_network(out->type);
}

/* A writer opens P.lock for writing: one that exists must allow it. */
static int lock_writable(const char *path) {
  size_t n = strlen(path);
  char *lock = malloc(n + 6);
  int ok = 1;
  if (lock == NULL)
    return 1; /* cannot tell: the write will say */
  memcpy(lock, path, n);
  memcpy(lock + n, ".lock", 6);
  if (OLC_FS(access(lock, F_OK)) == 0)
    ok = OLC_FS(access(lock, W_OK)) == 0;
  free(lock);
  return ok;
}

olc_status olc_persist__fs_probe(olc_persist_fs *out, const char *path, olc_error *err) {
  struct statvfs vfs;
  char *dir = NULL;
  olc_status st;
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "fs", "no output or no path");
  memset(out, 0, sizeof *out);
  st = existing_dir(&dir, path, err);
  if (st != OLC_OK)
    return st;
  if (OLC_FS(statvfs(dir, &vfs)) == 0)
    out->read_only = (vfs.f_flag & ST_RDONLY) != 0;
  out->dir_writable = OLC_FS(access(dir, W_OK | X_OK)) == 0;
  out->dir_errno = out->dir_writable ? 0 : errno;
  out->file_exists = OLC_FS(access(path, F_OK)) == 0;
  out->file_writable = !out->file_exists || OLC_FS(access(path, W_OK)) == 0;
  out->file_errno = out->file_writable ? 0 : errno;
  out->lock_writable = lock_writable(path);
  snprintf(out->dir, sizeof out->dir, "%s", dir);
  probe_type(out, dir);
  free(dir);
  return OLC_OK;
}
