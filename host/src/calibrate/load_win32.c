/*
 * calibrate/load_win32.c - the load source on Windows (load.h): the CPU
 * count only.  Windows has no count of the threads waiting for a CPU that
 * a process can read cheaply, nor steal time; the reference candidate and
 * the spreads still say when the machine was busy.
 */
#include "calibrate/load.h"

#include <windows.h>

#include "util/platform.h"

void olc_calibrate__load_read_system(olc_load_figures *out) {
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  out->cpus = (uint32_t)si.dwNumberOfProcessors;
}

void olc_calibrate__load_nap(uint32_t ms) { olc_util__sleep_ms((int64_t)ms); }
