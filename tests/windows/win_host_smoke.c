/*
 * tests/windows/win_host_smoke.c - the modules below config on Windows,
 * run under wine by tests/windows/mingw_cross.sh: the loader
 * (LoadLibraryExW, dl_win32.c) loads the mock plugins and cpu_gemm built
 * as .dll files from seven folders (one with a non-ASCII name, one named
 * twice in different case, one given with '/' by the script) and reports
 * each file's stage, the host module opened without a config
 * (olc_host__open_params) creates them, calibrates one workload per plugin into a
 * store on the Windows write path (write_sequence.c, write_win32.c), and a second host on
 * the same file selects without measuring.  SHA-256 (digest_win32.c,
 * BCrypt) gives the FIPS 180-2 digests, and a workload bound with its model
 * bytes is measured and saved under their digest.
 *
 *   win_host_smoke.exe WORK MOCKS CPU_GEMM_DIR
 *     WORK          an empty directory (Windows path) for the store and a
 *                   plugin directory made here
 *     MOCKS         the mock plugins' scenario root (one folder each)
 *     CPU_GEMM_DIR  the folder of cpu_gemm.dll
 *
 * Plain C, no CUnit: "ok"/"FAIL" per check, a summary, exit 1 on any
 * failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "host/host_int.h"
#include "sha256_vectors.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond) {                                                                                    \
      printf("ok   ");                                                                             \
    } else {                                                                                       \
      printf("FAIL (line %d) ", __LINE__);                                                         \
      failures++;                                                                                  \
    }                                                                                              \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
  } while (0)

#define PATH_SIZE 1024
/* A folder name outside ASCII ("junk-é"): UTF-8 through the loader's
 * conversions to wide paths. */
#define JUNK_DIR "junk-\xc3\xa9"

/* What each loaded file must have reached. */
typedef struct expected_entry {
  const char *file; /* the path ends with it */
  olc_load_stage stage;
  int unavailable;
} expected_entry;

static const expected_entry expected[] = {
    {"\\good\\mock_det.dll", OLC_LOAD_LOADED, 0},
    {"\\cpu_gemm.dll", OLC_LOAD_LOADED, 0},
    {"\\no_entry\\mock_no_entry.dll", OLC_LOAD_SYMBOL, 0},
    {"\\wrong_major\\mock_wrong_major.dll", OLC_LOAD_ABI, 0},
    {"\\create_unavailable\\mock_create_unavailable.dll", OLC_LOAD_CREATE, 1},
    {"\\" JUNK_DIR "\\MOCK_DET.DLL", OLC_LOAD_DUPLICATE, 0},
    {"\\" JUNK_DIR "\\junk.dll", OLC_LOAD_OPEN, 0},
};
#define EXPECTED_COUNT (sizeof expected / sizeof expected[0])

typedef struct paths {
  char mocks[PATH_SIZE];
  char gemm[PATH_SIZE];
  char junk[PATH_SIZE];
  char store[PATH_SIZE];
  char bytes_store[PATH_SIZE]; /* a store of its own: no portable record yet */
  char good_upper[PATH_SIZE];
  const char *dirs[7];
} paths;

static wchar_t *wide(const char *s) {
  static wchar_t buf[2][PATH_SIZE];
  static int next;
  wchar_t *w = buf[next++ & 1];
  if (MultiByteToWideChar(CP_UTF8, 0, s, -1, w, PATH_SIZE) <= 0)
    w[0] = 0;
  return w;
}

/* WORK\junk-é: a copy of mock_det.dll under an upper-case name (the same
 * plugin again), a file with the suffix that is not a library, and a file
 * without it. */
static int make_junk_dir(const paths *p) {
  char from[PATH_SIZE], to[PATH_SIZE];
  FILE *f;
  if (!CreateDirectoryW(wide(p->junk), NULL))
    return 0;
  snprintf(from, sizeof from, "%s\\good\\mock_det.dll", p->mocks);
  snprintf(to, sizeof to, "%s\\MOCK_DET.DLL", p->junk);
  if (!CopyFileW(wide(from), wide(to), TRUE))
    return 0;
  snprintf(to, sizeof to, "%s\\junk.dll", p->junk);
  f = _wfopen(wide(to), L"wb");
  if (f == NULL || fputs("not a library\n", f) < 0 || fclose(f) != 0)
    return 0;
  snprintf(to, sizeof to, "%s\\readme.txt", p->junk);
  f = _wfopen(wide(to), L"wb");
  return f != NULL && fclose(f) == 0;
}

static void make_paths(paths *p, const char *work, const char *mocks, const char *gemm) {
  static char dirs[4][PATH_SIZE];
  static const char *const scenarios[4] = {"good", "no_entry", "wrong_major", "create_unavailable"};
  size_t i;
  char *c;
  snprintf(p->mocks, sizeof p->mocks, "%s", mocks);
  snprintf(p->gemm, sizeof p->gemm, "%s", gemm);
  snprintf(p->junk, sizeof p->junk, "%s\\" JUNK_DIR, work);
  /* The store's folder does not exist yet: the first save creates it. */
  snprintf(p->store, sizeof p->store, "%s\\store\\profiles.olc", work);
  snprintf(p->bytes_store, sizeof p->bytes_store, "%s\\store\\bytes.olc", work);
  for (i = 0; i < 4; i++)
    snprintf(dirs[i], sizeof dirs[i], "%s\\%s", mocks, scenarios[i]);
  p->dirs[0] = dirs[0];
  p->dirs[1] = p->gemm;
  p->dirs[2] = dirs[1];
  p->dirs[3] = dirs[2];
  p->dirs[4] = dirs[3];
  p->dirs[5] = p->junk;
  /* The first folder again, spelt in upper case: the same folder on
   * Windows, searched once. */
  snprintf(p->good_upper, sizeof p->good_upper, "%s", dirs[0]);
  for (c = p->good_upper; *c != 0; c++)
    if (*c >= 'a' && *c <= 'z')
      *c = (char)(*c - 'a' + 'A');
  p->dirs[6] = p->good_upper;
}

static int ends_with(const char *s, const char *tail) {
  size_t a = strlen(s), b = strlen(tail);
  return a >= b && strcmp(s + a - b, tail) == 0;
}

/* One line that ends in text, with no unfilled "%1" of a system message. */
static int one_line(const char *m) {
  size_t n = strlen(m);
  return n > 0 && strpbrk(m, "\r\n%") == NULL && m[n - 1] != ' ' && m[n - 1] != '.';
}

/* Every file of the plugin directories, at the stage it should reach. */
static void check_report(olc_host *h) {
  size_t n = olc_host_report_count(h), i, j;
  CHECK(n == EXPECTED_COUNT, "load report: %u entries (expected %u)", (unsigned)n,
        (unsigned)EXPECTED_COUNT);
  for (i = 0; i < n; i++) {
    const olc_load_entry *e = olc_host_report(h, i);
    const expected_entry *x = NULL;
    for (j = 0; j < EXPECTED_COUNT; j++)
      if (ends_with(e->path, expected[j].file))
        x = &expected[j];
    CHECK(x != NULL && e->stage == x->stage && e->unavailable == x->unavailable &&
              strchr(e->path, '/') == NULL && one_line(e->message),
          "report: %-9s %s: %s", olc_load_stage_str(e->stage), e->path, e->message);
  }
}

/* One workload per plugin, as an ini section would describe it: MatMul
 * 64 x 64 x 64. */
static const olc_property shape[] = {{"dtype", "float32"}, {"m", "64"}, {"n", "64"}, {"k", "64"}};

static olc_workload_config workload(const char *backend) {
  olc_workload_config w;
  memset(&w, 0, sizeof w);
  w.name = backend;
  w.backend = backend;
  w.operator_name = "MatMul";
  w.model_digest = "workload:dtype=float32;k=64;m=64;n=64";
  w.properties = shape;
  w.property_count = sizeof shape / sizeof shape[0];
  return w;
}

static const olc_calibration_settings settings = {
    1,    /* warmup */
    5,    /* min_repetitions */
    0.01, /* min_seconds */
    20.0, /* max_seconds_per_workload */
    1.5,  /* abandon_factor */
    1,    /* isolation: asked for, unavailable on Windows */
    0.0,  /* run_timeout_seconds: automatic */
    OLC_STRATEGY_RACE,
    OLC_SELECT_NEVER, /* select_mode: this test calibrates through olc_host__calibrate_workload */
    NULL,             /* measure_lock: the default path */
    300.0,            /* measure_lock_timeout_seconds */
    1,                /* numerical_check */
    0.0,              /* check_atol: the plugin's */
    0.0,              /* check_rtol: the plugin's */
    0.0,              /* rotating_buffer_mb: warm */
    0.0,              /* max_seconds_total: none */
    0,                /* max_runs_per_candidate: no cap */
    NULL,             /* record_misses: none */
    OLC_CONTENTION_IGNORE}; /* contention: a busy CI machine must not decide it */

static olc_status open_store(olc_store **out, const char *path) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_error err;
  olc_status st;
  o.path = path;
  st = olc_store_open(out, &o, &err);
  if (st != OLC_OK)
    printf("olc_store_open: %s\n", err.message);
  return st;
}

/* [plugin.mock_det] candidates = 1000,100,2000,4000: the winner,
 * spin_us=100, leads by 10 x, which no busy machine flips. */
static const olc_property mock_entries[] = {{"candidates", "1000,100,2000,4000"}};
static const olc_plugin_config mock_config = {"mock_det", 1, 0, mock_entries, 1};

static const olc_plugin_config *plugin_config(void *payload, const char *name) {
  (void)payload;
  return strcmp(name, "mock_det") == 0 ? &mock_config : NULL;
}

static olc_status open_host(olc_host **out, olc_store *store, const paths *p) {
  olc_host_params params;
  olc_error err;
  olc_status st;
  memset(&params, 0, sizeof params);
  params.load.dirs = p->dirs;
  params.load.dir_count = sizeof p->dirs / sizeof p->dirs[0];
  params.load.threads = 2; /* cpu_gemm runs its Win32 thread pool */
  params.load.ignore_env = 1;
  params.load.plugin_config = plugin_config;
  params.store = store;
  params.settings = &settings; /* no config in this build to default them */
  st = olc_host__open_params(out, &params, &err);
  if (st != OLC_OK)
    printf("olc_host__open_params: %s\n", err.message);
  return st;
}

/* The select path for both workloads into cal (count 2). */
static olc_status select_both(olc_calibration *cal, olc_host *h, int in_process_gemm) {
  static const char *const backends[2] = {"mock_det", "cpu_gemm"};
  olc_host_select_params sp;
  size_t i;
  olc_status st = OLC_OK;
  for (i = 0; i < 2 && st == OLC_OK; i++) {
    olc_workload_config w = workload(backends[i]);
    memset(&sp, 0, sizeof sp);
    sp.settings = &settings;
    /* mock_det as a config would have it (isolation, no worker on
     * Windows); cpu_gemm in-process as asked. */
    sp.in_process = i == 1 && in_process_gemm;
    st = olc_calibration__name(cal, &cal->results[i], w.name, w.backend, w.operator_name);
    if (st == OLC_OK)
      st = olc_host__calibrate_workload(cal, i, h, &w, &sp);
  }
  return st;
}

static const char *policy_text(const olc_record *r) {
  return r != NULL ? (const char *)r->policy : "(none)";
}

/* 1 when the len bytes at p contain text. */
static int contains(const unsigned char *p, size_t len, const char *text) {
  size_t n = strlen(text), i;
  for (i = 0; p != NULL && i + n <= len; i++)
    if (memcmp(p + i, text, n) == 0)
      return 1;
  return 0;
}

/* cpu_gemm's candidates that split the work over the instance's two
 * threads ran on its pool (sys_win32.c's threads, lock and condition). */
static void check_threaded(const olc_workload_result *r) {
  size_t i, split = 0;
  for (i = 0; i < r->candidate_count; i++) {
    const olc_candidate_result *c = &r->candidates[i];
    if (c->status == OLC_OK && c->samples > 0 &&
        (contains(c->policy, c->policy_len, "split=ic") ||
         contains(c->policy, c->policy_len, "split=jc")))
      split++;
  }
  CHECK(split > 0, "cpu_gemm: %u candidates measured on 2 threads (split=ic or jc)",
        (unsigned)split);
}

/* The first host: both measured, saved and selected. */
static void check_calibrated(const olc_calibration *cal, char winners[2][256]) {
  size_t i;
  for (i = 0; i < 2; i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    CHECK(r->status == OLC_OK && r->calibrated_now && r->selected != NULL &&
              r->selected->origin == OLC_ORIGIN_CALIBRATED,
          "%s: measured %u candidates, saved and selected \"%s\"%s%s", r->backend,
          (unsigned)r->candidate_count, policy_text(r->selected), r->message != NULL ? "; " : "",
          r->message != NULL ? r->message : "");
    snprintf(winners[i], sizeof winners[i], "%s", policy_text(r->selected));
  }
  /* mock_det's costs are known: spin_us=100 is the cheapest of 1000, 100,
   * 2000, 4000. */
  CHECK(strcmp(winners[0], "spin_us=100") == 0, "mock_det: the cheapest candidate won");
  CHECK(strncmp(winners[1], "v1 kernel=", 10) == 0, "cpu_gemm: a cpu_gemm policy won");
  check_threaded(olc_calibration_get(cal, 1));
}

/* The second host: both selected from the file, nothing measured. */
static void check_selected(const olc_calibration *cal, char winners[2][256]) {
  size_t i;
  for (i = 0; i < 2; i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    CHECK(r->status == OLC_OK && !r->calibrated_now && r->candidate_count == 0 &&
              r->selected != NULL && strcmp(policy_text(r->selected), winners[i]) == 0,
          "second host: %s selected \"%s\" from the store, nothing measured", r->backend,
          policy_text(r->selected));
  }
}

/* One host on its own store handle: open, select both, close. */
static olc_status run_host(const paths *p, int first, char winners[2][256]) {
  olc_store *store = NULL;
  olc_host *h = NULL;
  olc_calibration *cal = NULL;
  olc_status st = open_store(&store, p->store);
  if (st == OLC_OK)
    st = open_host(&h, store, p);
  if (st == OLC_OK && first)
    check_report(h);
  if (st == OLC_OK)
    st = olc_calibration__new(&cal, 2);
  if (st == OLC_OK)
    st = select_both(cal, h, first);
  if (st == OLC_OK && first)
    check_calibrated(cal, winners);
  else if (st == OLC_OK)
    check_selected(cal, winners);
  olc_calibration_free(cal);
  olc_host_free(h);
  olc_store_free(store);
  return st;
}

/* The file on disk: a valid version-1 file with the saved records. */
static void check_file(const paths *p) {
  char head[64] = "";
  size_t records = 0;
  olc_error err;
  FILE *f = _wfopen(wide(p->store), L"rb");
  olc_status st = olc_store_check_file(p->store, &records, &err);
  CHECK(st == OLC_OK && records >= 2, "%s: olc_store_check_file %s, %u records", p->store,
        st == OLC_OK ? "valid" : err.message, (unsigned)records);
  if (f != NULL) {
    if (fgets(head, sizeof head, f) == NULL)
      head[0] = 0;
    fclose(f);
  }
  CHECK(strcmp(head, "onnx_light_calibration_profiles 1\n") == 0,
        "first line \"onnx_light_calibration_profiles 1\"");
}

/* A runtime's workload with its model as bytes: bound, measured in this
 * process on the miss, saved and selected under "sha256:<bytes>#shape". */
static void check_model_bytes(const paths *p) {
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_select_options so = OLC_SELECT_OPTIONS_INIT;
  const olc_selection *sel = NULL;
  const olc_record *r = NULL;
  olc_binding *b = NULL;
  olc_store *store = NULL;
  olc_host *h = NULL;
  olc_error err;
  olc_status st = open_store(&store, p->bytes_store);
  if (st == OLC_OK)
    st = open_host(&h, store, p);
  w.backend = "mock_det", w.operator_name = "MatMul", w.name = "bytes";
  w.properties = shape, w.property_count = sizeof shape / sizeof shape[0];
  w.model_bytes = "abc", w.model_len = 3;
  so.mode = OLC_SELECT_ON_MISS, so.in_process = 1;
  if (st == OLC_OK)
    st = olc_host_bind(&b, h, &w, &err);
  if (st == OLC_OK)
    st = olc_binding_select(&sel, b, &so, &err);
  if (st == OLC_OK)
    r = olc_selection_record(sel);
  CHECK(st == OLC_OK && r != NULL &&
            strcmp(r->model_digest, SHA256_ABC "#dtype=float32;k=64;m=64;n=64") == 0,
        "model bytes \"abc\" bound and measured: %s",
        st != OLC_OK ? err.message
        : r != NULL  ? r->model_digest
                     : "(no record)");
  CHECK(sel != NULL && olc_selection_calibrated_now(sel), "measured on the miss, in this process");
  olc_binding_free(b);
  olc_host_free(h);
  olc_store_free(store);
}

int main(int argc, char **argv) {
  paths p;
  char winners[2][256] = {"", ""};
  if (argc != 4) {
    fprintf(stderr, "usage: win_host_smoke WORK MOCKS CPU_GEMM_DIR\n");
    return 2;
  }
  make_paths(&p, argv[1], argv[2], argv[3]);
  CHECK(make_junk_dir(&p), "plugin directory %s made", p.junk);
  CHECK(run_host(&p, 1, winners) == OLC_OK, "first host: loaded, calibrated, saved");
  CHECK(run_host(&p, 0, winners) == OLC_OK, "second host on the same file");
  check_file(&p);
  CHECK(sha256_check_vectors() == 0, "SHA-256 (BCrypt): the FIPS 180-2 examples");
  check_model_bytes(&p);
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
