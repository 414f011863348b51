/*
 * host/cli/cli_print.c - records as JSON and as readable text.
 */
#include "cli.h"

#include <string.h>

/* 1 when every name and value of the structure is valid UTF-8. */
static int structure_is_text(const olc_record *r) {
  size_t i;
  for (i = 0; i < r->structure_count; i++)
    if (!cli_utf8_valid((const unsigned char *)r->structure[i].name,
                        strlen(r->structure[i].name)) ||
        !cli_utf8_valid((const unsigned char *)r->structure[i].value,
                        strlen(r->structure[i].value)))
      return 0;
  return 1;
}

/* "structure": {name: value}, or, when a name or value is not UTF-8,
 * "structure_base64": {base64(name): base64(value)}: two different keys
 * never print the same. */
static void json_structure(cli_json *j, const olc_record *r) {
  size_t i;
  int text = structure_is_text(r);
  cli_json_key(j, text ? "structure" : "structure_base64");
  cli_json_begin_object(j);
  for (i = 0; i < r->structure_count; i++) {
    const char *n = r->structure[i].name, *v = r->structure[i].value;
    if (text) {
      cli_json_key(j, n);
      cli_json_string(j, v);
    } else {
      cli_json_key_base64(j, (const unsigned char *)n, strlen(n));
      cli_json_base64(j, (const unsigned char *)v, strlen(v));
    }
  }
  cli_json_end_object(j);
}

void cli_json_record(cli_json *j, const olc_record *r) {
  size_t i;
  if (r == NULL) {
    cli_json_null(j);
    return;
  }
  cli_json_begin_object(j);
  cli_json_key(j, "level");
  cli_json_string(j, olc_level_str(r->level));
  cli_json_key(j, "origin");
  cli_json_string(j, olc_origin_str(r->origin));
  /* Text fields that are not UTF-8 travel as <field>_base64, so that no
   * byte is replaced and two keys never print the same. */
  cli_json_text_member(j, "backend", r->backend);
  cli_json_text_member(j, "operator", r->operator_name);
  cli_json_text_member(j, "implementation", r->implementation);
  cli_json_text_member(j, "model_digest", r->model_digest);
  cli_json_text_member(j, "processor", r->processor);
  cli_json_key(j, "thread_count");
  if (r->level == OLC_LEVEL_EXACT)
    cli_json_int(j, r->thread_count);
  else
    cli_json_null(j);
  json_structure(j, r);
  cli_json_key(j, "measurements");
  cli_json_begin_array(j);
  for (i = 0; i < r->measurement_count; i++) {
    cli_json_begin_object(j);
    cli_json_text_member(j, "name", r->measurements[i].name);
    cli_json_key(j, "value");
    cli_json_double(j, r->measurements[i].value);
    cli_json_text_member(j, "unit", r->measurements[i].unit);
    cli_json_end_object(j);
  }
  cli_json_end_array(j);
  /* JSON strings hold text only: other bytes travel as base64. */
  if (cli_utf8_valid(r->policy, r->policy_len)) {
    cli_json_key(j, "policy");
    cli_json_string_n(j, r->policy, r->policy_len);
  } else {
    cli_json_key(j, "policy_base64");
    cli_json_base64(j, r->policy, r->policy_len);
  }
  /* The file the record was read from (null: in memory only) and whether
   * that is a read-only layer rather than the store's own file. */
  if (r->source != NULL) {
    cli_json_text_member(j, "source", r->source);
  } else {
    cli_json_key(j, "source");
    cli_json_null(j);
  }
  cli_json_key(j, "layer");
  cli_json_bool(j, r->from_layer != 0);
  cli_json_end_object(j);
}

void cli_print_quoted(FILE *out, const unsigned char *s, size_t len) {
  size_t i = 0;
  fputc('"', out);
  while (i < len) {
    unsigned c = s[i];
    size_t n = c >= 0x80 ? cli_utf8_sequence(s + i, len - i) : 0;
    if (c == '"' || c == '\\') {
      fputc('\\', out);
      fputc((int)c, out);
      i++;
    } else if (c >= 0x20 && c < 0x7F) {
      fputc((int)c, out);
      i++;
    } else if (n != 0 && !(c == 0xC2 && s[i + 1] < 0xA0)) {
      /* Whole characters as they are, but never the C1 controls
       * (U+0080..U+009F): some terminals act on them. */
      fwrite(s + i, 1, n, out);
      i += n;
    } else {
      fprintf(out, "\\x%02x", c);
      i++;
    }
  }
  fputc('"', out);
}

static void print_string(FILE *out, const char *s) {
  cli_print_quoted(out, (const unsigned char *)s, strlen(s));
}

void cli_print_record(FILE *out, const olc_record *r, const char *indent) {
  size_t i;
  char num[40];
  fprintf(out, "%sprofile %s %s\n", indent, olc_level_str(r->level), olc_origin_str(r->origin));
  fprintf(out, "%s  backend ", indent);
  print_string(out, r->backend);
  fputs(" operator ", out);
  print_string(out, r->operator_name);
  fputs(" implementation ", out);
  print_string(out, r->implementation);
  fputc('\n', out);
  if (r->level == OLC_LEVEL_EXACT) {
    fprintf(out, "%s  model_digest ", indent);
    print_string(out, r->model_digest != NULL ? r->model_digest : "");
    fputs(" processor ", out);
    print_string(out, r->processor != NULL ? r->processor : "");
    fprintf(out, " thread_count %lld\n", (long long)r->thread_count);
  }
  for (i = 0; i < r->structure_count; i++) {
    fprintf(out, "%s  structure ", indent);
    print_string(out, r->structure[i].name);
    fputc(' ', out);
    print_string(out, r->structure[i].value);
    fputc('\n', out);
  }
  for (i = 0; i < r->measurement_count; i++) {
    cli_format_double(num, sizeof num, r->measurements[i].value);
    fprintf(out, "%s  measurement ", indent);
    print_string(out, r->measurements[i].name);
    fprintf(out, " %s ", num);
    print_string(out, r->measurements[i].unit);
    fputc('\n', out);
  }
  fprintf(out, "%s  policy ", indent);
  cli_print_quoted(out, r->policy, r->policy_len);
  fputc('\n', out);
  /* A record of the store's own file says nothing more (the store's path
   * heads the output); a layer's names its file. */
  if (r->from_layer && r->source != NULL) {
    fprintf(out, "%s  source layer ", indent);
    print_string(out, r->source);
    fputc('\n', out);
  }
}
