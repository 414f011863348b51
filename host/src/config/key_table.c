/*
 * config/key_table.c - the table of the configuration keys (key_table.h) and the
 * text that describes a row, for messages and the documentation.
 *
 * A new key is one row here, in the order the documentation lists it,
 * plus the code that reads the value.  tests/config/test_config_docs
 * then says which lines full.ini, olc.1 and docs/configuration.md lack.
 */
#include "config/ini_parse_int.h"

#include <stdio.h>
#include <string.h>

/* Where a row's value lands: offset and size of a member. */
#define IN(type, member) .offset = offsetof(type, member), .size = sizeof(((type *)0)->member)

static const olc_config_choice strategies[] = {
    {"race", OLC_STRATEGY_RACE}, {"full", OLC_STRATEGY_FULL}, {NULL, 0}};
static const olc_config_choice persistence_modes[] = {{"true", OLC_CONFIG_PERSIST_ON},
                                                      {"false", OLC_CONFIG_PERSIST_OFF},
                                                      {"read_only", OLC_CONFIG_PERSIST_READ_ONLY},
                                                      {NULL, 0}};
static const olc_config_choice verify_layers_modes[] = {
    {"never", OLC_VERIFY_LAYERS_NEVER},
    {"on_first_use", OLC_VERIFY_LAYERS_ON_FIRST_USE},
    {NULL, 0}};
static const olc_config_choice select_modes[] = {
    {"never", OLC_SELECT_NEVER}, {"on_miss", OLC_SELECT_ON_MISS}, {NULL, 0}};
static const olc_config_choice contention_modes[] = {{"wait", OLC_CONTENTION_WAIT},
                                                     {"mark", OLC_CONTENTION_MARK},
                                                     {"ignore", OLC_CONTENTION_IGNORE},
                                                     {NULL, 0}};

static const olc_config_key keys[] = {
    /* [host] */
    {.section = OLC_CONFIG_HOST,
     .name = "plugin_dirs",
     .type = OLC_CONFIG_PATH_LIST,
     .flags = OLC_CONFIG_EMPTY_OK,
     .def = "@exe_dir@/../plugins, @install_plugin_dir@",
     IN(olc_config, plugin_dirs),
     .count_offset = offsetof(olc_config, plugin_dir_count),
     .located_offset = offsetof(olc_config, plugin_dir_optional),
     .description = "Directories searched for plugin files, separated by ':' or ','; "
                    "empty: none (OLC_PLUGIN_PATH adds more)."},
    {.section = OLC_CONFIG_HOST,
     .name = "threads",
     .type = OLC_CONFIG_INT,
     .min = 0,
     .max = 65536,
     .def = "0",
     IN(olc_config, threads_configured),
     .description = "Threads each plugin uses; 0: every CPU this process may use "
                    "(affinity mask, capped by a cgroup quota)."},
    {.section = OLC_CONFIG_HOST,
     .name = "allow_insecure_plugins",
     .type = OLC_CONFIG_BOOL,
     .def = "false",
     IN(olc_config, allow_insecure_plugins),
     .description = "Load plugin files and directories that other users may write (unsafe)."},

    /* [store] */
    {.section = OLC_CONFIG_STORE,
     .name = "path",
     .type = OLC_CONFIG_PATH,
     .example = "profiles.txt",
     IN(olc_config, store_path),
     .description = "The profile store file; absent: "
                    "$XDG_CACHE_HOME/onnx-light/calibration_profiles.txt (or ~/.cache/...)."},
    {.section = OLC_CONFIG_STORE,
     .name = "persistence",
     .type = OLC_CONFIG_ENUM,
     .flags = OLC_CONFIG_BOOL_WORDS,
     .choices = persistence_modes,
     .def = "true",
     IN(olc_config, persistence),
     .description = "false: keep profiles in memory only (no file is read or written); "
                    "read_only: read the file and follow its changes, never write it "
                    "(saves stay in memory; also --read-only)."},
    {.section = OLC_CONFIG_STORE,
     .name = "allow_network_fs",
     .type = OLC_CONFIG_BOOL,
     .def = "false",
     IN(olc_config, allow_network_fs),
     .description = "Write a store on a network file system (NFS, SMB/CIFS, 9p, sshfs); "
                    "false: refused, reading stays allowed."},
    {.section = OLC_CONFIG_STORE,
     .name = "layers",
     .type = OLC_CONFIG_PATH_LIST,
     .flags = OLC_CONFIG_EMPTY_OK | OLC_CONFIG_SKIP_MISSING_LOCATED,
     .def = "@install_profile_dir@/*.txt",
     IN(olc_config, store_layers),
     .count_offset = offsetof(olc_config, store_layer_count),
     .located_offset = offsetof(olc_config, store_layer_located),
     .description = "Read-only profile files beneath the store's, separated by ':' or ','; "
                    "a star in the last component: its matching files in byte order; empty: none."},
    {.section = OLC_CONFIG_STORE,
     .name = "force_portable",
     .type = OLC_CONFIG_BOOL,
     .def = "false",
     IN(olc_config, force_portable),
     .description = "Skip exact records and select portable ones (also --force-portable)."},
    {.section = OLC_CONFIG_STORE,
     .name = "lock_timeout_ms",
     .type = OLC_CONFIG_INT,
     .min = -1,
     .max = 86400000,
     .def = "10000",
     IN(olc_config, lock_timeout_ms),
     .description = "How long a writer waits for the store lock, in milliseconds; "
                    "-1 waits forever."},
    {.section = OLC_CONFIG_STORE,
     .name = "verify_layers",
     .type = OLC_CONFIG_ENUM,
     .choices = verify_layers_modes,
     .def = "never",
     IN(olc_config, verify_layers),
     .description = "on_first_use: an on_miss runtime races a layer's calibrated record against "
                    "the plugin's candidates the first time it serves it, and recalibrates it "
                    "into the user's store when it no longer wins (olc verify does so for all); "
                    "never: layer records are served as they are."},

    /* [calibration] */
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "strategy",
     .type = OLC_CONFIG_ENUM,
     .choices = strategies,
     .def = "race",
     IN(olc_calibration_settings, strategy),
     .description = "How candidates are timed: race screens each briefly and races three "
                    "finalists; full times each in full."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "warmup",
     .type = OLC_CONFIG_INT,
     .min = 0,
     .max = 1000000,
     .def = "1",
     IN(olc_calibration_settings, warmup),
     .description = "Untimed runs of each candidate before timing it (the numerical check's run "
                    "of a candidate counts as the first)."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "min_repetitions",
     .type = OLC_CONFIG_INT,
     .min = 1,
     .max = 1000000,
     .def = "5",
     IN(olc_calibration_settings, min_repetitions),
     .description = "Timed runs of the winner (of every candidate with strategy = full), "
                    "at least."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "min_seconds",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 3600.0,
     .def = "0.05",
     IN(olc_calibration_settings, min_seconds),
     .description = "And those runs take at least this long, in seconds."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "max_seconds_per_workload",
     .type = OLC_CONFIG_NUMBER,
     .flags = OLC_CONFIG_MIN_EXCLUSIVE,
     .min = 0.0,
     .max = 86400.0,
     .def = "30",
     IN(olc_calibration_settings, max_seconds_per_workload),
     .description = "Time budget of one workload in seconds; when it is spent, the remaining "
                    "candidates are not measured (the first one always is)."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "max_seconds_total",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 31536000.0,
     .def = "0",
     IN(olc_calibration_settings, max_seconds_total),
     .description = "Time budget of one olc calibrate, or of one host's lazy calibrations "
                    "together, in seconds; 0: none.  Workloads met after it is spent are "
                    "not measured."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "max_runs_per_candidate",
     .type = OLC_CONFIG_INT,
     .min = 0,
     .max = 100000000,
     .def = "0",
     IN(olc_calibration_settings, max_runs_per_candidate),
     .description = "Timed runs of one candidate at most (warm-up excluded; set, runs are "
                    "timed one by one, not in batches); 0: no cap."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "abandon_factor",
     .type = OLC_CONFIG_NUMBER,
     .min = 1.0,
     .max = 1e6,
     .def = "1.5",
     IN(olc_calibration_settings, abandon_factor),
     .description = "A candidate is abandoned once its first three runs, or the lower median "
                    "of two or more, exceed this factor x the best so far."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "isolation",
     .type = OLC_CONFIG_BOOL,
     .def = "true",
     IN(olc_calibration_settings, isolation),
     .description = "Measure candidates in a worker process (olc-worker), so one that crashes, "
                    "aborts or hangs is rejected (POSIX)."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "run_timeout_seconds",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 86400.0,
     .def = "0",
     IN(olc_calibration_settings, run_timeout_seconds),
     .description = "How long one run may take in the worker before it is killed as hung; "
                    "0: automatic (60 s, then 20 x the best median)."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "select_mode",
     .type = OLC_CONFIG_ENUM,
     .choices = select_modes,
     .def = "never",
     IN(olc_calibration_settings, select_mode),
     .description = "What a runtime's select does when nothing is stored: never uses the "
                    "plugin's first candidate; on_miss measures, saves and selects."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "measure_lock",
     .type = OLC_CONFIG_PATH,
     .example = "/run/user/1000/onnx-light/measure.lock",
     IN(olc_calibration_settings, measure_lock),
     .description = "The lock a process holds while it measures, so that measurements on one "
                    "machine never overlap; absent: $XDG_RUNTIME_DIR/onnx-light/measure.lock, "
                    "else beside the store."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "measure_lock_timeout_seconds",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 86400.0,
     .def = "300",
     IN(olc_calibration_settings, measure_lock_timeout_seconds),
     .description = "How long a process waits for the measurement lock before it measures "
                    "anyway, in seconds."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "numerical_check",
     .type = OLC_CONFIG_BOOL,
     .def = "true",
     IN(olc_calibration_settings, numerical_check),
     .description = "Before timing, run every candidate of a plugin that has execute on the same "
                    "inputs and reject one whose output differs from the reference candidate's "
                    "(numerical_mismatch)."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "check_atol",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 1e300,
     .def = "0",
     IN(olc_calibration_settings, check_atol),
     .description = "Absolute tolerance of the numerical check when smaller than the plugin's; "
                    "0: the plugin's."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "check_rtol",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 1e300,
     .def = "0",
     IN(olc_calibration_settings, check_rtol),
     .description = "Relative tolerance of the numerical check when smaller than the plugin's; "
                    "0: the plugin's."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "rotating_buffer_mb",
     .type = OLC_CONFIG_NUMBER,
     .min = 0.0,
     .max = 1048576.0,
     .def = "0",
     IN(olc_calibration_settings, rotating_buffer_mb),
     .description = "Cold-cache measurement: runs rotate through enough prepared copies of the "
                    "workload's operands to exceed this many MiB; 0: off (warm caches)."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "record_misses",
     .type = OLC_CONFIG_PATH,
     .example = "recorded_workloads.txt",
     IN(olc_calibration_settings, record_misses),
     .description = "A file that a runtime's select in never mode appends each workload it "
                    "has no stored profile for to, for olc calibrate --recorded."},
    {.section = OLC_CONFIG_CALIBRATION,
     .name = "contention",
     .type = OLC_CONFIG_ENUM,
     .choices = contention_modes,
     .def = "wait",
     IN(olc_calibration_settings, contention),
     .description = "When other tasks held the CPUs during a measurement: wait for a quiet "
                    "machine and measure again within the budget, else save the winner as "
                    "provisional (contended); mark: save it as provisional at once; ignore: do "
                    "not watch (also OLC_CONTENTION)."},

    /* [workload.NAME] */
    {.section = OLC_CONFIG_WORKLOAD,
     .name = "backend",
     .type = OLC_CONFIG_STRING,
     .flags = OLC_CONFIG_REQUIRED,
     .example = "cpu_gemm",
     IN(olc_workload_config, backend),
     .check = olc_config__is_plugin_name,
     .expected = "a plugin name, [a-z0-9_]+",
     .description = "The plugin that calibrates the workload."},
    {.section = OLC_CONFIG_WORKLOAD,
     .name = "operator",
     .type = OLC_CONFIG_STRING,
     .flags = OLC_CONFIG_REQUIRED,
     .example = "MatMul",
     IN(olc_workload_config, operator_name),
     .description = "The operator, as the plugin names it (MatMul)."},
    {.section = OLC_CONFIG_WORKLOAD,
     .name = "model",
     .type = OLC_CONFIG_PATH,
     .example = "models/my_model.onnx",
     IN(olc_workload_config, model_digest),
     .excludes = "model_digest",
     .set = olc_config__set_model,
     .description = "A model file: its SHA-256 binds the exact records to the model."},
    {.section = OLC_CONFIG_WORKLOAD,
     .name = "model_digest",
     .type = OLC_CONFIG_STRING,
     .example = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     IN(olc_workload_config, model_digest),
     .check = olc_config__is_digest,
     .expected = "sha256:<64 hex>",
     .excludes = "model",
     .set = olc_config__set_model_digest,
     .description = "The model's digest instead of the file: sha256: and 64 hex digits, or "
                    "another algorithm:hex (not workload:), kept as written."},

    /* [plugin.NAME] */
    {.section = OLC_CONFIG_PLUGIN,
     .name = "enabled",
     .type = OLC_CONFIG_BOOL,
     .def = "true",
     IN(olc_plugin_config, enabled),
     .description = "false: do not load this plugin."},
    {.section = OLC_CONFIG_PLUGIN,
     .name = "critical",
     .type = OLC_CONFIG_BOOL,
     .def = "false",
     IN(olc_plugin_config, critical),
     .description = "true: a failure to load this plugin makes the whole run fail."},
};

const olc_config_key *olc_config__keys(size_t *count) {
  *count = sizeof keys / sizeof keys[0];
  return keys;
}

const olc_config_key *olc_config__key_find(olc_config_section section, const char *name,
                                           uint64_t *bit) {
  size_t i;
  unsigned n = 0;
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    if (keys[i].section != section)
      continue;
    if (strcmp(keys[i].name, name) == 0) {
      if (bit != NULL)
        *bit = (uint64_t)1 << (n & 63u);
      return &keys[i];
    }
    n++;
  }
  return NULL;
}

const char *olc_config__section_name(olc_config_section section) {
  switch (section) {
  case OLC_CONFIG_HOST:
    return "host";
  case OLC_CONFIG_STORE:
    return "store";
  case OLC_CONFIG_CALIBRATION:
    return "calibration";
  case OLC_CONFIG_WORKLOAD:
    return "workload";
  case OLC_CONFIG_PLUGIN:
    return "plugin";
  }
  return "?";
}

/* "a, b or c" from an ENUM's choices; with OLC_CONFIG_BOOL_WORDS the
 * boolean words (booleans) come first and stand for "true" and "false". */
static char *choice_list(char *buf, size_t size, const olc_config_key *k, const char *booleans) {
  const olc_config_choice *c = k->choices;
  int words = (k->flags & OLC_CONFIG_BOOL_WORDS) != 0;
  size_t pos = 0, i, n = 0, listed = 0;
  buf[0] = 0;
  for (i = 0; c[i].name != NULL; i++)
    n += !(words && (strcmp(c[i].name, "true") == 0 || strcmp(c[i].name, "false") == 0));
  if (words) {
    snprintf(buf, size, "%s", booleans);
    pos = strlen(buf);
    n++;
    listed++;
  }
  for (i = 0; c[i].name != NULL && pos < size; i++) {
    int w;
    if (words && (strcmp(c[i].name, "true") == 0 || strcmp(c[i].name, "false") == 0))
      continue;
    w = snprintf(buf + pos, size - pos, "%s%s",
                 listed == 0       ? ""
                 : listed + 1 == n ? " or "
                                   : ", ",
                 c[i].name);
    pos += w > 0 ? (size_t)w : 0;
    listed++;
  }
  return buf;
}

/* A bound as a file would say it: whole numbers in full (1000000, not
 * 1e+06). */
static char *bound_text(char *buf, size_t size, double v) {
  if (v > -1e15 && v < 1e15 && v == (double)(long long)v)
    snprintf(buf, size, "%lld", (long long)v);
  else
    snprintf(buf, size, "%g", v);
  return buf;
}

/* ">= 0 and <= 3600", "> 0 and <= 86400". */
static char *number_range(char *buf, size_t size, const olc_config_key *k) {
  char lo[32], hi[32];
  snprintf(buf, size, "%s %s and <= %s",
           (k->flags & OLC_CONFIG_MIN_EXCLUSIVE) ? ">" : ">=", bound_text(lo, sizeof lo, k->min),
           bound_text(hi, sizeof hi, k->max));
  return buf;
}

char *olc_config__key_expected(char *buf, size_t size, const olc_config_key *k) {
  char range[80];
  switch (k->type) {
  case OLC_CONFIG_BOOL:
    snprintf(buf, size, "true/false, yes/no, on/off or 1/0");
    break;
  case OLC_CONFIG_INT:
    snprintf(buf, size, "an integer from %lld to %lld", (long long)k->min, (long long)k->max);
    break;
  case OLC_CONFIG_NUMBER:
    snprintf(buf, size, "a number %s", number_range(range, sizeof range, k));
    break;
  case OLC_CONFIG_ENUM:
    choice_list(buf, size, k, "true/false, yes/no, on/off, 1/0");
    break;
  case OLC_CONFIG_PATH:
    snprintf(buf, size, "a path");
    break;
  case OLC_CONFIG_PATH_LIST:
    snprintf(buf, size, "paths separated by ':' or ','");
    break;
  case OLC_CONFIG_STRING:
    snprintf(buf, size, "%s", k->expected != NULL ? k->expected : "a string");
    break;
  }
  return buf;
}

char *olc_config__key_type_text(char *buf, size_t size, const olc_config_key *k) {
  char range[80];
  switch (k->type) {
  case OLC_CONFIG_BOOL:
    snprintf(buf, size, "boolean");
    break;
  case OLC_CONFIG_INT:
    snprintf(buf, size, "integer, %lld to %lld", (long long)k->min, (long long)k->max);
    break;
  case OLC_CONFIG_NUMBER:
    snprintf(buf, size, "number, %s", number_range(range, sizeof range, k));
    break;
  case OLC_CONFIG_ENUM:
    choice_list(buf, size, k, "boolean");
    break;
  case OLC_CONFIG_PATH:
    snprintf(buf, size, "path");
    break;
  case OLC_CONFIG_PATH_LIST:
    snprintf(buf, size, "path list");
    break;
  case OLC_CONFIG_STRING:
    snprintf(buf, size, "string");
    break;
  }
  return buf;
}
