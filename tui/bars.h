/* bars.h - the header (cluster summary) and the footer (key hints, the
 * filter, messages) around every screen, and the footer's filter editor. */
#ifndef SYNCTOP_BARS_H
#define SYNCTOP_BARS_H

#include <stdbool.h>

#include "filter.h"
#include "handler.h"
#include "tui.h"
#include "view.h"

/* Lines the header takes. */
#define BARS_HEADER_LINES 2

/* The filter being typed in the footer. */
typedef struct {
	bool editing;
	char text[FILTER_TEXT_LEN];
	char before[FILTER_TEXT_LEN]; /* restored by Esc */
} filter_editor;

/* Header at lines 0..1: counts per status, nodes still connecting, max
 * |offset| and spread, the grandmasters (more than one is flagged), poll
 * interval, pause, last update.  Changes nothing. */
void bars_draw_header(const tui *t, int cols);

/* Footer on line y: the filter being edited, else a message, the active
 * filter and the key hints for the screen.  Changes nothing. */
void bars_draw_footer(const tui *t, int y, int cols);

/* Starts editing the view's filter. */
void bars_filter_begin(filter_editor *e, const view *v);

/* Keys while editing: each change filters the view at once.  HR_IGNORED
 * when not editing; every key is swallowed while editing. */
handler_result bars_filter_key(filter_editor *e, view *v, int key);

#endif
