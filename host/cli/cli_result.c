/*
 * host/cli/cli_result.c - calibration results and lookup rejections as
 * text and as JSON (calibrate, select, explain).
 */
#include "cli_host.h"

#include <string.h>

cli_outcome cli_host_outcome(const olc_workload_result *r) {
  if (r->status == OLC_OK && r->selected != NULL)
    return r->calibrated_now ? CLI_OUTCOME_CALIBRATED : CLI_OUTCOME_SELECTED;
  if (r->status == OLC_E_UNAVAILABLE)
    return CLI_OUTCOME_SKIPPED;
  /* Nothing stored to select (olc select); after measuring, the same
   * status means the saved policy lost, which is a failure. */
  if (r->status == OLC_E_NOT_FOUND && !r->calibrated_now)
    return CLI_OUTCOME_NOT_SELECTED;
  return CLI_OUTCOME_FAILED;
}

const char *cli_outcome_str(cli_outcome o) {
  switch (o) {
  case CLI_OUTCOME_CALIBRATED:
    return "calibrated";
  case CLI_OUTCOME_SELECTED:
    return "selected";
  case CLI_OUTCOME_SKIPPED:
    return "skipped";
  case CLI_OUTCOME_NOT_SELECTED:
    return "not_selected";
  case CLI_OUTCOME_FAILED:
    break;
  }
  return "failed";
}

static void print_str(FILE *out, const char *s) {
  cli_print_quoted(out, (const unsigned char *)(s != NULL ? s : ""), s != NULL ? strlen(s) : 0);
}

void cli_host_print_rejections(FILE *out, const olc_lookup_result *lr, const char *indent,
                               int with_records) {
  cli_host_print_rejections_from(out, lr, indent, with_records, NULL);
}

void cli_host_print_rejections_from(FILE *out, const olc_lookup_result *lr, const char *indent,
                                    int with_records, const char *source) {
  size_t i, n = olc_lookup_result_rejected_count(lr), other = 0;
  char sub[32];
  snprintf(sub, sizeof sub, "%s  ", indent);
  for (i = 0; i < n; i++) {
    const olc_rejection *rej = olc_lookup_result_rejected(lr, i);
    if (rej == NULL)
      continue;
    if (!cli_source_match(rej->record, source)) {
      other++;
      continue;
    }
    fprintf(out, "%srejected: %s %s: %s: ", indent, olc_level_str(rej->record->level),
            olc_origin_str(rej->record->origin), olc_reason_str(rej->reason));
    print_str(out, rej->message);
    fputc('\n', out);
    if (with_records)
      cli_print_record(out, rej->record, sub);
  }
  if (other > 0)
    fprintf(out, "%s%zu rejected record%s of other sources not listed\n", indent, other,
            other == 1 ? "" : "s");
  n = olc_lookup_result_unlisted_count(lr);
  if (n > 0)
    fprintf(out, "%s%zu record%s of other workloads not listed\n", indent, n, n == 1 ? "" : "s");
}

void cli_host_json_rejections(cli_json *j, const olc_lookup_result *lr) {
  cli_host_json_rejections_from(j, lr, NULL);
}

void cli_host_json_rejections_from(cli_json *j, const olc_lookup_result *lr, const char *source) {
  size_t i, n = lr != NULL ? olc_lookup_result_rejected_count(lr) : 0;
  cli_json_begin_array(j);
  for (i = 0; i < n; i++) {
    const olc_rejection *rej = olc_lookup_result_rejected(lr, i);
    if (rej == NULL || !cli_source_match(rej->record, source))
      continue;
    cli_json_begin_object(j);
    cli_json_key(j, "level");
    cli_json_string(j, olc_level_str(rej->record->level));
    cli_json_key(j, "origin");
    cli_json_string(j, olc_origin_str(rej->record->origin));
    cli_json_key(j, "reason");
    cli_json_string(j, olc_reason_str(rej->reason));
    cli_json_key(j, "message");
    cli_json_string(j, rej->message != NULL ? rej->message : "");
    cli_json_key(j, "record");
    cli_json_record(j, rej->record);
    cli_json_end_object(j);
  }
  cli_json_end_array(j);
}

/* w: the candidate measuring chose (olc_calibration_winner), which the
 * race may keep over a lower median it cannot tell from noise. */
static void print_candidates(FILE *out, const olc_workload_result *r, size_t w) {
  size_t i;
  fprintf(out, "  candidates measured: %zu\n", r->candidate_count);
  for (i = 0; i < r->candidate_count; i++) {
    const olc_candidate_result *c = &r->candidates[i];
    fputs("    ", out);
    cli_print_quoted(out, c->policy, c->policy_len);
    if (c->status != OLC_OK) {
      fprintf(out, ": failed (%s)", olc_status_name(c->status));
    } else {
      fprintf(out, ": median %.3f us, spread %.3f us, %u sample%s%s%s", c->median_us, c->spread_us,
              (unsigned)c->samples, c->samples == 1 ? "" : "s", i == w ? " (best)" : "",
              c->checked ? ", checked" : ", not checked");
    }
    if (c->message != NULL && c->message[0] != 0) {
      fputs(": ", out);
      print_str(out, c->message);
    }
    fputc('\n', out);
  }
}

/* The measurement lock, when it made this workload wait or could not be
 * used (the latter is also one of the library's warnings). */
static int lock_mattered(const olc_workload_result *r) {
  return r->lock_wait_seconds > 0 || r->measured_elsewhere || r->lock_status != OLC_OK;
}

static void print_lock(FILE *out, const olc_workload_result *r) {
  if (r->lock_wait_seconds <= 0 && !r->measured_elsewhere && r->lock_status != OLC_E_LOCK_TIMEOUT)
    return;
  fprintf(out, "  waited %.3f s for the measurement lock", r->lock_wait_seconds);
  if (r->lock_holder != NULL) {
    fputs(" (held by ", out);
    print_str(out, r->lock_holder);
    fputc(')', out);
  }
  if (r->measured_elsewhere)
    fputs(": measured by the other process meanwhile", out);
  else if (r->lock_status == OLC_E_LOCK_TIMEOUT)
    fputs(": timed out, measured anyway", out);
  fputc('\n', out);
}

static void json_lock(cli_json *j, const olc_workload_result *r) {
  if (!lock_mattered(r))
    return;
  cli_json_key(j, "measure_lock");
  cli_json_begin_object(j);
  cli_json_key(j, "status");
  cli_json_string(j, olc_status_name(r->lock_status));
  cli_json_key(j, "wait_seconds");
  cli_json_double(j, r->lock_wait_seconds);
  cli_json_key(j, "holder");
  cli_json_string(j, r->lock_holder);
  cli_json_key(j, "measured_elsewhere");
  cli_json_bool(j, r->measured_elsewhere);
  cli_json_end_object(j);
}

void cli_host_print_result(FILE *out, const olc_calibration *cal, size_t index, int verbose) {
  const olc_workload_result *r = olc_calibration_get(cal, index);
  cli_outcome o = cli_host_outcome(r);
  fputs("workload ", out);
  print_str(out, r->workload);
  fputs(": backend ", out);
  print_str(out, r->backend);
  fputs(" operator ", out);
  print_str(out, r->operator_name);
  fputc('\n', out);
  switch (o) {
  case CLI_OUTCOME_CALIBRATED:
    fputs("  calibrated now\n", out);
    break;
  case CLI_OUTCOME_SELECTED:
    fputs("  selected from the store (nothing measured)\n", out);
    break;
  case CLI_OUTCOME_SKIPPED:
    fputs("  skipped: ", out);
    print_str(out, r->message);
    fputc('\n', out);
    break;
  case CLI_OUTCOME_NOT_SELECTED:
    fputs("  not selected: ", out);
    print_str(out, r->message);
    fputc('\n', out);
    break;
  case CLI_OUTCOME_FAILED:
    fprintf(out, "  failed (%s): ", olc_status_name(r->status));
    print_str(out, r->message);
    fputc('\n', out);
    break;
  }
  print_lock(out, r);
  if (r->selected != NULL) {
    fprintf(out, "  selected: %s %s\n", olc_level_str(r->selected->level),
            olc_origin_str(r->selected->origin));
    cli_print_record(out, r->selected, "    ");
  }
  if (r->status == OLC_OK && r->message != NULL && r->message[0] != 0) {
    fputs("  note: ", out);
    print_str(out, r->message);
    fputc('\n', out);
  }
  if (r->candidate_count > 0)
    print_candidates(out, r, olc_calibration_winner(cal, index));
  if (r->lookup != NULL)
    cli_host_print_rejections(out, r->lookup, "  ", 0);
  if (verbose)
    fprintf(out, "  time: %.3f s\n", r->seconds);
}

/* How the selection's latency was measured: "warm", "cold (rotating N x B
 * bytes)", or null when its record does not say. */
static void json_cache_mode(cli_json *j, const olc_record *sel) {
  double n = cli_summary_measurement(sel, OLC_MEASUREMENT_ROTATING_COUNT, "count");
  double b = cli_summary_measurement(sel, OLC_MEASUREMENT_ROTATING_BYTES, "bytes");
  char text[96];
  if (n < 1) {
    cli_json_null(j);
    return;
  }
  if (n > 1 && b > 0)
    snprintf(text, sizeof text, "cold (rotating %.0f x %.0f bytes)", n, b);
  else
    snprintf(text, sizeof text, "warm");
  cli_json_string(j, text);
}

static void json_policy(cli_json *j, const unsigned char *policy, size_t len) {
  if (cli_utf8_valid(policy, len)) {
    cli_json_key(j, "policy");
    cli_json_string_n(j, policy, len);
  } else {
    cli_json_key(j, "policy_base64");
    cli_json_base64(j, policy, len);
  }
}

/* One candidate's measurement; best marks the winner. */
static void json_candidate(cli_json *j, const olc_candidate_result *c, int best) {
  cli_json_begin_object(j);
  json_policy(j, c->policy, c->policy_len);
  cli_json_key(j, "status");
  cli_json_string(j, olc_status_name(c->status));
  cli_json_key(j, "median_us");
  cli_json_double(j, c->median_us);
  cli_json_key(j, "spread_us");
  cli_json_double(j, c->spread_us);
  cli_json_key(j, "samples");
  cli_json_int(j, c->samples);
  cli_json_key(j, "abandoned");
  cli_json_bool(j, c->abandoned);
  cli_json_key(j, "best");
  cli_json_bool(j, best);
  cli_json_key(j, "checked");
  cli_json_bool(j, c->checked);
  cli_json_key(j, "message");
  cli_json_string(j, c->message);
  cli_json_end_object(j);
}

/* The members about the selected record: speedup, cache mode, numerical
 * check and the record itself (null when nothing was selected). */
static void json_selection(cli_json *j, const olc_record *sel) {
  cli_json_key(j, "speedup");
  if (cli_summary_speedup(sel) > 0)
    cli_json_double(j, cli_summary_speedup(sel));
  else
    cli_json_null(j);
  /* How sure the pick is: false when the speedup's intervals overlap. */
  cli_json_key(j, "speedup_sure");
  if (cli_summary_speedup(sel) > 0)
    cli_json_bool(j, cli_summary_speedup_sure(sel));
  else
    cli_json_null(j);
  cli_json_key(j, "provisional");
  cli_json_bool(j, cli_summary_provisional(sel));
  cli_json_key(j, "cache_mode");
  json_cache_mode(j, sel);
  cli_json_key(j, "numerical_check");
  if (sel != NULL)
    cli_json_string(j, cli_summary_measurement(sel, OLC_MEASUREMENT_NUMERICAL_CHECK, "flag") > 0
                           ? "checked"
                           : "not checked");
  else
    cli_json_null(j);
  cli_json_key(j, "selected");
  cli_json_record(j, sel);
}

void cli_host_json_result(cli_json *j, const olc_calibration *cal, size_t index) {
  const olc_workload_result *r = olc_calibration_get(cal, index);
  size_t i, w = olc_calibration_winner(cal, index);
  cli_json_begin_object(j);
  cli_json_key(j, "workload");
  cli_json_string(j, r->workload);
  cli_json_key(j, "backend");
  cli_json_string(j, r->backend);
  cli_json_key(j, "operator");
  cli_json_string(j, r->operator_name);
  cli_json_key(j, "outcome");
  cli_json_string(j, cli_outcome_str(cli_host_outcome(r)));
  cli_json_key(j, "status");
  cli_json_string(j, olc_status_name(r->status));
  cli_json_key(j, "message");
  cli_json_string(j, r->message);
  cli_json_key(j, "calibrated_now");
  cli_json_bool(j, r->calibrated_now);
  cli_json_key(j, "seconds");
  cli_json_double(j, r->seconds);
  json_lock(j, r);
  json_selection(j, r->selected);
  cli_json_key(j, "candidates");
  cli_json_begin_array(j);
  for (i = 0; i < r->candidate_count; i++)
    json_candidate(j, &r->candidates[i], i == w);
  cli_json_end_array(j);
  cli_json_key(j, "rejected");
  cli_host_json_rejections(j, r->lookup);
  cli_json_key(j, "unlisted");
  cli_json_int(j, (int64_t)r->unlisted_count);
  cli_json_end_object(j);
}
