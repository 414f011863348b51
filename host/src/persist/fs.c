/*
 * persist/fs.c - which mount types are network file systems (persist.h),
 * shared by the POSIX and Windows probes.
 */
#include <string.h>

#include "persist/persist_int.h"

int olc_persist__fs_type_is_network(const char *type) {
  static const char *const network[] = {"nfs",       "nfs4", "smb",   "smb2",  "smb3",    "cifs",
                                        "9p",        "ceph", "afs",   "coda",  "lustre",  "ncpfs",
                                        "glusterfs", "gfs2", "ocfs2", "davfs", "orangefs"};
  /* FUSE subtypes that reach another machine; every other FUSE file
   * system (fuse-overlayfs, lxcfs, bindfs, ...) is taken as local. */
  static const char *const network_fuse[] = {
      "sshfs",     "rclone",   "s3fs",      "gcsfuse",     "goofys", "glusterfs",
      "ceph-fuse", "juicefs",  "curlftpfs", "smbnetfs",    "davfs",  "davfs2",
      "afpfs",     "fuse-nfs", "mfs",       "moosefs",     "cvmfs",  "blobfuse",
      "blobfuse2", "lizardfs", "seaweedfs", "alluxio-fuse"};
  size_t i;
  if (type == NULL || type[0] == 0)
    return 0;
  if (strncmp(type, "fuse.", 5) == 0 || strncmp(type, "fuseblk.", 8) == 0) {
    const char *sub = strchr(type, '.') + 1;
    for (i = 0; i < sizeof network_fuse / sizeof network_fuse[0]; i++)
      if (strcmp(sub, network_fuse[i]) == 0)
        return 1;
    return 0;
  }
  for (i = 0; i < sizeof network / sizeof network[0]; i++)
    if (strcmp(type, network[i]) == 0)
      return 1;
  return 0;
}
