/*
 * bench/calibrate/bench_calibrate.c - the first and the second
 * `olc calibrate` on the embedded default configuration.
 *
 * For each round: a fresh temporary store; the first run measures every
 * workload whose plugin is available and saves the winners, the following
 * runs find every selection in the store and measure nothing.  Both are
 * timed in wall-clock time around the whole process (start, plugin
 * loading, store, output), which is what a user waits for.  Reports the
 * median of each and the ratio; the goal is second <= first / 20.
 *
 *   bench_calibrate [--olc PATH] [--rounds N] [--seconds-runs N] [--no-check]
 *
 * Exit status: 0 when the goal is met (or --no-check), 1 when it is not,
 * 2 on a usage error or when olc fails, 77 (skipped) when no workload
 * could be calibrated (no plugin built or available).
 */
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

/* Runs `olc --store STORE calibrate --json` with stdout into out_path;
 * returns its exit status (-1 when it did not exit) and *seconds. */
static int run_olc(const char *olc, const char *store, const char *out_path, double *seconds) {
  static char opt_store[] = "--store", cmd[] = "calibrate", opt_json[] = "--json";
  char *argv[6];
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int status = 0, rc = -1;
  double t0;
  /* posix_spawn takes char *const[]: olc and store are copies. */
  argv[0] = strdup(olc);
  argv[1] = opt_store;
  argv[2] = strdup(store);
  argv[3] = cmd;
  argv[4] = opt_json;
  argv[5] = NULL;
  if (argv[0] == NULL || argv[2] == NULL) {
    free(argv[0]);
    free(argv[2]);
    return -1;
  }
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  t0 = bench_wall_s();
  if (posix_spawn(&pid, olc, &fa, NULL, argv, environ) == 0 && waitpid(pid, &status, 0) == pid)
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  *seconds = bench_wall_s() - t0;
  posix_spawn_file_actions_destroy(&fa);
  free(argv[0]);
  free(argv[2]);
  return rc;
}

/* Value of "KEY":N in the JSON summary of a run, or -1. */
static long summary_count(const char *path, const char *key) {
  static char buf[1 << 20];
  char pat[64];
  FILE *f = fopen(path, "rb");
  size_t n;
  const char *s, *p;
  if (f == NULL)
    return -1;
  n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  s = strstr(buf, "\"summary\":");
  if (s == NULL)
    return -1;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  p = strstr(s, pat);
  return p != NULL ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Removes dir and the files in it (the stores, their lock files, out). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[1024];
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  if (d != NULL)
    closedir(d);
  rmdir(dir);
}

int main(int argc, char **argv) {
  const char *olc = OLC_CLI_PATH;
  int rounds = 3, seconds_runs = 5, check = 1, i, r, k, n2 = 0;
  double first[16], second[16 * 16], m1, m2;
  char dir[] = "/tmp/olc-bench-calibrate-XXXXXX", store[512], out[512];

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--olc") == 0 && i + 1 < argc)
      olc = argv[++i];
    else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (strcmp(argv[i], "--seconds-runs") == 0 && i + 1 < argc)
      seconds_runs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--no-check") == 0)
      check = 0;
    else {
      fprintf(stderr, "usage: bench_calibrate [--olc PATH] [--rounds N (1-16)] "
                      "[--seconds-runs N (1-16)] [--no-check]\n");
      return 2;
    }
  }
  if (rounds < 1 || rounds > 16 || seconds_runs < 1 || seconds_runs > 16) {
    fprintf(stderr, "bench_calibrate: --rounds and --seconds-runs are 1 to 16\n");
    return 2;
  }
  /* The embedded default configuration, the plugins next to olc. */
  unsetenv("OLC_CONFIG");
  unsetenv("OLC_PLUGIN_PATH");
  unsetenv("OLC_STORE");
  if (mkdtemp(dir) == NULL) {
    perror("bench_calibrate: mkdtemp");
    return 2;
  }
  snprintf(out, sizeof out, "%s/out.json", dir);
  printf("olc: %s (default configuration)\n", olc);
  for (r = 0; r < rounds; r++) {
    long calibrated, selected;
    snprintf(store, sizeof store, "%s/store-%d.txt", dir, r);
    if (run_olc(olc, store, out, &first[r]) != 0) {
      fprintf(stderr, "bench_calibrate: the first olc calibrate failed (see %s)\n", out);
      return 2;
    }
    calibrated = summary_count(out, "calibrated");
    printf("round %d: first  %.3f s (%ld workloads calibrated now, %ld skipped)\n", r + 1, first[r],
           calibrated, summary_count(out, "skipped"));
    if (calibrated <= 0) {
      /* A build without the shipped plugins (OLC_BUILD_PLUGINS=OFF), or a
       * machine where none is available: nothing to time. */
      fprintf(stderr, "bench_calibrate: the first run calibrated nothing (no plugin?): skipped\n");
      remove_dir(dir);
      return 77;
    }
    for (k = 0; k < seconds_runs; k++) {
      double s;
      if (run_olc(olc, store, out, &s) != 0) {
        fprintf(stderr, "bench_calibrate: a second olc calibrate failed (see %s)\n", out);
        return 2;
      }
      selected = summary_count(out, "selected");
      if (summary_count(out, "calibrated") != 0 || selected != calibrated) {
        fprintf(stderr, "bench_calibrate: the second run measured again (see %s)\n", out);
        return 2;
      }
      second[n2++] = s;
      printf("round %d: second %.3f s (%ld selected from the store)\n", r + 1, s, selected);
    }
  }
  remove_dir(dir);
  m1 = bench_median(first, (size_t)rounds);
  m2 = bench_median(second, (size_t)n2);
  printf("first  calibrate: median %.3f s over %d rounds\n", m1, rounds);
  printf("second calibrate: median %.3f s over %d runs\n", m2, n2);
  printf("ratio second/first: 1/%.1f (goal: <= 1/20)\n", m2 > 0 ? m1 / m2 : 0.0);
  if (check && m2 * 20 > m1) {
    fprintf(stderr, "bench_calibrate: goal missed: second %.3f s > first %.3f s / 20\n", m2, m1);
    return 1;
  }
  return 0;
}
