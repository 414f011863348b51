/*
 * options.c - bench_gemm's command line (see the usage line).
 */
#include "options.h"

#include "olc/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
  fprintf(stderr,
          "usage: bench_gemm [--json] [--quick] [--min] [--cputime] [--threads 1,2] [--reps N] "
          "[--shape MxNxK]... [--table %s] [--peers all|LIST] [--policy TEXT] "
          "[--quality [ROUNDS]] [--stability [N]] [--contention wait|mark|ignore] [--overhead] "
          "[--buckets] [--nearest] [--concurrency] [--cold] "
          "[--plugin PATH] [--isa ref|avx2|avx512]\n",
          bench_shape_table_names);
  exit(2);
}

/* A whole decimal count in [1, max], or a one-line error naming the
 * option. */
static int parse_count(const char *text, const char *option, long max) {
  char *end;
  long v;
  errno = 0;
  v = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 1 || v > max)
    bench_die("bad %s %s (want a whole number from 1 to %ld)", option, text, max);
  return (int)v;
}

static void add_table(options *o, const char *name) {
  int count = 0;
  const shape *t = bench_shape_table(name, &count);
  if (t == NULL)
    bench_die("bad --table %s (want one of: %s)", name, bench_shape_table_names);
  for (int i = 0; i < count && o->nshapes < MAX_SHAPES; i++)
    o->shapes[o->nshapes++] = t[i];
}

void bench_parse_args(options *o, int argc, char **argv) {
  char why[512];
  memset(o, 0, sizeof *o);
  o->plugin_path = CG_BENCH_PLUGIN;
  o->reps = 7;
  o->contention = -1;
  for (int p = 0; p < BENCH_PEER_COUNT; p++)
    o->peers[p] = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--cputime") == 0) {
      bench_use_cputime = 1;
    } else if (strcmp(a, "--min") == 0) {
      bench_use_min = 1;
    } else if (strcmp(a, "--quick") == 0) {
      o->reps = 3;
      o->quick = 1;
      if (o->nshapes == 0)
        o->shapes[o->nshapes++] = (shape){256, 256, 256},
        o->shapes[o->nshapes++] = (shape){1, 1024, 1024};
    } else if (strcmp(a, "--threads") == 0 && more) {
      for (char *s = strtok(argv[++i], ","); s != NULL && o->nthreads < 8; s = strtok(NULL, ","))
        o->threads[o->nthreads++] = parse_count(s, "--threads", 256);
    } else if (strcmp(a, "--reps") == 0 && more) {
      o->reps = parse_count(argv[++i], "--reps", 100000);
      o->reps_given = 1;
    } else if (strcmp(a, "--shape") == 0 && more && o->nshapes < MAX_SHAPES) {
      shape s;
      if (sscanf(argv[++i], "%ldx%ldx%ld", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 || s.k < 1)
        bench_die("bad --shape %s (want MxNxK)", argv[i]);
      o->shapes[o->nshapes++] = s;
      o->shapes_given = 1;
    } else if (strcmp(a, "--table") == 0 && more) {
      add_table(o, argv[++i]);
      o->shapes_given = 1;
    } else if (strcmp(a, "--peers") == 0 && more) {
      if (bench_peers_select(o->peers, argv[++i], why, sizeof why) != 0)
        bench_die("%s", why);
    } else if (strcmp(a, "--policy") == 0 && more) {
      o->forced = argv[++i];
    } else if (strcmp(a, "--plugin") == 0 && more) {
      o->plugin_path = argv[++i];
    } else if (strcmp(a, "--isa") == 0 && more) {
      o->isa = argv[++i];
      if (strcmp(o->isa, "ref") != 0 && strcmp(o->isa, "avx2") != 0 &&
          strcmp(o->isa, "avx512") != 0)
        bench_die("bad --isa %s (want ref, avx2 or avx512)", o->isa);
    } else if (strcmp(a, "--overhead") == 0) {
      o->overhead = 1;
    } else if (strcmp(a, "--cold") == 0) {
      o->cold = 1;
    } else if (strcmp(a, "--buckets") == 0) {
      o->buckets = 1;
    } else if (strcmp(a, "--nearest") == 0) {
      o->nearest = 1;
    } else if (strcmp(a, "--concurrency") == 0) {
      o->concurrency = 1;
    } else if (strcmp(a, "--quality") == 0) {
      o->quality = 1;
      if (more && argv[i + 1][0] >= '1' && argv[i + 1][0] <= '9')
        o->quality = atoi(argv[++i]); /* rounds */
    } else if (strcmp(a, "--contention") == 0 && more) {
      const char *m = argv[++i];
      o->contention = strcmp(m, "wait") == 0     ? OLC_CONTENTION_WAIT
                      : strcmp(m, "mark") == 0   ? OLC_CONTENTION_MARK
                      : strcmp(m, "ignore") == 0 ? OLC_CONTENTION_IGNORE
                                                 : -1;
      if (o->contention < 0)
        bench_die("bad --contention %s (want wait, mark or ignore)", m);
    } else if (strcmp(a, "--stability") == 0) {
      o->stability = 5;
      if (more && argv[i + 1][0] >= '1' && argv[i + 1][0] <= '9')
        o->stability = parse_count(argv[++i], "--stability", 16); /* calibrations */
    } else {
      usage();
    }
  }
  /* --stability --quick: one small shape, two calibrations, three rounds
   * (the test that keeps the mode working). */
  if (o->stability && o->quick) {
    if (!o->shapes_given)
      o->nshapes = 1, o->shapes[0] = (shape){96, 96, 96};
    if (o->stability == 5)
      o->stability = 2;
  }
  if (o->stability && !o->reps_given && !o->quick)
    o->reps = 9;
  if (o->stability && o->nthreads > 0 && (o->nthreads > 1 || o->threads[0] != 1))
    bench_die("--stability calibrates and times one thread: use it with --threads 1");
  /* One thread's CPU time says nothing of a product split over several. */
  for (int t = 0; bench_use_cputime && t < o->nthreads; t++)
    if (o->threads[t] > 1)
      bench_die("--cputime times the calling thread only: use it with --threads 1");
  if (o->nthreads == 0) {
    o->threads[o->nthreads++] = 1;
    if (!bench_use_cputime)
      o->threads[o->nthreads++] = 2;
  }
  if (o->nshapes == 0)
    add_table(o, "peers");
}
