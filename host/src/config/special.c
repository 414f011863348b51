/*
 * config/special.c - what some rows of the key table (key_table.c) need beyond
 * their type: the setter of [workload.*] model (the file's SHA-256), the
 * checks of plugin names and digests, and the identity of a workload
 * without a model.
 */
#include "config/ini_parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* model = PATH: the digest of the file, resolved like any path. */
int olc_config__set_model(parser *p, const olc_config_key *k, char *base, const char *value) {
  olc_error derr;
  const char *why = NULL;
  char digest[OLC_DIGEST_SIZE];
  char *path = olc_config__resolve_path(value, p->cfg->base_dir, &why);
  olc_status st;
  if (path == NULL)
    return olc_config__key_fail(p, k, OLC_E_CONFIG, "%s", why);
  st = olc_config__sha256_file(digest, path, &derr);
  free(path);
  if (st != OLC_OK) {
    olc_config__key_fail(p, k, st == OLC_E_NOMEM ? st : OLC_E_CONFIG, "%s", derr.message);
    if (p->err != NULL)
      p->err->sys_errno = derr.sys_errno;
    return 0;
  }
  return olc_config__store_string(p, k, base, digest);
}

int olc_config__is_plugin_name(const char *value) {
  return strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(value);
}

/* sha256:<64 hex>, or another "<algorithm>:<hex>" digest kept as written. */
int olc_config__is_digest(const char *v) {
  const char *colon = strchr(v, ':');
  size_t i, n;
  if (colon == NULL || colon == v)
    return 0;
  n = strlen(colon + 1);
  if (n == 0 || (strncmp(v, "sha256:", 7) == 0 && n != 64))
    return 0;
  for (i = 0; i < n; i++)
    if (strchr("0123456789abcdefABCDEF", colon[1 + i]) == NULL)
      return 0;
  return 1;
}

int olc_config__set_model_digest(parser *p, const olc_config_key *k, char *base,
                                 const char *value) {
  /* "workload:..." is what this config writes for a workload without a
   * model; taken as a digest, the host would drop it as no model. */
  if (strncmp(value, "workload:", 9) == 0)
    return olc_config__key_fail(p, k, OLC_E_CONFIG,
                                "'%.60s' is not a model digest (workload: names a workload "
                                "without a model; leave model_digest out for that)",
                                value);
  if (!olc_config__is_digest(value))
    return olc_config__bad_value(p, k, value);
  return olc_config__store_string(p, k, base, value);
}

static int cmp_property(const void *a, const void *b) {
  return strcmp(((const olc_property *)a)->name, ((const olc_property *)b)->name);
}

/*
 * The identity of a workload that names no model: "workload:" and its
 * properties sorted by name, "name=value" joined by ';'.  The exact store
 * key has no structure of its own, so without this every model-less
 * workload of a plugin (a 256^3 and a 512^3 GEMM) would share one exact
 * record.  Readable on purpose: `olc explain` shows it when it differs.
 */
int olc_config__structural_digest(parser *p, olc_workload_config *w, const olc_config_kvs *props) {
  olc_property *sorted = NULL;
  size_t i, pos, len = sizeof "workload:";
  char *text;
  for (i = 0; i < props->count; i++)
    len += strlen(props->items[i].name) + strlen(props->items[i].value) + 2;
  text = olc_arena__alloc(&p->cfg->arena, len);
  if (props->count > 0)
    sorted = malloc(props->count * sizeof *sorted);
  if (text == NULL || (props->count > 0 && sorted == NULL)) {
    free(sorted);
    return olc_config__nomem(p);
  }
  if (props->count > 0) {
    memcpy(sorted, props->items, props->count * sizeof *sorted);
    qsort(sorted, props->count, sizeof *sorted, cmp_property);
  }
  pos = (size_t)snprintf(text, len, "workload:");
  for (i = 0; i < props->count; i++)
    pos += (size_t)snprintf(text + pos, len - pos, "%s%s=%s", i > 0 ? ";" : "", sorted[i].name,
                            sorted[i].value);
  free(sorted);
  w->model_digest = text;
  return 1;
}
