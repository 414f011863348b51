/*
 * tests/fuzz/fuzz_replay.c - replays saved inputs through a fuzz target
 * without libFuzzer, with any compiler (the normal suite, gcc, ASan):
 *
 *   fuzz_<target>_replay PATH...
 *
 * Each PATH is a file or a directory whose regular files are fed, in name
 * order, to LLVMFuzzerTestOneInput (a target aborts on a broken property).
 * Each input gets a buffer of exactly its size, so ASan sees overreads.
 * Exits 0 after at least one input, 1 when no input was found (a replay of
 * nothing proves nothing), 77 when the target cannot run here.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

static size_t replayed;

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  unsigned char *data = NULL;
  size_t cap = 0, len = 0, n;
  unsigned char chunk[4096];
  if (f == NULL) {
    fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
    return -1;
  }
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (len + n > cap) {
      unsigned char *p;
      cap = (len + n) * 2;
      p = realloc(data, cap);
      if (p == NULL) {
        free(data);
        fclose(f);
        return -1;
      }
      data = p;
    }
    memcpy(data + len, chunk, n);
    len += n;
  }
  fclose(f);
  {
    /* An exact-size copy: no slack after the last byte. */
    unsigned char *exact = malloc(len ? len : 1);
    if (exact == NULL) {
      free(data);
      return -1;
    }
    if (len)
      memcpy(exact, data, len);
    free(data);
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    (void)LLVMFuzzerTestOneInput(exact, len);
    free(exact);
  }
  replayed++;
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char **names = NULL;
  size_t count = 0, cap = 0, i;
  int rc = 0;
  if (d == NULL) {
    fprintf(stderr, "fuzz_replay: cannot open directory %s\n", dir);
    return -1;
  }
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue; /* ".", "..", and hidden files such as .gitkeep */
    if (count == cap) {
      char **p;
      cap = cap ? cap * 2 : 64;
      p = realloc(names, cap * sizeof *names);
      if (p == NULL) {
        rc = -1;
        break;
      }
      names = p;
    }
    names[count] = malloc(strlen(dir) + strlen(e->d_name) + 2);
    if (names[count] == NULL) {
      rc = -1;
      break;
    }
    sprintf(names[count], "%s/%s", dir, e->d_name);
    count++;
  }
  closedir(d);
  if (names != NULL)
    qsort(names, count, sizeof *names, cmp_names);
  for (i = 0; i < count; i++) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
      rc = replay_file(names[i]);
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int i;
#ifdef OLC_FUZZ_INIT
  if (olc_fuzz_init() != 0)
    return OLC_FUZZ_SKIP;
#endif
  for (i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "fuzz_replay: no such path %s\n", argv[i]);
      return 1;
    }
    if ((S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i])) != 0)
      return 1;
  }
  printf("replayed %zu inputs\n", replayed);
  return replayed > 0 ? 0 : 1;
}
