/* test_units.c - sign, unit choice, rounding and truncation of the time
 * formatters. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

static void expect_s(double s, const char *want)
{
	char buf[UNITS_BUF_LEN];
	assert_ptr_equal(units_format_seconds(s, buf, sizeof buf), buf);
	assert_string_equal(buf, want);
}

static void expect_ns(int64_t ns, const char *want)
{
	char buf[UNITS_BUF_LEN];
	assert_ptr_equal(units_format_ns(ns, buf, sizeof buf), buf);
	assert_string_equal(buf, want);
}

static void test_seconds_pick_unit_and_sign(void **state)
{
	(void)state;
	expect_s(0.001234, "+1.234 ms");
	expect_s(-850e-9, "-850 ns");
	expect_s(2.0, "+2.000 s");
	expect_s(-2.5, "-2.500 s");
	expect_s(12.345e-6, "+12.345 µs");
	expect_s(-0.000003403, "-3.403 µs");
	expect_s(999e-9, "+999 ns");
	expect_s(1e-6, "+1.000 µs");
	expect_s(1e-3, "+1.000 ms");
	expect_s(1.0, "+1.000 s");
}

static void test_zero_has_plus_sign(void **state)
{
	(void)state;
	expect_s(0.0, "+0 ns");
	expect_s(-0.0, "+0 ns");
	/* rounds to zero: no sign to show */
	expect_s(-0.3e-9, "+0 ns");
	expect_ns(0, "+0 ns");
}

static void test_rounding_promotes_unit(void **state)
{
	(void)state;
	expect_s(999.4e-9, "+999 ns");
	expect_s(999.6e-9, "+1.000 µs");
	expect_s(999.9996e-6, "+1.000 ms");
	expect_s(-999.9996e-3, "-1.000 s");
	expect_s(999.9994e-6, "+999.999 µs");
}

static void test_unknown_and_extremes(void **state)
{
	(void)state;
	expect_s(NAN, "unknown");
	expect_s(INFINITY, "+inf s");
	expect_s(-INFINITY, "-inf s");
	expect_s(1e10, "+1.000e+10 s");
	expect_s(-1e300, "-1.000e+300 s");
	expect_s(123456.0, "+123456.000 s");
}

static void test_ns(void **state)
{
	(void)state;
	expect_ns(-850, "-850 ns");
	expect_ns(999, "+999 ns");
	expect_ns(1000, "+1.000 µs");
	expect_ns(1500, "+1.500 µs");
	expect_ns(-100000, "-100.000 µs");
	expect_ns(100001, "+100.001 µs");
	expect_ns(8737, "+8.737 µs");
	expect_ns(2000000000, "+2.000 s");
	expect_ns(INT64_MIN, "unknown"); /* PTP_NS_UNKNOWN */
	expect_ns(INT64_MAX, "+9.223e+09 s");
	expect_ns(INT64_MIN + 1, "-9.223e+09 s");
}

static void test_truncates_safely(void **state)
{
	(void)state;
	char buf[8];
	memset(buf, 'X', sizeof buf);
	units_format_seconds(0.001234, buf, 5);
	assert_string_equal(buf, "+1.2");
	assert_int_equal(buf[5], 'X');

	memset(buf, 'X', sizeof buf);
	units_format_ns(1500, buf, 1);
	assert_string_equal(buf, "");
	assert_int_equal(buf[1], 'X');

	memset(buf, 'X', sizeof buf);
	units_format_seconds(NAN, buf, 0);
	assert_int_equal(buf[0], 'X');

	memset(buf, 'X', sizeof buf);
	units_format_seconds(NAN, buf, 4);
	assert_string_equal(buf, "unk");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds_pick_unit_and_sign),
		cmocka_unit_test(test_zero_has_plus_sign),
		cmocka_unit_test(test_rounding_promotes_unit),
		cmocka_unit_test(test_unknown_and_extremes),
		cmocka_unit_test(test_ns),
		cmocka_unit_test(test_truncates_safely),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
