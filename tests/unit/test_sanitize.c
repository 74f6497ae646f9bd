/* test_sanitize.c - hostile input against sanitize_text(): escape sequences,
 * controls, invalid UTF-8, truncation, and a random-bytes pass checking the
 * output invariants. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sanitize.h"

#define FFFD "\xEF\xBF\xBD"
#define ELL "\xE2\x80\xA6"

/* Sanitise a string literal of known length (it may hold NULs) from an
 * exact-size heap copy, so ASan catches any read past in_len. */
static char *run(const char *in, size_t in_len, size_t out_len, unsigned flags)
{
	char *copy = malloc(in_len ? in_len : 1);
	assert_non_null(copy);
	memcpy(copy, in, in_len);
	char *out = malloc(out_len);
	assert_non_null(out);
	size_t n = sanitize_text(copy, in_len, out, out_len, flags);
	assert_true(n < out_len);
	assert_int_equal(n, strlen(out));
	free(copy);
	return out;
}

#define CHECK(lit, flags, expected)                                            \
	do {                                                                   \
		char *o_ = run((lit), sizeof(lit) - 1, 4 * sizeof(lit) + 16, (flags)); \
		assert_string_equal(o_, (expected));                           \
		free(o_);                                                      \
	} while (0)

/* ------------------------------------------------------------- plain text */

static void test_plain_text_unchanged(void **state)
{
	(void)state;
	CHECK("chronyd: 506 Cannot talk to daemon", 0, "chronyd: 506 Cannot talk to daemon");
	CHECK("", 0, "");
	/* valid multibyte: 2, 3 and 4 byte forms, and U+FFFD itself */
	CHECK("12 \xC2\xB5s \xE2\x80\xA6 \xF0\x9F\x95\x92 " FFFD, 0, "12 \xC2\xB5s \xE2\x80\xA6 \xF0\x9F\x95\x92 " FFFD);
	/* the first and last code points of each length */
	CHECK("\xC2\xA0\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF", 0,
	      "\xC2\xA0\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF");
}

static void test_controls(void **state)
{
	(void)state;
	CHECK("a\tb\nc", 0, "a\tb\nc");
	CHECK("a\tb\nc", SANITIZE_SINGLE_LINE, "a b c");
	CHECK("line\r\nnext\r\n", 0, "line\nnext\n");
	CHECK("line\r\nnext", SANITIZE_SINGLE_LINE, "line next");
	CHECK("a\0b\x01\x07\x08\x0B\x0C\x0E\x1F\x7F" "c", 0, "abc");
	CHECK("rm\b\b\bls", 0, "rmls");
	/* C1 controls encoded in UTF-8: NEL, IND, ST alone */
	CHECK("a\xC2\x85" "b\xC2\x84" "c\xC2\x9C" "d", 0, "abcd");
}

/* ------------------------------------------------------- escape sequences */

static void test_csi(void **state)
{
	(void)state;
	CHECK("a\x1b[31;1mred\x1b[0m!", 0, "ared!");
	CHECK("\x1b[?1049h\x1b[2J\x1b[Hscreen", 0, "screen");
	CHECK("x\x1b[1 qy", 0, "xy");                /* intermediate byte */
	CHECK("\x1b[>0;1;2c" "z", 0, "z");           /* private marker */
	CHECK("\xC2\x9B" "31mX\xC2\x9B" "0m", 0, "X"); /* 8-bit CSI as UTF-8 */
	/* a control inside a CSI abandons it; the rest is plain text */
	CHECK("\x1b[3\n1mZ", 0, "\n1mZ");
	/* ESC inside a CSI starts a new sequence */
	CHECK("\x1b[3\x1b[0mQ", 0, "Q");
}

static void test_osc(void **state)
{
	(void)state;
	CHECK("\x1b]0;evil title\x07ok", 0, "ok");
	CHECK("\x1b]2;t\x1b\\ok", 0, "ok");
	/* hyperlink: the text between the two OSC 8 survives */
	CHECK("\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\", 0, "link");
	/* OSC 52 writes the clipboard */
	CHECK("a\x1b]52;c;cm0gLXJmIH4=\x07" "b", 0, "ab");
	CHECK("\xC2\x9D" "0;t\xC2\x9C" "Y", 0, "Y");
	CHECK("\xC2\x9D" "0;t\x07" "Y", 0, "Y");
	/* unterminated: swallows the rest, as a terminal would */
	CHECK("keep\x1b]0;never ends\nmore text", 0, "keep");
	/* CAN aborts the string */
	CHECK("\x1b]0;t\x18" "after", 0, "after");
}

static void test_dcs_and_other_strings(void **state)
{
	(void)state;
	CHECK("\x1bPq#0;2;0;0;0#0~~@@\x1b\\after", 0, "after");
	CHECK("\x1bP$q\"p\x1b\\" "x", 0, "x"); /* DECRQSS: makes the terminal answer */
	CHECK("a\x1b_apc body\x1b\\" "b", 0, "ab");
	CHECK("a\x1b^pm body\x1b\\" "b", 0, "ab");
	CHECK("a\x1bXsos body\x1b\\" "b", 0, "ab");
	CHECK("a\xC2\x90" "dcs\xC2\x9C" "b", 0, "ab");
	CHECK("a\xC2\x9F" "apc\x1b\\" "b", 0, "ab");
}

static void test_short_escapes(void **state)
{
	(void)state;
	CHECK("\x1b" "7x\x1b" "8", 0, "x");    /* save/restore cursor */
	CHECK("\x1b" "c", 0, "");              /* full reset */
	CHECK("\x1b(Bz\x1b)0w", 0, "zw");      /* charset designation, nF */
	CHECK("\x1b#8" "E", 0, "E");           /* DECALN */
	CHECK("end\x1b", 0, "end");            /* ESC at the very end */
	CHECK("\x1b\x1b[31mR", 0, "R");        /* ESC ESC [ ... */
	CHECK("a\x1b\nb", 0, "a\nb");          /* lone ESC before a newline */
	CHECK("a\x1b\xC2\xB5" "b", 0, "a\xC2\xB5" "b");
	CHECK("\x1b[", 0, "");
	CHECK("\x1b]", 0, "");
	CHECK("\x1b(", 0, "");
}

/* ------------------------------------------------------------ bad UTF-8 */

static void test_invalid_utf8(void **state)
{
	(void)state;
	CHECK("\x80", 0, FFFD);
	CHECK("a\xBF" "b", 0, "a" FFFD "b");
	CHECK("\xC0\xAF", 0, FFFD FFFD);              /* overlong '/' */
	CHECK("\xC1\xBF", 0, FFFD FFFD);
	CHECK("\xE0\x80\xAF", 0, FFFD FFFD FFFD);     /* overlong, 3 bytes */
	CHECK("\xF0\x80\x80\xAF", 0, FFFD FFFD FFFD FFFD);
	CHECK("\xED\xA0\x80", 0, FFFD FFFD FFFD);     /* surrogate D800 */
	CHECK("\xED\xBF\xBF", 0, FFFD FFFD FFFD);     /* surrogate DFFF */
	CHECK("\xF4\x90\x80\x80", 0, FFFD FFFD FFFD FFFD); /* U+110000 */
	CHECK("\xF5\x80", 0, FFFD FFFD);
	CHECK("\xFF\xFE", 0, FFFD FFFD);
	CHECK("\xE2\x82", 0, FFFD);                   /* truncated at the end */
	CHECK("\xE2\x82" "A", 0, FFFD "A");
	CHECK("\xF0\x9F\x95", 0, FFFD);
	/* Unicode 15.0 section 3.9, table 3-8: one U+FFFD per maximal subpart */
	CHECK("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", 0,
	      "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d");
}

static void test_ascii_only(void **state)
{
	(void)state;
	CHECK("12 \xC2\xB5s", SANITIZE_ASCII, "12 ?s");
	CHECK("\xF0\x9F\x95\x92!", SANITIZE_ASCII, "?!");
	CHECK("\xC0\xAF", SANITIZE_ASCII, "??");
	CHECK("a\x1b[1mb\xC2\x9B" "1mc", SANITIZE_ASCII, "abc");
}

/* ---------------------------------------------------------- line length */

static void test_line_cap(void **state)
{
	(void)state;
	CHECK("abcdefgh", SANITIZE_LINE_MAX(5), "abcd" ELL);
	CHECK("abcde", SANITIZE_LINE_MAX(5), "abcde");
	CHECK("abcdef\nxy\n123456789", SANITIZE_LINE_MAX(5), "abcd" ELL "\nxy\n1234" ELL);
	CHECK("abcdefgh", SANITIZE_LINE_MAX(5) | SANITIZE_ASCII, "ab...");
	CHECK("abcdefgh", SANITIZE_LINE_MAX(2) | SANITIZE_ASCII, "..");
	CHECK("abcdefgh", SANITIZE_LINE_MAX(1), ELL);
	/* characters, not bytes */
	CHECK("\xC2\xB5\xC2\xB5\xC2\xB5\xC2\xB5\xC2\xB5", SANITIZE_LINE_MAX(4), "\xC2\xB5\xC2\xB5\xC2\xB5" ELL);
	/* escapes in the dropped tail are still recognised as escapes */
	CHECK("abcdefg\x1b]0;x\nstill osc\x07\nhi", SANITIZE_LINE_MAX(3), "ab" ELL "\nhi");
	/* escapes do not count towards the length */
	CHECK("\x1b[31mabc\x1b[0m", SANITIZE_LINE_MAX(3), "abc");
	/* single-line mode: the whole text is one line */
	CHECK("abc\ndef", SANITIZE_LINE_MAX(5) | SANITIZE_SINGLE_LINE, "abc " ELL);
}

/* ------------------------------------------------------- output bounds */

static void test_output_bounds(void **state)
{
	(void)state;
	char buf[16];

	memset(buf, 'Z', sizeof buf);
	assert_int_equal(sanitize_text("abc", 3, buf, 0, 0), 0);
	assert_int_equal(buf[0], 'Z'); /* out_len 0: nothing written */
	assert_int_equal(sanitize_text("abc", 3, NULL, 0, 0), 0);

	assert_int_equal(sanitize_text("abc", 3, buf, 1, 0), 0);
	assert_string_equal(buf, "");
	assert_int_equal(buf[1], 'Z');

	/* fits exactly: no ellipsis */
	memset(buf, 'Z', sizeof buf);
	assert_int_equal(sanitize_text("abcdefg", 7, buf, 8, 0), 7);
	assert_string_equal(buf, "abcdefg");

	/* one byte too long: the tail becomes the ellipsis */
	memset(buf, 'Z', sizeof buf);
	assert_int_equal(sanitize_text("abcdefgh", 8, buf, 8, 0), 7);
	assert_string_equal(buf, "abcd" ELL);
	assert_int_equal(buf[8], 'Z');

	memset(buf, 'Z', sizeof buf);
	sanitize_text("abcdefgh", 8, buf, 8, SANITIZE_ASCII);
	assert_string_equal(buf, "abcd...");

	/* never split a multibyte character */
	memset(buf, 'Z', sizeof buf);
	assert_int_equal(sanitize_text("\xC2\xB5\xC2\xB5\xC2\xB5\xC2\xB5", 8, buf, 6, 0), 5);
	assert_string_equal(buf, "\xC2\xB5" ELL);
	assert_int_equal(buf[6], 'Z');

	/* too small for the ellipsis: empty rather than a broken character */
	sanitize_text("\xC2\xB5\xC2\xB5", 4, buf, 3, 0);
	assert_string_equal(buf, "");

	/* invalid input expands 3x: out_len = 3 * in_len + 1 always fits */
	char big[3 * 5 + 1];
	assert_int_equal(sanitize_text("\xFF\xFF\xFF\xFF\xFF", 5, big, sizeof big, 0), 15);
	assert_string_equal(big, FFFD FFFD FFFD FFFD FFFD);

	/* NULL input with length 0 */
	assert_int_equal(sanitize_text(NULL, 0, buf, sizeof buf, 0), 0);
	assert_string_equal(buf, "");
}

/* Running out of room right after a full line: the mark must not push that
 * line past the cap. */
static void test_overflow_respects_line_cap(void **state)
{
	(void)state;
	char buf[16];

	sanitize_text("abcdefg\nxyz", 11, buf, 10, SANITIZE_LINE_MAX(7) | SANITIZE_ASCII);
	assert_string_equal(buf, "abcd...");
	sanitize_text("abc\nde", 6, buf, 6, SANITIZE_LINE_MAX(3));
	assert_string_equal(buf, "ab" ELL);
}

static void test_huge_line(void **state)
{
	(void)state;
	size_t len = 1 << 20;
	char *in = malloc(len);
	assert_non_null(in);
	memset(in, 'x', len);
	char out[64];
	size_t n = sanitize_text(in, len, out, sizeof out, 0);
	assert_int_equal(n, 63);
	assert_memory_equal(out + 60, ELL, 3);
	free(in);
}

/* ------------------------------------------------------ random bytes */

/* An independent strict UTF-8 check (decode, then reject by value). */
static bool valid_utf8(const unsigned char *s, size_t n, bool *has_c1)
{
	*has_c1 = false;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		size_t len;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			len = 2, cp = c & 0x1F, min = 0x80;
		} else if ((c & 0xF0) == 0xE0) {
			len = 3, cp = c & 0x0F, min = 0x800;
		} else if ((c & 0xF8) == 0xF0) {
			len = 4, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (i + len > n) {
			return false;
		}
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80) {
				return false;
			}
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
			return false;
		}
		if (cp >= 0x80 && cp <= 0x9F) {
			*has_c1 = true;
		}
		i += len;
	}
	return true;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Bytes that drive the interesting states, mixed with uniform noise. */
static unsigned char random_byte(void)
{
	static const unsigned char hot[] = {
		0x1B, '[', ']', 'P', '_', '\\', 0x07, '\n', '\t', '\r', 0x18, 0x00, 0x7F, 0xC2, 0x9B,
		0x9C, 0x9D, 0xE2, 0x80, 0xA6, 0xED, 0xF0, 0xF4, 0x90, 0xBF, 'a', 'm', ';', '0', ' ',
	};
	uint64_t r = rng();
	if (r & 1) {
		return hot[(r >> 8) % sizeof hot];
	}
	return (unsigned char)(r >> 16);
}

static void check_output(const char *out, size_t n, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)out;
	size_t line_max = (flags >> SANITIZE_LINE_SHIFT) & SANITIZE_LINE_MAX_LIMIT;
	size_t line = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		assert_true(c != 0x1B && c != 0x7F && c != '\r');
		if (c < 0x20) {
			assert_true(c == '\n' || c == '\t');
			assert_false(flags & SANITIZE_SINGLE_LINE);
		}
		if (flags & SANITIZE_ASCII) {
			assert_true(c < 0x80);
		}
		if (c == '\n') {
			line = 0;
		} else if ((c & 0xC0) != 0x80) {
			line++;
			if (line_max > 0) {
				assert_true(line <= line_max);
			}
		}
	}
	bool c1;
	assert_true(valid_utf8(u, n, &c1));
	assert_false(c1);
}

static void test_random_bytes(void **state)
{
	(void)state;
	unsigned char in[512];
	char out[2048];
	char again[2048];
	static const unsigned flag_sets[] = {
		0,
		SANITIZE_SINGLE_LINE,
		SANITIZE_ASCII,
		SANITIZE_LINE_MAX(7),
		SANITIZE_LINE_MAX(1) | SANITIZE_ASCII,
		SANITIZE_LINE_MAX(40) | SANITIZE_SINGLE_LINE,
	};

	for (int iter = 0; iter < 60000; iter++) {
		size_t in_len = rng() % sizeof in;
		for (size_t i = 0; i < in_len; i++) {
			in[i] = random_byte();
		}
		unsigned flags = flag_sets[iter % (sizeof flag_sets / sizeof flag_sets[0])];
		/* sometimes a roomy buffer, sometimes a tight one */
		size_t out_len = (iter & 2) ? 3 * in_len + 1 : 1 + rng() % 64;

		/* canary past out_len */
		memset(out, 'Z', sizeof out);
		size_t n = sanitize_text((const char *)in, in_len, out, out_len, flags);
		assert_true(n < out_len);
		assert_int_equal(out[n], '\0');
		assert_int_equal(strlen(out), n);
		assert_int_equal(out[out_len], 'Z');
		check_output(out, n, flags);

		/* the output is already clean: sanitising it again changes
		 * nothing */
		size_t m = sanitize_text(out, n, again, sizeof again, flags);
		assert_int_equal(m, n);
		assert_memory_equal(again, out, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_csi),
		cmocka_unit_test(test_osc),
		cmocka_unit_test(test_dcs_and_other_strings),
		cmocka_unit_test(test_short_escapes),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_ascii_only),
		cmocka_unit_test(test_line_cap),
		cmocka_unit_test(test_output_bounds),
		cmocka_unit_test(test_overflow_respects_line_cap),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_random_bytes),
	};
	return cmocka_run_group_tests_name("sanitize", tests, NULL, NULL);
}
