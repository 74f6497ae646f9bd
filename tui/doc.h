/* doc.h - a scrollable document of styled lines: what the drill-down and
 * the help screens are built into before they are drawn.
 *
 * A line is UTF-8 text cut into runs, each drawn in one theme role.  The
 * builders put only our own text or cleaned remote text (tw_clean) into a
 * doc, so drawing needs no further checks. */
#ifndef SYNCTOP_DOC_H
#define SYNCTOP_DOC_H

#include <stdarg.h>
#include <stddef.h>

#include "theme.h"

typedef struct {
	theme_role role;
	size_t start, len; /* bytes of the line's text */
} doc_run;

typedef struct {
	char *text;
	size_t len, cap;
	doc_run *runs;
	size_t n_runs, cap_runs;
} doc_line;

typedef struct {
	doc_line *lines;
	size_t n, cap;
} doc;

void doc_init(doc *d);
void doc_free(doc *d);   /* and leaves it empty, ready for reuse */

/* Starts a new, empty line. */
void doc_newline(doc *d);
/* Appends text to the current line (starting one if there is none). */
void doc_add(doc *d, theme_role role, const char *text);
void doc_addf(doc *d, theme_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends spaces in a role (a background colour shows). */
void doc_pad(doc *d, theme_role role, int columns);
/* Columns the current line takes. */
int doc_line_width(const doc *d);

/* Appends text to the current line, wrapping at width columns onto new
 * lines indented by `indent` spaces. */
void doc_wrapped(doc *d, theme_role role, int indent, const char *text, int width);

/* The document as plain text, each line ended by '\n' (roles dropped), in
 * a new string the caller frees: what a test or a copy of the screen reads. */
char *doc_text(const doc *d);

#endif
