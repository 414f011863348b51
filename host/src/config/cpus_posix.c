/*
 * config/cpus_posix.c - how many CPUs this process may use: the affinity
 * mask, capped by a cgroup CPU quota (containers and systemd slices limit
 * bandwidth that way without touching the affinity mask).
 */
#include "config/config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t olc_config__affinity_cpus(void) {
  /* A fixed cpu_set_t covers 1024 CPUs; grow it when the kernel says the
   * mask is bigger (EINVAL). */
  int ncpus = 1024;
  while (ncpus <= (1 << 20)) {
    size_t size = CPU_ALLOC_SIZE((size_t)ncpus);
    cpu_set_t *set = CPU_ALLOC((size_t)ncpus);
    int count;
    if (set == NULL)
      break;
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      count = CPU_COUNT_S(size, set);
      CPU_FREE(set);
      return count > 0 ? (uint32_t)count : 1u;
    }
    CPU_FREE(set);
    if (errno != EINVAL)
      break;
    ncpus *= 2;
  }
  {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < (long)UINT32_MAX ? (uint32_t)n : 1u;
  }
}

/* Reads a small file into buf; 0 when missing or unreadable. */
static int read_small(char *buf, size_t size, const char *path) {
  FILE *f = fopen(path, "r");
  size_t n;
  if (f == NULL)
    return 0;
  n = fread(buf, 1, size - 1, f);
  fclose(f);
  buf[n] = 0;
  return n > 0;
}

static uint32_t quota_cpus(long long quota, long long period) {
  long long n;
  if (quota <= 0 || period <= 0)
    return 0;
  n = (quota + period - 1) / period;
  return n > (long long)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* cgroup v2: "max 100000" (no limit) or "<quota> <period>". */
static uint32_t v2_limit(const char *dir) {
  char path[PATH_MAX], buf[128];
  long long quota, period;
  snprintf(path, sizeof path, "%s/cpu.max", dir);
  if (!read_small(buf, sizeof buf, path))
    return 0;
  if (sscanf(buf, "%lld %lld", &quota, &period) != 2)
    return 0;
  return quota_cpus(quota, period);
}

/* cgroup v1: cpu.cfs_quota_us (-1: no limit) and cpu.cfs_period_us. */
static uint32_t v1_limit(const char *dir) {
  char path[PATH_MAX], buf[64];
  long long quota, period;
  snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
  if (!read_small(buf, sizeof buf, path) || sscanf(buf, "%lld", &quota) != 1)
    return 0;
  snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
  if (!read_small(buf, sizeof buf, path) || sscanf(buf, "%lld", &period) != 1)
    return 0;
  return quota_cpus(quota, period);
}

static uint32_t min_limit(uint32_t a, uint32_t b) {
  if (a == 0)
    return b;
  if (b == 0)
    return a;
  return a < b ? a : b;
}

/*
 * Checks mount/cgpath and each parent up to mount itself.  Inside a
 * container the path in /proc/self/cgroup often does not exist under the
 * mount (the container's own cgroup is mounted as the root), so missing
 * levels are simply skipped.
 */
static uint32_t walk_limit(const char *mount, const char *cgpath, int v2) {
  char dir[PATH_MAX];
  uint32_t limit = 0;
  size_t mlen;
  int n = snprintf(dir, sizeof dir, "%s%s", mount, cgpath);
  if (n < 0 || (size_t)n >= sizeof dir)
    return 0;
  mlen = strlen(mount);
  for (;;) {
    size_t len = strlen(dir);
    char *slash;
    while (len > mlen && dir[len - 1] == '/')
      dir[--len] = 0;
    limit = min_limit(limit, v2 ? v2_limit(dir) : v1_limit(dir));
    if (len <= mlen)
      break;
    slash = strrchr(dir + mlen, '/');
    if (slash == NULL)
      dir[mlen] = 0;
    else
      *slash = 0;
  }
  return limit;
}

/* 1 when the comma-separated controller list contains "cpu". */
static int has_cpu_controller(const char *list, size_t len) {
  size_t i = 0;
  while (i < len) {
    size_t j = i;
    while (j < len && list[j] != ',')
      j++;
    if (j - i == 3 && memcmp(list + i, "cpu", 3) == 0)
      return 1;
    i = j + 1;
  }
  return 0;
}

uint32_t olc_config__cgroup_cpu_limit(const char *cgroup_text, const char *root) {
  const char *line = cgroup_text;
  uint32_t limit = 0;
  char mount[PATH_MAX], cgpath[PATH_MAX];
  while (line != NULL && *line != 0) {
    const char *end = strchr(line, '\n');
    const char *c1 = strchr(line, ':');
    const char *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
    size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
    if (c1 != NULL && c2 != NULL && c2 < line + len) {
      size_t plen = (size_t)(line + len - (c2 + 1));
      size_t clen = (size_t)(c2 - (c1 + 1));
      if (plen < sizeof cgpath) {
        memcpy(cgpath, c2 + 1, plen);
        cgpath[plen] = 0;
        if (c1 - line == 1 && line[0] == '0' && clen == 0) {
          /* v2: one unified hierarchy. */
          snprintf(mount, sizeof mount, "%s/sys/fs/cgroup", root);
          limit = min_limit(limit, walk_limit(mount, cgpath, 1));
        } else if (has_cpu_controller(c1 + 1, clen)) {
          /* v1: mounted under the joined controller names ("cpu,cpuacct"),
           * often with a "cpu" alias. */
          int n = snprintf(mount, sizeof mount, "%s/sys/fs/cgroup/%.*s", root, (int)clen, c1 + 1);
          if (n > 0 && (size_t)n < sizeof mount && access(mount, F_OK) != 0)
            snprintf(mount, sizeof mount, "%s/sys/fs/cgroup/cpu", root);
          limit = min_limit(limit, walk_limit(mount, cgpath, 0));
        }
      }
    }
    line = end != NULL ? end + 1 : NULL;
  }
  return limit;
}

uint32_t olc_config__available_cpus(void) {
  char text[4096];
  uint32_t cpus = olc_config__affinity_cpus();
  uint32_t limit = 0;
  if (read_small(text, sizeof text, "/proc/self/cgroup"))
    limit = olc_config__cgroup_cpu_limit(text, "");
  if (limit != 0 && limit < cpus)
    cpus = limit;
  return cpus > 0 ? cpus : 1u;
}
