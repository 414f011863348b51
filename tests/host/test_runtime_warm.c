/*
 * tests/host/test_runtime_warm.c - a warm select (issue 11 item 4)
 * answers without allocating or a system call, and so does execute:
 *
 * - allocations: this program replaces malloc, calloc, realloc and the
 *   aligned allocators (the library and the plugins call them through the
 *   PLT) with counting wrappers around glibc's own; 1000 warm selects of a
 *   binding, of a described workload (olc_host_select), of a never-mode
 *   first candidate, and executes (olc_selection_matmul_f32,
 *   olc_selection_execute, olc_binding_execute with a constant packed),
 *   count 0.  The control: with the store check due on every call
 *   (recheck 0) a select allocates.
 * - formatting: snprintf and vsnprintf (and their _chk forms) are counted
 *   the same way around the executes: 0, the host composes a message only
 *   for a failure; the control, a refused execute, formats.
 * - system calls: a thread makes the calls once, installs a seccomp filter
 *   on itself (read, write, exit, exit_group and rt_sigreturn only;
 *   anything else ends the thread) and makes them again; it gets to the
 *   end.  The control thread makes one getppid and is ended there.  A
 *   thread, not a child of fork(): in a child the host refuses every call
 *   (host.h "fork()").  Not strict mode: that also turns off the TSC, and
 *   the vDSO clock reads it (a SIGSEGV, not a system call).
 *
 * Sanitizer builds own malloc: the program exits 77 there, and 77 when the
 * kernel has no seccomp (after the allocation checks passed).
 */
/* snprintf is replaced below: not the fortified inline one. */
#undef _FORTIFY_SOURCE
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WARM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define WARM_SANITIZED 1
#endif
#endif

#ifndef WARM_SANITIZED
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/host.h"
#include "runtime_util.h"

#define CALLS 1000

/* ------------------------------------------------- counting allocator */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);

static atomic_int counting;
static atomic_long allocations;

static void count(void) {
  if (atomic_load_explicit(&counting, memory_order_relaxed))
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t n) {
  count();
  return __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
  count();
  return __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n) {
  count();
  return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n) {
  count();
  *out = __libc_memalign(align, n);
  return *out != NULL ? 0 : 12; /* ENOMEM */
}

/* ------------------------------------------------- counting formatter */

static atomic_int counting_formats;
static atomic_long formats;
typedef int (*vsnprintf_fn)(char *, size_t, const char *, va_list);
static vsnprintf_fn real_vsnprintf;

static int format_counted(char *s, size_t n, const char *fmt, va_list ap) {
  if (atomic_load_explicit(&counting_formats, memory_order_relaxed))
    atomic_fetch_add_explicit(&formats, 1, memory_order_relaxed);
  if (real_vsnprintf == NULL)
    *(void **)&real_vsnprintf = dlsym(RTLD_NEXT, "vsnprintf");
  return real_vsnprintf(s, n, fmt, ap);
}

int vsnprintf(char *s, size_t n, const char *fmt, va_list ap) {
  return format_counted(s, n, fmt, ap);
}

int snprintf(char *s, size_t n, const char *fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = format_counted(s, n, fmt, ap);
  va_end(ap);
  return r;
}

int __vsnprintf_chk(char *s, size_t n, int flag, size_t len, const char *fmt, va_list ap);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t len, const char *fmt, va_list ap) {
  (void)flag;
  (void)len;
  return format_counted(s, n, fmt, ap);
}

int __snprintf_chk(char *s, size_t n, int flag, size_t len, const char *fmt, ...);
int __snprintf_chk(char *s, size_t n, int flag, size_t len, const char *fmt, ...) {
  va_list ap;
  int r;
  (void)flag;
  (void)len;
  va_start(ap, fmt);
  r = format_counted(s, n, fmt, ap);
  va_end(ap);
  return r;
}

/* ------------------------------------------------------------ the calls */

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_warm");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

typedef struct warm {
  rt_host h;
  rt_workload tuned, untuned, weighted;
  olc_binding *b, *first, *constant;
  olc_constant k;
  float a[4], bm[4], c[4];
  olc_tensor in[2], out[1];
  olc_execute_args args;
} warm;

static olc_tensor square(float *data) {
  olc_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = OLC_DTYPE_FLOAT32;
  t.rank = 2;
  t.dims[0] = t.dims[1] = t.strides[0] = 2;
  t.strides[1] = 1;
  t.data = data;
  return t;
}

/* A host with one measured binding and one never-mode first candidate,
 * both selected once. */
static void warm_up(warm *w) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  const olc_selection *s;
  olc_error err;
  rt_open(&w->h, tmp, NULL, "warm.txt", "[plugin.mock_det]\ncandidates = 3,1,2\n");
  olc_host__set_recheck_ms(w->h.s.host, 3600 * 1000);
  rt_matmul(&w->tuned, NULL, 2, 2, 2);
  rt_matmul(&w->untuned, NULL, 3, 3, 3);
  /* Another dtype: no measured workload is near it (the default distance
   * compares only equal text there), so it stays a first candidate. */
  w->untuned.props[0].value = "float16";
  w->b = rt_bind(&w->h, &w->tuned);
  w->first = rt_bind(&w->h, &w->untuned);
  OLC_ASSERT_OK(olc_binding_select(&s, w->b, &on_miss, &err), &err);
  OLC_ASSERT_OK(olc_host_select(&s, w->h.s.host, &w->tuned.w, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_binding_select(&s, w->first, NULL, &err), OLC_FIRST_CANDIDATE);
  rt_fill(w->a, 4, 1);
  rt_fill(w->bm, 4, 2);
  /* The tuned workload again, B constant: packed by its first execute. */
  w->weighted = w->tuned;
  w->weighted.w.properties = w->weighted.props;
  w->k.input = 1;
  w->k.tensor = square(w->bm);
  w->weighted.w.constants = &w->k;
  w->weighted.w.constant_count = 1;
  w->constant = rt_bind(&w->h, &w->weighted);
  w->in[0] = square(w->a);
  memset(&w->in[1], 0, sizeof w->in[1]);
  w->out[0] = square(w->c);
  w->args = (olc_execute_args)OLC_EXECUTE_ARGS_INIT;
  w->args.inputs = w->in;
  w->args.input_count = 2;
  w->args.outputs = w->out;
  w->args.output_count = 1;
  OLC_ASSERT_OK(olc_binding_execute(w->constant, NULL, &w->args, &err), &err);
  CU_ASSERT(olc_binding_packed_bytes(w->constant) > 0);
}

static void warm_down(warm *w) {
  olc_binding_free(w->b);
  olc_binding_free(w->first);
  olc_binding_free(w->constant);
  rt_close(&w->h);
}

/* The warm executes; the number that did not answer as expected. */
static int executes(warm *w, const olc_selection *s) {
  olc_tensor in[2];
  olc_execute_args args = w->args;
  olc_error err;
  int bad = 0;
  bad += olc_selection_matmul_f32(s, 2, 2, 2, 1, w->a, 2, w->bm, 2, 0, w->c, 2, &err) != OLC_OK;
  in[0] = w->in[0];
  in[1] = square(w->bm);
  args.inputs = in;
  bad += olc_selection_execute(s, &args, &err) != OLC_OK;
  bad += olc_binding_execute(w->constant, NULL, &w->args, &err) != OLC_OK;
  bad += olc_binding_execute(w->constant, s, &w->args, &err) != OLC_OK;
  return bad;
}

/* The warm calls; the number that did not answer as expected. */
static int calls(warm *w) {
  const olc_selection *s;
  olc_error err;
  int i, bad = 0;
  for (i = 0; i < CALLS; i++) {
    bad += olc_binding_select(&s, w->b, NULL, &err) != OLC_OK;
    bad += olc_host_select(&s, w->h.s.host, &w->tuned.w, NULL, &err) != OLC_OK;
    bad += executes(w, s);
    bad += olc_binding_select(&s, w->first, NULL, &err) != OLC_FIRST_CANDIDATE;
  }
  return bad;
}

static void test_no_allocation(void) {
  warm w;
  const olc_selection *s;
  warm_up(&w);
  atomic_store(&allocations, 0);
  atomic_store(&counting, 1);
  CU_ASSERT_EQUAL(calls(&w), 0);
  atomic_store(&counting, 0);
  CU_ASSERT_EQUAL(atomic_load(&allocations), 0);
  /* The control: a select that looks the store up allocates. */
  olc_host__set_recheck_ms(w.h.s.host, 0);
  atomic_store(&counting, 1);
  CU_ASSERT_EQUAL(olc_binding_select(&s, w.b, NULL, NULL), OLC_OK);
  atomic_store(&counting, 0);
  CU_ASSERT(atomic_load(&allocations) > 0);
  warm_down(&w);
}

/* An execute composes no message unless it fails (the control). */
static void test_no_formatting(void) {
  warm w;
  const olc_selection *s;
  olc_error err;
  int i, bad = 0;
  warm_up(&w);
  OLC_ASSERT_OK(olc_binding_select(&s, w.b, NULL, &err), &err);
  atomic_store(&formats, 0);
  atomic_store(&counting_formats, 1);
  for (i = 0; i < CALLS; i++)
    bad += executes(&w, s);
  atomic_store(&counting_formats, 0);
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(atomic_load(&formats), 0);
  atomic_store(&counting_formats, 1);
  CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, 2, 2, 2, 1, w.a, 2, w.bm, 2, 0, w.a, 2, &err),
                  OLC_E_UNSUPPORTED); /* C over A */
  atomic_store(&counting_formats, 0);
  CU_ASSERT(atomic_load(&formats) > 0);
  warm_down(&w);
}

static int seccomp_missing;

/* Allows read, write, exit, exit_group and rt_sigreturn on the calling
 * thread; any other system call (or another architecture's) ends the
 * thread (the process goes on). */
static int enter_filter(void) {
#if defined(__x86_64__)
#define WARM_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WARM_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef WARM_ARCH
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WARM_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_read, 5, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 4, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigreturn, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof code[0]), code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#else
  return -1;
#endif
}

/* One filtered thread: what it was given and how far it got. */
typedef struct filtered {
  warm *w;
  int control;
  int result; /* 0: ended by the filter; 'y', 'n': the calls; 77: no filter */
} filtered;

static void *filtered_main(void *arg) {
  filtered *f = arg;
  /* A thread's first calls may set it up (a plugin's thread-local
   * storage): not what is measured. */
  (void)calls(f->w);
  if (enter_filter() != 0) {
    f->result = 77;
    return NULL;
  }
  if (f->control)
    (void)syscall(SYS_getppid);
  f->result = calls(f->w) == 0 ? 'y' : 'n';
  /* Returning would run the thread's exit in libc (system calls of its
   * own); the join sees the kernel clear the thread id either way. */
  syscall(SYS_exit, 0);
  return NULL;
}

/* The calls in a thread under the seccomp filter (after a system call of
 * its own with control): 0 when they all answered, 77 without a filter, 1
 * when they answered wrongly, -1 when the filter ended the thread. */
static int filtered_thread(warm *w, int control) {
  filtered f = {w, control, 0};
  pthread_t t;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, filtered_main, &f), 0);
  CU_ASSERT_EQUAL_FATAL(pthread_join(t, NULL), 0);
  if (f.result == 77)
    return 77;
  return f.result == 'y' ? 0 : f.result == 'n' ? 1 : -1;
}

static void test_no_system_call(void) {
  warm w;
  int rc;
  warm_up(&w);
  rc = filtered_thread(&w, 0);
  if (rc == 77) {
    printf("\n  a seccomp filter is not available: skipped ");
    seccomp_missing = 1;
  } else {
    CU_ASSERT_EQUAL(rc, 0);
    /* The control: one system call, and the thread is ended there. */
    CU_ASSERT_EQUAL(filtered_thread(&w, 1), -1);
  }
  warm_down(&w);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  int rc;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_warm", setup, teardown);
  CU_add_test(s, "no allocation", test_no_allocation);
  CU_add_test(s, "no formatting", test_no_formatting);
  CU_add_test(s, "no system call", test_no_system_call);
  rc = olc_test_run(argc, argv);
  return rc == 0 && seccomp_missing ? 77 : rc;
}
#else
int main(void) {
  puts("sanitizer build: malloc is the sanitizer's: skipped");
  return 77;
}
#endif
