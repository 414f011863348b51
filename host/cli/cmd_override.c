/*
 * host/cli/cmd_override.c - olc override set | remove.
 */
#include "cli_host.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

enum { OPT_LEVEL = 1, OPT_POLICY, OPT_POLICY_FILE, OPT_MEASUREMENT, OPT_NO_VALIDATE };

/* Largest --policy-file accepted (the store's own value limit is larger). */
#define POLICY_FILE_MAX ((size_t)16 << 20)

/* The help lines of a workload given instead of a raw key. */
#define WORKLOAD_HELP                                                                              \
  "  --workload NAME        the configured [workload.NAME]: its key is composed as\n"              \
  "                         calibrate and select compose it\n"                                     \
  "  --backend B --operator O [--property NAME=VALUE]... [--model-digest D]\n"                     \
  "                         a workload as a runtime binds it (D: the model's digest)\n"            \
  "  --config FILE          the ini file whose plugins compose the key (default:\n"                \
  "                         $OLC_CONFIG, else the embedded default); its [store]\n"                \
  "                         path is the store unless --store is given\n"

static const char set_help[] =
    "usage: olc override set --level exact|portable (--workload NAME |\n"
    "                        --backend B --operator O [--property NAME=VALUE]...\n"
    "                        [--model-digest D]) (--policy TEXT | --policy-file FILE)\n"
    "                        [--measurement NAME=VALUE:UNIT]... [--config FILE]\n"
    "       olc override set --level exact|portable --backend B --operator O\n"
    "                        --implementation V [--model-digest D --processor P\n"
    "                        --threads N] [--structure NAME=VALUE]... (--policy TEXT |\n"
    "                        --policy-file FILE) [--no-validate]\n\n"
    "Installs a user override.  Given a workload, its plugin composes the key\n"
    "(implementation, processor, threads, identity digest, structure) as\n"
    "calibrate and select do, so the override is the one they find.  Given a\n"
    "raw key (--implementation), an exact override needs --model-digest,\n"
    "--processor and --threads and takes no --structure; a portable one needs\n"
    "at least one --structure and takes none of the exact options.\n"
    "The policy is validated by the backend's plugin first (a policy it rejects\n"
    "is refused, exit 1; with its plugin not loaded a raw key's policy is\n"
    "installed with a warning).  Overrides win over calibrated records at the\n"
    "same level.\n\n"
    "  --level L              exact or portable\n" WORKLOAD_HELP CLI_KEY_HELP
    "  --policy TEXT          the policy bytes\n"
    "  --policy-file FILE     read the policy bytes from FILE (any bytes; a\n"
    "                         regular file, at most 16 MiB)\n"
    "  --measurement NAME=VALUE:UNIT\n"
    "                         a measurement kept with the override (repeatable,\n"
    "                         each name once)\n"
    "  --no-validate          a raw key: install without loading the plugins\n";

static const char remove_help[] =
    "usage: olc override remove [--level exact|portable] (--workload NAME |\n"
    "                           --backend B --operator O [--property NAME=VALUE]...\n"
    "                           [--model-digest D]) [--config FILE]\n"
    "       olc override remove [--level exact|portable] --backend B --operator O\n"
    "                           --implementation V [--model-digest D --processor P\n"
    "                           --threads N] [--structure NAME=VALUE]...\n\n"
    "Removes the user overrides of a key (a workload's, composed by its plugin,\n"
    "or a raw key): at the given level, or else the exact one and, when the key\n"
    "has structure, the portable one.  Exits 1 when there was none.\n\n"
    "  --level L              exact or portable\n" WORKLOAD_HELP CLI_KEY_HELP;

typedef struct override_args {
  cli_key_args key;
  cli_workload_args wl;
  const char *config_path; /* --config */
  int by_workload;         /* no --implementation: the key is composed */
  int no_validate;
  unsigned levels;
  const char *policy;
  const char *policy_file;
  olc_measurement *measurements;
  char **owned;
  size_t measurement_count, cap;
} override_args;

static void override_free(override_args *a) {
  size_t i;
  for (i = 0; i < a->measurement_count; i++)
    free(a->owned[i]);
  free(a->owned);
  free(a->measurements);
  cli_key_free(&a->key);
  cli_key_free(&a->wl.props);
}

/* NAME=VALUE:UNIT; the value is a strict decimal number. */
static int add_measurement(override_args *a, const cli_ctx *ctx, const char *text) {
  const char *eq = strchr(text, '=');
  const char *colon = eq != NULL ? strchr(eq + 1, ':') : NULL;
  char msg[160], *copy;
  double value;
  size_t i, n = a->measurement_count;

  if (eq == NULL || eq == text || colon == NULL || colon[1] == 0)
    return cli_usage_error(ctx, "option '--measurement' needs NAME=VALUE:UNIT, got '%.64s'", text);
  /* One value per name, as for --structure. */
  for (i = 0; i < n; i++)
    if (strlen(a->measurements[i].name) == (size_t)(eq - text) &&
        memcmp(a->measurements[i].name, text, (size_t)(eq - text)) == 0)
      return cli_usage_error(ctx, "option '--measurement' repeats the name '%.*s'",
                             (int)(eq - text > 64 ? 64 : eq - text), text);
  copy = malloc(strlen(text) + 1);
  if (copy == NULL)
    return cli_failf(ctx, "out of memory");
  strcpy(copy, text);
  copy[eq - text] = 0;
  copy[colon - text] = 0;
  if (cli_parse_double(&value, copy + (eq - text) + 1, msg, sizeof msg) != 0) {
    free(copy);
    return cli_usage_error(ctx, "option '--measurement': %s", msg);
  }
  if (n == a->cap) {
    size_t cap = a->cap != 0 ? a->cap * 2 : 4;
    olc_measurement *m = realloc(a->measurements, cap * sizeof *m);
    char **owned;
    if (m != NULL)
      a->measurements = m;
    owned = m != NULL ? realloc(a->owned, cap * sizeof *owned) : NULL;
    if (owned == NULL) {
      free(copy);
      return cli_failf(ctx, "out of memory");
    }
    a->owned = owned;
    a->cap = cap;
  }
  a->owned[n] = copy;
  a->measurements[n].name = copy;
  a->measurements[n].value = value;
  a->measurements[n].unit = copy + (colon - text) + 1;
  a->measurement_count = n + 1;
  return CLI_EXIT_OK;
}

/* The options' consistency once all are read: what the level needs and
 * what it would drop (refused, not ignored). */
static int check_override(override_args *a, cli_ctx *ctx, int is_set) {
  int rc;
  if (is_set && a->levels == 0)
    return cli_usage_error(ctx, "option '--level' is required");
  /* Without --implementation the options describe a workload, as bind
   * takes it; its plugin composes the rest of the key. */
  a->by_workload = cli_workload_given(&a->wl) || a->key.key.implementation == NULL;
  if (a->by_workload) {
    rc = cli_workload_check(&a->wl, &a->key, ctx);
    if (rc == CLI_EXIT_OK && a->no_validate)
      rc = cli_usage_error(ctx, "option '--no-validate' is for a raw key; a workload's key "
                                "needs its plugin");
    if (rc != CLI_EXIT_OK)
      return rc;
    goto policy;
  }
  if (a->config_path != NULL && a->no_validate)
    return cli_usage_error(ctx, "options '--config' and '--no-validate' exclude each other");
  rc = cli_key_require_base(&a->key, ctx);
  if (rc != CLI_EXIT_OK)
    return rc;
  if (a->levels == OLC_LEVEL_BIT_EXACT) {
    if (a->key.key.model_digest == NULL)
      return cli_usage_error(ctx, "option '--model-digest' is required with --level exact");
    if (a->key.key.processor == NULL)
      return cli_usage_error(ctx, "option '--processor' is required with --level exact");
    if (!a->key.has_threads)
      return cli_usage_error(ctx, "option '--threads' is required with --level exact");
  }
  if (a->levels == OLC_LEVEL_BIT_PORTABLE && a->key.key.structure_count == 0)
    return cli_usage_error(ctx, "option '--structure' is required with --level portable");
  /* An exact record has no structure and a portable one no exact identity:
   * an option the level would drop is refused, not ignored. */
  if (a->levels == OLC_LEVEL_BIT_EXACT && a->key.key.structure_count != 0)
    return cli_usage_error(ctx, "option '--structure' does not apply to --level exact (an exact "
                                "record has no structure)");
  if (a->levels == OLC_LEVEL_BIT_PORTABLE &&
      (a->key.key.model_digest != NULL || a->key.key.processor != NULL || a->key.has_threads))
    return cli_usage_error(ctx, "options '--model-digest', '--processor' and '--threads' do not "
                                "apply to --level portable");
policy:
  if (is_set && a->policy == NULL && a->policy_file == NULL)
    return cli_usage_error(ctx, "option '--policy' is required");
  if (a->policy != NULL && a->policy_file != NULL)
    return cli_usage_error(ctx, "options '--policy' and '--policy-file' exclude each other");
  return CLI_EXIT_OK;
}

static int parse_override(override_args *a, cli_ctx *ctx, int is_set, int argc, char **argv) {
  static const cli_option opts[] = {
      CLI_KEY_OPTIONS,
      CLI_WORKLOAD_OPTIONS,
      {"config", "FILE", CLI_HOST_CONFIG, 0},
      {"level", "L", OPT_LEVEL, 0},
      {"policy", "TEXT", OPT_POLICY, 0},
      {"policy-file", "FILE", OPT_POLICY_FILE, 0},
      {"measurement", "NAME=VALUE:UNIT", OPT_MEASUREMENT, CLI_OPT_REPEAT},
      {"no-validate", NULL, OPT_NO_VALIDATE, 0}};
  /* remove takes the key or workload options, --config and --level only. */
  size_t count = sizeof opts / sizeof opts[0] - (is_set ? 0 : 4);
  cli_parser p;
  const char *v;
  int id, r, rc = CLI_EXIT_OK;

  cli_parser_init(&p, ctx, opts, count, argc, argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0) {
    switch (id) {
    case CLI_ID_HELP:
      cli_help(ctx, is_set ? set_help : remove_help);
      return -1;
    case CLI_ID_POSITIONAL:
      return cli_usage_error(ctx, "unexpected argument '%.64s'", v);
    case OPT_LEVEL:
      if (strcmp(v, "exact") == 0)
        a->levels = OLC_LEVEL_BIT_EXACT;
      else if (strcmp(v, "portable") == 0)
        a->levels = OLC_LEVEL_BIT_PORTABLE;
      else
        return cli_usage_error(ctx, "option '--level' must be exact or portable, got '%.64s'", v);
      break;
    case OPT_POLICY:
      a->policy = v;
      break;
    case CLI_HOST_CONFIG:
      a->config_path = v;
      break;
    case OPT_NO_VALIDATE:
      a->no_validate = 1;
      break;
    case OPT_POLICY_FILE:
      a->policy_file = v;
      break;
    case OPT_MEASUREMENT:
      rc = add_measurement(a, ctx, v);
      if (rc != CLI_EXIT_OK)
        return rc;
      break;
    default:
      if (cli_key_option(&a->key, ctx, id, v, &rc) < 0 ||
          cli_workload_option(&a->wl, ctx, id, v, &rc) < 0)
        return rc;
    }
  }
  if (r < 0)
    return cli_parser_usage(ctx, &p);
  return check_override(a, ctx, is_set);
}

/* Opens the policy file for reading: a regular file only (a FIFO or a
 * device would block or never end), like the configuration file. */
static FILE *open_policy_file(const cli_ctx *ctx, const char *path, int *rc) {
#if defined(_WIN32)
  struct _stat64 st;
  FILE *f = fopen(path, "rb");
  if (f != NULL && (_fstat64(_fileno(f), &st) != 0 || (st.st_mode & _S_IFREG) == 0)) {
#else
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (fd >= 0 && f == NULL)
    close(fd);
  if (f != NULL && (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))) {
#endif
    fclose(f);
    *rc = cli_failf(ctx, "policy file %s is not a regular file", path);
    return NULL;
  }
  if (f == NULL)
    *rc = cli_failf(ctx, "cannot open policy file %s", path);
  return f;
}

/* Reads the whole policy file (the CLI may touch files; the library's
 * store path is not involved). */
static int read_policy_file(const cli_ctx *ctx, const char *path, unsigned char **out,
                            size_t *len) {
  unsigned char *buf = NULL;
  size_t n = 0;
  int rc = CLI_EXIT_OK;
  FILE *f = open_policy_file(ctx, path, &rc);
  if (f == NULL)
    return rc;
  buf = malloc(POLICY_FILE_MAX + 1);
  if (buf == NULL) {
    fclose(f);
    return cli_failf(ctx, "out of memory");
  }
  n = fread(buf, 1, POLICY_FILE_MAX + 1, f);
  if (ferror(f))
    rc = cli_failf(ctx, "cannot read policy file %s", path);
  else if (n > POLICY_FILE_MAX)
    rc = cli_failf(ctx, "policy file %s is larger than 16 MiB", path);
  fclose(f);
  if (rc != CLI_EXIT_OK) {
    free(buf);
    return rc;
  }
  *out = buf;
  *len = n;
  return CLI_EXIT_OK;
}

/* What an override command works on: the store, and the host and binding
 * when a workload's key is composed or a policy validated. */
typedef struct override_target {
  cli_host h;
  olc_binding *binding;
  olc_store *store; /* h.store, or opened alone */
  const olc_key *key;
} override_target;

static void target_close(override_target *t) {
  olc_binding_free(t->binding);
  if (t->h.store != t->store)
    olc_store_free(t->store);
  cli_host_close(&t->h);
}

/* Opens the store, with the host (config, plugins) when with_host, and
 * composes a workload's key. */
static int target_open(override_target *t, cli_ctx *ctx, const override_args *a, int with_host) {
  cli_host_args ha;
  olc_error err;
  olc_status st;
  int rc;
  memset(t, 0, sizeof *t);
  t->key = &a->key.key;
  if (!with_host)
    return cli_open_store(ctx, &t->store);
  memset(&ha, 0, sizeof ha);
  ha.config_path = a->config_path;
  rc = cli_host_open(ctx, &ha, &t->h);
  if (rc != CLI_EXIT_OK)
    return rc;
  t->store = t->h.store;
  if (!a->by_workload)
    return CLI_EXIT_OK;
  olc_error_clear(&err);
  st = cli_workload_bind(&t->binding, t->h.host, &a->wl, &a->key, &err);
  if (st != OLC_OK)
    return cli_fail(ctx, st, &err);
  t->key = olc_binding_key(t->binding);
  return CLI_EXIT_OK;
}

/* The plugin's verdict on the policy: a rejection fails the command (select
 * would never use the override); a plugin not loaded here only warns. */
static int validate_policy(cli_ctx *ctx, const override_target *t, const olc_save_request *req) {
  olc_error err;
  olc_status st;
  olc_error_clear(&err);
  st = olc_host_validate_policy(t->h.host, t->key->backend, req->policy, req->policy_len, &err);
  if (st == OLC_E_NOT_FOUND || st == OLC_E_UNAVAILABLE) {
    /* The message names the backend as given: shown safely. */
    fprintf(ctx->err, "olc: %s: warning: policy not validated: ", ctx->command);
    cli_put_safe(ctx->err, err.message);
    fputc('\n', ctx->err);
    return CLI_EXIT_OK;
  }
  return st == OLC_OK ? CLI_EXIT_OK : cli_fail(ctx, st, &err);
}

int cli_cmd_override_set(cli_ctx *ctx, int argc, char **argv) {
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  override_args a;
  override_target t;
  unsigned char *file_bytes = NULL;
  olc_error err;
  olc_status st;
  int rc;

  memset(&a, 0, sizeof a);
  memset(&t, 0, sizeof t);
  cli_key_init(&a.key);
  cli_key_init(&a.wl.props);
  rc = parse_override(&a, ctx, 1, argc, argv);
  if (rc != CLI_EXIT_OK)
    goto done;
  req.measurements = a.measurements;
  req.measurement_count = a.measurement_count;
  req.levels = a.levels;
  if (a.policy_file != NULL) {
    rc = read_policy_file(ctx, a.policy_file, &file_bytes, &req.policy_len);
    if (rc != CLI_EXIT_OK)
      goto done;
    req.policy = file_bytes;
  } else {
    req.policy = a.policy;
    req.policy_len = strlen(a.policy);
  }
  rc = target_open(&t, ctx, &a, !a.no_validate);
  if (rc == CLI_EXIT_OK && !a.no_validate)
    rc = validate_policy(ctx, &t, &req);
  if (rc != CLI_EXIT_OK)
    goto done;
  req.key = t.key;
  olc_error_clear(&err);
  st = olc_store_install_override(t.store, &req, &err);
  if (st < 0) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  if (st == OLC_COMMITTED_UNSYNCED)
    fprintf(ctx->err, "olc: %s: warning: %s\n", ctx->command, err.message);
  fprintf(ctx->out, "installed %s override in %s\n",
          a.levels == OLC_LEVEL_BIT_EXACT ? "an exact" : "a portable", olc_store_path(t.store));
done:
  free(file_bytes);
  target_close(&t);
  override_free(&a);
  return rc < 0 ? CLI_EXIT_OK : rc;
}

int cli_cmd_override_remove(cli_ctx *ctx, int argc, char **argv) {
  override_args a;
  override_target t;
  olc_error err;
  olc_status st;
  int rc;

  memset(&a, 0, sizeof a);
  memset(&t, 0, sizeof t);
  cli_key_init(&a.key);
  cli_key_init(&a.wl.props);
  rc = parse_override(&a, ctx, 0, argc, argv);
  if (rc != CLI_EXIT_OK)
    goto done;
  rc = target_open(&t, ctx, &a, a.by_workload || a.config_path != NULL || ctx->config_path != NULL);
  if (rc != CLI_EXIT_OK)
    goto done;
  olc_error_clear(&err);
  st = olc_store_remove_override(t.store, t.key, a.levels, &err);
  if (st < 0) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  if (st == OLC_COMMITTED_UNSYNCED)
    fprintf(ctx->err, "olc: %s: warning: %s\n", ctx->command, err.message);
  fprintf(ctx->out, "removed override from %s\n", olc_store_path(t.store));
done:
  target_close(&t);
  override_free(&a);
  return rc < 0 ? CLI_EXIT_OK : rc;
}
