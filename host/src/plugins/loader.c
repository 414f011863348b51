/*
 * plugins/loader.c - finds plugin files, loads and checks them (the table
 * checks are in table_check.c), creates one instance of each, and records
 * every file in the load report.
 *
 * Order: the explicit files in order, then the configured directories in
 * order, then the absolute entries of OLC_PLUGIN_PATH; inside a directory,
 * files in sorted order of their absolute path.  The first file that
 * provides a name wins; later ones are reported as duplicates.
 *
 * Decisions the header leaves open:
 * - A directory that does not exist is skipped: silently when it is marked
 *   optional (the default config lists both build-tree and install
 *   locations), else with a warning through the set's sink; one that
 *   cannot be read gets a report entry (stage open, path = the directory).
 * - OLC_PLUGIN_PATH entries that are not absolute are ignored with a
 *   warning; the variable is read with secure_getenv and ignored when
 *   uid != euid or gid != egid.
 * - Permissions: the file, every directory above it up to the root and
 *   (for a link) the resolved file and every directory above that must be
 *   owned by this user or root and not writable by group or others (a
 *   root-owned sticky directory such as /tmp may be), as OpenSSH's
 *   StrictModes checks; allow_insecure_plugins is the only way around it.
 *   Not checked on Windows (ACLs).
 * - An entry with the plugin suffix that is not a regular file (a
 *   directory, a FIFO, a device, a dangling link, a link loop) gets a report
 *   entry at stage open saying what it is, and is never opened.
 * - "Unavailable here" (create returns OLC_PLUGIN_E_UNAVAILABLE) is not a
 *   failure: reported at stage create with unavailable = 1, never fatal,
 *   even for a critical plugin.  A duplicate or a disabled plugin is not a
 *   failure either.
 * - A file whose name without suffix names a plugin with enabled = false is
 *   not even opened (its constructors do not run); otherwise a disabled
 *   plugin is recognised by its table's name and never created.
 * - critical = true is matched by the plugin's name, or by the file's name
 *   while the plugin's name is not known yet (open, symbol, abi failures).
 *   A critical plugin that no file provides is not detected (the config
 *   has no way to list its [plugin.*] sections).
 *
 * Libraries are never dlclose'd, not even one that failed validation: a
 * library may have started threads or registered TLS destructors or atexit
 * handlers in its constructors, and unmapping it is how hosts crash at exit.
 * The cost is the mapping of a rejected file, which is small.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"
#include "util/error.h"
#include "util/text.h"

#define MSG_SIZE 512
/* Internal "this file was skipped and reported" result (never returned). */
#define SKIPPED OLC_E_UNAVAILABLE

/* What loading one file found so far. */
typedef struct load_ctx {
  olc_plugin_set *set;
  const olc_plugins_params *params;
  const char *path;
  char stem[OLC_PLUGINS_MAX_NAME + 1]; /* file name without suffix, for config */
  const char *name;                    /* plugin name once known (table string) */
  const char *version;
  olc_plugins_lib *lib;
} load_ctx;

static const olc_plugin_config *plugin_cfg(const olc_plugins_params *params, const char *name) {
  if (params->plugin_config == NULL || name == NULL || name[0] == 0)
    return NULL;
  return params->plugin_config(params->plugin_config_payload, name);
}

/*
 * Records a skip.  A failure of a plugin marked critical (by its name, or by
 * the file's stem while the name is unknown) is fatal: OLC_E_PLUGIN in err.
 */
static olc_status skip(load_ctx *lc, olc_load_stage stage, olc_status status, int32_t pstatus,
                       int unavailable, const char *message, olc_error *err) {
  const char *who = lc->name != NULL ? lc->name : lc->stem;
  const olc_plugin_config *cfg = plugin_cfg(lc->params, who);
  if (olc_plugins__report_add(lc->set, lc->path, lc->name, lc->version, stage, status, pstatus,
                              unavailable, message) != OLC_OK)
    return olc_error__set(err, OLC_E_NOMEM, "load", "out of memory recording %s", lc->path);
  if (cfg != NULL && cfg->critical && !unavailable && stage != OLC_LOAD_DISABLED &&
      stage != OLC_LOAD_DUPLICATE) {
    olc_error__set(err, OLC_E_PLUGIN, "load", "plugin %s: critical plugin failed at stage %s: %s",
                   who, olc_load_stage_str(stage), message);
    if (err != NULL)
      err->backend_code = pstatus;
    return OLC_E_PLUGIN;
  }
  return OLC_OK;
}

static olc_status push_plugin(olc_plugin_set *h, olc_loaded_plugin *lp) {
  if (h->plugin_count == h->plugin_cap) {
    size_t ncap = h->plugin_cap ? h->plugin_cap * 2 : 8;
    olc_loaded_plugin **n = realloc(h->plugins, ncap * sizeof *n);
    if (n == NULL)
      return OLC_E_NOMEM;
    h->plugins = n;
    h->plugin_cap = ncap;
  }
  h->plugins[h->plugin_count++] = lp;
  return OLC_OK;
}

/* Calls create with the [plugin.NAME] entries; lp is attached to its lib. */
static olc_status create_instance(load_ctx *lc, olc_loaded_plugin *lp, olc_error *err) {
  const olc_plugin_config *cfg = plugin_cfg(lc->params, lc->name);
  olc_plugin_kv *kv = NULL;
  uint32_t n = 0;
  uint32_t threads = lc->set->threads;
  void *inst = NULL;
  int32_t rc;
  int32_t code = 0;
  const char *pmsg;
  char msg[MSG_SIZE];
  olc_status st;
  if (cfg != NULL && cfg->entry_count > 0) {
    size_t i;
    if (cfg->entry_count > UINT32_MAX) {
      st = skip(lc, OLC_LOAD_CREATE, OLC_E_LIMIT, 0, 0, "too many config entries", err);
      return st == OLC_OK ? SKIPPED : st;
    }
    kv = calloc(cfg->entry_count, sizeof *kv);
    if (kv == NULL)
      return olc_error__set(err, OLC_E_NOMEM, "create", "out of memory");
    for (i = 0; i < cfg->entry_count; i++) {
      kv[i].key = cfg->entries[i].name;
      kv[i].value = cfg->entries[i].value;
    }
    n = (uint32_t)cfg->entry_count;
  }
  olc_plugins__lifecycle_lock();
  olc_plugins__error_clear();
  rc = lp->table->create(&lc->lib->services, kv, n, threads, &inst);
  pmsg = olc_plugins__error_message(lc->lib, &code);
  olc_plugins__lifecycle_unlock();
  free(kv);
  if (rc == OLC_PLUGIN_OK) {
    lp->instance = inst;
    lp->created = 1;
    return OLC_OK;
  }
  if (rc == OLC_PLUGIN_E_UNAVAILABLE) {
    snprintf(msg, sizeof msg, "unavailable here: %s", pmsg ? pmsg : "(no detail)");
    st = skip(lc, OLC_LOAD_CREATE, OLC_E_UNAVAILABLE, rc, 1, msg, err);
  } else {
    snprintf(msg, sizeof msg, "create failed with status %d: %s", (int)rc,
             pmsg ? pmsg : "(no detail)");
    st = skip(lc, OLC_LOAD_CREATE, OLC_E_PLUGIN, rc, 0, msg, err);
  }
  return st == OLC_OK ? SKIPPED : st; /* not created: caller drops lp */
}

/* Entry call and table checks; on success *out is the new loaded plugin. */
static olc_status enter(load_ctx *lc, olc_plugin_entry_fn entry, olc_loaded_plugin **out,
                        olc_error *err) {
  const olc_plugin *t = NULL;
  olc_loaded_plugin *lp = calloc(1, sizeof *lp);
  const char *pmsg;
  char msg[MSG_SIZE];
  olc_load_stage stage = OLC_LOAD_ABI;
  int32_t rc;
  olc_status st;
  *out = NULL;
  if (lp == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "load", "out of memory");
  lp->set = lc->set;
  lp->lib = lc->lib;
  lp->forks = olc_plugins__forks();
  olc_plugins__lib_attach(lc->lib, lp);
  olc_plugins__lifecycle_lock();
  olc_plugins__error_clear();
  rc = entry(OLC_PLUGIN_ABI_MAJOR, &lc->lib->services, &t);
  pmsg = olc_plugins__error_message(lc->lib, NULL);
  olc_plugins__lifecycle_unlock();
  if (rc != OLC_PLUGIN_OK || t == NULL) {
    if (rc == OLC_PLUGIN_E_ABI)
      snprintf(msg, sizeof msg, "plugin does not support abi major %u%s%s", OLC_PLUGIN_ABI_MAJOR,
               pmsg ? ": " : "", pmsg ? pmsg : "");
    else
      snprintf(msg, sizeof msg, "entry failed with status %d: %s", (int)rc,
               pmsg ? pmsg : (t == NULL && rc == 0 ? "no table returned" : "(no detail)"));
    st = skip(lc, OLC_LOAD_ABI, OLC_E_PLUGIN, rc, 0, msg, err);
    goto fail;
  }
  if (!olc_plugins__table_check(t, &stage, &lc->name, msg, sizeof msg)) {
    st = skip(lc, stage, OLC_E_PLUGIN, 0, 0, msg, err);
    goto fail;
  }
  lc->version = t->implementation_version;
  lp->table = t;
  /* The table's strings until keep_names copies them (create may log). */
  lp->name = t->name;
  lp->version = t->implementation_version;
  lp->path = lc->path;
  *out = lp;
  return OLC_OK;
fail:
  olc_plugins__lib_detach(lc->lib, lp);
  free(lp);
  return st == OLC_OK ? SKIPPED : st;
}

/* Names the arena copies the loaded plugin keeps. */
static olc_status keep_names(olc_plugin_set *h, olc_loaded_plugin *lp, const load_ctx *lc) {
  lp->name = olc_arena__strdup(&h->arena, lc->name);
  lp->version = olc_arena__strdup(&h->arena, lc->version);
  lp->path = olc_arena__strdup(&h->arena, lc->path);
  return lp->name && lp->version && lp->path ? OLC_OK : OLC_E_NOMEM;
}

/* The checks before a file is opened, then dlopen and the entry symbol.
 * *entry NULL with OLC_OK: skipped (reported).  On success lc->lib holds
 * the library. */
static olc_status open_entry(load_ctx *lc, const char *fname, olc_plugin_entry_fn *entry,
                             olc_error *err) {
  const olc_plugin_config *cfg;
  char msg[MSG_SIZE];
  char dlmsg[MSG_SIZE - 128];
  void *handle;
  void *sym;
  size_t stem_len = strlen(fname) - olc_plugins__suffix_len(fname);
  *entry = NULL;
  if (stem_len <= OLC_PLUGINS_MAX_NAME) {
    memcpy(lc->stem, fname, stem_len);
    lc->stem[stem_len] = 0;
  }
  /* A file named after a disabled plugin is not even opened: its
   * constructors do not run. */
  cfg = plugin_cfg(lc->params, lc->stem);
  if (cfg != NULL && !cfg->enabled) {
    lc->name = lc->stem;
    snprintf(msg, sizeof msg, "disabled by [plugin.%s] enabled = false (file not opened)",
             lc->stem);
    return skip(lc, OLC_LOAD_DISABLED, OLC_OK, 0, 0, msg, err);
  }
  if (olc_plugins__not_regular(lc->path, msg, sizeof msg))
    return skip(lc, OLC_LOAD_OPEN, OLC_E_INVALID, 0, 0, msg, err);
  if (!lc->params->allow_insecure_plugins && olc_plugins__insecure(lc->path, msg, sizeof msg))
    return skip(lc, OLC_LOAD_PERMISSIONS, OLC_E_INVALID, 0, 0, msg, err);
  handle = olc_plugins__dl_open(lc->path, dlmsg, sizeof dlmsg);
  if (handle == NULL) {
    snprintf(msg, sizeof msg, "cannot load: %s", dlmsg);
    return skip(lc, OLC_LOAD_OPEN, OLC_E_PLUGIN, 0, 0, msg, err);
  }
  lc->lib = olc_plugins__lib_get(handle, lc->path);
  if (lc->lib == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "load", "out of memory");
  sym = olc_plugins__dl_sym(handle, OLC_PLUGIN_ENTRY_SYMBOL, dlmsg, sizeof dlmsg);
  if (sym == NULL) {
    snprintf(msg, sizeof msg, "no %s symbol: %s", OLC_PLUGIN_ENTRY_SYMBOL, dlmsg);
    return skip(lc, OLC_LOAD_SYMBOL, OLC_E_PLUGIN, 0, 0, msg, err);
  }
  /* Object to function pointer: POSIX guarantees it works for dlsym. */
  memcpy(entry, &sym, sizeof *entry);
  return OLC_OK;
}

/* A plugin whose table passed: refused when its name is taken or
 * disabled, else created and added to h (which then owns lp). */
static olc_status admit(olc_plugin_set *h, load_ctx *lc, olc_loaded_plugin *lp, olc_error *err) {
  const olc_plugin_config *cfg = plugin_cfg(lc->params, lc->name);
  const olc_loaded_plugin *other = olc_plugins__find(h, lc->name);
  char msg[MSG_SIZE];
  olc_status st;
  if (other != NULL) {
    snprintf(msg, sizeof msg, "plugin %s is already loaded from %s", lc->name, other->path);
    st = skip(lc, OLC_LOAD_DUPLICATE, OLC_E_DUPLICATE, 0, 0, msg, err);
    goto drop;
  }
  if (cfg != NULL && !cfg->enabled) {
    snprintf(msg, sizeof msg, "disabled by [plugin.%s] enabled = false", lc->name);
    st = skip(lc, OLC_LOAD_DISABLED, OLC_OK, 0, 0, msg, err);
    goto drop;
  }
  st = create_instance(lc, lp, err);
  if (st != OLC_OK)
    goto drop;
  if (keep_names(h, lp, lc) != OLC_OK || push_plugin(h, lp) != OLC_OK) {
    st = olc_error__set(err, OLC_E_NOMEM, "load", "out of memory");
    goto destroy;
  }
  snprintf(msg, sizeof msg, "loaded %s %s", lc->name, lc->version);
  st = olc_plugins__report_add(h, lc->path, lc->name, lc->version, OLC_LOAD_LOADED, OLC_OK, 0, 0,
                               msg);
  if (st != OLC_OK)
    return olc_error__set(err, st, "load", "out of memory"); /* lp is owned by h now */
  return OLC_OK;
destroy:
  olc_plugins__lifecycle_lock();
  lp->table->destroy(lp->instance);
  olc_plugins__lifecycle_unlock();
drop:
  olc_plugins__lib_detach(lc->lib, lp);
  free(lp);
  return st == SKIPPED ? OLC_OK : st;
}

/* Loads one file.  OLC_OK unless fatal (critical failure, out of memory). */
static olc_status load_file(olc_plugin_set *h, const olc_plugins_params *params, const char *path,
                            const char *fname, olc_error *err) {
  load_ctx lc;
  olc_plugin_entry_fn entry;
  olc_loaded_plugin *lp = NULL;
  olc_status st;
  memset(&lc, 0, sizeof lc);
  lc.set = h;
  lc.params = params;
  lc.path = path;
  st = open_entry(&lc, fname, &entry, err);
  if (st != OLC_OK || entry == NULL)
    return st;
  st = enter(&lc, entry, &lp, err);
  if (st != OLC_OK)
    return st == SKIPPED ? OLC_OK : st;
  return admit(h, &lc, lp, err);
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Loads the plugin files of one directory (already made absolute). */
static olc_status load_dir(olc_plugin_set *h, const olc_plugins_params *params, const char *dir,
                           olc_error *err) {
  char **names = NULL;
  size_t count = 0;
  size_t i;
  olc_error lerr;
  olc_status st = olc_plugins__list_dir(&names, &count, dir, &lerr);
  if (st == OLC_E_NOMEM)
    return olc_error__set(err, st, "load", "out of memory");
  if (st != OLC_OK)
    return olc_plugins__report_add(h, dir, NULL, NULL, OLC_LOAD_OPEN, st, 0, 0, lerr.message);
  /* Same directory, so sorting names sorts absolute paths. */
  if (count > 1)
    qsort(names, count, sizeof *names, cmp_names);
  for (i = 0; i < count && st == OLC_OK; i++) {
    char *path = olc_plugins__join(dir, names[i]);
    if (path == NULL) {
      st = olc_error__set(err, OLC_E_NOMEM, "load", "out of memory");
      break;
    }
    st = load_file(h, params, path, names[i], err);
    free(path);
  }
  olc_plugins__free_names(names, count);
  return st;
}

/* The directories to search, resolved, without duplicates. */
typedef struct dir_list {
  char **dirs;
  size_t count;
  size_t cap;
} dir_list;

/* Appends dir (resolved) to the list unless it is missing or already
 * there; a missing one that is not optional gets a warning naming origin
 * ("plugin_dirs", "OLC_PLUGIN_PATH"). */
static olc_status add_dir(dir_list *l, olc_plugin_set *set, const char *dir, int optional,
                          const char *origin) {
  char *real;
  const char **searched;
  size_t i;
  if (dir == NULL || dir[0] == 0)
    return OLC_OK;
  /* Kept as asked for, for a caller that finds nothing to say where. */
  searched = realloc(set->searched, (set->searched_count + 1) * sizeof *searched);
  if (searched == NULL)
    return OLC_E_NOMEM;
  set->searched = searched;
  if ((searched[set->searched_count] = olc_arena__strdup(&set->arena, dir)) == NULL)
    return OLC_E_NOMEM;
  set->searched_count++;
  real = olc_plugins__realpath(dir);
  if (real == NULL || !olc_plugins__is_dir(real)) {
    if (!optional)
      olc_diag__emit(set->diag, OLC_DIAG_WARNING, origin, "plugin directory %s %s: skipped", dir,
                     real == NULL ? "does not exist" : "is not a directory");
    free(real);
    return OLC_OK;
  }
  for (i = 0; i < l->count; i++)
    if (strcmp(l->dirs[i], real) == 0) {
      free(real);
      return OLC_OK;
    }
  if (l->count == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 8;
    char **n = realloc(l->dirs, ncap * sizeof *n);
    if (n == NULL) {
      free(real);
      return OLC_E_NOMEM;
    }
    l->dirs = n;
    l->cap = ncap;
  }
  l->dirs[l->count++] = real;
  return OLC_OK;
}

/* The absolute entries of OLC_PLUGIN_PATH (relative ones would depend on
 * the current directory: ignored, with a warning). */
static olc_status collect_env(dir_list *l, olc_plugin_set *set) {
  const char *env = olc_plugins__env_path();
  olc_status st = OLC_OK;
  while (st == OLC_OK && env != NULL && *env != 0) {
    const char *end = strchr(env, olc_plugins__path_separator());
    size_t n = end ? (size_t)(end - env) : strlen(env);
    char *one = malloc(n + 1);
    if (one == NULL)
      return OLC_E_NOMEM;
    memcpy(one, env, n);
    one[n] = 0;
    if (olc_util__is_absolute(one))
      st = add_dir(l, set, one, 0, "OLC_PLUGIN_PATH");
    else if (one[0] != 0)
      olc_diag__emit(set->diag, OLC_DIAG_WARNING, "OLC_PLUGIN_PATH",
                     "entry %s is not an absolute path: ignored", one);
    free(one);
    env = end ? end + 1 : NULL;
  }
  return st;
}

/* The configured directories, then OLC_PLUGIN_PATH's. */
static olc_status collect_dirs(dir_list *l, olc_plugin_set *set, const olc_plugins_params *params) {
  size_t i;
  olc_status st = OLC_OK;
  for (i = 0; i < params->dir_count && st == OLC_OK; i++)
    st = add_dir(l, set, params->dirs[i], params->dir_optional != NULL && params->dir_optional[i],
                 "plugin_dirs");
  if (st == OLC_OK && !params->ignore_env)
    st = collect_env(l, set);
  return st;
}

/* The explicit files, each by its own name. */
static olc_status load_files(olc_plugin_set *set, const olc_plugins_params *params,
                             olc_error *err) {
  size_t i;
  olc_status st = OLC_OK;
  for (i = 0; i < params->file_count && st == OLC_OK; i++) {
    const char *path = params->files[i];
    const char *base = strrchr(path, '/');
#if defined(_WIN32)
    const char *bs = strrchr(path, '\\');
    if (bs != NULL && (base == NULL || bs > base))
      base = bs;
#endif
    st = load_file(set, params, path, base != NULL ? base + 1 : path, err);
  }
  return st;
}

static olc_status check_params(const olc_plugins_params *params) {
  if (params == NULL || (params->dir_count > 0 && params->dirs == NULL) ||
      (params->file_count > 0 && params->files == NULL))
    return OLC_E_INVALID;
  return OLC_OK;
}

olc_status olc_plugins__open(olc_plugin_set **out, const olc_plugins_params *params,
                             olc_error *err) {
  olc_plugin_set *h;
  dir_list dirs = {NULL, 0, 0};
  size_t i;
  olc_status st;
  if (out == NULL || check_params(params) != OLC_OK)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "invalid argument");
  *out = NULL;
  h = calloc(1, sizeof *h);
  if (h == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
  h->threads = params->threads > 0 ? params->threads : 1;
  h->allow_insecure_plugins = params->allow_insecure_plugins;
  h->store_ops = params->store_ops;
  h->store_payload = params->store_payload;
  h->diag = params->diag;
  st = load_files(h, params, err);
  if (st == OLC_OK && (st = collect_dirs(&dirs, h, params)) != OLC_OK)
    olc_error__set(err, st, "olc_host_open", "out of memory");
  for (i = 0; i < dirs.count && st == OLC_OK; i++)
    st = load_dir(h, params, dirs.dirs[i], err);
  olc_plugins__free_names(dirs.dirs, dirs.count);
  if (st != OLC_OK) {
    olc_plugins__free(h);
    return st;
  }
  *out = h;
  return OLC_OK;
}

void olc_plugins__free(olc_plugin_set *set) {
  size_t i;
  if (set == NULL)
    return;
  /* Reverse order of creation, like a stack of constructors.  In a child
   * of fork() the instances are left alone: their threads stayed in the
   * parent, and joining them here would hang. */
  for (i = set->plugin_count; i > 0; i--) {
    olc_loaded_plugin *lp = set->plugins[i - 1];
    if (lp->created && !olc_plugins__forked(lp, "free", NULL)) {
      olc_plugins__lifecycle_lock();
      lp->table->destroy(lp->instance);
      olc_plugins__lifecycle_unlock();
    }
    olc_plugins__lib_detach(lp->lib, lp);
    free(lp);
  }
  free(set->plugins);
  free(set->report);
  free(set->searched);
  olc_arena__free(&set->arena);
  free(set);
}

size_t olc_plugins__searched_count(const olc_plugin_set *set) {
  return set != NULL ? set->searched_count : 0;
}

const char *olc_plugins__searched(const olc_plugin_set *set, size_t i) {
  return set != NULL && i < set->searched_count ? set->searched[i] : NULL;
}
