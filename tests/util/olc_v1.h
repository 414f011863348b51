/*
 * tests/util/olc_v1.h - what a caller built against version 1 of the
 * public headers has: the declarations of that time, copied and frozen (the
 * version-1 layout of every caller-filled struct, its *_INIT macro, the
 * version-1 olc_error with its 256-byte message, and the functions the test
 * calls).  Never include it with the current public headers: the names are
 * the same.  Only v1_caller.c includes it.
 */
#ifndef OLC_TEST_COMPAT_OLC_V1_H
#define OLC_TEST_COMPAT_OLC_V1_H

#include <stddef.h>
#include <stdint.h>

typedef enum olc_status {
  OLC_OK = 0,
  OLC_COMMITTED_UNSYNCED = 1,
  OLC_E_INVALID = -1,
  OLC_E_NOMEM = -2,
  OLC_E_NOT_FOUND = -3
} olc_status;

#define OLC_ERROR_MESSAGE_SIZE 256
#define OLC_ERROR_WHERE_SIZE 32

typedef struct olc_error {
  olc_status code;
  int sys_errno;
  int32_t backend_code;
  uint32_t line;
  uint32_t column;
  uint64_t offset;
  char where[OLC_ERROR_WHERE_SIZE];
  char message[OLC_ERROR_MESSAGE_SIZE];
} olc_error;

typedef struct olc_store olc_store;
typedef struct olc_lookup_result olc_lookup_result;

#define OLC_LEVELS_DEFAULT 0u

typedef struct olc_property {
  const char *name;
  const char *value;
} olc_property;

typedef struct olc_measurement {
  const char *name;
  double value;
  const char *unit;
} olc_measurement;

typedef struct olc_key {
  const char *backend;
  const char *operator_name;
  const char *implementation;
  const char *model_digest;
  const char *processor;
  int64_t thread_count;
  const olc_property *structure;
  size_t structure_count;
} olc_key;

typedef struct olc_bytes olc_bytes;
typedef olc_status (*olc_serialize_fn)(olc_bytes *out, void *payload, char *message,
                                       size_t message_size);
typedef olc_status (*olc_validate_fn)(const unsigned char *policy, size_t policy_len, void *payload,
                                      char *message, size_t message_size);

typedef struct olc_store_options {
  uint32_t version;
  const char *path;
  int persistence_enabled;
  int64_t lock_timeout_ms;
  int check_for_changes;
  uint32_t tmp_grace_seconds;
  uint32_t file_mode;
  size_t max_file_size;
} olc_store_options;

#define OLC_STORE_OPTIONS_VERSION 1u
#define OLC_STORE_OPTIONS_INIT                                                                     \
  { OLC_STORE_OPTIONS_VERSION, NULL, 1, 10000, 1, 3600u, 0600u, 0 }

olc_status olc_store_open(olc_store **out, const olc_store_options *options, olc_error *err);

typedef struct olc_save_request {
  uint32_t version;
  const olc_key *key;
  const olc_measurement *measurements;
  size_t measurement_count;
  olc_serialize_fn serialize;
  void *serialize_payload;
  const void *policy;
  size_t policy_len;
  olc_validate_fn validate;
  void *validate_payload;
  unsigned levels;
} olc_save_request;

#define OLC_SAVE_REQUEST_VERSION 1u
#define OLC_SAVE_REQUEST_INIT                                                                      \
  { OLC_SAVE_REQUEST_VERSION, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, OLC_LEVELS_DEFAULT }

olc_status olc_store_save(olc_store *store, const olc_save_request *request, olc_error *err);

typedef struct olc_lookup_options {
  uint32_t version;
  const olc_key *key;
  int force_portable;
  int all_candidates;
  olc_validate_fn validate;
  void *validate_payload;
} olc_lookup_options;

#define OLC_LOOKUP_OPTIONS_VERSION 1u
#define OLC_LOOKUP_OPTIONS_INIT                                                                    \
  { OLC_LOOKUP_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL }

olc_status olc_store_lookup(olc_lookup_result **out, olc_store *store,
                            const olc_lookup_options *options, olc_error *err);

typedef struct olc_config olc_config;
typedef struct olc_host olc_host;
typedef struct olc_calibration olc_calibration;

typedef struct olc_host_options {
  uint32_t version;
  int allow_insecure_plugins;
  int ignore_env;
} olc_host_options;

#define OLC_HOST_OPTIONS_VERSION 1u
#define OLC_HOST_OPTIONS_INIT                                                                      \
  { OLC_HOST_OPTIONS_VERSION, 0, 0 }

olc_status olc_host_open(olc_host **out, const olc_config *config, olc_store *store,
                         const olc_host_options *options, olc_error *err);

typedef void (*olc_progress_fn)(void *payload, const char *workload, size_t workload_index,
                                size_t workload_count, size_t candidate_index,
                                size_t candidate_count, double best_us);

typedef struct olc_calibrate_options {
  uint32_t version;
  const char *const *workloads;
  size_t workload_count;
  int recalibrate;
  int force_portable;
  int select_only;
  olc_progress_fn progress;
  void *progress_payload;
} olc_calibrate_options;

#define OLC_CALIBRATE_OPTIONS_VERSION 1u
#define OLC_CALIBRATE_OPTIONS_INIT                                                                 \
  { OLC_CALIBRATE_OPTIONS_VERSION, NULL, 0, 0, 0, 0, NULL, NULL }

olc_status olc_host_calibrate(olc_calibration **out, olc_host *host,
                              const olc_calibrate_options *options, olc_error *err);

#endif
