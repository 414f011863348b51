/*
 * bench/store/bench_store.c - the calibration profile store against SQLite
 * (one indexed table, WAL, prepared statements), in the same run.
 *
 * For stores of 1k, 10k and 100k records it measures, interleaving the two
 * implementations round by round (A/B) and reporting medians:
 *   load      olc: read + parse + index the whole file (olc_store_reload);
 *             sqlite: open the database and read every row
 *             (load and lookup are timed in thread CPU time, saves in wall
 *             time; see bench_cpu_s, bench/common)
 *   lookup    a hit on an exact record, whose bucket holds other records
 *             that differ in two fields (no rejection list);
 *             olc with and without change detection (a stat per lookup);
 *             sqlite: the point query on the unique index
 *   lookup+rejections
 *             the same hit with all_candidates (every record of the backend
 *             and operator reported); sqlite: the point query plus a scan of
 *             the rows of that backend and operator
 *   save      one record replaced, durably (olc: lock, reload, merge,
 *             rewrite, fsync, rename; sqlite: INSERT OR REPLACE, WAL,
 *             synchronous=FULL)
 *   floor     the write protocol's floor: the store file's bytes (read
 *             before timing) written to a new sibling, fsync, close,
 *             rename over a file of the same size, directory fsync.  The
 *             three saves of a round run in a rotating order; the ratios
 *             olc / floor and sqlite / floor are taken per round and their
 *             medians reported (paired ratios)
 *
 * Usage: bench_store [--quick] [--json] [--dir DIR] [--sizes N,N,...]
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "olc/store.h"

#define BUCKETS 200
#define MAX_SIZES 8

typedef struct bench_cfg {
  int quick;
  int json;
  const char *dir;
  size_t sizes[MAX_SIZES];
  size_t nsizes;
} bench_cfg;

typedef struct result_row {
  size_t records;
  double file_mb;
  double load_olc, load_sql;
  double lookup_olc, lookup_olc_nocheck, lookup_sql;
  double rej_olc, rej_sql;
  size_t rej_count;
  double save_olc, save_sql, save_floor;
  double olc_over_floor, sql_over_floor; /* medians of paired ratios */
} result_row;

/* Record i: bucket i % BUCKETS; model and processor both vary with i, so
 * two records of one bucket differ in two fields (not candidates). */
typedef struct rec_text {
  char backend[32], op[32], model[80], proc[64], policy[160];
  int64_t threads;
} rec_text;

static void make_rec(rec_text *t, size_t i) {
  size_t b = i % BUCKETS, j = i / BUCKETS;
  snprintf(t->backend, sizeof t->backend, "backend_%zu", b % 4);
  snprintf(t->op, sizeof t->op, "Op%zu", b / 4);
  snprintf(t->model, sizeof t->model, "sha256:%016zx%016zx", j * 2654435761u, j);
  snprintf(t->proc, sizeof t->proc, "cpu-%zu l1=32K l2=1M l3=32M", j);
  t->threads = 8;
  snprintf(t->policy, sizeof t->policy, "mc=%zu kc=256 nc=4096 mr=6 nr=16 threads=8 kernel=avx2",
           64 + i % 512);
}

static olc_key rec_key(const rec_text *t) {
  olc_key k;
  memset(&k, 0, sizeof k);
  k.backend = t->backend;
  k.operator_name = t->op;
  k.implementation = "3";
  k.model_digest = t->model;
  k.processor = t->proc;
  k.thread_count = t->threads;
  return k;
}

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench_store: %s: %s\n", what, msg);
  exit(1);
}

static void join(char *out, size_t size, const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  if (a + b + 2 > size)
    die("path too long", dir);
  memcpy(out, dir, a);
  out[a] = '/';
  memcpy(out + a + 1, name, b + 1);
}

/* The keys looked up, computed before timing so that formatting them is
 * not measured.  Index i of a run uses keys[i % KEYS]. */
#define KEYS 4096
static rec_text *keys;

static void make_keys(size_t n) {
  size_t i;
  if (keys == NULL)
    keys = malloc(KEYS * sizeof *keys);
  if (keys == NULL)
    die("malloc", "out of memory");
  for (i = 0; i < KEYS; i++)
    make_rec(&keys[i], (i * 7919u) % n);
}

/* ---- olc side ---------------------------------------------------------- */

static int olc_select_all(const olc_record *r, void *payload) {
  (void)r;
  (void)payload;
  return 1;
}

static olc_store *olc_open_at(const char *path, int check) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = path;
  o.check_for_changes = check;
  o.max_file_size = (size_t)1 << 30;
  if (olc_store_open(&s, &o, &e) != OLC_OK)
    die("olc open", e.message);
  return s;
}

/* Builds the file with one import: writing 100k records one save at a time
 * would rewrite the file 100k times. */
static void olc_fill(const char *path, const char *dir, size_t n) {
  char tmp[4096];
  olc_store *s;
  olc_measurement m[2] = {{"median_latency", 0, "us"}, {"spread", 0, "%"}};
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  olc_error e;
  FILE *f;
  size_t i;
  rec_text t;
  join(tmp, sizeof tmp, dir, "import.txt");
  /* Write the import file directly in the version-1 format. */
  f = fopen(tmp, "wb");
  if (f == NULL)
    die("fopen", tmp);
  fprintf(f, "onnx_light_calibration_profiles 1\n");
  for (i = 0; i < n; i++) {
    make_rec(&t, i);
    fprintf(f,
            "profile exact calibrated\nbackend \"%s\"\noperator \"%s\"\nimplementation \"3\"\n"
            "model_digest \"%s\"\nprocessor \"%s\"\nthread_count %lld\n"
            "measurement \"median_latency\" %g \"us\"\nmeasurement \"spread\" 0.5 \"%%\"\n"
            "policy \"%s\"\nend\n",
            t.backend, t.op, t.model, t.proc, (long long)t.threads, 10.0 + (double)(i % 97),
            t.policy);
  }
  fclose(f);
  s = olc_open_at(path, 1);
  if (olc_store_remove_if(s, olc_select_all, NULL, NULL, &e) < 0)
    die("olc clear", e.message);
  if (olc_store_import_file(s, tmp, &i, &e) < 0)
    die("olc import", e.message);
  if (i != n)
    die("olc import", "short count");
  remove(tmp);
  /* One save through the API too, so the file is canonical. */
  make_rec(&t, 0);
  {
    olc_key k = rec_key(&t);
    r.key = &k;
    r.measurements = m;
    r.measurement_count = 2;
    r.policy = t.policy;
    r.policy_len = strlen(t.policy);
    if (olc_store_save(s, &r, &e) < 0)
      die("olc save", e.message);
  }
  olc_store_free(s);
}

static double olc_load(olc_store *s) {
  olc_error e;
  double t0 = bench_cpu_s();
  if (olc_store_reload(s, &e) != OLC_OK)
    die("olc reload", e.message);
  return bench_cpu_s() - t0;
}

static double olc_lookups(olc_store *s, size_t count, int all, size_t *rejected) {
  size_t i;
  double t0 = bench_cpu_s();
  for (i = 0; i < count; i++) {
    olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
    olc_lookup_result *res = NULL;
    olc_key k;
    olc_error e;
    k = rec_key(&keys[i % KEYS]);
    o.key = &k;
    o.all_candidates = all;
    if (olc_store_lookup(&res, s, &o, &e) != OLC_OK)
      die("olc lookup", e.message);
    if (rejected != NULL)
      *rejected = olc_lookup_result_rejected_count(res);
    olc_lookup_result_free(res);
  }
  return (bench_cpu_s() - t0) / (double)count;
}

static double olc_save_one(olc_store *s, size_t n, size_t round) {
  olc_measurement m[2] = {{"median_latency", 0, "us"}, {"spread", 0.5, "%"}};
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  olc_key k;
  rec_text t;
  olc_error e;
  double t0;
  make_rec(&t, (round * 104729u) % n);
  k = rec_key(&t);
  m[0].value = 1.0 + (double)round;
  r.key = &k;
  r.measurements = m;
  r.measurement_count = 2;
  r.policy = t.policy;
  r.policy_len = strlen(t.policy);
  t0 = bench_wall_s();
  if (olc_store_save(s, &r, &e) < 0)
    die("olc save", e.message);
  return bench_wall_s() - t0;
}

/* ---- sqlite side ------------------------------------------------------- */

static void sql_exec(sqlite3 *db, const char *q) {
  char *msg = NULL;
  if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK)
    die(q, msg ? msg : "?");
}

static sqlite3 *sql_open(const char *path) {
  sqlite3 *db = NULL;
  if (sqlite3_open(path, &db) != SQLITE_OK)
    die("sqlite open", sqlite3_errmsg(db));
  sql_exec(db, "PRAGMA journal_mode=WAL");
  sql_exec(db, "PRAGMA synchronous=FULL");
  return db;
}

static sqlite3_stmt *sql_prepare(sqlite3 *db, const char *q) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
    die(q, sqlite3_errmsg(db));
  return st;
}

static const char *SQL_PUT =
    "INSERT OR REPLACE INTO profiles(level, origin, backend, operator, implementation, "
    "model_digest, processor, thread_count, structure, measurements, policy) "
    "VALUES(0, 0, ?1, ?2, '3', ?3, ?4, ?5, '', ?6, ?7)";
static const char *SQL_GET =
    "SELECT level, origin, backend, operator, implementation, model_digest, processor, "
    "thread_count, structure, measurements, policy FROM profiles WHERE backend=?1 AND "
    "operator=?2 AND level=0 AND origin=0 AND implementation='3' AND model_digest=?3 AND "
    "processor=?4 AND thread_count=?5 AND structure=''";
static const char *SQL_BUCKET =
    "SELECT level, origin, backend, operator, implementation, model_digest, processor, "
    "thread_count, structure, measurements, policy FROM profiles WHERE backend=?1 AND "
    "operator=?2";

static void sql_bind_rec(sqlite3_stmt *st, const rec_text *t, double latency) {
  char meas[96];
  snprintf(meas, sizeof meas, "median_latency=%g us;spread=0.5 %%", latency);
  sqlite3_bind_text(st, 1, t->backend, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, t->op, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, t->model, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, t->proc, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 5, t->threads);
  sqlite3_bind_text(st, 6, meas, -1, SQLITE_TRANSIENT);
  sqlite3_bind_blob(st, 7, t->policy, (int)strlen(t->policy), SQLITE_TRANSIENT);
}

static void sql_fill(const char *path, size_t n) {
  sqlite3 *db;
  sqlite3_stmt *put;
  rec_text t;
  size_t i;
  char wal[4200], shm[4200];
  snprintf(wal, sizeof wal, "%s-wal", path);
  snprintf(shm, sizeof shm, "%s-shm", path);
  remove(path);
  remove(wal);
  remove(shm);
  db = sql_open(path);
  sql_exec(db, "CREATE TABLE profiles(level INTEGER, origin INTEGER, backend TEXT, operator "
               "TEXT, implementation TEXT, model_digest TEXT, processor TEXT, thread_count "
               "INTEGER, structure TEXT, measurements TEXT, policy BLOB)");
  sql_exec(db, "CREATE UNIQUE INDEX profiles_id ON profiles(backend, operator, level, origin, "
               "implementation, model_digest, processor, thread_count, structure)");
  sql_exec(db, "BEGIN");
  put = sql_prepare(db, SQL_PUT);
  for (i = 0; i < n; i++) {
    make_rec(&t, i);
    sql_bind_rec(put, &t, 10.0 + (double)(i % 97));
    if (sqlite3_step(put) != SQLITE_DONE)
      die("sqlite insert", sqlite3_errmsg(db));
    sqlite3_reset(put);
  }
  sqlite3_finalize(put);
  sql_exec(db, "COMMIT");
  sql_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db);
}

/* Reads every column of the current row, as a caller materializing the
 * record would. */
static size_t sql_read_row(sqlite3_stmt *st) {
  size_t bytes = 0;
  int c;
  for (c = 0; c < 11; c++) {
    const void *p = sqlite3_column_blob(st, c);
    bytes += (size_t)sqlite3_column_bytes(st, c) + (p != NULL);
  }
  return bytes;
}

static double sql_load(const char *path) {
  double t0 = bench_cpu_s();
  sqlite3 *db = sql_open(path);
  sqlite3_stmt *st = sql_prepare(db, "SELECT * FROM profiles");
  size_t bytes = 0;
  while (sqlite3_step(st) == SQLITE_ROW)
    bytes += sql_read_row(st);
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (bytes == 0)
    die("sqlite load", "empty");
  return bench_cpu_s() - t0;
}

static double sql_lookups(sqlite3 *db, sqlite3_stmt *get, sqlite3_stmt *bucket, size_t count) {
  size_t i;
  double t0 = bench_cpu_s();
  for (i = 0; i < count; i++) {
    const rec_text *tp = &keys[i % KEYS];
#define t (*tp)
    sqlite3_bind_text(get, 1, t.backend, -1, SQLITE_STATIC);
    sqlite3_bind_text(get, 2, t.op, -1, SQLITE_STATIC);
    sqlite3_bind_text(get, 3, t.model, -1, SQLITE_STATIC);
    sqlite3_bind_text(get, 4, t.proc, -1, SQLITE_STATIC);
    sqlite3_bind_int64(get, 5, t.threads);
    if (sqlite3_step(get) != SQLITE_ROW)
      die("sqlite lookup", sqlite3_errmsg(db));
    sql_read_row(get);
    sqlite3_reset(get);
    if (bucket != NULL) {
      sqlite3_bind_text(bucket, 1, t.backend, -1, SQLITE_STATIC);
      sqlite3_bind_text(bucket, 2, t.op, -1, SQLITE_STATIC);
      while (sqlite3_step(bucket) == SQLITE_ROW)
        sql_read_row(bucket);
      sqlite3_reset(bucket);
    }
#undef t
  }
  return (bench_cpu_s() - t0) / (double)count;
}

static double sql_save_one(sqlite3 *db, sqlite3_stmt *put, size_t n, size_t round) {
  rec_text t;
  double t0;
  make_rec(&t, (round * 104729u) % n);
  t0 = bench_wall_s();
  sql_bind_rec(put, &t, 1.0 + (double)round);
  if (sqlite3_step(put) != SQLITE_DONE)
    die("sqlite save", sqlite3_errmsg(db));
  sqlite3_reset(put);
  return bench_wall_s() - t0;
}

/* ---- the floor ---------------------------------------------------------- */

/* The file's bytes, read once before timing. */
static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *p;
  long n;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
    die("read", path);
  p = malloc((size_t)n + 1);
  if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n)
    die("read", path);
  fclose(f);
  *len = (size_t)n;
  return p;
}

/* What the .rst's protocol cannot do without: write the bytes to a new
 * sibling, fsync it, close, rename it over the target, fsync the
 * directory.  No lock, no reload, no merge, no serialization. */
static double floor_save(const char *dir, const char *target, const unsigned char *bytes,
                         size_t len) {
  char tmp[4200];
  double t0;
  size_t off = 0;
  int fd, dfd;
  snprintf(tmp, sizeof tmp, "%s.floor.tmp", target);
  t0 = bench_wall_s();
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    die("floor open", tmp);
  while (off < len) {
    ssize_t w = write(fd, bytes + off, len - off);
    if (w <= 0)
      die("floor write", tmp);
    off += (size_t)w;
  }
  if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, target) != 0)
    die("floor sync/close/rename", tmp);
  dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || fsync(dfd) != 0 || close(dfd) != 0)
    die("floor dir fsync", dir);
  return bench_wall_s() - t0;
}

/* ---- driver ------------------------------------------------------------ */

static void run_size(const bench_cfg *cfg, size_t n, result_row *row) {
  char opath[4096], spath[4096];
  size_t rounds = cfg->quick ? 3 : (n >= 100000 ? 5 : 9), lookups = cfg->quick ? 2000 : 20000, r;
  size_t save_rounds = cfg->quick ? 3 : (n >= 100000 ? 5 : 11);
  double *v[12];
  olc_store *s, *snc;
  unsigned char *floor_bytes;
  size_t floor_len;
  char fpath[4096];
  sqlite3 *db;
  sqlite3_stmt *get, *bucket, *put;
  struct stat st;
  int i;
  for (i = 0; i < 12; i++) {
    v[i] = calloc(rounds > save_rounds ? rounds : save_rounds, sizeof(double));
    if (v[i] == NULL)
      die("calloc", "out of memory");
  }
  char name[64];
  snprintf(name, sizeof name, "olc-%zu.txt", n);
  join(opath, sizeof opath, cfg->dir, name);
  snprintf(name, sizeof name, "sqlite-%zu.db", n);
  join(spath, sizeof spath, cfg->dir, name);
  olc_fill(opath, cfg->dir, n);
  sql_fill(spath, n);
  if (stat(opath, &st) != 0)
    die("stat", opath);
  row->records = n;
  row->file_mb = (double)st.st_size / 1e6;
  /* The floor's target: a file of the same size, replaced at each round. */
  floor_bytes = slurp(opath, &floor_len);
  snprintf(name, sizeof name, "floor-%zu.txt", n);
  join(fpath, sizeof fpath, cfg->dir, name);
  (void)floor_save(cfg->dir, fpath, floor_bytes, floor_len);

  s = olc_open_at(opath, 1);
  snc = olc_open_at(opath, 0);
  db = sql_open(spath);
  get = sql_prepare(db, SQL_GET);
  bucket = sql_prepare(db, SQL_BUCKET);
  put = sql_prepare(db, SQL_PUT);
  /* Warm-up: one pass of each. */
  make_keys(n);
  olc_lookups(s, KEYS, 0, NULL);
  olc_lookups(snc, KEYS, 0, NULL);
  sql_lookups(db, get, NULL, KEYS);
  for (r = 0; r < rounds; r++) {
    /* Interleaved A/B: each round runs both, alternating who goes first. */
    if (r % 2 == 0) {
      v[0][r] = olc_load(s);
      v[1][r] = sql_load(spath);
    } else {
      v[1][r] = sql_load(spath);
      v[0][r] = olc_load(s);
    }
    /* The reload gave s a new snapshot whose candidate index is built by
     * its first lookup (about 26 ms at 100k records): build it untimed, as
     * the warm-up did for both handles, so both measure steady state. */
    olc_lookups(s, KEYS, 0, NULL);
    v[2][r] = olc_lookups(s, lookups, 0, NULL);
    v[3][r] = olc_lookups(snc, lookups, 0, NULL);
    v[4][r] = sql_lookups(db, get, NULL, lookups);
    v[5][r] = olc_lookups(snc, lookups / 10 + 1, 1, &row->rej_count);
    v[6][r] = sql_lookups(db, get, bucket, lookups / 10 + 1);
  }
  /* One untimed save of each first: olc's first save after a load parses
   * the file under the lock (the snapshot came from a read, which records
   * no P.lock generation); the timed ones are steady state. */
  (void)olc_save_one(s, n, save_rounds);
  (void)sql_save_one(db, put, n, save_rounds);
  for (r = 0; r < save_rounds; r++) {
    /* Rotating order: olc, floor, sqlite; floor, sqlite, olc; ... */
    int k;
    for (k = 0; k < 3; k++) {
      switch ((r + (size_t)k) % 3) {
      case 0:
        v[7][r] = olc_save_one(s, n, r);
        break;
      case 1:
        v[9][r] = floor_save(cfg->dir, fpath, floor_bytes, floor_len);
        break;
      default:
        v[8][r] = sql_save_one(db, put, n, r);
        break;
      }
    }
    v[10][r] = v[7][r] / v[9][r];
    v[11][r] = v[8][r] / v[9][r];
  }
  row->load_olc = bench_median(v[0], rounds);
  row->load_sql = bench_median(v[1], rounds);
  row->lookup_olc = bench_median(v[2], rounds);
  row->lookup_olc_nocheck = bench_median(v[3], rounds);
  row->lookup_sql = bench_median(v[4], rounds);
  row->rej_olc = bench_median(v[5], rounds);
  row->rej_sql = bench_median(v[6], rounds);
  row->save_olc = bench_median(v[7], save_rounds);
  row->save_sql = bench_median(v[8], save_rounds);
  row->save_floor = bench_median(v[9], save_rounds);
  row->olc_over_floor = bench_median(v[10], save_rounds);
  row->sql_over_floor = bench_median(v[11], save_rounds);
  free(floor_bytes);
  sqlite3_finalize(get);
  sqlite3_finalize(bucket);
  sqlite3_finalize(put);
  sqlite3_close(db);
  olc_store_free(s);
  olc_store_free(snc);
  for (i = 0; i < 12; i++)
    free(v[i]);
}

static void print_text(const result_row *rows, size_t n) {
  size_t i;
  printf("store benchmark: olc %s vs SQLite %s (WAL, synchronous=FULL, prepared statements)\n",
         olc_version(), sqlite3_libversion());
  printf("medians; load and lookup in thread CPU time, save in wall time;\n"
         "ratio = sqlite time / olc time (> 1: olc faster)\n\n");
  for (i = 0; i < n; i++) {
    const result_row *r = &rows[i];
    printf("%zu records (%.1f MB file, %zu per backend+operator)\n", r->records, r->file_mb,
           r->records / BUCKETS);
    printf("  load                 olc %10.3f ms (%6.0f MB/s)  sqlite %10.3f ms  ratio %6.2f\n",
           r->load_olc * 1e3, r->file_mb / r->load_olc, r->load_sql * 1e3,
           r->load_sql / r->load_olc);
    printf("  lookup hit           olc %10.3f us               sqlite %10.3f us  ratio %6.2f\n",
           r->lookup_olc * 1e6, r->lookup_sql * 1e6, r->lookup_sql / r->lookup_olc);
    printf("  lookup hit, no stat  olc %10.3f us               sqlite %10.3f us  ratio %6.2f\n",
           r->lookup_olc_nocheck * 1e6, r->lookup_sql * 1e6, r->lookup_sql / r->lookup_olc_nocheck);
    printf("  lookup + %4zu rej.   olc %10.3f us               sqlite %10.3f us  ratio %6.2f\n",
           r->rej_count, r->rej_olc * 1e6, r->rej_sql * 1e6, r->rej_sql / r->rej_olc);
    printf("  save (durable)       olc %10.3f ms               sqlite %10.3f ms  ratio %6.2f\n",
           r->save_olc * 1e3, r->save_sql * 1e3, r->save_sql / r->save_olc);
    printf("  save floor           %10.3f ms (write+fsync+rename+dir fsync, %.1f MB)\n",
           r->save_floor * 1e3, r->file_mb);
    printf("  save / floor (paired medians)  olc %6.2fx   sqlite %6.2fx\n\n", r->olc_over_floor,
           r->sql_over_floor);
  }
}

static void print_json(const result_row *rows, size_t n) {
  size_t i;
  printf("{\"olc\": \"%s\", \"sqlite\": \"%s\", \"unit\": \"seconds (median; load, lookup: thread "
         "cpu; save: wall)\", \"sizes\": [",
         olc_version(), sqlite3_libversion());
  for (i = 0; i < n; i++) {
    const result_row *r = &rows[i];
    printf("%s\n {\"records\": %zu, \"file_mb\": %.3f, "
           "\"load\": {\"olc\": %.9f, \"sqlite\": %.9f, \"olc_mb_per_s\": %.1f}, "
           "\"lookup\": {\"olc\": %.9f, \"olc_no_change_check\": %.9f, \"sqlite\": %.9f}, "
           "\"lookup_rejections\": {\"rejected\": %zu, \"olc\": %.9f, \"sqlite\": %.9f}, "
           "\"save\": {\"olc\": %.9f, \"sqlite\": %.9f, \"floor\": %.9f, "
           "\"olc_over_floor\": %.3f, \"sqlite_over_floor\": %.3f}}",
           i ? "," : "", r->records, r->file_mb, r->load_olc, r->load_sql, r->file_mb / r->load_olc,
           r->lookup_olc, r->lookup_olc_nocheck, r->lookup_sql, r->rej_count, r->rej_olc,
           r->rej_sql, r->save_olc, r->save_sql, r->save_floor, r->olc_over_floor,
           r->sql_over_floor);
  }
  printf("\n]}\n");
}

/* Removes what run_size created (and any leftover temporary). */
static void cleanup(const char *dir, size_t n) {
  static const char *const suffixes[] = {"", ".lock", "-wal", "-shm"};
  char floor_name[64];
  char name[64], full[4200];
  size_t i;
  for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    snprintf(name, sizeof name, "olc-%zu.txt%s", n, suffixes[i]);
    join(full, sizeof full, dir, name);
    remove(full);
    snprintf(name, sizeof name, "sqlite-%zu.db%s", n, suffixes[i]);
    join(full, sizeof full, dir, name);
    remove(full);
  }
  snprintf(floor_name, sizeof floor_name, "floor-%zu.txt", n);
  join(full, sizeof full, dir, floor_name);
  remove(full);
}

static int parse_args(bench_cfg *cfg, int argc, char **argv) {
  int i;
  cfg->dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
  cfg->nsizes = 3;
  cfg->sizes[0] = 1000;
  cfg->sizes[1] = 10000;
  cfg->sizes[2] = 100000;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      cfg->quick = 1;
    } else if (strcmp(argv[i], "--json") == 0) {
      cfg->json = 1;
    } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      cfg->dir = argv[++i];
    } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      char *p = argv[++i];
      cfg->nsizes = 0;
      while (*p != 0 && cfg->nsizes < MAX_SIZES) {
        cfg->sizes[cfg->nsizes++] = (size_t)strtoul(p, &p, 10);
        if (*p == ',')
          p++;
        else if (*p != 0)
          return -1;
      }
    } else {
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  bench_cfg cfg;
  result_row rows[MAX_SIZES];
  char dir[4096];
  size_t i;
  memset(&cfg, 0, sizeof cfg);
  memset(rows, 0, sizeof rows);
  if (parse_args(&cfg, argc, argv) != 0) {
    fprintf(stderr, "usage: bench_store [--quick] [--json] [--dir DIR] [--sizes N,N,...]\n");
    return 2;
  }
  if (cfg.quick && cfg.nsizes == 3)
    cfg.nsizes = 2; /* 1k and 10k */
  snprintf(dir, sizeof dir, "%s/olc-bench-store-XXXXXX", cfg.dir);
  if (mkdtemp(dir) == NULL)
    die("mkdtemp", dir);
  cfg.dir = dir;
  for (i = 0; i < cfg.nsizes; i++) {
    if (cfg.sizes[i] < BUCKETS)
      cfg.sizes[i] = BUCKETS;
    run_size(&cfg, cfg.sizes[i], &rows[i]);
  }
  if (cfg.json)
    print_json(rows, cfg.nsizes);
  else
    print_text(rows, cfg.nsizes);
  for (i = 0; i < cfg.nsizes; i++)
    cleanup(dir, cfg.sizes[i]);
  if (rmdir(dir) != 0)
    fprintf(stderr, "bench_store: could not remove %s\n", dir);
  return 0;
}
