/*
 * calibrate/check.h - the numerical check of a workload's candidates
 * (plugin ABI 1.2, olc_plugin_tolerance; operands of ABI 1.3).
 *
 * Where a candidate is measured (the worker, or this process in-process)
 * its first measurement is preceded by a check: the inputs are made once
 * per check object from a seed (pseudo-random values in [-1, 1], rounded
 * to the operand's dtype), the reference policy runs once through the
 * plugin's execute, and each candidate then runs on the same inputs; an
 * output element c with |c - ref| > atol + rtol * |ref|, or not finite,
 * rejects the candidate with OLC_E_MISMATCH and a message naming the
 * largest error and its index.
 *
 * The operands follow the workload's properties, as plugin.h describes
 * the operators:
 * - MatMul (m, n, k; batch_a, batch_b: A's and B's leading dimensions,
 *   "2x1", broadcast as numpy does) with alpha 1, beta 0;
 * - Gemm (m, n, k; bias none | scalar | row | col | matrix: C of rank 0,
 *   1 (n), 2 (m x 1) or m x n) with alpha 1.5 and, with a bias, beta 0.5
 *   (without one ONNX's default 1), so that a candidate that drops
 *   either is caught;
 * - trans_a, trans_b (0/1): A' or B' handed as the transposed view of an
 *   operand stored k x m (n x k), strides {1, m} ({1, k});
 * - dtype float32 (the default), float16, bfloat16 or float64 for every
 *   operand and the output; dtype_b float16 or bfloat16 with a float32
 *   dtype for B alone.
 * Views (a transposed operand, a rank-0 C) are handed only to a plugin
 * with OLC_PLUGIN_FEATURE_VIEWS; for another one such a workload is not
 * checked (a rank-0 C becomes the rank-1 C of one element).  The input
 * bits of the workload's constant_inputs are packed for each candidate
 * (the plugin's pack, ABI 1.3) and the candidate executes with
 * exec_args.packed, so a wrong packed path is caught; what pack declines
 * (OLC_PLUGIN_E_UNSUPPORTED) is read in place, and the packed copies are
 * released after the execute.  Other operators or properties, a plugin
 * without execute, or a reference that cannot execute leave every
 * candidate "not checked" (olc_check__why says why).
 */
#ifndef OLC_CALIBRATE_CHECK_H
#define OLC_CALIBRATE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"
#include "plugins/plugins.h"

/* The inputs' seed: fixed, so that every worker makes the same inputs. */
#define OLC_CHECK_SEED 0x6f6c632d63686b31ull

/* The most inputs the check makes (Gemm: A, B and C). */
#define OLC_CHECK_MAX_INPUTS 3u

/* What a check compares with; everything borrowed. */
typedef struct olc_check_spec {
  int enabled; /* 0: nothing is checked */
  double atol;
  double rtol;
  uint64_t seed;
  const void *reference; /* the reference policy, serialized */
  size_t reference_len;
} olc_check_spec;

typedef struct olc_check {
  olc_loaded_plugin *plugin;
  const olc_plugin_workload *workload;
  olc_check_spec spec;
  int ready;      /* inputs and reference made (or found impossible) */
  int impossible; /* nothing can be checked: why says why */
  char why[OLC_ERROR_MESSAGE_SIZE];
  uint32_t input_count;
  olc_plugin_tensor inputs[OLC_CHECK_MAX_INPUTS]; /* with their data */
  olc_plugin_tensor output;                       /* data: ref or out per run */
  double alpha, beta;
  int64_t out_count; /* elements of the output */
  void *data[OLC_CHECK_MAX_INPUTS];
  void *ref, *out; /* the reference's output, a candidate's */
} olc_check;

/* Sets up a check (makes nothing yet); spec is copied, its reference
 * borrowed. */
void olc_check__init(olc_check *c, olc_loaded_plugin *plugin, const olc_plugin_workload *workload,
                     const olc_check_spec *spec);

/*
 * Checks one policy (deserialized; bytes, len: its serialized form, by
 * which the reference candidate is recognized and not run a second
 * time).  OLC_OK with *checked = 1 (it matched)
 * or 0 (not checked: olc_check__why), OLC_E_MISMATCH with err->message
 * "numerical_mismatch: |err| ... at C[i,j] > atol ... + rtol ...*|ref|"
 * (C[b,i,j] for a batched output, b counting its batches), the status of
 * its failing pack or execute (err says so), or OLC_E_NOMEM.
 */
olc_status olc_check__policy(olc_check *c, const void *policy, const void *bytes, size_t len,
                             int *checked, olc_error *err);

/* Why candidates are not checked ("" when they are). */
const char *olc_check__why(const olc_check *c);

void olc_check__free(olc_check *c);

/* The OLC_PLUGIN_DTYPE_* of a workload's output (its dtype property:
 * float32 when absent), the dtype whose tolerance row applies; 0 for a
 * dtype the check does not make. */
uint32_t olc_check__dtype(const olc_plugin_workload *workload);

/* The spec for a workload of plugin under settings: enabled when the
 * settings ask for it and the plugin has execute; the plugin's tolerances
 * for the operator and the workload's dtype (or the host's defaults)
 * tightened by check_atol / check_rtol; the plugin's reference policy, or
 * first (the first candidate's bytes). */
void olc_check__spec(olc_check_spec *out, const olc_loaded_plugin *plugin,
                     const olc_plugin_workload *workload, const olc_calibration_settings *settings,
                     const void *first, size_t first_len);

#endif
