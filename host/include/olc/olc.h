/*
 * olc/olc.h - the umbrella header of the onnx-light calibration host.
 *
 * Includes every public header of the library: the release version
 * (version.h), status codes and the error
 * record (error.h), diagnostics (diag.h), the calibration profile store
 * (store.h) and the plugin host: configuration (config.h), the loader and
 * its report (loader.h), the calibrate loop (calibrate.h) and the runtime
 * path (runtime.h); host.h includes those four.  Link with olc::olc
 * (CMake) or `pkg-config --libs olc`.
 */
#ifndef OLC_OLC_H
#define OLC_OLC_H

#include "olc/export.h"
#include "olc/version.h"
#include "olc/error.h"
#include "olc/diag.h"
#include "olc/store.h"
#include "olc/config.h"
#include "olc/loader.h"
#include "olc/calibrate.h"
#include "olc/runtime.h"
#include "olc/host.h"

#endif /* OLC_OLC_H */
