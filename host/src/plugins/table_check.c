/*
 * plugins/table_check.c - what a plugin table must hold before the host
 * uses it: the abi major, the size of the v1.0 layout, a valid name,
 * version and operator strings, and every required function.
 */
#include <stdio.h>
#include <string.h>

#include "plugins/plugins_int.h"
#include "util/text.h"

/* A plugin name: 1..OLC_PLUGINS_MAX_NAME bytes of [a-z0-9_]; 0 with msg
 * when not. */
static int name_ok(const char *s, char *msg, size_t size) {
  size_t n;
  size_t i;
  if (s == NULL || s[0] == 0) {
    snprintf(msg, size, "plugin name is empty");
    return 0;
  }
  n = strnlen(s, OLC_PLUGINS_MAX_NAME + 1);
  if (n > OLC_PLUGINS_MAX_NAME) {
    snprintf(msg, size, "plugin name is longer than %u bytes", OLC_PLUGINS_MAX_NAME);
    return 0;
  }
  if (!olc_util__utf8_valid(s, n)) {
    snprintf(msg, size, "plugin name is not valid utf-8");
    return 0;
  }
  for (i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      snprintf(msg, size, "plugin name \"%s\" has characters outside [a-z0-9_]", s);
      return 0;
    }
  }
  return 1;
}

/* 1 when s is non-empty valid UTF-8 of at most cap bytes. */
static int text_ok(const char *s, size_t cap) {
  size_t n;
  if (s == NULL || s[0] == 0)
    return 0;
  n = strnlen(s, cap + 1);
  return n <= cap && olc_util__utf8_valid(s, n);
}

/* The table checks after abi_major: 0 with msg when malformed. */
static int table_ok(const olc_plugin *t, char *msg, size_t size) {
  static const char *const req_names[] = {
      "create", "destroy", "key", "candidates", "validate", "serialize", "release_policy", "run"};
  const int req[] = {t->create != NULL,         t->destroy != NULL,  t->key != NULL,
                     t->candidates != NULL,     t->validate != NULL, t->serialize != NULL,
                     t->release_policy != NULL, t->run != NULL};
  uint32_t i;
  if (!text_ok(t->implementation_version, OLC_PLUGINS_MAX_STRING)) {
    snprintf(msg, size, "implementation_version is empty, too long or not valid utf-8");
    return 0;
  }
  if (t->operators == NULL || t->operator_count == 0 ||
      t->operator_count > OLC_PLUGINS_MAX_OPERATORS) {
    snprintf(msg, size, "operators: %u listed (need 1..%u)", (unsigned)t->operator_count,
             OLC_PLUGINS_MAX_OPERATORS);
    return 0;
  }
  for (i = 0; i < t->operator_count; i++)
    if (!text_ok(t->operators[i], OLC_PLUGINS_MAX_STRING)) {
      snprintf(msg, size, "operator %u is empty, too long or not valid utf-8", (unsigned)i);
      return 0;
    }
  for (i = 0; i < sizeof req / sizeof req[0]; i++)
    if (!req[i]) {
      snprintf(msg, size, "required function %s is NULL", req_names[i]);
      return 0;
    }
  /* ABI 1.3: what pack makes, release_packed frees. */
  if (OLC_PLUGIN_HAS_FIELD(t, olc_plugin, release_packed) && t->pack != NULL &&
      t->release_packed == NULL) {
    snprintf(msg, size, "pack is set without release_packed");
    return 0;
  }
  return olc_plugins__tolerances_ok(t, msg, size);
}

/* The checks of a table the entry returned; 0 with msg and *stage set
 * when it is refused.  Nothing past struct_size may be read unchecked.
 * The major comes first (when the table is big enough to hold it): a
 * table of another major is an abi mismatch whatever its size. */
int olc_plugins__table_check(const olc_plugin *t, olc_load_stage *stage, const char **name,
                             char *msg, size_t size) {
  *stage = OLC_LOAD_ABI;
  if (t->struct_size >= offsetof(olc_plugin, abi_major) + sizeof t->abi_major &&
      t->abi_major != OLC_PLUGIN_ABI_MAJOR) {
    snprintf(msg, size, "plugin table has abi major %u, the host speaks %u", (unsigned)t->abi_major,
             OLC_PLUGIN_ABI_MAJOR);
    return 0;
  }
  *stage = OLC_LOAD_VALIDATE;
  if (t->struct_size < OLC_PLUGINS_MIN_TABLE_SIZE) {
    snprintf(msg, size, "plugin table is too small: struct_size %u < %u (abi 1.0)",
             (unsigned)t->struct_size, (unsigned)OLC_PLUGINS_MIN_TABLE_SIZE);
    return 0;
  }
  if (!name_ok(t->name, msg, size))
    return 0;
  *name = t->name; /* reports name the plugin from here on */
  return table_ok(t, msg, size);
}
