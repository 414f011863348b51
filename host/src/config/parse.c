/*
 * config/parse.c - ini text -> olc_config, with inih.
 *
 * inih hands the handler no line numbers (Debian builds it without
 * INI_HANDLER_LINENO), so the text is fed through our own reader
 * (ini_parse_stream): the reader knows which line inih is working on, and
 * it also sees section headers, which inih never reports for sections
 * without keys.  Every message is "NAME:LINE: what" and sets err->line;
 * the first error wins and the rest of the file is ignored.
 */
#include "config/config_impl.h"

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

typedef enum section_kind {
  SEC_NONE = 0,
  SEC_HOST,
  SEC_STORE,
  SEC_CALIBRATION,
  SEC_WORKLOAD,
  SEC_PLUGIN,
  SEC_BAD
} section_kind;

/* Keys of the host's fixed sections; the index is the bit in `seen`. */
static const char *const host_keys[] = {"plugin_dirs", "threads", "allow_insecure_plugins", NULL};
static const char *const store_keys[] = {"path", "persistence", "force_portable", "lock_timeout_ms",
                                         NULL};
static const char *const calibration_keys[] = {
    "warmup", "min_repetitions", "min_seconds", "max_seconds_per_workload", "abandon_factor", NULL};

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
} parser;

static int fail(parser *p, uint32_t line, olc_status st, const char *fmt, ...) OLC_PRINTF(4, 5);

static int fail(parser *p, uint32_t line, olc_status st, const char *fmt, ...) {
  char what[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  if (p->st != OLC_OK)
    return 0;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  p->err_line = line;
  p->st = olc_error__set(p->err, st, "config", "%s:%u: %s", p->name, (unsigned)line, what);
  if (p->err != NULL)
    p->err->line = line;
  return 0;
}

static int nomem(parser *p) { return fail(p, p->line, OLC_E_NOMEM, "out of memory"); }

static int kvs_push(parser *p, olc_config_kvs *kvs, const char *name, const char *value) {
  char *n, *v;
  if (kvs->count == kvs->cap) {
    size_t cap = kvs->cap ? kvs->cap * 2 : 8;
    olc_property *items = realloc(kvs->items, cap * sizeof *items);
    if (items == NULL)
      return nomem(p);
    kvs->items = items;
    kvs->cap = cap;
  }
  n = olc_arena__strdup(&p->cfg->arena, name);
  v = olc_arena__strdup(&p->cfg->arena, value);
  if (n == NULL || v == NULL)
    return nomem(p);
  kvs->items[kvs->count].name = n;
  kvs->items[kvs->count].value = v;
  kvs->count++;
  return 1;
}

/* ----------------------------------------------------------- sections */

static int grow(void **array, size_t *cap, size_t count, size_t size) {
  void *a;
  size_t n;
  if (count < *cap)
    return 1;
  n = *cap ? *cap * 2 : 4;
  a = realloc(*array, n * size);
  if (a == NULL)
    return 0;
  memset((char *)a + *cap * size, 0, (n - *cap) * size);
  *array = a;
  *cap = n;
  return 1;
}

static void begin_workload(parser *p, const char *name, uint32_t line) {
  olc_config *c = p->cfg;
  size_t i;
  for (i = 0; i < c->workload_count; i++)
    if (strcmp(c->workloads[i].pub.name, name) == 0) {
      fail(p, line, OLC_E_CONFIG, "duplicate section [workload.%s] (first at line %u)", name,
           (unsigned)c->workloads[i].pub.line);
      return;
    }
  if (!grow((void **)&c->workloads, &c->workload_cap, c->workload_count, sizeof *c->workloads)) {
    nomem(p);
    return;
  }
  p->index = c->workload_count++;
  c->workloads[p->index].pub.name = olc_arena__strdup(&c->arena, name);
  c->workloads[p->index].pub.line = line;
  if (c->workloads[p->index].pub.name == NULL)
    nomem(p);
}

static void begin_plugin(parser *p, const char *name, uint32_t line) {
  olc_config *c = p->cfg;
  size_t i;
  for (i = 0; i < c->plugin_count; i++)
    if (strcmp(c->plugins[i].pub.name, name) == 0) {
      fail(p, line, OLC_E_CONFIG, "duplicate section [plugin.%s]", name);
      return;
    }
  if (!grow((void **)&c->plugins, &c->plugin_cap, c->plugin_count, sizeof *c->plugins)) {
    nomem(p);
    return;
  }
  p->index = c->plugin_count++;
  c->plugins[p->index].pub.name = olc_arena__strdup(&c->arena, name);
  c->plugins[p->index].pub.enabled = 1;
  if (c->plugins[p->index].pub.name == NULL)
    nomem(p);
}

static void begin_section(parser *p, const char *section, size_t len, uint32_t line) {
  char name[256];
  static const struct {
    const char *name;
    section_kind kind;
  } fixed[] = {{"host", SEC_HOST}, {"store", SEC_STORE}, {"calibration", SEC_CALIBRATION}};
  size_t i;
  p->seen = 0;
  p->last_key[0] = 0;
  p->kind = SEC_BAD;
  if (len >= sizeof name) {
    fail(p, line, OLC_E_CONFIG, "section name too long");
    return;
  }
  memcpy(name, section, len);
  name[len] = 0;
  for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (strcmp(name, fixed[i].name) == 0) {
      if (p->sections & (1u << fixed[i].kind)) {
        fail(p, line, OLC_E_CONFIG, "duplicate section [%s]", name);
        return;
      }
      p->sections |= 1u << fixed[i].kind;
      p->kind = fixed[i].kind;
      return;
    }
  if (strncmp(name, "workload.", 9) == 0 && name[9] != 0) {
    p->kind = SEC_WORKLOAD;
    begin_workload(p, name + 9, line);
  } else if (strncmp(name, "plugin.", 7) == 0 && name[7] != 0) {
    p->kind = SEC_PLUGIN;
    begin_plugin(p, name + 7, line);
  } else {
    fail(p, line, OLC_E_CONFIG, "unknown section [%s]", name);
  }
}

/* ------------------------------------------------------------- reader */

/* Hands inih one line at a time (fgets semantics) and notes what inih
 * cannot tell the handler: the line number, and section headers. */
static char *reader(char *str, int num, void *stream) {
  parser *p = stream;
  size_t start = p->pos, end = start, n, i;
  const char *s;
  if (p->pos >= p->len || num < 4)
    return NULL;
  while (end < p->len && p->text[end] != '\n')
    end++;
  p->pos = end < p->len ? end + 1 : end;
  p->line++;
  n = p->pos - start;
  s = p->text + start;
  if (memchr(s, 0, n) != NULL) {
    fail(p, p->line, OLC_E_CONFIG, "nul byte in line");
    n = 0;
  } else if (n > (size_t)num - 1) {
    fail(p, p->line, OLC_E_CONFIG, "line longer than %d bytes", num - 3);
    n = 0;
  }
  if (n == 0) {
    /* Give inih a blank line so it keeps counting. */
    memcpy(str, "\n", 2);
    return str;
  }
  memcpy(str, s, n);
  str[n] = 0;
  i = 0;
  if (p->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
    i = 3;
  p->line_indented = s[i] == ' ' || s[i] == '\t';
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (i < n && s[i] == '[' && !(p->line_indented && p->last_key[0] != 0)) {
    const char *close = memchr(s + i, ']', n - i);
    if (close != NULL)
      begin_section(p, s + i + 1, (size_t)(close - (s + i + 1)), p->line);
    else
      fail(p, p->line, OLC_E_CONFIG, "syntax error (no ']' after '[')");
  }
  return str;
}

/* ------------------------------------------------------------ handler */

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
  return fail(p, p->line, OLC_E_CONFIG, "[%s] %s: bad value '%.60s' (expected %s)",
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
static int set_plugin_dirs(parser *p, const char *value) {
  olc_config *c = p->cfg;
  size_t count = 1, i, n = 0;
  const char *s;
  for (s = value; *s != 0; s++)
    count += *s == ':' || *s == ',';
  c->plugin_dirs = olc_arena__alloc(&c->arena, count * sizeof *c->plugin_dirs);
  if (c->plugin_dirs == NULL)
    return nomem(p);
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
        return fail(p, p->line, OLC_E_CONFIG, "[host] plugin_dirs: path too long");
      memcpy(item, s, len);
      item[len] = 0;
      resolved = olc_config__resolve_path(item, c->base_dir, &why);
      if (resolved == NULL)
        return fail(p, p->line, OLC_E_CONFIG, "[host] plugin_dirs: '%.60s': %s", item, why);
      c->plugin_dirs[n] = olc_arena__strdup(&c->arena, resolved);
      free(resolved);
      if (c->plugin_dirs[n++] == NULL)
        return nomem(p);
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
    return set_plugin_dirs(p, value);
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
      return fail(p, p->line, OLC_E_CONFIG, "[store] path: %s", why);
    c->store_path = olc_arena__strdup(&c->arena, path);
    free(path);
    return c->store_path != NULL ? 1 : nomem(p);
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
  default:
    return parse_seconds(p, &s->abandon_factor, name, value, 1.0, 0, 1e6);
  }
}

static int fixed_key(parser *p, const char *const *keys, const char *name, const char *value,
                     int (*set)(parser *, int, const char *, const char *)) {
  int k = key_index(keys, name);
  if (k < 0)
    return fail(p, p->line, OLC_E_CONFIG, "unknown key '%.60s' in [%s]", name, section_label(p));
  if (p->seen & (1u << k))
    return fail(p, p->line, OLC_E_CONFIG, "duplicate key '%s' in [%s]", name, section_label(p));
  p->seen |= 1u << k;
  if (value[0] == 0 && !(p->kind == SEC_HOST && k == 0))
    return fail(p, p->line, OLC_E_CONFIG, "[%s] %s: empty value", section_label(p), name);
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

static int workload_key(parser *p, const char *name, const char *value) {
  olc_config *c = p->cfg;
  olc_workload_config *w = &c->workloads[p->index].pub;
  olc_config_kvs *props = &c->workloads[p->index].props;
  size_t i;
  if (value[0] == 0)
    return fail(p, p->line, OLC_E_CONFIG, "[workload.%s] %s: empty value", w->name, name);
  if ((strcmp(name, "backend") == 0 && w->backend != NULL) ||
      (strcmp(name, "operator") == 0 && w->operator_name != NULL))
    return fail(p, p->line, OLC_E_CONFIG, "duplicate key '%s' in [workload.%s]", name, w->name);
  if (strcmp(name, "backend") == 0) {
    w->backend = olc_arena__strdup(&c->arena, value);
    return w->backend != NULL ? 1 : nomem(p);
  }
  if (strcmp(name, "operator") == 0) {
    w->operator_name = olc_arena__strdup(&c->arena, value);
    return w->operator_name != NULL ? 1 : nomem(p);
  }
  if (strcmp(name, "model") == 0 || strcmp(name, "model_digest") == 0) {
    char digest[OLC_CONFIG_DIGEST_SIZE];
    if (w->model_digest != NULL)
      return fail(p, p->line, OLC_E_CONFIG,
                  "[workload.%s] %s: the model is already given (model and model_digest "
                  "exclude each other)",
                  w->name, name);
    if (name[5] == 0) {
      olc_error derr;
      const char *why = NULL;
      char *path = olc_config__resolve_path(value, c->base_dir, &why);
      olc_status st;
      if (path == NULL)
        return fail(p, p->line, OLC_E_CONFIG, "[workload.%s] model: %s", w->name, why);
      st = olc_config__sha256_file(digest, path, &derr);
      free(path);
      if (st != OLC_OK) {
        fail(p, p->line, st == OLC_E_NOMEM ? st : OLC_E_CONFIG, "[workload.%s] model: %s", w->name,
             derr.message);
        if (p->err != NULL)
          p->err->sys_errno = derr.sys_errno;
        return 0;
      }
      value = digest;
    } else if (!valid_digest(value)) {
      return fail(p, p->line, OLC_E_CONFIG,
                  "[workload.%s] model_digest: bad value '%.60s' (expected sha256:<64 hex>)",
                  w->name, value);
    }
    w->model_digest = olc_arena__strdup(&c->arena, value);
    return w->model_digest != NULL ? 1 : nomem(p);
  }
  for (i = 0; i < props->count; i++)
    if (strcmp(props->items[i].name, name) == 0)
      return fail(p, p->line, OLC_E_CONFIG, "duplicate key '%.60s' in [workload.%s]", name,
                  w->name);
  return kvs_push(p, props, name, value);
}

static int plugin_key(parser *p, const char *name, const char *value) {
  olc_plugin_config *pc = &p->cfg->plugins[p->index].pub;
  if (strcmp(name, "enabled") == 0 && !olc_config__parse_bool(&pc->enabled, value))
    return fail(p, p->line, OLC_E_CONFIG,
                "[plugin.%s] enabled: bad value '%.60s' (expected true/false)", pc->name, value);
  if (strcmp(name, "critical") == 0 && !olc_config__parse_bool(&pc->critical, value))
    return fail(p, p->line, OLC_E_CONFIG,
                "[plugin.%s] critical: bad value '%.60s' (expected true/false)", pc->name, value);
  return kvs_push(p, &p->cfg->plugins[p->index].entries, name, value);
}

static int handler(void *user, const char *section, const char *name, const char *value) {
  parser *p = user;
  int continuation;
  (void)section;
  if (p->st != OLC_OK)
    return 1;
  continuation = p->line_indented && strcmp(name, p->last_key) == 0;
  snprintf(p->last_key, sizeof p->last_key, "%s", name);
  if (continuation)
    return fail(p, p->line, OLC_E_CONFIG, "indented continuation lines are not supported");
  switch (p->kind) {
  case SEC_NONE:
    return fail(p, p->line, OLC_E_CONFIG, "key '%.60s' outside of a section", name);
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

/* -------------------------------------------------------------- finish */

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
static int structural_digest(parser *p, olc_workload_config *w, const olc_config_kvs *props) {
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
    return nomem(p);
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

static int finish(parser *p) {
  olc_config *c = p->cfg;
  size_t i;
  if (!p->has_plugin_dirs && !set_plugin_dirs(p, "@exe_dir@/../plugins,@install_plugin_dir@"))
    return 0;
  for (i = 0; i < c->workload_count; i++) {
    olc_workload_config *w = &c->workloads[i].pub;
    const char *missing = w->backend == NULL ? "backend" : "operator";
    if (w->backend == NULL || w->operator_name == NULL)
      return fail(p, w->line, OLC_E_CONFIG, "[workload.%s] has no %s", w->name, missing);
    w->properties = c->workloads[i].props.items;
    w->property_count = c->workloads[i].props.count;
    if (w->model_digest == NULL && !structural_digest(p, w, &c->workloads[i].props))
      return 0;
  }
  for (i = 0; i < c->plugin_count; i++) {
    c->plugins[i].pub.entries = c->plugins[i].entries.items;
    c->plugins[i].pub.entry_count = c->plugins[i].entries.count;
  }
  c->threads = c->threads_configured ? c->threads_configured : olc_config__available_cpus();
  return 1;
}

olc_status olc_config__parse(olc_config **out, const char *text, size_t len, const char *name,
                             const char *base_dir, olc_error *err) {
  parser p;
  int rc;
  olc_config *c = calloc(1, sizeof *c);
  *out = NULL;
  if (c == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "config", "out of memory");
  c->source = olc_arena__strdup(&c->arena, name);
  c->base_dir = base_dir != NULL ? olc_arena__strdup(&c->arena, base_dir) : NULL;
  c->persistence = 1;
  c->lock_timeout_ms = 10000;
  c->calibration.warmup = 1;
  c->calibration.min_repetitions = 5;
  c->calibration.min_seconds = 0.05;
  c->calibration.max_seconds_per_workload = 30.0;
  c->calibration.abandon_factor = 1.5;
  memset(&p, 0, sizeof p);
  p.cfg = c;
  p.name = name;
  p.err = err;
  p.text = text;
  p.len = len;
  if (c->source == NULL || (base_dir != NULL && c->base_dir == NULL)) {
    olc_config_free(c);
    return olc_error__set(err, OLC_E_NOMEM, "config", "out of memory");
  }
  rc = ini_parse_stream(reader, &p, handler, &p);
  /* rc is the first line inih found wrong, ours included: an earlier line
   * is one of inih's own syntax errors, which must be reported first. */
  if (rc > 0 && (p.st == OLC_OK || (uint32_t)rc < p.err_line)) {
    p.st = OLC_OK;
    fail(&p, (uint32_t)rc, OLC_E_CONFIG, "syntax error (expected [section] or key = value)");
  } else if (p.st == OLC_OK && rc < 0)
    fail(&p, 0, OLC_E_NOMEM, "out of memory");
  if (p.st == OLC_OK)
    finish(&p);
  if (p.st != OLC_OK) {
    olc_config_free(c);
    return p.st;
  }
  *out = c;
  return OLC_OK;
}
