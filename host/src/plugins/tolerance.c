/*
 * plugins/tolerance.c - what ABI 1.2 appended for measuring: the numerical
 * check's tolerances a plugin declares (olc_plugin_tolerance), checked when
 * the table is loaded and looked up per operator and dtype, and the operand
 * bytes of one prepared instance (cold-cache measurement).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plugins/plugins_int.h"

/* The table's rows, when it is new enough to have them and has execute. */
static const olc_plugin_tolerance *rows(const olc_plugin *t, uint32_t *count) {
  *count = 0;
  if (!OLC_PLUGIN_HAS_FIELD(t, olc_plugin, tolerance_count) || t->execute == NULL ||
      t->tolerances == NULL)
    return NULL;
  *count = t->tolerance_count;
  return t->tolerances;
}

/* A row is usable when its struct covers every field this host reads. */
static int row_sized(const olc_plugin_tolerance *r) {
  return OLC_PLUGIN_HAS_FIELD(r, olc_plugin_tolerance, reference);
}

/* Finite and >= 0 (NaN fails both comparisons); not isfinite, whose
 * mingw-w64 macro converts a double to float in one of its branches. */
static int finite_nonneg(double v) { return v >= 0 && v <= DBL_MAX; }

int olc_plugins__tolerances_ok(const olc_plugin *t, char *msg, size_t size) {
  uint32_t n, i;
  const olc_plugin_tolerance *r = rows(t, &n);
  if (n > OLC_PLUGINS_MAX_OPERATORS * 8u) {
    snprintf(msg, size, "tolerances: %u rows (at most %u)", (unsigned)n,
             OLC_PLUGINS_MAX_OPERATORS * 8u);
    return 0;
  }
  for (i = 0; i < n; i++) {
    const olc_plugin_tolerance *x = &r[i];
    if (!row_sized(x) || x->operator_name == NULL) {
      snprintf(msg, size, "tolerance %u: struct_size %u too small or no operator", (unsigned)i,
               (unsigned)x->struct_size);
      return 0;
    }
    if (!finite_nonneg(x->atol) || !finite_nonneg(x->rtol)) {
      snprintf(msg, size,
               "tolerance %u (%.64s dtype %u): atol %g and rtol %g must be finite and >= 0",
               (unsigned)i, x->operator_name, (unsigned)x->dtype, x->atol, x->rtol);
      return 0;
    }
  }
  return 1;
}

/*
 * The host's tolerance for a dtype without a plugin row (atol = rtol).
 * The check's inputs lie in [-1, 1] and are exact in the dtype, so the
 * reference and a right candidate differ only by how each rounds:
 * - float32: the order of k float32 additions (unit roundoff u = 2^-24);
 *   1e-3 leaves that headroom up to the k of large products.
 * - float16 and bfloat16 (plugin.h: float32 accumulation): the float32
 *   sums differ as above, then each output is rounded to 16 bits once, so
 *   two right answers may lie one unit in the last place apart wherever a
 *   sum falls near a rounding boundary: 2^-10 |y| for float16 (11
 *   significant bits), 2^-7 |y| for bfloat16 (8 bits).  A plugin may round
 *   once more on the way (alpha * A'B' before beta * C is added), and the
 *   absolute part covers sums that cancel towards 0, where a float32
 *   difference is not scaled down.  1e-2 is about ten float16 units in the
 *   last place, 5e-2 about six of bfloat16: wide enough for every right
 *   order of rounding, while a wrong kernel (a product of two inputs
 *   dropped or doubled, an operand read transposed) is off by about |a b|,
 *   1/4 on average and near 1 at the worst element of any real shape.
 * - float64: 1e-9 for the same reason as float32 with u = 2^-53.
 */
static double default_tolerance(uint32_t dtype) {
  switch (dtype) {
  case OLC_PLUGIN_DTYPE_FLOAT64:
    return 1e-9;
  case OLC_PLUGIN_DTYPE_FLOAT16:
    return 1e-2;
  case OLC_PLUGIN_DTYPE_BFLOAT16:
    return 5e-2;
  default:
    return 1e-3;
  }
}

void olc_plugins__tolerance(olc_plugins_tolerance *out, const olc_loaded_plugin *p,
                            const char *operator_name, uint32_t dtype) {
  uint32_t n, i;
  const olc_plugin_tolerance *r = rows(p->table, &n);
  out->declared = 0;
  out->reference = NULL;
  out->atol = default_tolerance(dtype);
  out->rtol = out->atol;
  for (i = 0; i < n && operator_name != NULL; i++)
    if (r[i].dtype == dtype && strcmp(r[i].operator_name, operator_name) == 0) {
      out->declared = 1;
      out->atol = r[i].atol;
      out->rtol = r[i].rtol;
      out->reference = r[i].reference;
      return;
    }
}

olc_status olc_plugins__operand_bytes(uint64_t *bytes, olc_loaded_plugin *p,
                                      const olc_plugin_workload *w) {
  int32_t rc;
  *bytes = 0;
  if (!OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, operand_bytes) || p->table->operand_bytes == NULL)
    return OLC_E_UNSUPPORTED;
  rc = p->table->operand_bytes(p->instance, w, bytes);
  return rc == OLC_PLUGIN_OK && *bytes > 0 ? OLC_OK : OLC_E_UNSUPPORTED;
}
