/*
 * tests/fuzz/fuzz_cli.c - the olc CLI's argument parser (host/cli/
 * cli_args.c, cli_key.c) on arbitrary argument vectors.
 *
 * Input encoding: the first byte picks an option table (its low bits) and
 * whether a global cli_ctx is given; the rest is the argument vector, the
 * arguments separated by NUL bytes (at most 64).  Each argument is then
 * also fed to the strict number parsers.
 *
 * Properties (abort() marks a finding): cli_parser_next returns 1, 0 or -1;
 * every 1 carries an id of the table (or positional/help) with a value
 * exactly when the option takes one; an option without CLI_OPT_REPEAT comes
 * back at most once; -1 leaves a one-line message; the loop ends within
 * argc + 1 calls; the key options never leak; an accepted integer lies in
 * range; an accepted double is finite and cli_format_double's text parses
 * back to the same bits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_target.h"

#define FUZZ_MAX_ARGS 64

enum { OPT_JSON = 1, OPT_LEVELS, OPT_FORCE, OPT_MEASURE, OPT_POLICY, OPT_DRY };

static const cli_option table_key[] = {
    CLI_KEY_OPTIONS,
    {"json", NULL, OPT_JSON, 0},
    {"levels", "L", OPT_LEVELS, 0},
    {"force-portable", NULL, OPT_FORCE, 0},
    {"measurement", "NAME=VALUE[:UNIT]", OPT_MEASURE, CLI_OPT_REPEAT},
    {"policy", "TEXT", OPT_POLICY, 0},
};
static const cli_option table_small[] = {
    {"json", NULL, OPT_JSON, 0},
    {"dry-run", NULL, OPT_DRY, 0},
    {"j", "N", OPT_LEVELS, CLI_OPT_REPEAT},
};

static FILE *sink;

static const cli_option *find(const cli_option *t, size_t n, int id) {
  size_t i;
  for (i = 0; i < n; i++)
    if (t[i].id == id)
      return &t[i];
  return NULL;
}

/* 1 when s holds a byte that would break a one-line message. */
static int has_newline(const char *s) { return strchr(s, '\n') != NULL || strchr(s, '\r') != NULL; }

/*
 * A usage message: non-empty, terminated, one line with no control bytes,
 * whatever bytes the offending argument held (they are shown as '?').
 */
static void check_message(const char *msg, size_t cap, int raw_newline) {
  size_t i, n = strnlen(msg, cap);
  (void)raw_newline;
  if (n == 0 || n >= cap)
    abort();
  for (i = 0; i < n; i++)
    if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
      abort();
}

static void check_numbers(const char *text) {
  char msg[160], formatted[40];
  int64_t v = 0;
  double d = 0.0, back = 0.0;
  if (cli_parse_int64(&v, text, -1000, 1000, msg, sizeof msg) == 0) {
    if (v < -1000 || v > 1000)
      abort();
  } else {
    check_message(msg, sizeof msg, has_newline(text));
  }
  if (cli_parse_int64(&v, text, INT64_MIN, INT64_MAX, msg, sizeof msg) == 0) {
    char again[32];
    snprintf(again, sizeof again, "%lld", (long long)v);
    /* the strict grammar: optional '-', digits; only leading zeros differ */
    if (strcmp(again, text) != 0 && text[0] != '0' && strncmp(text, "-0", 2) != 0)
      abort();
  }
  if (cli_parse_double(&d, text, msg, sizeof msg) == 0) {
    if (d - d != 0.0)
      abort(); /* not finite */
    cli_format_double(formatted, sizeof formatted, d);
    if (cli_parse_double(&back, formatted, msg, sizeof msg) != 0 ||
        memcmp(&back, &d, sizeof d) != 0) {
      fprintf(stderr, "fuzz_cli: %s formats as %s, which reads back differently\n", text,
              formatted);
      abort();
    }
  } else {
    check_message(msg, sizeof msg, has_newline(text));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf, *argv[FUZZ_MAX_ARGS + 1];
  int argc = 0, calls = 0, rc, id, i, any_newline = 0;
  const char *value;
  const cli_option *table;
  size_t table_count, pos;
  unsigned returned[CLI_MAX_OPTIONS] = {0};
  cli_ctx ctx;
  cli_parser p;
  cli_key_args key;

  if (size == 0)
    return 0;
  if (sink == NULL)
    sink = fopen("/dev/null", "w");
  if (sink == NULL)
    abort();
  table = (data[0] & 1) ? table_small : table_key;
  table_count = (data[0] & 1) ? sizeof table_small / sizeof table_small[0]
                              : sizeof table_key / sizeof table_key[0];
  /* The arguments: a copy with a NUL after the last one. */
  buf = malloc(size);
  if (buf == NULL)
    return 0;
  memcpy(buf, data + 1, size - 1);
  buf[size - 1] = 0;
  for (pos = 0; pos < size - 1 && argc < FUZZ_MAX_ARGS;) {
    argv[argc++] = buf + pos;
    any_newline |= has_newline(buf + pos);
    pos += strlen(buf + pos) + 1;
  }
  argv[argc] = NULL;

  memset(&ctx, 0, sizeof ctx);
  ctx.command = "fuzz";
  ctx.out = sink;
  ctx.err = sink;
  cli_key_init(&key);
  cli_parser_init(&p, (data[0] & 2) ? NULL : &ctx, table, table_count, argc, argv);
  while ((rc = cli_parser_next(&p, &id, &value)) == 1) {
    const cli_option *opt;
    int krc = 0;
    if (++calls > argc + 1)
      abort();
    if (id == CLI_ID_POSITIONAL) {
      if (value == NULL)
        abort();
      continue;
    }
    if (id == CLI_ID_HELP) {
      if (value != NULL)
        abort();
      continue;
    }
    opt = find(table, table_count, id);
    if (opt == NULL || (opt->value_name != NULL) != (value != NULL))
      abort();
    if (returned[opt - table]++ && !(opt->flags & CLI_OPT_REPEAT))
      abort();
    if (value != NULL)
      check_numbers(value);
    if (table == table_key && cli_key_option(&key, &ctx, id, value, &krc) < 0 &&
        krc != CLI_EXIT_USAGE)
      abort();
  }
  if (rc == -1)
    check_message(p.message, sizeof p.message, any_newline);
  else if (rc != 0)
    abort();
  if (p.index > p.argc || (ctx.store_path != NULL && ctx.store_path[0] == 0))
    abort();
  if (key.key.structure_count > 0 && key.key.structure == NULL)
    abort();
  for (pos = 0; pos < key.key.structure_count; pos++)
    if (key.key.structure[pos].name == NULL || key.key.structure[pos].value == NULL)
      abort();
  (void)cli_key_require_base(&key, &ctx);
  cli_key_free(&key);
  for (i = 0; i < argc; i++)
    check_numbers(argv[i]);
  free(buf);
  return 0;
}
