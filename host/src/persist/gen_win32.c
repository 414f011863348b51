/*
 * persist/gen_win32.c - mapping the generation counter of P.lock on
 * Windows (persist.h, "change detection without a system call"): a view of a file mapping,
 * writable by writers holding LockFileEx, read-only for readers.  Views are
 * not subject to byte-range locks (SQLite maps its locked -shm the same
 * way).
 */
#include "persist/win_int.h"

#include <stdlib.h>
#include <string.h>

void *olc_win__gen_open(HANDLE lock, HANDLE *mapping) {
  LARGE_INTEGER size;
  void *base;
  *mapping = NULL;
  if (lock == INVALID_HANDLE_VALUE)
    return NULL; /* negative control without a lock: no counter either */
  if (!OLC_FS(GetFileSizeEx(lock, &size)))
    return NULL;
  /* Grown only under the lock and only while no reader can have it mapped
   * (readers map a file of at least OLC_PERSIST__GEN_SIZE bytes), since
   * Windows refuses to resize a mapped file. */
  if (size.QuadPart < (LONGLONG)OLC_PERSIST__GEN_SIZE) {
    LARGE_INTEGER end;
    end.QuadPart = (LONGLONG)OLC_PERSIST__GEN_SIZE;
    if (!OLC_FS(SetFilePointerEx(lock, end, NULL, FILE_BEGIN)) || !OLC_FS(SetEndOfFile(lock)))
      return NULL;
  }
  *mapping = OLC_FS(CreateFileMappingW(lock, NULL, PAGE_READWRITE, 0, OLC_PERSIST__GEN_SIZE, NULL));
  if (*mapping == NULL)
    return NULL;
  base = OLC_FS(MapViewOfFile(*mapping, FILE_MAP_WRITE, 0, 0, OLC_PERSIST__GEN_SIZE));
  if (base == NULL) {
    OLC_FS(CloseHandle(*mapping));
    *mapping = NULL;
    return NULL;
  }
  olc_persist__gen_init(base);
  return base;
}

void olc_win__gen_close(void *base, HANDLE mapping) {
  if (base != NULL)
    OLC_FS(UnmapViewOfFile(base));
  if (mapping != NULL)
    OLC_FS(CloseHandle(mapping));
}

int olc_persist__gen_map_read(const void **base, void **handle, olc_file_id *id,
                              const char *lock_path) {
  BY_HANDLE_FILE_INFORMATION info;
  wchar_t *w;
  HANDLE h, m = NULL;
  void *p = NULL;
  uint64_t size;
  *base = NULL;
  *handle = NULL;
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
  if (!olc_persist__gen_valid(p)) {
    OLC_FS(UnmapViewOfFile(p));
    return -1; /* no writer has initialized it yet */
  }
  olc_win__id_from_info(id, &info);
  *base = p;
  return 0;
}

void olc_persist__gen_unmap(const void *base, void *handle) {
  (void)handle;
  if (base != NULL)
    OLC_FS(UnmapViewOfFile(base));
}
