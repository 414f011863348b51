/*
 * config/config_impl.h - the olc_config object, shared by the parser
 * (ini_parse.c) and the getters (config.c).  Not for other modules: they use
 * olc/host.h and config/config.h.
 */
#ifndef OLC_CONFIG_CONFIG_IMPL_H
#define OLC_CONFIG_CONFIG_IMPL_H

#include "config/config.h"
#include "util/arena.h"

/* [store] persistence. */
enum { OLC_CONFIG_PERSIST_OFF = 0, OLC_CONFIG_PERSIST_ON = 1, OLC_CONFIG_PERSIST_READ_ONLY = 2 };

/* A growable list of key/value pairs (strings in the config's arena). */
typedef struct olc_config_kvs {
  olc_property *items;
  size_t count;
  size_t cap;
} olc_config_kvs;

/* A workload section; pub.properties points into props once parsed. */
typedef struct cfg_workload {
  olc_workload_config pub;
  olc_config_kvs props;
  uint64_t given; /* keys of the table given (key_table.h bits) */
} cfg_workload;

/* A plugin section; pub.entries points into entries once parsed. */
typedef struct cfg_plugin {
  olc_plugin_config pub;
  olc_config_kvs entries;
  uint64_t given; /* keys of the table given (key_table.h bits) */
  uint32_t line;  /* line of the section header */
} cfg_plugin;

struct olc_config {
  olc_arena arena; /* every string */
  const char *source;
  const char *base_dir;
  int is_default; /* the embedded default, not a user's file */
  int ignore_env; /* read no OLC_* variable (olc_config_set_ignore_env) */

  /* [host] */
  const char **plugin_dirs;
  unsigned char *plugin_dir_optional; /* per dir: named by a @...@ location */
  size_t plugin_dir_count;
  uint32_t threads_configured; /* 0 = automatic */
  uint32_t threads;            /* effective */
  int allow_insecure_plugins;

  /* [store] */
  const char *store_path;    /* absolute, or NULL for the default path */
  const char **store_layers; /* read-only layers beneath the store's file */
  unsigned char *store_layer_located;
  size_t store_layer_count;
  int persistence; /* OLC_CONFIG_PERSIST_* */
  int allow_network_fs;
  int force_portable;
  int64_t lock_timeout_ms;
  int verify_layers; /* olc_verify_layers */

  olc_calibration_settings calibration;

  cfg_workload *workloads;
  size_t workload_count;
  size_t workload_cap;

  cfg_plugin *plugins;
  size_t plugin_count;
  size_t plugin_cap;
};

/* Parses ini text into a fresh config (ini_parse.c). */
olc_status olc_config__parse(olc_config **out, const char *text, size_t len, const char *name,
                             const char *base_dir, olc_error *err);

#endif
