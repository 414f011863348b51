/*
 * host/cli/cli_key.c - the key options of lookup and override.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void cli_key_init(cli_key_args *k) { memset(k, 0, sizeof *k); }

void cli_key_free(cli_key_args *k) {
  size_t i;
  for (i = 0; i < k->key.structure_count; i++)
    free(k->owned[i]);
  free(k->owned);
  free(k->props);
  memset(k, 0, sizeof *k);
}

int cli_parser_usage(const cli_ctx *ctx, const cli_parser *p) {
  return cli_usage_error(ctx, "%s", p->message);
}

static int key_string(const char **field, const cli_ctx *ctx, const char *option, const char *value,
                      int *rc) {
  if (value[0] == 0) {
    *rc = cli_usage_error(ctx, "option '--%s' needs a non-empty value", option);
    return -1;
  }
  *field = value;
  return 1;
}

static int key_structure(cli_key_args *k, const cli_ctx *ctx, const char *option, const char *value,
                         int *rc) {
  const char *eq = strchr(value, '=');
  size_t i, n = k->key.structure_count;
  char *copy;

  if (eq == NULL || eq == value) {
    *rc = cli_usage_error(ctx, "option '--%s' needs NAME=VALUE, got '%.64s'", option, value);
    return -1;
  }
  for (i = 0; i < n; i++)
    if (strlen(k->props[i].name) == (size_t)(eq - value) &&
        memcmp(k->props[i].name, value, (size_t)(eq - value)) == 0) {
      *rc = cli_usage_error(ctx, "option '--%s' repeats the name '%.*s'", option,
                            (int)(eq - value > 64 ? 64 : eq - value), value);
      return -1;
    }
  if (n == k->cap) {
    size_t cap = k->cap != 0 ? k->cap * 2 : 8;
    olc_property *props = realloc(k->props, cap * sizeof *props);
    char **owned;
    if (props == NULL)
      goto nomem;
    k->props = props;
    owned = realloc(k->owned, cap * sizeof *owned);
    if (owned == NULL)
      goto nomem;
    k->owned = owned;
    k->cap = cap;
  }
  copy = malloc(strlen(value) + 1);
  if (copy == NULL)
    goto nomem;
  strcpy(copy, value);
  copy[eq - value] = 0;
  k->owned[n] = copy;
  k->props[n].name = copy;
  k->props[n].value = copy + (eq - value) + 1;
  k->key.structure = k->props;
  k->key.structure_count = n + 1;
  return 1;
nomem:
  *rc = cli_failf(ctx, "out of memory");
  return -1;
}

int cli_key_option(cli_key_args *k, const cli_ctx *ctx, int id, const char *value, int *rc) {
  char msg[160];
  switch (id) {
  case CLI_KEY_BACKEND:
    return key_string(&k->key.backend, ctx, "backend", value, rc);
  case CLI_KEY_OPERATOR:
    return key_string(&k->key.operator_name, ctx, "operator", value, rc);
  case CLI_KEY_IMPLEMENTATION:
    return key_string(&k->key.implementation, ctx, "implementation", value, rc);
  case CLI_KEY_MODEL_DIGEST:
    return key_string(&k->key.model_digest, ctx, "model-digest", value, rc);
  case CLI_KEY_PROCESSOR:
    return key_string(&k->key.processor, ctx, "processor", value, rc);
  case CLI_KEY_THREADS:
    if (cli_parse_int64(&k->key.thread_count, value, 1, INT32_MAX, msg, sizeof msg) != 0) {
      *rc = cli_usage_error(ctx, "option '--threads': %s", msg);
      return -1;
    }
    k->has_threads = 1;
    return 1;
  case CLI_KEY_STRUCTURE:
    return key_structure(k, ctx, "structure", value, rc);
  default:
    return 0;
  }
}

int cli_key_require_base(const cli_key_args *k, const cli_ctx *ctx) {
  if (k->key.backend == NULL)
    return cli_usage_error(ctx, "option '--backend' is required");
  if (k->key.operator_name == NULL)
    return cli_usage_error(ctx, "option '--operator' is required");
  if (k->key.implementation == NULL)
    return cli_usage_error(ctx, "option '--implementation' is required");
  /* The exact identity is all of them or none (the library would refuse
   * the key; that is a usage error here). */
  if ((k->key.model_digest == NULL) != (k->key.processor == NULL))
    return cli_usage_error(ctx, "options '--model-digest' and '--processor' go together (the "
                                "exact identity); one is missing");
  if (k->has_threads && k->key.model_digest == NULL)
    return cli_usage_error(ctx, "option '--threads' needs '--model-digest' and '--processor'");
  return CLI_EXIT_OK;
}

/* ---- a workload described as a runtime binds it ----------------------- */

int cli_workload_option(cli_workload_args *w, const cli_ctx *ctx, int id, const char *value,
                        int *rc) {
  switch (id) {
  case CLI_WORKLOAD_NAME:
    return key_string(&w->name, ctx, "workload", value, rc);
  case CLI_WORKLOAD_PROPERTY:
    return key_structure(&w->props, ctx, "property", value, rc);
  default:
    return 0;
  }
}

int cli_workload_given(const cli_workload_args *w) {
  return w->name != NULL || w->props.key.structure_count != 0;
}

int cli_workload_check(const cli_workload_args *w, const cli_key_args *k, const cli_ctx *ctx) {
  if (w->name != NULL) {
    if (k->key.backend != NULL || k->key.operator_name != NULL || k->key.model_digest != NULL ||
        w->props.key.structure_count != 0)
      return cli_usage_error(ctx, "option '--workload' names a configured workload; it takes no "
                                  "'--backend', '--operator', '--model-digest' or '--property'");
  } else {
    if (k->key.backend == NULL)
      return cli_usage_error(ctx, "option '--backend' is required (or '--workload NAME')");
    if (k->key.operator_name == NULL)
      return cli_usage_error(ctx, "option '--operator' is required (or '--workload NAME')");
  }
  if (k->key.implementation != NULL || k->key.processor != NULL || k->has_threads ||
      k->key.structure_count != 0)
    return cli_usage_error(ctx, "options '--implementation', '--processor', '--threads' and "
                                "'--structure' give a raw key; a workload's key is composed "
                                "by its plugin");
  return CLI_EXIT_OK;
}

olc_status cli_workload_bind(olc_binding **out, olc_host *host, const cli_workload_args *w,
                             const cli_key_args *k, olc_error *err) {
  olc_workload wl = OLC_WORKLOAD_INIT;
  if (w->name != NULL)
    return olc_host_bind_workload(out, host, w->name, err);
  wl.backend = k->key.backend;
  wl.operator_name = k->key.operator_name;
  wl.model_digest = k->key.model_digest;
  wl.properties = w->props.key.structure;
  wl.property_count = w->props.key.structure_count;
  return olc_host_bind(out, host, &wl, err);
}
