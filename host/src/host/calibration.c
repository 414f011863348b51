/* host/calibration.c - the olc_calibration object and its getters. */
#include "host/host_int.h"

#include <stdlib.h>
#include <string.h>

olc_status olc_calibration__new(olc_calibration **out, size_t count) {
  olc_calibration *cal = calloc(1, sizeof *cal);
  *out = NULL;
  if (cal == NULL)
    return OLC_E_NOMEM;
  if (count > 0) {
    cal->results = calloc(count, sizeof *cal->results);
    cal->lookups = calloc(count, sizeof *cal->lookups);
    cal->extras = calloc(count, sizeof *cal->extras);
    if (cal->results == NULL || cal->lookups == NULL || cal->extras == NULL) {
      free(cal->results);
      free(cal->lookups);
      free(cal->extras);
      free(cal);
      return OLC_E_NOMEM;
    }
  }
  cal->count = count;
  *out = cal;
  return OLC_OK;
}

olc_status olc_calibration__name(olc_calibration *cal, olc_workload_result *r, const char *name,
                                 const char *backend, const char *operator_name) {
  /* Copies: the result may outlive the config and the host. */
  r->workload = olc_arena__strdup(&cal->arena, name != NULL ? name : "");
  r->backend = olc_arena__strdup(&cal->arena, backend != NULL ? backend : "");
  r->operator_name = olc_arena__strdup(&cal->arena, operator_name != NULL ? operator_name : "");
  r->status = OLC_OK;
  if (r->workload == NULL || r->backend == NULL || r->operator_name == NULL)
    return OLC_E_NOMEM;
  return OLC_OK;
}

void olc_calibration__set_lookup(olc_calibration *cal, size_t i, olc_lookup_result *lookup) {
  olc_lookup_result_free(cal->lookups[i]);
  cal->lookups[i] = lookup;
  cal->results[i].lookup = lookup;
  cal->results[i].selected = lookup != NULL ? olc_lookup_result_selected(lookup) : NULL;
  cal->results[i].unlisted_count = olc_lookup_result_unlisted_count(lookup);
}

size_t olc_calibration_count(const olc_calibration *calibration) {
  return calibration != NULL ? calibration->count : 0;
}

const olc_workload_result *olc_calibration_get(const olc_calibration *calibration, size_t i) {
  return calibration != NULL && i < calibration->count ? &calibration->results[i] : NULL;
}

size_t olc_calibration_samples(const double **out, const olc_calibration *calibration,
                               size_t workload, size_t candidate) {
  const olc_run_times *runs;
  if (out != NULL)
    *out = NULL;
  if (calibration == NULL || workload >= calibration->count ||
      candidate >= calibration->results[workload].candidate_count)
    return 0;
  runs = calibration->extras[workload].runs;
  if (runs == NULL || runs[candidate].n == 0)
    return 0;
  if (out != NULL)
    *out = runs[candidate].v;
  return runs[candidate].n;
}

size_t olc_calibration_winner(const olc_calibration *calibration, size_t workload) {
  if (calibration == NULL || workload >= calibration->count)
    return 0;
  return calibration->extras[workload].winner;
}

void olc_calibration_free(olc_calibration *calibration) {
  size_t i;
  if (calibration == NULL)
    return;
  for (i = 0; i < calibration->count; i++)
    olc_lookup_result_free(calibration->lookups[i]);
  free(calibration->lookups);
  free(calibration->results);
  free(calibration->extras);
  olc_arena__free(&calibration->arena);
  free(calibration);
}

size_t olc_calibration_recorded_removed(const olc_calibration *calibration) {
  return calibration != NULL ? calibration->recorded_removed : 0;
}
