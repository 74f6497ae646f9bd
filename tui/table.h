/* table.h - a text table sized to its contents, emitted into a doc: the
 * drill-down's sources, sourcestats and PTP ports.
 *
 * Cells are copied; remote text must be cleaned (tw_clean) before it is
 * added.  A table wider than the screen narrows its widest columns, and
 * cells that no longer fit end in "…". */
#ifndef SYNCTOP_TABLE_H
#define SYNCTOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "doc.h"
#include "theme.h"

#define TABLE_MAX_COLS 12
#define TABLE_CELL_LEN 128

typedef struct {
	const char *title;
	bool right; /* numbers */
} table_column;

typedef struct {
	char text[TABLE_CELL_LEN];
	theme_role role;
} table_cell_t;

typedef struct {
	int n_cols;
	table_column cols[TABLE_MAX_COLS];
	table_cell_t *cells; /* n_rows * n_cols */
	size_t n_rows, cap_rows;
	int filled;          /* cells given in the current row */
} table;

void table_init(table *t, int n_cols, const table_column *cols);
void table_free(table *t);
void table_row(table *t);
void table_cell(table *t, theme_role role, const char *text);
void table_cellf(table *t, theme_role role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One header line and one line per row, indented, at most width columns. */
void table_emit(const table *t, doc *d, int indent, int width, bool utf8);

#endif
