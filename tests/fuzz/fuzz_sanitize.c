/* fuzz_sanitize.c - sanitize_text on fuzzed bytes, flags and buffer sizes.
 *
 * Input: byte 0 = flags (bit 0 SINGLE_LINE, bit 1 ASCII, bits 2-4 pick a
 * line cap from line_caps[]), byte 1 = a small output size for the
 * truncation run, then the text.
 *
 * Beyond not crashing, the promises of sanitize.h:
 *   - the output is NUL-terminated, returned length = strlen, < out_len;
 *   - it is valid UTF-8 with no C0 control but '\n' and '\t', no DEL, no C1
 *     (so no escape sequence can survive); ASCII mode gives printable ASCII
 *     only; SINGLE_LINE leaves no '\n' or '\t';
 *   - no line is longer than the cap, in characters;
 *   - out_len = 3 * in_len + 1 never truncates (a larger buffer gives the
 *     same output);
 *   - sanitising the output again changes nothing;
 *   - a smaller buffer gives the same output when it fits, else a prefix of
 *     it ending in the ellipsis (when the ellipsis fits at all);
 *   - out_len 0 writes nothing;
 *   - on 7-bit text (the input with its high bits cleared) the output is
 *     exactly what the escape sequence rules of sanitize.h leave. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sanitize.h"

static const unsigned line_caps[8] = {0, 0, 1, 2, 3, 8, 40, 80};

static size_t chars_in(const char *p, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++) {
		c += ((unsigned char)p[i] & 0xC0) != 0x80;
	}
	return c;
}

/* sanitize.h's rules, for 7-bit input and no line cap: a reference to
 * compare with, written from the header, not from sanitize.c. */
static size_t reference_7bit(const char *in, size_t n, char *out, bool single_line)
{
	enum { TEXT, ESC, INTER, CSI, STRING } st = TEXT;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)in[i];
		switch (st) {
		case TEXT:
			if (c == 0x1b) {
				st = ESC;
			} else if (c == '\n' || c == '\t') {
				out[o++] = single_line ? ' ' : (char)c;
			} else if (c >= 0x20 && c < 0x7f) {
				out[o++] = (char)c;
			}
			i++;
			break;
		case ESC:
			if (c == '[') {
				st = CSI;
			} else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
				st = STRING;
			} else if (c >= 0x20 && c <= 0x2f) {
				st = INTER;
			} else if (c >= 0x30 && c <= 0x7e) {
				st = TEXT;
			} else {
				st = TEXT; /* a lone ESC: this byte is text again */
				continue;
			}
			i++;
			break;
		case INTER:
		case CSI:
			if (c >= 0x20 && c <= 0x7e) {
				if (c >= (st == CSI ? 0x40 : 0x30)) {
					st = TEXT; /* the final byte */
				}
				i++;
			} else {
				st = TEXT; /* not part of the sequence */
			}
			break;
		case STRING:
			if (c == 0x07 || c == 0x18 || c == 0x1a) {
				st = TEXT;
			} else if (c == 0x1b) {
				st = ESC;
			}
			i++;
			break;
		}
	}
	out[o] = '\0';
	return o;
}

static void check_output(const char *out, size_t r, size_t cap, unsigned flags, unsigned line_cap)
{
	FUZZ_CHECK(r < cap && out[r] == '\0' && strlen(out) == r);
	FUZZ_CHECK(fuzz_text_safe(out, r));
	if (flags & SANITIZE_ASCII) {
		for (size_t i = 0; i < r; i++) {
			unsigned char c = (unsigned char)out[i];
			FUZZ_CHECK((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t');
		}
	}
	if (flags & SANITIZE_SINGLE_LINE) {
		FUZZ_CHECK(memchr(out, '\n', r) == NULL && memchr(out, '\t', r) == NULL);
	}
	if (line_cap > 0) {
		size_t start = 0;
		for (size_t i = 0; i <= r; i++) {
			if (i == r || out[i] == '\n') {
				FUZZ_CHECK(chars_in(out + start, i - start) <= line_cap);
				start = i + 1;
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2) {
		return 0;
	}
	unsigned line_cap = line_caps[(data[0] >> 2) & 7];
	unsigned flags = (data[0] & 3u) | SANITIZE_LINE_MAX(line_cap);
	size_t small_cap = data[1] % 64;
	fuzz_parts whole;
	fuzz_split(data + 2, size - 2, 1, &whole); /* an exact-size copy */
	const char *in = whole.part[0].p;
	size_t n = whole.part[0].len;

	size_t cap = 3 * n + 1;
	char *full = malloc(cap);
	char *roomy = malloc(cap + 64);
	char *again = malloc(cap);
	char *small = malloc(small_cap + 1);
	FUZZ_CHECK(full && roomy && again && small);

	size_t r = sanitize_text(in, n, full, cap, flags);
	check_output(full, r, cap, flags, line_cap);

	size_t r2 = sanitize_text(in, n, roomy, cap + 64, flags);
	FUZZ_CHECK(r2 == r && memcmp(roomy, full, r + 1) == 0);

	size_t r3 = sanitize_text(full, r, again, cap, flags);
	FUZZ_CHECK(r3 == r && memcmp(again, full, r + 1) == 0);

	/* out_len 0: nothing written, not even the NUL */
	small[0] = 'Z';
	FUZZ_CHECK(sanitize_text(in, n, small, 0, flags) == 0 && small[0] == 'Z');

	if (small_cap > 0) {
		size_t rs = sanitize_text(in, n, small, small_cap, flags);
		check_output(small, rs, small_cap, flags, line_cap);
		if (r < small_cap) {
			FUZZ_CHECK(rs == r && memcmp(small, full, r + 1) == 0);
		} else {
			bool ascii = (flags & SANITIZE_ASCII) != 0;
			size_t mark = ascii ? (line_cap > 0 && line_cap < 3 ? line_cap : 3) : 3;
			const char *mark_text = ascii ? "..." : "\xE2\x80\xA6";
			size_t keep = rs;
			if (mark < small_cap) {
				/* room for the mark: the cut must show */
				FUZZ_CHECK(rs >= mark && memcmp(small + rs - mark, mark_text, mark) == 0);
				keep = rs - mark;
			}
			FUZZ_CHECK(keep <= r && memcmp(small, full, keep) == 0);
		}
	}

	/* the same text with every high bit cleared, against the reference */
	char *seven = malloc(n ? n : 1);
	char *want = malloc(n + 1);
	FUZZ_CHECK(seven && want);
	for (size_t i = 0; i < n; i++) {
		seven[i] = (char)(in[i] & 0x7f);
	}
	unsigned plain = data[0] & 3u; /* no line cap */
	size_t rw = reference_7bit(seven, n, want, (plain & SANITIZE_SINGLE_LINE) != 0);
	size_t r7 = sanitize_text(seven, n, full, cap, plain);
	FUZZ_CHECK(r7 == rw && memcmp(full, want, rw + 1) == 0);
	free(seven);
	free(want);

	free(full);
	free(roomy);
	free(again);
	free(small);
	fuzz_parts_free(&whole);
	return 0;
}
