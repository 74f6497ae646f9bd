/* bytebuf.c - growable byte buffer. */
#include <config.h>

#include "bytebuf.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void bytebuf_append(bytebuf *b, const char *data, size_t len)
{
	if (b->len + len > b->cap) {
		/* Double, so a response arriving in many small reads stays linear. */
		size_t cap = b->cap ? 2 * b->cap : 256;
		if (cap < b->len + len) {
			cap = b->len + len;
		}
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void bytebuf_consume(bytebuf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void bytebuf_clear(bytebuf *b)
{
	b->len = 0;
}

void bytebuf_free(bytebuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
