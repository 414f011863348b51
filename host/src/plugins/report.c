/*
 * plugins/report.c - the load report: one entry per plugin file found,
 * loaded or skipped, with the stage where it stopped and why.
 */
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"

const char *olc_load_stage_str(olc_load_stage stage) {
  switch (stage) {
  case OLC_LOAD_LOADED:
    return "loaded";
  case OLC_LOAD_OPEN:
    return "open";
  case OLC_LOAD_SYMBOL:
    return "symbol";
  case OLC_LOAD_ABI:
    return "abi";
  case OLC_LOAD_VALIDATE:
    return "validate";
  case OLC_LOAD_DUPLICATE:
    return "duplicate";
  case OLC_LOAD_CREATE:
    return "create";
  case OLC_LOAD_DISABLED:
    return "disabled";
  case OLC_LOAD_PERMISSIONS:
    return "permissions";
  }
  return "unknown";
}

/* Copies s into the arena, or returns NULL for NULL.  *failed is set on OOM. */
static const char *dup_or_null(olc_arena *arena, const char *s, int *failed) {
  char *c;
  if (s == NULL)
    return NULL;
  c = olc_arena__strdup(arena, s);
  if (c == NULL)
    *failed = 1;
  return c;
}

/* A skip worth a warning: not a plugin the config disabled, nor one that
 * said it cannot run here. */
static int report_failed(olc_load_stage stage, int unavailable) {
  return stage != OLC_LOAD_LOADED && stage != OLC_LOAD_DISABLED && !unavailable;
}

olc_status olc_plugins__report_add(olc_plugin_set *set, const char *path, const char *name,
                                   const char *version, olc_load_stage stage, olc_status status,
                                   int32_t plugin_status, int unavailable, const char *message) {
  olc_load_entry *e;
  int failed = 0;
  if (set->report_count == set->report_cap) {
    size_t ncap = set->report_cap ? set->report_cap * 2 : 16;
    olc_load_entry *n = realloc(set->report, ncap * sizeof *n);
    if (n == NULL)
      return OLC_E_NOMEM;
    set->report = n;
    set->report_cap = ncap;
  }
  e = &set->report[set->report_count];
  memset(e, 0, sizeof *e);
  e->path = dup_or_null(&set->arena, path, &failed);
  e->plugin_name = dup_or_null(&set->arena, name, &failed);
  e->plugin_version = dup_or_null(&set->arena, version, &failed);
  e->message = dup_or_null(&set->arena, message != NULL ? message : "", &failed);
  e->stage = stage;
  e->status = status;
  e->plugin_status = plugin_status;
  e->unavailable = unavailable;
  if (failed)
    return OLC_E_NOMEM;
  set->report_count++;
  if (report_failed(stage, unavailable))
    olc_diag__emit(set->diag, OLC_DIAG_WARNING, "load", "plugin %s skipped (%s): %s",
                   path != NULL ? path : "(unknown)", olc_load_stage_str(stage),
                   message != NULL && message[0] != 0 ? message : olc_status_str(status));
  return OLC_OK;
}

size_t olc_plugins__report_count(const olc_plugin_set *set) {
  return set != NULL ? set->report_count : 0;
}

const olc_load_entry *olc_plugins__report(const olc_plugin_set *set, size_t i) {
  if (set == NULL || i >= set->report_count)
    return NULL;
  return &set->report[i];
}
