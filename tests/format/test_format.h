/*
 * tests/format/test_format.h - shared by the format test files.
 */
#ifndef OLC_TEST_FORMAT_H
#define OLC_TEST_FORMAT_H

#include <CUnit/CUnit.h>

#include "format/format.h"
#include "test_support.h"

/* Parses in[0..len) and asserts the status, line, column, offset and that
 * the message contains msg; the set must be left empty. */
void fmt_check_error(const char *in, size_t len, const olc_format_limits *lim, olc_status code,
                     unsigned line, unsigned column, const char *msg);
void fmt_register_error_tests(CU_pSuite s);
void fmt_register_double_tests(CU_pSuite s);

#endif
