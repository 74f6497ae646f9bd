/* text_sink.c - bounded text written into a caller's buffer. */
#include <config.h>

#include "text_sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void text_sink_init(text_sink *t, char *buf, size_t cap)
{
	t->buf = buf;
	t->cap = cap;
	t->len = 0;
	t->overflow = buf == NULL || cap == 0;
	if (!t->overflow) {
		buf[0] = '\0';
	}
}

void text_sink_printf(text_sink *t, const char *fmt, ...)
{
	if (t->overflow) {
		return;
	}
	size_t room = t->cap - t->len;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		t->overflow = true;
		t->buf[t->len] = '\0';
		return;
	}
	t->len += (size_t)n;
}

void text_sink_put(text_sink *t, const char *s, size_t n)
{
	if (t->overflow) {
		return;
	}
	if (n >= t->cap - t->len) {
		t->overflow = true;
		return;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void text_sink_puts(text_sink *t, const char *s)
{
	text_sink_put(t, s, strlen(s));
}
