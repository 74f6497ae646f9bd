/* detail.c - draws and scrolls the drill-down. */
#include <config.h>

#include "detail.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "detail_doc.h"
#include "doc.h"
#include "draw.h"
#include "textwidth.h"
#include "tui_state.h"

#define SCROLLED (HR_HANDLED | HR_REDRAW)

void detail_open(detail_state *d, size_t node_index)
{
	d->node = node_index;
	d->top = 0;
	d->to_ssh = false;
}

int detail_day_width(int cols)
{
	return cols - 4 < 200 ? cols - 4 : 200;
}

/* The day view (when on) above the report. */
static void build(doc *report, const detail_state *d, const node *nd, const event_log *log, const dayview *dv,
		  const char *state_dir, double now, int cols, bool utf8)
{
	dayview_doc(report, dv, state_dir, d->day, now, cols - 2, utf8);
	detail_doc_build_events(report, nd, log, d->node, now, cols - 2, utf8);
}

void detail_prepare(detail_state *d, const node *nd, const event_log *log, const dayview *dv, const char *state_dir,
		    double now, int y0, int y1, int cols, bool utf8)
{
	doc report;
	doc_init(&report);
	build(&report, d, nd, log, dv, state_dir, now, cols, utf8);
	d->lines = (long)report.n;
	for (size_t i = 0; d->to_ssh && i < report.n; i++) {
		if (strncmp(report.lines[i].text, "Over SSH", 8) == 0) {
			d->top = (long)i;
			d->to_ssh = false;
		}
	}
	doc_free(&report);
	d->page = y1 - (y0 + 1);
	if (d->page < 1) {
		d->page = 1;
	}
	long max_top = d->lines - d->page;
	if (d->top > max_top) {
		d->top = max_top;
	}
	if (d->top < 0) {
		d->top = 0;
	}
}

void detail_draw(const tui *t, int y0, int y1, int cols)
{
	const detail_state *ds = &t->detail;
	doc d;
	const node *nd;
	char title[NODE_NAME_LEN * 3 + 64], host[NODE_NAME_LEN * 3 + 1], pos[64];

	if (ds->node >= t->n_nodes) {
		return;
	}
	nd = &t->nodes[ds->node];
	doc_init(&d);
	build(&d, ds, nd, t->event_log, &t->dayview, t->history_dir, t->now, cols, t->utf8);

	int attr = draw_attr(ROLE_COLUMN_HEADER, false);
	draw_fill(y0, 0, cols, attr);
	tw_clean(nd->host, sizeof nd->host, t->utf8, host, sizeof host);
	snprintf(title, sizeof title, " node %s", host);
	int used = draw_text(y0, 0, cols, attr | A_BOLD, title, t->utf8);
	long n = (long)d.n, last = ds->top + ds->page;
	snprintf(pos, sizeof pos, "lines %ld-%ld of %ld ", n ? ds->top + 1 : 0, last < n ? last : n, n);
	int w = tw_width(pos);
	if (used + 2 + w <= cols) {
		draw_text(y0, cols - w, w, attr, pos, t->utf8);
	}

	for (int i = 0; i < y1 - (y0 + 1); i++) {
		long l = ds->top + i;
		int y = y0 + 1 + i;
		if (l >= n) {
			draw_fill(y, 0, cols, draw_attr(ROLE_DEFAULT, false));
			continue;
		}
		draw_fill(y, 0, 1, draw_attr(ROLE_DEFAULT, false));
		draw_doc_line(y, 1, cols - 1, &d.lines[l], t->utf8);
	}
	doc_free(&d);
}

static handler_result scroll_by(detail_state *d, long delta)
{
	d->top += delta;
	if (d->top < 0) {
		d->top = 0;
	}
	/* the upper bound depends on the report: detail_prepare clamps it */
	return handler_flags(SCROLLED);
}

static handler_result walk(detail_state *d, view *v, int dir)
{
	long from = view_row_of(v, d->node);
	if (from < 0) {
		from = view_selected_row(v);
	}
	long r = view_problem_row(v, from, dir);
	if (r < 0 || v->rows[r] == d->node) {
		return handler_message(HR_HANDLED, ROLE_STATUS_OK, "no other node with a problem");
	}
	view_select_row(v, r);
	detail_open(d, v->rows[r]);
	return handler_flags(SCROLLED);
}

handler_result detail_key(detail_state *d, view *v, int key)
{
	switch (key) {
	case TK(KEY_UP):
	case 'k':
		return scroll_by(d, -1);
	case TK(KEY_DOWN):
	case 'j':
		return scroll_by(d, 1);
	case TK(KEY_PPAGE):
	case TK_CTRL('b'):
	case 'b':
		return scroll_by(d, -(long)d->page);
	case TK(KEY_NPAGE):
	case TK_CTRL('f'):
	case ' ':
		return scroll_by(d, (long)d->page);
	case TK(KEY_HOME):
	case 'g':
		d->top = 0;
		return handler_flags(SCROLLED);
	case TK(KEY_END):
	case 'G':
		d->top = d->lines;
		return handler_flags(SCROLLED);
	case TK_ESC:
	case 'q':
	case TK(KEY_LEFT):
	case 'h':
	case TK(KEY_BACKSPACE):
	case 127:
		return handler_flags(HR_HANDLED | HR_REDRAW | HR_BACK);
	case 'd':
		/* the day view opens at the top, where it is drawn */
		d->day = dayview_next(d->day);
		d->top = 0;
		return handler_message(SCROLLED, ROLE_MESSAGE, "day view: %s", dayview_name(d->day));
	case 'S':
		/* the source does it (tui_set_ssh_detail_hook); tui.c asks.  The
		 * report scrolls to its section, the poll's state or answer */
		d->to_ssh = true;
		return handler_flags(HR_HANDLED | HR_REDRAW | HR_SSH_DETAIL);
	case 'n':
		return walk(d, v, 1);
	case 'N':
		return walk(d, v, -1);
	default:
		return handler_flags(HR_IGNORED);
	}
}

handler_result detail_mouse(detail_state *d, int wheel)
{
	return scroll_by(d, 3L * wheel);
}
