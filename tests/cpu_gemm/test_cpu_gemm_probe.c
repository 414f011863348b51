/*
 * test_cpu_gemm_probe.c - the CPUID cache probe against the kernel's view
 * in /sys/devices/system/cpu/cpu0/cache (the test may read files; the
 * plugin may not).  Skipped (77) where sysfs has no cache description.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "test_support.h"

#define SYS_CACHE "/sys/devices/system/cpu/cpu0/cache"

static int read_text(const char *dir, const char *name, char *out, size_t cap) {
  char path[256];
  FILE *f;
  size_t n;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "r");
  if (f == NULL)
    return -1;
  n = fread(out, 1, cap - 1, f);
  fclose(f);
  out[n] = '\0';
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
    out[--n] = '\0';
  return 0;
}

/* "32K", "1024K", "32768K", "8M" -> bytes */
static unsigned long long parse_size(const char *s) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end == 'K')
    v <<= 10;
  else if (*end == 'M')
    v <<= 20;
  return v;
}

static unsigned count_cpus(const char *list) {
  /* "0-1,4,6-7" */
  unsigned count = 0;
  const char *p = list;
  while (*p) {
    char *end;
    unsigned long a = strtoul(p, &end, 10), b = a;
    if (end == p)
      break;
    if (*end == '-')
      b = strtoul(end + 1, &end, 10);
    count += (unsigned)(b - a + 1);
    p = *end == ',' ? end + 1 : end;
  }
  return count;
}

static unsigned compared;

static void test_probe_matches_sysfs(void) {
  cg_cpu cpu;
  cg_probe(&cpu);
  for (int idx = 0; idx < 16; idx++) {
    char dir[128], level[16], type[32], size[32], ways[16], line[16], shared[256];
    unsigned lv, ty;
    const cg_cache *match = NULL;
    snprintf(dir, sizeof(dir), SYS_CACHE "/index%d", idx);
    if (read_text(dir, "level", level, sizeof(level)) != 0)
      break;
    if (read_text(dir, "type", type, sizeof(type)) != 0 ||
        read_text(dir, "size", size, sizeof(size)) != 0)
      continue;
    lv = (unsigned)atoi(level);
    ty = strcmp(type, "Data") == 0          ? CG_CACHE_DATA
         : strcmp(type, "Instruction") == 0 ? CG_CACHE_INSTRUCTION
                                            : CG_CACHE_UNIFIED;
    for (uint32_t i = 0; i < cpu.cache_count; i++) {
      if (cpu.caches[i].level == lv && cpu.caches[i].type == ty)
        match = &cpu.caches[i];
    }
    fprintf(stderr, "sysfs L%u %s %s | probe %s\n", lv, type, size,
            match != NULL ? "found" : "missing");
    CU_ASSERT_PTR_NOT_NULL_FATAL(match);
    CU_ASSERT_EQUAL(match->size, parse_size(size));
    if (read_text(dir, "ways_of_associativity", ways, sizeof(ways)) == 0 && atoi(ways) > 0)
      CU_ASSERT_EQUAL(match->ways, (uint32_t)atoi(ways));
    if (read_text(dir, "coherency_line_size", line, sizeof(line)) == 0)
      CU_ASSERT_EQUAL(match->line, (uint32_t)atoi(line));
    /* sysfs lists only the CPUs this guest has, CPUID the sharing the
     * topology allows: the probe may say more, never fewer. */
    if (read_text(dir, "shared_cpu_list", shared, sizeof(shared)) == 0)
      CU_ASSERT(match->sharing >= count_cpus(shared));
    compared++;
  }
  CU_ASSERT(compared > 0);
}

int main(int argc, char **argv) {
  char probe_level[16];
  CU_pSuite s;
#if !(defined(__x86_64__) || defined(__i386__))
  fprintf(stderr, "not x86: the CPUID probe is not used here; skipped\n");
  return 77;
#endif
  if (read_text(SYS_CACHE "/index0", "level", probe_level, sizeof(probe_level)) != 0) {
    fprintf(stderr, "no %s: skipped\n", SYS_CACHE);
    return 77;
  }
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_probe", NULL, NULL);
  CU_add_test(s, "probe_matches_sysfs", test_probe_matches_sysfs);
  return olc_test_run(argc, argv);
}
