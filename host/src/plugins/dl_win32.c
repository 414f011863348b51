/*
 * plugins/dl_win32.c - the loader's platform layer on Windows.
 *
 * Libraries are loaded with LoadLibraryExW (wide paths, converted from
 * UTF-8), with LOAD_WITH_ALTERED_SEARCH_PATH so a plugin's own dependencies
 * are found beside it; this is what dlfcn-win32's dlopen does for
 * RTLD_LOCAL too, without the extra dependency.  Access rights are ACLs, not
 * mode bits: the permission check is not implemented here and always
 * passes (documented in the load report as a platform limit).
 */
#include "plugins/plugins_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "util/error.h"

static wchar_t *to_wide(const char *s) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  wchar_t *w;
  if (n <= 0)
    return NULL;
  w = malloc((size_t)n * sizeof *w);
  if (w != NULL && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) <= 0) {
    free(w);
    w = NULL;
  }
  return w;
}

static char *to_utf8(const wchar_t *w) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  char *s;
  if (n <= 0)
    return NULL;
  s = malloc((size_t)n);
  if (s != NULL && WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) <= 0) {
    free(s);
    s = NULL;
  }
  return s;
}

/* System text ends in ".\r\n" and may hold inserts ("%1 is not a valid
 * Win32 application"), which FORMAT_MESSAGE_IGNORE_INSERTS leaves as they
 * are: one line, the inserts named, no trailing period. */
static void one_line_text(char *msg, size_t size, const char *what, const char *text) {
  size_t n, i;
  if (size == 0)
    return;
  n = (size_t)snprintf(msg, size, "%s: ", what);
  for (i = 0; text[i] != 0 && n + 1 < size; i++) {
    if (text[i] == '%' && text[i + 1] >= '1' && text[i + 1] <= '9') {
      n += (size_t)snprintf(msg + n, size - n, "the file");
      i++;
    } else {
      msg[n++] = text[i] == '\r' || text[i] == '\n' ? ' ' : text[i];
    }
  }
  if (n >= size)
    n = size - 1;
  while (n > 0 && (msg[n - 1] == ' ' || msg[n - 1] == '.'))
    n--;
  msg[n] = 0;
}

static void last_error_text(char *msg, size_t size, const char *what) {
  DWORD code = GetLastError();
  char buf[256];
  DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
                           0, buf, (DWORD)sizeof buf, NULL);
  if (n == 0)
    snprintf(buf, sizeof buf, "error %lu", (unsigned long)code);
  one_line_text(msg, size, what, buf);
}

void *olc_plugins__dl_open(const char *path, char *msg, size_t size) {
  wchar_t *w = to_wide(path);
  HMODULE h = NULL;
  UINT old_mode;
  if (w == NULL) {
    snprintf(msg, size, "path is not valid utf-8");
    return NULL;
  }
  olc_plugins__lock();
  /* No "bad image" message boxes for a foreign file. */
  old_mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  if (h == NULL)
    last_error_text(msg, size, "LoadLibraryExW");
  SetErrorMode(old_mode);
  olc_plugins__unlock();
  free(w);
  return (void *)h;
}

void *olc_plugins__dl_sym(void *handle, const char *name, char *msg, size_t size) {
  FARPROC p;
  void *out;
  olc_plugins__lock();
  p = GetProcAddress((HMODULE)handle, name);
  if (p == NULL)
    last_error_text(msg, size, "GetProcAddress");
  olc_plugins__unlock();
  memcpy(&out, &p, sizeof out);
  return out;
}

/* The final path of an open file or folder: case as stored, links and
 * short names resolved, without the "\\?\" prefix GetFinalPathNameByHandleW
 * puts in front ("\\?\UNC\srv\share" becomes "\\srv\share"). */
static char *final_path(HANDLE h) {
  DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL, *from;
  char *out = NULL;
  DWORD got;
  if (w == NULL)
    return NULL;
  /* n counted the NUL; got, on success, does not. */
  got = GetFinalPathNameByHandleW(h, w, n, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  if (got > 0 && got < n) {
    from = w;
    if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
      from = w + 6;
      from[0] = L'\\';
    } else if (wcsncmp(w, L"\\\\?\\", 4) == 0) {
      from = w + 4;
    }
    out = to_utf8(from);
  }
  free(w);
  return out;
}

/* Like realpath: one spelling per file or folder, so a plugin directory
 * named twice (other case, a link, a short name) is searched once. */
char *olc_plugins__realpath(const char *path) {
  wchar_t *w = to_wide(path);
  HANDLE h;
  char *out;
  if (w == NULL)
    return NULL;
  /* FILE_FLAG_BACKUP_SEMANTICS opens folders too; no access is asked. */
  h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                  FILE_FLAG_BACKUP_SEMANTICS, NULL);
  free(w);
  if (h == INVALID_HANDLE_VALUE)
    return NULL;
  out = final_path(h);
  CloseHandle(h);
  return out;
}

int olc_plugins__is_dir(const char *path) {
  wchar_t *w = to_wide(path);
  DWORD a;
  if (w == NULL)
    return 0;
  a = GetFileAttributesW(w);
  free(w);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) != 0;
}

size_t olc_plugins__suffix_len(const char *name) {
  size_t n = strlen(name);
  if (n > 4 && _stricmp(name + n - 4, ".dll") == 0)
    return 4;
  return 0;
}

olc_status olc_plugins__list_dir(char ***names, size_t *count, const char *dir, olc_error *err) {
  olc_plugins_names list = {NULL, 0, 0};
  char *pattern = olc_plugins__join(dir, "*");
  wchar_t *w = pattern ? to_wide(pattern) : NULL;
  WIN32_FIND_DATAW fd;
  HANDLE h;
  olc_status st = OLC_OK;
  *names = NULL;
  *count = 0;
  free(pattern);
  if (w == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "readdir", "plugin directory %s", dir);
  h = FindFirstFileW(w, &fd);
  free(w);
  if (h == INVALID_HANDLE_VALUE) {
    if (GetLastError() == ERROR_FILE_NOT_FOUND)
      return OLC_OK;
    return olc_error__set(err, OLC_E_IO, "opendir", "plugin directory %s cannot be read", dir);
  }
  do {
    char *name;
    /* Directories are listed too: olc_plugins__not_regular reports them. */
    if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
      continue;
    name = to_utf8(fd.cFileName);
    if (name == NULL)
      continue;
    if (olc_plugins__has_suffix(name) && olc_plugins__names_push(&list, name) != OLC_OK)
      st = olc_error__set(err, OLC_E_NOMEM, "readdir", "out of memory");
    free(name);
  } while (st == OLC_OK && FindNextFileW(h, &fd));
  FindClose(h);
  return olc_plugins__names_finish(&list, st, names, count);
}

int olc_plugins__insecure(const char *path, char *msg, size_t size) {
  (void)path;
  (void)msg;
  (void)size;
  return 0;
}

int olc_plugins__not_regular(const char *path, char *msg, size_t size) {
  wchar_t *w = to_wide(path);
  DWORD a = w != NULL ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
  free(w);
  if (a == INVALID_FILE_ATTRIBUTES) {
    snprintf(msg, size, "not a regular file: cannot read its attributes (win32 error %lu)",
             (unsigned long)GetLastError());
    return 1;
  }
  if ((a & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    snprintf(msg, size, "not a regular file: a directory");
    return 1;
  }
  if ((a & FILE_ATTRIBUTE_DEVICE) != 0) {
    snprintf(msg, size, "not a regular file: a device");
    return 1;
  }
  return 0;
}

const char *olc_plugins__env_path(void) {
  /* No setuid on Windows; the environment is the user's own. */
  const char *v = getenv("OLC_PLUGIN_PATH");
  return v;
}

char olc_plugins__path_separator(void) { return ';'; }
