/*
 * host/cli/main.c - olc: global options and command dispatch.
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#include <io.h>
#define cli_dup_fd(fd) _dup(fd)
#define cli_dup2 _dup2
#define cli_close _close
#define cli_fdopen _fdopen
#define CLI_STDOUT_FD 1
#define CLI_STDERR_FD 2
#else
#include <fcntl.h>
#include <unistd.h>
/* Close-on-exec: a worker or anything else started does not inherit it. */
#define cli_dup_fd(fd) fcntl(fd, F_DUPFD_CLOEXEC, 3)
#define cli_dup2 dup2
#define cli_close close
#define cli_fdopen fdopen
#define CLI_STDOUT_FD STDOUT_FILENO
#define CLI_STDERR_FD STDERR_FILENO
#endif

static const char main_usage[] = "usage: olc [--store PATH] [--config FILE] [--read-only] COMMAND\n"
                                 "           [OPTIONS]...\n"
                                 "       olc --help | --version | help COMMAND\n";

static const char main_help_tail[] =
    "\nGlobal options:\n"
    "  --store PATH   the store file (default: $OLC_STORE, else the per-user\n"
    "                 cache path that `olc path` prints); also accepted after\n"
    "                 the command, once\n"
    "  --config FILE  the ini file of the host commands (calibrate, select,\n"
    "                 explain, plugins, prune, override, verify); also accepted\n"
    "                 after the command, once\n"
    "  --read-only    open the store read-only: read it and follow its changes,\n"
    "                 never write it (calibrate keeps its results in memory);\n"
    "                 also [store] persistence = read_only, $OLC_PERSISTENCE\n"
    "  --help, -h     show help (`olc COMMAND --help` for one command)\n"
    "  --version      print the version\n"
    "\nExit status: 0 success, 1 failure, 2 usage error, 3 lookup, select or explain\n"
    "selected nothing.\n";

static void print_main_help(FILE *out) {
  size_t i;
  fputs(main_usage, out);
  fputs("\nCalibrate backends through their plugins, select their policies, and manage\nthe "
        "onnx-light calibration profile store.\n\nCommands:\n",
        out);
  for (i = 0; i < cli_command_count; i++) {
    char words[40];
    const cli_command *c = &cli_commands[i];
    snprintf(words, sizeof words, "%s%s%s", c->name, c->sub != NULL ? " " : "",
             c->sub != NULL ? c->sub : "");
    fprintf(out, "  %-16s %s\n", words, c->summary);
  }
  fputs(main_help_tail, out);
}

/* Help of a command group ("olc override --help"): its sub-commands. */
static void print_group_help(FILE *out, const char *name) {
  size_t i;
  fprintf(out, "usage: olc %s SUBCOMMAND [OPTIONS]...\n\nSubcommands:\n", name);
  for (i = 0; i < cli_command_count; i++)
    if (strcmp(cli_commands[i].name, name) == 0 && cli_commands[i].sub != NULL)
      fprintf(out, "  %-10s %s\n", cli_commands[i].sub, cli_commands[i].summary);
  fprintf(out, "\nRun `olc %s SUBCOMMAND --help` for the options of one.\n", name);
}

static int is_group(const char *name) {
  size_t i;
  for (i = 0; i < cli_command_count; i++)
    if (strcmp(cli_commands[i].name, name) == 0 && cli_commands[i].sub != NULL)
      return 1;
  return 0;
}

/* Finds the command named by argv[0] (and argv[1] for a group).  Returns
 * the row, or NULL with *group set when argv[0] names a group. */
static const cli_command *find_command(int argc, char **argv, int *group) {
  size_t i;
  *group = is_group(argv[0]);
  for (i = 0; i < cli_command_count; i++) {
    const cli_command *c = &cli_commands[i];
    if (strcmp(c->name, argv[0]) != 0)
      continue;
    if (c->sub == NULL)
      return c;
    if (argc > 1 && strcmp(c->sub, argv[1]) == 0)
      return c;
  }
  return NULL;
}

/* olc's own output on a private copy of stdout, and stdout itself pointed
 * at stderr: a plugin that prints (in its entry, create or an in-process
 * run, all in this process) would otherwise write into the middle of a
 * --json document or a table.  Where that cannot be done (no stdout, no
 * stderr, no descriptor left) olc writes to stdout as before. */
static FILE *private_stdout(void) {
  FILE *f;
  int fd = cli_dup_fd(CLI_STDOUT_FD);
  if (fd < 0)
    return stdout;
  f = cli_fdopen(fd, "w");
  if (f == NULL) {
    cli_close(fd);
    return stdout;
  }
  if (cli_dup2(CLI_STDERR_FD, CLI_STDOUT_FD) < 0) {
    fclose(f);
    return stdout;
  }
  return f;
}

static const char *env_store(void) {
  const char *v;
#if defined(_WIN32)
  v = getenv("OLC_STORE");
#else
  /* Not honoured in a set-uid or otherwise privileged process. */
  v = secure_getenv("OLC_STORE");
#endif
  return v != NULL && v[0] != 0 ? v : NULL;
}

static int run_command(cli_ctx *ctx, int argc, char **argv) {
  const cli_command *c;
  int group = 0, words;
  char label[40];

  c = find_command(argc, argv, &group);
  if (c == NULL && group) {
    ctx->command = argv[0];
    if (argc < 2)
      return cli_usage_error(ctx, "missing subcommand (see 'olc %s --help')", argv[0]);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
      print_group_help(ctx->out, argv[0]);
      return CLI_EXIT_OK;
    }
    return cli_usage_error(ctx, "unknown subcommand '%.64s'", argv[1]);
  }
  if (c == NULL) {
    return cli_usage_error(ctx, "unknown command '%.64s' (see 'olc --help')", argv[0]);
  }
  words = c->sub != NULL ? 2 : 1;
  snprintf(label, sizeof label, "%s%s%s", c->name, c->sub != NULL ? " " : "",
           c->sub != NULL ? c->sub : "");
  ctx->command = label;
  if (ctx->config_given && !(c->flags & (CLI_CMD_HOST | CLI_CMD_LAYERS)))
    return cli_usage_error(ctx, "option '--config' is for the host commands (calibrate, select, "
                                "explain, plugins, prune, override, verify) and list, lookup, "
                                "export (its layers)");
  ctx->with_layers = (c->flags & CLI_CMD_LAYERS) != 0;
  return cli_finish(ctx, c->run(ctx, argc - words, argv + words));
}

/* "--NAME VALUE" or "--NAME=VALUE" before the command, at most once (the
 * command's parser sees *given too).  1 when argv[*i] was it (*rc then
 * says whether it was usable), 0 when not. */
static int global_option(cli_ctx *ctx, const char *name, const char **value, int *given, int argc,
                         char **argv, int *i, int *rc) {
  const char *a = argv[*i], *v;
  size_t n = strlen(name);
  *rc = CLI_EXIT_OK;
  if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0 ||
      (a[2 + n] != 0 && a[2 + n] != '='))
    return 0;
  if (a[2 + n] == '=')
    v = a + 3 + n;
  else if (*i + 1 < argc)
    v = argv[++*i];
  else
    v = "";
  if (v[0] == 0)
    *rc = cli_usage_error(ctx, "option '--%s' needs a value", name);
  else if (*given)
    *rc = cli_usage_error(ctx, "option '--%s' given more than once", name);
  *value = v;
  *given = 1;
  return 1;
}

int main(int argc, char **argv) {
  cli_ctx ctx;
  int i = 1, rc = CLI_EXIT_OK;

  memset(&ctx, 0, sizeof ctx);
  ctx.out = private_stdout();
  ctx.err = stderr;
  ctx.command = "usage"; /* "olc: usage: ..." until a command is known */
  ctx.store_path = env_store();

  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_main_help(ctx.out);
      return cli_finish(&ctx, CLI_EXIT_OK);
    }
    if (strcmp(a, "--version") == 0) {
      if (i + 1 < argc)
        return cli_usage_error(&ctx, "unexpected argument '%.64s' after --version", argv[i + 1]);
      fprintf(ctx.out, "olc %s\n", olc_version());
      return cli_finish(&ctx, CLI_EXIT_OK);
    }
    if (strcmp(a, "--read-only") == 0) {
      ctx.read_only = 1;
      continue;
    }
    if (global_option(&ctx, "store", &ctx.store_path, &ctx.store_given, argc, argv, &i, &rc) ||
        global_option(&ctx, "config", &ctx.config_path, &ctx.config_given, argc, argv, &i, &rc)) {
      if (rc != CLI_EXIT_OK)
        return rc;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (a[0] == '-')
      return cli_usage_error(&ctx, "unknown option '%.64s'", a);
    break;
  }
  if (i >= argc) {
    fputs(main_usage, ctx.err);
    return cli_usage_error(&ctx, "missing command (see 'olc --help')");
  }
  if (strcmp(argv[i], "help") == 0) {
    /* "olc help lookup" is "olc lookup --help". */
    char help[] = "--help";
    char *args[3];
    if (i + 1 >= argc) {
      print_main_help(ctx.out);
      return cli_finish(&ctx, CLI_EXIT_OK);
    }
    args[0] = argv[i + 1];
    args[1] = i + 2 < argc ? argv[i + 2] : help;
    args[2] = help;
    return run_command(&ctx, i + 2 < argc && is_group(argv[i + 1]) ? 3 : 2, args);
  }
  return run_command(&ctx, argc - i, argv + i);
}
