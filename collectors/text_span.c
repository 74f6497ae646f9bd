/* text_span.c - the parsers' shared tokenizer (text_span.h). */
#include <config.h>

#include "text_span.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool text_span_eq(text_span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && (n == 0 || memcmp(s.p, lit, n) == 0);
}

bool text_span_starts(text_span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n >= n && (n == 0 || memcmp(s.p, lit, n) == 0);
}

bool text_span_prefix_of(text_span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n <= n && (s.n == 0 || memcmp(s.p, lit, s.n) == 0);
}

bool text_span_contains(text_span s, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0) {
		return true;
	}
	for (size_t i = 0; i + n <= s.n; i++) {
		if (s.p[i] == needle[0] && memcmp(s.p + i, needle, n) == 0) {
			return true;
		}
	}
	return false;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_space(char c)
{
	return is_blank(c) || c == '\r' || c == '\v' || c == '\f';
}

static text_span trim_with(text_span s, bool (*strip)(char))
{
	while (s.n > 0 && strip(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n > 0 && strip(s.p[s.n - 1])) {
		s.n--;
	}
	return s;
}

text_span text_span_trim(text_span s)
{
	return trim_with(s, is_blank);
}

text_span text_span_trim_space(text_span s)
{
	return trim_with(s, is_space);
}

static bool word_with(text_span *rest, text_span *word, bool (*sep)(char))
{
	text_span s = *rest;
	while (s.n > 0 && sep(s.p[0])) {
		s.p++;
		s.n--;
	}
	size_t i = 0;
	while (i < s.n && !sep(s.p[i])) {
		i++;
	}
	word->p = s.p;
	word->n = i;
	rest->p = s.p + i;
	rest->n = s.n - i;
	return i > 0;
}

bool text_span_word(text_span *rest, text_span *word)
{
	return word_with(rest, word, is_blank);
}

bool text_span_word_space(text_span *rest, text_span *word)
{
	return word_with(rest, word, is_space);
}

bool text_span_next_line(text_span *rest, text_span *line, bool *terminated)
{
	if (rest->n == 0) {
		return false;
	}
	const char *nl = memchr(rest->p, '\n', rest->n);
	size_t n = nl ? (size_t)(nl - rest->p) : rest->n;
	line->p = rest->p;
	line->n = n;
	*terminated = nl != NULL;
	rest->p += nl ? n + 1 : n;
	rest->n -= nl ? n + 1 : n;
	if (nl && n > 0 && line->p[n - 1] == '\r') {
		line->n--;
	}
	return true;
}

int text_span_split(text_span line, char sep, text_span *fields, int max)
{
	int n = 0;
	size_t start = 0;
	for (size_t i = 0; i <= line.n; i++) {
		if (i == line.n || line.p[i] == sep) {
			if (n == max) {
				return max + 1;
			}
			fields[n].p = line.p + start;
			fields[n].n = i - start;
			n++;
			start = i + 1;
		}
	}
	return n;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool text_span_decimal(text_span s, bool fraction, double min, double max, double *out)
{
	if (s.n == 0 || s.n >= TEXT_SPAN_NUM_LEN) {
		return false;
	}
	size_t i = 0;
	if (s.p[0] == '-' || s.p[0] == '+') {
		i++;
	}
	size_t digits = 0;
	while (i < s.n && is_digit(s.p[i])) {
		i++;
		digits++;
	}
	if (digits == 0) {
		return false;
	}
	if (fraction && i < s.n && s.p[i] == '.') {
		i++;
		while (i < s.n && is_digit(s.p[i])) {
			i++;
		}
	}
	if (i != s.n) {
		return false;
	}
	/* the syntax is checked: strtod only converts (C locale assumed) */
	char buf[TEXT_SPAN_NUM_LEN];
	memcpy(buf, s.p, s.n);
	buf[s.n] = '\0';
	char *end = NULL;
	double v = strtod(buf, &end);
	if (end != buf + s.n || !isfinite(v) || v < min || v > max) {
		return false;
	}
	*out = v;
	return true;
}

void text_span_copy_printable(char *dst, size_t cap, text_span s)
{
	if (cap == 0) {
		return;
	}
	size_t j = 0;
	for (size_t i = 0; i < s.n && j + 1 < cap; i++) {
		unsigned char c = (unsigned char)s.p[i];
		dst[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[j] = '\0';
}

text_span text_span_first_text_line(const char *p, size_t n)
{
	text_span rest = {p, p ? n : 0}, line;
	bool terminated;
	while (text_span_next_line(&rest, &line, &terminated)) {
		line = text_span_trim(line);
		if (line.n > 0) {
			return line;
		}
	}
	return (text_span){p, 0};
}
