/*
 * calibrate/load_posix.c - the load source on POSIX (load.h): Linux's
 * /proc/loadavg (its fourth field, "running/total", counts the tasks
 * running or waiting for a CPU now) and the first line of /proc/stat (the
 * CPU time of all CPUs by kind, steal the eighth); elsewhere, or without
 * /proc, nothing is known.
 */
#include "calibrate/load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/platform.h"

static void read_runnable(olc_load_figures *out) {
  FILE *f = fopen("/proc/loadavg", "r");
  double l1, l5, l15;
  unsigned long running, total;
  if (f == NULL)
    return;
  if (fscanf(f, "%lf %lf %lf %lu/%lu", &l1, &l5, &l15, &running, &total) == 5) {
    out->runnable = (double)running;
    out->have_runnable = 1;
  }
  fclose(f);
}

/* The threads of process dir (a /proc/PID path) in state R, and, when
 * children is set, those of its child processes (the measuring worker):
 * the load that is the workload's own. */
static uint32_t running_in(const char *proc, int children) {
  char path[96], line[512];
  struct dirent *e;
  uint32_t n = 0;
  DIR *d;
  if (snprintf(path, sizeof path, "%s/task", proc) >= (int)sizeof path ||
      (d = opendir(path)) == NULL)
    return 0;
  while ((e = readdir(d)) != NULL) {
    FILE *f;
    const char *close_paren;
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    if (snprintf(path, sizeof path, "%s/task/%s/stat", proc, e->d_name) >= (int)sizeof path ||
        (f = fopen(path, "r")) == NULL)
      continue;
    if (fgets(line, sizeof line, f) != NULL && (close_paren = strrchr(line, ')')) != NULL &&
        close_paren[1] == ' ' && close_paren[2] == 'R')
      n++;
    fclose(f);
    if (children &&
        snprintf(path, sizeof path, "%s/task/%s/children", proc, e->d_name) < (int)sizeof path &&
        (f = fopen(path, "r")) != NULL) {
      long pid;
      while (fscanf(f, "%ld", &pid) == 1 && pid > 0) {
        char child[32];
        snprintf(child, sizeof child, "/proc/%ld", pid);
        n += running_in(child, 0);
      }
      fclose(f);
    }
  }
  closedir(d);
  return n;
}

static void read_ticks(olc_load_figures *out) {
  FILE *f = fopen("/proc/stat", "r");
  unsigned long long v[8];
  int n;
  if (f == NULL)
    return;
  memset(v, 0, sizeof v);
  /* user nice system idle iowait irq softirq steal (older kernels stop
   * before steal: then none is known). */
  n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
             &v[5], &v[6], &v[7]);
  fclose(f);
  if (n == 8) {
    size_t i;
    out->total_ticks = 0;
    for (i = 0; i < 8; i++)
      out->total_ticks += v[i];
    out->steal_ticks = v[7];
    out->have_ticks = 1;
  }
}

void olc_calibrate__load_read_system(olc_load_figures *out) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  out->cpus = cpus > 0 ? (uint32_t)cpus : 0;
  read_runnable(out);
  if (out->have_runnable)
    out->own_running = running_in("/proc/self", 1);
  read_ticks(out);
}

void olc_calibrate__load_nap(uint32_t ms) { olc_util__sleep_ms((int64_t)ms); }
