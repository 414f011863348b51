/*
 * tests/config/test_config_docs.c - the documentation of the configuration
 * keys against the key table itself (config/key_table.h), both ways: a row that
 * a document lacks fails, and so does a key a document lists that the
 * table does not have.
 *
 *   config/examples/full.ini  every key of the table, commented out or
 *                             not, with its default (or, without one, its
 *                             example); a key of a fixed section that is
 *                             not in the table fails
 *   host/cli/olc.1            the CONFIGURATION section: one entry per
 *                             row, exactly as this test writes it
 *   docs/configuration.md     the key table: one line per row, exactly
 *   README.md                 no key table (it links to the one above)
 *   README.md, the docs/ pages and olc.1 prose: "[store] NAME =" names a key
 *                             of the table
 *   config/default.ini        only keys of the table in fixed sections; a
 *                             value it sets unlike the table's default is
 *                             named ("NAME = VALUE") in docs/configuration.md
 *                             and olc.1, which say it is what olc uses
 *
 * `test_config_docs --print man|readme|ini` prints what the table says in
 * each document's form (readme: docs/configuration.md's table), to paste after adding a row.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/key_table.h"
#include "test_support.h"

#ifndef OLC_SOURCE_DIR
#error OLC_SOURCE_DIR names the source tree
#endif

#define ENTRY_TEXT 1024

/* One key as a document lists it. */
typedef struct doc_entry {
  olc_config_section section;
  char name[64];
  char text[ENTRY_TEXT]; /* what the document says of it (format's own) */
  unsigned line;
} doc_entry;

typedef struct doc_list {
  doc_entry *items;
  size_t count, cap;
} doc_list;

typedef enum doc_format { DOC_INI, DOC_MAN, DOC_README } doc_format;

static const olc_config_key *g_keys;
static size_t g_count;

/* ------------------------------------------------------- what rows say */

static const char *section_label(olc_config_section s, char *buf, size_t size) {
  int named = s == OLC_CONFIG_WORKLOAD || s == OLC_CONFIG_PLUGIN;
  snprintf(buf, size, "%s%s", olc_config__section_name(s), named ? ".NAME" : "");
  return buf;
}

/* troff: '-' is a hyphen unless escaped, '\' starts an escape. */
static void man_escape(char *out, size_t size, const char *s) {
  size_t pos = 0;
  for (; *s != 0 && pos + 3 < size; s++) {
    if (*s == '-' || *s == '\\')
      out[pos++] = '\\';
    out[pos++] = *s == '\\' ? 'e' : *s;
  }
  out[pos] = 0;
}

static const char *default_text(const olc_config_key *k, const char *none) {
  if (k->def != NULL)
    return k->def;
  return (k->flags & OLC_CONFIG_REQUIRED) ? "required" : none;
}

/* The lines of row k in a document (without a section header); the
 * parts are short enough for ENTRY_TEXT (test_rows checks a description
 * is one line, and the precisions bound the rest). */
static void row_text(char *buf, size_t size, const olc_config_key *k, doc_format f) {
  char type[160], def[200], desc[400], label[64];
  olc_config__key_type_text(type, sizeof type, k);
  if (f == DOC_MAN) {
    char t[200];
    man_escape(t, sizeof t, type);
    man_escape(desc, sizeof desc, k->description);
    if (k->def != NULL) {
      man_escape(def, sizeof def, k->def);
      snprintf(buf, size, ".TP\n.B %s\n%s; default %s.\n.br\n%s\n", k->name, t, def, desc);
    } else {
      snprintf(buf, size, ".TP\n.B %s\n%s; %s.\n.br\n%s\n", k->name, t,
               default_text(k, "no default"), desc);
    }
  } else if (f == DOC_README) {
    if (k->def != NULL)
      snprintf(def, sizeof def, "`%.190s`", k->def);
    else
      snprintf(def, sizeof def, "%s", default_text(k, "none"));
    snprintf(buf, size, "| `[%s]` | `%s` | %s | %s | %s |",
             section_label(k->section, label, sizeof label), k->name, type, def, k->description);
  } else {
    snprintf(buf, size, "; %s\n%s%s = %s\n", k->description, k->def != NULL ? "" : "; ", k->name,
             k->def != NULL ? k->def : k->example);
  }
}

static void print_table(doc_format f) {
  size_t i;
  char text[ENTRY_TEXT], label[64];
  if (f == DOC_README)
    printf("| section | key | type | default | meaning |\n|---|---|---|---|---|\n");
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    int first = i == 0 || g_keys[i - 1].section != k->section;
    section_label(k->section, label, sizeof label);
    if (first && f == DOC_MAN)
      printf(".SS [%s]\n", label);
    if (first && f == DOC_INI)
      printf("%s[%s]\n", i == 0 ? "" : "\n", label);
    row_text(text, sizeof text, k, f);
    printf("%s%s", text, f == DOC_README ? "\n" : "");
  }
}

/* ------------------------------------------------------ reading a file */

static char *read_source(const char *rel) {
  char path[4096];
  size_t len;
  char *text;
  snprintf(path, sizeof path, "%s/%s", OLC_SOURCE_DIR, rel);
  text = (char *)olc_test_read_file(path, &len);
  if (text == NULL) {
    fprintf(stderr, "cannot read %s\n", path);
    return NULL;
  }
  text[len] = 0; /* olc_test_read_file leaves room for it */
  return text;
}

/* The next line of *cursor (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **cursor) {
  char *line = *cursor, *nl;
  if (line == NULL || *line == 0)
    return NULL;
  nl = strchr(line, '\n');
  if (nl != NULL) {
    *nl = 0;
    *cursor = nl + 1;
  } else {
    *cursor = line + strlen(line);
  }
  return line;
}

static void push(doc_list *l, olc_config_section s, const char *name, size_t name_len,
                 const char *text, unsigned line) {
  doc_entry *e;
  if (l->count == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 32;
    l->items = realloc(l->items, l->cap * sizeof *l->items);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l->items);
  }
  e = &l->items[l->count++];
  e->section = s;
  snprintf(e->name, sizeof e->name, "%.*s", (int)name_len, name);
  snprintf(e->text, sizeof e->text, "%s", text);
  e->line = line;
}

/* "host" -> OLC_CONFIG_HOST, "workload.x" -> OLC_CONFIG_WORKLOAD; 0. */
static olc_config_section section_of(const char *label, size_t len) {
  int s;
  for (s = OLC_CONFIG_HOST; s <= OLC_CONFIG_PLUGIN; s++) {
    const char *name = olc_config__section_name((olc_config_section)s);
    size_t n = strlen(name);
    int named = s == OLC_CONFIG_WORKLOAD || s == OLC_CONFIG_PLUGIN;
    if (len >= n && strncmp(label, name, n) == 0 &&
        (named ? len > n + 1 && label[n] == '.' : len == n))
      return (olc_config_section)s;
  }
  return (olc_config_section)0;
}

static size_t ident_len(const char *s) {
  if (!(*s >= 'a' && *s <= 'z') && *s != '_')
    return 0;
  return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
}

/* ------------------------------------------------- the three documents */

/* An ini file: `name = value` and `; name = value` per section.  Keys of
 * fixed sections that are not rows go into *unknown. */
static void read_ini(doc_list *out, doc_list *unknown, char *text) {
  char *cur = text, *line;
  unsigned n = 0;
  olc_config_section s = (olc_config_section)0;
  while ((line = next_line(&cur)) != NULL) {
    size_t len;
    n++;
    if (line[0] == '[') {
      char *close = strchr(line, ']');
      s = close != NULL ? section_of(line + 1, (size_t)(close - line - 1)) : 0;
      continue;
    }
    if (line[0] == ';' || line[0] == '#')
      line += line[1] == ' ' ? 2 : 1;
    len = ident_len(line);
    if (len == 0 || strncmp(line + len, " = ", 3) != 0 || s == 0)
      continue;
    {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)len, line);
      if (olc_config__key_find(s, name, NULL) != NULL)
        push(out, s, line, len, line + len + 3, n);
      else if (s < OLC_CONFIG_WORKLOAD && unknown != NULL)
        push(unknown, s, line, len, "", n);
    }
  }
}

/* 1 when doc holds "NAME = VALUE" for entry e (olc.1's text man-escaped). */
static int names_value(const char *doc, const doc_entry *e, int man) {
  char want[ENTRY_TEXT * 2 + 80], esc[ENTRY_TEXT * 2];
  if (man)
    man_escape(esc, sizeof esc, e->text);
  snprintf(want, sizeof want, "%.64s = %s", e->name, man ? esc : e->text);
  return strstr(doc, want) != NULL;
}

/* olc.1's CONFIGURATION section: ".SS [label]", then ".TP" / ".B name"
 * and the entry's lines up to the next macro that ends it. */
static void read_man(doc_list *out, char *text) {
  char *cur = text, *line, entry[ENTRY_TEXT];
  unsigned n = 0, entry_line = 0;
  int in = 0, have = 0;
  olc_config_section s = (olc_config_section)0;
  char name[64] = "";
  entry[0] = 0;
  while ((line = next_line(&cur)) != NULL) {
    int ends = strncmp(line, ".TP", 3) == 0 || strncmp(line, ".SS", 3) == 0 ||
               strncmp(line, ".SH", 3) == 0 || strcmp(line, ".PP") == 0 || strcmp(line, ".P") == 0;
    n++;
    if (have && ends) {
      push(out, s, name, strlen(name), entry, entry_line);
      have = 0;
    }
    if (strncmp(line, ".SH", 3) == 0) {
      in = strstr(line, "CONFIGURATION") != NULL;
      continue;
    }
    if (!in)
      continue;
    if (strncmp(line, ".SS [", 5) == 0) {
      char *close = strchr(line, ']');
      s = close != NULL ? section_of(line + 5, (size_t)(close - line - 5)) : 0;
      CU_ASSERT(s != 0);
    } else if (strcmp(line, ".TP") == 0 && strncmp(cur, ".B ", 3) == 0) {
      line = next_line(&cur);
      n++;
      snprintf(name, sizeof name, "%s", line + 3);
      snprintf(entry, sizeof entry, ".TP\n%s\n", line);
      entry_line = n;
      have = 1;
    } else if (have) {
      size_t used = strlen(entry);
      snprintf(entry + used, sizeof entry - used, "%s\n", line);
    }
  }
  if (have)
    push(out, s, name, strlen(name), entry, entry_line);
}

/* README's key table: lines "| `[label]` | `name` | ...". */
static void read_readme(doc_list *out, char *text) {
  char *cur = text, *line;
  unsigned n = 0;
  while ((line = next_line(&cur)) != NULL) {
    char *close, *name;
    n++;
    if (strncmp(line, "| `[", 4) != 0)
      continue;
    close = strstr(line, "]` | `");
    CU_ASSERT_PTR_NOT_NULL(close);
    if (close == NULL)
      continue;
    name = close + 6;
    push(out, section_of(line + 4, (size_t)(close - line - 4)), name, strcspn(name, "`"), line, n);
  }
}

/* ------------------------------------------------------------ checking */

/* Both ways: every row is listed once, every listed key is a row, and
 * each says what the row says in that format (an ini file: its value is
 * the default, or the example). */
static void check_both_ways(const char *doc, const doc_list *l, doc_format f) {
  size_t i, j;
  char want[ENTRY_TEXT], label[64];
  for (i = 0; i < l->count; i++) {
    const doc_entry *e = &l->items[i];
    const olc_config_key *k =
        e->section != 0 ? olc_config__key_find(e->section, e->name, NULL) : NULL;
    if (k == NULL) {
      fprintf(stderr, "\n  %s:%u: '%s' is not a key of the table (host/src/config/key_table.c)\n",
              doc, e->line, e->name);
      CU_FAIL("a documented key is not in the table");
      continue;
    }
    for (j = 0; j < i; j++)
      if (l->items[j].section == e->section && strcmp(l->items[j].name, e->name) == 0) {
        fprintf(stderr, "\n  %s:%u: '%s' is listed twice\n", doc, e->line, e->name);
        CU_FAIL("a key is listed twice");
      }
    if (f == DOC_INI) {
      const char *v = k->def != NULL ? k->def : k->example;
      if (strcmp(e->text, v) != 0) {
        fprintf(stderr, "\n  %s:%u: %s = %s, but the table says %s\n", doc, e->line, e->name,
                e->text, v);
        CU_FAIL("a documented value is not the table's");
      }
    } else {
      row_text(want, sizeof want, k, f);
      if (strcmp(e->text, want) != 0) {
        fprintf(stderr, "\n  %s:%u: [%s] %s says\n%s\n  but the table says\n%s\n", doc, e->line,
                section_label(k->section, label, sizeof label), k->name, e->text, want);
        CU_FAIL("a documented key does not say what the table says");
      }
    }
  }
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    int found = 0;
    for (j = 0; j < l->count; j++)
      found |= l->items[j].section == k->section && strcmp(l->items[j].name, k->name) == 0;
    if (!found) {
      row_text(want, sizeof want, k, f);
      fprintf(stderr, "\n  %s lacks [%s] %s; in its form:\n%s\n", doc,
              section_label(k->section, label, sizeof label), k->name, want);
      CU_FAIL("a key of the table is not documented");
    }
  }
}

static void test_full_ini(void) {
  doc_list l = {0}, unknown = {0};
  char *text = read_source("config/examples/full.ini");
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  read_ini(&l, &unknown, text);
  check_both_ways("config/examples/full.ini", &l, DOC_INI);
  for (i = 0; i < unknown.count; i++) {
    fprintf(stderr, "\n  config/examples/full.ini:%u: '%s' is not a key of the table\n",
            unknown.items[i].line, unknown.items[i].name);
    CU_FAIL("full.ini names a key the table lacks");
  }
  free(l.items);
  free(unknown.items);
  free(text);
}

static void test_default_ini(void) {
  doc_list l = {0}, unknown = {0};
  char *text = read_source("config/default.ini");
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  read_ini(&l, &unknown, text);
  CU_ASSERT(l.count > 0);
  for (i = 0; i < unknown.count; i++) {
    fprintf(stderr, "\n  config/default.ini:%u: '%s' is not a key of the table\n",
            unknown.items[i].line, unknown.items[i].name);
    CU_FAIL("default.ini names a key the table lacks");
  }
  /* The embedded default is what olc runs with unless told otherwise: a
   * value of it that is not the table's default is said where the table's
   * default is (the reader would take the table's for olc calibrate's). */
  {
    char *md = read_source("docs/configuration.md"), *man = read_source("host/cli/olc.1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(man);
    for (i = 0; i < l.count; i++) {
      const doc_entry *e = &l.items[i];
      const olc_config_key *k = olc_config__key_find(e->section, e->name, NULL);
      if (k == NULL || k->def == NULL || strcmp(k->def, e->text) == 0 || strchr(e->text, '@'))
        continue;
      if (!names_value(md, e, 0) || !names_value(man, e, 1)) {
        fprintf(stderr,
                "\n  config/default.ini:%u: '%s = %s' (the table's default: %s) is not named in "
                "%s\n",
                e->line, e->name, e->text, k->def,
                !names_value(md, e, 0) ? "docs/configuration.md" : "host/cli/olc.1");
        CU_FAIL("a value of the embedded default is not documented");
      }
    }
    free(md);
    free(man);
  }
  free(l.items);
  free(unknown.items);
  free(text);
}

static void test_man_page(void) {
  doc_list l = {0};
  char *text = read_source("host/cli/olc.1");
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  read_man(&l, text);
  check_both_ways("host/cli/olc.1", &l, DOC_MAN);
  free(l.items);
  free(text);
}

static void test_key_table(void) {
  doc_list l = {0};
  char *text = read_source("docs/configuration.md");
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  read_readme(&l, text);
  check_both_ways("docs/configuration.md", &l, DOC_README);
  free(l.items);
  free(text);
}

/* The key table lives in docs/configuration.md alone: a row copied into
 * README.md would go stale unchecked. */
static void test_readme_has_no_table(void) {
  doc_list l = {0};
  char *text = read_source("README.md");
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  read_readme(&l, text);
  for (i = 0; i < l.count; i++)
    fprintf(stderr,
            "\n  README.md:%u: a key table row ('%s'): it belongs in docs/configuration.md\n",
            l.items[i].line, l.items[i].name);
  CU_ASSERT_EQUAL(l.count, 0u);
  free(l.items);
  free(text);
}

/* "[calibration] strategy = race" in running text names a key. */
static void check_mentions(const char *doc) {
  char *text = read_source(doc), *p;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  for (p = strchr(text, '['); p != NULL; p = strchr(p + 1, '[')) {
    char *close = strchr(p, ']'), name[64];
    olc_config_section s;
    size_t len;
    if (close == NULL || close[1] != ' ')
      continue;
    s = section_of(p + 1, (size_t)(close - p - 1));
    len = ident_len(close + 2);
    if (s == 0 || s >= OLC_CONFIG_WORKLOAD || len == 0 || strncmp(close + 2 + len, " =", 2) != 0)
      continue;
    snprintf(name, sizeof name, "%.*s", (int)len, close + 2);
    if (olc_config__key_find(s, name, NULL) == NULL) {
      fprintf(stderr, "\n  %s mentions [%s] %s, which the table lacks\n", doc,
              olc_config__section_name(s), name);
      CU_FAIL("a mentioned key is not in the table");
    }
  }
  free(text);
}

static void test_mentions(void) {
  static const char *const docs[] = {
      "README.md",          "host/cli/olc.1",   "docs/configuration.md", "docs/store.md",
      "docs/durability.md", "docs/fleets.md",   "docs/runtime.md",       "docs/cli.md",
      "docs/windows.md",    "docs/building.md", "docs/api.md",           "docs/plugin-writing.md",
      "docs/file-format.md"};
  size_t i;
  for (i = 0; i < sizeof docs / sizeof docs[0]; i++)
    check_mentions(docs[i]);
}

/* The readers find what they are given: a missing or extra key fails. */
static void test_readers(void) {
  char ini[] = "[host]\nthreads = 0\n; bogus = 1\n[workload.w]\nm = 1\nbackend = cpu_gemm\n";
  char man[] = ".SH CONFIGURATION\n.SS [store]\n.TP\n.B path\nx\n.br\ny\n.SH EXIT STATUS\n"
               ".TP\n.B 0\n";
  char readme[] = "| `[calibration]` | `warmup` | a | b | c |\n| code | x |\n";
  doc_list l = {0}, unknown = {0};
  read_ini(&l, &unknown, ini);
  CU_ASSERT_EQUAL_FATAL(l.count, 2u);
  CU_ASSERT_STRING_EQUAL(l.items[0].name, "threads");
  CU_ASSERT_STRING_EQUAL(l.items[0].text, "0");
  CU_ASSERT_EQUAL(l.items[1].section, OLC_CONFIG_WORKLOAD);
  CU_ASSERT_EQUAL_FATAL(unknown.count, 1u);
  CU_ASSERT_STRING_EQUAL(unknown.items[0].name, "bogus");
  CU_ASSERT_EQUAL(unknown.items[0].line, 3u);
  l.count = 0;
  read_man(&l, man);
  CU_ASSERT_EQUAL_FATAL(l.count, 1u);
  CU_ASSERT_EQUAL(l.items[0].section, OLC_CONFIG_STORE);
  CU_ASSERT_STRING_EQUAL(l.items[0].text, ".TP\n.B path\nx\n.br\ny\n");
  l.count = 0;
  read_readme(&l, readme);
  CU_ASSERT_EQUAL_FATAL(l.count, 1u);
  CU_ASSERT_EQUAL(l.items[0].section, OLC_CONFIG_CALIBRATION);
  CU_ASSERT_STRING_EQUAL(l.items[0].name, "warmup");
  free(l.items);
  free(unknown.items);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  g_keys = olc_config__keys(&g_count);
  if (argc == 3 && strcmp(argv[1], "--print") == 0) {
    doc_format f = strcmp(argv[2], "man") == 0      ? DOC_MAN
                   : strcmp(argv[2], "readme") == 0 ? DOC_README
                                                    : DOC_INI;
    print_table(f);
    return 0;
  }
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("config_docs", NULL, NULL);
  CU_add_test(s, "the readers", test_readers);
  CU_add_test(s, "config/examples/full.ini", test_full_ini);
  CU_add_test(s, "config/default.ini", test_default_ini);
  CU_add_test(s, "olc.1 CONFIGURATION", test_man_page);
  CU_add_test(s, "docs/configuration.md key table", test_key_table);
  CU_add_test(s, "README.md has no key table", test_readme_has_no_table);
  CU_add_test(s, "keys named in running text", test_mentions);
  return olc_test_run(argc, argv);
}
