/*
 * tests/store/test_store_layers.c - read-only layers beneath the store's
 * file (olc_store_options.layers): precedence within a level and across
 * levels, the source of every selected and rejected record, saves that
 * keep layer records out of the store's file and never touch a layer,
 * globs in byte order, every kind of bad layer as a diagnostic, a layer
 * that turns malformed keeping its last good records, and no layer read
 * with persistence off.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/persist.h"
#include "store/store_int.h"
#include "test_store_util.h"

static char *dir;

static int setup(void) {
  dir = olc_test_tmpdir("layers");
  return dir == NULL;
}

static int teardown(void) {
  olc_test_rmtree(dir);
  free(dir);
  return 0;
}

/* Every diagnostic, one per line. */
typedef struct diags {
  char text[8192];
  int count;
} diags;

static void on_diag(void *payload, olc_diag_level level, const char *where, const char *message) {
  diags *d = payload;
  size_t n = strlen(d->text);
  (void)level;
  snprintf(d->text + n, sizeof d->text - n, "%s: %s\n", where, message);
  d->count++;
}

/* A fresh subdirectory of the test's directory. */
static char *subdir(const char *name) {
  char *p = olc_test_path(dir, name);
  olc_test_rmtree(p);
  CU_ASSERT_EQUAL(mkdir(p, 0700), 0);
  return p;
}

/* Writes a store file at path holding key k with policy at levels. */
static void make_layer(const char *path, const olc_key *k, const char *policy, unsigned levels,
                       int override_) {
  olc_store *s = tsu_open_file(path, 0);
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_STATUS(OLC_OK, tsu_put(s, k, policy, levels, override_, &e), &e);
  olc_store_free(s);
}

static olc_store *open_layered(const char *path, const char *const *layers, size_t n, diags *d,
                               int persist) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = path;
  o.persistence_enabled = persist;
  o.tmp_grace_seconds = 0;
  o.layers = layers;
  o.layer_count = n;
  o.diag = on_diag;
  o.diag_payload = d;
  OLC_ASSERT_STATUS(OLC_OK, olc_store_open(&s, &o, &e), &e);
  return s;
}

static olc_lookup_result *lookup(olc_store *s, const olc_key *k) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  o.key = k;
  (void)olc_store_lookup(&res, s, &o, &e);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  return res;
}

static const char *selected_source(const olc_lookup_result *res) {
  const olc_record *r = olc_lookup_result_selected(res);
  return r != NULL && r->source != NULL ? r->source : "";
}

static void test_precedence_and_source(void) {
  char *d = subdir("prec");
  char *user = olc_test_path(d, "user.txt"), *a = olc_test_path(d, "a.txt"),
       *b = olc_test_path(d, "b.txt");
  const char *layers[2];
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4);
  olc_lookup_result *res;
  const olc_rejection *rj;
  diags dg = {{0}, 0};
  olc_store *s;
  olc_error e;
  layers[0] = a;
  layers[1] = b;
  make_layer(a, &k, "from-a", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(b, &k, "from-b", OLC_LEVEL_BIT_EXACT, 0);
  s = open_layered(user, layers, 2, &dg, 1);
  CU_ASSERT_EQUAL(dg.count, 0);
  /* No record of the user's: the first layer wins, the second is shadowed. */
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "from-a");
  CU_ASSERT_STRING_EQUAL(selected_source(res), a);
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->from_layer, 1);
  rj = tsu_find_rejection(res, OLC_REASON_SHADOWED);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rj);
  CU_ASSERT_STRING_EQUAL(rj->record->source, b);
  CU_ASSERT_PTR_NOT_NULL(strstr(rj->message, a));
  olc_lookup_result_free(res);
  /* The user's record of the same identity wins over both layers. */
  OLC_ASSERT_STATUS(OLC_OK, tsu_put(s, &k, "mine", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "mine");
  CU_ASSERT_STRING_EQUAL(selected_source(res), olc_store_path(s));
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->from_layer, 0);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 2);
  olc_lookup_result_free(res);
  olc_store_free(s);
  /* The four levels stay: a layer's portable override beats the user's
   * exact calibrated record. */
  make_layer(b, &k, "b-portable-override", OLC_LEVEL_BIT_PORTABLE, 1);
  s = open_layered(user, layers, 2, &dg, 1);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "b-portable-override");
  CU_ASSERT_STRING_EQUAL(selected_source(res), b);
  rj = tsu_find_rejection(res, OLC_REASON_SHADOWED);
  CU_ASSERT_PTR_NOT_NULL(rj);
  olc_lookup_result_free(res);
  olc_store_free(s);
  free(user);
  free(a);
  free(b);
  free(d);
}

static void test_save_keeps_layers_out(void) {
  char *d = subdir("save");
  char *user = olc_test_path(d, "user.txt"), *a = olc_test_path(d, "a.txt");
  const char *layers[1];
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4), k2 = tsu_key("1.0", "m2", "cpu-x", 4);
  unsigned char *before, *after, *mine;
  size_t blen, alen, mlen;
  olc_record_list *list;
  diags dg = {{0}, 0};
  olc_store *s;
  olc_error e;
  size_t i, from_layer = 0;
  layers[0] = a;
  make_layer(a, &k, "layer-policy", OLC_LEVELS_DEFAULT, 0);
  before = olc_test_read_file(a, &blen);
  s = open_layered(user, layers, 1, &dg, 1);
  OLC_ASSERT_STATUS(OLC_OK, tsu_put(s, &k2, "mine", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_STATUS(OLC_OK, tsu_put(s, &k2, "mine-override", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  mine = olc_test_read_file(user, &mlen);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
  CU_ASSERT_FALSE(olc_test_contains((const char *)mine, mlen, "layer-policy"));
  CU_ASSERT_TRUE(olc_test_contains((const char *)mine, mlen, "mine-override"));
  after = olc_test_read_file(a, &alen);
  CU_ASSERT_TRUE_FATAL(before != NULL && after != NULL);
  CU_ASSERT_TRUE(blen == alen && memcmp(before, after, blen) == 0);
  /* The list shows both files' records, each with its source. */
  OLC_ASSERT_STATUS(OLC_OK, olc_store_list(&list, s, &e), &e);
  CU_ASSERT_EQUAL(olc_record_list_count(list), 5);
  for (i = 0; i < olc_record_list_count(list); i++) {
    const olc_record *r = olc_record_list_get(list, i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->source);
    CU_ASSERT_STRING_EQUAL(r->source, r->from_layer ? a : olc_store_path(s));
    from_layer += (size_t)r->from_layer;
  }
  CU_ASSERT_EQUAL(from_layer, 2);
  olc_record_list_free(list);
  olc_store_free(s);
  free(before);
  free(after);
  free(mine);
  free(user);
  free(a);
  free(d);
}

/* OLC_STORE_LAYERS through olc_store_options_from_env: layers_list, in
 * its order (blank space and empty items skipped), replaces the layers
 * option; unset, the option's layers stay. */
static void test_env_layers_list(void) {
  char *d = subdir("envlist");
  char *user = olc_test_path(d, "user.txt"), *a = olc_test_path(d, "a.txt"),
       *b = olc_test_path(d, "b.txt"), *c = olc_test_path(d, "c.txt");
  char list[4096];
  const char *layers[1];
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4);
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_lookup_result *res;
  diags dg = {{0}, 0};
  olc_store *s = NULL;
  olc_error e;
  make_layer(a, &k, "from-a", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(b, &k, "from-b", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(c, &k, "from-c", OLC_LEVEL_BIT_EXACT, 0);
  layers[0] = c;
  snprintf(list, sizeof list, " %s , ,%s:", b, a);
  CU_ASSERT_EQUAL_FATAL(setenv("OLC_STORE_LAYERS", list, 1), 0);
  o.path = user;
  o.layers = layers;
  o.layer_count = 1;
  o.diag = on_diag;
  o.diag_payload = &dg;
  OLC_ASSERT_OK(olc_store_options_from_env(&o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o.layers_list);
  CU_ASSERT_STRING_EQUAL(o.layers_list, list);
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "from-b"); /* b is listed first */
  CU_ASSERT_STRING_EQUAL(selected_source(res), b);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 1); /* a; c is not read */
  olc_lookup_result_free(res);
  olc_store_free(s);
  CU_ASSERT_EQUAL(dg.count, 0);
  /* Unset: the option's own layer. */
  unsetenv("OLC_STORE_LAYERS");
  o.layers_list = NULL;
  OLC_ASSERT_OK(olc_store_options_from_env(&o, &e), &e);
  CU_ASSERT_PTR_NULL(o.layers_list);
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "from-c");
  olc_lookup_result_free(res);
  olc_store_free(s);
  free(user);
  free(a);
  free(b);
  free(c);
  free(d);
}

static void test_glob_byte_order(void) {
  char *d = subdir("glob"), *ld = subdir("glob/profiles.d");
  char *user = olc_test_path(d, "user.txt"), *pat = olc_test_path(ld, "*.txt");
  char *pb = olc_test_path(ld, "b.txt"), *pa = olc_test_path(ld, "B.txt"),
       *pc = olc_test_path(ld, "c.dat"), *ph = olc_test_path(ld, ".h.txt");
  const char *layers[1];
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4);
  olc_lookup_result *res;
  diags dg = {{0}, 0};
  olc_store *s;
  layers[0] = pat;
  make_layer(pb, &k, "lower-b", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(pa, &k, "upper-B", OLC_LEVEL_BIT_EXACT, 0); /* 'B' < 'b' in byte order */
  make_layer(pc, &k, "not-txt", OLC_LEVEL_BIT_EXACT, 1);
  make_layer(ph, &k, "hidden", OLC_LEVEL_BIT_EXACT, 1);
  s = open_layered(user, layers, 1, &dg, 1);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "upper-B");
  CU_ASSERT_STRING_EQUAL(selected_source(res), pa);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 1);
  olc_lookup_result_free(res);
  olc_store_free(s);
  CU_ASSERT_EQUAL(dg.count, 0);
  free(user);
  free(pat);
  free(pa);
  free(pb);
  free(pc);
  free(ph);
  free(ld);
  free(d);
}

static void test_bad_layers_are_diagnostics(void) {
  char *d = subdir("bad"), *empty = subdir("bad/empty.d");
  char *user = olc_test_path(d, "user.txt"), *missing = olc_test_path(d, "missing.txt"),
       *nomatch = olc_test_path(empty, "*.txt"), *fifo = olc_test_path(d, "fifo"),
       *big = olc_test_path(d, "big.txt"), *bad = olc_test_path(d, "bad.txt"),
       *good = olc_test_path(d, "good.txt"), *nodir = olc_test_path(d, "nodir/*.txt");
  const char *layers[8];
  static const char garbage[] = "onnx_light_calibration_profiles 1\nprofile exact nonsense\n";
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4);
  olc_lookup_result *res;
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  diags dg = {{0}, 0};
  olc_store *s = NULL;
  olc_error e;
  char want[600];
  layers[0] = missing;
  layers[1] = nomatch;
  layers[2] = empty;
  layers[3] = fifo;
  layers[4] = big;
  layers[5] = bad;
  layers[6] = nodir;
  layers[7] = good;
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  make_layer(big, &k, "big-big-big-big-big-big-big-big-big-big-big-big-big-big", OLC_LEVELS_DEFAULT,
             0);
  make_layer(good, &k, "good", OLC_LEVEL_BIT_EXACT, 0);
  CU_ASSERT_EQUAL(olc_test_write_file(bad, garbage, sizeof garbage - 1), 0);
  o.path = user;
  o.layers = layers;
  o.layer_count = 8;
  o.diag = on_diag;
  o.diag_payload = &dg;
  o.max_file_size = 300; /* the big layer is over it, the good one is not */
  OLC_ASSERT_STATUS(OLC_OK, olc_store_open(&s, &o, &e), &e);
  CU_ASSERT_EQUAL(dg.count, 7);
  snprintf(want, sizeof want, "layers: layer '%s' does not exist; skipped", missing);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  snprintf(want, sizeof want, "layer '%s' matches no file", nomatch);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  snprintf(want, sizeof want, "layer '%s' is a directory", empty);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  snprintf(want, sizeof want, "layer '%s' is a FIFO", fifo);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  snprintf(want, sizeof want, "layer '%s': '%s' is larger than", big, big);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  snprintf(want, sizeof want, "%s:2:15: ", bad);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  snprintf(want, sizeof want, "layer '%s': its directory does not exist", nodir);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, want));
  if (CU_get_number_of_failures() > 0)
    fprintf(stderr, "%s", dg.text);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "good");
  olc_lookup_result_free(res);
  olc_store_free(s);
  /* Never rewritten. */
  {
    size_t n;
    unsigned char *now = olc_test_read_file(bad, &n);
    CU_ASSERT_TRUE(now != NULL && n == sizeof garbage - 1 && memcmp(now, garbage, n) == 0);
    free(now);
  }
  free(user);
  free(missing);
  free(nomatch);
  free(fifo);
  free(big);
  free(bad);
  free(good);
  free(nodir);
  free(empty);
  free(d);
}

static void test_malformed_later_keeps_last_good(void) {
  char *d = subdir("later");
  char *user = olc_test_path(d, "user.txt"), *a = olc_test_path(d, "a.txt");
  static const char garbage[] = "onnx_light_calibration_profiles 1\nnot a record at all\n";
  const char *layers[1];
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4);
  olc_key k2 = tsu_key("1.0", "m2", "cpu-x", 4);
  olc_lookup_result *res;
  diags dg = {{0}, 0};
  olc_store *s;
  layers[0] = a;
  make_layer(a, &k, "v1", OLC_LEVEL_BIT_EXACT, 0);
  s = open_layered(user, layers, 1, &dg, 1);
  res = lookup(s, &k);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "v1");
  olc_lookup_result_free(res);
  /* A new version of the layer is seen at the next lookup. */
  make_layer(a, &k2, "v2", OLC_LEVEL_BIT_EXACT, 0);
  res = lookup(s, &k2);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "v2");
  olc_lookup_result_free(res);
  CU_ASSERT_EQUAL(dg.count, 0);
  /* Replaced by garbage: said once, and the last good records stay. */
  CU_ASSERT_EQUAL(olc_test_write_file(a, garbage, sizeof garbage - 1), 0);
  res = lookup(s, &k2);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "v2");
  olc_lookup_result_free(res);
  res = lookup(s, &k2);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "v2");
  olc_lookup_result_free(res);
  CU_ASSERT_EQUAL(dg.count, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, "its last good records kept"));
  CU_ASSERT_PTR_NOT_NULL(strstr(dg.text, a));
  olc_store_free(s);
  free(user);
  free(a);
  free(d);
}

/* A relative layer path (a file, a glob, one through "..") is made
 * absolute at open: after a chdir the store still reads the files it
 * opened, never the same relative names elsewhere. */
static void test_relative_layers_keep_their_files(void) {
  char *d = subdir("rel"), *here = subdir("rel/here"), *there = subdir("rel/there");
  char *hg = subdir("rel/here/g"), *tg = subdir("rel/there/g");
  char *user = olc_test_path(d, "user.txt"), *hp = olc_test_path(here, "p.txt"),
       *tp = olc_test_path(there, "p.txt"), *hq = olc_test_path(hg, "q.txt"),
       *tq = olc_test_path(tg, "q.txt");
  const char *layers[3] = {"p.txt", "g/*.txt", "../here/p.txt"};
  olc_key k1 = tsu_key("1.0", "m1", "cpu-x", 4), k2 = tsu_key("1.0", "m2", "cpu-x", 4);
  char cwd[4096], want[4096], *real = NULL;
  olc_lookup_result *res;
  diags dg = {{0}, 0};
  olc_store *s;
  CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
  make_layer(hp, &k1, "here-p", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(tp, &k1, "there-p", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(hq, &k2, "here-q", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(tq, &k2, "there-q", OLC_LEVEL_BIT_EXACT, 0);
  CU_ASSERT_EQUAL_FATAL(chdir(here), 0);
  s = open_layered(user, layers, 3, &dg, 1);
  CU_ASSERT_EQUAL(dg.count, 0);
  real = realpath(here, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(real);
  snprintf(want, sizeof want, "%s/p.txt", real);
  res = lookup(s, &k1);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "here-p");
  CU_ASSERT_STRING_EQUAL(selected_source(res), want);
  olc_lookup_result_free(res);
  /* Elsewhere, with files of the same relative names: the same records. */
  CU_ASSERT_EQUAL_FATAL(chdir(there), 0);
  res = lookup(s, &k1);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "here-p");
  CU_ASSERT_STRING_EQUAL(selected_source(res), want);
  olc_lookup_result_free(res);
  res = lookup(s, &k2);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "here-q");
  olc_lookup_result_free(res);
  /* A change to the layer it opened is still seen. */
  make_layer(hq, &k2, "here-q2", OLC_LEVEL_BIT_EXACT, 0);
  res = lookup(s, &k2);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "here-q2");
  olc_lookup_result_free(res);
  CU_ASSERT_EQUAL(dg.count, 0);
  olc_store_free(s);
  /* No working directory to make it absolute against: open fails and
   * says which layer and why. */
  {
    char *gone = subdir("rel/gone");
    olc_store_options o = OLC_STORE_OPTIONS_INIT;
    olc_error e;
    s = NULL;
    CU_ASSERT_EQUAL_FATAL(chdir(gone), 0);
    CU_ASSERT_EQUAL_FATAL(rmdir(gone), 0);
    o.path = user;
    o.layers = layers;
    o.layer_count = 1;
    o.diag = on_diag;
    o.diag_payload = &dg;
    CU_ASSERT_EQUAL(olc_store_open(&s, &o, &e), OLC_E_IO);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "layer 'p.txt': cannot make the path absolute"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "current directory"));
    olc_store_free(s);
    free(gone);
  }
  CU_ASSERT_EQUAL(chdir(cwd), 0);
  free(real);
  free(user);
  free(hp);
  free(tp);
  free(hq);
  free(tq);
  free(hg);
  free(tg);
  free(here);
  free(there);
  free(d);
}

/* Made absolute, not resolved: a relative layer that is a symlink is
 * still read through the link when it is swapped later, and ".." after a
 * chdir through a symlinked directory means what the kernel made of it at
 * open (the real directory's parent, not the link's). */
static void test_relative_layers_links(void) {
  char *d = subdir("links"), *real = subdir("links/real"), *far = subdir("links/far");
  char *user = olc_test_path(d, "user.txt"), *v1 = olc_test_path(real, "v1.txt"),
       *v2 = olc_test_path(real, "v2.txt"), *cur = olc_test_path(real, "cur.txt"),
       *up = olc_test_path(d, "up.txt"), *farup = olc_test_path(far, "up.txt"),
       *via = olc_test_path(far, "via");
  const char *layers[2] = {"cur.txt", "../up.txt"};
  olc_key k1 = tsu_key("1.0", "m1", "cpu-x", 4), k2 = tsu_key("1.0", "m2", "cpu-x", 4);
  char cwd[4096];
  olc_lookup_result *res;
  diags dg = {{0}, 0};
  olc_store *s;
  CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
  make_layer(v1, &k1, "v1", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(v2, &k1, "v2", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(up, &k2, "real-parent", OLC_LEVEL_BIT_EXACT, 0);
  make_layer(farup, &k2, "link-parent", OLC_LEVEL_BIT_EXACT, 0);
  CU_ASSERT_EQUAL_FATAL(symlink("v1.txt", cur), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(real, via), 0); /* far/via -> real */
  CU_ASSERT_EQUAL_FATAL(chdir(via), 0);
  s = open_layered(user, layers, 2, &dg, 1);
  CU_ASSERT_EQUAL(dg.count, 0);
  CU_ASSERT_EQUAL_FATAL(chdir(cwd), 0);
  res = lookup(s, &k1);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "v1");
  olc_lookup_result_free(res);
  res = lookup(s, &k2);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "real-parent");
  olc_lookup_result_free(res);
  /* The link swapped (a new file renamed over it). */
  {
    char *tmp = olc_test_path(real, "cur.tmp");
    CU_ASSERT_EQUAL(symlink("v2.txt", tmp), 0);
    CU_ASSERT_EQUAL(rename(tmp, cur), 0);
    free(tmp);
  }
  res = lookup(s, &k1);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "v2");
  olc_lookup_result_free(res);
  olc_store_free(s);
  free(user);
  free(v1);
  free(v2);
  free(cur);
  free(up);
  free(farup);
  free(via);
  free(far);
  free(real);
  free(d);
}

static void test_persistence_off_reads_no_layer(void) {
  char *d = subdir("off");
  char *a = olc_test_path(d, "a.txt");
  const char *layers[1];
  olc_key k = tsu_key("1.0", "m1", "cpu-x", 4);
  olc_lookup_result *res;
  diags dg = {{0}, 0};
  olc_store *s;
  uint64_t calls;
  layers[0] = a;
  make_layer(a, &k, "layer", OLC_LEVEL_BIT_EXACT, 0);
  calls = olc_persist__call_count();
  s = open_layered(NULL, layers, 1, &dg, 0);
  res = lookup(s, &k);
  CU_ASSERT_PTR_NULL(olc_lookup_result_selected(res));
  olc_lookup_result_free(res);
  olc_store_free(s);
  CU_ASSERT_EQUAL(olc_persist__call_count(), calls);
  CU_ASSERT_EQUAL(dg.count, 0);
  free(a);
  free(d);
}

static void test_glob_match(void) {
  CU_ASSERT_TRUE(olc_persist__glob_match("*.txt", "a.txt"));
  CU_ASSERT_TRUE(olc_persist__glob_match("*", "x"));
  CU_ASSERT_TRUE(olc_persist__glob_match("a*b*c", "aXbYbZc"));
  CU_ASSERT_FALSE(olc_persist__glob_match("*.txt", "a.txt.bak"));
  CU_ASSERT_FALSE(olc_persist__glob_match("*.txt", ".a.txt"));
  CU_ASSERT_TRUE(olc_persist__glob_match(".*.txt", ".a.txt"));
  CU_ASSERT_FALSE(olc_persist__glob_match("a*", "b"));
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("store_layers", setup, teardown);
  CU_add_test(suite, "precedence_and_source", test_precedence_and_source);
  CU_add_test(suite, "save_keeps_layers_out", test_save_keeps_layers_out);
  CU_add_test(suite, "glob_byte_order", test_glob_byte_order);
  CU_add_test(suite, "env_layers_list", test_env_layers_list);
  CU_add_test(suite, "bad_layers_are_diagnostics", test_bad_layers_are_diagnostics);
  CU_add_test(suite, "malformed_later_keeps_last_good", test_malformed_later_keeps_last_good);
  CU_add_test(suite, "persistence_off_reads_no_layer", test_persistence_off_reads_no_layer);
  CU_add_test(suite, "glob_match", test_glob_match);
  CU_add_test(suite, "relative_layers_keep_their_files", test_relative_layers_keep_their_files);
  CU_add_test(suite, "relative_layers_links", test_relative_layers_links);
  return olc_test_run(argc, argv);
}
