/*
 * kernels.c - the table of compiled-in kernels.  Built without ISA flags:
 * it only takes the kernels' addresses.
 */
#include <stddef.h>
#include <string.h>

#include "../probe.h"
#include "kernels.h"

const cg_kernel_info cg_kernel_table[] = {
    {"avx512_12x32", CG_ISA_AVX512, CG_KIND_TILE, 12, 32, sgemm_avx512_12x32_packed,
     sgemm_avx512_12x32, sgemm_avx512_12x32_packed_copy, sgemm_avx512_12x32_block, NULL, NULL, 0,
     0},
    {"avx2_6x16", CG_ISA_AVX2, CG_KIND_TILE, 6, 16, sgemm_avx2_6x16_packed, sgemm_avx2_6x16,
     sgemm_avx2_6x16_packed_copy, sgemm_avx2_6x16_block, NULL, NULL, 0, 0},
    {"ref_4x8", CG_ISA_REF, CG_KIND_TILE, 4, 8, sgemm_ref_4x8_packed, sgemm_ref_4x8, NULL,
     sgemm_ref_4x8_block, NULL, NULL, 0, 0},
    {"avx512_vm4", CG_ISA_AVX512, CG_KIND_VM, 4, 32, NULL, NULL, NULL, NULL, sgemm_avx512_vm4, NULL,
     0, CG_AT(1)},
    {"avx2_vm4", CG_ISA_AVX2, CG_KIND_VM, 4, 16, NULL, NULL, NULL, NULL, sgemm_avx2_vm4, NULL, 0,
     CG_AT(1)},
    {"ref_vm4", CG_ISA_REF, CG_KIND_VM, 4, 8, NULL, NULL, NULL, NULL, sgemm_ref_vm4, NULL, 0, 0},
    {"avx512_mv4", CG_ISA_AVX512, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL, sgemm_avx512_mv4,
     0, 0},
    {"avx2_mv4", CG_ISA_AVX2, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL, sgemm_avx2_mv4, 0, 0},
    {"ref_mv4", CG_ISA_REF, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL, sgemm_ref_mv4, 0, 0},
    /* Variants for a large operand streaming from memory: never a kind's
     * best, candidates of their own for the shapes where they differ; the
     * first that applies is the guess beyond the last-level cache. */
    {"avx512_vm4_prefetch", CG_ISA_AVX512, CG_KIND_VM, 4, 32, NULL, NULL, NULL, NULL,
     sgemm_avx512_vm4_prefetch, NULL, CG_AT(2) | CG_AT(3) | CG_AT(4),
     CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {"avx512_mv4_prefetch", CG_ISA_AVX512, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL,
     sgemm_avx512_mv4_prefetch, CG_AT(4), 0},
    {"avx2_vm4_prefetch", CG_ISA_AVX2, CG_KIND_VM, 4, 16, NULL, NULL, NULL, NULL,
     sgemm_avx2_vm4_prefetch, NULL, CG_AT(2) | CG_AT(3) | CG_AT(4),
     CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {"avx2_mv4_prefetch", CG_ISA_AVX2, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL,
     sgemm_avx2_mv4_prefetch, CG_AT(4), 0},
    {"avx512_vm4_stream", CG_ISA_AVX512, CG_KIND_VM, 4, 32, NULL, NULL, NULL, NULL,
     sgemm_avx512_vm4_stream, NULL, CG_AT(2) | CG_AT(3) | CG_AT(4),
     CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {"avx512_mv4_stream", CG_ISA_AVX512, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL,
     sgemm_avx512_mv4_stream, CG_AT(4), 0},
    {"avx2_vm4_stream", CG_ISA_AVX2, CG_KIND_VM, 4, 16, NULL, NULL, NULL, NULL,
     sgemm_avx2_vm4_stream, NULL, CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4),
     CG_AT(1) | CG_AT(2) | CG_AT(3) | CG_AT(4)},
    {"avx2_mv4_stream", CG_ISA_AVX2, CG_KIND_MV, 4, 4, NULL, NULL, NULL, NULL, NULL,
     sgemm_avx2_mv4_stream, CG_AT(1) | CG_AT(4), 0},
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
