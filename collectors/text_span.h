/* text_span.h - pieces of untrusted tool output, for the parsers.
 *
 * A span points into the tool's output: never NUL-terminated, may hold any
 * byte.  Nothing here allocates, reads the locale or touches I/O, so every
 * parser (chrony, pmc, ethtool, ...) shares one tokenizer instead of its
 * own. */
#ifndef SYNCTOP_TEXT_SPAN_H
#define SYNCTOP_TEXT_SPAN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	const char *p;
	size_t n;
} text_span;

/* Longest number text_span_decimal reads (sign, digits, '.', digits). */
#define TEXT_SPAN_NUM_LEN 40

bool text_span_eq(text_span s, const char *lit);
bool text_span_starts(text_span s, const char *lit);   /* lit is a prefix of s */
bool text_span_prefix_of(text_span s, const char *lit); /* s is a prefix of lit */
bool text_span_contains(text_span s, const char *needle);

/* Blanks are ' ' and '\t' (chronyc, ethtool); text_span_trim_space also
 * trims '\r', '\v' and '\f' (pmc). */
text_span text_span_trim(text_span s);
text_span text_span_trim_space(text_span s);

/* The next blank-separated word of *rest (leading blanks skipped); *rest
 * keeps what follows.  False when nothing but blanks is left. */
bool text_span_word(text_span *rest, text_span *word);
/* The same with '\r', '\v' and '\f' as separators too (pmc). */
bool text_span_word_space(text_span *rest, text_span *word);

/* The next line of *rest without its "\n" (nor a "\r" before it: a pty may
 * have been in the way); *terminated says whether the "\n" was there. */
bool text_span_next_line(text_span *rest, text_span *line, bool *terminated);

/* The first line of p[0..n) with text on it, trimmed (a tool's message on
 * stderr); an empty span at p when there is none.  p may be NULL. */
text_span text_span_first_text_line(const char *p, size_t n);

/* Splits line on sep into at most max fields; returns the count, or max + 1
 * when there are more. */
int text_span_split(text_span line, char sep, text_span *fields, int max);

/* Strict decimal as C's printf writes it: optional sign, digits, and with
 * fraction '.' and more digits; no exponent, "inf", hex or spaces; within
 * [min, max].  Locale-free. */
bool text_span_decimal(text_span s, bool fraction, double min, double max, double *out);

/* Bounded copy for a person: printable ASCII, anything else '?'. */
void text_span_copy_printable(char *dst, size_t cap, text_span s);

#endif
