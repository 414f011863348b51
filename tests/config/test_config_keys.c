/*
 * tests/config/test_config_keys.c - the key table (config/key_table.h) and the
 * parser it drives, row by row: every row is well-formed, its default is
 * what an absent key means, and its checks and messages (empty, repeated,
 * out of range, not a choice, excluded) come out of the row.  A new row
 * is tested here without a line of its own.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config_impl.h"
#include "config/key_table.h"
#include "olc/host.h"
#include "test_support.h"

static const olc_config_key *g_keys;
static size_t g_count;
static char *g_dir; /* base directory: holds the example model file */

/* A value the row accepts: its default, or its example. */
static const char *good_value(const olc_config_key *k) {
  return k->def != NULL ? k->def : k->example;
}

/* "[host]\n" or "[workload.w]\n" and the section's other required keys,
 * so that a row's own line is the next one; *lines counts them. */
static size_t section_head(char *buf, size_t size, const olc_config_key *k, unsigned *lines) {
  size_t i, pos;
  const char *name = olc_config__section_name(k->section);
  int named = k->section == OLC_CONFIG_WORKLOAD || k->section == OLC_CONFIG_PLUGIN;
  pos = (size_t)snprintf(buf, size, "[%s%s]\n", name, named ? ".w" : "");
  *lines = 1;
  for (i = 0; i < g_count; i++)
    if (g_keys[i].section == k->section && &g_keys[i] != k &&
        (g_keys[i].flags & OLC_CONFIG_REQUIRED)) {
      pos += (size_t)snprintf(buf + pos, size - pos, "%s = %s\n", g_keys[i].name,
                              good_value(&g_keys[i]));
      (*lines)++;
    }
  return pos;
}

static const char *label(const olc_config_key *k, char *buf, size_t size) {
  int named = k->section == OLC_CONFIG_WORKLOAD || k->section == OLC_CONFIG_PLUGIN;
  snprintf(buf, size, "%s%s", olc_config__section_name(k->section), named ? ".w" : "");
  return buf;
}

/* Loads the row's section with `name = value` lines (each of values). */
static olc_status load_with(olc_config **out, olc_error *err, const olc_config_key *k,
                            const char *const *values, size_t n, unsigned *key_line) {
  char text[1024];
  size_t pos, i;
  pos = section_head(text, sizeof text, k, key_line);
  for (i = 0; i < n; i++)
    pos += (size_t)snprintf(text + pos, sizeof text - pos, "%s =%s%s\n", k->name,
                            values[i][0] ? " " : "", values[i]);
  (*key_line)++;
  *out = NULL;
  olc_error_clear(err);
  return olc_config_load_string(out, text, strlen(text), "t.ini", g_dir, err);
}

/* Expects the row with one line per value to fail at line + extra with
 * "t.ini:LINE: <want>". */
static void expect_row_error(const olc_config_key *k, const char *const *values, size_t n,
                             unsigned extra, const char *want) {
  olc_config *c;
  olc_error err;
  unsigned line;
  char prefix[64];
  olc_status st = load_with(&c, &err, k, values, n, &line);
  snprintf(prefix, sizeof prefix, "t.ini:%u: ", line + extra);
  if (st != OLC_E_CONFIG || strncmp(err.message, prefix, strlen(prefix)) != 0 ||
      strstr(err.message, want) == NULL)
    fprintf(stderr, "\n  key %s: got %s '%s', want '%s%s'\n", k->name, olc_status_name(st),
            err.message, prefix, want);
  CU_ASSERT_EQUAL(st, OLC_E_CONFIG);
  CU_ASSERT_EQUAL(err.line, line + extra);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, want));
  olc_config_free(c);
}

static void expect_accepted(const olc_config_key *k, const char *value) {
  olc_config *c;
  olc_error err;
  unsigned line;
  olc_status st = load_with(&c, &err, k, &value, 1, &line);
  if (st != OLC_OK)
    fprintf(stderr, "\n  key %s = '%s': %s\n", k->name, value, err.message);
  CU_ASSERT_EQUAL(st, OLC_OK);
  olc_config_free(c);
}

static void expect_bad(const olc_config_key *k, const char *value) {
  char want[320], l[64], expected[160];
  snprintf(want, sizeof want, "[%s] %s: bad value '%s' (expected %s)", label(k, l, sizeof l),
           k->name, value, olc_config__key_expected(expected, sizeof expected, k));
  expect_row_error(k, &value, 1, 0, want);
}

static int setup(void) {
  char *models, *model;
  g_keys = olc_config__keys(&g_count);
  g_dir = olc_test_tmpdir("config_keys");
  if (g_dir == NULL)
    return 1;
  models = olc_test_path(g_dir, "models");
  model = olc_test_path(models, "my_model.onnx");
  if (mkdir(models, 0700) != 0 || olc_test_write_file(model, "abc", 3) != 0)
    return 1;
  free(models);
  free(model);
  return 0;
}

static int teardown(void) {
  olc_test_rmtree(g_dir);
  free(g_dir);
  return 0;
}

static int is_name(const char *s) {
  return s[0] != 0 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* The storage a type needs, the range an INT's storage holds. */
static void check_storage(const olc_config_key *k) {
  switch (k->type) {
  case OLC_CONFIG_BOOL:
  case OLC_CONFIG_ENUM:
    CU_ASSERT_EQUAL(k->size, sizeof(int));
    break;
  case OLC_CONFIG_INT:
    CU_ASSERT(k->size == 4 || k->size == 8);
    CU_ASSERT(k->min == floor(k->min) && k->max == floor(k->max) && k->min <= k->max);
    CU_ASSERT(k->size == 8 || (k->min >= 0 ? k->max <= 4294967295.0
                                           : k->min >= -2147483648.0 && k->max <= 2147483647.0));
    break;
  case OLC_CONFIG_NUMBER:
    CU_ASSERT_EQUAL(k->size, sizeof(double));
    CU_ASSERT(k->min < k->max);
    break;
  case OLC_CONFIG_PATH:
  case OLC_CONFIG_STRING:
    CU_ASSERT(k->set != NULL || k->size == sizeof(const char *));
    break;
  case OLC_CONFIG_PATH_LIST:
    CU_ASSERT(k->set != NULL || (k->size == sizeof(const char **) && k->count_offset != k->offset));
    break;
  }
  if (k->type == OLC_CONFIG_ENUM) {
    size_t i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(k->choices);
    CU_ASSERT_PTR_NOT_NULL(k->choices[0].name);
    for (i = 0; k->choices[i].name != NULL; i++)
      CU_ASSERT(is_name(k->choices[i].name));
    /* The boolean words stand for the choices "true" and "false". */
    if (k->flags & OLC_CONFIG_BOOL_WORDS) {
      int t = 0, f = 0;
      for (i = 0; k->choices[i].name != NULL; i++) {
        t |= strcmp(k->choices[i].name, "true") == 0;
        f |= strcmp(k->choices[i].name, "false") == 0;
      }
      CU_ASSERT(t && f);
    }
  }
}

static void test_rows(void) {
  size_t i, j;
  unsigned per_section[OLC_CONFIG_PLUGIN + 1] = {0};
  CU_ASSERT(g_count > 0);
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    uint64_t bit = 0, other = 0;
    CU_ASSERT(k->section >= OLC_CONFIG_HOST && k->section <= OLC_CONFIG_PLUGIN);
    /* Sorted by section: the documentation lists them in this order. */
    CU_ASSERT(i == 0 || g_keys[i - 1].section <= k->section);
    CU_ASSERT(is_name(k->name));
    per_section[k->section]++;
    CU_ASSERT_PTR_EQUAL(olc_config__key_find(k->section, k->name, &bit), k);
    for (j = 0; j < i; j++) {
      if (g_keys[j].section != k->section)
        continue;
      CU_ASSERT(strcmp(g_keys[j].name, k->name) != 0);
      olc_config__key_find(k->section, g_keys[j].name, &other);
      CU_ASSERT(other != bit);
    }
    check_storage(k);
    /* One line of text for the man page and a README table cell, with
     * nothing that troff or markdown would take for markup. */
    CU_ASSERT(k->description != NULL && k->description[0] != 0);
    if (k->description != NULL)
      CU_ASSERT(strpbrk(k->description, "\n|\\`<*") == NULL && k->description[0] != '.' &&
                k->description[0] != '\'' && k->description[strlen(k->description) - 1] == '.');
    CU_ASSERT(!((k->flags & OLC_CONFIG_REQUIRED) && k->def != NULL));
    CU_ASSERT((k->def == NULL) != (k->example == NULL));
    if (k->excludes != NULL) {
      const olc_config_key *o = olc_config__key_find(k->section, k->excludes, NULL);
      CU_ASSERT_PTR_NOT_NULL_FATAL(o);
      CU_ASSERT(o->excludes != NULL && strcmp(o->excludes, k->name) == 0);
    }
  }
  /* The given-keys masks have 64 bits per section. */
  for (i = 0; i <= OLC_CONFIG_PLUGIN; i++)
    CU_ASSERT(per_section[i] <= 64u);
  CU_ASSERT_PTR_NULL(olc_config__key_find(OLC_CONFIG_HOST, "nope", NULL));
  CU_ASSERT_PTR_NULL(olc_config__key_find(OLC_CONFIG_STORE, "threads", NULL));
}

/* Where row k's value of config c is. */
static const char *value_at(const olc_config *c, const olc_config_key *k) {
  switch (k->section) {
  case OLC_CONFIG_CALIBRATION:
    return (const char *)&c->calibration + k->offset;
  case OLC_CONFIG_WORKLOAD:
    return (const char *)&c->workloads[0].pub + k->offset;
  case OLC_CONFIG_PLUGIN:
    return (const char *)&c->plugins[0].pub + k->offset;
  default:
    return (const char *)c + k->offset;
  }
}

static int same_value(const olc_config *a, const olc_config *b, const olc_config_key *k) {
  size_t i;
  if (k->type == OLC_CONFIG_PATH_LIST) {
    if (olc_config_plugin_dir_count(a) != olc_config_plugin_dir_count(b))
      return 0;
    for (i = 0; i < olc_config_plugin_dir_count(a); i++)
      if (strcmp(olc_config_plugin_dir(a, i), olc_config_plugin_dir(b, i)) != 0)
        return 0;
    return 1;
  }
  if (k->type == OLC_CONFIG_PATH || k->type == OLC_CONFIG_STRING) {
    const char *x, *y;
    memcpy(&x, value_at(a, k), sizeof x);
    memcpy(&y, value_at(b, k), sizeof y);
    return x != NULL && y != NULL && strcmp(x, y) == 0;
  }
  return memcmp(value_at(a, k), value_at(b, k), k->size) == 0;
}

/* An absent key means its default: the same as writing the default. */
static void test_defaults(void) {
  size_t i;
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    olc_config *absent = NULL, *given = NULL;
    olc_error err;
    unsigned line;
    if (k->def == NULL)
      continue;
    CU_ASSERT_EQUAL_FATAL(load_with(&absent, &err, k, NULL, 0, &line), OLC_OK);
    OLC_ASSERT_OK(load_with(&given, &err, k, &k->def, 1, &line), &err);
    if (given != NULL && !same_value(absent, given, k))
      fprintf(stderr, "\n  key %s: absent is not '%s'\n", k->name, k->def);
    CU_ASSERT(given != NULL && same_value(absent, given, k));
    olc_config_free(absent);
    olc_config_free(given);
  }
}

/* Every row: an empty value, a second line of it, a key of the section
 * that does not exist, a section without a required key, both of two
 * keys that exclude each other. */
static void test_generic_errors(void) {
  size_t i;
  char want[256], l[64];
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    const char *twice[2] = {good_value(k), good_value(k)};
    const char *empty = "";
    label(k, l, sizeof l);
    if (!(k->flags & OLC_CONFIG_EMPTY_OK)) {
      snprintf(want, sizeof want, "[%s] %s: empty value", l, k->name);
      expect_row_error(k, &empty, 1, 0, want);
    }
    snprintf(want, sizeof want, "duplicate key '%s' in [%s]", k->name, l);
    expect_row_error(k, twice, 2, 1, want);
    if (k->flags & OLC_CONFIG_REQUIRED) {
      olc_config *c;
      olc_error err;
      unsigned line;
      snprintf(want, sizeof want, "t.ini:1: [%s] has no %s", l, k->name);
      CU_ASSERT_EQUAL(load_with(&c, &err, k, NULL, 0, &line), OLC_E_CONFIG);
      CU_ASSERT_EQUAL(err.line, 1u);
      CU_ASSERT_STRING_EQUAL(err.message, want);
    }
  }
}

static void test_excludes(void) {
  size_t i;
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i], *o;
    olc_config *c;
    olc_error err;
    char text[1024], want[256], l[64];
    unsigned line;
    size_t pos;
    if (k->excludes == NULL)
      continue;
    o = olc_config__key_find(k->section, k->excludes, NULL);
    pos = section_head(text, sizeof text, k, &line);
    snprintf(text + pos, sizeof text - pos, "%s = %s\n%s = %s\n", o->name, good_value(o), k->name,
             good_value(k));
    snprintf(want, sizeof want,
             "t.ini:%u: [%s] %s: %s is already given (the two exclude each other)", line + 2,
             label(k, l, sizeof l), k->name, o->name);
    CU_ASSERT_EQUAL(olc_config_load_string(&c, text, strlen(text), "t.ini", g_dir, &err),
                    OLC_E_CONFIG);
    if (strcmp(err.message, want) != 0)
      fprintf(stderr, "\n  got '%s'\n  want '%s'\n", err.message, want);
    CU_ASSERT_STRING_EQUAL(err.message, want);
  }
}

/* Ranges at both ends and past them; choices as named, and not in
 * another case; words that are not booleans. */
static void test_ranges_and_choices(void) {
  size_t i, j;
  char v[64];
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    switch (k->type) {
    case OLC_CONFIG_INT:
      snprintf(v, sizeof v, "%lld", (long long)k->min);
      expect_accepted(k, v);
      snprintf(v, sizeof v, "%lld", (long long)k->max);
      expect_accepted(k, v);
      snprintf(v, sizeof v, "%lld", (long long)k->min - 1);
      expect_bad(k, v);
      snprintf(v, sizeof v, "%lld", (long long)k->max + 1);
      expect_bad(k, v);
      expect_bad(k, "1.5");
      break;
    case OLC_CONFIG_NUMBER:
      snprintf(v, sizeof v, "%.17g", k->min);
      if (k->flags & OLC_CONFIG_MIN_EXCLUSIVE)
        expect_bad(k, v);
      else
        expect_accepted(k, v);
      snprintf(v, sizeof v, "%.17g", k->max);
      expect_accepted(k, v);
      snprintf(v, sizeof v, "%.17g", k->max * 1.5 + 1);
      expect_bad(k, v);
      snprintf(v, sizeof v, "%.17g", k->min - 1);
      expect_bad(k, v);
      expect_bad(k, "0,5");
      break;
    case OLC_CONFIG_ENUM:
      for (j = 0; k->choices[j].name != NULL; j++) {
        expect_accepted(k, k->choices[j].name);
        snprintf(v, sizeof v, "%s", k->choices[j].name);
        v[0] = (char)(v[0] - 'a' + 'A');
        /* With BOOL_WORDS, "True" is a boolean word (any case). */
        if ((k->flags & OLC_CONFIG_BOOL_WORDS) != 0 &&
            (strcmp(k->choices[j].name, "true") == 0 || strcmp(k->choices[j].name, "false") == 0))
          expect_accepted(k, v);
        else
          expect_bad(k, v);
      }
      expect_bad(k, "none_of_them");
      break;
    case OLC_CONFIG_BOOL:
      expect_bad(k, "maybe");
      expect_bad(k, "2");
      break;
    case OLC_CONFIG_STRING:
      if (k->check != NULL)
        expect_bad(k, "@ not this");
      break;
    default:
      break;
    }
  }
}

/* An ENUM stores the value of the choice it names. */
static void test_enum_values(void) {
  size_t i, j;
  for (i = 0; i < g_count; i++) {
    const olc_config_key *k = &g_keys[i];
    if (k->type != OLC_CONFIG_ENUM)
      continue;
    for (j = 0; k->choices[j].name != NULL; j++) {
      olc_config *c;
      olc_error err;
      unsigned line;
      int got = -12345;
      OLC_ASSERT_OK(load_with(&c, &err, k, &k->choices[j].name, 1, &line), &err);
      if (c != NULL)
        memcpy(&got, value_at(c, k), sizeof got);
      CU_ASSERT_EQUAL(got, k->choices[j].value);
      olc_config_free(c);
    }
  }
}

/* Rows the table may gain: a boolean that grows a third choice (as
 * [store] persistence = read_only would), signed 32-bit and 64-bit
 * integers, an exclusive minimum. */
static void test_row_kinds(void) {
  static const olc_config_choice modes[] = {{"false", 0}, {"true", 1}, {"read_only", 2}, {NULL, 0}};
  olc_config_key mode = {.section = OLC_CONFIG_STORE,
                         .name = "mode",
                         .type = OLC_CONFIG_ENUM,
                         .flags = OLC_CONFIG_BOOL_WORDS,
                         .choices = modes,
                         .size = sizeof(int)};
  olc_config_key i32 = {.type = OLC_CONFIG_INT, .min = -5, .max = 5, .size = sizeof(int32_t)};
  olc_config_key i64 = {.type = OLC_CONFIG_INT, .min = -1, .max = 1e12, .size = sizeof(int64_t)};
  olc_config_key num = {.type = OLC_CONFIG_NUMBER,
                        .flags = OLC_CONFIG_MIN_EXCLUSIVE,
                        .min = 0.5,
                        .max = 2.5,
                        .size = sizeof(double)};
  char buf[160];
  int v = -1;
  int32_t s = 0;
  int64_t l = 0;
  double d = 0;
  CU_ASSERT(olc_config__key_parse(&v, &mode, "read_only") && v == 2);
  CU_ASSERT(olc_config__key_parse(&v, &mode, "ON") && v == 1);
  CU_ASSERT(olc_config__key_parse(&v, &mode, "no") && v == 0);
  CU_ASSERT(olc_config__key_parse(&v, &mode, "1") && v == 1);
  v = 7;
  CU_ASSERT(!olc_config__key_parse(&v, &mode, "Read_only") && v == 7);
  CU_ASSERT(!olc_config__key_parse(&v, &mode, "maybe") && v == 7);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, &mode),
                         "true/false, yes/no, on/off, 1/0 or read_only");
  CU_ASSERT_STRING_EQUAL(olc_config__key_type_text(buf, sizeof buf, &mode), "boolean or read_only");
  mode.flags = 0; /* without the flag the words are not choices */
  CU_ASSERT(!olc_config__key_parse(&v, &mode, "ON"));
  CU_ASSERT(olc_config__key_parse(&v, &mode, "true") && v == 1);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, &mode),
                         "false, true or read_only");
  CU_ASSERT(olc_config__key_parse(&s, &i32, "-5") && s == -5);
  CU_ASSERT(!olc_config__key_parse(&s, &i32, "-6") && s == -5);
  CU_ASSERT(olc_config__key_parse(&l, &i64, "1000000000000") && l == INT64_C(1000000000000));
  CU_ASSERT(olc_config__key_parse(&l, &i64, "-1") && l == -1);
  CU_ASSERT(!olc_config__key_parse(&d, &num, "0.5"));
  CU_ASSERT(olc_config__key_parse(&d, &num, "2.5") && d == 2.5);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, &num),
                         "a number > 0.5 and <= 2.5");
  /* Strings and paths are the parser's: no field of their own here. */
  num.type = OLC_CONFIG_STRING;
  CU_ASSERT(!olc_config__key_parse(&d, &num, "x"));
}

/* The message text of each type, as the older messages said it. */
static void test_expected_texts(void) {
  char buf[160];
  const olc_config_key *k = olc_config__key_find(OLC_CONFIG_HOST, "threads", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k),
                         "an integer from 0 to 65536");
  CU_ASSERT_STRING_EQUAL(olc_config__key_type_text(buf, sizeof buf, k), "integer, 0 to 65536");
  k = olc_config__key_find(OLC_CONFIG_CALIBRATION, "max_seconds_per_workload", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k), "a number > 0 and <= 86400");
  k = olc_config__key_find(OLC_CONFIG_CALIBRATION, "strategy", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k), "race or full");
  /* Made uniform by the table: these said "milliseconds from -1
   * (forever) to 86400000" and "<= 1e+06". */
  k = olc_config__key_find(OLC_CONFIG_STORE, "lock_timeout_ms", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k),
                         "an integer from -1 to 86400000");
  k = olc_config__key_find(OLC_CONFIG_CALIBRATION, "abandon_factor", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k),
                         "a number >= 1 and <= 1000000");
  k = olc_config__key_find(OLC_CONFIG_STORE, "persistence", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k),
                         "true/false, yes/no, on/off, 1/0 or read_only");
  k = olc_config__key_find(OLC_CONFIG_STORE, "allow_network_fs", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, sizeof buf, k),
                         "true/false, yes/no, on/off or 1/0");
  CU_ASSERT_STRING_EQUAL(olc_config__key_type_text(buf, sizeof buf, k), "boolean");
  /* Truncation keeps a terminated string. */
  k = olc_config__key_find(OLC_CONFIG_CALIBRATION, "strategy", NULL);
  CU_ASSERT_STRING_EQUAL(olc_config__key_expected(buf, 6, k), "race ");
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("config_keys", setup, teardown);
  CU_add_test(s, "every row is well-formed", test_rows);
  CU_add_test(s, "an absent key is its default", test_defaults);
  CU_add_test(s, "empty, repeated and required keys", test_generic_errors);
  CU_add_test(s, "keys that exclude each other", test_excludes);
  CU_add_test(s, "ranges and choices", test_ranges_and_choices);
  CU_add_test(s, "enum values", test_enum_values);
  CU_add_test(s, "message texts", test_expected_texts);
  CU_add_test(s, "kinds of rows to come", test_row_kinds);
  return olc_test_run(argc, argv);
}
