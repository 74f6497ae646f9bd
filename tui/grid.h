/* grid.h - the main screen: one row per node, columns that fit the width,
 * only the visible rows drawn.  Its state is the view (view.h). */
#ifndef SYNCTOP_GRID_H
#define SYNCTOP_GRID_H

#include <stdbool.h>

#include "columns.h"
#include "handler.h"
#include "tui.h"
#include "view.h"

/* Column headings on line y0, rows on y0+1 .. y1-1, as t->view and
 * t->layout say (tui_frame_prepare set them).  Changes nothing. */
void grid_draw(const tui *t, int y0, int y1, int cols);

/* A key on the grid: moves the selection, sorts, filters (HR_EDIT_FILTER
 * to start typing), opens (HR_OPEN_DETAIL), quits (HR_QUIT). */
handler_result grid_key(view *v, int key);

/* A mouse event at (y, x), the rows starting at line list_y, the headings
 * the line above: click selects, double click opens, wheel (+1 down, -1
 * up) scrolls, a click on a heading sorts by that column (again: reverse). */
handler_result grid_mouse(view *v, const column_layout *layout, int list_y, int y, int x, bool click,
			  bool double_click, int wheel);

#endif
