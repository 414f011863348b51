/*
 * probe.h - what the cpu_gemm plugin knows about the processor it runs on:
 * vendor and signature, the usable instruction-set level (CPU and OS
 * support) and every cache level, read through CPUID without any file.
 */
#ifndef CPU_GEMM_PROBE_H
#define CPU_GEMM_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* Instruction-set levels, ordered: a level implies the ones below it. */
#define CG_ISA_REF 0    /* portable C */
#define CG_ISA_AVX2 1   /* AVX2 + FMA3, OS saves YMM */
#define CG_ISA_AVX512 2 /* AVX-512F, OS saves ZMM and opmasks */

#define CG_CACHE_MAX 8

/* Cache types as CPUID encodes them. */
#define CG_CACHE_DATA 1
#define CG_CACHE_INSTRUCTION 2
#define CG_CACHE_UNIFIED 3

typedef struct cg_cache {
  uint32_t level;   /* 1, 2, 3, ... */
  uint32_t type;    /* CG_CACHE_* */
  uint64_t size;    /* bytes */
  uint32_t ways;    /* associativity; 0 = fully associative */
  uint32_t line;    /* line size in bytes */
  uint32_t sharing; /* logical processors sharing it */
} cg_cache;

typedef struct cg_cpu {
  char vendor[16]; /* "AuthenticAMD", "GenuineIntel", "unknown" */
  uint32_t family; /* display family (base + extended) */
  uint32_t model;  /* display model */
  uint32_t stepping;
  uint32_t isa; /* best CG_ISA_* this CPU and OS support */
  uint32_t threads_per_core;
  uint32_t cache_count;
  cg_cache caches[CG_CACHE_MAX]; /* sorted by level, data before instruction */
  const char *cache_source;      /* "cpuid4", "cpuid8000001d", "sysconf", "default" */
} cg_cpu;

/* Fills *cpu.  Never fails: unknown facts get conservative defaults. */
void cg_probe(cg_cpu *cpu);

/* The data (or unified) cache of a level, NULL when there is none. */
const cg_cache *cg_probe_data_cache(const cg_cpu *cpu, uint32_t level);

/* Name of an ISA level ("ref", "avx2", "avx512"). */
const char *cg_isa_name(uint32_t isa);

/*
 * The canonical processor identity, e.g.
 *   "AuthenticAMD f=25 m=1 s=1 isa=avx2 L1d=32K/8w/64B/1t L1i=... L2=... L3=..."
 * where isa is the level the instance will use (<= cpu->isa).  Returns the
 * length written (always NUL-terminated; truncated when cap is too small).
 */
size_t cg_probe_identity(char *out, size_t cap, const cg_cpu *cpu, uint32_t isa);

/* Parses the probe's raw sub-leaf values (exposed for tests). */
int cg_probe__decode_cache(uint32_t eax, uint32_t ebx, uint32_t ecx, cg_cache *out);

#endif
