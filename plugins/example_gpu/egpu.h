/*
 * egpu.h - internals of the example_gpu plugin (OpenCL 1.2 tiled SGEMM).
 *
 * Shared by the plugin's own files, and by its tests and benchmark, which
 * load the plugin with dlopen and may look inside an instance or a prepared
 * state (same compiler, same layout) to read results back or to share the
 * device's queue.  Nothing here is exported from the shared object.
 */
#ifndef EGPU_H
#define EGPU_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "olc/plugin.h"

#define EGPU_NAME "example_gpu"
#define EGPU_IMPLEMENTATION "3"
#define EGPU_MATMUL "MatMul"
#define EGPU_GEMM "Gemm"
#define EGPU_DTYPE "float32"

/* Largest m, n or k served: keeps every index of the kernel in a cl_int. */
#define EGPU_MAX_DIM 32768u
#define EGPU_PROCESSOR_SIZE 1024
#define EGPU_MESSAGE_SIZE 256

/*
 * A policy: the tiling of the SGEMM kernel.  One work-group computes a
 * tm x tn tile of C; each work item computes wm x wn elements of it (rows
 * strided by wgy, columns strided by wgx), so the work-group is
 * wgx x wgy = (tn / wn) x (tm / wm) items.  Three kernel forms:
 * - local=1: A and B tiles of depth tk staged in local memory; vec is the
 *   vector width along n (wn is a multiple of vec, columns come in vec-wide
 *   groups).
 * - local=0, vec=1: direct loads from global memory, tk the unroll depth
 *   along k (with wm = wn = 1 the textbook naive kernel).
 * - local=0, vec>1: B is first transposed into a scratch buffer, then each
 *   item computes dot products along k with vec-wide loads of A and of B's
 *   transpose (contiguous streams: what CPU devices want); tk is the unroll
 *   depth in vectors.
 */
typedef struct egpu_policy {
  uint32_t tm, tn, tk;
  uint32_t wm, wn;
  uint32_t vec;   /* 1, 2 or 4 */
  uint32_t local; /* 0 or 1 */
  uint32_t wgx, wgy;
} egpu_policy;

/* What the device allows, read once at create. */
typedef struct egpu_limits {
  size_t max_work_group_size;
  size_t max_work_item_sizes[3];
  cl_ulong local_mem_size;
  cl_ulong max_mem_alloc_size;
  cl_uint compute_units;
  cl_device_type type;
  cl_device_local_mem_type local_mem_type;
} egpu_limits;

/* A program built for one policy, cached in the instance. */
typedef struct egpu_program {
  egpu_policy policy;
  cl_program program;
  cl_kernel kernel;
  cl_kernel transpose; /* B -> Bt, for the local=0, vec>1 form */
  cl_kernel axpby;     /* execute's epilogue: T = alpha * T + beta * C0 */
  cl_kernel gather;    /* any strided view -> a compact row-major matrix */
  struct egpu_program *next;
} egpu_program;

typedef struct egpu_instance {
  const olc_plugin_host *host;
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  egpu_limits limits;
  char processor[EGPU_PROCESSOR_SIZE];
  char device_name[128];
  /*
   * Serializes every use of the queue, of the cached kernels' arguments and
   * of the program cache: run and execute (which many threads call at once)
   * each hold it from the program lookup to their last clFinish or blocking
   * read.  Why one lock and not a queue per call: clSetKernelArg on a shared
   * cl_kernel is not thread-safe (OpenCL 1.2, appendix A.2), some drivers do
   * not take concurrent enqueue + finish sequences on one queue, and one
   * product already fills the device (POCL spreads its work-groups over every
   * CPU core; a GPU runs one queue's kernels in order), so calls that ran
   * side by side would only share the same device and add per-call queue and
   * kernel creation.
   */
  pthread_mutex_t lock;
  int lock_ready; /* lock was initialized (destroy after a failed create) */
  egpu_program *programs;
  uint32_t program_count;
} egpu_instance;

/* The shape of one 2-D product: m x k times k x n. */
typedef struct egpu_shape {
  uint32_t m, n, k;
} egpu_shape;

/* Batch (leading) dimensions of a MatMul operand, outermost first. */
#define EGPU_MAX_BATCH_RANK (OLC_PLUGIN_MAX_RANK - 2u)
/* The most 2-D products one workload or execute call loops over. */
#define EGPU_MAX_BATCH 65536u
typedef struct egpu_batch {
  uint32_t rank;
  uint32_t dims[EGPU_MAX_BATCH_RANK];
} egpu_batch;

/* Gemm's bias C, as broadcast to m x n (workload property bias). */
#define EGPU_BIAS_NONE 0u
#define EGPU_BIAS_SCALAR 1u /* rank 0 (or one element) */
#define EGPU_BIAS_ROW 2u    /* n values, repeated down the rows */
#define EGPU_BIAS_COL 3u    /* m x 1, repeated along the columns */
#define EGPU_BIAS_MATRIX 4u /* m x n */

/*
 * A workload: the operator, the shape of each product and the layout the
 * runtime describes its operands in (what prepare makes and run times).
 * Every field past shape is at its default for a plain row-major MatMul.
 */
typedef struct egpu_layout {
  egpu_shape shape;
  uint32_t gemm;             /* operator Gemm (else MatMul) */
  uint32_t trans_a, trans_b; /* A stored k x m, B stored n x k (0/1) */
  uint32_t bias;             /* EGPU_BIAS_*, Gemm only */
  egpu_batch batch_a, batch_b;
  egpu_batch batch_y; /* the broadcast of batch_a and batch_b */
  uint32_t count_a;   /* matrices in A: the product of batch_a (1 without) */
  uint32_t count_b;   /* likewise for B */
  uint32_t count_y;   /* products: the product of batch_y */
} egpu_layout;

/*
 * What prepare makes: device buffers holding random operands in the
 * workload's layout.  For a plain MatMul a, b, c are the compact m x k,
 * k x n and m x n operands; host_a and host_b are A's and B's values (the
 * first matrix of each, row-major m x k and k x n whatever the layout, so
 * a test can compute the reference).  With batches, transposes or a bias
 * the other fields hold the rest (see egpu_prepare).
 */
typedef struct egpu_state {
  egpu_shape shape;
  cl_mem a, b, c;
  cl_mem bt;     /* B transposed, made on first use by the local=0, vec>1 form */
  float *host_a; /* m x k, row-major, the values uploaded to a */
  float *host_b; /* k x n */
  /* ---- layouts ---- */
  egpu_layout layout;
  cl_mem *as, *bs; /* count_a (count_b) matrices as stored: k x m when transposed */
  cl_mem ga, gb;   /* compact A' and B' gathered from a transposed as/bs */
  cl_mem bias;     /* Gemm's C as stored: 1, n, m or m x n values */
  cl_mem c0;       /* the bias broadcast to a compact m x n, for the epilogue */
  cl_mem *ys;      /* count_y outputs */
} egpu_state;

/* egpu_plugin.c */
#if defined(__GNUC__)
#define EGPU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define EGPU_PRINTF(f, a)
#endif
int32_t egpu_fail(const olc_plugin_host *host, int32_t code, const char *fmt, ...)
    EGPU_PRINTF(3, 4);
void egpu_log(const olc_plugin_host *host, int32_t level, const char *fmt, ...) EGPU_PRINTF(3, 4);
/*
 * Reads a MatMul or Gemm workload (dtype, m, n, k, trans_a, trans_b,
 * batch_a, batch_b, bias); UNSUPPORTED (another operator or dtype, a
 * property it does not know) or INVALID with a message.
 */
int32_t egpu_parse_workload(const egpu_instance *inst, const olc_plugin_workload *workload,
                            egpu_layout *layout);
/* The key's structure of a parsed workload (egpu_workload.c): dtype, m, n,
 * k, then each layout property not at its default; one given at its
 * default is declared read (use_property) and left out. */
int32_t egpu_key_structure(const egpu_instance *inst, const olc_plugin_workload *workload,
                           const egpu_layout *l, const olc_plugin_key_sink *sink);
/* Broadcasts batch dims (numpy: right-aligned, 1 stretches); -1 when they do not. */
int egpu_batch_broadcast(const egpu_batch *a, const egpu_batch *b, egpu_batch *out);
/*
 * Where product `index` (row-major over the broadcast dims y) finds its
 * matrix in an operand with batch dims x (right-aligned to y) and strides
 * st (one per dim of x, in elements): a dim of 1 is broadcast (stays 0).
 */
uint64_t egpu_batch_offset(const egpu_batch *y, const egpu_batch *x, const int64_t *st,
                           uint64_t index);

/* egpu_policy.c */
/* Writes the text form ("v1 tm=64 ... wg=16x16") into buf; returns its length. */
size_t egpu_policy_format(const egpu_policy *p, char *buf, size_t size);
/* Strict parser; on failure writes a one-line reason into msg and returns -1. */
int egpu_policy_parse(const char *text, size_t len, egpu_policy *out, char *msg, size_t msg_size);
/* Checks a parsed policy against its own rules and the device's limits. */
int egpu_policy_check(const egpu_policy *p, const egpu_limits *limits, char *msg, size_t msg_size);
/* Local memory one work-group of the policy uses, in bytes. */
uint64_t egpu_policy_local_bytes(const egpu_policy *p);
/* The simplest policy: one element per work item, no local memory. */
void egpu_policy_simplest(const egpu_limits *limits, egpu_policy *out);
int32_t egpu_candidates(void *instance, const olc_plugin_workload *workload,
                        const olc_plugin_policy_sink *sink);
int32_t egpu_validate(void *instance, const void *bytes, uint64_t len, void **policy);
int32_t egpu_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out);
void egpu_release_policy(void *instance, void *policy);

/* egpu_source.c: the OpenCL C source of every program, in pieces. */
#define EGPU_SOURCE_PARTS 7u
extern const char *const egpu_kernel_source[EGPU_SOURCE_PARTS];

/* egpu_kernel.c */
/* The built program of a policy (cached); the caller holds inst->lock. */
int32_t egpu_find_program(egpu_instance *inst, const egpu_policy *pol, egpu_program **out);
/*
 * Enqueues c = a x b on compact row-major device buffers of shape (m x k,
 * k x n, m x n), with B's transpose into bt first for the local=0, vec>1
 * form (bt: n x k, else unused).  Does not wait.  The caller holds
 * inst->lock.  OLC_PLUGIN_OK or OLC_PLUGIN_E_FAILED with a message.
 */
int32_t egpu_enqueue_product(egpu_instance *inst, const egpu_program *prog, const egpu_shape *shape,
                             cl_mem a, cl_mem b, cl_mem c, cl_mem bt);
/*
 * Enqueues dst[i * cols + j] = src[offset + i * rs + j * cs] for i < rows,
 * j < cols: a view (transposed, broadcast, strided) made compact on the
 * device.  Does not wait; the caller holds inst->lock.
 */
int32_t egpu_enqueue_gather(egpu_instance *inst, const egpu_program *prog, uint32_t rows,
                            uint32_t cols, cl_mem src, uint64_t offset, uint64_t rs, uint64_t cs,
                            cl_mem dst);
/* T = alpha * T + beta * C0 over count compact elements (C0 not read with
 * beta 0).  Does not wait; the caller holds inst->lock. */
int32_t egpu_enqueue_axpby(egpu_instance *inst, const egpu_program *prog, size_t count, float alpha,
                           float beta, cl_mem t, cl_mem c0);
int32_t egpu_prepare(void *instance, const olc_plugin_workload *workload, void **state);
void egpu_unprepare(void *instance, void *state);
int32_t egpu_run(void *instance, const olc_plugin_workload *workload, void *state,
                 const void *policy);
/* Frees every cached program. */
void egpu_programs_free(egpu_instance *inst);

/* egpu_execute.c */
/* The plugin's execute (ABI 1.1): C = alpha * A * B + beta * C on caller
 * memory, through device buffers; see the file's comment for the copies. */
int32_t egpu_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                     const olc_plugin_exec_args *args);

#endif /* EGPU_H */
