/* detail.h - the drill-down screen for one node: a scrollable report
 * (detail_doc) with n/N walking to the next problem node in grid order. */
#ifndef SYNCTOP_DETAIL_H
#define SYNCTOP_DETAIL_H

#include <stdbool.h>
#include <stddef.h>

#include "dayview.h"
#include "event_log.h"
#include "handler.h"
#include "node.h"
#include "tui.h"
#include "view.h"

typedef struct {
	size_t node;   /* node index */
	long top;      /* first report line on screen */
	long lines;    /* lines in the report (detail_prepare) */
	int page;      /* report lines on screen (detail_prepare) */
	dayview_range day; /* `d`: the day view above the report, or off */
	bool to_ssh;   /* `S`: scroll to the "Over SSH" section once it is there */
} detail_state;

/* Opens the report of a node at its top. */
void detail_open(detail_state *d, size_t node_index);

/* Measures the report of nd for the lines y0+1 .. y1-1, cols wide, and
 * keeps the scroll position inside it.  dv: the day view's series (read
 * by tui.c with dayview_refresh), state_dir NULL without --state-dir. */
void detail_prepare(detail_state *d, const node *nd, const event_log *log, const dayview *dv, const char *state_dir,
		    double now, int y0, int y1, int cols, bool utf8);

/* The width of the day view's plots (its buckets) at cols. */
int detail_day_width(int cols);

/* Title on line y0, the report on y0+1 .. y1-1.  Changes nothing. */
void detail_draw(const tui *t, int y0, int y1, int cols);

/* Scrolls, walks to the next problem node of the view (selecting it there
 * too), or HR_BACK to the grid. */
handler_result detail_key(detail_state *d, view *v, int key);

/* Wheel: +1 down, -1 up. */
handler_result detail_mouse(detail_state *d, int wheel);

#endif
