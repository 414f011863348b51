/*
 * config/ini_parse.c - ini text -> olc_config, with inih.
 *
 * inih hands the handler no line numbers (Debian builds it without
 * INI_HANDLER_LINENO), so the text is fed through our own reader
 * (ini_parse_stream): the reader knows which line inih is working on, and
 * it also sees section headers, which inih never reports for sections
 * without keys.  Every message is "NAME:LINE: what" and sets err->line;
 * the first error wins and the rest of the file is ignored.
 */
#include "config/ini_parse_int.h"
#include "util/text.h"

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int olc_config__fail(parser *p, uint32_t line, olc_status st, const char *fmt, ...) {
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

int olc_config__nomem(parser *p) {
  return olc_config__fail(p, p->line, OLC_E_NOMEM, "out of memory");
}

int olc_config__kvs_push(parser *p, olc_config_kvs *kvs, const char *name, const char *value) {
  char *n, *v;
  if (kvs->count == kvs->cap) {
    size_t cap = kvs->cap ? kvs->cap * 2 : 8;
    olc_property *items = realloc(kvs->items, cap * sizeof *items);
    if (items == NULL)
      return olc_config__nomem(p);
    kvs->items = items;
    kvs->cap = cap;
  }
  n = olc_arena__strdup(&p->cfg->arena, name);
  v = olc_arena__strdup(&p->cfg->arena, value);
  if (n == NULL || v == NULL)
    return olc_config__nomem(p);
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
  if (olc_nameset__get(&p->workload_names, name, &i)) {
    olc_config__fail(p, line, OLC_E_CONFIG, "duplicate section [workload.%s] (first at line %u)",
                     name, (unsigned)c->workloads[i].pub.line);
    return;
  }
  if (!grow((void **)&c->workloads, &c->workload_cap, c->workload_count, sizeof *c->workloads)) {
    olc_config__nomem(p);
    return;
  }
  p->index = c->workload_count++;
  c->workloads[p->index].pub.name = olc_arena__strdup(&c->arena, name);
  c->workloads[p->index].pub.line = line;
  if (c->workloads[p->index].pub.name == NULL ||
      !olc_nameset__put(&p->workload_names, c->workloads[p->index].pub.name, p->index))
    olc_config__nomem(p);
}

static void begin_plugin(parser *p, const char *name, uint32_t line) {
  olc_config *c = p->cfg;
  if (olc_nameset__get(&p->plugin_names, name, NULL)) {
    olc_config__fail(p, line, OLC_E_CONFIG, "duplicate section [plugin.%s]", name);
    return;
  }
  if (!grow((void **)&c->plugins, &c->plugin_cap, c->plugin_count, sizeof *c->plugins)) {
    olc_config__nomem(p);
    return;
  }
  p->index = c->plugin_count++;
  c->plugins[p->index].pub.name = olc_arena__strdup(&c->arena, name);
  c->plugins[p->index].line = line;
  if (c->plugins[p->index].pub.name == NULL ||
      !olc_nameset__put(&p->plugin_names, c->plugins[p->index].pub.name, p->index))
    olc_config__nomem(p);
}

static void begin_section(parser *p, const char *section, size_t len, uint32_t line) {
  char name[256];
  static const struct {
    const char *name;
    section_kind kind;
  } fixed[] = {{"host", SEC_HOST}, {"store", SEC_STORE}, {"calibration", SEC_CALIBRATION}};
  size_t i;
  p->last_key[0] = 0;
  olc_nameset__clear(&p->section_keys);
  p->kind = SEC_BAD;
  if (len >= sizeof name) {
    olc_config__fail(p, line, OLC_E_CONFIG, "section name too long");
    return;
  }
  memcpy(name, section, len);
  name[len] = 0;
  for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (strcmp(name, fixed[i].name) == 0) {
      if (p->sections & (1u << fixed[i].kind)) {
        olc_config__fail(p, line, OLC_E_CONFIG, "duplicate section [%s]", name);
        return;
      }
      p->sections |= 1u << fixed[i].kind;
      p->kind = fixed[i].kind;
      p->fixed_line[p->kind] = line;
      return;
    }
  if (strncmp(name, "workload.", 9) == 0 && name[9] != 0) {
    p->kind = SEC_WORKLOAD;
    begin_workload(p, name + 9, line);
  } else if (strncmp(name, "plugin.", 7) == 0 && name[7] != 0) {
    p->kind = SEC_PLUGIN;
    begin_plugin(p, name + 7, line);
  } else {
    olc_config__fail(p, line, OLC_E_CONFIG, "unknown section [%s]", name);
  }
}

/* ------------------------------------------------------------- reader */

/* Marker handed to inih in place of a long value (never seen by users:
 * the handler swaps it back only for the line the reader marked). */
#define LONG_VALUE_MARKER "\x1f"

/*
 * A line longer than inih's buffer (Debian builds inih with a 200-byte
 * stack line): when it is "key = value" with a short key, inih is given
 * "key = <marker>" and the handler takes the value from the text.  Blank
 * space and an inline "; comment" are stripped as inih would.  Returns the
 * replacement length, or 0 when the line cannot take this path.
 */
static size_t shorten_long_line(parser *p, char *str, int num, const char *s, size_t n) {
  const char *eq = memchr(s, '=', n);
  const char *v, *end = s + n;
  size_t klen, i = 0;
  if (n > OLC_CONFIG_MAX_LINE)
    return 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (i < n && (s[i] == ';' || s[i] == '#')) {
    memcpy(str, "\n", 2); /* a long comment: inih only needs the line counted */
    return 1;
  }
  if (eq == NULL)
    return 0;
  klen = (size_t)(eq - s);
  if (klen + sizeof " = " LONG_VALUE_MARKER "\n" > (size_t)num)
    return 0;
  v = eq + 1;
  while (v < end && (*v == ' ' || *v == '\t'))
    v++;
  {
    const char *c;
    for (c = v; c < end; c++)
      if (*c == ';' && c > v && (c[-1] == ' ' || c[-1] == '\t')) {
        end = c;
        break;
      }
  }
  while (end > v && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
    end--;
  p->long_value = v;
  p->long_value_len = (size_t)(end - v);
  memcpy(str, s, klen);
  memcpy(str + klen, "= " LONG_VALUE_MARKER "\n", sizeof "= " LONG_VALUE_MARKER "\n");
  return klen + sizeof "= " LONG_VALUE_MARKER "\n" - 1;
}

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
    olc_config__fail(p, p->line, OLC_E_CONFIG, "nul byte in line");
    n = 0;
  } else if (!olc_util__utf8_valid(s, n)) {
    olc_config__fail(p, p->line, OLC_E_CONFIG, "invalid utf-8 in line");
    n = 0;
  } else if (n > (size_t)num - 1) {
    size_t shortened = shorten_long_line(p, str, num, s, n);
    if (shortened == 0) {
      olc_config__fail(p, p->line, OLC_E_CONFIG,
                       n > OLC_CONFIG_MAX_LINE ? "line longer than %zu bytes"
                                               : "line too long for anything but key = value "
                                                 "(at most %zu bytes)",
                       OLC_CONFIG_MAX_LINE);
      n = 0;
    } else {
      p->line_indented = s[0] == ' ' || s[0] == '\t';
      return str;
    }
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
  p->line_indented = i < n && (s[i] == ' ' || s[i] == '\t');
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (i < n && s[i] == '[' && !(p->line_indented && p->last_key[0] != 0)) {
    const char *close = memchr(s + i, ']', n - i);
    if (close != NULL)
      begin_section(p, s + i + 1, (size_t)(close - (s + i + 1)), p->line);
    else
      olc_config__fail(p, p->line, OLC_E_CONFIG, "syntax error (no ']' after '[')");
  }
  return str;
}

/* ------------------------------------------------------------ handler */

static int handler(void *user, const char *section, const char *name, const char *value) {
  parser *p = user;
  int continuation;
  (void)section;
  if (p->st != OLC_OK)
    return 1;
  if (p->long_value != NULL && strcmp(value, LONG_VALUE_MARKER) == 0) {
    char *copy = malloc(p->long_value_len + 1);
    int rc;
    if (copy == NULL)
      return olc_config__nomem(p);
    memcpy(copy, p->long_value, p->long_value_len);
    copy[p->long_value_len] = 0;
    p->long_value = NULL;
    rc = handler(user, section, name, copy);
    free(copy);
    return rc;
  }
  p->long_value = NULL;
  continuation = p->line_indented && strcmp(name, p->last_key) == 0;
  snprintf(p->last_key, sizeof p->last_key, "%s", name);
  if (continuation)
    return olc_config__fail(p, p->line, OLC_E_CONFIG,
                            "indented continuation lines are not supported");
  return olc_config__key(p, name, value);
}

/* -------------------------------------------------------------- finish */

/* The defaults of the keys a section did not give (the table's), and
 * what the parsed sections point into. */
static int finish(parser *p) {
  olc_config *c = p->cfg;
  int k;
  for (k = SEC_HOST; k < SEC_WORKLOAD; k++) {
    p->kind = (section_kind)k;
    if (!olc_config__section_defaults(p, p->fixed_line[k] != 0 ? p->fixed_line[k] : p->line))
      return 0;
  }
  p->kind = SEC_WORKLOAD;
  for (p->index = 0; p->index < c->workload_count; p->index++) {
    cfg_workload *w = &c->workloads[p->index];
    if (!olc_config__section_defaults(p, w->pub.line))
      return 0;
    w->pub.properties = w->props.items;
    w->pub.property_count = w->props.count;
    if (w->pub.model_digest == NULL && !olc_config__structural_digest(p, &w->pub, &w->props))
      return 0;
  }
  p->kind = SEC_PLUGIN;
  for (p->index = 0; p->index < c->plugin_count; p->index++) {
    cfg_plugin *pl = &c->plugins[p->index];
    if (!olc_config__section_defaults(p, pl->line))
      return 0;
    pl->pub.entries = pl->entries.items;
    pl->pub.entry_count = pl->entries.count;
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
    olc_config__fail(&p, (uint32_t)rc, OLC_E_CONFIG,
                     "syntax error (expected [section] or key = value)");
  } else if (p.st == OLC_OK && rc < 0)
    olc_config__fail(&p, 0, OLC_E_NOMEM, "out of memory");
  if (p.st == OLC_OK)
    finish(&p);
  olc_nameset__free(&p.workload_names);
  olc_nameset__free(&p.plugin_names);
  olc_nameset__free(&p.section_keys);
  if (p.st != OLC_OK) {
    olc_config_free(c);
    return p.st;
  }
  *out = c;
  return OLC_OK;
}
