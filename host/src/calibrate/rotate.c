/* calibrate/rotate.c - the rotating buffer of cold-cache measurement (rotate.h). */
#include "calibrate/rotate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#include <windows.h>
#else
#include <unistd.h>
#endif

#include "util/error.h"

uint64_t olc_calibrate__available_memory(void) {
#if defined(_WIN32)
  MEMORYSTATUSEX m;
  m.dwLength = sizeof m;
  return GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullAvailPhys : 0;
#elif defined(_SC_AVPHYS_PAGES)
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
#else
  return 0;
#endif
}

static uint64_t dim(const olc_plugin_workload *w, const char *name) {
  uint32_t i;
  for (i = 0; i < w->property_count; i++)
    if (w->properties[i].key != NULL && strcmp(w->properties[i].key, name) == 0) {
      char *end = NULL;
      unsigned long long v = strtoull(w->properties[i].value, &end, 10);
      return end != w->properties[i].value && *end == 0 && v < (1ull << 31) ? v : 0;
    }
  return 0;
}

/* One instance's operands from the shape: MatMul of float32 (the default). */
static uint64_t shape_bytes(const olc_plugin_workload *w) {
  uint64_t m = dim(w, "m"), n = dim(w, "n"), k = dim(w, "k");
  uint32_t i;
  if (w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0)
    return 0;
  for (i = 0; i < w->property_count; i++)
    if (strcmp(w->properties[i].key, "dtype") == 0 && strcmp(w->properties[i].value, "float32"))
      return 0;
  return 4u * (m * k + k * n + m * n);
}

olc_status olc_calibrate__rotation(uint32_t *count, uint64_t *bytes, olc_loaded_plugin *plugin,
                                   const olc_plugin_workload *workload, double mb, olc_error *err) {
  double want, n;
  uint64_t avail, b = 0;
  *count = 1;
  *bytes = 0;
  if (!(mb > 0))
    return OLC_OK;
  if (olc_plugins__operand_bytes(&b, plugin, workload) != OLC_OK)
    b = shape_bytes(workload);
  if (b == 0)
    return olc_error__set(err, OLC_E_UNSUPPORTED, "calibrate",
                          "rotating_buffer_mb: plugin '%s' does not say how large one instance "
                          "of workload %s is, nor can its shape tell",
                          olc_plugins__name(plugin), workload->name ? workload->name : "?");
  want = mb * 1048576.0;
  n = ceil(want / (double)b) + 1.0;
  if (n > OLC_ROTATE_MAX_INSTANCES)
    n = OLC_ROTATE_MAX_INSTANCES;
  avail = olc_calibrate__available_memory();
  /* The buffer asked for, not only the instances the cap leaves: a size
   * that cannot be cold in this memory is a configuration error. */
  if (avail > 0 && (want > (double)avail || n * (double)b > (double)avail))
    return olc_error__set(
        err, OLC_E_LIMIT, "calibrate",
        "rotating_buffer_mb %.10g exceeds the memory available (%llu MiB; %.0f instances of "
        "%llu bytes)",
        mb, (unsigned long long)(avail >> 20), n, (unsigned long long)b);
  *count = (uint32_t)n;
  *bytes = b;
  return OLC_OK;
}

olc_status olc_calibrate__prepare_states(void ***states, uint32_t count, olc_loaded_plugin *plugin,
                                         const olc_plugin_workload *workload, olc_error *err) {
  uint32_t i;
  olc_status st = OLC_OK;
  void **s = calloc(count > 0 ? count : 1, sizeof *s);
  *states = NULL;
  if (s == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
  for (i = 0; i < (count > 0 ? count : 1) && st == OLC_OK; i++)
    st = olc_plugins__prepare(&s[i], plugin, workload, err);
  if (st != OLC_OK) {
    olc_calibrate__unprepare_states(s, i - 1, plugin);
    return st;
  }
  *states = s;
  return OLC_OK;
}

void olc_calibrate__unprepare_states(void **states, uint32_t count, olc_loaded_plugin *plugin) {
  uint32_t i;
  for (i = 0; states != NULL && i < count; i++)
    olc_plugins__unprepare(plugin, states[i]);
  free(states);
}
