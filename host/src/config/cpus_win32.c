/*
 * config/cpus_win32.c - how many CPUs this process may use on Windows: the
 * process affinity mask of its processor group (job-object CPU rate
 * limits are not read).  There are no cgroups.
 */
#include "config/config.h"

#include <windows.h>

uint32_t olc_config__affinity_cpus(void) {
  DWORD_PTR process = 0, system = 0;
  uint32_t n = 0;
  if (GetProcessAffinityMask(GetCurrentProcess(), &process, &system)) {
    for (; process != 0; process &= process - 1)
      n++;
  }
  if (n == 0) {
    DWORD active = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    n = active > 0 ? (uint32_t)active : 1u;
  }
  return n;
}

uint32_t olc_config__cgroup_cpu_limit(const char *cgroup_text, const char *root) {
  (void)cgroup_text;
  (void)root;
  return 0;
}

uint32_t olc_config__available_cpus(void) { return olc_config__affinity_cpus(); }
