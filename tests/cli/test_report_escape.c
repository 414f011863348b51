/*
 * tests/cli/test_report_escape.c - cli_html_text, the one way text from
 * plugins, the configuration and the store reaches the HTML report: each
 * byte that could open a tag, end an attribute or start a character
 * reference is a reference, control bytes and malformed UTF-8 are visible
 * \xHH text, bidi controls and other invisible format characters visible
 * <U+XXXX> text, other well-formed UTF-8 passes as it is; and
 * cli_html_value isolates a value in <bdi>.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "test_support.h"

/* cli_html_text of s[0..len) as a NUL-terminated string (caller frees). */
static char *escaped(const char *s, size_t len) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  cli_html_text(f, (const unsigned char *)s, len);
  fclose(f);
  return buf;
}

static void expect(const char *in, size_t len, const char *want) {
  char *got = escaped(in, len);
  CU_ASSERT_STRING_EQUAL(got, want);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "escape: got '%s', want '%s'\n", got, want);
  free(got);
}

#define EXPECT(in, want) expect((in), sizeof(in) - 1, (want))

static void test_markup(void) {
  EXPECT("plain text 123", "plain text 123");
  EXPECT("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT("a\" onload=\"x", "a&quot; onload=&quot;x");
  EXPECT("it's", "it&#39;s");
  EXPECT("&amp; &", "&amp;amp; &amp;");
  EXPECT("]]><!--", "]]&gt;&lt;!--");
}

static void test_bytes(void) {
  EXPECT("line\nnext\r\t", "line\\x0Anext\\x0D\\x09");
  EXPECT("nul\0end", "nul\\x00end");
  EXPECT("del\x7f", "del\\x7F");
  EXPECT("caf\xc3\xa9 \xe2\x98\x85 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x98\x85 \xf0\x9f\x98\x80");
  EXPECT("bad \xff\xfe", "bad \\xFF\\xFE");
  EXPECT("cut \xe2\x98", "cut \\xE2\\x98");
  EXPECT("overlong \xc0\xbc", "overlong \\xC0\\xBC"); /* an overlong '<' */
  EXPECT("surrogate \xed\xa0\x80", "surrogate \\xED\\xA0\\x80");
}

/* Bidi controls and other invisible format characters are visible text
 * (issue 37 item 11): a U+202E in a value would otherwise reverse the
 * report's own text around it. */
static void test_invisible(void) {
  EXPECT("a\xe2\x80\xae"
         "b",
         "a&lt;U+202E&gt;b");                                           /* RLO */
  EXPECT("\xe2\x80\xaa\xe2\x80\xac", "&lt;U+202A&gt;&lt;U+202C&gt;");   /* LRE, PDF */
  EXPECT("\xe2\x81\xa6x\xe2\x81\xa9", "&lt;U+2066&gt;x&lt;U+2069&gt;"); /* LRI, PDI */
  EXPECT("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "&lt;U+200E&gt;&lt;U+200F&gt;&lt;U+061C&gt;");
  EXPECT("c1 \xc2\x85 \xc2\x9b", "c1 &lt;U+0085&gt; &lt;U+009B&gt;");
  EXPECT("\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf\xe2\x80\x8b",
         "&lt;U+2028&gt;&lt;U+2029&gt;&lt;U+FEFF&gt;&lt;U+200B&gt;");
  /* Letters of a right-to-left script stay letters (isolated, not escaped). */
  EXPECT("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d");
}

/* A value is isolated from the report's text around it. */
static void test_value(void) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  cli_html_value(f, NULL);
  cli_html_value(f, "<x>\xd7\xa9");
  cli_html_value_text(f, (const unsigned char *)"a\xe2\x80\xae", 4);
  fclose(f);
  CU_ASSERT_STRING_EQUAL(buf, "<bdi>&lt;x&gt;\xd7\xa9</bdi><bdi>a&lt;U+202E&gt;</bdi>");
  free(buf);
}

static void test_str(void) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  cli_html_str(f, NULL);
  cli_html_str(f, "<x>");
  fclose(f);
  CU_ASSERT_STRING_EQUAL(buf, "&lt;x&gt;");
  free(buf);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("report_escape", NULL, NULL);
  CU_add_test(s, "markup characters", test_markup);
  CU_add_test(s, "control bytes and UTF-8", test_bytes);
  CU_add_test(s, "strings and NULL", test_str);
  CU_add_test(s, "bidi and other invisible characters", test_invisible);
  CU_add_test(s, "values are isolated", test_value);
  return olc_test_run(argc, argv);
}
