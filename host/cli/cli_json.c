/*
 * host/cli/cli_json.c - a small streaming JSON writer.
 *
 * Strings are escaped per RFC 8259 (quote, backslash, control bytes) and
 * checked for UTF-8 so the output is always valid JSON, whatever bytes a
 * record holds.
 */
#include "cli.h"

#include <string.h>

void cli_json_init(cli_json *j, FILE *out) {
  memset(j, 0, sizeof *j);
  j->out = out;
  j->first[0] = 1;
}

void cli_json_document(cli_json *j, FILE *out) {
  cli_json_init(j, out);
  cli_json_begin_object(j);
  cli_json_key(j, "schema");
  cli_json_int(j, CLI_JSON_SCHEMA);
}

/* Writes the separator owed before a new value at the current depth. */
static void json_value_start(cli_json *j) {
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth > 0 && !j->first[j->depth])
    fputc(',', j->out);
  j->first[j->depth] = 0;
}

static void json_open(cli_json *j, int c) {
  json_value_start(j);
  fputc(c, j->out);
  if (j->depth + 1 < CLI_JSON_MAX_DEPTH)
    j->depth++;
  j->first[j->depth] = 1;
}

static void json_close(cli_json *j, int c) {
  if (j->depth > 0)
    j->depth--;
  fputc(c, j->out);
}

void cli_json_begin_object(cli_json *j) { json_open(j, '{'); }
void cli_json_end_object(cli_json *j) { json_close(j, '}'); }
void cli_json_begin_array(cli_json *j) { json_open(j, '['); }
void cli_json_end_array(cli_json *j) { json_close(j, ']'); }

static void json_write_string(cli_json *j, const unsigned char *s, size_t len);

void cli_json_key(cli_json *j, const char *key) {
  json_value_start(j);
  json_write_string(j, (const unsigned char *)key, strlen(key));
  fputc(':', j->out);
  j->after_key = 1;
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs,
 * no surrogates, at most U+10FFFF), or 0. */
size_t cli_utf8_sequence(const unsigned char *s, size_t len) {
  unsigned c = s[0];
  size_t n, i;
  unsigned lo = 0x80, hi = 0xBF;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0)
      lo = 0xA0;
    else if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F;
  } else
    return 0;
  if (len < n)
    return 0;
  for (i = 1; i < n; i++) {
    unsigned b = s[i];
    if (b < lo || b > hi)
      return 0;
    lo = 0x80;
    hi = 0xBF;
  }
  return n;
}

int cli_utf8_valid(const unsigned char *s, size_t len) {
  size_t i = 0;
  while (i < len) {
    size_t n = cli_utf8_sequence(s + i, len - i);
    if (n == 0)
      return 0;
    i += n;
  }
  return 1;
}

static void json_write_string(cli_json *j, const unsigned char *s, size_t len) {
  size_t i = 0;
  fputc('"', j->out);
  while (i < len) {
    unsigned c = s[i];
    size_t n;
    switch (c) {
    case '"':
      fputs("\\\"", j->out);
      break;
    case '\\':
      fputs("\\\\", j->out);
      break;
    case '\n':
      fputs("\\n", j->out);
      break;
    case '\r':
      fputs("\\r", j->out);
      break;
    case '\t':
      fputs("\\t", j->out);
      break;
    case '\b':
      fputs("\\b", j->out);
      break;
    case '\f':
      fputs("\\f", j->out);
      break;
    default:
      if (c < 0x20 || c == 0x7F) {
        fprintf(j->out, "\\u%04x", c);
        break;
      }
      n = cli_utf8_sequence(s + i, len - i);
      if (n == 0) {
        fputs("\\ufffd", j->out);
        break;
      }
      fwrite(s + i, 1, n, j->out);
      i += n;
      continue;
    }
    i++;
  }
  fputc('"', j->out);
}

void cli_json_string_n(cli_json *j, const unsigned char *s, size_t len) {
  json_value_start(j);
  json_write_string(j, s, len);
}

void cli_json_string(cli_json *j, const char *s) {
  if (s == NULL) {
    cli_json_null(j);
    return;
  }
  cli_json_string_n(j, (const unsigned char *)s, strlen(s));
}

void cli_json_int(cli_json *j, int64_t v) {
  json_value_start(j);
  fprintf(j->out, "%lld", (long long)v);
}

void cli_json_double(cli_json *j, double v) {
  char buf[40];
  json_value_start(j);
  /* The store only holds finite values; JSON has no inf or nan. */
  if (v != v || v - v != 0.0) {
    fputs("null", j->out);
    return;
  }
  cli_format_double(buf, sizeof buf, v);
  fputs(buf, j->out);
}

void cli_json_bool(cli_json *j, int v) {
  json_value_start(j);
  fputs(v ? "true" : "false", j->out);
}

void cli_json_null(cli_json *j) {
  json_value_start(j);
  fputs("null", j->out);
}

void cli_json_newline(cli_json *j) { fputc('\n', j->out); }

void cli_json_break(cli_json *j) {
  if (j->depth > 0 && !j->first[j->depth] && !j->after_key) {
    fputc(',', j->out);
    j->after_key = 1; /* the separator is written: the next value adds none */
  }
  fputc('\n', j->out);
}

static void base64_string(FILE *out, const unsigned char *s, size_t len);

void cli_json_base64(cli_json *j, const unsigned char *s, size_t len) {
  json_value_start(j);
  base64_string(j->out, s, len);
}

void cli_json_key_base64(cli_json *j, const unsigned char *s, size_t len) {
  json_value_start(j);
  base64_string(j->out, s, len);
  fputc(':', j->out);
  j->after_key = 1;
}

static void base64_string(FILE *out, const unsigned char *s, size_t len) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i;
  fputc('"', out);
  for (i = 0; i + 2 < len; i += 3) {
    unsigned long v = ((unsigned long)s[i] << 16) | ((unsigned long)s[i + 1] << 8) | s[i + 2];
    fputc(alphabet[(v >> 18) & 63], out);
    fputc(alphabet[(v >> 12) & 63], out);
    fputc(alphabet[(v >> 6) & 63], out);
    fputc(alphabet[v & 63], out);
  }
  if (len - i == 1) {
    unsigned long v = (unsigned long)s[i] << 16;
    fputc(alphabet[(v >> 18) & 63], out);
    fputc(alphabet[(v >> 12) & 63], out);
    fputs("==", out);
  } else if (len - i == 2) {
    unsigned long v = ((unsigned long)s[i] << 16) | ((unsigned long)s[i + 1] << 8);
    fputc(alphabet[(v >> 18) & 63], out);
    fputc(alphabet[(v >> 12) & 63], out);
    fputc(alphabet[(v >> 6) & 63], out);
    fputc('=', out);
  }
  fputc('"', out);
}

void cli_json_text_member(cli_json *j, const char *name, const char *value) {
  char key[64];
  size_t len;
  if (value == NULL || cli_utf8_valid((const unsigned char *)value, strlen(value))) {
    cli_json_key(j, name);
    cli_json_string(j, value);
    return;
  }
  len = strlen(value);
  snprintf(key, sizeof key, "%s_base64", name);
  cli_json_key(j, key);
  cli_json_base64(j, (const unsigned char *)value, len);
}
