/*
 * tests/cli/cli_test_util.h - running the built olc binary and checking
 * its JSON output, for the end-to-end CLI tests.
 */
#ifndef OLC_CLI_TEST_UTIL_H
#define OLC_CLI_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>

typedef struct cli_run {
  int code;  /* exit status, or -1 when it did not exit normally */
  char *out; /* stdout, NUL-terminated */
  char *err; /* stderr, NUL-terminated */
  size_t out_len;
} cli_run;

/* Runs olc with argv (NULL-terminated, without argv[0]) and the extra
 * environment entries env (NULL-terminated, may be NULL) on top of a clean
 * environment whose HOME and XDG_CACHE_HOME point into dir.  Returns 0 when
 * the process ran. */
int cli_test_run(cli_run *r, const char *dir, const char *const *env, const char *const *argv);
/* The same with another program than the built olc (a copy of it). */
int cli_test_run_program(cli_run *r, const char *program, const char *dir, const char *const *env,
                         const char *const *argv);
/* cli_test_run with the arguments prefix (NULL-terminated, may be NULL)
 * then first and the rest of ap up to a NULL; r's previous output is
 * freed first.  Returns -1 for more than 63 arguments, without running. */
int cli_test_runv(cli_run *r, const char *dir, const char *const *env, const char *const *prefix,
                  const char *first, va_list ap);
void cli_run_free(cli_run *r);

/* 1 when text holds exactly one valid JSON value (RFC 8259), plus blanks. */
int cli_test_json_valid(const char *text);

/* Number of lines in s (a last line without '\n' counts). */
size_t cli_test_lines(const char *s);

#endif
