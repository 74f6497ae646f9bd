/* draw.h - the only place that turns theme roles into curses attributes,
 * and the primitives every screen draws with: clipped text, fills and
 * styled doc lines.  All drawing goes to stdscr; tui.c ends each frame
 * with one doupdate(). */
#ifndef SYNCTOP_DRAW_H
#define SYNCTOP_DRAW_H

#include <stdbool.h>

#include "doc.h"
#include "theme.h"

/* Sets up colour pairs for the theme (color false: attributes only). */
void draw_use_theme(const theme *th, bool color);

/* The attribute for a role; on_selected gives the role's colours over the
 * selected row's background (a warning cell in the selected row). */
int draw_attr(theme_role role, bool on_selected);

/* Draws s at (y, x), at most cols columns ("…" when cut).  Returns the
 * columns drawn.  s must be our own or cleaned text. */
int draw_text(int y, int x, int cols, int attr, const char *s, bool utf8);

/* Like draw_text, padded with spaces to exactly cols columns, aligned
 * left or right. */
void draw_cell(int y, int x, int cols, int attr, const char *s, bool right, bool utf8);

/* cols spaces. */
void draw_fill(int y, int x, int cols, int attr);

/* One doc line at (y, x), clipped to cols and padded to its end. */
void draw_doc_line(int y, int x, int cols, const doc_line *line, bool utf8);

#endif
