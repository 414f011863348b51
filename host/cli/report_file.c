/*
 * host/cli/report_file.c - the report's file (report_html.h): a temporary
 * file created next to the final path, so that the rename that publishes
 * the report stays within one directory (one file system) and a reader
 * sees either the old report or the whole new one, never a part.  Before
 * measuring, the same temporary is created and removed again: a probe of
 * the directory.
 */
#include "report_html.h"
#include "report_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

static int report_fail(const cli_ctx *ctx, const char *path, const char *why) {
  return cli_failf(ctx, "report %s: %s", path, why);
}

/* ---- what the report may replace ---- */

#if defined(_WIN32)
#define cli_lstat stat
#define CLI_IS_LINK(m) 0
static int same_name(const char *a, const char *b) { return _stricmp(a, b) == 0; }
#else
#define cli_lstat lstat
#define CLI_IS_LINK(m) S_ISLNK(m)
static int same_name(const char *a, const char *b) { return strcmp(a, b) == 0; }
#endif

/* path with its directory made absolute and resolved (malloc'ed; NULL when
 * the directory does not exist), so that two spellings of one name
 * compare equal. */
static char *canonical(const char *path) {
#if defined(_WIN32)
  return _fullpath(NULL, path, 0);
#else
  const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
  char *dir, *real, *out;
  size_t dlen = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
  dir = malloc(dlen + 1);
  if (dir == NULL)
    return NULL;
  memcpy(dir, slash == NULL ? "." : path, dlen);
  dir[dlen] = 0;
  real = realpath(dir, NULL);
  free(dir);
  if (real == NULL)
    return NULL;
  out = malloc(strlen(real) + strlen(base) + 2);
  if (out != NULL)
    sprintf(out, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
  free(real);
  return out;
#endif
}

/* 1 when a and b name the same file (as names: either may not exist). */
static int same_path(const char *a, const char *b) {
  char *ca = canonical(a), *cb = canonical(b);
  int same = ca != NULL && cb != NULL && same_name(ca, cb);
  free(ca);
  free(cb);
  return same;
}

/* 1 when the last component of path is a store's temporary name,
 * "<P>.<pid>.<16 hex>.tmp" (olc export refuses those too). */
static int store_tmp_name(const char *path) {
  size_t n = strlen(path), i, hex = 0, digits = 0;
  if (n < 4 || strcmp(path + n - 4, ".tmp") != 0)
    return 0;
  i = n - 4;
  while (i > 0 && ((path[i - 1] >= '0' && path[i - 1] <= '9') ||
                   (path[i - 1] >= 'a' && path[i - 1] <= 'f'))) {
    i--;
    hex++;
  }
  if (hex != 16 || i == 0 || path[--i] != '.')
    return 0;
  while (i > 0 && path[i - 1] >= '0' && path[i - 1] <= '9') {
    i--;
    digits++;
  }
  return digits > 0 && digits <= 10 && i > 1 && path[i - 1] == '.' && path[i - 2] != '/';
}

/* 1 when path is P.lock for the store or an existing regular file P. */
static int lock_name(const char *path, const char *store) {
  size_t n = strlen(path);
  struct stat sb;
  char *owner;
  int yes;
  if (n <= 5 || strcmp(path + n - 5, ".lock") != 0)
    return 0;
  owner = malloc(n - 4);
  if (owner == NULL)
    return 1; /* refuse rather than guess */
  memcpy(owner, path, n - 5);
  owner[n - 5] = 0;
  yes =
      (store != NULL && same_path(owner, store)) || (stat(owner, &sb) == 0 && S_ISREG(sb.st_mode));
  free(owner);
  return yes;
}

/* 1 when the regular file at path begins like a report: its marker in the
 * first 256 bytes. */
static int is_report(const char *path) {
  static const char marker[] = CLI_REPORT_MARKER;
  char head[257];
  size_t got, i;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return 0;
  got = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  for (i = 0; i + sizeof marker - 1 <= got; i++)
    if (memcmp(head + i, marker, sizeof marker - 1) == 0)
      return 1;
  return 0;
}

/* CLI_EXIT_OK when the report may be written at path: see report_html.h. */
static int check_target(const cli_ctx *ctx, const char *path, const cli_host *h) {
  const char *store = h != NULL && h->store != NULL ? olc_store_path(h->store) : NULL;
  struct stat sb;
  if (store != NULL && same_path(path, store))
    return report_fail(ctx, path, "is the store; a report replaces only an olc report");
  if (store_tmp_name(path))
    return report_fail(ctx, path, "is the name of a store's temporary file");
  if (lock_name(path, store))
    return report_fail(ctx, path, "is the name of a store's lock file");
  if (cli_lstat(path, &sb) != 0)
    return errno == ENOENT ? CLI_EXIT_OK : report_fail(ctx, path, strerror(errno));
  /* A directory given as the report would only fail at the rename, after
   * the calibration. */
  if (S_ISDIR(sb.st_mode))
    return report_fail(ctx, path, "is a directory");
  if (CLI_IS_LINK(sb.st_mode))
    return report_fail(ctx, path, "is a symbolic link; a report replaces only an olc report");
  if (!S_ISREG(sb.st_mode))
    return report_fail(ctx, path, "is not a regular file; a report replaces only an olc report");
  if (!is_report(path))
    return report_fail(ctx, path, "exists and is not an olc report; a report replaces only one");
  return CLI_EXIT_OK;
}

#if defined(_WIN32)
/* A name no other olc process uses at the same time: the process id. */
static int open_tmp(cli_report_file *rf, const char *tmp_path) {
  int fd = _open(tmp_path, _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _S_IREAD | _S_IWRITE);
  if (fd < 0)
    return -1;
  if ((rf->f = _fdopen(fd, "wb")) == NULL) {
    int e = errno;
    _close(fd);
    remove(tmp_path);
    errno = e;
    return -1;
  }
  return 0;
}

static int publish(const cli_report_file *rf) {
  return MoveFileExA(rf->tmp_path, rf->path, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
             ? 0
             : -1;
}

static int sync_file(FILE *f) { return _commit(_fileno(f)); }

#define tmp_suffix_id() ((unsigned long)_getpid())
#else
/* mkstemp makes the file 0600; a report is as readable as any file the
 * user creates (the umask decides). */
static int open_tmp(cli_report_file *rf, char *tmp_path) {
  mode_t mask;
  int fd = mkstemp(tmp_path);
  if (fd < 0)
    return -1;
  mask = umask(0);
  umask(mask);
  if (fchmod(fd, (mode_t)(0666 & ~mask)) != 0 || (rf->f = fdopen(fd, "wb")) == NULL) {
    int e = errno;
    close(fd);
    unlink(tmp_path);
    errno = e;
    return -1;
  }
  return 0;
}

static int publish(const cli_report_file *rf) { return rename(rf->tmp_path, rf->path); }

static int sync_file(FILE *f) { return fsync(fileno(f)); }
#endif

/* Creates rf->tmp_path beside rf->path (a fresh name each time) and opens
 * it as rf->f. */
static int create_tmp(const cli_ctx *ctx, cli_report_file *rf) {
  static const char suffix[] = ".tmp-XXXXXX";
  size_t n = strlen(rf->path);
  if (rf->tmp_path == NULL && (rf->tmp_path = malloc(n + sizeof suffix + 16)) == NULL)
    return report_fail(ctx, rf->path, "out of memory");
  memcpy(rf->tmp_path, rf->path, n);
#if defined(_WIN32)
  snprintf(rf->tmp_path + n, sizeof suffix + 16, ".tmp-%lu", tmp_suffix_id());
#else
  memcpy(rf->tmp_path + n, suffix, sizeof suffix);
#endif
  if (open_tmp(rf, rf->tmp_path) != 0) {
    int rc = report_fail(ctx, rf->path, strerror(errno));
    free(rf->tmp_path);
    rf->tmp_path = NULL;
    return rc;
  }
  return CLI_EXIT_OK;
}

int cli_report_open(const cli_ctx *ctx, cli_report_file *rf, const char *path, const cli_host *h) {
  int rc;
  memset(rf, 0, sizeof *rf);
  rf->path = path;
  if (path[0] == 0)
    return report_fail(ctx, "''", "empty path");
  rc = check_target(ctx, path, h);
  if (rc != CLI_EXIT_OK)
    return rc;
  /* A probe: the directory takes a new file now, not only after a long
   * calibration.  The file itself is made at the end, so that a run
   * interrupted meanwhile leaves nothing behind. */
  rc = create_tmp(ctx, rf);
  cli_report_discard(rf);
  return rc;
}

void cli_report_discard(cli_report_file *rf) {
  if (rf->f != NULL)
    fclose(rf->f);
  rf->f = NULL;
  if (rf->tmp_path != NULL)
    remove(rf->tmp_path);
  free(rf->tmp_path);
  rf->tmp_path = NULL;
}

int cli_report_commit(const cli_ctx *ctx, cli_report_file *rf, const cli_host *h,
                      const olc_calibration *cal, int select_only) {
  int bad, rc = check_target(ctx, rf->path, h);
  if (rc == CLI_EXIT_OK)
    rc = create_tmp(ctx, rf);
  if (rc != CLI_EXIT_OK)
    return rc;
  errno = 0;
  cli_report_write(rf->f, h, cal, select_only);
  /* A full disk shows at the flush or the sync, not at fprintf. */
  bad = ferror(rf->f) || fflush(rf->f) != 0 || sync_file(rf->f) != 0;
  if (fclose(rf->f) != 0)
    bad = 1;
  rf->f = NULL;
  if (bad || publish(rf) != 0) {
    rc = report_fail(ctx, rf->path, errno != 0 ? strerror(errno) : "write failed");
    cli_report_discard(rf);
    return rc;
  }
  free(rf->tmp_path);
  rf->tmp_path = NULL;
  return CLI_EXIT_OK;
}
