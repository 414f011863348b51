/*
 * calibrate/isolate_win32.c - no worker process on Windows yet: the
 * session measures in-process and its note says so (isolate.h).
 */
#include "calibrate/isolate.h"

#include <stdio.h>

#include "util/error.h"

struct olc_isolate_worker {
  int unused;
};

olc_status olc_isolate__find_worker(char *buf, size_t size, int ignore_env, char *why,
                                    size_t why_size) {
  (void)ignore_env;
  if (size > 0)
    buf[0] = 0;
  snprintf(why, why_size, "crash isolation is not implemented on Windows");
  return OLC_E_UNSUPPORTED;
}

olc_status olc_isolate__spawn(olc_isolate_worker **out, const char *exe, olc_error *err) {
  *out = NULL;
  return olc_error__set(err, OLC_E_UNSUPPORTED, "isolate", "cannot start %s on Windows", exe);
}

olc_status olc_isolate__call(olc_isolate_worker *w, const olc_wire_writer *request,
                             double timeout_s, uint32_t *type, olc_buf *answer, olc_error *err) {
  (void)w;
  (void)request;
  (void)timeout_s;
  (void)type;
  (void)answer;
  return olc_error__set(err, OLC_E_UNSUPPORTED, "isolate", "no worker on Windows");
}

int olc_isolate__alive(const olc_isolate_worker *w) {
  (void)w;
  return 0;
}

long olc_isolate__pid(const olc_isolate_worker *w) {
  (void)w;
  return 0;
}

void olc_isolate__stop(olc_isolate_worker *w) { (void)w; }
