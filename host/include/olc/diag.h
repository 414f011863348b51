/*
 * olc/diag.h - diagnostics: what the library has to say that is not a
 * failure.
 *
 * The library never prints.  Where something went wrong but the call went
 * on (the store's change check degraded, a plugin file failed to load, a
 * configured plugin directory does not exist, a plugin logged a warning)
 * the handle concerned (an olc_store, an olc_host) emits a diagnostic: a
 * level, where it arose (a short name such as "watch", "load",
 * "plugin_dirs" or "plugin NAME") and a one-line message that names the
 * object (path, plugin).
 *
 * With a callback in the handle's options (olc_store_options.diag,
 * olc_host_options.diag) every diagnostic goes to it as it arises and
 * nothing is kept.  Without one, the handle keeps the last OLC_DIAG_KEEP
 * diagnostics, dropping the oldest (and counting them) to make room; the
 * caller takes them after its calls, oldest first, each once
 * (olc_store_next_diagnostic, olc_host_next_diagnostic) and learns how
 * many were dropped (olc_store_diagnostics_dropped,
 * olc_host_diagnostics_dropped).
 *
 * A front end prints a warning as "PROGRAM: warning: WHERE: MESSAGE".
 */
#ifndef OLC_DIAG_H
#define OLC_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "olc/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Severity.  Append-only: a callback ignores or prints levels it does not
 * know. */
typedef enum olc_diag_level {
  OLC_DIAG_WARNING = 1 /* the call went on, in a degraded way or without something */
} olc_diag_level;

/* "warning" (or "diagnostic" for a level this library does not know).
 * Never NULL. */
OLC_API const char *olc_diag_level_str(olc_diag_level level);

/* Diagnostics a handle keeps without a callback. */
#define OLC_DIAG_KEEP 32u
#define OLC_DIAG_WHERE_SIZE 80u
#define OLC_DIAG_MESSAGE_SIZE 256u

/*
 * Receives one diagnostic.  where and message are one line each (control
 * characters are replaced by spaces; a quoted path may hold bytes that are
 * not UTF-8) and live only for the call.  It is called on the thread whose
 * call caused the diagnostic (a plugin's own threads included), never while
 * the library holds a lock, so it may be called from several threads at
 * once when the handle is; it must not call back into the handle that
 * called it.
 */
typedef void (*olc_diag_fn)(void *payload, olc_diag_level level, const char *where,
                            const char *message);

/* A kept diagnostic, copied out by the *_next_diagnostic functions. */
typedef struct olc_diagnostic {
  olc_diag_level level;
  char where[OLC_DIAG_WHERE_SIZE];
  char message[OLC_DIAG_MESSAGE_SIZE];
} olc_diagnostic;

#ifdef __cplusplus
}
#endif

#endif /* OLC_DIAG_H */
