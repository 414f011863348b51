/*
 * tests/store/test_store_readonly.c - read-only mode (olc_store_options
 * read_only): saves stay in memory with no file-system call and survive
 * reloads, the handle follows other processes' changes without P.lock,
 * creates nothing in the store's directory and refuses every other write;
 * olc_store_writable; network file systems through the OLC_TEST_FSTYPE
 * hook; olc_store_options_from_env.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "persist/persist.h"
#include "store/store_int.h"
#include "test_store_setup.h"
#include "test_store_util.h"

static char *dir;
static char *path;

static int setup(void) { return olc_test_store_dir("storero", "profiles.txt", &dir, &path); }

static int teardown(void) {
  unsetenv("OLC_TEST_FSTYPE");
  olc_test_store_dir_free(&dir, &path);
  return 0;
}

static void fresh(void) {
  olc_test_store_dir_free(&dir, &path);
  setup();
}

/* The store file with one record (impl), written without leaving P.lock,
 * as another process's export or a shipped file would be. */
static void seed(const char *impl, const char *policy) {
  char *other = olc_test_tmpdir("storero-src"), *src = olc_test_path(other, "p.txt");
  char *tmp = olc_test_path(dir, "seed.tmp");
  olc_key k = tsu_key(impl, "model-a", "cpu-x", 8);
  olc_store *w = tsu_open_file(src, 0);
  unsigned char *bytes;
  size_t len = 0;
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  OLC_ASSERT_OK(tsu_put(w, &k, policy, OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(w);
  bytes = olc_test_read_file(src, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  CU_ASSERT_EQUAL(olc_test_write_file(tmp, bytes, len), 0);
  CU_ASSERT_EQUAL(rename(tmp, path), 0);
  free(bytes);
  olc_test_rmtree(other);
  free(other);
  free(src);
  free(tmp);
}

static olc_store *open_ro(int check) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = path;
  o.read_only = 1;
  o.check_for_changes = check;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  return s;
}

static int selects(olc_store *s, const char *impl, const char *policy) {
  olc_key k = tsu_key(impl, "model-a", "cpu-x", 8);
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  int ok;
  o.key = &k;
  (void)olc_store_lookup(&res, s, &o, &e);
  ok = res != NULL && strcmp(tsu_selected_policy(res), policy) == 0;
  olc_lookup_result_free(res);
  return ok;
}

static void test_saves_in_memory(void) {
  olc_key b = tsu_key("b", "model-a", "cpu-x", 8);
  olc_diagnostic d;
  olc_error e;
  uint64_t calls;
  olc_store *s;
  fresh();
  seed("a", "pa");
  s = open_ro(1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT(olc_store_is_read_only(s));
  CU_ASSERT(selects(s, "a", "pa"));
  calls = olc_persist__call_count();
  OLC_ASSERT_OK(tsu_put(s, &b, "pb", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &b, "pb2", OLC_LEVELS_DEFAULT, 0, &e), &e);
  /* A save of a read-only handle makes no file-system call at all. */
  CU_ASSERT_EQUAL(olc_persist__call_count(), calls);
  CU_ASSERT(selects(s, "b", "pb2"));
  CU_ASSERT(selects(s, "a", "pa"));
  /* Said once, however many saves. */
  OLC_ASSERT_OK(olc_store_next_diagnostic(&d, s), NULL);
  CU_ASSERT_STRING_EQUAL(d.where, "read_only");
  CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "nothing is written"));
  CU_ASSERT_EQUAL(olc_store_next_diagnostic(&d, s), OLC_E_NOT_FOUND);
  /* A reload keeps the handle's own saves above the file. */
  OLC_ASSERT_OK(olc_store_reload(s, &e), &e);
  CU_ASSERT(selects(s, "b", "pb2"));
  olc_store_free(s);
  /* Nothing was created next to the file: no P.lock, no temporary. */
  CU_ASSERT_EQUAL(olc_test_count_entries(dir), 1);
  /* And nothing of the in-memory saves reached the file. */
  s = open_ro(1);
  CU_ASSERT(!selects(s, "b", "pb2"));
  olc_store_free(s);
}

static void test_follows_changes(void) {
  olc_key b = tsu_key("b", "model-a", "cpu-x", 8);
  olc_error e;
  olc_store *s;
  fresh();
  seed("a", "pa");
  s = open_ro(1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_OK(tsu_put(s, &b, "pb", OLC_LEVELS_DEFAULT, 0, &e), &e);
  /* Another process replaces the file (no P.lock exists: the check
   * compares identities, one stat per lookup). */
  seed("c", "pc");
  CU_ASSERT(selects(s, "c", "pc"));
  CU_ASSERT(selects(s, "b", "pb"));
  CU_ASSERT(!selects(s, "a", "pa"));
  /* A writer that leaves P.lock: still followed, still nothing created by
   * the read-only handle (the writer made P.lock). */
  {
    olc_key d = tsu_key("d", "model-a", "cpu-x", 8);
    olc_store *w = tsu_open_file(path, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    OLC_ASSERT_OK(tsu_put(w, &d, "pd", OLC_LEVELS_DEFAULT, 0, &e), &e);
    olc_store_free(w);
  }
  CU_ASSERT(selects(s, "d", "pd"));
  CU_ASSERT(selects(s, "b", "pb"));
  CU_ASSERT_EQUAL(olc_test_count_entries(dir), 2); /* the file and the writer's P.lock */
  olc_store_free(s);
}

static int any(const olc_record *r, void *payload) {
  (void)r;
  (void)payload;
  return 1;
}

static void test_refuses_other_writes(void) {
  olc_key a = tsu_key("a", "model-a", "cpu-x", 8);
  char *out = olc_test_tmpdir("storero-out"), *exp = olc_test_path(out, "e.txt");
  char moved[256];
  size_t n;
  olc_error e;
  olc_store *s;
  fresh();
  seed("a", "pa");
  s = open_ro(1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, tsu_put(s, &a, "o", OLC_LEVELS_DEFAULT, 1, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "read-only mode"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, path));
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, olc_store_remove_override(s, &a, OLC_LEVELS_DEFAULT, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, olc_store_remove_if(s, any, NULL, &n, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, olc_store_import_file(s, path, &n, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, olc_store_repair(s, 0, moved, sizeof moved, &e), &e);
  /* An export writes elsewhere: allowed. */
  OLC_ASSERT_OK(olc_store_export_file(s, exp, 0, &e), &e);
  CU_ASSERT(selects(s, "a", "pa"));
  olc_store_free(s);
  CU_ASSERT_EQUAL(olc_test_count_entries(dir), 1);
  olc_test_rmtree(out);
  free(out);
  free(exp);
}

static void test_writable(void) {
  olc_store_fs_info info;
  olc_error e;
  olc_store *s;
  fresh();
  s = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_OK(olc_store_writable(s, &info, &e), &e);
  CU_ASSERT(info.dir_writable && info.file_writable && !info.read_only_fs && !info.network);
  olc_store_free(s);
  CU_ASSERT_EQUAL(olc_test_count_entries(dir), 0); /* the check itself writes nothing */
  s = open_ro(1);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, olc_store_writable(s, &info, &e), &e);
  CU_ASSERT(info.read_only_mode);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "read-only mode"));
  olc_store_free(s);
  s = tsu_open_memory();
  OLC_ASSERT_STATUS(OLC_E_DISABLED, olc_store_writable(s, NULL, &e), &e);
  olc_store_free(s);
  /* A directory that does not exist yet: judged by its nearest ancestor. */
  {
    char *deep = olc_test_path(dir, "x/y/profiles.txt");
    olc_store_options o = OLC_STORE_OPTIONS_INIT;
    o.path = deep;
    OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
    OLC_ASSERT_OK(olc_store_writable(s, &info, &e), &e);
    olc_store_free(s);
    free(deep);
  }
}

static void test_network_fs(void) {
  olc_key a = tsu_key("a", "model-a", "cpu-x", 8);
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store_fs_info info;
  olc_error e;
  olc_store *s;
  fresh();
  setenv("OLC_TEST_FSTYPE", "nfs4", 1);
  s = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, tsu_put(s, &a, "pa", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "network file system (nfs4)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "local path"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "read_only"));
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, olc_store_writable(s, &info, &e), &e);
  CU_ASSERT(info.network);
  CU_ASSERT_STRING_EQUAL(info.fs_type, "nfs4");
  olc_store_free(s);
  CU_ASSERT_EQUAL(olc_test_count_entries(dir), 0); /* refused before any lock file */
  /* Read-only use is allowed there. */
  s = open_ro(1);
  OLC_ASSERT_OK(tsu_put(s, &a, "pa", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT(selects(s, "a", "pa"));
  olc_store_free(s);
  /* allow_network_fs writes. */
  o.path = path;
  o.allow_network_fs = 1;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  OLC_ASSERT_OK(olc_store_writable(s, NULL, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &a, "pa", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(s);
  /* sshfs is network, fuse-overlayfs local. */
  setenv("OLC_TEST_FSTYPE", "fuse.sshfs", 1);
  s = tsu_open_file(path, 1);
  OLC_ASSERT_STATUS(OLC_E_READ_ONLY, tsu_put(s, &a, "pb", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "fuse.sshfs"));
  olc_store_free(s);
  setenv("OLC_TEST_FSTYPE", "fuse.fuse-overlayfs", 1);
  s = tsu_open_file(path, 1);
  OLC_ASSERT_OK(tsu_put(s, &a, "pb", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(s);
  unsetenv("OLC_TEST_FSTYPE");
}

static void test_type_table(void) {
  static const char *const net[] = {"nfs",       "nfs4",      "cifs",         "smb3",
                                    "9p",        "ceph",      "fuse.sshfs",   "fuse.rclone",
                                    "fuse.s3fs", "glusterfs", "fuse.gcsfuse", NULL};
  static const char *const local[] = {
      "ext4",       "xfs",  "btrfs", "tmpfs",       "overlay", "fuse.fuse-overlayfs",
      "fuse.lxcfs", "fuse", "",      "fuse.bindfs", NULL};
  size_t i;
  for (i = 0; net[i] != NULL; i++)
    CU_ASSERT(olc_persist__fs_type_is_network(net[i]));
  for (i = 0; local[i] != NULL; i++)
    CU_ASSERT(!olc_persist__fs_type_is_network(local[i]));
  /* The real probe of a local test directory finds it local. */
  {
    olc_persist_fs fs;
    OLC_ASSERT_OK(olc_persist__fs_probe(&fs, path, NULL), NULL);
    CU_ASSERT(!fs.network);
    CU_ASSERT(fs.type[0] != 0);
  }
}

static void test_env(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_error e;
  setenv("OLC_STORE", "/tmp/olc-env-store.txt", 1);
  setenv("OLC_PERSISTENCE", "read_only", 1);
  setenv("OLC_STORE_LAYERS", "/a.txt,/b/*.txt", 1);
  OLC_ASSERT_OK(olc_store_options_from_env(&o, &e), &e);
  CU_ASSERT_STRING_EQUAL(o.path, "/tmp/olc-env-store.txt");
  CU_ASSERT(o.persistence_enabled && o.read_only);
  CU_ASSERT_STRING_EQUAL(olc_store_env_layers(), "/a.txt,/b/*.txt");
  CU_ASSERT(o.layers_list != NULL && strcmp(o.layers_list, "/a.txt,/b/*.txt") == 0);
  setenv("OLC_PERSISTENCE", "off", 1);
  OLC_ASSERT_OK(olc_store_options_from_env(&o, &e), &e);
  CU_ASSERT(!o.persistence_enabled && !o.read_only);
  setenv("OLC_PERSISTENCE", "on", 1);
  OLC_ASSERT_OK(olc_store_options_from_env(&o, &e), &e);
  CU_ASSERT(o.persistence_enabled && !o.read_only);
  setenv("OLC_PERSISTENCE", "sometimes", 1);
  o.read_only = 1;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_options_from_env(&o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "OLC_PERSISTENCE"));
  CU_ASSERT(o.read_only); /* nothing changed */
  o.version = 0;          /* not initialized */
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_options_from_env(&o, &e), &e);
  o.version = OLC_STORE_OPTIONS_VERSION + 1;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_options_from_env(&o, &e), &e);
  o.version = OLC_STORE_OPTIONS_VERSION;
  /* Unset and empty leave the fields alone. */
  unsetenv("OLC_STORE");
  setenv("OLC_PERSISTENCE", "", 1);
  unsetenv("OLC_STORE_LAYERS");
  {
    olc_store_options p = OLC_STORE_OPTIONS_INIT;
    OLC_ASSERT_OK(olc_store_options_from_env(&p, &e), &e);
    CU_ASSERT_PTR_NULL(p.path);
    CU_ASSERT_PTR_NULL(p.layers_list);
    CU_ASSERT(p.persistence_enabled && !p.read_only);
  }
  CU_ASSERT_PTR_NULL(olc_store_env_layers());
  unsetenv("OLC_PERSISTENCE");
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("store_readonly", setup, teardown);
  CU_add_test(s, "saves kept in memory: no file-system call, said once, kept across reloads",
              test_saves_in_memory);
  CU_add_test(s, "follows other processes' changes, with and without P.lock", test_follows_changes);
  CU_add_test(s, "overrides, removals, import, repair refused; export allowed",
              test_refuses_other_writes);
  CU_add_test(s, "olc_store_writable: writable, read-only mode, persistence off", test_writable);
  CU_add_test(s,
              "network file systems (OLC_TEST_FSTYPE): refused, read-only and "
              "allow_network_fs allowed",
              test_network_fs);
  CU_add_test(s, "network mount types; the real probe", test_type_table);
  CU_add_test(s, "olc_store_options_from_env", test_env);
  return olc_test_run(argc, argv);
}
