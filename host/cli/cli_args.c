/*
 * host/cli/cli_args.c - the argument parser and strict value parsing.
 *
 * Kept free of printing and of the store so that it can be driven directly
 * by tests and by a fuzz target.
 */
#include "cli.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_parser_init(cli_parser *p, cli_ctx *ctx, const cli_option *options, size_t option_count,
                     int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  p->options = options;
  p->option_count = option_count < CLI_MAX_OPTIONS ? option_count : CLI_MAX_OPTIONS;
  p->argc = argc;
  p->argv = argv;
  p->index = 0;
}

/* Copies at most 64 bytes of command-line text for a message, with control
 * bytes shown as '?', so an error stays one line and never sends terminal
 * escapes. */
static const char *shown(char *buf, size_t size, const char *text, size_t len) {
  size_t i, n = len < 64 ? len : 64;
  if (n >= size)
    n = size - 1;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)text[i];
    buf[i] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
  }
  buf[n] = 0;
  return buf;
}

/* Writes "<before><name><after>"; names come from the command line, so
 * they are capped and cleaned to keep the line short and whole. */
static int parser_error(cli_parser *p, const char *before, const char *name, size_t name_len,
                        const char *after) {
  char clean[80];
  snprintf(p->message, sizeof p->message, "%s%s%s", before,
           shown(clean, sizeof clean, name, name_len), after);
  return -1;
}

/* The option named name[0..len), or with len 0 the one whose short
 * letter is *name. */
static const cli_option *parser_find(const cli_parser *p, const char *name, size_t len,
                                     size_t *slot) {
  size_t i;
  for (i = 0; i < p->option_count; i++) {
    const char *o = p->options[i].name;
    if (len == 0 ? CLI_OPT_SHORT_OF(p->options[i].flags) == *name && *name != 0
                 : strlen(o) == len && memcmp(o, name, len) == 0) {
      *slot = i;
      return &p->options[i];
    }
  }
  return NULL;
}

/* The edit distance (insert, delete, replace, swap of neighbours) of
 * a[0..an) and b, or a large number for names too long to matter. */
static size_t edit_distance(const char *a, size_t an, const char *b) {
  size_t bn = strlen(b), i, j, d[3][34];
  if (an > 32 || bn > 32)
    return 99;
  for (j = 0; j <= bn; j++)
    d[0][j] = j;
  for (i = 1; i <= an; i++) {
    size_t *row = d[i % 3], *up = d[(i - 1) % 3], *up2 = d[(i + 1) % 3];
    row[0] = i;
    for (j = 1; j <= bn; j++) {
      size_t best = up[j - 1] + (a[i - 1] != b[j - 1]);
      if (up[j] + 1 < best)
        best = up[j] + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && up2[j - 2] + 1 < best)
        best = up2[j - 2] + 1;
      row[j] = best;
    }
  }
  return d[an % 3][bn];
}

/* "unknown option '--NAME'", with the nearest known option suggested when
 * one is close (a typo, not another word). */
static int parser_unknown(cli_parser *p, const char *name, size_t len) {
  const char *best = NULL;
  size_t i, best_d = len < 5 ? 1 : 2;
  int n;
  for (i = 0; i < p->option_count; i++) {
    size_t d = edit_distance(name, len, p->options[i].name);
    if (d <= best_d && (best == NULL || d < best_d)) {
      best = p->options[i].name;
      best_d = d;
    }
  }
  parser_error(p, "unknown option '--", name, len, "'");
  n = (int)strlen(p->message);
  if (best != NULL && (size_t)n < sizeof p->message)
    snprintf(p->message + n, sizeof p->message - (size_t)n, " (did you mean '--%s'?)", best);
  return -1;
}

/* Takes the option at slot: once unless repeatable. */
static int parser_take(cli_parser *p, const cli_option *opt, size_t slot, const char *arg,
                       size_t arg_len) {
  if (p->seen[slot] && !(opt->flags & CLI_OPT_REPEAT))
    return parser_error(p, "option '", arg, arg_len, "' given more than once");
  p->seen[slot] = 1;
  return 0;
}

/* Takes the value of an option: after '=' or the next argument. */
static int parser_value(cli_parser *p, const char *name, size_t len, const char *eq,
                        int wants_value, const char **value) {
  *value = NULL;
  if (!wants_value) {
    if (eq != NULL)
      return parser_error(p, "option '--", name, len, "' takes no value");
    return 0;
  }
  if (eq != NULL) {
    *value = eq + 1;
    return 0;
  }
  if (p->index >= p->argc)
    return parser_error(p, "option '--", name, len, "' needs a value");
  *value = p->argv[p->index++];
  return 0;
}

/* "-c": a flag's one-letter form; no bundling, no values. */
static int parser_short(cli_parser *p, const char *arg, int *id, const char **value) {
  size_t slot = 0;
  const cli_option *opt = arg[2] == 0 ? parser_find(p, arg + 1, 0, &slot) : NULL;
  if (opt == NULL || opt->value_name != NULL)
    return parser_error(p, "unknown option '", arg, strlen(arg), "'");
  if (parser_take(p, opt, slot, arg, 2) != 0)
    return -1;
  *id = opt->id;
  *value = NULL;
  return 1;
}

/* The global --store, also accepted after the command name, once. */
static int parser_late_store(cli_parser *p, const char *name, size_t len, const char *eq) {
  const char *path;
  if (p->ctx->store_given)
    return parser_error(p, "option '--", name, len, "' given more than once");
  if (parser_value(p, name, len, eq, 1, &path) != 0)
    return -1;
  if (path[0] == 0)
    return parser_error(p, "option '--", name, len, "' needs a non-empty value");
  p->ctx->store_path = path;
  p->ctx->store_given = 1;
  return 0;
}

/* 1 for the global options that are also accepted after the command. */
static int parser_is_global(const char *name, size_t len) {
  return (len == 5 && memcmp(name, "store", 5) == 0) ||
         (len == 9 && memcmp(name, "read-only", 9) == 0);
}

/* The global --store or --read-only after the command name. */
static int parser_late_global(cli_parser *p, const char *name, size_t len, const char *eq) {
  if (len == 5)
    return parser_late_store(p, name, len, eq);
  if (eq != NULL)
    return parser_error(p, "option '--", name, len, "' takes no value");
  p->ctx->read_only = 1;
  return 0;
}

int cli_parser_next(cli_parser *p, int *id, const char **value) {
  for (;;) {
    const char *arg, *name, *eq;
    size_t len, slot = 0;
    const cli_option *opt;

    if (p->index >= p->argc)
      return 0;
    arg = p->argv[p->index++];
    if (p->positional_only || arg[0] != '-' || arg[1] == 0) {
      *id = CLI_ID_POSITIONAL;
      *value = arg;
      return 1;
    }
    if (strcmp(arg, "--") == 0) {
      p->positional_only = 1;
      continue;
    }
    if (strcmp(arg, "-h") == 0) {
      *id = CLI_ID_HELP;
      *value = NULL;
      return 1;
    }
    if (arg[1] != '-')
      return parser_short(p, arg, id, value);
    name = arg + 2;
    eq = strchr(name, '=');
    len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    if (len == 4 && memcmp(name, "help", 4) == 0) {
      if (eq != NULL)
        return parser_error(p, "option '--", name, len, "' takes no value");
      *id = CLI_ID_HELP;
      *value = NULL;
      return 1;
    }
    opt = parser_find(p, name, len, &slot);
    if (opt == NULL && p->ctx != NULL && parser_is_global(name, len)) {
      if (parser_late_global(p, name, len, eq) != 0)
        return -1;
      continue;
    }
    if (opt == NULL)
      return parser_unknown(p, name, len);
    if (parser_take(p, opt, slot, arg, (size_t)(name - arg) + len) != 0)
      return -1;
    /* --config before the command counts as the one --config. */
    if (len == 6 && memcmp(name, "config", 6) == 0 && p->ctx != NULL) {
      if (p->ctx->config_given)
        return parser_error(p, "option '--", name, len, "' given more than once");
      p->ctx->config_given = 1;
    }
    if (parser_value(p, name, len, eq, opt->value_name != NULL, value) != 0)
      return -1;
    *id = opt->id;
    return 1;
  }
}

int cli_parse_int64(int64_t *out, const char *text, int64_t min, int64_t max, char *msg,
                    size_t msg_size) {
  const char *s = text;
  int negative = 0;
  uint64_t limit, v = 0;
  char clean[80];

  if (*s == '-') {
    negative = 1;
    s++;
  }
  if (*s == 0) {
    snprintf(msg, msg_size, "'%s' is not an integer",
             shown(clean, sizeof clean, text, strlen(text)));
    return -1;
  }
  limit = negative ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  for (; *s != 0; s++) {
    unsigned d;
    if (*s < '0' || *s > '9') {
      snprintf(msg, msg_size, "'%s' is not an integer",
               shown(clean, sizeof clean, text, strlen(text)));
      return -1;
    }
    d = (unsigned)(*s - '0');
    if (v > (limit - d) / 10u) {
      size_t i;
      /* Still an integer: finish the grammar check, then say what it is. */
      for (i = 1; s[i] != 0; i++)
        if (s[i] < '0' || s[i] > '9') {
          snprintf(msg, msg_size, "'%s' is not an integer",
                   shown(clean, sizeof clean, text, strlen(text)));
          return -1;
        }
      snprintf(msg, msg_size, "'%s%s' is too %s (out of range %lld to %lld)",
               shown(clean, sizeof clean, text, strlen(text)), strlen(text) > 64 ? "..." : "",
               negative ? "small" : "large", (long long)min, (long long)max);
      return -1;
    }
    v = v * 10u + d;
  }
  {
    /* Two's complement negation without overflowing INT64_MIN. */
    int64_t r = negative ? (v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    if (r < min || r > max) {
      snprintf(msg, msg_size, "%s is out of range (%lld to %lld)",
               shown(clean, sizeof clean, text, strlen(text)), (long long)min, (long long)max);
      return -1;
    }
    *out = r;
  }
  return 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* isfinite() without the macro, which mingw-w64 expands with float
 * conversions that -Wconversion reports. */
static int is_finite(double v) { return v - v == 0.0; }

/* Checks the plain decimal grammar strtod would also accept hex, inf and
 * nan for: [+-]? digits [. digits?] | . digits, then [eE][+-]?digits. */
static int decimal_grammar(const char *s) {
  int digits = 0;
  if (*s == '+' || *s == '-')
    s++;
  while (is_digit(*s)) {
    s++;
    digits++;
  }
  if (*s == '.') {
    s++;
    while (is_digit(*s)) {
      s++;
      digits++;
    }
  }
  if (digits == 0)
    return 0;
  if (*s == 'e' || *s == 'E') {
    int exp_digits = 0;
    s++;
    if (*s == '+' || *s == '-')
      s++;
    while (is_digit(*s)) {
      s++;
      exp_digits++;
    }
    if (exp_digits == 0)
      return 0;
  }
  return *s == 0;
}

/* 1 when the decimal literal has a non-zero digit in its mantissa. */
static int nonzero_mantissa(const char *s) {
  for (; *s != 0 && *s != 'e' && *s != 'E'; s++)
    if (*s >= '1' && *s <= '9')
      return 1;
  return 0;
}

int cli_parse_double(double *out, const char *text, char *msg, size_t msg_size) {
  char *copy, *end = NULL, clean[80];
  const char *dp = localeconv()->decimal_point;
  const char *more;
  size_t len = strlen(text), i;
  double v;
  int e;
  shown(clean, sizeof clean, text, len);
  more = len > 64 ? "..." : "";
  if (!decimal_grammar(text)) {
    snprintf(msg, msg_size, "'%s%s' is not a decimal number", clean, more);
    return -1;
  }
  /* The input always uses '.'; strtod wants the decimal point of the
   * current locale (the tool never calls setlocale, but a command that
   * does must not change how numbers are read).  Any length: a long
   * literal is a number too, and strtod reads it exactly. */
  copy = malloc(len + 1);
  if (copy == NULL) {
    snprintf(msg, msg_size, "out of memory reading '%s%s'", clean, more);
    return -1;
  }
  memcpy(copy, text, len + 1);
  if (dp != NULL && dp[0] != 0 && dp[0] != '.' && dp[1] == 0)
    for (i = 0; i < len; i++)
      if (copy[i] == '.')
        copy[i] = dp[0];
  errno = 0;
  v = strtod(copy, &end);
  e = errno;
  i = end != NULL ? (size_t)(end - copy) : 0;
  free(copy);
  if (i != len) {
    snprintf(msg, msg_size, "'%s%s' is not a decimal number", clean, more);
    return -1;
  }
  if (!is_finite(v) || (e == ERANGE && fabs(v) > 1.0)) {
    snprintf(msg, msg_size, "'%s%s' is too large (out of range)", clean, more);
    return -1;
  }
  /* Underflow to zero loses the value; a subnormal result (ERANGE too)
   * keeps it and is what the store itself writes. */
  if (v == 0.0 && nonzero_mantissa(text)) {
    snprintf(msg, msg_size, "'%s%s' is too small: it rounds to zero", clean, more);
    return -1;
  }
  *out = v;
  return 0;
}

void cli_format_double(char *buf, size_t size, double value) {
  int digits, exponent = 0;
  char *p;
  /* The fewest significant digits that read back bit-identically... */
  for (digits = 1; digits <= 17; digits++) {
    double back;
    snprintf(buf, size, "%.*e", digits - 1, value);
    back = strtod(buf, NULL);
    if (memcmp(&back, &value, sizeof back) == 0)
      break;
  }
  if (digits > 17)
    digits = 17;
  p = strchr(buf, 'e');
  if (p != NULL)
    exponent = (int)strtol(p + 1, NULL, 10);
  /* ...written plainly unless the exponent is far from zero ("1e-07"). */
  if (exponent >= -4 && exponent < 17 && is_finite(value))
    snprintf(buf, size, "%.*f", digits - 1 - exponent > 0 ? digits - 1 - exponent : 0, value);
  /* Whatever the decimal point of the current locale, write '.'. */
  for (p = buf; *p != 0; p++)
    if (!is_digit(*p) && *p != '-' && *p != '+' && *p != 'e' && *p != 'E' && *p != 'i' &&
        *p != 'n' && *p != 'f' && *p != 'a')
      *p = '.';
}
