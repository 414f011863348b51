/*
 * tests/persist/mlock_holder.c - see mlock_holder.h.
 */
#include "mlock_holder.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "persist/persist.h"

static void hold(int ready, int go, const char *path, mlock_holder_task task, const void *arg) {
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_wait w;
  char c;
  int ok;
  memset(&w, 0, sizeof w);
  w.timeout_ms = 10000;
  ok = olc_persist__mlock_acquire(&m, NULL, path, &w, NULL) == OLC_OK;
  c = ok ? 'L' : 'F';
  if (write(ready, &c, 1) != 1)
    _exit(2);
  if (ok && task != NULL)
    ok = task(path, arg);
  else
    (void)!read(go, &c, 1);
  olc_persist__mlock_release(m);
  _exit(ok ? 0 : 1);
}

int mlock_holder_start(mlock_holder *h, const char *path, mlock_holder_task task, const void *arg) {
  int ready[2], go[2];
  char c = 0;
  if (pipe(ready) != 0 || pipe(go) != 0)
    return -1;
  h->pid = fork();
  if (h->pid == 0) {
    close(ready[0]);
    close(go[1]);
    hold(ready[1], go[0], path, task, arg);
  }
  close(ready[1]);
  close(go[0]);
  h->ready = ready[0];
  h->go = go[1];
  if (h->pid < 0 || read(h->ready, &c, 1) != 1 || c != 'L')
    return -1;
  return 0;
}

void mlock_holder_let_go(mlock_holder *h) {
  if (h->go >= 0) {
    (void)!write(h->go, "x", 1);
    close(h->go);
    h->go = -1;
  }
}

int mlock_holder_stop(mlock_holder *h) {
  int status = -1;
  mlock_holder_let_go(h);
  close(h->ready);
  if (waitpid(h->pid, &status, 0) != h->pid)
    return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
