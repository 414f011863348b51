/*
 * plugins/plugins_int.h - what the files of the loader module share: the
 * olc_plugin_set and olc_loaded_plugin layouts, the per-library services
 * record and the platform layer (dl_posix.c / dl_win32.c).  No other module
 * includes it: they use plugins/plugins.h.
 */
#ifndef OLC_PLUGINS_PLUGINS_INT_H
#define OLC_PLUGINS_PLUGINS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"
#include "olc/plugin.h"
#include "plugins/plugins.h"
#include "util/arena.h"

/* The smallest plugin table the host accepts: the whole v1.0 layout. */
#define OLC_PLUGINS_MIN_TABLE_SIZE (offsetof(olc_plugin, flops) + sizeof(void (*)(void)))
/* Caps on what a table may declare. */
#define OLC_PLUGINS_MAX_NAME 64u
#define OLC_PLUGINS_MAX_OPERATORS 256u

/*
 * One per shared library ever loaded by this process; never freed.  The
 * services table handed to the plugin lives here because the plugin may keep
 * it "until the process ends" (plugin.h), longer than any set.  ctx of
 * the table points back to this record, which identifies the plugin.
 */
typedef struct olc_plugins_lib {
  olc_plugin_host services;
  void *handle;
  char *path;
  /* The loaded plugins of live sets that hold this library, most recent
   * first (global lock); the services act for the first.  NULL while no
   * set holds it. */
  olc_loaded_plugin *current;
  struct olc_plugins_lib *next;
} olc_plugins_lib;

struct olc_loaded_plugin {
  olc_plugin_set *set;
  olc_plugins_lib *lib;
  const olc_plugin *table;
  const char *name; /* copies in set->arena */
  const char *version;
  const char *path;
  void *instance;
  int created;
  olc_plugins_after_run_fn after_run;
  void *after_run_payload;
  olc_loaded_plugin *lib_next; /* next holder of the same library */
  unsigned forks;              /* olc_plugins__forks() when it was created */
};

typedef struct olc_plugins_log_line {
  int32_t level;
  char text[OLC_PLUGINS_LOG_LINE_SIZE];
} olc_plugins_log_line;

struct olc_plugin_set {
  uint32_t threads;           /* handed to create */
  int allow_insecure_plugins; /* the permission policy files were loaded under */
  const olc_plugins_store_ops *store_ops;
  void *store_payload;
  olc_diag_sink *diag; /* borrowed, may be NULL */
  olc_arena arena;     /* report strings, plugin names */
  olc_loaded_plugin **plugins;
  size_t plugin_count;
  size_t plugin_cap;
  olc_load_entry *report;
  size_t report_count;
  size_t report_cap;
  const char **searched; /* every directory asked for, in order (arena strings) */
  size_t searched_count;
  /* Ring of the last log lines (global lock). */
  olc_plugins_log_line log[OLC_PLUGINS_LOG_LINES];
  size_t log_total;
};

/* ---------------------------------------------------------------- report */

/* Appends a report entry (strings copied), and warns through the set's
 * sink when the file was skipped for a failure; OLC_OK or OLC_E_NOMEM. */
olc_status olc_plugins__report_add(olc_plugin_set *set, const char *path, const char *name,
                                   const char *version, olc_load_stage stage, olc_status status,
                                   int32_t plugin_status, int unavailable, const char *message);

/* -------------------------------------------------------------- services */

/* The library record for handle (created on first use), or NULL on OOM. */
olc_plugins_lib *olc_plugins__lib_get(void *handle, const char *path);
/* Makes p the plugin lib's services act for; detach undoes it (p may be
 * anywhere in the list of holders; absent is fine). */
void olc_plugins__lib_attach(olc_plugins_lib *lib, olc_loaded_plugin *p);
void olc_plugins__lib_detach(olc_plugins_lib *lib, olc_loaded_plugin *p);
/* The library whose plugin set the calling thread's set_error slot since
 * the last clear (services.c), NULL for none.  Alone, in the
 * initial-exec TLS model where the platform has it: clearing it is on
 * every execute call, and is then one store, no __tls_get_addr (8 bytes of
 * the static TLS a library loaded by dlopen may take). */
#if defined(__ELF__) && defined(__GNUC__)
#define OLC_PLUGINS_TLS_FAST _Thread_local __attribute__((tls_model("initial-exec")))
#elif defined(_MSC_VER)
#define OLC_PLUGINS_TLS_FAST __declspec(thread)
#else
#define OLC_PLUGINS_TLS_FAST _Thread_local
#endif
extern OLC_PLUGINS_TLS_FAST const olc_plugins_lib *olc_plugins__error_lib;
/* Clears the calling thread's set_error slot before calling into lib. */
static inline void olc_plugins__error_clear(void) { olc_plugins__error_lib = NULL; }
/* The message lib's plugin set on this thread since the last clear, or NULL. */
const char *olc_plugins__error_message(const olc_plugins_lib *lib, int32_t *code);

/* ---------------------------------------------------------------- checks */

/* The checks of a table the entry returned (table_check.c); 0 with msg
 * and *stage set when it is refused.  *name is set to the table's name
 * once that has passed, so that the reports of later failures name the
 * plugin. */
int olc_plugins__table_check(const olc_plugin *t, olc_load_stage *stage, const char **name,
                             char *msg, size_t size);

/* --------------------------------------------------- platform (dl_*.c) */

/* The registry/dl lock (short sections only, never held across plugin
 * calls) and the lifecycle lock (serializes entry, create and destroy across
 * hosts; services never take it, so plugins may call them meanwhile). */
void olc_plugins__lock(void);
void olc_plugins__unlock(void);
void olc_plugins__lifecycle_lock(void);
void olc_plugins__lifecycle_unlock(void);

/* dlopen(RTLD_NOW | RTLD_LOCAL) under the lock; NULL with msg on failure. */
void *olc_plugins__dl_open(const char *path, char *msg, size_t size);
/* dlsym under the lock; NULL with msg when missing. */
void *olc_plugins__dl_sym(void *handle, const char *name, char *msg, size_t size);

/* Canonical absolute path (malloc'ed) or NULL with errno set. */
char *olc_plugins__realpath(const char *path);
/* 1 when path is an existing directory. */
int olc_plugins__is_dir(const char *path);
/*
 * The names of the entries of dir that carry the platform's plugin suffix,
 * whatever they are (regular files, links, directories, FIFOs), unsorted
 * (malloc'ed array of malloc'ed strings).  OLC_E_IO when the directory
 * cannot be read.
 */
olc_status olc_plugins__list_dir(char ***names, size_t *count, const char *dir, olc_error *err);
void olc_plugins__free_names(char **names, size_t count);
/* The list a scan fills (dl_names.c): push copies name; finish hands the
 * list to (*names, *count) when st is OLC_OK, else frees it, and returns
 * st. */
typedef struct olc_plugins_names {
  char **names;
  size_t count, cap;
} olc_plugins_names;
olc_status olc_plugins__names_push(olc_plugins_names *list, const char *name);
olc_status olc_plugins__names_finish(olc_plugins_names *list, olc_status st, char ***names,
                                     size_t *count);
/* 1 when name ends in the platform's plugin suffix. */
int olc_plugins__has_suffix(const char *name);
/* Length of the platform suffix name ends with (0 when none). */
size_t olc_plugins__suffix_len(const char *name);
/*
 * 0 when path may be loaded: the file (and, for a link, what it resolves
 * to) and every directory above it up to the root (as listed and as
 * resolved) owned by this user or root and not writable by group or others;
 * a root-owned sticky directory (/tmp) may be.  Else 1 with a one-line
 * reason in msg.  Not checked on Windows (ACLs).
 */
int olc_plugins__insecure(const char *path, char *msg, size_t size);
/* 1 with the reason in msg when path is not a regular file (a directory, a
 * FIFO, a device, a dangling link, a link loop, a link to any of those),
 * else 0. */
int olc_plugins__not_regular(const char *path, char *msg, size_t size);
/* 1 (with err filled: OLC_E_UNSUPPORTED, where = fn) when p was created in
 * a parent of this process. */
int olc_plugins__forked(const olc_loaded_plugin *p, const char *fn, olc_error *err);
/* OLC_PLUGIN_PATH, or NULL when unset or the process is privileged. */
const char *olc_plugins__env_path(void);
/* Separator of OLC_PLUGIN_PATH entries (':' or ';'). */
char olc_plugins__path_separator(void);
/* Joins dir and name with the platform separator (malloc'ed). */
char *olc_plugins__join(const char *dir, const char *name);

/* 0 with msg when the table's tolerances (ABI 1.2) are malformed, negative
 * or not finite (tolerance.c). */
int olc_plugins__tolerances_ok(const olc_plugin *t, char *msg, size_t size);

#endif
