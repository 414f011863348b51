/*
 * persist/fs_win32.c - the file-system probe on Windows: nothing is
 * detected (persist.h), every field says writable and local.
 */
#include <stdlib.h>
#include <string.h>

#include "persist/persist_int.h"
#include "util/error.h"

olc_status olc_persist__fs_probe(olc_persist_fs *out, const char *path, olc_error *err) {
  const char *hooked = olc_persist__hook_fs_type();
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "fs", "no output or no path");
  memset(out, 0, sizeof *out);
  out->dir_writable = 1;
  out->file_writable = 1;
  out->lock_writable = 1;
  if (hooked != NULL) {
    strncpy(out->type, hooked, sizeof out->type - 1);
    out->network = olc_persist__fs_type_is_network(out->type);
  }
  return OLC_OK;
}

/* getenv's bytes are the ANSI code page's; a store path in OLC_STORE is
 * passed on as the CLI passes its arguments. */
const char *olc_persist__env(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != 0 ? v : NULL;
}
