/* test_text_span.c - the parsers' shared tokenizer: exact edges, since every
 * parser's strictness rests on them. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "text_span.h"

static text_span S(const char *s)
{
	return (text_span){s, strlen(s)};
}

static void test_compare(void **state)
{
	(void)state;
	assert_true(text_span_eq(S("abc"), "abc"));
	assert_false(text_span_eq(S("abc"), "ab"));
	assert_true(text_span_eq((text_span){NULL, 0}, ""));
	assert_true(text_span_starts(S("abcdef"), "abc"));
	assert_false(text_span_starts(S("ab"), "abc"));
	assert_true(text_span_prefix_of(S("Not sync"), "Not synchronised"));
	assert_true(text_span_prefix_of((text_span){NULL, 0}, "x"));
	assert_false(text_span_prefix_of(S("Normal!"), "Normal"));
	assert_true(text_span_contains(S("no device matches name"), "device"));
	assert_false(text_span_contains(S("dev"), "device"));
	assert_true(text_span_contains(S(""), ""));
}

static void test_trim_and_words(void **state)
{
	(void)state;
	text_span t = text_span_trim(S(" \t a b \t"));
	assert_int_equal(t.n, 3);
	assert_memory_equal(t.p, "a b", 3);
	assert_int_equal(text_span_trim(S("\ra\r")).n, 3); /* '\r' is no blank here */
	assert_int_equal(text_span_trim_space(S("\r\v a\f")).n, 1);

	text_span rest = S("  one\ttwo  "), w;
	assert_true(text_span_word(&rest, &w));
	assert_true(text_span_eq(w, "one"));
	assert_true(text_span_word(&rest, &w));
	assert_true(text_span_eq(w, "two"));
	assert_false(text_span_word(&rest, &w));
	assert_int_equal(w.n, 0);

	rest = S("a\rb");
	assert_true(text_span_word(&rest, &w));
	assert_true(text_span_eq(w, "a\rb"));
	rest = S("a\rb");
	assert_true(text_span_word_space(&rest, &w));
	assert_true(text_span_eq(w, "a"));
}

static void test_lines_and_fields(void **state)
{
	(void)state;
	text_span rest = S("one\r\ntwo\n\nlast"), line;
	bool term;
	assert_true(text_span_next_line(&rest, &line, &term));
	assert_true(text_span_eq(line, "one") && term);
	assert_true(text_span_next_line(&rest, &line, &term));
	assert_true(text_span_eq(line, "two") && term);
	assert_true(text_span_next_line(&rest, &line, &term));
	assert_true(line.n == 0 && term);
	assert_true(text_span_next_line(&rest, &line, &term));
	assert_true(text_span_eq(line, "last") && !term);
	assert_false(text_span_next_line(&rest, &line, &term));

	text_span f[4];
	assert_int_equal(text_span_split(S("a,,b"), ',', f, 4), 3);
	assert_int_equal(f[1].n, 0);
	assert_true(text_span_eq(f[2], "b"));
	assert_int_equal(text_span_split(S(""), ',', f, 4), 1);
	assert_int_equal(text_span_split(S("1,2,3,4,5"), ',', f, 4), 5); /* max + 1: too many */
}

static void test_decimal(void **state)
{
	(void)state;
	double v = 0;
	assert_true(text_span_decimal(S("-0.000003091"), true, -1, 1, &v));
	assert_true(v == -0.000003091);
	assert_true(text_span_decimal(S("+12"), false, 0, 100, &v) && v == 12);
	static const char *const bad[] = {"", "-", ".5", "1e3", "inf", "nan", "0x10", " 1", "1 ", "1.2.3",
					  "--1", "1,5"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (text_span_decimal(S(bad[i]), true, -1e9, 1e9, &v)) {
			fail_msg("accepted \"%s\"", bad[i]);
		}
	}
	assert_false(text_span_decimal(S("1.5"), false, 0, 10, &v));  /* no fraction asked */
	assert_false(text_span_decimal(S("11"), false, 0, 10, &v));   /* out of range */
	char longnum[64];
	memset(longnum, '1', sizeof longnum - 1);
	longnum[sizeof longnum - 1] = '\0';
	assert_false(text_span_decimal(S(longnum), false, 0, 1e300, &v));
}

static void test_copy_printable(void **state)
{
	(void)state;
	char buf[6];
	text_span_copy_printable(buf, sizeof buf, S("ab\x1b[2Jcd"));
	assert_string_equal(buf, "ab?[2");
	text_span_copy_printable(buf, sizeof buf, (text_span){NULL, 0});
	assert_string_equal(buf, "");
}

static void test_first_text_line(void **state)
{
	(void)state;
	const char *err = "\n  \r\n  ntpq: read: Connection refused  \nmore\n";
	text_span l = text_span_first_text_line(err, strlen(err));
	assert_true(text_span_eq(l, "ntpq: read: Connection refused"));
	l = text_span_first_text_line("\n \n", 3);
	assert_int_equal(l.n, 0);
	l = text_span_first_text_line(NULL, 5);
	assert_int_equal(l.n, 0);
	l = text_span_first_text_line("no newline", 10);
	assert_true(text_span_eq(l, "no newline"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_trim_and_words),
		cmocka_unit_test(test_lines_and_fields),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_copy_printable),
		cmocka_unit_test(test_first_text_line),
	};
	return cmocka_run_group_tests_name("text_span", tests, NULL, NULL);
}
