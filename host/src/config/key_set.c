/*
 * config/key_set.c - one key = value of a section, from its table row
 * (key_table.h): lookup, the duplicate, empty and exclusion checks, parsing by
 * type with its range, storing at the row's offset, and, once the file is
 * read, the defaults of the keys a section did not give.  Every message
 * is "[SECTION] KEY: ..." with the section as written ("workload.gemm").
 */
#include "config/ini_parse_int.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "host", or "workload.NAME" for the current named section. */
static const char *section_label(const parser *p, char *buf, size_t size) {
  const char *kind = olc_config__section_name((olc_config_section)p->kind);
  if (p->kind == SEC_WORKLOAD)
    snprintf(buf, size, "%s.%s", kind, p->cfg->workloads[p->index].pub.name);
  else if (p->kind == SEC_PLUGIN)
    snprintf(buf, size, "%s.%s", kind, p->cfg->plugins[p->index].pub.name);
  else
    snprintf(buf, size, "%s", kind);
  return buf;
}

/* The struct the current section's values land in. */
static char *section_base(const parser *p) {
  olc_config *c = p->cfg;
  switch (p->kind) {
  case SEC_CALIBRATION:
    return (char *)&c->calibration;
  case SEC_WORKLOAD:
    return (char *)&c->workloads[p->index].pub;
  case SEC_PLUGIN:
    return (char *)&c->plugins[p->index].pub;
  default:
    return (char *)c;
  }
}

/* The keys the current section gave, one bit per row (key_table.h). */
static uint64_t *section_given(parser *p) {
  switch (p->kind) {
  case SEC_WORKLOAD:
    return &p->cfg->workloads[p->index].given;
  case SEC_PLUGIN:
    return &p->cfg->plugins[p->index].given;
  default:
    return &p->fixed_given[p->kind < SEC_WORKLOAD ? p->kind : 0];
  }
}

int olc_config__key_fail(parser *p, const olc_config_key *k, olc_status st, const char *fmt, ...) {
  char label[192], what[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return olc_config__fail(p, p->line, st, "[%s] %s: %s", section_label(p, label, sizeof label),
                          k->name, what);
}

int olc_config__bad_value(parser *p, const olc_config_key *k, const char *value) {
  char label[192], expected[160];
  return olc_config__fail(p, p->line, OLC_E_CONFIG, "[%s] %s: bad value '%.60s' (expected %s)",
                          section_label(p, label, sizeof label), k->name, value,
                          olc_config__key_expected(expected, sizeof expected, k));
}

int olc_config__store_string(parser *p, const olc_config_key *k, char *base, const char *s) {
  const char *copy = olc_arena__strdup(&p->cfg->arena, s);
  if (copy == NULL)
    return olc_config__nomem(p);
  memcpy(base + k->offset, &copy, sizeof copy);
  return 1;
}

static int parse_int_field(void *field, const olc_config_key *k, const char *value) {
  int64_t v;
  if (!olc_config__parse_int(&v, value, (int64_t)k->min, (int64_t)k->max))
    return 0;
  if (k->size == sizeof(int64_t)) {
    memcpy(field, &v, sizeof v);
  } else if (k->min >= 0) {
    uint32_t u = (uint32_t)v;
    memcpy(field, &u, sizeof u);
  } else {
    int32_t s = (int32_t)v;
    memcpy(field, &s, sizeof s);
  }
  return 1;
}

/* The value of the choice named name; NULL when there is none. */
static const olc_config_choice *choice_named(const olc_config_key *k, const char *name) {
  size_t i;
  for (i = 0; k->choices[i].name != NULL; i++)
    if (strcmp(k->choices[i].name, name) == 0)
      return &k->choices[i];
  return NULL;
}

static int parse_choice_field(void *field, const olc_config_key *k, const char *value) {
  const olc_config_choice *c = choice_named(k, value);
  int b;
  if (c == NULL && (k->flags & OLC_CONFIG_BOOL_WORDS) && olc_config__parse_bool(&b, value))
    c = choice_named(k, b ? "true" : "false");
  if (c == NULL)
    return 0;
  memcpy(field, &c->value, sizeof c->value);
  return 1;
}

int olc_config__key_parse(void *field, const olc_config_key *k, const char *value) {
  double d;
  int b;
  switch (k->type) {
  case OLC_CONFIG_BOOL:
    if (!olc_config__parse_bool(&b, value))
      return 0;
    memcpy(field, &b, sizeof b);
    return 1;
  case OLC_CONFIG_INT:
    return parse_int_field(field, k, value);
  case OLC_CONFIG_NUMBER:
    if (!olc_config__parse_decimal(&d, value) || d < k->min || d > k->max ||
        ((k->flags & OLC_CONFIG_MIN_EXCLUSIVE) && d == k->min))
      return 0;
    memcpy(field, &d, sizeof d);
    return 1;
  case OLC_CONFIG_ENUM:
    return parse_choice_field(field, k, value);
  default:
    return 0;
  }
}

static int store_path(parser *p, const olc_config_key *k, char *base, const char *value) {
  const char *why = NULL;
  char *path = olc_config__resolve_path(value, p->cfg->base_dir, &why);
  int rc;
  if (path == NULL)
    return olc_config__key_fail(p, k, OLC_E_CONFIG, "%s", why);
  rc = olc_config__store_string(p, k, base, path);
  free(path);
  return rc;
}

/* One item of a path list, blank space trimmed: the resolved path into
 * *out (NULL for an empty item), *located 1 when it began with a @...@
 * location.  1, or 0 after a failure. */
static int path_list_item(parser *p, const olc_config_key *k, const char *s, size_t len,
                          const char **out, unsigned char *located) {
  const char *why = NULL;
  char item[4096], *resolved;
  *out = NULL;
  s = olc_util__trim(s, &len);
  if (len == 0)
    return 1;
  if (len >= sizeof item)
    return olc_config__key_fail(p, k, OLC_E_CONFIG, "%s", "path too long");
  memcpy(item, s, len);
  item[len] = 0;
  *located = item[0] == '@';
  resolved = olc_config__resolve_path(item, p->cfg->base_dir, &why);
  if (resolved == NULL)
    return olc_config__key_fail(p, k, OLC_E_CONFIG, "'%.60s': %s", item, why);
  *out = olc_arena__strdup(&p->cfg->arena, resolved);
  free(resolved);
  return *out != NULL ? 1 : olc_config__nomem(p);
}

/* Whether a path exists, or for a glob ('*' in it) its directory. */
static int place_exists(const char *path) {
  char dir[4096];
  struct stat st;
  const char *slash;
  size_t n;
  if (strchr(path, '*') == NULL)
    return stat(path, &st) == 0;
  slash = strrchr(path, '/');
  if (slash == NULL)
    return 1; /* the current directory */
  n = (size_t)(slash - path);
  if (n == 0 || n >= sizeof dir)
    return n == 0;
  memcpy(dir, path, n);
  dir[n] = 0;
  return stat(dir, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR;
}

/* The directory part of a path or glob, resolved (malloc'ed; NULL when it
 * does not exist). */
static char *real_place(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  size_t n = strlen(path);
  if (strchr(path, '*') != NULL && slash != NULL)
    n = (size_t)(slash - path);
  if (n == 0 || n >= sizeof dir)
    return NULL;
  memcpy(dir, path, n);
  dir[n] = 0;
#ifndef _WIN32
  return realpath(dir, NULL);
#else
  {
    struct stat st;
    return stat(dir, &st) == 0 ? _fullpath(NULL, dir, 0) : NULL;
  }
#endif
}

/* An install location (@install_plugin_dir@, @install_profile_dir@) also
 * relative to the library: a program installed outside the prefix's bin
 * that links the installed library finds the install's plugins and
 * layers.  The library-relative path, when it exists and is not the
 * executable-relative one already listed (the olc program, a static
 * link), into *out; 1, or 0 after a failure. */
static int library_item(parser *p, const char *item, const char *exe_relative, const char **out) {
  char *lib = olc_config__resolve_library_path(item);
  char *a = NULL, *b = NULL;
  int wanted;
  *out = NULL;
  if (lib == NULL)
    return 1;
  a = real_place(lib);
  b = exe_relative != NULL ? real_place(exe_relative) : NULL;
  wanted = a != NULL && (b == NULL || strcmp(a, b) != 0);
  if (wanted)
    *out = olc_arena__strdup(&p->cfg->arena, lib);
  free(a);
  free(b);
  free(lib);
  return !wanted || *out != NULL ? 1 : olc_config__nomem(p);
}

/* "a:b,c" -> resolved paths (an array and its count); empty items are
 * skipped, so an empty value is an empty list.  An install location may
 * give two paths (library_item). */
static int store_path_list(parser *p, const olc_config_key *k, char *base, const char *value) {
  size_t count = 1, i, n = 0;
  const char *s;
  const char **list;
  unsigned char *located;
  for (s = value; *s != 0; s++)
    count += *s == ':' || *s == ',';
  count *= 2;
  list = olc_arena__alloc(&p->cfg->arena, count * sizeof *list);
  located = olc_arena__alloc(&p->cfg->arena, count);
  if (list == NULL || located == NULL)
    return olc_config__nomem(p);
  for (s = value, i = 0; i < count / 2; i++) {
    size_t len = strcspn(s, ":,");
    const char *item = olc_util__trim(s, &len);
    const char *exe_relative;
    if (!path_list_item(p, k, s, strcspn(s, ":,"), &list[n], &located[n]))
      return 0;
    exe_relative = list[n];
    if (list[n] != NULL && located[n] && (k->flags & OLC_CONFIG_SKIP_MISSING_LOCATED) != 0 &&
        !place_exists(list[n]))
      list[n] = NULL;
    n += list[n] != NULL;
    if (exe_relative != NULL && item[0] == '@') {
      char one[4096];
      if (len < sizeof one) {
        memcpy(one, item, len);
        one[len] = 0;
        if (!library_item(p, one, exe_relative, &list[n]))
          return 0;
        located[n] = 1;
        n += list[n] != NULL;
      }
    }
    len = strcspn(s, ":,");
    s = s[len] != 0 ? s + len + 1 : s + len;
  }
  memcpy(base + k->offset, &list, sizeof list);
  memcpy(base + k->count_offset, &n, sizeof n);
  if (k->located_offset != 0)
    memcpy(base + k->located_offset, &located, sizeof located);
  return 1;
}

/* Parses value by the row's type and stores it where the row says. */
static int store_value(parser *p, const olc_config_key *k, const char *value) {
  char *base = section_base(p);
  if (k->set != NULL)
    return k->set(p, k, base, value);
  switch (k->type) {
  case OLC_CONFIG_BOOL:
  case OLC_CONFIG_INT:
  case OLC_CONFIG_NUMBER:
  case OLC_CONFIG_ENUM:
    return olc_config__key_parse(base + k->offset, k, value) ? 1
                                                             : olc_config__bad_value(p, k, value);
  case OLC_CONFIG_PATH:
    return store_path(p, k, base, value);
  case OLC_CONFIG_STRING:
    if (k->check != NULL && !k->check(value))
      return olc_config__bad_value(p, k, value);
    return olc_config__store_string(p, k, base, value);
  case OLC_CONFIG_PATH_LIST:
    return store_path_list(p, k, base, value);
  }
  return olc_config__fail(p, p->line, OLC_E_INTERNAL, "key '%s' has no type", k->name);
}

/* Appends name = value to a workload's properties or a plugin's entries,
 * once: a key given twice in one section is an error, as in [host]. */
static int push_unique(parser *p, olc_config_kvs *kvs, const char *name, const char *value) {
  char label[192];
  if (olc_nameset__get(&p->section_keys, name, NULL))
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "duplicate key '%.60s' in [%s]", name,
                            section_label(p, label, sizeof label));
  if (!olc_config__kvs_push(p, kvs, name, value))
    return 0;
  return olc_nameset__put(&p->section_keys, kvs->items[kvs->count - 1].name, kvs->count - 1)
             ? 1
             : olc_config__nomem(p);
}

/* A key without a row: a workload's property, a plugin's entry, or an
 * error in the fixed sections. */
static int other_key(parser *p, const char *name, const char *value) {
  char label[192];
  if (p->kind == SEC_WORKLOAD) {
    if (value[0] == 0)
      return olc_config__fail(p, p->line, OLC_E_CONFIG, "[%s] %s: empty value",
                              section_label(p, label, sizeof label), name);
    return push_unique(p, &p->cfg->workloads[p->index].props, name, value);
  }
  if (p->kind == SEC_PLUGIN)
    return push_unique(p, &p->cfg->plugins[p->index].entries, name, value);
  return olc_config__fail(p, p->line, OLC_E_CONFIG, "unknown key '%.60s' in [%s]", name,
                          section_label(p, label, sizeof label));
}

int olc_config__key(parser *p, const char *name, const char *value) {
  const olc_config_key *k;
  uint64_t bit = 0, other = 0, *given;
  char label[192];
  if (p->kind == SEC_NONE)
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "key '%.60s' outside of a section", name);
  if (p->kind == SEC_BAD)
    return 1; /* the section header already failed */
  k = olc_config__key_find((olc_config_section)p->kind, name, &bit);
  if (k == NULL)
    return other_key(p, name, value);
  given = section_given(p);
  if (*given & bit)
    return olc_config__fail(p, p->line, OLC_E_CONFIG, "duplicate key '%s' in [%s]", name,
                            section_label(p, label, sizeof label));
  *given |= bit;
  if (value[0] == 0 && !(k->flags & OLC_CONFIG_EMPTY_OK))
    return olc_config__key_fail(p, k, OLC_E_CONFIG, "%s", "empty value");
  if (k->excludes != NULL && olc_config__key_find(k->section, k->excludes, &other) != NULL &&
      (*given & other))
    return olc_config__key_fail(p, k, OLC_E_CONFIG,
                                "%s is already given (the two exclude each other)", k->excludes);
  if (!store_value(p, k, value))
    return 0;
  /* A plugin gets every key of its section, the host's own included. */
  if (p->kind == SEC_PLUGIN)
    return push_unique(p, &p->cfg->plugins[p->index].entries, name, value);
  return 1;
}

int olc_config__section_defaults(parser *p, uint32_t line) {
  size_t count, i;
  const olc_config_key *keys = olc_config__keys(&count);
  uint64_t given = *section_given(p), bit = 1;
  char label[192];
  int seen;
  /* The n-th row of a section has bit n, as olc_config__key_find says. */
  for (i = 0; i < count; i++) {
    const olc_config_key *k = &keys[i];
    if (k->section != (olc_config_section)p->kind)
      continue;
    seen = (given & bit) != 0;
    bit <<= 1;
    if (seen)
      continue;
    if (k->flags & OLC_CONFIG_REQUIRED)
      return olc_config__fail(p, line, OLC_E_CONFIG, "[%s] has no %s",
                              section_label(p, label, sizeof label), k->name);
    if (k->def != NULL && !store_value(p, k, k->def))
      return 0;
  }
  return 1;
}
