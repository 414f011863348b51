/*
 * config/config.h - internals of the ini configuration (olc/host.h).
 *
 * config.c       loading (file, string, embedded default), getters
 * ini_parse.c    inih driver: reader with line numbers, sections, finish
 * key_table.c    the table of the keys (key_table.h): one row per key
 * key_set.c      one key = value from its row; the defaults of absent keys
 * special.c      the rows that need code: plugin_dirs, model, digest checks
 * values.c       value parsers (booleans, integers, decimals), path helpers
 * cpus_posix.c   the CPUs this process may use (affinity, cgroup quota)
 * model_digest.c SHA-256 of a model file (OpenSSL libcrypto, streaming)
 */
#ifndef OLC_CONFIG_CONFIG_H
#define OLC_CONFIG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "digest/digest.h"
#include "olc/host.h"

/* [store] verify_layers: OLC_VERIFY_LAYERS_NEVER or _ON_FIRST_USE. */
int olc_config__verify_layers(const olc_config *config);
/* [host] allow_insecure_plugins (the loader ORs it with its option). */
int olc_config__allow_insecure_plugins(const olc_config *config);
/* 1 when [host] plugin_dirs entry i is a @...@ location (a build-tree or
 * install directory that may well not exist), 0 for a directory the user
 * named, whose absence is worth a warning. */
int olc_config__plugin_dir_optional(const olc_config *config, size_t i);
/* 1 for the embedded default configuration (olc_config_load_default), 0
 * for one a user wrote (a file or a string). */
int olc_config__is_default(const olc_config *config);
/* [host] threads as written (0 = automatic). */
uint32_t olc_config__threads_configured(const olc_config *config);

/* ---- values.c: every parser returns 1 on success, 0 on a bad value. */

/* true/false, yes/no, on/off, 1/0 (case-insensitive). */
int olc_config__parse_bool(int *out, const char *s);
/* A decimal integer in [min, max] (no sign for min >= 0). */
int olc_config__parse_int(int64_t *out, const char *s, int64_t min, int64_t max);
/* A finite decimal number ("0.05", "30", "1e-3"), independent of the C
 * locale. */
int olc_config__parse_decimal(double *out, const char *s);

/* An environment variable, NULL when unset or empty (secure_getenv where
 * there is one: not honoured in a privileged process). */
const char *olc_config__env(const char *name);

/*
 * Resolves a configured path: "@exe_dir@" at its start is replaced by the
 * executable's directory, "@plugin_install_dir@" by the install plugin
 * directory relative to it; a relative result is joined to base_dir (NULL:
 * the current directory).  Returns a malloc'ed path, or NULL with *why set
 * to a static reason.
 */
char *olc_config__resolve_path(const char *value, const char *base_dir, const char **why);
/*
 * "@install_plugin_dir@REST" or "@install_profile_dir@REST" resolved
 * against the library's directory instead of the executable's (an
 * embedding program installed elsewhere than the prefix's bin), malloc'ed;
 * NULL for another value or when olc_util__library_dir is NULL.
 */
char *olc_config__resolve_library_path(const char *value);

/* ---- cpus_posix.c */

/* CPUs in this thread's affinity mask (>= 1). */
uint32_t olc_config__affinity_cpus(void);
/*
 * The CPU limit of the cgroup quota (ceil(quota / period)), 0 when there is
 * none.  cgroup_text is the content of /proc/self/cgroup; root is the
 * directory under which "sys/fs/cgroup" is found ("" = "/"), so tests can
 * point both at fake trees.  Every level from the process's cgroup up to
 * the mount root is checked and the smallest limit wins (cgroup v2
 * cpu.max; v1 cpu.cfs_quota_us / cpu.cfs_period_us).
 */
uint32_t olc_config__cgroup_cpu_limit(const char *cgroup_text, const char *root);
/* min(affinity, cgroup limit), at least 1. */
uint32_t olc_config__available_cpus(void);

/* ---- model_digest.c */

/*
 * Writes "sha256:<64 lower-case hex>" of the file at path into out,
 * reading it in chunks.  Returns OLC_OK, or OLC_E_IO with err->sys_errno
 * (message names the path), OLC_E_NOMEM, OLC_E_INTERNAL when the
 * platform's SHA-256 fails.
 */
olc_status olc_config__sha256_file(char out[OLC_DIGEST_SIZE], const char *path, olc_error *err);

#endif
