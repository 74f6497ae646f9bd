/* table.c - content-sized text tables. */
#include <config.h>

#include "table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textwidth.h"
#include "xalloc.h"

void table_init(table *t, int n_cols, const table_column *cols)
{
	memset(t, 0, sizeof *t);
	t->n_cols = n_cols < TABLE_MAX_COLS ? n_cols : TABLE_MAX_COLS;
	memcpy(t->cols, cols, (size_t)t->n_cols * sizeof *cols);
}

void table_free(table *t)
{
	free(t->cells);
	memset(t, 0, sizeof *t);
}

void table_row(table *t)
{
	if (t->n_rows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? 2 * t->cap_rows : 8;
		t->cells = xrealloc(t->cells, t->cap_rows * (size_t)t->n_cols * sizeof *t->cells);
	}
	table_cell_t *row = &t->cells[t->n_rows * (size_t)t->n_cols];
	for (int c = 0; c < t->n_cols; c++) {
		row[c].text[0] = '\0';
		row[c].role = ROLE_DEFAULT;
	}
	t->n_rows++;
	t->filled = 0;
}

void table_cell(table *t, theme_role role, const char *text)
{
	if (t->n_rows == 0) {
		table_row(t);
	}
	if (t->filled >= t->n_cols) {
		return;
	}
	table_cell_t *c = &t->cells[(t->n_rows - 1) * (size_t)t->n_cols + (size_t)t->filled++];
	snprintf(c->text, sizeof c->text, "%s", text);
	c->role = role;
}

void table_cellf(table *t, theme_role role, const char *fmt, ...)
{
	char buf[TABLE_CELL_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	table_cell(t, role, buf);
}

static void emit_cell(doc *d, theme_role role, theme_role pad, const char *text, int width, bool right,
		      bool utf8)
{
	char fitted[TABLE_CELL_LEN * 2];
	int w = tw_fit(text, width, utf8, fitted, sizeof fitted);
	if (right) {
		doc_pad(d, pad, width - w);
	}
	doc_add(d, role, fitted);
	if (!right) {
		doc_pad(d, pad, width - w);
	}
}

void table_emit(const table *t, doc *d, int indent, int width, bool utf8)
{
	int w[TABLE_MAX_COLS];
	int total = indent;

	for (int c = 0; c < t->n_cols; c++) {
		w[c] = tw_width(t->cols[c].title);
		for (size_t r = 0; r < t->n_rows; r++) {
			int cw = tw_width(t->cells[r * (size_t)t->n_cols + (size_t)c].text);
			w[c] = cw > w[c] ? cw : w[c];
		}
		total += w[c] + (c > 0 ? 2 : 0);
	}
	/* Too wide: take from the widest column, one at a time. */
	while (t->n_cols > 0 && total > width) {
		int widest = 0;
		for (int c = 1; c < t->n_cols; c++) {
			widest = w[c] > w[widest] ? c : widest;
		}
		if (w[widest] <= 4) {
			break;
		}
		w[widest]--;
		total--;
	}

	doc_newline(d);
	doc_pad(d, ROLE_DEFAULT, indent);
	for (int c = 0; c < t->n_cols; c++) {
		if (c > 0) {
			doc_add(d, ROLE_COLUMN_HEADER, "  ");
		}
		emit_cell(d, ROLE_COLUMN_HEADER, ROLE_COLUMN_HEADER, t->cols[c].title, w[c], t->cols[c].right, utf8);
	}
	for (size_t r = 0; r < t->n_rows; r++) {
		doc_newline(d);
		doc_pad(d, ROLE_DEFAULT, indent);
		for (int c = 0; c < t->n_cols; c++) {
			const table_cell_t *cell = &t->cells[r * (size_t)t->n_cols + (size_t)c];
			if (c > 0) {
				doc_pad(d, ROLE_DEFAULT, 2);
			}
			emit_cell(d, cell->role, ROLE_DEFAULT, cell->text, w[c], t->cols[c].right, utf8);
		}
	}
}
