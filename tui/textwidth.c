/* textwidth.c - display width, fitting and wrapping of UTF-8 text. */
#include <config.h>

#include "textwidth.h"

#include <string.h>
#include <wchar.h>

#include "sanitize.h"

size_t tw_decode(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t need;
	uint32_t c, min;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if ((u[0] & 0xe0) == 0xc0) {
		need = 2;
		c = u[0] & 0x1f;
		min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		need = 3;
		c = u[0] & 0x0f;
		min = 0x800;
	} else if ((u[0] & 0xf8) == 0xf0) {
		need = 4;
		c = u[0] & 0x07;
		min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	if (need > len) {
		*cp = 0xfffd;
		return 1;
	}
	for (size_t i = 1; i < need; i++) {
		if ((u[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		c = (c << 6) | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = c;
	return need;
}

int tw_cp_width(uint32_t cp)
{
	if (cp < 0x80) {
		return (cp >= 0x20 && cp < 0x7f) ? 1 : 0;
	}
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

int tw_width(const char *s)
{
	size_t len = strlen(s);
	int cols = 0;
	while (len > 0) {
		uint32_t cp;
		size_t n = tw_decode(s, len, &cp);
		cols += tw_cp_width(cp);
		s += n;
		len -= n;
	}
	return cols;
}

int tw_fit(const char *s, int cols, bool utf8, char *out, size_t out_len)
{
	const char *mark = utf8 ? "\xe2\x80\xa6" : "~";
	size_t mark_len = strlen(mark);
	size_t len = strlen(s), used = 0;
	size_t cut_at = 0; /* bytes that leave one column (and room) for the mark */
	int width = 0, cut_width = 0;

	if (out_len == 0) {
		return 0;
	}
	out[0] = '\0';
	if (cols <= 0) {
		return 0;
	}
	/* Most cells are short printable ASCII: one column a byte, nothing to
	 * decode (a grid frame fits every cell). */
	size_t ascii = 0;
	while (ascii < len && s[ascii] >= 0x20 && s[ascii] < 0x7f) {
		ascii++;
	}
	if (ascii == len && len <= (size_t)cols && len < out_len) {
		memcpy(out, s, len + 1);
		return (int)len;
	}
	if (tw_width(s) <= cols) {
		/* Fits on screen; still bounded by the buffer. */
		while (used < len) {
			uint32_t cp;
			size_t n = tw_decode(s + used, len - used, &cp);
			if (used + n >= out_len) {
				break;
			}
			width += tw_cp_width(cp);
			used += n;
		}
		memcpy(out, s, used);
		out[used] = '\0';
		return width;
	}
	while (used < len) {
		uint32_t cp;
		size_t n = tw_decode(s + used, len - used, &cp);
		int w = tw_cp_width(cp);
		if (width + w > cols - 1 || used + n + mark_len >= out_len) {
			break;
		}
		width += w;
		used += n;
		cut_at = used;
		cut_width = width;
	}
	memcpy(out, s, cut_at);
	if (cut_at + mark_len < out_len) {
		memcpy(out + cut_at, mark, mark_len);
		out[cut_at + mark_len] = '\0';
		return cut_width + 1;
	}
	out[cut_at] = '\0';
	return cut_width;
}

size_t tw_wrap(const char *s, int cols, const char **next)
{
	size_t len = strlen(s), i = 0, last_space = 0;
	int width = 0;

	while (i < len && s[i] == ' ') {
		i++;
	}
	s += i;
	len -= i;
	i = 0;
	if (len == 0) {
		*next = s;
		return 0;
	}
	if (cols < 1) {
		cols = 1;
	}
	while (i < len) {
		uint32_t cp;
		size_t n = tw_decode(s + i, len - i, &cp);
		int w = tw_cp_width(cp);
		if (width + w > cols) {
			break;
		}
		if (cp == ' ') {
			last_space = i;
		}
		width += w;
		i += n;
	}
	if (i == len) {
		*next = s + len;
		return len;
	}
	/* A break at a space that fits (or right before the one that does
	 * not); otherwise cut the word (at least one character, so a line
	 * always advances). */
	size_t line;
	if (s[i] == ' ') {
		line = i;
	} else if (last_space > 0) {
		line = last_space;
	} else {
		line = i > 0 ? i : tw_decode(s, len, &(uint32_t){0});
	}
	const char *p = s + line;
	while (*p == ' ') {
		p++;
	}
	*next = p;
	return line;
}

void tw_clean(const char *field, size_t cap, bool utf8, char *out, size_t out_len)
{
	size_t len = strnlen(field, cap);
	sanitize_text(field, len, out, out_len, SANITIZE_SINGLE_LINE | (utf8 ? 0 : SANITIZE_ASCII));
}

void tw_ascii_micro(char *s, bool utf8)
{
	if (utf8) {
		return;
	}
	char *w = s;
	for (const char *r = s; *r; r++) {
		if ((unsigned char)r[0] == 0xc2 && (unsigned char)r[1] == 0xb5) {
			*w++ = 'u';
			r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}
