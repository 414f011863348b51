/*
 * probe.c - processor identity, ISA level and cache topology from CPUID.
 *
 * The per-level leaves (4 on Intel, 0x8000001D on AMD) are the source of
 * truth: under a hypervisor, glibc's sysconf and the legacy leaf 0x80000006
 * can report an L3 several times the size that 0x8000001D, sysfs and hwloc
 * agree on, and an L3 share sized from it would not fit the cache.
 * sysconf is only the fallback for processors without those leaves, and
 * every size is sanity-checked before it drives blocking.
 * No file is read: the plugin must not contain file-system code.
 */
#include "probe.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define CG_X86 1
#include <cpuid.h>
#else
#define CG_X86 0
#endif

const char *cg_isa_name(uint32_t isa) {
  switch (isa) {
  case CG_ISA_AVX512:
    return "avx512";
  case CG_ISA_AVX2:
    return "avx2";
  default:
    return "ref";
  }
}

int cg_probe__decode_cache(uint32_t eax, uint32_t ebx, uint32_t ecx, cg_cache *out) {
  uint32_t type = eax & 0x1fu;
  uint64_t line, parts, ways, sets;
  if (type == 0 || type > 3)
    return 0;
  line = (ebx & 0xfffu) + 1u;
  parts = ((ebx >> 12) & 0x3ffu) + 1u;
  ways = ((ebx >> 22) & 0x3ffu) + 1u;
  sets = (uint64_t)ecx + 1u;
  memset(out, 0, sizeof(*out));
  out->type = type;
  out->level = (eax >> 5) & 0x7u;
  out->size = line * parts * ways * sets;
  /* Bit 9: fully associative; the "ways" field is then meaningless. */
  out->ways = (eax & (1u << 9)) ? 0u : (uint32_t)ways;
  out->line = (uint32_t)line;
  out->sharing = ((eax >> 14) & 0xfffu) + 1u;
  return 1;
}

/* Plausible bounds per level; outside them a value is treated as bogus. */
static int probe_cache_plausible(const cg_cache *c) {
  static const uint64_t max_size[4] = {0, 4ull << 20, 256ull << 20, 2048ull << 20};
  if (c->level < 1 || c->level > 3 || c->size < 1024 || c->size > max_size[c->level])
    return 0;
  if (c->line < 16 || c->line > 512 || (c->line & (c->line - 1)) != 0)
    return 0;
  return c->ways <= 1024 && c->sharing >= 1 && c->sharing <= 4096;
}

static void probe_sort_caches(cg_cpu *cpu) {
  /* Insertion sort by (level, type) so the identity string is canonical. */
  for (uint32_t i = 1; i < cpu->cache_count; i++) {
    cg_cache t = cpu->caches[i];
    uint32_t j = i;
    while (j > 0 && (cpu->caches[j - 1].level > t.level ||
                     (cpu->caches[j - 1].level == t.level && cpu->caches[j - 1].type > t.type))) {
      cpu->caches[j] = cpu->caches[j - 1];
      j--;
    }
    cpu->caches[j] = t;
  }
}

#if CG_X86
static uint64_t probe_xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0u));
  return ((uint64_t)hi << 32) | lo;
}

static void probe_x86_signature(cg_cpu *cpu, uint32_t *max_leaf, uint32_t *max_ext) {
  uint32_t a, b, c, d;
  __cpuid(0, a, b, c, d);
  *max_leaf = a;
  memcpy(cpu->vendor, &b, 4);
  memcpy(cpu->vendor + 4, &d, 4);
  memcpy(cpu->vendor + 8, &c, 4);
  cpu->vendor[12] = '\0';
  __cpuid(0x80000000u, a, b, c, d);
  *max_ext = a;
  if (*max_leaf >= 1) {
    uint32_t fam, mod;
    __cpuid(1, a, b, c, d);
    fam = (a >> 8) & 0xfu;
    mod = (a >> 4) & 0xfu;
    cpu->stepping = a & 0xfu;
    if (fam == 0xfu)
      fam += (a >> 20) & 0xffu;
    if (fam == 0x6u || fam >= 0xfu)
      mod |= ((a >> 16) & 0xfu) << 4;
    cpu->family = fam;
    cpu->model = mod;
  }
}

static uint32_t probe_x86_isa(uint32_t max_leaf) {
  uint32_t a, b, c, d, isa = CG_ISA_REF;
  uint64_t xcr0;
  int fma, avx, osxsave, avx2 = 0, avx512f = 0;
  if (max_leaf < 1)
    return isa;
  __cpuid(1, a, b, c, d);
  fma = (c >> 12) & 1u;
  osxsave = (c >> 27) & 1u;
  avx = (c >> 28) & 1u;
  if (!osxsave || !avx)
    return isa;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    avx2 = (b >> 5) & 1u;
    avx512f = (b >> 16) & 1u;
  }
  xcr0 = probe_xgetbv0();
  /* XMM (bit 1) and YMM (bit 2) state must be saved by the OS for AVX. */
  if ((xcr0 & 0x6u) == 0x6u && avx2 && fma)
    isa = CG_ISA_AVX2;
  /* Plus opmask (5), upper ZMM0-15 (6) and ZMM16-31 (7) for AVX-512. */
  if (isa == CG_ISA_AVX2 && avx512f && (xcr0 & 0xe6u) == 0xe6u)
    isa = CG_ISA_AVX512;
  return isa;
}

static void probe_x86_caches(cg_cpu *cpu, uint32_t max_leaf, uint32_t max_ext) {
  uint32_t a, b, c, d, leaf = 0;
  if (strcmp(cpu->vendor, "AuthenticAMD") == 0 || strcmp(cpu->vendor, "HygonGenuine") == 0) {
    if (max_ext >= 0x8000001du) {
      __cpuid(0x80000001u, a, b, c, d);
      if ((c >> 22) & 1u) /* TopologyExtensions */
        leaf = 0x8000001du;
    }
  } else if (max_leaf >= 4) {
    leaf = 4;
  }
  if (leaf == 0)
    return;
  for (uint32_t sub = 0; sub < 16 && cpu->cache_count < CG_CACHE_MAX; sub++) {
    cg_cache cc;
    __cpuid_count(leaf, sub, a, b, c, d);
    if (!cg_probe__decode_cache(a, b, c, &cc))
      break;
    if (probe_cache_plausible(&cc))
      cpu->caches[cpu->cache_count++] = cc;
  }
  cpu->cache_source = leaf == 4 ? "cpuid4" : "cpuid8000001d";
}

static void probe_x86_topology(cg_cpu *cpu, uint32_t max_leaf, uint32_t max_ext) {
  uint32_t a, b, c, d;
  cpu->threads_per_core = 1;
  if (max_leaf >= 0xb) {
    __cpuid_count(0xb, 0, a, b, c, d);
    /* Sub-leaf 0 is the SMT level: EBX = logical processors per core. */
    if (((c >> 8) & 0xffu) == 1u && (b & 0xffffu) >= 1u)
      cpu->threads_per_core = b & 0xffffu;
  } else if (max_ext >= 0x8000001eu && strcmp(cpu->vendor, "AuthenticAMD") == 0) {
    __cpuid(0x8000001eu, a, b, c, d);
    cpu->threads_per_core = ((b >> 8) & 0xffu) + 1u;
  }
}
#endif

/* sysconf fallback (glibc names; other libcs simply lack them). */
static void probe_sysconf_caches(cg_cpu *cpu) {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  static const int names[3][3] = {
      {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL1_DCACHE_ASSOC, _SC_LEVEL1_DCACHE_LINESIZE},
      {_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL2_CACHE_ASSOC, _SC_LEVEL2_CACHE_LINESIZE},
      {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL3_CACHE_ASSOC, _SC_LEVEL3_CACHE_LINESIZE}};
  for (uint32_t l = 0; l < 3; l++) {
    long size = sysconf(names[l][0]), ways = sysconf(names[l][1]), line = sysconf(names[l][2]);
    cg_cache cc;
    if (size <= 0)
      continue;
    memset(&cc, 0, sizeof(cc));
    cc.level = l + 1;
    cc.type = l == 0 ? CG_CACHE_DATA : CG_CACHE_UNIFIED;
    cc.size = (uint64_t)size;
    cc.ways = ways > 0 ? (uint32_t)ways : 0u;
    cc.line = line > 0 ? (uint32_t)line : 64u;
    cc.sharing = 1;
    if (probe_cache_plausible(&cc))
      cpu->caches[cpu->cache_count++] = cc;
  }
  if (cpu->cache_count > 0)
    cpu->cache_source = "sysconf";
#else
  (void)cpu;
#endif
}

/* Conservative defaults for levels nobody reported. */
static void probe_fill_defaults(cg_cpu *cpu) {
  static const uint64_t sizes[4] = {0, 32u << 10, 512u << 10, 8u << 20};
  for (uint32_t l = 1; l <= 3; l++) {
    if (cg_probe_data_cache(cpu, l) != NULL || cpu->cache_count >= CG_CACHE_MAX)
      continue;
    cg_cache *cc = &cpu->caches[cpu->cache_count++];
    memset(cc, 0, sizeof(*cc));
    cc->level = l;
    cc->type = l == 1 ? CG_CACHE_DATA : CG_CACHE_UNIFIED;
    cc->size = sizes[l];
    cc->ways = 8;
    cc->line = 64;
    cc->sharing = 1;
    if (cpu->cache_source == NULL)
      cpu->cache_source = "default";
  }
}

void cg_probe(cg_cpu *cpu) {
  memset(cpu, 0, sizeof(*cpu));
  strcpy(cpu->vendor, "unknown");
  cpu->isa = CG_ISA_REF;
  cpu->threads_per_core = 1;
#if CG_X86
  {
    uint32_t max_leaf = 0, max_ext = 0;
    probe_x86_signature(cpu, &max_leaf, &max_ext);
    cpu->isa = probe_x86_isa(max_leaf);
    probe_x86_caches(cpu, max_leaf, max_ext);
    probe_x86_topology(cpu, max_leaf, max_ext);
  }
#endif
  if (cpu->cache_count == 0)
    probe_sysconf_caches(cpu);
  probe_fill_defaults(cpu);
  probe_sort_caches(cpu);
}

const cg_cache *cg_probe_data_cache(const cg_cpu *cpu, uint32_t level) {
  for (uint32_t i = 0; i < cpu->cache_count; i++) {
    const cg_cache *c = &cpu->caches[i];
    if (c->level == level && (c->type == CG_CACHE_DATA || c->type == CG_CACHE_UNIFIED))
      return c;
  }
  return NULL;
}

static void probe_format_size(char *out, size_t cap, uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(out, cap, "%lluM", (unsigned long long)(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(out, cap, "%lluK", (unsigned long long)(bytes >> 10));
  else
    snprintf(out, cap, "%lluB", (unsigned long long)bytes);
}

size_t cg_probe_identity(char *out, size_t cap, const cg_cpu *cpu, uint32_t isa) {
  size_t len = 0;
  int w;
  if (cap == 0)
    return 0;
  w = snprintf(out, cap, "%s f=%u m=%u s=%u isa=%s smt=%u", cpu->vendor, cpu->family, cpu->model,
               cpu->stepping, cg_isa_name(isa), cpu->threads_per_core);
  len = w > 0 ? (size_t)w : 0;
  for (uint32_t i = 0; i < cpu->cache_count && len < cap; i++) {
    const cg_cache *c = &cpu->caches[i];
    const char *suffix = c->type == CG_CACHE_DATA          ? "d"
                         : c->type == CG_CACHE_INSTRUCTION ? "i"
                                                           : "";
    char size[32];
    probe_format_size(size, sizeof(size), c->size);
    w = snprintf(out + len, cap - len, " L%u%s=%s/%uw/%uB/%ut", c->level, suffix, size, c->ways,
                 c->line, c->sharing);
    len += w > 0 ? (size_t)w : 0;
  }
  return len < cap ? len : cap - 1;
}
