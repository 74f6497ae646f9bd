/* doc.c - growable styled lines. */
#include <config.h>

#include "doc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textwidth.h"
#include "xalloc.h"

void doc_init(doc *d)
{
	memset(d, 0, sizeof *d);
}

void doc_free(doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->lines[i].text);
		free(d->lines[i].runs);
	}
	free(d->lines);
	doc_init(d);
}

char *doc_text(const doc *d)
{
	size_t total = 1;
	for (size_t i = 0; i < d->n; i++) {
		total += d->lines[i].len + 1;
	}
	char *s = xmalloc(total);
	size_t at = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (d->lines[i].len) {
			memcpy(s + at, d->lines[i].text, d->lines[i].len);
			at += d->lines[i].len;
		}
		s[at++] = '\n';
	}
	s[at] = '\0';
	return s;
}

void doc_newline(doc *d)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->lines = xrealloc(d->lines, d->cap * sizeof *d->lines);
	}
	doc_line *l = &d->lines[d->n++];
	memset(l, 0, sizeof *l);
	l->cap = 128;
	l->text = xmalloc(l->cap);
	l->text[0] = '\0';
}

void doc_add(doc *d, theme_role role, const char *text)
{
	size_t len = strlen(text);
	if (d->n == 0) {
		doc_newline(d);
	}
	doc_line *l = &d->lines[d->n - 1];
	if (len == 0) {
		return;
	}
	if (l->len + len + 1 > l->cap) {
		while (l->len + len + 1 > l->cap) {
			l->cap *= 2;
		}
		l->text = xrealloc(l->text, l->cap);
	}
	memcpy(l->text + l->len, text, len + 1);
	if (l->n_runs > 0 && l->runs[l->n_runs - 1].role == role) {
		l->runs[l->n_runs - 1].len += len;
	} else {
		if (l->n_runs == l->cap_runs) {
			l->cap_runs = l->cap_runs ? 2 * l->cap_runs : 8;
			l->runs = xrealloc(l->runs, l->cap_runs * sizeof *l->runs);
		}
		l->runs[l->n_runs++] = (doc_run){role, l->len, len};
	}
	l->len += len;
}

void doc_addf(doc *d, theme_role role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	doc_add(d, role, buf);
}

void doc_pad(doc *d, theme_role role, int columns)
{
	char spaces[257];
	if (columns <= 0) {
		return;
	}
	if (columns > 256) {
		columns = 256;
	}
	memset(spaces, ' ', (size_t)columns);
	spaces[columns] = '\0';
	doc_add(d, role, spaces);
}

int doc_line_width(const doc *d)
{
	return d->n ? tw_width(d->lines[d->n - 1].text) : 0;
}

void doc_wrapped(doc *d, theme_role role, int indent, const char *text, int width)
{
	const char *p = text, *next;
	int first_w = width - doc_line_width(d);
	bool first = true;

	if (d->n == 0) {
		doc_newline(d);
	}
	for (;;) {
		int avail = first ? first_w : width - indent;
		size_t n = tw_wrap(p, avail > 10 ? avail : 10, &next);
		if (n == 0) {
			break;
		}
		if (!first) {
			doc_newline(d);
			doc_pad(d, ROLE_DEFAULT, indent);
		}
		/* tw_wrap skipped the spaces the line starts with */
		const char *q = p;
		while (*q == ' ') {
			q++;
		}
		char *chunk = xmalloc(n + 1);
		memcpy(chunk, q, n);
		chunk[n] = '\0';
		doc_add(d, role, chunk);
		free(chunk);
		first = false;
		p = next;
	}
}
