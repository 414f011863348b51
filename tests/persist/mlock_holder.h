/*
 * tests/persist/mlock_holder.h - a measurement lock held by another process:
 * a forked child takes it, says so on a pipe and holds it until the parent
 * writes to another pipe (or exits), for test_mlock and test_mlock_host.
 */
#ifndef OLC_TESTS_MLOCK_HOLDER_H
#define OLC_TESTS_MLOCK_HOLDER_H

#include <sys/types.h>

typedef struct mlock_holder {
  pid_t pid;
  int ready; /* read end: 'L' once the child holds the lock, 'F' when it failed */
  int go;    /* write end: any byte (or closing it) releases the lock */
} mlock_holder;

/* What the child does while it holds the lock at path instead of waiting
 * to be let go; 1 when that went well (the child exits 0). */
typedef int (*mlock_holder_task)(const char *path, const void *arg);

/* Forks the child, which takes the lock at path (waiting at most 10 s, so
 * a failed test never hangs) and then runs task (NULL: holds until let
 * go).  0 once the child holds the lock. */
int mlock_holder_start(mlock_holder *h, const char *path, mlock_holder_task task, const void *arg);
/* Releases the child's lock (once) without waiting for it. */
void mlock_holder_let_go(mlock_holder *h);
/* Lets the child go and reaps it: 0 when it exited 0. */
int mlock_holder_stop(mlock_holder *h);

#endif
