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

olc_status olc_plugins__report_add(olc_host *host, const char *path, const char *name,
                                   const char *version, olc_load_stage stage, olc_status status,
                                   int32_t plugin_status, int unavailable, const char *message) {
  olc_load_entry *e;
  int failed = 0;
  if (host->report_count == host->report_cap) {
    size_t ncap = host->report_cap ? host->report_cap * 2 : 16;
    olc_load_entry *n = realloc(host->report, ncap * sizeof *n);
    if (n == NULL)
      return OLC_E_NOMEM;
    host->report = n;
    host->report_cap = ncap;
  }
  e = &host->report[host->report_count];
  memset(e, 0, sizeof *e);
  e->path = dup_or_null(&host->arena, path, &failed);
  e->plugin_name = dup_or_null(&host->arena, name, &failed);
  e->plugin_version = dup_or_null(&host->arena, version, &failed);
  e->message = dup_or_null(&host->arena, message != NULL ? message : "", &failed);
  e->stage = stage;
  e->status = status;
  e->plugin_status = plugin_status;
  e->unavailable = unavailable;
  if (failed)
    return OLC_E_NOMEM;
  host->report_count++;
  return OLC_OK;
}

size_t olc_host_report_count(const olc_host *host) { return host ? host->report_count : 0; }

const olc_load_entry *olc_host_report(const olc_host *host, size_t i) {
  if (host == NULL || i >= host->report_count)
    return NULL;
  return &host->report[i];
}

int olc_plugins__utf8_valid(const char *str, size_t len) {
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0;
  while (i < len) {
    unsigned c = s[i];
    size_t n;
    uint32_t cp;
    size_t k;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return 0;
    }
    if (len - i - 1 < n)
      return 0;
    for (k = 1; k <= n; k++) {
      unsigned cc = s[i + k];
      if ((cc & 0xc0u) != 0x80u)
        return 0;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    /* Overlong forms, surrogates and values past U+10FFFF. */
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
    i += n + 1;
  }
  return 1;
}
