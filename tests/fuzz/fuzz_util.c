/* fuzz_util.c - input splitting and invariant checks shared by the fuzz
 * targets (see fuzz.h). */
#include <config.h>

#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A heap block of exactly len bytes, so ASan sees a read of p[len].  malloc(0)
 * may return NULL outside ASan; one spare byte then keeps p non-NULL. */
static char *copy_exact(const uint8_t *p, size_t len)
{
	char *c = malloc(len);
	if (c == NULL) {
		c = malloc(1);
	}
	if (c == NULL) {
		fuzz_fail(__FILE__, __LINE__, "out of memory");
	}
	if (len > 0) {
		memcpy(c, p, len);
	}
	return c;
}

void fuzz_split(const uint8_t *data, size_t size, int max, fuzz_parts *out)
{
	size_t pos = 0;
	if (max > FUZZ_MAX_PARTS) {
		max = FUZZ_MAX_PARTS;
	}
	out->n = 0;
	while (out->n < max) {
		size_t end = size;
		if (out->n < max - 1 && size - pos >= FUZZ_SEP_LEN) {
			const uint8_t *hit = memmem(data + pos, size - pos, FUZZ_SEP, FUZZ_SEP_LEN);
			if (hit != NULL) {
				end = (size_t)(hit - data);
			}
		}
		fuzz_part *part = &out->part[out->n++];
		part->len = end - pos;
		part->p = copy_exact(data + pos, part->len);
		if (end == size) {
			break;
		}
		pos = end + FUZZ_SEP_LEN;
	}
}

void fuzz_parts_free(fuzz_parts *parts)
{
	for (int i = 0; i < parts->n; i++) {
		free(parts->part[i].p);
	}
	parts->n = 0;
}

const fuzz_part *fuzz_part_at(const fuzz_parts *parts, int i)
{
	static const fuzz_part empty = {.p = (char *)"", .len = 0};
	return i < parts->n ? &parts->part[i] : &empty;
}

char *fuzz_strndup(const char *p, size_t len)
{
	char *c = malloc(len + 1);
	if (c == NULL) {
		fuzz_fail(__FILE__, __LINE__, "out of memory");
	}
	if (len > 0) {
		memcpy(c, p, len);
	}
	c[len] = '\0';
	return c;
}

int fuzz_rc_of(uint8_t b)
{
	/* the statuses the parsers treat specially come first, so short
	 * mutations reach them; any other byte is itself a status */
	static const int special[8] = {0, 1, 2, TOOL_RC_NOT_FOUND, -1, 125, 126, 255};
	return b < 8 ? special[b] : b;
}

void fuzz_tool_output(const uint8_t *data, size_t size, tool_output *out, fuzz_parts *parts)
{
	int rc = size > 0 ? fuzz_rc_of(data[0]) : 0;
	fuzz_split(size > 0 ? data + 1 : data, size > 0 ? size - 1 : 0, 2, parts);
	const fuzz_part *o = fuzz_part_at(parts, 0);
	const fuzz_part *e = fuzz_part_at(parts, 1);
	out->out = o->p;
	out->out_len = o->len;
	out->err = e->p;
	out->err_len = e->len;
	out->rc = rc;
}

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, what);
	fflush(stderr);
	abort();
}

bool fuzz_terminated(const char *buf, size_t cap)
{
	return memchr(buf, '\0', cap) != NULL;
}

bool fuzz_printable(const char *buf, size_t cap)
{
	for (size_t i = 0; i < cap; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\0') {
			return true;
		}
		if (c < 0x20 || c > 0x7e) {
			return false;
		}
	}
	return false;
}

/* Length of the well-formed UTF-8 sequence at p, 0 if there is none; the
 * code point goes to *cp. */
static size_t utf8_next(const unsigned char *p, size_t len, uint32_t *cp)
{
	unsigned char c = p[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len < n) {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			return 0;
		}
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		return 0;
	}
	*cp = v;
	return n;
}

bool fuzz_utf8_valid(const char *p, size_t len)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_next(s + i, len - i, &cp);
		if (n == 0) {
			return false;
		}
		i += n;
	}
	return true;
}

bool fuzz_text_safe(const char *p, size_t len)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_next(s + i, len - i, &cp);
		if (n == 0) {
			return false;
		}
		if ((cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f)) {
			return false;
		}
		i += n;
	}
	return true;
}
