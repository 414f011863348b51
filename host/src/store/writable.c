/*
 * store/writable.c - whether a store may be written: read-only mode, the
 * file system under it (persist's probe: a read-only mount, permissions, a
 * network file system), and the opt-in environment for embedders.
 */
#include <stdio.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"

#define NETWORK_REMEDY                                                                             \
  "use a local path, or read-only mode ([store] persistence = read_only), or "                     \
  "[store] allow_network_fs = true"

int olc_store_is_read_only(const olc_store *store) { return store != NULL && store->read_only; }

static olc_status network_refused(const olc_store *store, const char *type, const char *what,
                                  olc_error *err) {
  return olc_error__set(err, OLC_E_READ_ONLY, what,
                        "%s is on a network file system (%s): %s refused; " NETWORK_REMEDY,
                        store->path, type, what);
}

olc_status olc_store__check_write(olc_store *store, const char *what, olc_error *err) {
  if (store->read_only)
    return olc_error__set(err, OLC_E_READ_ONLY, what,
                          "%s is read-only (read-only mode): %s refused, nothing written",
                          store->path, what);
  if (store->allow_network_fs)
    return OLC_OK;
  if (store->net_state == 0) {
    olc_persist_fs fs;
    store->net_state = 1;
    if (olc_persist__fs_probe(&fs, store->path, NULL) == OLC_OK && fs.network) {
      store->net_state = 2;
      snprintf(store->net_type, sizeof store->net_type, "%s", fs.type);
    }
  }
  return store->net_state == 2 ? network_refused(store, store->net_type, what, err) : OLC_OK;
}

static void fill_info(olc_store_fs_info *info, const olc_store *store, const olc_persist_fs *fs) {
  memset(info, 0, sizeof *info);
  info->read_only_mode = store->read_only;
  info->read_only_fs = fs->read_only;
  info->dir_writable = fs->dir_writable;
  info->file_writable = fs->file_writable && fs->lock_writable;
  info->network = fs->network;
  snprintf(info->fs_type, sizeof info->fs_type, "%s", fs->type);
}

/* The first reason found, in the order a user fixes them. */
static olc_status why_not(const olc_store *store, const olc_persist_fs *fs, olc_error *err) {
  const char *p = store->path;
  char ebuf[96];
  if (store->read_only)
    return olc_error__set(err, OLC_E_READ_ONLY, "writable", "%s is read-only (read-only mode)", p);
  if (fs->read_only)
    return olc_error__set(err, OLC_E_READ_ONLY, "writable", "%s: read-only file system (%s)", p,
                          fs->dir);
  if (!fs->dir_writable)
    return olc_error__set(err, OLC_E_READ_ONLY, "writable", "%s: cannot write the directory %s: %s",
                          p, fs->dir, olc_error__strerror(fs->dir_errno, ebuf, sizeof ebuf));
  if (!fs->file_writable)
    return olc_error__set(err, OLC_E_READ_ONLY, "writable", "%s: cannot write the file: %s", p,
                          olc_error__strerror(fs->file_errno, ebuf, sizeof ebuf));
  if (!fs->lock_writable)
    return olc_error__set(err, OLC_E_READ_ONLY, "writable",
                          "%s: cannot write its lock file %s.lock", p, p);
  if (fs->network && !store->allow_network_fs)
    return network_refused(store, fs->type, "writing", err);
  return OLC_OK;
}

olc_status olc_store_writable(olc_store *store, olc_store_fs_info *info, olc_error *err) {
  olc_persist_fs fs;
  olc_status st;
  if (info != NULL)
    memset(info, 0, sizeof *info);
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "writable", "store handle is NULL");
  if (!store->persist)
    return olc_error__set(err, OLC_E_DISABLED, "writable",
                          "persistence is off: saves are kept in memory");
  st = olc_persist__fs_probe(&fs, store->path, err);
  if (st != OLC_OK)
    return st;
  if (info != NULL)
    fill_info(info, store, &fs);
  return why_not(store, &fs, err);
}

/* ---- the opt-in environment ---- */

static int word_is(const char *v, const char *const *words) {
  size_t i;
  for (i = 0; words[i] != NULL; i++)
    if (strcmp(v, words[i]) == 0)
      return 1;
  return 0;
}

olc_status olc_store_options_from_env(olc_store_options *options, olc_error *err) {
  static const char *const off[] = {"off", "false", "no", "0", NULL};
  static const char *const on[] = {"on", "true", "yes", "1", NULL};
  static const char *const ro[] = {"read_only", "read-only", "readonly", NULL};
  const char *path, *mode;
  if (options == NULL)
    return olc_error__set(err, OLC_E_INVALID, "env", "options is NULL");
  if (options->version < 1u || options->version > OLC_STORE_OPTIONS_VERSION)
    return olc_error__set(err, OLC_E_INVALID, "env",
                          "olc_store_options version %u: this library accepts 1 to %u",
                          (unsigned)options->version, (unsigned)OLC_STORE_OPTIONS_VERSION);
  path = olc_persist__env("OLC_STORE");
  mode = olc_persist__env("OLC_PERSISTENCE");
  if (mode != NULL && !word_is(mode, off) && !word_is(mode, on) && !word_is(mode, ro))
    return olc_error__set(err, OLC_E_INVALID, "env",
                          "OLC_PERSISTENCE=\"%.60s\": expected off, read_only or on", mode);
  if (path != NULL)
    options->path = path;
  if (mode != NULL) {
    options->persistence_enabled = !word_is(mode, off);
    options->read_only = word_is(mode, ro);
  }
  if (olc_store_env_layers() != NULL)
    options->layers_list = olc_store_env_layers();
  return OLC_OK;
}

const char *olc_store_env_layers(void) { return olc_persist__env("OLC_STORE_LAYERS"); }
