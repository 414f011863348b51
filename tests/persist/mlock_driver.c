/*
 * tests/persist/mlock_driver.c - one of the processes of test_mlock_procs:
 * calibrates every workload of an ini file in this process and logs, at
 * each candidate the host reports measured (its progress callback), one
 * line "<pid> <workload> <CLOCK_MONOTONIC ns>" to a shared log (O_APPEND,
 * one write per line).  Waits for EOF on stdin first, so that the test
 * starts all of them at once.  Then prints per workload
 *   RESULT <workload> <status> <policy> <calibrated_now> <measured_elsewhere>
 *          <lock_status>
 *
 * Usage: mlock_driver INI LOG.  Exit 0 when the calibration ran.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "olc/host.h"
#include "olc/store.h"

static int log_fd = -1;

static void on_progress(void *payload, const char *workload, size_t wi, size_t wn, size_t ci,
                        size_t cn, double best_us) {
  struct timespec ts;
  char line[256];
  int n;
  (void)payload;
  (void)wi;
  (void)wn;
  (void)ci;
  (void)cn;
  (void)best_us;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  n = snprintf(line, sizeof line, "%ld %s %lld\n", (long)getpid(), workload,
               (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
  if (n > 0 && (size_t)n < sizeof line && write(log_fd, line, (size_t)n) != n)
    fprintf(stderr, "mlock_driver: cannot write the log\n");
}

static void print_results(const olc_calibration *cal) {
  size_t i;
  for (i = 0; i < olc_calibration_count(cal); i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    int len = r->selected != NULL ? (int)r->selected->policy_len : 1;
    const char *policy = r->selected != NULL ? (const char *)r->selected->policy : "-";
    printf("RESULT %s %d %.*s %d %d %d\n", r->workload, (int)r->status, len, policy,
           r->calibrated_now, r->measured_elsewhere, (int)r->lock_status);
  }
}

int main(int argc, char **argv) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_config *cfg = NULL;
  olc_store *store = NULL;
  olc_host *host = NULL;
  olc_calibration *cal = NULL;
  olc_error err;
  char c;
  int rc = 1;
  if (argc != 3) {
    fprintf(stderr, "usage: mlock_driver INI LOG\n");
    return 2;
  }
  log_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0 || olc_config_load_file(&cfg, argv[1], &err) != OLC_OK)
    goto done;
  olc_config_store_options(cfg, &so);
  ho.ignore_env = 1;
  if (olc_store_open(&store, &so, &err) != OLC_OK ||
      olc_host_open(&host, cfg, store, &ho, &err) != OLC_OK)
    goto done;
  while (read(0, &c, 1) > 0) {
  } /* the start signal: EOF */
  opt.in_process = 1;
  opt.progress = on_progress;
  if (olc_host_calibrate(&cal, host, &opt, &err) != OLC_OK)
    goto done;
  print_results(cal);
  rc = 0;
done:
  if (rc != 0)
    fprintf(stderr, "mlock_driver: %s\n", err.message);
  olc_calibration_free(cal);
  olc_host_free(host);
  olc_store_free(store);
  olc_config_free(cfg);
  if (log_fd >= 0)
    close(log_fd);
  return rc;
}
