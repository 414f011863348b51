/* tests/support/test_support.c - shared helpers for the CUnit tests. */
#include "test_support.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#ifdef __linux__
#include <linux/fs.h>
#include <sys/ioctl.h>
#endif

void olc_test_print_error(const char *call, olc_status got, olc_status expected,
                          const olc_error *err) {
  fprintf(stderr, "\n  %s returned %s (%d), expected %s (%d)\n", call, olc_status_name(got),
          (int)got, olc_status_name(expected), (int)expected);
  if (err != NULL && err->code != OLC_OK)
    fprintf(stderr, "  error: where=%s line=%u column=%u errno=%d: %s\n", err->where,
            (unsigned)err->line, (unsigned)err->column, err->sys_errno, err->message);
}

char *olc_test_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p != NULL)
    snprintf(p, n, "%s/%s", dir, name);
  return p;
}

#ifndef _WIN32
char *olc_test_tmpdir(const char *tag) {
  const char *base = getenv("TMPDIR");
  char tmpl[4096];
  if (base == NULL || base[0] == 0)
    base = "/tmp";
  snprintf(tmpl, sizeof tmpl, "%s/olc-test-%s-XXXXXX", base, tag ? tag : "t");
  if (mkdtemp(tmpl) == NULL)
    return NULL;
  return strdup(tmpl);
}

void olc_test_rmtree(const char *path) {
  DIR *d;
  struct dirent *e;
  struct stat st;
  if (path == NULL)
    return;
  if (lstat(path, &st) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  d = opendir(path);
  if (d != NULL) {
    while ((e = readdir(d)) != NULL) {
      char *child;
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      child = olc_test_path(path, e->d_name);
      if (child != NULL) {
        chmod(child, 0700);
        olc_test_rmtree(child);
        free(child);
      }
    }
    closedir(d);
  }
  rmdir(path);
}

int olc_test_count_names(const char *dir, const char *prefix, const char *suffix) {
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t pl = strlen(prefix), sl = strlen(suffix);
  int n = 0;
  if (d == NULL)
    return -1;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || l < pl + sl)
      continue;
    n += strncmp(e->d_name, prefix, pl) == 0 && strcmp(e->d_name + l - sl, suffix) == 0;
  }
  closedir(d);
  return n;
}

int olc_test_count_tmp(const char *dir) { return olc_test_count_names(dir, "", ".tmp"); }

int olc_test_count_entries(const char *dir) { return olc_test_count_names(dir, "", ""); }

void olc_test_capture_line(const char *cmd, char *out, size_t size) {
  FILE *p = popen(cmd, "r");
  out[0] = 0;
  if (p == NULL)
    return;
  if (fgets(out, (int)size, p) == NULL)
    out[0] = 0;
  pclose(p);
  out[strcspn(out, "\n")] = 0;
}

int olc_test_count_fds(void) {
  DIR *dh = opendir("/proc/self/fd");
  int n = 0;
  if (dh == NULL)
    return -1;
  while (readdir(dh) != NULL)
    n++;
  closedir(dh);
  return n;
}
#endif

#ifdef __linux__
/* O_NONBLOCK: path may be a file or a directory, never waits on a FIFO. */
static int set_inode_flag(const char *path, int flag, int on) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), flags = 0, r = -1;
  if (fd < 0)
    return -1;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
    flags = on ? (flags | flag) : (flags & ~flag);
    r = ioctl(fd, FS_IOC_SETFLAGS, &flags);
  }
  close(fd);
  return r;
}

int olc_test_set_immutable(const char *path, int on) {
  return set_inode_flag(path, FS_IMMUTABLE_FL, on);
}

int olc_test_set_append_only(const char *path, int on) {
  return set_inode_flag(path, FS_APPEND_FL, on);
}
#else
int olc_test_set_immutable(const char *path, int on) {
  (void)path;
  (void)on;
  return -1;
}

int olc_test_set_append_only(const char *path, int on) {
  (void)path;
  (void)on;
  return -1;
}
#endif

unsigned char *olc_test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  size_t cap = 0, n = 0;
  if (f == NULL)
    return NULL;
  for (;;) {
    size_t got;
    if (cap - n < 4096) {
      unsigned char *p = realloc(buf, cap * 2 + 4096 + 1);
      if (p == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = p;
      cap = cap * 2 + 4096;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  fclose(f);
  buf[n] = 0;
  if (len != NULL)
    *len = n;
  return buf;
}

int olc_test_write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  int rc = 0;
  if (f == NULL)
    return -1;
  if (len != 0 && fwrite(data, 1, len, f) != len)
    rc = -1;
  if (fclose(f) != 0)
    rc = -1;
  return rc;
}

int olc_test_copy_file(const char *from, const char *to) {
  size_t len = 0;
  unsigned char *data = olc_test_read_file(from, &len);
  int rc = data != NULL ? olc_test_write_file(to, data, len) : -1;
  free(data);
  return rc;
}

int olc_test_suite_tmpdir(char **dir, const char *tag) {
  *dir = olc_test_tmpdir(tag);
  return *dir == NULL;
}

int olc_test_suite_rmtree(char **dir) {
  olc_test_rmtree(*dir);
  free(*dir);
  *dir = NULL;
  return 0;
}

olc_store *olc_test_memory_store(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error err;
  o.persistence_enabled = 0;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  return s;
}

const olc_workload_result *olc_test_find_result(const olc_calibration *cal, const char *name) {
  size_t i;
  for (i = 0; i < olc_calibration_count(cal); i++)
    if (strcmp(olc_calibration_get(cal, i)->workload, name) == 0)
      return olc_calibration_get(cal, i);
  return NULL;
}

int olc_test_run(int argc, char **argv) {
  unsigned failures;
  CU_basic_set_mode(CU_BRM_VERBOSE);
  if (argc > 1) {
    CU_pSuite s = CU_get_suite(argv[1]);
    if (s == NULL) {
      fprintf(stderr, "no suite named %s\n", argv[1]);
      CU_cleanup_registry();
      return 2;
    }
    CU_basic_run_suite(s);
  } else {
    CU_basic_run_tests();
  }
  failures = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
  if (CU_get_error() != CUE_SUCCESS)
    failures++;
  CU_cleanup_registry();
  return failures == 0 ? 0 : 1;
}

static void session_open(olc_test_session *s, const char *dir, const char *ini, size_t len,
                         int ignore_env) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_error err;
  char *path = olc_test_path(dir, "olc.ini");
  memset(s, 0, sizeof *s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(path);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, ini, len), 0);
  OLC_ASSERT_OK(olc_config_load_file(&s->config, path, &err), &err);
  free(path);
  olc_config_store_options(s->config, &so);
  OLC_ASSERT_OK(olc_store_open(&s->store, &so, &err), &err);
  ho.ignore_env = ignore_env;
  OLC_ASSERT_OK(olc_host_open(&s->host, s->config, s->store, &ho, &err), &err);
}

void olc_test_session_open(olc_test_session *s, const char *dir, const char *ini, size_t len) {
  session_open(s, dir, ini, len, 1);
}

void olc_test_session_open_env(olc_test_session *s, const char *dir, const char *ini, size_t len) {
  session_open(s, dir, ini, len, 0);
}

void olc_test_session_close(olc_test_session *s) {
  olc_host_free(s->host);
  olc_store_free(s->store);
  olc_config_free(s->config);
  memset(s, 0, sizeof *s);
}

const olc_load_entry *olc_test_report_entry(const olc_host *h, const char *file) {
  size_t i, flen = strlen(file);
  for (i = 0; i < olc_host_report_count(h); i++) {
    const char *p = olc_host_report(h, i)->path;
    size_t plen = strlen(p);
    if (plen > flen && p[plen - flen - 1] == '/' && strcmp(p + plen - flen, file) == 0)
      return olc_host_report(h, i);
  }
  return NULL;
}

void olc_test_keep_segv_a_signal(void) {
  static const char *const vars[] = {"ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"};
  size_t i;
  for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *old = getenv(vars[i]);
    char opts[512];
    snprintf(opts, sizeof opts, "%s%shandle_segv=0", old ? old : "", old && *old ? ":" : "");
#ifdef _WIN32
    _putenv_s(vars[i], opts);
#else
    setenv(vars[i], opts, 1);
#endif
  }
}

size_t olc_test_proc_read(long pid, const char *name, char *buf, size_t size) {
  char path[64];
  FILE *fp;
  size_t n;
  snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
  fp = fopen(path, "rb");
  if (fp == NULL)
    return 0;
  n = fread(buf, 1, size - 1, fp);
  fclose(fp);
  buf[n] = 0;
  return n;
}

int olc_test_contains(const char *buf, size_t n, const char *needle) {
  size_t k = strlen(needle), i;
  for (i = 0; k <= n && i <= n - k; i++)
    if (memcmp(buf + i, needle, k) == 0)
      return 1;
  return 0;
}
