/*
 * host/cli/commands.h - the command table of olc.
 *
 * To add a command: write `int cli_cmd_<name>(cli_ctx *, int, char **)` in
 * its group's cmd_<group>.c (it receives the arguments after the command
 * words and handles --help itself), declare it below, and add one row to
 * cli_commands[] in commands.c.  A row with a sub name ("override", "set")
 * is a two-word command.
 */
#ifndef OLC_CLI_COMMANDS_H
#define OLC_CLI_COMMANDS_H

#include "cli.h"

typedef int (*cli_command_fn)(cli_ctx *ctx, int argc, char **argv);

#define CLI_CMD_HOST 1u /* loads the configuration and the plugins (takes --config) */
/* reads the configuration's [store] layers (takes --config) */
#define CLI_CMD_LAYERS 2u

typedef struct cli_command {
  const char *name;    /* first word: "list", "override" */
  const char *sub;     /* second word ("set"), or NULL */
  const char *summary; /* one line for `olc --help` */
  cli_command_fn run;
  unsigned flags; /* CLI_CMD_* */
} cli_command;

extern const cli_command cli_commands[];
extern const size_t cli_command_count;

/* cmd_store.c */
int cli_cmd_path(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_list(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_check(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_import(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_export(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_repair(cli_ctx *ctx, int argc, char **argv);

/* cmd_lookup.c */
int cli_cmd_lookup(cli_ctx *ctx, int argc, char **argv);

/* cmd_override.c */
int cli_cmd_override_set(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_override_remove(cli_ctx *ctx, int argc, char **argv);

/* cmd_calibrate.c */
int cli_cmd_calibrate(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_select(cli_ctx *ctx, int argc, char **argv);

/* cmd_inspect.c */
int cli_cmd_explain(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_plugins(cli_ctx *ctx, int argc, char **argv);
int cli_cmd_prune(cli_ctx *ctx, int argc, char **argv);

/* cmd_verify.c */
int cli_cmd_verify(cli_ctx *ctx, int argc, char **argv);

#endif /* OLC_CLI_COMMANDS_H */
