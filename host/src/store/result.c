/* store/result.c - lookup results, record lists and the enum strings. */
#include <stdlib.h>

#include "store/store_int.h"

olc_precedence olc_record_precedence(const olc_record *record) {
  if (record == NULL)
    return OLC_PRECEDENCE_PORTABLE_CALIBRATED;
  if (record->origin == OLC_ORIGIN_OVERRIDE)
    return record->level == OLC_LEVEL_EXACT ? OLC_PRECEDENCE_EXACT_OVERRIDE
                                            : OLC_PRECEDENCE_PORTABLE_OVERRIDE;
  return record->level == OLC_LEVEL_EXACT ? OLC_PRECEDENCE_EXACT_CALIBRATED
                                          : OLC_PRECEDENCE_PORTABLE_CALIBRATED;
}

const char *olc_level_str(olc_level level) {
  switch (level) {
  case OLC_LEVEL_EXACT:
    return "exact";
  case OLC_LEVEL_PORTABLE:
    return "portable";
  }
  return "unknown";
}

const char *olc_origin_str(olc_origin origin) {
  switch (origin) {
  case OLC_ORIGIN_CALIBRATED:
    return "calibrated";
  case OLC_ORIGIN_OVERRIDE:
    return "override";
  }
  return "unknown";
}

const char *olc_reason_str(olc_reason reason) {
  switch (reason) {
  case OLC_REASON_OUTDATED_IMPLEMENTATION:
    return "outdated_implementation";
  case OLC_REASON_NEWER_IMPLEMENTATION:
    return "newer_implementation";
  case OLC_REASON_DIFFERENT_MODEL:
    return "different_model";
  case OLC_REASON_DIFFERENT_PROCESSOR:
    return "different_processor";
  case OLC_REASON_DIFFERENT_THREAD_COUNT:
    return "different_thread_count";
  case OLC_REASON_DIFFERENT_STRUCTURE:
    return "different_structure";
  case OLC_REASON_FORCE_PORTABLE:
    return "force_portable";
  case OLC_REASON_SHADOWED:
    return "shadowed";
  case OLC_REASON_VALIDATION_FAILED:
    return "validation_failed";
  case OLC_REASON_DIFFERENT_IDENTITY:
    return "different_identity";
  }
  return "unknown";
}

const olc_record *olc_lookup_result_selected(const olc_lookup_result *result) {
  return result != NULL ? result->selected : NULL;
}

size_t olc_lookup_result_rejected_count(const olc_lookup_result *result) {
  return result != NULL ? result->rejected_count : 0;
}

size_t olc_lookup_result_unlisted_count(const olc_lookup_result *result) {
  size_t listed, bucket;
  if (result == NULL)
    return 0;
  listed = result->rejected_count + (result->selected != NULL);
  bucket = result->bucket_count;
  if (bucket == (size_t)-1)
    bucket = olc_cand__bucket_size(result->snap, result->bucket_hash, result->bucket_backend,
                                   result->bucket_operator);
  if (bucket == (size_t)-1) { /* no key index: it could not be built (out of memory) */
    size_t first;
    olc_snapshot__bucket(result->snap, result->bucket_backend, result->bucket_operator, &first,
                         &bucket);
  }
  return bucket > listed ? bucket - listed : 0;
}

const olc_rejection *olc_lookup_result_rejected(const olc_lookup_result *result, size_t i) {
  if (result == NULL || i >= result->rejected_count)
    return NULL;
  return &result->rejected[i];
}

void olc_lookup_result_free(olc_lookup_result *result) {
  if (result == NULL)
    return;
  olc_snapshot__unref(result->snap);
  free(result->rejected);
  olc_arena__free(&result->arena);
  free(result);
}

olc_record_list *olc_store__list_new(olc_snapshot *snap) {
  olc_record_list *list = malloc(sizeof *list);
  if (list != NULL)
    list->snap = snap;
  return list;
}

size_t olc_record_list_count(const olc_record_list *list) {
  return list != NULL ? list->snap->set.count : 0;
}

const olc_record *olc_record_list_get(const olc_record_list *list, size_t i) {
  if (list == NULL || i >= list->snap->set.count)
    return NULL;
  return &list->snap->set.recs[i];
}

void olc_record_list_free(olc_record_list *list) {
  if (list == NULL)
    return;
  olc_snapshot__unref(list->snap);
  free(list);
}
