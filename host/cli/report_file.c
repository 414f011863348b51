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

int cli_report_open(const cli_ctx *ctx, cli_report_file *rf, const char *path) {
  struct stat sb;
  int rc;
  memset(rf, 0, sizeof *rf);
  rf->path = path;
  if (path[0] == 0)
    return report_fail(ctx, "''", "empty path");
  /* A directory given as the report would only fail at the rename, after
   * the calibration. */
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    return report_fail(ctx, path, "is a directory");
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
  int bad, rc = create_tmp(ctx, rf);
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
