/* text_sink.h - bounded text written into a caller's buffer.
 *
 * Renderers (the demo cluster's tool outputs) print into fixed buffers and
 * allocate nothing: a write that does not fit marks the sink overflowed and
 * every later write is dropped, so the caller checks once at the end.  The
 * buffer stays NUL-terminated. */
#ifndef SYNCTOP_TEXT_SINK_H
#define SYNCTOP_TEXT_SINK_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__)
#define TEXT_SINK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TEXT_SINK_PRINTF(f, a)
#endif

typedef struct {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
} text_sink;

/* An empty sink over buf[cap]; a NULL or empty buffer is overflowed. */
void text_sink_init(text_sink *t, char *buf, size_t cap);

TEXT_SINK_PRINTF(2, 3)
void text_sink_printf(text_sink *t, const char *fmt, ...);

void text_sink_put(text_sink *t, const char *s, size_t n);
void text_sink_puts(text_sink *t, const char *s);

#endif
