/*
 * calibrate/wire_posix.c - frames over a stream socket with a deadline.
 *
 * The socket stays blocking (the worker uses it plainly); every call here
 * polls first and then reads or writes with MSG_DONTWAIT, so a peer that
 * hangs costs at most the deadline.  MSG_NOSIGNAL keeps a dead peer from
 * raising SIGPIPE in a host whose signal dispositions are not ours to
 * change (Apple systems use SO_NOSIGPIPE on the socket instead).
 */
#include "calibrate/wire.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "util/error.h"
#include "util/platform.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

/* Waits for events on fd until deadline_ns (0: forever): 1 ready, 0 timed
 * out, -1 with errno. */
static int wait_fd(int fd, short events, uint64_t deadline_ns) {
  for (;;) {
    struct pollfd p;
    int ms = -1, n;
    if (deadline_ns != 0) {
      uint64_t now = olc_util__now_ns();
      uint64_t left;
      if (now >= deadline_ns)
        return 0;
      left = (deadline_ns - now + 999999u) / 1000000u;
      ms = left > 60000u ? 60000 : (int)left;
    }
    p.fd = fd;
    p.events = events;
    p.revents = 0;
    n = poll(&p, 1, ms);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n > 0)
      return 1; /* readable, writable, hung up or in error: the call tells */
  }
}

olc_status olc_wire__send(int fd, const olc_wire_writer *w, uint64_t deadline_ns, olc_error *err) {
  size_t off = 0;
  if (w->st != OLC_OK)
    return olc_error__set(err, w->st, "wire", "frame could not be built");
  while (off < w->buf.len) {
    ssize_t n;
    int ready = wait_fd(fd, POLLOUT, deadline_ns);
    if (ready == 0)
      return olc_error__set(err, OLC_E_TIMEOUT, "wire", "worker did not read in time");
    if (ready < 0)
      return olc_error__sys(err, OLC_E_IO, errno, "wire", "poll on the worker socket");
    n = send(fd, w->buf.data + off, w->buf.len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n < 0)
      return olc_error__sys(err, OLC_E_IO, errno, "wire", "send to the worker socket");
    off += (size_t)n;
  }
  return OLC_OK;
}

/* Reads exactly len bytes. */
static olc_status recv_exact(int fd, unsigned char *dst, size_t len, uint64_t deadline_ns,
                             olc_error *err) {
  size_t off = 0;
  while (off < len) {
    ssize_t n;
    int ready = wait_fd(fd, POLLIN, deadline_ns);
    if (ready == 0)
      return olc_error__set(err, OLC_E_TIMEOUT, "wire", "no answer in time");
    if (ready < 0)
      return olc_error__sys(err, OLC_E_IO, errno, "wire", "poll on the worker socket");
    n = recv(fd, dst + off, len - off, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n < 0)
      return olc_error__sys(err, OLC_E_IO, errno, "wire", "recv from the worker socket");
    if (n == 0)
      return olc_error__set(err, OLC_E_IO, "wire", "the other end closed the connection");
    off += (size_t)n;
  }
  return OLC_OK;
}

olc_status olc_wire__recv(int fd, uint32_t *type, olc_buf *payload, uint64_t deadline_ns,
                          olc_error *err) {
  unsigned char h[OLC_WIRE_HEADER_SIZE];
  uint32_t len = 0;
  olc_status st;
  olc_buf__reset(payload);
  st = recv_exact(fd, h, sizeof h, deadline_ns, err);
  if (st != OLC_OK)
    return st;
  if (olc_wire__header(h, type, &len) != OLC_OK)
    return olc_error__set(err, OLC_E_MALFORMED, "wire", "frame of %lu bytes is over the limit",
                          (unsigned long)len);
  if (len == 0)
    return OLC_OK;
  if (olc_buf__reserve(payload, len) != OLC_OK)
    return olc_error__set(err, OLC_E_NOMEM, "wire", "out of memory");
  st = recv_exact(fd, payload->data, len, deadline_ns, err);
  if (st == OLC_OK)
    payload->len = len;
  return st;
}
