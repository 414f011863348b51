/*
 * kernels.c - the table of compiled-in micro-kernels.  Built without ISA
 * flags: it only takes the kernels' addresses.
 */
#include <stddef.h>
#include <string.h>

#include "../probe.h"
#include "kernels.h"

const cg_kernel_info cg_kernel_table[] = {
    {"avx512_12x32", CG_ISA_AVX512, 12, 32, sgemm_avx512_12x32_packed, sgemm_avx512_12x32, NULL},
    {"avx2_6x16", CG_ISA_AVX2, 6, 16, sgemm_avx2_6x16_packed, sgemm_avx2_6x16,
     sgemm_avx2_6x16_packed_copy},
    {"ref_4x8", CG_ISA_REF, 4, 8, sgemm_ref_4x8_packed, sgemm_ref_4x8, NULL},
};

const uint32_t cg_kernel_count = (uint32_t)(sizeof(cg_kernel_table) / sizeof(cg_kernel_table[0]));

int cg_kernel_find(const char *name, size_t len) {
  for (uint32_t i = 0; i < cg_kernel_count; i++) {
    if (strlen(cg_kernel_table[i].name) == len && memcmp(cg_kernel_table[i].name, name, len) == 0)
      return (int)i;
  }
  return -1;
}
