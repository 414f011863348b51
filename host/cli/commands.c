/*
 * host/cli/commands.c - the one place where commands are registered.
 * The order of the rows is the order of `olc --help`.
 */
#include "commands.h"

const cli_command cli_commands[] = {
    /* Store commands (cmd_store.c, cmd_lookup.c, cmd_override.c). */
    {"path", NULL, "print the resolved store path", cli_cmd_path, 0},
    {"list", NULL, "print every record of the store", cli_cmd_list, CLI_CMD_LAYERS},
    {"lookup", NULL, "run the store's lookup for a key and explain it", cli_cmd_lookup,
     CLI_CMD_LAYERS},
    {"override", "set", "install a user override (of a workload or a raw key)",
     cli_cmd_override_set, CLI_CMD_HOST},
    {"override", "remove", "remove user overrides of a workload or a key", cli_cmd_override_remove,
     CLI_CMD_HOST},
    {"check", NULL, "validate a store file", cli_cmd_check, 0},
    {"import", NULL, "merge the records of files into the store", cli_cmd_import, 0},
    {"export", NULL, "write the store (or its portable records) to a file", cli_cmd_export,
     CLI_CMD_LAYERS},
    {"repair", NULL, "move an unreadable store file aside", cli_cmd_repair, 0},
    /* Host commands (cmd_calibrate.c, cmd_inspect.c). */
    {"calibrate", NULL, "calibrate the configured workloads and select", cli_cmd_calibrate,
     CLI_CMD_HOST},
    {"select", NULL, "select from the store for each workload, never measure", cli_cmd_select,
     CLI_CMD_HOST},
    {"explain", NULL, "why each record of a workload was or was not chosen", cli_cmd_explain,
     CLI_CMD_HOST},
    {"plugins", NULL, "load the plugins and print the load report", cli_cmd_plugins, CLI_CMD_HOST},
    {"prune", NULL, "remove calibrated records the plugins reject", cli_cmd_prune, CLI_CMD_HOST},
    {"verify", NULL, "race the layers' records again here, recalibrate those that lost",
     cli_cmd_verify, CLI_CMD_HOST},
};

const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];
