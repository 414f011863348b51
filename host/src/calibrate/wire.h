/*
 * calibrate/wire.h - the protocol between the calibrate loop and its
 * measuring worker process (olc-worker, host/worker/).
 *
 * One stream socket (a socketpair) carries frames in both directions:
 *
 *   u32 type | u32 payload length | payload
 *
 * little-endian, payload at most OLC_WIRE_MAX_FRAME bytes.  Payload
 * fields are u32, u64, f64 (IEEE bits as u64) and strings (u32 length
 * including a terminating NUL, then the bytes; length 0 = NULL) or byte
 * strings (u32 length, bytes).  The exchange is strictly request/answer:
 *
 *   host -> worker  SETUP    version, plugin file and name, threads,
 *                            allow_insecure_plugins, [plugin.NAME]
 *                            entries, the workload, the numerical
 *                            check (enabled, atol, rtol, seed, the
 *                            reference policy; check.h), the instances
 *                            to rotate through, the workload's
 *                            constant_inputs
 *   worker -> host  READY    status, message (plugin loaded, prepared)
 *   host -> worker  MEASURE  candidate index, serialized policy, the
 *                            measure parameters (deadline as time left)
 *   worker -> host  PROGRESS (any number, before RESULT) a run of the
 *                            plugin finished; sent at most every 100 ms
 *   worker -> host  RESULT   index, status, message, median, mad,
 *                            samples, end reason, the samples' wall time
 *                            (f64 us), each sample's run time (f64 us, in
 *                            run order; as many as samples),
 *                            the plugin's log lines meanwhile (count,
 *                            then level and text each), and whether the
 *                            candidate passed the numerical check (u32
 *                            1) or was not checked (0; a mismatch is the
 *                            status OLC_E_MISMATCH)
 *
 * PROGRESS makes the host's timeout a limit on one run (on silence), not
 * on a whole measurement, which may legitimately take long.
 *
 * The host closing its end is the worker's signal to clean up and exit.
 * Encoding (wire.c) is portable; the socket I/O is wire_posix.c.
 */
#ifndef OLC_CALIBRATE_WIRE_H
#define OLC_CALIBRATE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"
#include "util/buf.h"

#define OLC_WIRE_VERSION 8u /* 8: the workload's constant_inputs */
#define OLC_WIRE_HEADER_SIZE 8u
/* Larger than any legal SETUP or MEASURE (a policy is at most 1 MiB). */
#define OLC_WIRE_MAX_FRAME ((uint32_t)16 << 20)

typedef enum olc_wire_type {
  OLC_WIRE_SETUP = 1,
  OLC_WIRE_READY = 2,
  OLC_WIRE_MEASURE = 3,
  OLC_WIRE_RESULT = 4,
  OLC_WIRE_PROGRESS = 5 /* worker -> host, no payload: a run finished */
} olc_wire_type;

/* A frame being built: begin, put fields, finish.  The first failure
 * sticks in st and later puts do nothing. */
typedef struct olc_wire_writer {
  olc_buf buf;
  olc_status st;
} olc_wire_writer;

void olc_wire__begin(olc_wire_writer *w, uint32_t type);
void olc_wire__put_u32(olc_wire_writer *w, uint32_t v);
void olc_wire__put_u64(olc_wire_writer *w, uint64_t v);
void olc_wire__put_f64(olc_wire_writer *w, double v);
/* NULL is encoded as length 0 and read back as NULL. */
void olc_wire__put_str(olc_wire_writer *w, const char *s);
void olc_wire__put_bytes(olc_wire_writer *w, const void *p, size_t len);
/* Writes the payload length into the header.  OLC_OK, OLC_E_NOMEM or
 * OLC_E_LIMIT (frame over OLC_WIRE_MAX_FRAME). */
olc_status olc_wire__finish(olc_wire_writer *w);
void olc_wire__writer_free(olc_wire_writer *w);

/* Reads a received payload.  A field past the end, a string without its
 * NUL or with one inside sets bad; later gets return zero/NULL. */
typedef struct olc_wire_reader {
  const unsigned char *p;
  size_t len;
  size_t pos;
  int bad;
} olc_wire_reader;

void olc_wire__reader(olc_wire_reader *r, const void *payload, size_t len);
uint32_t olc_wire__get_u32(olc_wire_reader *r);
uint64_t olc_wire__get_u64(olc_wire_reader *r);
double olc_wire__get_f64(olc_wire_reader *r);
/* Borrowed pointers into the payload. */
const char *olc_wire__get_str(olc_wire_reader *r);
const void *olc_wire__get_bytes(olc_wire_reader *r, size_t *len);
/* 1 when every field was read and nothing is left over. */
int olc_wire__done(const olc_wire_reader *r);

/* Decodes a frame header: OLC_OK, or OLC_E_MALFORMED for a length over
 * OLC_WIRE_MAX_FRAME. */
olc_status olc_wire__header(const unsigned char h[OLC_WIRE_HEADER_SIZE], uint32_t *type,
                            uint32_t *len);

/* -------------------------------------------- measure parameters */

struct olc_timing_params;

/*
 * The measure parameters of a MEASURE frame (every field of
 * olc_timing_params but deadline_ns, which the caller sends as the time
 * left), encoded and decoded from one field list in wire.c: a parameter
 * added to olc_timing_params is one row there, not an edit of both ends.
 * A row whose kind does not fit its field sets w->st to OLC_E_INTERNAL,
 * or r->bad.
 */
void olc_wire__put_params(olc_wire_writer *w, const struct olc_timing_params *params);
void olc_wire__get_params(olc_wire_reader *r, struct olc_timing_params *params);

/* ------------------------------------------------ socket I/O (POSIX) */

/*
 * Sends a finished frame on a stream socket.  deadline_ns is an
 * olc_util__now_ns() value (0: wait forever).  Never raises SIGPIPE.
 * OLC_OK, OLC_E_TIMEOUT, OLC_E_IO (peer gone: sys_errno EPIPE).
 */
olc_status olc_wire__send(int fd, const olc_wire_writer *w, uint64_t deadline_ns, olc_error *err);
/*
 * Receives one frame into payload (reset first).  OLC_OK, OLC_E_TIMEOUT,
 * OLC_E_IO (end of stream: sys_errno 0, message says "closed"),
 * OLC_E_MALFORMED (bad header), OLC_E_NOMEM.
 */
olc_status olc_wire__recv(int fd, uint32_t *type, olc_buf *payload, uint64_t deadline_ns,
                          olc_error *err);

#endif
