/*
 * config/parse_int.h - the parser state shared by parse.c (reader,
 * sections, driver) and keys.c (the keys of each section).
 */
#ifndef OLC_CONFIG_PARSE_INT_H
#define OLC_CONFIG_PARSE_INT_H

#include "config/config_impl.h"
#include "util/error.h"
#include "util/nameset.h"

typedef enum section_kind {
  SEC_NONE = 0,
  SEC_HOST,
  SEC_STORE,
  SEC_CALIBRATION,
  SEC_WORKLOAD,
  SEC_PLUGIN,
  SEC_BAD
} section_kind;

typedef struct parser {
  olc_config *cfg;
  const char *name;
  olc_error *err;
  olc_status st;
  uint32_t err_line; /* line of the first error */
  /* reader */
  const char *text;
  size_t len;
  size_t pos;
  uint32_t line;     /* line inih is processing now */
  int line_indented; /* it starts with blank space */
  /* current section */
  section_kind kind;
  size_t index;       /* workload or plugin index */
  unsigned seen;      /* keys seen in a fixed section */
  unsigned sections;  /* fixed sections seen (bit = kind) */
  char last_key[128]; /* for continuation lines */
  int has_plugin_dirs;
  /* A "key = value" line too long for inih's line buffer: inih gets
   * "key = " plus a marker, and the handler takes the value from here. */
  const char *long_value;
  size_t long_value_len;
  /* Names seen, for the duplicate checks (each maps to its index). */
  olc_nameset workload_names;
  olc_nameset plugin_names;
  olc_nameset section_keys; /* keys of the current workload or plugin section */
} parser;

/* Longest config line accepted (inih's own buffer is much shorter; longer
 * values take the long_value path). */
#define OLC_CONFIG_MAX_LINE ((size_t)64 * 1024)

/* Records the first error ("NAME:LINE: what"); returns 0 for inih. */
int olc_config__fail(parser *p, uint32_t line, olc_status st, const char *fmt, ...)
    OLC_PRINTF(4, 5);
int olc_config__nomem(parser *p);
/* Appends a copy of name = value. 1, or 0 on out of memory. */
int olc_config__kvs_push(parser *p, olc_config_kvs *kvs, const char *name, const char *value);

/* One key = value of the current section (keys.c). 1 or 0 as inih wants. */
int olc_config__key(parser *p, const char *name, const char *value);
/* [host] plugin_dirs: "a:b,c" -> resolved directories (empty: none). */
int olc_config__set_plugin_dirs(parser *p, const char *value);
/* Sets w->model_digest to "workload:<sorted properties>". */
int olc_config__structural_digest(parser *p, olc_workload_config *w, const olc_config_kvs *props);

#endif
