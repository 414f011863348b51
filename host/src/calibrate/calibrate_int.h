/*
 * calibrate/calibrate_int.h - the olc_calibration object (result.c) shared
 * with the loop (calibrate.c).
 */
#ifndef OLC_CALIBRATE_CALIBRATE_INT_H
#define OLC_CALIBRATE_CALIBRATE_INT_H

#include "olc/host.h"
#include "plugins/plugins.h"
#include "util/arena.h"

struct olc_calibration {
  olc_arena arena; /* strings, candidate arrays and policy copies */
  olc_workload_result *results;
  olc_lookup_result **lookups; /* owned; results[i].lookup aliases lookups[i] */
  size_t count;
};

/* A calibration with count zeroed results. OLC_OK or OLC_E_NOMEM. */
olc_status olc_calibration__new(olc_calibration **out, size_t count);
/* Copies the workload's name, backend and operator into r. */
olc_status olc_calibration__name(olc_calibration *cal, olc_workload_result *r,
                                 const olc_workload_config *wc);

/* Gives the result i its final lookup (owned by cal from now on). */
void olc_calibration__set_lookup(olc_calibration *cal, size_t i, olc_lookup_result *lookup);

#endif
