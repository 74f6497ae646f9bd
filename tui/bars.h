/* bars.h - the header (cluster summary) and the footer (key hints, the
 * filter, messages) around every screen. */
#ifndef SYNCTOP_BARS_H
#define SYNCTOP_BARS_H

#include "tui_state.h"

/* Lines the header takes. */
#define BARS_HEADER_LINES 2

/* Header at lines 0..1: counts per status, max |offset| and spread, the
 * grandmasters (more than one is flagged), poll interval, pause, last
 * update. */
void bars_draw_header(tui *t, int cols);

/* Footer on line y: the filter being edited, else a message, the active
 * filter and the key hints for the screen. */
void bars_draw_footer(tui *t, int y, int cols);

/* Keys while editing the filter (the footer owns the line editor).
 * Returns true when the key was used. */
bool bars_filter_key(tui *t, int key);

/* Starts editing the filter. */
void bars_filter_begin(tui *t);

#endif
