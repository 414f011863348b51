/*
 * tests/persist/test_durability_audit.c - K5, the power-loss ordering
 * audit: strace one update and reduce the system calls on the store's
 * files to events.  Required: exactly
 *   LOCK GEN_ALLOC [GEN_INIT] READ_OPEN TMP_CREATE TMP_WRITE+ TMP_FSYNC
 *   TMP_CLOSE GEN_ODD NOREPLACE GEN_EVEN DIR_FSYNC UNLOCK       (absent P)
 *   ... TMP_CLOSE GEN_ODD EXCHANGE GEN_EVEN DIR_FSYNC OLD_CLOSE UNLOCK
 *                                                              (existing P)
 * (NOREPLACE, renameat2 RENAME_NOREPLACE: a P created meanwhile is not
 * replaced; RENAME, a plain rename, is a violation; EXCHANGE, renameat2
 * RENAME_EXCHANGE, so that the commit can check the file it took out of P
 * is the one it merged, held open since READ_OPEN and closed at OLD_CLOSE;
 * GEN_ALLOC, the fallocate of P.lock's 4096 bytes, before anything is
 * written to it; GEN_INIT, the pwrite of its header, only when P.lock did
 * not exist; GEN_ODD/GEN_EVEN, the pwrite of the generation around the
 * rename) with one fsync of the temporary, the temporary created
 * O_CREAT|O_EXCL|O_NOFOLLOW, every descriptor O_CLOEXEC, no open of P for
 * writing, P.lock never mapped nor truncated (a mapping of a file another
 * process can truncate faults), and its generation counter moved by
 * exactly 2 and even.  With OLC_TEST_DISABLE=fsync, rename, dirsync, order
 * or exchange (negative controls) the audit must report a violation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "durability_util.h"
#include "test_support.h"

static char *adir;
static char *apath;
static char *real_dir;

static int asetup(void) {
  adir = olc_test_tmpdir("audit");
  apath = olc_test_path(adir, "store.txt");
  real_dir = adir ? realpath(adir, NULL) : NULL;
  return adir == NULL || apath == NULL || real_dir == NULL;
}

static int ateardown(void) {
  olc_test_rmtree(adir);
  free(adir);
  free(apath);
  free(real_dir);
  return 0;
}

typedef struct audit {
  char events[1024];
  char violations[1024];
  int tmp_fsyncs;
  int gen_odd;   /* the counter was made odd and not yet even again */
  int committed; /* P was replaced: the temporary's name now holds the old P */
} audit;

static void add_event(audit *a, const char *ev) {
  size_t n = strlen(a->events);
  /* Consecutive writes of the temporary collapse into one TMP_WRITE+. */
  if (strcmp(ev, "TMP_WRITE+") == 0 && n >= 10 && strcmp(a->events + n - 10, "TMP_WRITE+") == 0)
    return;
  snprintf(a->events + n, sizeof a->events - n, "%s%s", n ? " " : "", ev);
}

static void add_violation(audit *a, const char *what, const char *line) {
  size_t n = strlen(a->violations);
  snprintf(a->violations + n, sizeof a->violations - n, "%s: %.120s\n", what, line);
}

/* The path between '<' and '>' right after the first "(N" of the line. */
static int fd_path(const char *line, char *out, size_t size) {
  const char *lt = strchr(line, '<'), *gt;
  size_t n;
  if (lt == NULL || (gt = strchr(lt, '>')) == NULL)
    return -1;
  n = (size_t)(gt - lt - 1);
  if (n >= size)
    return -1;
  memcpy(out, lt + 1, n);
  out[n] = 0;
  return 0;
}

/* The first "..." string argument. */
static int str_arg(const char *line, char *out, size_t size, int which) {
  const char *q = line;
  int k;
  for (k = 0; k <= which; k++) {
    const char *e;
    q = strchr(q, '"');
    if (q == NULL || (e = strchr(q + 1, '"')) == NULL)
      return -1;
    if (k == which) {
      size_t n = (size_t)(e - q - 1);
      if (n >= size)
        return -1;
      memcpy(out, q + 1, n);
      out[n] = 0;
      return 0;
    }
    q = e + 1;
  }
  return -1;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* pwrite64(fd</x/P.lock>, "...", N, OFF) = N: which write of the counter
 * (the header at 0, or the generation at 8, odd then even). */
static void classify_gen_write(audit *a, const char *line) {
  if (strstr(line, ", 24, 0) = 24") != NULL) {
    add_event(a, "GEN_INIT");
  } else if (strstr(line, ", 8, 8) = 8") != NULL) {
    add_event(a, a->gen_odd ? "GEN_EVEN" : "GEN_ODD");
    a->gen_odd = !a->gen_odd;
  } else {
    add_violation(a, "unexpected write of P.lock", line);
  }
}

static void classify(audit *a, const char *line, const char *base) {
  char p[4096], name[4096];
  if (strstr(line, real_dir) == NULL && strstr(line, base) == NULL)
    return; /* not about the store's directory */
  if (strncmp(line, "open", 4) == 0) {
    if (str_arg(line, name, sizeof name, 0) != 0)
      return;
    if (strstr(line, "O_CLOEXEC") == NULL)
      add_violation(a, "open without O_CLOEXEC", line);
    if (strcmp(name, base) == 0) {
      if (strstr(line, "O_TRUNC") || strstr(line, "O_WRONLY") || strstr(line, "O_RDWR"))
        add_violation(a, "P opened for writing", line);
      else
        add_event(a, "READ_OPEN");
    } else if (ends_with(name, ".tmp")) {
      if (!strstr(line, "O_CREAT") || !strstr(line, "O_EXCL") || !strstr(line, "O_NOFOLLOW"))
        add_violation(a, "temporary not created O_CREAT|O_EXCL|O_NOFOLLOW", line);
      add_event(a, "TMP_CREATE");
    }
    return;
  }
  if (fd_path(line, p, sizeof p) != 0)
    return;
  if (strncmp(line, "fcntl(", 6) == 0 && ends_with(p, ".lock") && (strstr(line, "SETLK") != NULL) &&
      strstr(line, "= 0") != NULL) {
    add_event(a, "LOCK");
  } else if (strncmp(line, "mmap(", 5) == 0) {
    if (ends_with(p, ".lock"))
      add_violation(a, "P.lock mapped", line);
  } else if (strncmp(line, "ftruncate(", 10) == 0) {
    add_violation(a, "unexpected ftruncate", line);
  } else if (strncmp(line, "fallocate(", 10) == 0) {
    if (ends_with(p, ".lock") && strstr(line, ", 0, 4096) = 0") != NULL)
      add_event(a, "GEN_ALLOC");
    else
      add_violation(a, "unexpected fallocate", line);
  } else if (strncmp(line, "pwrite64(", 9) == 0 && ends_with(p, ".lock")) {
    classify_gen_write(a, line);
  } else if (strncmp(line, "write(", 6) == 0) {
    add_event(a, ends_with(p, ".tmp") ? "TMP_WRITE+" : "OTHER_WRITE");
  } else if (strncmp(line, "fsync(", 6) == 0 || strncmp(line, "fdatasync(", 10) == 0) {
    if (ends_with(p, ".tmp")) {
      a->tmp_fsyncs++;
      add_event(a, "TMP_FSYNC");
    } else if (strcmp(p, real_dir) == 0) {
      add_event(a, "DIR_FSYNC");
    } else {
      add_event(a, "OTHER_FSYNC");
    }
  } else if (strncmp(line, "close(", 6) == 0) {
    if (ends_with(p, ".tmp") || ends_with(p, ".tmp (deleted)"))
      add_event(a, a->committed ? "OLD_CLOSE" : "TMP_CLOSE");
    else if (ends_with(p, ".lock"))
      add_event(a, "UNLOCK");
  } else if (strncmp(line, "rename", 6) == 0) {
    if (str_arg(line, name, sizeof name, 0) == 0 && ends_with(name, ".tmp") &&
        str_arg(line, p, sizeof p, 1) == 0 && strcmp(p, base) == 0) {
      add_event(a, strstr(line, "RENAME_EXCHANGE") != NULL    ? "EXCHANGE"
                   : strstr(line, "RENAME_NOREPLACE") != NULL ? "NOREPLACE"
                                                              : "RENAME");
      a->committed = 1;
    } else
      add_violation(a, "unexpected rename", line);
  }
}

static const char expected_new_lock[] = "LOCK GEN_ALLOC GEN_INIT READ_OPEN TMP_CREATE TMP_WRITE+ "
                                        "TMP_FSYNC TMP_CLOSE GEN_ODD NOREPLACE GEN_EVEN DIR_FSYNC "
                                        "UNLOCK";
static const char expected_events[] = "LOCK GEN_ALLOC READ_OPEN TMP_CREATE TMP_WRITE+ TMP_FSYNC "
                                      "TMP_CLOSE GEN_ODD EXCHANGE GEN_EVEN DIR_FSYNC OLD_CLOSE "
                                      "UNLOCK";

/* The generation counter of P.lock (bytes 8..15 after the magic
 * "olcgen01"); 0 when P.lock is absent or has no magic yet. */
static uint64_t read_gen(const char *lock) {
  unsigned char b[16];
  uint64_t g;
  FILE *f = fopen(lock, "rb");
  size_t n = f ? fread(b, 1, sizeof b, f) : 0;
  if (f != NULL)
    fclose(f);
  if (n != sizeof b || memcmp(b, "olcgen01", 8) != 0)
    return 0;
  memcpy(&g, b + 8, sizeof g);
  return g;
}

static const char *const lsan_off[] = {"ASAN_OPTIONS=detect_leaks=0", NULL};

static int run_audit(audit *a, int with_old) {
  char *log = olc_test_path(adir, "strace.log");
  const char *argv[] = {
      "strace",
      "-o",
      log,
      "-y",
      "-s",
      "512",
      "-e",
      "trace=open,openat,fcntl,write,pwrite64,fsync,fdatasync,close,rename,renameat,renameat2,"
      "mmap,ftruncate,fallocate",
      OLC_PERSIST_WRITER,
      "inc",
      apath,
      "1",
      "k",
      NULL};
  char line[8192];
  char *lock = olc_test_path(adir, "store.txt.lock");
  FILE *f;
  int status;
  uint64_t gen0, gen1;
  memset(a, 0, sizeof *a);
  unlink(apath);
  if (!with_old)
    unlink(lock); /* absent P: a new P.lock too; existing P: the first run's P.lock */
  gen0 = with_old && dur_store(apath, 1) != 0 ? UINT64_MAX : read_gen(lock);
  if (gen0 == UINT64_MAX) {
    free(lock);
    free(log);
    return -1;
  }
  /* LeakSanitizer cannot run under ptrace (ASan builds). */
  status = dur_run(argv, lsan_off);
  f = status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ? NULL : fopen(log, "r");
  free(log);
  if (f == NULL) {
    free(lock);
    return -1;
  }
  while (fgets(line, sizeof line, f) != NULL)
    classify(a, line, "store.txt");
  fclose(f);
  gen1 = read_gen(lock);
  free(lock);
  if (strcmp(a->events, with_old ? expected_events : expected_new_lock) != 0)
    add_violation(a, "event order", a->events);
  if (gen1 != gen0 + 2 || (gen1 & 1u) != 0) {
    snprintf(line, sizeof line, "%llu -> %llu", (unsigned long long)gen0, (unsigned long long)gen1);
    add_violation(a, "generation of P.lock not moved by 2 to an even value", line);
  }
  if (a->tmp_fsyncs != 1)
    add_violation(a, "fsyncs of the temporary != 1", a->events);
  return 0;
}

static void test_k5_audit(void) {
  int with_old;
  for (with_old = 0; with_old < 2; with_old++) {
    audit a;
    CU_ASSERT_EQUAL_FATAL(run_audit(&a, with_old), 0);
    fprintf(stderr, "\n  events (%s P): %s\n", with_old ? "existing" : "absent", a.events);
    if (a.violations[0] != 0)
      fprintf(stderr, "  violations:\n%s", a.violations);
    if (dur_negative("fsync") || dur_negative("rename") || dur_negative("dirsync") ||
        dur_negative("order") || dur_negative("exchange")) {
      CU_ASSERT(a.violations[0] != 0); /* negative control: must be caught */
    } else {
      CU_ASSERT_STRING_EQUAL(a.violations, "");
    }
  }
}

int test_durability_audit_register(void);
int test_durability_audit_register(void) {
  CU_pSuite s = CU_add_suite("audit", asetup, ateardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "K5 syscall-order audit", test_k5_audit);
  return 0;
}
