/* sanitize.c - strip control characters, escape sequences and invalid UTF-8
 * from untrusted text (see sanitize.h for the exact rules). */
#include <config.h>

#include "sanitize.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* SANITIZE_LINE_MAX packs 24 bits above 8 flag bits. */
_Static_assert(UINT_MAX >= 0xFFFFFFFFu, "unsigned must hold 32 bits");

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */
#define ELLIPSIS "\xE2\x80\xA6"    /* U+2026 */
#define INVALID UINT32_MAX

typedef enum {
	ST_TEXT,
	ST_ESC,       /* after ESC */
	ST_ESC_INTER, /* ESC followed by intermediate bytes (nF sequence) */
	ST_CSI,       /* control sequence: params, intermediates, final */
	ST_STRING,    /* OSC/DCS/SOS/PM/APC body, until BEL or ST */
} scan_state;

/* Where the output goes and how full it is. */
typedef struct {
	char *out;
	size_t cap;        /* out_len: room for cap - 1 bytes and the NUL */
	size_t pos;
	bool full;         /* ran out of room: the rest is dropped */
	bool ascii;
	bool single_line;
	size_t line_max;   /* 0 = no cap */
	size_t line_chars; /* characters on the current output line */
	bool line_cut;     /* current line already cut: drop until '\n' */
} sink;

/* Step back over k whole characters.  The output is valid UTF-8, so a
 * character starts at the first byte that is not 10xxxxxx. */
static void rewind_chars(sink *s, size_t k)
{
	while (k-- > 0 && s->pos > 0) {
		s->pos--;
		while (s->pos > 0 && ((unsigned char)s->out[s->pos] & 0xC0) == 0x80) {
			s->pos--;
		}
	}
}

/* The truncation mark: "…", or "..." in ASCII (fewer dots when the line cap
 * is below 3, so the mark alone never breaks the cap). */
static size_t ellipsis_chars(const sink *s)
{
	if (!s->ascii) {
		return 1;
	}
	return (s->line_max > 0 && s->line_max < 3) ? s->line_max : 3;
}

static void write_ellipsis(sink *s, size_t chars)
{
	for (size_t i = 0; i < chars; i++) {
		if (s->ascii) {
			s->out[s->pos++] = '.';
		} else {
			memcpy(s->out + s->pos, ELLIPSIS, 3);
			s->pos += 3;
		}
	}
}

/* Characters on the last output line (after the last '\n'). */
static size_t last_line_chars(const sink *s)
{
	size_t count = 0;
	for (size_t i = s->pos; i > 0 && s->out[i - 1] != '\n'; i--) {
		if (((unsigned char)s->out[i - 1] & 0xC0) != 0x80) {
			count++;
		}
	}
	return count;
}

/* No room for the next byte: end the output with the mark instead, so a
 * reader can tell the text was cut.  Step back until the mark fits both the
 * buffer and the line cap (stepping back over a '\n' lands on a line that
 * may already be full); with no room at all, end without it. */
static void overflow(sink *s)
{
	size_t chars = ellipsis_chars(s);
	size_t bytes = chars * (s->ascii ? 1 : 3);

	while (s->pos > 0) {
		bool fits = s->pos + bytes < s->cap;
		if (fits && (s->line_max == 0 || last_line_chars(s) + chars <= s->line_max)) {
			break;
		}
		rewind_chars(s, 1);
	}
	if (s->pos + bytes < s->cap) {
		write_ellipsis(s, chars);
	}
	s->full = true;
}

static void raw_put(sink *s, const char *bytes, size_t n)
{
	if (s->full) {
		return;
	}
	if (s->pos + n >= s->cap) {
		overflow(s);
		return;
	}
	memcpy(s->out + s->pos, bytes, n);
	s->pos += n;
}

/* The line already holds line_max characters and one more is coming:
 * replace its last character(s) by the mark and drop the rest of the line.
 * The mark takes the place of characters already written, so it fits. */
static void cut_line(sink *s)
{
	size_t chars = ellipsis_chars(s);
	size_t before = s->pos;

	rewind_chars(s, chars);
	if (s->pos + chars * (s->ascii ? 1 : 3) < s->cap) {
		write_ellipsis(s, chars);
	} else {
		s->pos = before;
		overflow(s);
	}
	s->line_cut = true;
}

/* One visible character (n bytes of valid UTF-8). */
static void put_char(sink *s, const char *bytes, size_t n)
{
	if (s->full || s->line_cut) {
		return;
	}
	if (s->line_max > 0 && s->line_chars >= s->line_max) {
		cut_line(s);
		return;
	}
	raw_put(s, bytes, n);
	s->line_chars++;
}

static void put_replacement(sink *s)
{
	if (s->ascii) {
		put_char(s, "?", 1);
	} else {
		put_char(s, REPLACEMENT, 3);
	}
}

static void put_newline(sink *s)
{
	if (s->single_line) {
		put_char(s, " ", 1);
		return;
	}
	raw_put(s, "\n", 1);
	s->line_chars = 0;
	s->line_cut = false;
}

/* Decode one UTF-8 sequence from p[0..n), n >= 1.  Returns the bytes it
 * spans; *cp is the code point, or INVALID for an ill-formed sequence, in
 * which case the return value is the length of its maximal subpart (so one
 * U+FFFD replaces it).  The narrowed second-byte ranges reject overlongs
 * (E0, F0), surrogates (ED) and values above U+10FFFF (F4). */
static size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char b0 = p[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t need;
	uint32_t v;

	if (b0 < 0x80) {
		*cp = b0;
		return 1;
	}
	if (b0 < 0xC2 || b0 > 0xF4) {
		*cp = INVALID; /* continuation byte, overlong lead, or F5..FF */
		return 1;
	}
	if (b0 < 0xE0) {
		need = 1;
		v = b0 & 0x1Fu;
	} else if (b0 < 0xF0) {
		need = 2;
		v = b0 & 0x0Fu;
		if (b0 == 0xE0) {
			lo = 0xA0;
		} else if (b0 == 0xED) {
			hi = 0x9F;
		}
	} else {
		need = 3;
		v = b0 & 0x07u;
		if (b0 == 0xF0) {
			lo = 0x90;
		} else if (b0 == 0xF4) {
			hi = 0x8F;
		}
	}
	for (size_t k = 1; k <= need; k++) {
		if (k >= n || p[k] < lo || p[k] > hi) {
			*cp = INVALID;
			return k;
		}
		v = (v << 6) | (p[k] & 0x3Fu);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = v;
	return need + 1;
}

/* Characters that reorder or hide the text around them without showing
 * anything themselves: the bidi embeddings, overrides, isolates and marks
 * (U+061C, U+200E/F, U+202A..E, U+2066..9), zero-width spaces and joiners
 * (U+200B..D, U+2060..4, U+FEFF), the other invisible format characters
 * (U+00AD, U+180E, U+206A..F, the annotation marks U+FFF9..B) and the tag
 * characters U+E0000..U+E007F, which can smuggle text no one sees.  U+2065
 * is reserved in that block and treated the same. */
static bool is_hidden(uint32_t cp)
{
	if (cp < 0x2000) {
		return cp == 0x00AD || cp == 0x061C || cp == 0x180E;
	}
	return (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
	       (cp >= 0xE0000 && cp <= 0xE007F);
}

/* U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: line breaks to
 * Unicode, unknown (or zero-width) to a terminal. */
static bool is_line_separator(uint32_t cp)
{
	return cp == 0x2028 || cp == 0x2029;
}

/* A C1 control met as text: the introducers start the same sequences as
 * their ESC forms; the rest are simply dropped. */
static scan_state c1_state(uint32_t cp)
{
	switch (cp) {
	case 0x9B:
		return ST_CSI;
	case 0x90: /* DCS */
	case 0x98: /* SOS */
	case 0x9D: /* OSC */
	case 0x9E: /* PM */
	case 0x9F: /* APC */
		return ST_STRING;
	default:
		return ST_TEXT;
	}
}

size_t sanitize_text(const char *in, size_t in_len, char *out, size_t out_len, unsigned flags)
{
	if (!out || out_len == 0) {
		return 0;
	}
	if (!in) {
		in_len = 0;
	}

	sink s = {
		.out = out,
		.cap = out_len,
		.ascii = (flags & SANITIZE_ASCII) != 0,
		.single_line = (flags & SANITIZE_SINGLE_LINE) != 0,
		.line_max = (flags >> SANITIZE_LINE_SHIFT) & SANITIZE_LINE_MAX_LIMIT,
	};
	const unsigned char *p = (const unsigned char *)in;
	scan_state state = ST_TEXT;
	size_t i = 0;

	while (i < in_len && !s.full) {
		unsigned char c = p[i];

		switch (state) {
		case ST_TEXT:
			if (c >= 0x80) {
				uint32_t cp;
				size_t len = utf8_next(p + i, in_len - i, &cp);
				if (cp == INVALID) {
					put_replacement(&s);
				} else if (cp <= 0x9F) {
					state = c1_state(cp);
				} else if (is_line_separator(cp)) {
					put_newline(&s);
				} else if (is_hidden(cp)) {
					/* dropped, like a control */
				} else if (s.ascii) {
					put_char(&s, "?", 1);
				} else {
					put_char(&s, in + i, len);
				}
				i += len;
				break;
			}
			i++;
			if (c == 0x1B) {
				state = ST_ESC;
			} else if (c == '\n') {
				put_newline(&s);
			} else if (c == '\t') {
				put_char(&s, s.single_line ? " " : "\t", 1);
			} else if (c >= 0x20 && c < 0x7F) {
				put_char(&s, (const char *)&p[i - 1], 1);
			}
			/* any other C0 control, '\r' and DEL: dropped */
			break;

		case ST_ESC:
			if (c == '[') {
				state = ST_CSI;
			} else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
				state = ST_STRING;
			} else if (c >= 0x20 && c <= 0x2F) {
				state = ST_ESC_INTER;
			} else if (c >= 0x30 && c <= 0x7E) {
				state = ST_TEXT; /* two-byte sequence, including ST itself */
			} else {
				/* a control, DEL or non-ASCII byte: the ESC was alone;
				 * handle this byte as text */
				state = ST_TEXT;
				break;
			}
			i++;
			break;

		case ST_ESC_INTER:
			if (c >= 0x20 && c <= 0x7E) {
				if (c >= 0x30) {
					state = ST_TEXT;
				}
				i++;
			} else {
				state = ST_TEXT;
			}
			break;

		case ST_CSI:
			if (c >= 0x20 && c <= 0x7E) {
				if (c >= 0x40) {
					state = ST_TEXT; /* final byte */
				}
				i++;
			} else {
				/* not part of a well-formed CSI: abandon it and
				 * treat the byte as text (controls are dropped there) */
				state = ST_TEXT;
			}
			break;

		case ST_STRING:
			if (c == 0x07 || c == 0x18 || c == 0x1A) {
				state = ST_TEXT; /* BEL ends it, CAN/SUB abort it */
				i++;
			} else if (c == 0x1B) {
				state = ST_ESC; /* ESC \ is ST; any other ESC starts anew */
				i++;
			} else if (c == 0xC2 && i + 1 < in_len && p[i + 1] == 0x9C) {
				state = ST_TEXT; /* U+009C ST */
				i += 2;
			} else {
				i++;
			}
			break;
		}
	}

	out[s.pos] = '\0';
	return s.pos;
}

size_t sanitize_show(const char *in, size_t in_len, char *out, size_t out_len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t pos = 0;
	size_t mark = 0; /* the last end after which "..." still fits */
	size_t i = 0;

	if (!out || out_len == 0) {
		return 0;
	}
	if (!in) {
		in_len = 0;
	}
	while (i < in_len) {
		uint32_t cp;
		size_t len = utf8_next(p + i, in_len - i, &cp);
		bool keep = (cp >= 0x20 && cp < 0x7F) ||
			    (cp >= 0xA0 && cp != INVALID && !is_hidden(cp) && !is_line_separator(cp));
		size_t n = keep ? len : 4;

		if (pos + n >= out_len) {
			pos = mark;
			if (pos + 3 < out_len) {
				memcpy(out + pos, "...", 3);
				pos += 3;
			}
			break;
		}
		if (keep) {
			memcpy(out + pos, in + i, len);
		} else {
			/* one byte at a time: the rest of a multibyte
			 * sequence follows as stray continuation bytes */
			out[pos] = '\\';
			out[pos + 1] = 'x';
			out[pos + 2] = hex[p[i] >> 4];
			out[pos + 3] = hex[p[i] & 0x0F];
			len = 1;
		}
		pos += n;
		i += len;
		if (pos + 3 < out_len) {
			mark = pos;
		}
	}
	out[pos] = '\0';
	return pos;
}

const char *sanitize_show_char(unsigned char c, char buf[SANITIZE_SHOW_CHAR_LEN])
{
	if (c >= 0x21 && c < 0x7f) {
		snprintf(buf, SANITIZE_SHOW_CHAR_LEN, "'%c'", c);
	} else {
		snprintf(buf, SANITIZE_SHOW_CHAR_LEN, "\\x%02x", c);
	}
	return buf;
}
