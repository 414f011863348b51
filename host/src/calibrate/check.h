/*
 * calibrate/check.h - the numerical check of a workload's candidates
 * (plugin ABI 1.2, olc_plugin_tolerance).
 *
 * Where a candidate is measured (the worker, or this process in-process)
 * its first measurement is preceded by a check: the inputs are made once
 * per check object from a seed (pseudo-random values in [-1, 1], in the
 * workload's dtype), the reference policy runs once through the plugin's
 * execute, and each candidate then runs on the same inputs; an output
 * element c with |c - ref| > atol + rtol * |ref|, or not finite, rejects
 * the candidate with OLC_E_MISMATCH and a message naming the largest error
 * and its index.  The operators the check can make operands for: MatMul
 * (properties m, n, k; dtype float32, the default).  Others, a plugin
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
  int64_t m, n, k;
  float *a, *b, *ref, *c;
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
 * "numerical_mismatch: |err| ... at C[i,j] > atol ... + rtol ...*|ref|",
 * the status of its failing execute (err says so), or OLC_E_NOMEM.
 */
olc_status olc_check__policy(olc_check *c, const void *policy, const void *bytes, size_t len,
                             int *checked, olc_error *err);

/* Why candidates are not checked ("" when they are). */
const char *olc_check__why(const olc_check *c);

void olc_check__free(olc_check *c);

/* The spec for a workload of plugin under settings: enabled when the
 * settings ask for it and the plugin has execute; the plugin's tolerances
 * (or the host's defaults) tightened by check_atol / check_rtol; the
 * plugin's reference policy, or first (the first candidate's bytes). */
void olc_check__spec(olc_check_spec *out, const olc_loaded_plugin *plugin,
                     const olc_plugin_workload *workload, const olc_calibration_settings *settings,
                     const void *first, size_t first_len);

#endif
