/*
 * calibrate/calibrate.c - measuring the candidates of one workload
 * (calibrate.h): the plugin's candidates, a measure session (in a worker
 * unless in-process), the configured strategy, the winner.
 */
#include "calibrate/calibrate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/rotate.h"
#include "calibrate/strategy.h"
#include "util/error.h"

static olc_status fail(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                       olc_status status, const char *fmt, ...) OLC_PRINTF(4, 5);

/* The workload's failure: status and a formatted message in the arena. */
static olc_status fail(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                       olc_status status, const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  out->status = status;
  out->message = olc_arena__strdup(req->arena, msg);
  return out->message != NULL ? OLC_OK : OLC_E_NOMEM;
}

/* Times the candidates with the configured strategy. */
static olc_status measure_all(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                              const olc_policy_list *list, olc_measure_session *ms) {
  olc_strategy_ctx ctx;
  ctx.arena = req->arena;
  ctx.settings = req->settings;
  ctx.list = list;
  ctx.session = ms;
  ctx.results = out->candidates;
  ctx.runs = out->runs;
  ctx.progress = req->progress;
  ctx.progress_payload = req->progress_payload;
  ctx.budget_cut = &out->budget_cut;
  if (req->settings->strategy == OLC_STRATEGY_FULL)
    return olc_strategy__full(&ctx, &out->reached, &out->winner);
  return olc_strategy__race(&ctx, &out->reached, &out->winner);
}

/* Prepares, measures and unprepares; the session's note joins out. */
static olc_status run_session(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                              const olc_policy_list *list) {
  olc_measure_session ms;
  olc_check_spec spec;
  olc_error e;
  olc_status st, fatal;
  size_t i;
  /* The workload is prepared where it is measured: in the worker, or here
   * when measuring in-process. */
  olc_calibrate__session_init(&ms, &req->target, req->workload, list, req->settings,
                              req->in_process || !req->settings->isolation,
                              req->run_timeout_seconds > 0 ? req->run_timeout_seconds
                                                           : req->settings->run_timeout_seconds);
  olc_check__spec(&spec, req->target.plugin, req->workload, req->settings, list->serialized[0].data,
                  list->serialized[0].len);
  olc_calibrate__session_check(&ms, &spec);
  olc_calibrate__session_rotate(&ms, out->rotate_count);
  olc_error_clear(&e);
  st = olc_calibrate__session_begin(&ms, &e);
  if (st != OLC_OK) {
    olc_calibrate__session_end(&ms);
    return fail(out, req, st, "prepare: %s", e.message);
  }
  out->measured = 1;
  fatal = measure_all(out, req, list, &ms);
  for (i = 0; i < list->count; i++)
    out->candidates[i].checked = olc_calibrate__session_checked(&ms, i);
  olc_calibrate__session_end(&ms);
  if (fatal == OLC_OK && olc_calibrate__session_note(&ms) != NULL &&
      (out->note = olc_arena__strdup(req->arena, olc_calibrate__session_note(&ms))) == NULL)
    fatal = OLC_E_NOMEM;
  return fatal;
}

/* Puts the request's incumbent first in list (validated and deserialized
 * by the plugin), the candidates with the same bytes dropped: verifying a
 * stored policy races it in the first candidate's place, so a tie keeps
 * it.  OLC_OK, OLC_E_NOMEM, or the plugin's rejection (in e). */
static olc_status prepend_incumbent(olc_policy_list *list, const olc_calibrate_request *req,
                                    olc_error *e) {
  void **policies = malloc((list->count + 1) * sizeof *policies);
  olc_buf *serialized = calloc(list->count + 1, sizeof *serialized);
  void *handle = NULL;
  olc_status st = policies != NULL && serialized != NULL ? OLC_OK : OLC_E_NOMEM;
  size_t i, n = 1;
  if (st == OLC_OK)
    st = olc_plugins__validate(&handle, req->target.plugin, req->incumbent, req->incumbent_len, e);
  if (st == OLC_OK)
    st = olc_buf__append(&serialized[0], req->incumbent, req->incumbent_len);
  if (st != OLC_OK) {
    if (handle != NULL)
      olc_plugins__release(req->target.plugin, handle);
    if (serialized != NULL)
      olc_buf__free(&serialized[0]);
    free(policies);
    free(serialized);
    return st;
  }
  policies[0] = handle;
  for (i = 0; i < list->count; i++) {
    olc_buf *b = &list->serialized[i];
    if (b->len == req->incumbent_len && memcmp(b->data, req->incumbent, b->len) == 0) {
      olc_plugins__release(req->target.plugin, list->policies[i]);
      olc_buf__free(b);
      continue;
    }
    policies[n] = list->policies[i];
    serialized[n++] = *b;
  }
  free(list->policies);
  free(list->serialized);
  list->policies = policies;
  list->serialized = serialized;
  list->count = n;
  return OLC_OK;
}

olc_status olc_calibrate__workload(olc_calibrate_outcome *out, const olc_calibrate_request *req) {
  olc_policy_list list;
  olc_error e;
  olc_status st;
  memset(out, 0, sizeof *out);
  out->first_median_us = -1;
  memset(&list, 0, sizeof list);
  olc_error_clear(&e);
  st = olc_plugins__candidates(&list, req->target.plugin, req->workload, &e);
  if (st != OLC_OK)
    return fail(out, req, st, "candidates: %s", e.message);
  if (req->incumbent != NULL && (st = prepend_incumbent(&list, req, &e)) != OLC_OK) {
    st = st == OLC_E_NOMEM ? st : fail(out, req, st, "stored policy: %s", e.message);
    goto done;
  }
  if (list.count == 0) {
    st = fail(out, req, OLC_E_PLUGIN, "plugin '%s' offered no candidates",
              olc_plugins__name(req->target.plugin));
    goto done;
  }
  out->candidates = olc_arena__alloc(req->arena, list.count * sizeof *out->candidates);
  if (out->candidates == NULL) {
    st = OLC_E_NOMEM;
    goto done;
  }
  memset(out->candidates, 0, list.count * sizeof *out->candidates);
  if (req->keep_samples) {
    out->runs = olc_arena__alloc(req->arena, list.count * sizeof *out->runs);
    if (out->runs == NULL) {
      st = OLC_E_NOMEM;
      goto done;
    }
    memset(out->runs, 0, list.count * sizeof *out->runs);
  }
  out->winner = list.count;
  olc_error_clear(&e);
  st = olc_calibrate__rotation(&out->rotate_count, &out->rotate_bytes, req->target.plugin,
                               req->workload, req->settings->rotating_buffer_mb, &e);
  if (st != OLC_OK) {
    st = fail(out, req, st, "%s", e.message);
    goto done;
  }
  st = run_session(out, req, &list);
  if (st != OLC_OK || out->status != OLC_OK)
    goto done;
  if (out->reached > 0 && out->candidates[0].status == OLC_OK && out->candidates[0].samples > 0)
    out->first_median_us = out->candidates[0].median_us;
  if (out->winner >= list.count) {
    /* The first failure says why; a workload without a winner never
     * reports OLC_OK (its caller would save candidates[winner]). */
    const olc_candidate_result *why = NULL;
    size_t i;
    for (i = 0; i < out->reached && why == NULL; i++)
      if (out->candidates[i].status != OLC_OK)
        why = &out->candidates[i];
    out->winner = list.count;
    if (why != NULL)
      st = fail(out, req, why->status, "no candidate could be measured: %s",
                why->message != NULL ? why->message : olc_status_str(why->status));
    else
      st = fail(out, req, out->reached > 0 ? OLC_E_INTERNAL : OLC_E_PLUGIN,
                "no candidate could be measured: %s",
                out->reached > 0 ? "none was left in the race" : "none measured");
  }
done:
  olc_policy_list__free(&list, req->target.plugin);
  return st;
}
