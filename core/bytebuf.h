/* bytebuf.h - a growable byte buffer: request bytes waiting for a writable
 * socket, response bytes waiting for their end marker. */
#ifndef SYNCTOP_BYTEBUF_H
#define SYNCTOP_BYTEBUF_H

#include <stddef.h>

typedef struct {
	char *data;
	size_t len;
	size_t cap;
} bytebuf;

/* A zeroed bytebuf is empty and valid. */
void bytebuf_append(bytebuf *b, const char *data, size_t len);
/* Drop the first n bytes (n <= len), e.g. after a partial write. */
void bytebuf_consume(bytebuf *b, size_t n);
void bytebuf_clear(bytebuf *b);
void bytebuf_free(bytebuf *b);

#endif
