/*
 * config/ini_parse_int.h - the parser state shared by ini_parse.c (reader,
 * sections, driver), key_set.c (one key of a section, from its row of the
 * key table) and special.c (the rows that need code of their own).
 */
#ifndef OLC_CONFIG_INI_PARSE_INT_H
#define OLC_CONFIG_INI_PARSE_INT_H

#include "config/config_impl.h"
#include "config/key_table.h"
#include "util/error.h"
#include "util/nameset.h"

/* The section being read: an olc_config_section (key_table.h), or none or a
 * bad header. */
typedef enum section_kind {
  SEC_NONE = 0,
  SEC_HOST = OLC_CONFIG_HOST,
  SEC_STORE = OLC_CONFIG_STORE,
  SEC_CALIBRATION = OLC_CONFIG_CALIBRATION,
  SEC_WORKLOAD = OLC_CONFIG_WORKLOAD,
  SEC_PLUGIN = OLC_CONFIG_PLUGIN,
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
  size_t index;                       /* workload or plugin index */
  uint64_t fixed_given[SEC_WORKLOAD]; /* keys given per fixed section (key_table.h bits) */
  uint32_t fixed_line[SEC_WORKLOAD];  /* header line per fixed section; 0: none */
  unsigned sections;                  /* fixed sections seen (bit = kind) */
  char last_key[128];                 /* for continuation lines */
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

/* ---- key_set.c */

/* One key = value of the current section. 1 or 0 as inih wants. */
int olc_config__key(parser *p, const char *name, const char *value);
/*
 * Once the file is read, for the section p->kind / p->index: stores the
 * default of every key it did not give, or fails for a required one,
 * naming line (the section's header).  1, or 0 after a failure.
 */
int olc_config__section_defaults(parser *p, uint32_t line);
/* Fails with "[SECTION] KEY: <fmt...>" at the current line; returns 0. */
int olc_config__key_fail(parser *p, const olc_config_key *k, olc_status st, const char *fmt, ...)
    OLC_PRINTF(4, 5);
/* Fails with "[SECTION] KEY: bad value 'VALUE' (expected ...)". */
int olc_config__bad_value(parser *p, const olc_config_key *k, const char *value);
/* Stores an arena copy of s at the row's offset in base.  1, or 0. */
int olc_config__store_string(parser *p, const olc_config_key *k, char *base, const char *s);

/* ---- special.c: setters and checks that rows of key_table.c name */

/* [workload.*] model = PATH: stores "sha256:<hex>" of the file. */
int olc_config__set_model(parser *p, const olc_config_key *k, char *base, const char *value);
/* [workload.*] backend: [a-z0-9_]+ (1 when it is). */
int olc_config__is_plugin_name(const char *value);
/* [workload.*] model_digest: "sha256:<64 hex>" or "<algorithm>:<hex>". */
int olc_config__is_digest(const char *value);
/* model_digest = VALUE: a digest, never "workload:..." (a key's .set). */
int olc_config__set_model_digest(parser *p, const olc_config_key *k, char *base, const char *value);
/* Sets w->model_digest to "workload:<sorted properties>". */
int olc_config__structural_digest(parser *p, olc_workload_config *w, const olc_config_kvs *props);

#endif
