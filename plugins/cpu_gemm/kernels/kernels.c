/*
 * kernels.c - the table of compiled-in kernels.  Built without ISA flags:
 * it only takes the kernels' addresses.
 */
#include <stddef.h>
#include <string.h>

#include "../probe.h"
#include "kernels.h"

/* A tile kernel's row: its four entry points share the kernel's name. */
#define CG_TILE(id, isa_, mr_, nr_, copy_)                                                         \
  {                                                                                                \
    .name = #id, .isa = (isa_), .kind = CG_KIND_TILE, .mr = (mr_), .nr = (nr_),                    \
    .packed = sgemm_##id##_packed, .general = sgemm_##id, .packed_copy = (copy_),                  \
    .block = sgemm_##id##_block                                                                    \
  }

const cg_kernel_info cg_kernel_table[] = {
    {.name = "avx512_12x32",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_TILE,
     .mr = 12,
     .nr = 32,
     .packed = sgemm_avx512_12x32_packed,
     .general = sgemm_avx512_12x32,
     .packed_copy = sgemm_avx512_12x32_packed_copy,
     .block = sgemm_avx512_12x32_block,
     .packed_pf = sgemm_avx512_12x32_packed_pf},
    CG_TILE(avx2_6x16, CG_ISA_AVX2, 6, 16, sgemm_avx2_6x16_packed_copy),
    CG_TILE(ref_4x8, CG_ISA_REF, 4, 8, NULL),
    {.name = "avx512_vm4",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 32,
     .vm = sgemm_avx512_vm4,
     .sweeps = CG_AT(1)},
    {.name = "avx2_vm4",
     .isa = CG_ISA_AVX2,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 16,
     .vm = sgemm_avx2_vm4,
     .sweeps = CG_AT(1)},
    {.name = "ref_vm4",
     .isa = CG_ISA_REF,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 8,
     .vm = sgemm_ref_vm4},
    {.name = "avx512_mv4",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_avx512_mv4},
    {.name = "avx2_mv4",
     .isa = CG_ISA_AVX2,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_avx2_mv4},
    {.name = "ref_mv4",
     .isa = CG_ISA_REF,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_ref_mv4},
    /* Variants for a large operand streaming from memory: never a kind's
     * best, candidates of their own for the shapes where they differ; the
     * first that applies is the guess beyond the last-level cache. */
    {.name = "avx512_vm4_prefetch",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 32,
     .vm = sgemm_avx512_vm4_prefetch,
     .stream = CG_AT(2) | CG_AT(3) | CG_AT(4),
     .sweeps = CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {.name = "avx512_mv4_prefetch",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_avx512_mv4_prefetch,
     .stream = CG_AT(4)},
    {.name = "avx2_vm4_prefetch",
     .isa = CG_ISA_AVX2,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 16,
     .vm = sgemm_avx2_vm4_prefetch,
     .stream = CG_AT(2) | CG_AT(3) | CG_AT(4),
     .sweeps = CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {.name = "avx2_mv4_prefetch",
     .isa = CG_ISA_AVX2,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_avx2_mv4_prefetch,
     .stream = CG_AT(4)},
    {.name = "avx512_vm4_stream",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 32,
     .vm = sgemm_avx512_vm4_stream,
     .stream = CG_AT(2) | CG_AT(3) | CG_AT(4),
     .sweeps = CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {.name = "avx512_mv4_stream",
     .isa = CG_ISA_AVX512,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_avx512_mv4_stream,
     .stream = CG_AT(4)},
    {.name = "avx2_vm4_stream",
     .isa = CG_ISA_AVX2,
     .kind = CG_KIND_VM,
     .mr = 4,
     .nr = 16,
     .vm = sgemm_avx2_vm4_stream,
     .stream = CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4),
     .sweeps = CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {.name = "avx2_mv4_stream",
     .isa = CG_ISA_AVX2,
     .kind = CG_KIND_MV,
     .mr = 4,
     .nr = 4,
     .mv = sgemm_avx2_mv4_stream,
     .stream = CG_AT(1) | CG_AT(4)},
};

const uint32_t cg_kernel_count = (uint32_t)(sizeof(cg_kernel_table) / sizeof(cg_kernel_table[0]));

int cg_kernel_find(const char *name, size_t len) {
  for (uint32_t i = 0; i < cg_kernel_count; i++) {
    if (strlen(cg_kernel_table[i].name) == len && memcmp(cg_kernel_table[i].name, name, len) == 0)
      return (int)i;
  }
  return -1;
}

int cg_kernel_best(uint32_t kind, uint32_t isa) {
  for (uint32_t i = 0; i < cg_kernel_count; i++) {
    if (cg_kernel_table[i].kind == kind && cg_kernel_table[i].isa <= isa &&
        !cg_kernel_table[i].stream)
      return (int)i;
  }
  return -1;
}
