/*
 * util/options.c - the version history of every caller-filled struct, and
 * the copy that accepts each of its versions (options.h).
 *
 * One table per struct: the bytes each version has, oldest first.  The
 * history starts at release 1.0: version 1 is each struct's 1.0 layout
 * (tests/util/olc_1_0.h keeps it frozen).  A new version is one more row,
 * and the build fails until the row count equals the header's *_VERSION.  The public headers are
 * the contract every module shares, so util may know their types.
 */
#include "util/options.h"

#include <string.h>

#include "olc/host.h"
#include "olc/store.h"
#include "util/error.h"

/* The bytes a version has: up to the end of its last field.  Not the
 * offset of the next version's first field: a field with a stricter
 * alignment can start beyond the end of an older caller's struct. */
#define OPT_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

#define OPT_ROWS(ends, version)                                                                    \
  _Static_assert(sizeof(ends) / sizeof((ends)[0]) == (version),                                    \
                 #ends " needs one row per version, up to " #version)

#define OPT_LAYOUT(type, version, defaults, ends)                                                  \
  { #type, version, sizeof(type), &(defaults), ends }

static const olc_store_options store_defaults = OLC_STORE_OPTIONS_INIT;
static const size_t store_ends[] = {
    OPT_END(olc_store_options, layers_list), /* 1: the 1.0 layout */
};
OPT_ROWS(store_ends, OLC_STORE_OPTIONS_VERSION);
const olc_options_layout olc_options__store =
    OPT_LAYOUT(olc_store_options, OLC_STORE_OPTIONS_VERSION, store_defaults, store_ends);

static const olc_save_request save_defaults = OLC_SAVE_REQUEST_INIT;
static const size_t save_ends[] = {
    OPT_END(olc_save_request, levels), /* 1: the 1.0 layout */
};
OPT_ROWS(save_ends, OLC_SAVE_REQUEST_VERSION);
const olc_options_layout olc_options__save =
    OPT_LAYOUT(olc_save_request, OLC_SAVE_REQUEST_VERSION, save_defaults, save_ends);

static const olc_lookup_options lookup_defaults = OLC_LOOKUP_OPTIONS_INIT;
static const size_t lookup_ends[] = {
    OPT_END(olc_lookup_options, scope), /* 1: the 1.0 layout */
};
OPT_ROWS(lookup_ends, OLC_LOOKUP_OPTIONS_VERSION);
const olc_options_layout olc_options__lookup =
    OPT_LAYOUT(olc_lookup_options, OLC_LOOKUP_OPTIONS_VERSION, lookup_defaults, lookup_ends);

static const olc_host_options host_defaults = OLC_HOST_OPTIONS_INIT;
static const size_t host_ends[] = {
    OPT_END(olc_host_options, verify_layers), /* 1: the 1.0 layout */
};
OPT_ROWS(host_ends, OLC_HOST_OPTIONS_VERSION);
const olc_options_layout olc_options__host =
    OPT_LAYOUT(olc_host_options, OLC_HOST_OPTIONS_VERSION, host_defaults, host_ends);

static const olc_calibrate_options calibrate_defaults = OLC_CALIBRATE_OPTIONS_INIT;
static const size_t calibrate_ends[] = {
    OPT_END(olc_calibrate_options, shard_count), /* 1: the 1.0 layout */
};
OPT_ROWS(calibrate_ends, OLC_CALIBRATE_OPTIONS_VERSION);
const olc_options_layout olc_options__calibrate = OPT_LAYOUT(
    olc_calibrate_options, OLC_CALIBRATE_OPTIONS_VERSION, calibrate_defaults, calibrate_ends);

static const olc_workload workload_defaults = OLC_WORKLOAD_INIT;
static const size_t workload_ends[] = {
    OPT_END(olc_workload, constant_count), /* 1: the 1.0 layout */
};
OPT_ROWS(workload_ends, OLC_WORKLOAD_VERSION);
const olc_options_layout olc_options__workload =
    OPT_LAYOUT(olc_workload, OLC_WORKLOAD_VERSION, workload_defaults, workload_ends);

static const olc_select_options select_defaults = OLC_SELECT_OPTIONS_INIT;
static const size_t select_ends[] = {
    OPT_END(olc_select_options, wait), /* 1: the 1.0 layout */
};
OPT_ROWS(select_ends, OLC_SELECT_OPTIONS_VERSION);
const olc_options_layout olc_options__select =
    OPT_LAYOUT(olc_select_options, OLC_SELECT_OPTIONS_VERSION, select_defaults, select_ends);

static const olc_execute_args execute_defaults = OLC_EXECUTE_ARGS_INIT;
static const size_t execute_ends[] = {
    OPT_END(olc_execute_args, beta), /* 1: the 1.0 layout */
};
OPT_ROWS(execute_ends, OLC_EXECUTE_ARGS_VERSION);
const olc_options_layout olc_options__execute =
    OPT_LAYOUT(olc_execute_args, OLC_EXECUTE_ARGS_VERSION, execute_defaults, execute_ends);

static const olc_verify_options verify_defaults = OLC_VERIFY_OPTIONS_INIT;
static const size_t verify_ends[] = {
    OPT_END(olc_verify_options, in_process), /* 1: the 1.0 layout */
};
OPT_ROWS(verify_ends, OLC_VERIFY_OPTIONS_VERSION);
const olc_options_layout olc_options__verify =
    OPT_LAYOUT(olc_verify_options, OLC_VERIFY_OPTIONS_VERSION, verify_defaults, verify_ends);

olc_status olc_options__load(void *dst, const olc_options_layout *layout, const void *src,
                             const char *where, olc_error *err) {
  uint32_t version;
  memcpy(dst, layout->defaults, layout->size);
  if (src == NULL)
    return OLC_OK;
  memcpy(&version, src, sizeof version);
  if (version == 0)
    return olc_error__set(err, OLC_E_INVALID, where,
                          "%s version 0 is invalid (this library accepts 1 to %u)", layout->name,
                          (unsigned)layout->current);
  if (version > layout->current)
    return olc_error__set(err, OLC_E_INVALID, where,
                          "%s version %u is newer than this library's %u", layout->name,
                          (unsigned)version, (unsigned)layout->current);
  memcpy(dst, src, layout->ends[version - 1]);
  memcpy(dst, &layout->current, sizeof layout->current);
  return OLC_OK;
}
