/*
 * olc/host.h - the plugin host: configuration, plugin loading with a load
 * report, the calibrate-and-select loop, and the runtime path.
 *
 *   olc_config   an ini file (or the embedded default) read with inih
 *   olc_host     the plugins loaded from the configured directories, one
 *                instance each, and the store they calibrate into
 *   olc_host_calibrate  per workload: key -> lookup -> (measure -> save) ->
 *                select, with a report that explains every selection
 *   olc_host_bind / olc_binding_select / olc_selection_execute  what an
 *                inference runtime does: workloads described in code,
 *                selected (lazily calibrated) and executed from many
 *                threads (olc/runtime.h)
 *
 * Thread safety: an olc_config is immutable after loading and may be read
 * from any number of threads.  An olc_host may be used from many threads at
 * once: bind, select, execute, calibrate, explain, prune, the load report
 * and the diagnostics are thread-safe, except olc_host_open and
 * olc_host_free, which no other call on the host may overlap (free every
 * binding first).  Measuring is serialized in a process: one measurement
 * (of one key) runs at a time, others wait for it, and a plugin's run is
 * never concurrent with itself; execute is (plugin.h: it is reentrant).
 * Results (olc_calibration, lookup results) are the caller's objects;
 * selections are the host's, immutable and valid until olc_host_free.
 *
 * Its subjects have a header each, which this one includes (code written
 * against olc/host.h compiles as it did): olc/config.h, olc/loader.h,
 * olc/calibrate.h, olc/runtime.h.
 */
#ifndef OLC_HOST_H
#define OLC_HOST_H

#include "olc/config.h"
#include "olc/loader.h"
#include "olc/calibrate.h"
#include "olc/runtime.h"

#endif /* OLC_HOST_H */
