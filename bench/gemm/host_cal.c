/*
 * host_cal.c - see host_cal.h.
 */
#include "host_cal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "olc/store.h"

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Appends to a growing text; returns 0, or -1 when out of memory. */
typedef struct text {
  char *s;
  size_t len, cap;
} text;

static int add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    int n;
    size_t room = t->cap - t->len;
    va_start(ap, fmt);
    n = vsnprintf(t->s != NULL ? t->s + t->len : NULL, t->s != NULL ? room : 0, fmt, ap);
    va_end(ap);
    if (n < 0)
      return -1;
    if (t->s != NULL && (size_t)n < room) {
      t->len += (size_t)n;
      return 0;
    }
    {
      size_t cap = t->cap * 2 + (size_t)n + 256;
      char *p = realloc(t->s, cap);
      if (p == NULL)
        return -1;
      t->s = p;
      t->cap = cap;
    }
  }
}

static int build_ini(text *t, const char *plugin_dir, const char *backend, uint32_t threads,
                     const olc_calibration_settings *cal, const char *extra_ini,
                     bench_hc_workload *w, size_t count) {
  int rc = 0;
  rc |= add(t, "[host]\nplugin_dirs = %s\nthreads = %u\n\n[store]\npersistence = false\n\n",
            plugin_dir, threads);
  rc |= add(t, "[calibration]\n");
  if (cal != NULL)
    rc |= add(t,
              "warmup = %u\nmin_repetitions = %u\nmin_seconds = %.17g\n"
              "max_seconds_per_workload = %.17g\nabandon_factor = %.17g\nstrategy = %s\n"
              "contention = %s\n",
              cal->warmup, cal->min_repetitions, cal->min_seconds, cal->max_seconds_per_workload,
              cal->abandon_factor, cal->strategy == OLC_STRATEGY_FULL ? "full" : "race",
              cal->contention == OLC_CONTENTION_MARK     ? "mark"
              : cal->contention == OLC_CONTENTION_IGNORE ? "ignore"
                                                         : "wait");
  rc |= add(t, "\n");
  for (size_t i = 0; i < count; i++) {
    if (w[i].name[0] == '\0')
      snprintf(w[i].name, sizeof w[i].name, "bench_%ldx%ldx%ld", w[i].m, w[i].n, w[i].k);
    rc |= add(t,
              "[workload.%s]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
              "m = %ld\nn = %ld\nk = %ld\n\n",
              w[i].name, backend, w[i].m, w[i].n, w[i].k);
  }
  if (extra_ini != NULL)
    rc |= add(t, "%s\n", extra_ini);
  return rc;
}

int bench_hc_calibrate(const char *plugin_dir, const char *backend, uint32_t threads,
                       const olc_calibration_settings *cal, const char *extra_ini,
                       bench_hc_workload *w, size_t count, char *err, size_t err_size) {
  text ini = {NULL, 0, 0};
  olc_config *config = NULL;
  olc_store *store = NULL;
  olc_host *host = NULL;
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_error e;
  int rc = -1;
  memset(&e, 0, sizeof e);
  err[0] = '\0';
  if (build_ini(&ini, plugin_dir, backend, threads, cal, extra_ini, w, count) != 0) {
    snprintf(err, err_size, "out of memory");
    goto done;
  }
  if (olc_config_load_string(&config, ini.s, ini.len, "<bench configuration>", NULL, &e) !=
      OLC_OK) {
    snprintf(err, err_size, "configuration: %s", e.message);
    goto done;
  }
  olc_config_store_options(config, &so);
  if (olc_store_open(&store, &so, &e) != OLC_OK) {
    snprintf(err, err_size, "store: %s", e.message);
    goto done;
  }
  ho.ignore_env = 1; /* the build's plugins, not whatever OLC_PLUGIN_PATH names */
  if (olc_host_open(&host, config, store, &ho, &e) != OLC_OK) {
    snprintf(err, err_size, "host: %s", e.message);
    goto done;
  }
  for (size_t i = 0; i < count; i++) {
    olc_calibrate_options co = OLC_CALIBRATE_OPTIONS_INIT;
    olc_calibration *c = NULL;
    const olc_workload_result *r;
    const char *names[1];
    double t0;
    names[0] = w[i].name;
    co.workloads = names;
    co.workload_count = 1;
    co.in_process = 1; /* the bench measures in its own process, as it then runs */
    w[i].ok = 0;
    w[i].policy[0] = '\0';
    w[i].message[0] = '\0';
    t0 = wall_s();
    if (olc_host_calibrate(&c, host, &co, &e) != OLC_OK) {
      snprintf(err, err_size, "calibrate %s: %s", w[i].name, e.message);
      goto done;
    }
    w[i].seconds = wall_s() - t0;
    r = olc_calibration_count(c) > 0 ? olc_calibration_get(c, 0) : NULL;
    if (r != NULL) {
      w[i].measured = r->candidate_count;
      w[i].abandoned = 0;
      for (size_t j = 0; j < r->candidate_count; j++) {
        const olc_candidate_result *cr = &r->candidates[j];
        w[i].abandoned += cr->abandoned != 0;
        if (getenv("BENCH_HC_VERBOSE") != NULL) /* the loop's view of each candidate */
          fprintf(stderr, "  %s #%zu %.*s: %10.3f us (MAD %.3f), %u samples%s%s\n", w[i].name, j,
                  (int)cr->policy_len, (const char *)cr->policy, cr->median_us, cr->spread_us,
                  (unsigned)cr->samples, cr->message ? ": " : "", cr->message ? cr->message : "");
      }
      if (r->message != NULL)
        snprintf(w[i].message, sizeof w[i].message, "%s", r->message);
      if (r->selected != NULL && r->selected->policy_len < sizeof w[i].policy) {
        memcpy(w[i].policy, r->selected->policy, r->selected->policy_len);
        w[i].policy[r->selected->policy_len] = '\0';
        w[i].ok = 1;
      } else if (r->selected != NULL) {
        snprintf(w[i].message, sizeof w[i].message, "selected policy too long");
      }
    }
    olc_calibration_free(c);
  }
  rc = 0;
done:
  /* Unavailable plugin: the load report says why. */
  if (rc == 0 && host != NULL) {
    for (size_t i = 0; i < count; i++) {
      if (w[i].ok || w[i].message[0] != '\0')
        continue;
      for (size_t j = 0; j < olc_host_report_count(host); j++) {
        const olc_load_entry *le = olc_host_report(host, j);
        if (le->plugin_name != NULL && strcmp(le->plugin_name, backend) == 0 && le->message != NULL)
          snprintf(w[i].message, sizeof w[i].message, "%s: %s", olc_load_stage_str(le->stage),
                   le->message);
      }
      if (w[i].message[0] == '\0')
        snprintf(w[i].message, sizeof w[i].message, "nothing selected (plugin %s not loaded?)",
                 backend);
    }
  }
  olc_host_free(host);
  olc_store_free(store);
  olc_config_free(config);
  free(ini.s);
  return rc;
}
