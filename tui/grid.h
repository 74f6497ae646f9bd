/* grid.h - the main screen: one row per node, columns that fit the width,
 * only the visible rows drawn. */
#ifndef SYNCTOP_GRID_H
#define SYNCTOP_GRID_H

#include <stdbool.h>

#include "tui_state.h"

/* Column headings on line y0, rows on y0+1 .. y1-1. */
void grid_draw(tui *t, int y0, int y1, int cols);

/* Returns true when the key was the grid's. */
bool grid_key(tui *t, int key);

/* A mouse event at (y, x): click selects, double click opens, wheel
 * scrolls, a click on a heading sorts by that column. */
void grid_mouse(tui *t, int y, int x, bool click, bool double_click, int wheel);

#endif
