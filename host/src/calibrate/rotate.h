/*
 * calibrate/rotate.h - cold-cache measurement ([calibration]
 * rotating_buffer_mb): how many prepared instances of a workload the
 * timing loop rotates through so that each run meets its operands out of
 * cache, as PyTorch TunableOp's rotating buffer does.
 */
#ifndef OLC_CALIBRATE_ROTATE_H
#define OLC_CALIBRATE_ROTATE_H

#include <stdint.h>

#include "olc/host.h"
#include "plugins/plugins.h"

/* Most instances prepared (a tiny workload with a large buffer). */
#define OLC_ROTATE_MAX_INSTANCES 16384u

/*
 * The rotation for a buffer of mb MiB: *count = 1 and *bytes = 0 when mb
 * is 0 (warm: one instance); else *bytes per instance (the plugin's
 * operand_bytes, or from the shape: MatMul m, n, k of float32) and *count =
 * ceil(mb MiB / bytes) + 1, at most OLC_ROTATE_MAX_INSTANCES.  OLC_OK, or
 * OLC_E_LIMIT when the instances would not fit in the memory available
 * ("rotating_buffer_mb 100000 exceeds the memory available (...)"),
 * OLC_E_UNSUPPORTED when the size of an instance is unknown.
 */
olc_status olc_calibrate__rotation(uint32_t *count, uint64_t *bytes, olc_loaded_plugin *plugin,
                                   const olc_plugin_workload *workload, double mb, olc_error *err);

/* Prepares count (>= 1) instances of the workload into *states (a
 * malloc'ed array); a failure unprepares those made and returns the
 * plugin's error.  Undone by olc_calibrate__unprepare_states. */
olc_status olc_calibrate__prepare_states(void ***states, uint32_t count, olc_loaded_plugin *plugin,
                                         const olc_plugin_workload *workload, olc_error *err);
void olc_calibrate__unprepare_states(void **states, uint32_t count, olc_loaded_plugin *plugin);

/* Physical memory available now, bytes; 0 when unknown. */
uint64_t olc_calibrate__available_memory(void);

#endif
