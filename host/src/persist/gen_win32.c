/*
 * persist/gen_win32.c - the generation counter of P.lock on Windows
 * (persist.h, "change detection"; docs/durability.md, "The change counter"): a view of a file
 * mapping, writable by writers holding LockFileEx, read-only for readers.
 * Views are not subject to byte-range locks (SQLite maps its locked -shm
 * the same way), and a file with a mapped view cannot be truncated
 * (SetEndOfFile fails with ERROR_USER_MAPPED_FILE), so an access through a
 * view never meets a cut-short file.  The page is allocated by extending
 * the file before it is mapped: a full disk fails there, not at an access.
 *
 * The header is accessed with the __atomic builtins: other processes write
 * it.
 */
#include "persist/win_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static uint64_t *gen_ptr(void *base) {
  return (uint64_t *)(void *)((unsigned char *)base + OLC_PERSIST__GEN_OFFSET);
}

static uint64_t load64(const void *base, size_t off) {
  return __atomic_load_n((const uint64_t *)(const void *)((const unsigned char *)base + off),
                         __ATOMIC_ACQUIRE);
}

static int header_valid(const void *base) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  uint64_t m = load64(base, 0);
  memcpy(h, &m, sizeof m);
  return olc_persist__gen_header_valid(h);
}

/* Writer, lock held: a fresh header unless the page already has one.  The
 * counter and the instance first, then the magic that makes readers trust
 * them. */
static void header_init(void *base) {
  unsigned char h[OLC_PERSIST__GEN_HEADER];
  uint64_t v;
  if (header_valid(base))
    return;
  olc_persist__gen_header_init(h);
  memcpy(&v, h + OLC_PERSIST__GEN_OFFSET, sizeof v);
  __atomic_store_n(gen_ptr(base), v, __ATOMIC_SEQ_CST);
  memcpy(&v, h + OLC_PERSIST__GEN_INSTANCE, sizeof v);
  __atomic_store_n((uint64_t *)(void *)((unsigned char *)base + OLC_PERSIST__GEN_INSTANCE), v,
                   __ATOMIC_SEQ_CST);
  memcpy(&v, h, sizeof v);
  __atomic_store_n((uint64_t *)base, v, __ATOMIC_SEQ_CST);
}

olc_status olc_win__gen_open(void **base, HANDLE *mapping, HANDLE lock, const char *path,
                             olc_error *err) {
  LARGE_INTEGER size;
  *base = NULL;
  *mapping = NULL;
  if (lock == INVALID_HANDLE_VALUE)
    return OLC_OK; /* negative control without a lock: no counter either */
  if (!OLC_FS(GetFileSizeEx(lock, &size)))
    return olc_win__error(err, OLC_E_IO, GetLastError(), "lock", "cannot size the lock file", path);
  /* Grown only under the lock and only while no reader can have it mapped
   * (readers map a file of at least OLC_PERSIST__GEN_SIZE bytes), since
   * Windows refuses to resize a mapped file. */
  if (size.QuadPart < (LONGLONG)OLC_PERSIST__GEN_SIZE) {
    LARGE_INTEGER end;
    end.QuadPart = (LONGLONG)OLC_PERSIST__GEN_SIZE;
    if (!OLC_FS(SetFilePointerEx(lock, end, NULL, FILE_BEGIN)) || !OLC_FS(SetEndOfFile(lock))) {
      DWORD e = GetLastError();
      return olc_win__error(err, olc_win__status(e, OLC_E_IO), e, "lock",
                            "cannot allocate the lock file", path);
    }
  }
  *mapping = OLC_FS(CreateFileMappingW(lock, NULL, PAGE_READWRITE, 0, OLC_PERSIST__GEN_SIZE, NULL));
  if (*mapping != NULL)
    *base = OLC_FS(MapViewOfFile(*mapping, FILE_MAP_WRITE, 0, 0, OLC_PERSIST__GEN_SIZE));
  if (*base == NULL) {
    DWORD e = GetLastError();
    if (*mapping != NULL)
      OLC_FS(CloseHandle(*mapping));
    *mapping = NULL;
    return olc_win__error(err, olc_win__status(e, OLC_E_IO), e, "lock", "cannot map the lock file",
                          path);
  }
  header_init(*base);
  return OLC_OK;
}

void olc_win__gen_close(void *base, HANDLE mapping) {
  if (base != NULL)
    OLC_FS(UnmapViewOfFile(base));
  if (mapping != NULL)
    OLC_FS(CloseHandle(mapping));
}

/* A full fence after the odd store and before the even one: the odd value
 * is visible to every process before the replace is. */
void olc_win__gen_odd(void *base) {
  if (base == NULL)
    return;
  __atomic_store_n(gen_ptr(base), olc_persist__gen_next_odd(load64(base, OLC_PERSIST__GEN_OFFSET)),
                   __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void olc_win__gen_even(void *base) {
  if (base == NULL)
    return;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(gen_ptr(base), olc_persist__gen_next_even(load64(base, OLC_PERSIST__GEN_OFFSET)),
                   __ATOMIC_SEQ_CST);
}

int olc_win__gen_get(void *base, uint64_t *gen, uint64_t *instance) {
  if (base == NULL || !header_valid(base))
    return -1;
  *gen = load64(base, OLC_PERSIST__GEN_OFFSET);
  *instance = load64(base, OLC_PERSIST__GEN_INSTANCE);
  return 0;
}

int olc_persist__gen_open_read(olc_persist_gen_src *src, olc_file_id *id, const char *lock_path) {
  BY_HANDLE_FILE_INFORMATION info;
  wchar_t *w;
  HANDLE h, m = NULL;
  void *p = NULL;
  uint64_t size;
  src->fd = -1;
  src->base = NULL;
  src->handle = NULL;
  w = olc_win__wide(lock_path);
  if (w == NULL)
    return -1;
  /* FILE_FLAG_OPEN_REPARSE_POINT: a link planted at P.lock is never
   * followed (it is then not a regular file and is refused below). */
  h = OLC_FS(CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL));
  free(w);
  if (h == INVALID_HANDLE_VALUE)
    return -1;
  if (OLC_FS(GetFileInformationByHandle(h, &info)) &&
      (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) == 0) {
    size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
    if (size >= OLC_PERSIST__GEN_SIZE)
      m = OLC_FS(CreateFileMappingW(h, NULL, PAGE_READONLY, 0, OLC_PERSIST__GEN_SIZE, NULL));
    if (m != NULL) {
      p = OLC_FS(MapViewOfFile(m, FILE_MAP_READ, 0, 0, OLC_PERSIST__GEN_SIZE));
      /* The view keeps the section and the file alive. */
      OLC_FS(CloseHandle(m));
    }
  }
  OLC_FS(CloseHandle(h));
  if (p == NULL)
    return -1;
  if (!header_valid(p)) {
    OLC_FS(UnmapViewOfFile(p));
    return -1; /* no writer has initialized it yet */
  }
  olc_win__id_from_info(id, &info);
  src->instance = load64(p, OLC_PERSIST__GEN_INSTANCE);
  src->base = p;
  return 0;
}

int olc_persist__gen_read(const olc_persist_gen_src *src, uint64_t *gen) {
  uint64_t g;
  if (src->base == NULL || !header_valid(src->base))
    return -1;
  g = load64(src->base, OLC_PERSIST__GEN_OFFSET);
  if (load64(src->base, OLC_PERSIST__GEN_INSTANCE) != src->instance)
    return -1; /* re-initialized: another count */
  *gen = g;
  return 0;
}

void olc_persist__gen_close_read(olc_persist_gen_src *src) {
  if (src->base != NULL)
    OLC_FS(UnmapViewOfFile(src->base));
  src->base = NULL;
}
