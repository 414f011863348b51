/*
 * host/cli/cli.h - shared pieces of the olc command-line tool.
 *
 * The tool uses only the public API (olc/olc.h).  Each command group lives
 * in its own cmd_<group>.c file and is registered in commands.c; this
 * header gives them what they share: the run context, the argument parser,
 * strict number parsing, error printing with documented exit codes, a JSON
 * writer and record printers.
 */
#ifndef OLC_CLI_H
#define OLC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "olc/olc.h"

/* Exit codes (documented in olc.1, README.md and docs/cli.md). */
enum {
  CLI_EXIT_OK = 0,          /* success */
  CLI_EXIT_FAILURE = 1,     /* the operation failed; message on stderr */
  CLI_EXIT_USAGE = 2,       /* bad, missing or unknown option or value */
  CLI_EXIT_NOT_SELECTED = 3 /* a lookup selected nothing */
};

/* What every command gets: the global options and the output streams. */
typedef struct cli_ctx {
  const char *store_path;  /* --store, else $OLC_STORE, else NULL (default path) */
  const char *config_path; /* --config before the command (host commands only) */
  int store_given;         /* --store was given (before or after the command) */
  int config_given;        /* --config was given (before or after the command) */
  int with_layers;         /* cli_open_store reads the configuration's [store] layers */
  int read_only;           /* --read-only (before or after the command) */
  const char *command;     /* "lookup", "override set": prefix of error lines */
  FILE *out;
  FILE *err;
} cli_ctx;

/* ---- argument parsing (cli_args.c) ------------------------------------ */

#define CLI_OPT_REPEAT 1u /* may be given more than once */
/* A flag (no value) that is also accepted as "-c" (one letter, alone). */
#define CLI_OPT_SHORT(c) ((unsigned)(unsigned char)(c) << 8)
#define CLI_OPT_SHORT_OF(flags) ((char)(((flags) >> 8) & 0xffu))

/* One long option of a command: "--name" or "--name VALUE". */
typedef struct cli_option {
  const char *name;       /* without the leading "--" */
  const char *value_name; /* NULL: a flag without a value */
  int id;                 /* returned by cli_parser_next */
  unsigned flags;         /* CLI_OPT_* */
} cli_option;

/* Ids reserved by the parser itself. */
#define CLI_ID_POSITIONAL (-1)
#define CLI_ID_HELP (-2)

#define CLI_MAX_OPTIONS 64

typedef struct cli_parser {
  /* --store is accepted after the command too, into ctx; it and --config
   * (a host command's option) may be given once, before or after it. */
  cli_ctx *ctx;
  const cli_option *options;
  size_t option_count;
  int argc;
  char **argv;
  int index;
  int positional_only; /* after "--" */
  unsigned char seen[CLI_MAX_OPTIONS];
  char message[256]; /* the usage error, when cli_parser_next returns -1 */
} cli_parser;

void cli_parser_init(cli_parser *p, cli_ctx *ctx, const cli_option *options, size_t option_count,
                     int argc, char **argv);

/*
 * Returns 1 with *id set (an option id, CLI_ID_POSITIONAL or CLI_ID_HELP)
 * and *value (the option's value or the positional argument; NULL for a
 * flag), 0 at the end, -1 on a usage error (message in p->message, naming
 * the option).  Accepts "--name VALUE", "--name=VALUE", "-h", "-c" for an
 * option with CLI_OPT_SHORT('c') and "--".
 */
int cli_parser_next(cli_parser *p, int *id, const char **value);

/* ---- strict values (cli_args.c) --------------------------------------- */

/* A decimal integer in [min, max], nothing else (no sign on positive, no
 * spaces, no trailing bytes).  Returns 0, or -1 with a message ("not an
 * integer", "too large", "out of range (MIN to MAX)"). */
int cli_parse_int64(int64_t *out, const char *text, int64_t min, int64_t max, char *msg,
                    size_t msg_size);

/* A finite decimal number ("2.5", "-1e-7"); no hex, inf, nan, spaces or
 * trailing bytes, of any length.  A value too large for a double, and a
 * non-zero literal that rounds to zero, are refused ("too large", "too
 * small"); subnormal values are kept.  Returns 0, or -1 with a message. */
int cli_parse_double(double *out, const char *text, char *msg, size_t msg_size);

/* Shortest text of a finite double that reads back bit-identically, with
 * '.' as decimal point whatever the locale.  buf needs 32 bytes. */
void cli_format_double(char *buf, size_t size, double value);

/* ---- reporting (cli_util.c) ------------------------------------------- */

/* Prints "olc: <command>: <message>" and returns CLI_EXIT_USAGE. */
int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "olc: <where>: <message>" for a failed library call (where from
 * err, else the command) and returns CLI_EXIT_FAILURE. */
int cli_fail(const cli_ctx *ctx, olc_status status, const olc_error *err);

/* Prints "olc: <command>: <message>" and returns CLI_EXIT_FAILURE. */
int cli_failf(const cli_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints text from a plugin or a path, without quotes: control bytes and
 * malformed UTF-8 as \xHH so that nothing acts on the terminal. */
void cli_put_safe(FILE *out, const char *text);

/* ---- fitting text to a width (cli_fit.c) ------------------------------ */

/* Width of a terminal whose size cannot be read. */
#define CLI_DEFAULT_WIDTH 100

/* Columns the human form of out may use: $COLUMNS when it is a decimal
 * number from 1 to 10000, else the terminal's width when out is one
 * (TIOCGWINSZ; the console window on Windows; CLI_DEFAULT_WIDTH when it
 * cannot be read), else 0: not a terminal, no limit. */
int cli_output_width(FILE *out);

/* What cli_put_safe shows for the character at s (len > 0 bytes left):
 * into out (NUL-terminated) the character itself or \xHH; *consumed is the
 * bytes of s it stands for.  Returns the bytes written to out. */
size_t cli_safe_unit(char out[5], const unsigned char *s, size_t len, size_t *consumed);
/* The whole text as cli_put_safe shows it, malloc'ed (NULL: out of
 * memory; text NULL is ""). */
char *cli_safe_text(const char *text);
/* The same for len bytes (a policy: NUL bytes show as \x00). */
char *cli_safe_bytes(const unsigned char *s, size_t len);
/* Columns of UTF-8 text: one per character (wide characters are not told
 * apart). */
size_t cli_text_width(const char *s);
/* Prints safe text s in at most cols columns: a wider one as its start,
 * "..." and its end (a middle ellipsis); with pad, spaces up to cols. */
void cli_put_fitted(FILE *out, const char *s, size_t cols, int pad);

/* The olc_diag_fn of every store and host the tool opens (payload: the
 * cli_ctx): prints "olc: warning: WHERE: MESSAGE" on ctx->err, one whole
 * line per call.  Never on ctx->out, so --json output stays clean. */
void cli_print_diag(void *payload, olc_diag_level level, const char *where, const char *message);

/* Prints text to ctx->out for --help and returns CLI_EXIT_OK. */
int cli_help(const cli_ctx *ctx, const char *text);

/* Opens the store of ctx (persistence on).  Returns CLI_EXIT_OK or prints
 * the failure and returns CLI_EXIT_FAILURE. */
int cli_open_store(const cli_ctx *ctx, olc_store **out);
/* Whether a record is of the source a --source option names: "user" (the
 * store's own file), "layers" (any layer), or a file (as the record's
 * source says, or the same file by its resolved path); NULL: every one. */
int cli_source_match(const olc_record *record, const char *filter);
/* Completes store options (already holding the configuration's, or the
 * defaults): OLC_PERSISTENCE and the other embedders' variables
 * (olc_store_options_from_env), then --store / $OLC_STORE and
 * --read-only, and the diagnostics printer. */
olc_status cli_store_options(const cli_ctx *ctx, olc_store_options *options, olc_error *err);
/* Before anything is measured: fails (one line naming the path and why)
 * when the store cannot be written and read-only mode was not asked for. */
int cli_require_writable(const cli_ctx *ctx, olc_store *store);

/* Fails (prints, returns CLI_EXIT_FAILURE) when the store file could not be
 * read, so that commands never present an unreadable file as empty. */
int cli_require_loaded(const cli_ctx *ctx, olc_store *store);

/* Flushes ctx->out; a write error (full disk, closed pipe) is a failure. */
int cli_finish(const cli_ctx *ctx, int code);

/* ---- JSON (cli_json.c) ------------------------------------------------ */

#define CLI_JSON_MAX_DEPTH 32

typedef struct cli_json {
  FILE *out;
  int depth;
  unsigned char first[CLI_JSON_MAX_DEPTH]; /* no element written yet at that depth */
  int after_key;
} cli_json;

/* The version of the shape of every JSON document the tool prints: the
 * "schema" member that opens each (olc.1 says what each version holds).
 * It grows when a member changes meaning or goes away, not when one is
 * added. */
#define CLI_JSON_SCHEMA 1

void cli_json_init(cli_json *j, FILE *out);
/* cli_json_init, then the top-level object opened with its "schema"
 * member; the caller adds the rest and ends the object. */
void cli_json_document(cli_json *j, FILE *out);
void cli_json_begin_object(cli_json *j);
void cli_json_end_object(cli_json *j);
void cli_json_begin_array(cli_json *j);
void cli_json_end_array(cli_json *j);
void cli_json_key(cli_json *j, const char *key);
/* A string of len bytes; invalid UTF-8 becomes U+FFFD (use
 * cli_utf8_valid first when that matters). */
void cli_json_string_n(cli_json *j, const unsigned char *s, size_t len);
void cli_json_string(cli_json *j, const char *s); /* NULL writes null */
void cli_json_int(cli_json *j, int64_t v);
void cli_json_double(cli_json *j, double v);
void cli_json_bool(cli_json *j, int v);
void cli_json_null(cli_json *j);
/* Ends the top-level value with a newline. */
void cli_json_newline(cli_json *j);
/* A line break between two elements (the separator goes before it). */
void cli_json_break(cli_json *j);

/* Length of the well-formed UTF-8 sequence starting at s (len > 0), or 0. */
size_t cli_utf8_sequence(const unsigned char *s, size_t len);
/* 1 when s[0..len) is well-formed UTF-8 (NUL bytes allowed). */
int cli_utf8_valid(const unsigned char *s, size_t len);
/* Writes the standard base64 of s[0..len) as a JSON string (a value, or
 * with _key_ a member name). */
void cli_json_base64(cli_json *j, const unsigned char *s, size_t len);
void cli_json_key_base64(cli_json *j, const unsigned char *s, size_t len);
/* The member name: value when value (NUL-terminated; NULL writes null) is
 * valid UTF-8, else name_base64: its base64, so that no byte is lost. */
void cli_json_text_member(cli_json *j, const char *name, const char *value);

/* ---- records (cli_print.c) -------------------------------------------- */

/* The record as one JSON object (level, origin, key, structure,
 * measurements, policy or policy_base64); null for NULL. */
void cli_json_record(cli_json *j, const olc_record *record);

/* The record in readable text, each line starting with indent. */
void cli_print_record(FILE *out, const olc_record *record, const char *indent);

/* Writes bytes quoted for a terminal: printable ASCII and valid UTF-8 as
 * they are, '"' and '\\' escaped, everything else as \xHH. */
void cli_print_quoted(FILE *out, const unsigned char *s, size_t len);

/* ---- key options shared by lookup and override (cli_key.c) ----------- */

enum {
  CLI_KEY_BACKEND = 1000,
  CLI_KEY_OPERATOR,
  CLI_KEY_IMPLEMENTATION,
  CLI_KEY_MODEL_DIGEST,
  CLI_KEY_PROCESSOR,
  CLI_KEY_THREADS,
  CLI_KEY_STRUCTURE
};

/* The rows of the key options, for a command's cli_option table. */
#define CLI_KEY_OPTIONS                                                                            \
  {"backend", "B", CLI_KEY_BACKEND, 0}, {"operator", "O", CLI_KEY_OPERATOR, 0},                    \
      {"implementation", "V", CLI_KEY_IMPLEMENTATION, 0},                                          \
      {"model-digest", "D", CLI_KEY_MODEL_DIGEST, 0}, {"processor", "P", CLI_KEY_PROCESSOR, 0},    \
      {"threads", "N", CLI_KEY_THREADS, 0}, {                                                      \
    "structure", "NAME=VALUE", CLI_KEY_STRUCTURE, CLI_OPT_REPEAT                                   \
  }

/* Help lines of the key options. */
#define CLI_KEY_HELP                                                                               \
  "  --backend B            backend name (required)\n"                                             \
  "  --operator O           operator name (required)\n"                                            \
  "  --implementation V     implementation version (required)\n"                                   \
  "  --model-digest D       model digest (exact identity)\n"                                       \
  "  --processor P          processor description (exact identity)\n"                              \
  "  --threads N            effective thread count, 1 to 2147483647 (exact identity)\n"            \
  "  --structure NAME=VALUE structural property (portable identity; repeatable)\n"

typedef struct cli_key_args {
  olc_key key;
  olc_property *props; /* key.structure */
  char **owned;        /* copies of the NAME=VALUE arguments */
  size_t cap;
  int has_threads;
} cli_key_args;

void cli_key_init(cli_key_args *k);
void cli_key_free(cli_key_args *k);

/* Takes one parsed option.  Returns 0 when id is not a key option, 1 when
 * it was taken, or -1 after printing why, with the exit code in *rc. */
int cli_key_option(cli_key_args *k, const cli_ctx *ctx, int id, const char *value, int *rc);

/* Checks that backend, operator and implementation are there, that
 * --model-digest and --processor come together and --threads only with
 * them; prints a usage error and returns CLI_EXIT_USAGE when not. */
int cli_key_require_base(const cli_key_args *k, const cli_ctx *ctx);

/* A workload as calibrate or a runtime binds it (override, explain):
 * --workload NAME (the [workload.NAME] of the config), or --backend,
 * --operator, --property NAME=VALUE... and --model-digest D (the model's
 * digest) of the key options; its key is composed by olc_host_bind. */
enum { CLI_WORKLOAD_NAME = 1100, CLI_WORKLOAD_PROPERTY };

#define CLI_WORKLOAD_OPTIONS                                                                       \
  {"workload", "NAME", CLI_WORKLOAD_NAME, 0}, {                                                    \
    "property", "NAME=VALUE", CLI_WORKLOAD_PROPERTY, CLI_OPT_REPEAT                                \
  }

typedef struct cli_workload_args {
  const char *name;   /* --workload */
  cli_key_args props; /* --property, in props.key.structure */
} cli_workload_args;

/* As cli_key_option, for CLI_WORKLOAD_OPTIONS. */
int cli_workload_option(cli_workload_args *w, const cli_ctx *ctx, int id, const char *value,
                        int *rc);
/* 1 when --workload or --property was given. */
int cli_workload_given(const cli_workload_args *w);
/* Checks a workload description: --workload alone, or --backend and
 * --operator (with --property, --model-digest), and none of the raw key's
 * options; prints a usage error and returns CLI_EXIT_USAGE when not. */
int cli_workload_check(const cli_workload_args *w, const cli_key_args *k, const cli_ctx *ctx);
/* Binds the described workload (backend, operator and model digest from
 * k) on host, as calibrate or olc_host_bind does. */
olc_status cli_workload_bind(olc_binding **out, olc_host *host, const cli_workload_args *w,
                             const cli_key_args *k, olc_error *err);

/* Prints the usage error of a parser and returns CLI_EXIT_USAGE. */
int cli_parser_usage(const cli_ctx *ctx, const cli_parser *p);

#endif /* OLC_CLI_H */
