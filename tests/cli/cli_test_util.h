/*
 * tests/cli/cli_test_util.h - running the built olc binary and checking
 * its JSON output, for the end-to-end CLI tests.
 */
#ifndef OLC_CLI_TEST_UTIL_H
#define OLC_CLI_TEST_UTIL_H

#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

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

/* cli_test_runv that fails the test when olc could not be run; returns its
 * exit code, the output stays in r. */
int cli_test_olcv(cli_run *r, const char *dir, const char *const *env, const char *const *prefix,
                  const char *first, va_list ap);
/* The same with the arguments first, ... up to a NULL and no prefix. */
int cli_test_olc(cli_run *r, const char *dir, const char *const *env, const char *first, ...);

/* A fresh temporary directory (tag) in *dir and, for each pair
 * (char **path, const char *name) that follows up to a NULL, *path =
 * *dir/name.  Returns 0, or -1 when any of them could not be made. */
int cli_test_dir_open(char **dir, const char *tag, ...);
/* Frees r's output, removes *dir and frees it and each char ** that
 * follows up to a NULL, setting them all to NULL. */
void cli_test_dir_close(cli_run *r, char **dir, ...);

/* Copies the file src into dir/sub/ (made when missing) with mode; a
 * failure fails the test. */
void cli_test_copy_file(const char *dir, const char *src, const char *sub, mode_t mode);

/* Runs argv[0] with argv (at most 7 entries) with a new pseudo-terminal
 * as its stdout (tty_fd 1) or stderr (tty_fd 2), the other one and stdin
 * /dev/null; cols > 0 sets the terminal's width; envp NULL: this
 * process's environment.  Returns what the terminal received (a static
 * buffer, NUL-terminated) with the exit status in *code (-1 when it did
 * not exit normally); NULL when there is no pty here. */
char *cli_test_run_pty(const char *const *argv, char *const *envp, int tty_fd, unsigned short cols,
                       int *code);

/* Occurrences of needle in s (overlapping ones too). */
size_t cli_test_count(const char *s, const char *needle);

#define HAS(s, needle) CU_ASSERT_PTR_NOT_NULL(strstr((s), (needle)))
#define HAS_NOT(s, needle) CU_ASSERT_PTR_NULL(strstr((s), (needle)))

/* 1 when text holds exactly one valid JSON value (RFC 8259), plus blanks. */
int cli_test_json_valid(const char *text);

/* Number of lines in s (a last line without '\n' counts). */
size_t cli_test_lines(const char *s);

#endif
