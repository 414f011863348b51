/*
 * host/cli/cmd_override.c - olc override set | remove.
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

enum { OPT_LEVEL = 1, OPT_POLICY, OPT_POLICY_FILE, OPT_MEASUREMENT };

/* Largest --policy-file accepted (the store's own value limit is larger). */
#define POLICY_FILE_MAX ((size_t)16 << 20)

static const char set_help[] =
    "usage: olc override set --level exact|portable --backend B --operator O\n"
    "                        --implementation V [--model-digest D --processor P\n"
    "                        --threads N] [--structure NAME=VALUE]...\n"
    "                        (--policy TEXT | --policy-file FILE)\n"
    "                        [--measurement NAME=VALUE:UNIT]...\n\n"
    "Installs a user override.  An exact override needs --model-digest,\n"
    "--processor and --threads and takes no --structure; a portable one needs\n"
    "at least one --structure and takes none of the exact options.\n"
    "Overrides win over calibrated records at the same level.\n\n"
    "  --level L              exact or portable\n" CLI_KEY_HELP
    "  --policy TEXT          the policy bytes\n"
    "  --policy-file FILE     read the policy bytes from FILE (any bytes; a\n"
    "                         regular file, at most 16 MiB)\n"
    "  --measurement NAME=VALUE:UNIT\n"
    "                         a measurement kept with the override (repeatable,\n"
    "                         each name once)\n";

static const char remove_help[] =
    "usage: olc override remove [--level exact|portable] --backend B --operator O\n"
    "                           --implementation V [--model-digest D --processor P\n"
    "                           --threads N] [--structure NAME=VALUE]...\n\n"
    "Removes the user overrides of a key: at the given level, or else the exact\n"
    "one and, when --structure is given, the portable one.  Exits 1 when there\n"
    "was none.\n\n"
    "  --level L              exact or portable\n" CLI_KEY_HELP;

typedef struct override_args {
  cli_key_args key;
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
static int check_override(const override_args *a, cli_ctx *ctx, int is_set) {
  int rc = cli_key_require_base(&a->key, ctx);
  if (rc != CLI_EXIT_OK)
    return rc;
  if (is_set && a->levels == 0)
    return cli_usage_error(ctx, "option '--level' is required");
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
  if (is_set && a->policy == NULL && a->policy_file == NULL)
    return cli_usage_error(ctx, "option '--policy' is required");
  if (a->policy != NULL && a->policy_file != NULL)
    return cli_usage_error(ctx, "options '--policy' and '--policy-file' exclude each other");
  return CLI_EXIT_OK;
}

static int parse_override(override_args *a, cli_ctx *ctx, int is_set, int argc, char **argv) {
  static const cli_option opts[] = {
      CLI_KEY_OPTIONS,
      {"level", "L", OPT_LEVEL, 0},
      {"policy", "TEXT", OPT_POLICY, 0},
      {"policy-file", "FILE", OPT_POLICY_FILE, 0},
      {"measurement", "NAME=VALUE:UNIT", OPT_MEASUREMENT, CLI_OPT_REPEAT}};
  /* remove takes the key options and --level only. */
  size_t count = sizeof opts / sizeof opts[0] - (is_set ? 0 : 3);
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
    case OPT_POLICY_FILE:
      a->policy_file = v;
      break;
    case OPT_MEASUREMENT:
      rc = add_measurement(a, ctx, v);
      if (rc != CLI_EXIT_OK)
        return rc;
      break;
    default:
      if (cli_key_option(&a->key, ctx, id, v, &rc) < 0)
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

int cli_cmd_override_set(cli_ctx *ctx, int argc, char **argv) {
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  override_args a;
  olc_store *store = NULL;
  unsigned char *file_bytes = NULL;
  olc_error err;
  olc_status st;
  int rc;

  memset(&a, 0, sizeof a);
  cli_key_init(&a.key);
  rc = parse_override(&a, ctx, 1, argc, argv);
  if (rc != CLI_EXIT_OK)
    goto done;
  req.key = &a.key.key;
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
  rc = cli_open_store(ctx, &store);
  if (rc != CLI_EXIT_OK)
    goto done;
  olc_error_clear(&err);
  st = olc_store_install_override(store, &req, &err);
  if (st < 0) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  if (st == OLC_COMMITTED_UNSYNCED)
    fprintf(ctx->err, "olc: %s: warning: %s\n", ctx->command, err.message);
  fprintf(ctx->out, "installed %s override in %s\n",
          a.levels == OLC_LEVEL_BIT_EXACT ? "an exact" : "a portable", olc_store_path(store));
done:
  free(file_bytes);
  olc_store_free(store);
  override_free(&a);
  return rc < 0 ? CLI_EXIT_OK : rc;
}

int cli_cmd_override_remove(cli_ctx *ctx, int argc, char **argv) {
  override_args a;
  olc_store *store = NULL;
  olc_error err;
  olc_status st;
  int rc;

  memset(&a, 0, sizeof a);
  cli_key_init(&a.key);
  rc = parse_override(&a, ctx, 0, argc, argv);
  if (rc != CLI_EXIT_OK)
    goto done;
  rc = cli_open_store(ctx, &store);
  if (rc != CLI_EXIT_OK)
    goto done;
  olc_error_clear(&err);
  st = olc_store_remove_override(store, &a.key.key, a.levels, &err);
  if (st < 0) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  if (st == OLC_COMMITTED_UNSYNCED)
    fprintf(ctx->err, "olc: %s: warning: %s\n", ctx->command, err.message);
  fprintf(ctx->out, "removed override from %s\n", olc_store_path(store));
done:
  olc_store_free(store);
  override_free(&a);
  return rc < 0 ? CLI_EXIT_OK : rc;
}
