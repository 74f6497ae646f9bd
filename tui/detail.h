/* detail.h - the drill-down screen for one node: a scrollable report
 * (detail_doc) with n/N walking to the next problem node in grid order. */
#ifndef SYNCTOP_DETAIL_H
#define SYNCTOP_DETAIL_H

#include <stdbool.h>

#include "tui_state.h"

/* Title on line y0, the report on y0+1 .. y1-1. */
void detail_draw(tui *t, int y0, int y1, int cols);

/* Returns true when the key was the drill-down's. */
bool detail_key(tui *t, int key);

/* Wheel: +1 down, -1 up. */
void detail_mouse(tui *t, int wheel);

#endif
