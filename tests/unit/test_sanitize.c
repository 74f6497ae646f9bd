/* test_sanitize.c - hostile input against sanitize_text(): escape sequences,
 * controls, invalid UTF-8, truncation, and a random-bytes pass checking the
 * output invariants. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* ------------------------------------- bidi controls and invisible text */

/* Each of these can reorder the text around it or hide text on the screen
 * ("Trojan Source", CVE-2021-42574): all are dropped, in every mode. */
static void test_bidi_and_invisible_dropped(void **state)
{
	(void)state;
	static const char *const hidden[] = {
		"\xD8\x9C",                                     /* U+061C ALM */
		"\xE2\x80\x8E", "\xE2\x80\x8F",                 /* U+200E LRM, U+200F RLM */
		"\xE2\x80\xAA", "\xE2\x80\xAB", "\xE2\x80\xAC", /* U+202A LRE, RLE, PDF */
		"\xE2\x80\xAD", "\xE2\x80\xAE",                 /* U+202D LRO, U+202E RLO */
		"\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", /* U+2066 LRI, RLI, FSI */
		"\xE2\x81\xA9",                                 /* U+2069 PDI */
		"\xE2\x80\x8B", "\xE2\x80\x8C", "\xE2\x80\x8D", /* U+200B ZWSP, ZWNJ, ZWJ */
		"\xE2\x81\xA0", "\xE2\x81\xA4",                 /* U+2060 WJ, U+2064 */
		"\xE2\x81\xAA", "\xE2\x81\xAF",                 /* U+206A..U+206F */
		"\xEF\xBB\xBF",                                 /* U+FEFF BOM / ZWNBSP */
		"\xC2\xAD",                                     /* U+00AD soft hyphen */
		"\xE1\xA0\x8E",                                 /* U+180E */
		"\xEF\xBF\xB9", "\xEF\xBF\xBB",                 /* U+FFF9..U+FFFB annotation */
		"\xF3\xA0\x80\x81", "\xF3\xA0\x81\xBF",         /* U+E0001, U+E007F tags */
	};
	static const unsigned modes[] = {0, SANITIZE_ASCII, SANITIZE_SINGLE_LINE};
	for (size_t h = 0; h < sizeof hidden / sizeof hidden[0]; h++) {
		for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
			char in[16];
			int n = snprintf(in, sizeof in, "a%sb", hidden[h]);
			char *out = run(in, (size_t)n, 64, modes[m]);
			bool dropped = strcmp(out, "ab") == 0;
			free(out);
			if (!dropped) {
				fail_msg("hidden[%zu] survived in mode %u", h, modes[m]);
			}
		}
	}
	/* the classic: a comment that displays as code */
	CHECK("if (admin) {\xE2\x80\xAE } \xE2\x81\xA6// check\xE2\x81\xA9 \xE2\x81\xA6if (user)", 0,
	      "if (admin) { } // check if (user)");
	/* they take no room under a line cap */
	CHECK("ab\xE2\x80\x8B\xE2\x80\x8B\xE2\x80\xAE" "c", SANITIZE_LINE_MAX(3), "abc");
}

/* U+2028/U+2029 break lines in Unicode but not in a terminal: they become a
 * line break like '\n' (a space in one-line mode). */
static void test_unicode_line_separators(void **state)
{
	(void)state;
	CHECK("a\xE2\x80\xA8" "b\xE2\x80\xA9" "c", 0, "a\nb\nc");
	CHECK("a\xE2\x80\xA8" "b\xE2\x80\xA9" "c", SANITIZE_SINGLE_LINE, "a b c");
	CHECK("a\xE2\x80\xA8" "b", SANITIZE_ASCII, "a\nb");
	CHECK("abcdef\xE2\x80\xA8xy", SANITIZE_LINE_MAX(3), "ab" ELL "\nxy");
}

/* Their neighbours are ordinary visible characters and stay. */
static void test_neighbours_of_hidden_kept(void **state)
{
	(void)state;
	CHECK("\xD8\x9B\xD8\x9D", 0, "\xD8\x9B\xD8\x9D");             /* U+061B, U+061D */
	CHECK("\xE2\x80\x8A\xE2\x80\x90", 0, "\xE2\x80\x8A\xE2\x80\x90"); /* U+200A, U+2010 */
	CHECK("\xE2\x80\xA7\xE2\x80\xAF", 0, "\xE2\x80\xA7\xE2\x80\xAF"); /* U+2027, U+202F */
	CHECK("\xE2\x81\x9F\xE2\x81\xB0", 0, "\xE2\x81\x9F\xE2\x81\xB0"); /* U+205F, U+2070 */
	CHECK("\xEF\xBB\xBE\xEF\xBF\xBC", 0, "\xEF\xBB\xBE\xEF\xBF\xBC"); /* U+FEFE, U+FFFC */
	CHECK("\xC2\xAC\xC2\xAE", 0, "\xC2\xAC\xC2\xAE");             /* U+00AC, U+00AE */
	CHECK("\xF3\xA0\x82\x80", 0, "\xF3\xA0\x82\x80");             /* U+E0080 */
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

/* ------------------------------------------- showing the operator's input */

static char *show(const char *in, size_t in_len, size_t out_len)
{
	char *copy = malloc(in_len ? in_len : 1);
	assert_non_null(copy);
	memcpy(copy, in, in_len);
	char *out = malloc(out_len);
	assert_non_null(out);
	size_t n = sanitize_show(copy, in_len, out, out_len);
	assert_true(n < out_len);
	assert_int_equal(n, strlen(out));
	free(copy);
	return out;
}

#define SHOW(lit, expected)                                                    \
	do {                                                                   \
		char *o_ = show((lit), sizeof(lit) - 1, 4 * sizeof(lit) + 1);  \
		assert_string_equal(o_, (expected));                           \
		free(o_);                                                      \
	} while (0)

static void test_show_makes_bad_bytes_visible(void **state)
{
	(void)state;
	SHOW("node[01-04] ok", "node[01-04] ok");
	SHOW("", "");
	SHOW("a\x1b]0;pwned\x07z", "a\\x1b]0;pwned\\x07z");
	SHOW("near '\x1b'", "near '\\x1b'");
	SHOW("tab\there\nnl\rcr\x7f\0", "tab\\x09here\\x0anl\\x0dcr\\x7f\\x00");
	SHOW("back\\slash", "back\\slash");
	/* valid UTF-8 stays readable */
	SHOW("d\xC3\xA9" "fauts \xC2\xB5s \xF0\x9F\x95\x92", "d\xC3\xA9" "fauts \xC2\xB5s \xF0\x9F\x95\x92");
	/* C1, bidi, invisible and line separators are shown byte by byte */
	SHOW("a\xC2\x9B" "b", "a\\xc2\\x9bb");
	SHOW("x\xE2\x80\xAEy", "x\\xe2\\x80\\xaey");
	SHOW("\xEF\xBB\xBFk", "\\xef\\xbb\\xbfk");
	SHOW("\xE2\x80\xA8", "\\xe2\\x80\\xa8");
	/* invalid UTF-8 too: overlong, surrogate, truncated */
	SHOW("\xC0\xAF\xED\xA0\x80\xE2\x82", "\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x82");
}

static void test_show_bounds(void **state)
{
	(void)state;
	char buf[16];

	memset(buf, 'Z', sizeof buf);
	assert_int_equal(sanitize_show("abc", 3, buf, 0), 0);
	assert_int_equal(buf[0], 'Z');
	assert_int_equal(sanitize_show("abc", 3, NULL, 0), 0);
	assert_int_equal(sanitize_show(NULL, 0, buf, sizeof buf), 0);
	assert_string_equal(buf, "");

	/* fits exactly */
	assert_int_equal(sanitize_show("abcdefg", 7, buf, 8), 7);
	assert_string_equal(buf, "abcdefg");
	/* cut: "..." at the end, never half a \xNN or half a character */
	memset(buf, 'Z', sizeof buf);
	assert_int_equal(sanitize_show("abcdefgh", 8, buf, 8), 7);
	assert_string_equal(buf, "abcd...");
	assert_int_equal(buf[8], 'Z');
	sanitize_show("ab\x1b\x1b\x1b", 5, buf, 10);
	assert_string_equal(buf, "ab\\x1b...");
	sanitize_show("\xC2\xB5\xC2\xB5\xC2\xB5\xC2\xB5", 8, buf, 8);
	assert_string_equal(buf, "\xC2\xB5\xC2\xB5...");
	/* too small for the mark: empty rather than cut without it */
	sanitize_show("abcdef", 6, buf, 3);
	assert_string_equal(buf, "");
	sanitize_show("\x1b\x1b", 2, buf, 3);
	assert_string_equal(buf, "");
	/* 4 * in_len + 1 always fits */
	char big[4 * 4 + 1];
	assert_int_equal(sanitize_show("\xFF\x01\x80\x1b", 4, big, sizeof big), 16);
	assert_string_equal(big, "\\xff\\x01\\x80\\x1b");
}

static void test_show_char(void **state)
{
	(void)state;
	char cb[SANITIZE_SHOW_CHAR_LEN];
	assert_string_equal(sanitize_show_char('x', cb), "'x'");
	assert_string_equal(sanitize_show_char('\'', cb), "'''");
	assert_string_equal(sanitize_show_char('~', cb), "'~'");
	assert_string_equal(sanitize_show_char(' ', cb), "\\x20");
	assert_string_equal(sanitize_show_char(0x1b, cb), "\\x1b");
	assert_string_equal(sanitize_show_char(0x7f, cb), "\\x7f");
	assert_string_equal(sanitize_show_char(0xe2, cb), "\\xe2");
	assert_string_equal(sanitize_show_char(0, cb), "\\x00");
}

/* ------------------------------------------------------ random bytes */

/* What sanitize.h promises never to pass: bidi controls, invisible format
 * characters and the Unicode line separators (listed independently of
 * sanitize.c). */
static bool is_hidden(uint32_t cp)
{
	return cp == 0x00AD || cp == 0x061C || cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF ||
	       (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0xE0000 && cp <= 0xE007F);
}

/* An independent strict UTF-8 check (decode, then reject by value); C1
 * controls and hidden characters are reported through *has_c1. */
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
		if ((cp >= 0x80 && cp <= 0x9F) || is_hidden(cp)) {
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
		0x81, 0x8B, 0xA8, 0xAE, 0xAD, 0xEF, 0xBB, 0xF3, 0xA0, 0xD8,
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

/* Random input shown: no control byte, nothing sanitize_text() would
 * change, and showing it again changes nothing. */
static void test_show_random(void **state)
{
	(void)state;
	unsigned char in[256];
	char out[4 * sizeof in + 1];
	char again[4 * sizeof out + 1];
	char clean[3 * sizeof out + 1];

	for (int iter = 0; iter < 20000; iter++) {
		size_t in_len = rng() % sizeof in;
		for (size_t i = 0; i < in_len; i++) {
			in[i] = random_byte();
		}
		size_t out_len = (iter & 1) ? sizeof out : 1 + rng() % 48;
		memset(out, 'Z', sizeof out);
		size_t n = sanitize_show((const char *)in, in_len, out, out_len);
		assert_true(n < out_len);
		assert_int_equal(strlen(out), n);
		if (out_len < sizeof out) {
			assert_int_equal(out[out_len], 'Z');
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)out[i];
			assert_true(c >= 0x20 && c != 0x7F);
		}
		bool c1;
		assert_true(valid_utf8((const unsigned char *)out, n, &c1));
		assert_false(c1);
		assert_int_equal(sanitize_text(out, n, clean, sizeof clean, 0), n);
		assert_memory_equal(clean, out, n);
		assert_int_equal(sanitize_show(out, n, again, sizeof again), n);
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
		cmocka_unit_test(test_bidi_and_invisible_dropped),
		cmocka_unit_test(test_unicode_line_separators),
		cmocka_unit_test(test_neighbours_of_hidden_kept),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_ascii_only),
		cmocka_unit_test(test_line_cap),
		cmocka_unit_test(test_output_bounds),
		cmocka_unit_test(test_overflow_respects_line_cap),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_show_makes_bad_bytes_visible),
		cmocka_unit_test(test_show_bounds),
		cmocka_unit_test(test_show_char),
		cmocka_unit_test(test_show_random),
	};
	return cmocka_run_group_tests_name("sanitize", tests, NULL, NULL);
}
