/*
 * util/options.h - caller-filled versioned structs, the libgit2 way.
 *
 * A public struct that a caller fills (olc_store_options, ...) begins with a
 * uint32_t version and only grows at its end, one version per change.  The
 * library accepts every version from 1 to its own: it copies the caller's
 * struct, as many bytes as the caller's version has, into a full-size local
 * whose other fields keep their *_INIT defaults, and then reads only the
 * local.  It never reads past the end of an older caller's struct.
 *
 * The history of every such struct is one table row per version in
 * options.c; appending a field is documented in olc/store.h.
 */
#ifndef OLC_UTIL_OPTIONS_H
#define OLC_UTIL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"

typedef struct olc_options_layout {
  const char *name;     /* the struct's name, for messages */
  uint32_t current;     /* the version this library knows */
  size_t size;          /* sizeof the struct in this library */
  const void *defaults; /* its *_INIT value */
  const size_t *ends;   /* ends[v - 1]: the bytes version v has */
} olc_options_layout;

/*
 * Fills dst (layout->size bytes) from the caller's struct src: the bytes
 * src's version has come from src, every later field from the defaults, and
 * dst's version is then layout->current.  src NULL gives the defaults.
 * Returns OLC_OK, or OLC_E_INVALID for version 0 or a version newer than
 * layout->current (the message names the struct and both versions); where
 * goes to err->where.
 */
olc_status olc_options__load(void *dst, const olc_options_layout *layout, const void *src,
                             const char *where, olc_error *err);

extern const olc_options_layout olc_options__store;     /* olc_store_options */
extern const olc_options_layout olc_options__save;      /* olc_save_request */
extern const olc_options_layout olc_options__lookup;    /* olc_lookup_options */
extern const olc_options_layout olc_options__host;      /* olc_host_options */
extern const olc_options_layout olc_options__calibrate; /* olc_calibrate_options */
extern const olc_options_layout olc_options__workload;  /* olc_workload */
extern const olc_options_layout olc_options__select;    /* olc_select_options */
extern const olc_options_layout olc_options__execute;   /* olc_execute_args */
extern const olc_options_layout olc_options__verify;    /* olc_verify_options */

#endif
