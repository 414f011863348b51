/*
 * config/keys.c - the keys of each section: the fixed host sections
 * ([host], [store], [calibration]) with their value checks, [workload.*]
 * and [plugin.*].
 */
#include "config/parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys of the host's fixed sections; the index is the bit in `seen`. */
static const char *const host_keys[] = {"plugin_dirs", "threads", "allow_insecure_plugins", NULL};
static const char *const store_keys[] = {"path", "persistence", "force_portable", "lock_timeout_ms",
                                         NULL};
static const char *const calibration_keys[] = {"warmup",
                                               "min_repetitions",
                                               "min_seconds",
                                               "max_seconds_per_workload",
                                               "abandon_factor",
                                               "isolation",
                                               "run_timeout_seconds",
                                               "strategy",
                                               NULL};

static int key_index(const char *const *keys, const char *name) {
  int i;
  for (i = 0; keys[i] != NULL; i++)
    if (strcmp(keys[i], name) == 0)
      return i;
  return -1;
}

static const char *section_label(const parser *p) {
  switch (p->kind) {
  case SEC_HOST:
    return "host";
  case SEC_STORE:
    return "store";
  case SEC_CALIBRATION:
    return "calibration";
  default:
    return "?";
  }
}

static int bad_value(parser *p, const char *name, const char *value, const char *expected) {
  return olc_config__fail(p, p->line, OLC_E_CONFIG, "[%s] %s: bad value '%.60s' (expected %s)",
                          section_label(p), name, value, expected);
}

static int parse_u32(parser *p, uint32_t *out, const char *name, const char *value, int64_t min,
                     int64_t max) {
  int64_t v;
  if (!olc_config__parse_int(&v, value, min, max)) {
    char expected[80];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)min,
             (long long)max);
    return bad_value(p, name, value, expected);
  }
  *out = (uint32_t)v;
  return 1;
}

static int parse_seconds(parser *p, double *out, const char *name, const char *value, double min,
                         int min_exclusive, double max) {
  double v;
  if (!olc_config__parse_decimal(&v, value) || v < min || (min_exclusive && v == min) || v > max) {
    char expected[80];
    snprintf(expected, sizeof expected, "a number %s %g and <= %g", min_exclusive ? ">" : ">=", min,
             max);
    return bad_value(p, name, value, expected);
  }
  *out = v;
  return 1;
}

static int parse_flag(parser *p, int *out, const char *name, const char *value) {
  if (!olc_config__parse_bool(out, value))
    return bad_value(p, name, value, "true/false, yes/no, on/off or 1/0");
  return 1;
}

/* "a:b,c" -> resolved directories; an empty value means none. */
int olc_config__set_plugin_dirs(parser *p, const char *value) {
  olc_config *c = p->cfg;
  size_t count = 1, i, n = 0;
  const char *s;
  for (s = value; *s != 0; s++)
    count += *s == ':' || *s == ',';
  c->plugin_dirs = olc_arena__alloc(&c->arena, count * sizeof *c->plugin_dirs);
  if (c->plugin_dirs == NULL)
    return olc_config__nomem(p);
  s = value;
  for (i = 0; i < count; i++) {
    size_t len = strcspn(s, ":,");
    const char *why = NULL;
    char item[4096], *resolved;
    const char *next = s[len] != 0 ? s + len + 1 : s + len;
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
      len--;
    while (len > 0 && (*s == ' ' || *s == '\t')) {
      s++;
      len--;
    }
    if (len > 0) {
      if (len >= sizeof item)
        return olc_config__fail(p, p->line, OLC_E_CONFIG, "[host] plugin_dirs: path too long");
      memcpy(item, s, len);
      item[len] = 0;
      resolved = olc_config__resolve_path(item, c->base_dir, &why);
      if (resolved == NULL)
        return olc_config__fail(p, p->line, OLC_E_CONFIG, "[host] plugin_dirs: '%.60s': %s", item,
                                why);
      c->plugin_dirs[n] = olc_arena__strdup(&c->arena, resolved);
      free(resolved);
      if (c->plugin_dirs[n++] == NULL)
        return olc_config__nomem(p);
    }
    s = next;
  }
  c->plugin_dir_count = n;
  p->has_plugin_dirs = 1;
  return 1;
}

static int host_key(parser *p, int k, const char *name, const char *value) {
  olc_config *c = p->cfg;
  switch (k) {
  case 0:
    return olc_config__set_plugin_dirs(p, value);
  case 1:
    return parse_u32(p, &c->threads_configured, name, value, 0, 65536);
  default:
    return parse_flag(p, &c->allow_insecure_plugins, name, value);
  }
}

static int store_key(parser *p, int k, const char *name, const char *value) {
  olc_config *c = p->cfg;
  const char *why = NULL;
  char *path;
  switch (k) {
  case 0:
    path = olc_config__resolve_path(value, c->base_dir, &why);
    if (path == NULL)
      return olc_config__fail(p, p->line, OLC_E_CONFIG, "[store] path: %s", why);
    c->store_path = olc_arena__strdup(&c->arena, path);
    free(path);
    return c->store_path != NULL ? 1 : olc_config__nomem(p);
  case 1:
    return parse_flag(p, &c->persistence, name, value);
  case 2:
    return parse_flag(p, &c->force_portable, name, value);
  default: {
    int64_t v;
    if (!olc_config__parse_int(&v, value, -1, 86400000))
      return bad_value(p, name, value, "milliseconds from -1 (forever) to 86400000");
    c->lock_timeout_ms = v;
    return 1;
  }
  }
}

static int calibration_key(parser *p, int k, const char *name, const char *value) {
  olc_calibration_settings *s = &p->cfg->calibration;
  switch (k) {
  case 0:
    return parse_u32(p, &s->warmup, name, value, 0, 1000000);
  case 1:
    return parse_u32(p, &s->min_repetitions, name, value, 1, 1000000);
  case 2:
    return parse_seconds(p, &s->min_seconds, name, value, 0.0, 0, 3600.0);
  case 3:
    return parse_seconds(p, &s->max_seconds_per_workload, name, value, 0.0, 1, 86400.0);
  case 4:
    return parse_seconds(p, &s->abandon_factor, name, value, 1.0, 0, 1e6);
  case 5:
    return parse_flag(p, &s->isolation, name, value);
  case 6:
    return parse_seconds(p, &s->run_timeout_seconds, name, value, 0.0, 0, 86400.0);
  default:
    if (strcmp(value, "race") == 0)
      s->strategy = OLC_STRATEGY_RACE;
    else if (strcmp(value, "full") == 0)
      s->strategy = OLC_STRATEGY_FULL;
    else
      return bad_value(p, name, value, "race or full");
    return 1;
  }
}

static int fixed_key(parser *p, const char *const *keys, const char *name, const char *value,
                     int (*set)(parser *, int, const char *, const char *)) {
  int k = key_index(keys, name);
  if (k < 0)
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "unknown key '%.60s' in [%s]", name,
                            section_label(p));
  if (p->seen & (1u << k))
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "duplicate key '%s' in [%s]", name,
                            section_label(p));
  p->seen |= 1u << k;
  if (value[0] == 0 && !(p->kind == SEC_HOST && k == 0))
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "[%s] %s: empty value", section_label(p),
                            name);
  return set(p, k, name, value);
}

/* sha256:<64 hex>, or another "<algorithm>:<hex>" digest kept as written. */
static int valid_digest(const char *v) {
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

/* Appends name = value to a workload's properties or a plugin's entries,
 * once: a key given twice in one section is an error, as in [host]. */
static int push_unique(parser *p, olc_config_kvs *kvs, const char *kind, const char *section,
                       const char *name, const char *value) {
  if (olc_nameset__get(&p->section_keys, name, NULL))
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "duplicate key '%.60s' in [%s.%s]", name,
                            kind, section);
  if (!olc_config__kvs_push(p, kvs, name, value))
    return 0;
  return olc_nameset__put(&p->section_keys, kvs->items[kvs->count - 1].name, kvs->count - 1)
             ? 1
             : olc_config__nomem(p);
}

static int workload_key(parser *p, const char *name, const char *value) {
  olc_config *c = p->cfg;
  olc_workload_config *w = &c->workloads[p->index].pub;
  olc_config_kvs *props = &c->workloads[p->index].props;
  if (value[0] == 0)
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "[workload.%s] %s: empty value", w->name,
                            name);
  if ((strcmp(name, "backend") == 0 && w->backend != NULL) ||
      (strcmp(name, "operator") == 0 && w->operator_name != NULL))
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "duplicate key '%s' in [workload.%s]", name,
                            w->name);
  if (strcmp(name, "backend") == 0) {
    if (strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(value))
      return olc_config__fail(p, p->line, OLC_E_CONFIG,
                              "[workload.%s] backend: '%.60s' is not a plugin name ([a-z0-9_]+)",
                              w->name, value);
    w->backend = olc_arena__strdup(&c->arena, value);
    return w->backend != NULL ? 1 : olc_config__nomem(p);
  }
  if (strcmp(name, "operator") == 0) {
    w->operator_name = olc_arena__strdup(&c->arena, value);
    return w->operator_name != NULL ? 1 : olc_config__nomem(p);
  }
  if (strcmp(name, "model") == 0 || strcmp(name, "model_digest") == 0) {
    char digest[OLC_CONFIG_DIGEST_SIZE];
    if (w->model_digest != NULL)
      return olc_config__fail(
          p, p->line, OLC_E_CONFIG,
          "[workload.%s] %s: the model is already given (model and model_digest "
          "exclude each other)",
          w->name, name);
    if (name[5] == 0) {
      olc_error derr;
      const char *why = NULL;
      char *path = olc_config__resolve_path(value, c->base_dir, &why);
      olc_status st;
      if (path == NULL)
        return olc_config__fail(p, p->line, OLC_E_CONFIG, "[workload.%s] model: %s", w->name, why);
      st = olc_config__sha256_file(digest, path, &derr);
      free(path);
      if (st != OLC_OK) {
        olc_config__fail(p, p->line, st == OLC_E_NOMEM ? st : OLC_E_CONFIG,
                         "[workload.%s] model: %s", w->name, derr.message);
        if (p->err != NULL)
          p->err->sys_errno = derr.sys_errno;
        return 0;
      }
      value = digest;
    } else if (!valid_digest(value)) {
      return olc_config__fail(
          p, p->line, OLC_E_CONFIG,
          "[workload.%s] model_digest: bad value '%.60s' (expected sha256:<64 hex>)", w->name,
          value);
    }
    w->model_digest = olc_arena__strdup(&c->arena, value);
    return w->model_digest != NULL ? 1 : olc_config__nomem(p);
  }
  return push_unique(p, props, "workload", w->name, name, value);
}

static int plugin_key(parser *p, const char *name, const char *value) {
  olc_plugin_config *pc = &p->cfg->plugins[p->index].pub;
  if (strcmp(name, "enabled") == 0 && !olc_config__parse_bool(&pc->enabled, value))
    return olc_config__fail(p, p->line, OLC_E_CONFIG,
                            "[plugin.%s] enabled: bad value '%.60s' (expected true/false)",
                            pc->name, value);
  if (strcmp(name, "critical") == 0 && !olc_config__parse_bool(&pc->critical, value))
    return olc_config__fail(p, p->line, OLC_E_CONFIG,
                            "[plugin.%s] critical: bad value '%.60s' (expected true/false)",
                            pc->name, value);
  return push_unique(p, &p->cfg->plugins[p->index].entries, "plugin", pc->name, name, value);
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

int olc_config__key(parser *p, const char *name, const char *value) {
  switch (p->kind) {
  case SEC_NONE:
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "key '%.60s' outside of a section", name);
  case SEC_HOST:
    return fixed_key(p, host_keys, name, value, host_key);
  case SEC_STORE:
    return fixed_key(p, store_keys, name, value, store_key);
  case SEC_CALIBRATION:
    return fixed_key(p, calibration_keys, name, value, calibration_key);
  case SEC_WORKLOAD:
    return workload_key(p, name, value);
  case SEC_PLUGIN:
    return plugin_key(p, name, value);
  default:
    return 1; /* the section header already failed */
  }
}
