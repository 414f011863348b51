/* util/error.c - status text and olc_error helpers. */
#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct status_text {
  olc_status code;
  const char *name;
  const char *text;
} status_text;

static const status_text status_texts[] = {
    {OLC_OK, "OLC_OK", "success"},
    {OLC_COMMITTED_UNSYNCED, "OLC_COMMITTED_UNSYNCED", "committed, durability unconfirmed"},
    {OLC_FIRST_CANDIDATE, "OLC_FIRST_CANDIDATE", "the plugin's first candidate (not tuned)"},
    {OLC_NEAREST_RECORD, "OLC_NEAREST_RECORD",
     "the policy of the nearest measured workload (not tuned for this one)"},
    {OLC_E_INVALID, "OLC_E_INVALID", "invalid argument"},
    {OLC_E_NOMEM, "OLC_E_NOMEM", "out of memory"},
    {OLC_E_NOT_FOUND, "OLC_E_NOT_FOUND", "not found"},
    {OLC_E_IO, "OLC_E_IO", "i/o error"},
    {OLC_E_NOSPC, "OLC_E_NOSPC", "no space left on device"},
    {OLC_E_LOCK_TIMEOUT, "OLC_E_LOCK_TIMEOUT", "timed out waiting for the store lock"},
    {OLC_E_LOCK, "OLC_E_LOCK", "cannot lock the store"},
    {OLC_E_MALFORMED, "OLC_E_MALFORMED", "malformed file"},
    {OLC_E_VERSION, "OLC_E_VERSION", "unsupported file version"},
    {OLC_E_VALIDATION, "OLC_E_VALIDATION", "policy validation failed"},
    {OLC_E_SERIALIZE, "OLC_E_SERIALIZE", "policy serialization failed"},
    {OLC_E_LIMIT, "OLC_E_LIMIT", "limit exceeded"},
    {OLC_E_DISABLED, "OLC_E_DISABLED", "persistence is disabled"},
    {OLC_E_PLUGIN, "OLC_E_PLUGIN", "plugin failure"},
    {OLC_E_CONFIG, "OLC_E_CONFIG", "invalid configuration"},
    {OLC_E_UNAVAILABLE, "OLC_E_UNAVAILABLE", "unavailable on this machine"},
    {OLC_E_DUPLICATE, "OLC_E_DUPLICATE", "duplicate"},
    {OLC_E_BUSY, "OLC_E_BUSY", "busy"},
    {OLC_E_INTERNAL, "OLC_E_INTERNAL", "internal error"},
    {OLC_E_UNSUPPORTED, "OLC_E_UNSUPPORTED", "not supported"},
    {OLC_E_CANCELLED, "OLC_E_CANCELLED", "cancelled"},
    {OLC_E_TIMEOUT, "OLC_E_TIMEOUT", "timed out"},
    {OLC_E_CRASHED, "OLC_E_CRASHED", "worker process crashed"},
    {OLC_E_READ_ONLY, "OLC_E_READ_ONLY", "the store is read-only"},
    {OLC_E_MISMATCH, "OLC_E_MISMATCH", "numerical mismatch"},
};

static const status_text *find_status(olc_status status) {
  size_t i;
  for (i = 0; i < sizeof status_texts / sizeof status_texts[0]; i++)
    if (status_texts[i].code == status)
      return &status_texts[i];
  return NULL;
}

const char *olc_status_str(olc_status status) {
  const status_text *t = find_status(status);
  return t ? t->text : "unknown status";
}

const char *olc_status_name(olc_status status) {
  const status_text *t = find_status(status);
  return t ? t->name : "OLC_E_UNKNOWN";
}

void olc_error_clear(olc_error *err) {
  if (err != NULL)
    memset(err, 0, sizeof *err);
}

static void set_where(olc_error *err, const char *where) {
  if (where != NULL)
    snprintf(err->where, sizeof err->where, "%s", where);
  else
    err->where[0] = 0;
}

olc_status olc_error__set(olc_error *err, olc_status code, const char *where, const char *fmt,
                          ...) {
  va_list ap;
  if (err == NULL)
    return code;
  memset(err, 0, sizeof *err);
  err->code = code;
  set_where(err, where);
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

olc_status olc_error__sys(olc_error *err, olc_status code, int sys_errno, const char *where,
                          const char *fmt, ...) {
  va_list ap;
  size_t n;
  char ebuf[128];
  if (err == NULL)
    return code;
  memset(err, 0, sizeof *err);
  err->code = code;
  err->sys_errno = sys_errno;
  set_where(err, where);
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  n = strlen(err->message);
  if (n < sizeof err->message)
    snprintf(err->message + n, sizeof err->message - n, ": %s",
             olc_error__strerror(sys_errno, ebuf, sizeof ebuf));
  return code;
}

void olc_error__at(olc_error *err, uint32_t line, uint32_t column, uint64_t offset) {
  if (err == NULL)
    return;
  err->line = line;
  err->column = column;
  err->offset = offset;
}

olc_status olc_error__from_errno(int sys_errno, olc_status fallback) {
  if (sys_errno == ENOSPC)
    return OLC_E_NOSPC;
#ifdef EDQUOT
  if (sys_errno == EDQUOT)
    return OLC_E_NOSPC;
#endif
  return fallback;
}

const char *olc_error__strerror(int sys_errno, char *buf, size_t size) {
  if (size == 0)
    return "";
#if defined(_WIN32)
  if (strerror_s(buf, size, sys_errno) != 0)
    snprintf(buf, size, "error %d", sys_errno);
  return buf;
#elif defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(sys_errno, buf, size);
#else
  if (strerror_r(sys_errno, buf, size) != 0)
    snprintf(buf, size, "error %d", sys_errno);
  return buf;
#endif
}
