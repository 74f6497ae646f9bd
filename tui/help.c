/* help.c - the help overlay. */
#include <config.h>

#include "help.h"

#include <curses.h>
#include <stdio.h>

#include "columns.h"
#include "draw.h"
#include "textwidth.h"
#include "tui_state.h"

typedef struct {
	const char *keys, *what;
} key_help;

static const key_help grid_keys[] = {
	{"Up Down  k j", "move the selection"},
	{"PgUp PgDn", "a page up / down (also Ctrl-B, Ctrl-F, Space)"},
	{"Home End  g G", "first / last node"},
	{"Enter  Right  l", "open the drill-down for the selected node"},
	{"n  N", "next / previous node with a problem (status not ok)"},
	{"/", "filter: text in host, status or source; a regex when it has regex "
	      "characters; a leading ! keeps the nodes that do not match"},
	{"Esc", "clear the filter"},
	{"s >   S <", "sort by the next / previous column"},
	{"r", "reverse the sort (default: worst status, then largest |offset|)"},
	{"q  Ctrl-C", "quit"},
};

static const key_help detail_keys[] = {
	{"Up Down  k j", "scroll a line"},
	{"PgUp PgDn  b Space", "scroll a page"},
	{"Home End  g G", "top / bottom"},
	{"n  N", "next / previous node with a problem, without going back"},
	{"d", "day view: offset and frequency over 1 h / 24 h / 7 d / off, from --state-dir"},
	{"S", "Prometheus node: its full detail, once over SSH"},
	{"Esc  q  Left  h", "back to the grid"},
};

static const key_help events_keys[] = {
	{"Up Down  PgUp PgDn", "move the selection (also k j g G)"},
	{"Enter", "the node's drill-down; on a group (\"41 nodes: ...\") show / hide its nodes"},
	{"/", "filter as in the grid (one filter for both): host, kind, what changed"},
	{"Esc  q  e  Left", "back to the grid"},
};

static const key_help global_keys[] = {
	{"e", "the events screen: what changed, newest first"},
	{"R", "poll every node now"},
	{"p", "pause / resume polling"},
	{"+  -", "longer / shorter poll interval (0.5 s .. 10 min)"},
	{"t  T", "next / previous colour theme"},
	{"Ctrl-L", "redraw the whole screen"},
	{"?  F1", "this help (any other key closes it)"},
};

static void keys(doc *d, const char *title, const key_help *k, size_t n, int width)
{
	doc_newline(d);
	doc_newline(d);
	doc_add(d, ROLE_TITLE, title);
	for (size_t i = 0; i < n; i++) {
		doc_newline(d);
		doc_add(d, ROLE_DEFAULT, "  ");
		doc_add(d, ROLE_FOOTER_KEY, k[i].keys);
		doc_pad(d, ROLE_DEFAULT, 22 - tw_width(k[i].keys));
		doc_wrapped(d, ROLE_DEFAULT, 24, k[i].what, width);
	}
}

void help_build(doc *d, bool utf8)
{
	const int width = 72;
	(void)utf8;
	doc_newline(d);
	doc_add(d, ROLE_TITLE, "synctop: clock sync across the cluster");
	keys(d, "Grid", grid_keys, sizeof grid_keys / sizeof grid_keys[0], width);
	keys(d, "Drill-down", detail_keys, sizeof detail_keys / sizeof detail_keys[0], width);
	keys(d, "Everywhere", global_keys, sizeof global_keys / sizeof global_keys[0], width);
	keys(d, "Events", events_keys, sizeof events_keys / sizeof events_keys[0], width);

	doc_newline(d);
	doc_newline(d);
	doc_add(d, ROLE_TITLE, "Mouse");
	doc_newline(d);
	doc_pad(d, ROLE_DEFAULT, 2);
	doc_wrapped(d, ROLE_DEFAULT, 2, "click selects, double-click opens, the wheel scrolls, a click "
					"on a column heading sorts by it (again: reverse).  --no-mouse turns "
					"it off.", width);

	doc_newline(d);
	doc_newline(d);
	doc_add(d, ROLE_TITLE, "Columns");
	column_id ids[COLUMNS_MAX];
	int n_cols = columns_in_place_order(ids);
	for (int i = 0; i < n_cols; i++) {
		const column_info *info = columns_info(ids[i]);
		doc_newline(d);
		doc_add(d, ROLE_DEFAULT, "  ");
		doc_add(d, ROLE_COLUMN_HEADER, info->title);
		doc_pad(d, ROLE_DEFAULT, 12 - tw_width(info->title));
		doc_wrapped(d, ROLE_DEFAULT, 14, info->help, width);
	}
	doc_newline(d);
	doc_newline(d);
	doc_add(d, ROLE_TITLE, "Cells");
	doc_newline(d);
	doc_add(d, ROLE_DEFAULT, "  -  does not apply to the node     ?  unknown");
	doc_newline(d);
	doc_add(d, ROLE_DEFAULT, "  ");
	doc_add(d, ROLE_STATUS_WARN, "warn");
	doc_add(d, ROLE_DEFAULT, " / ");
	doc_add(d, ROLE_STATUS_CRIT, "crit");
	doc_add(d, ROLE_DEFAULT, "  a finding is about this value     ");
	doc_add(d, ROLE_DIM, "dim");
	doc_add(d, ROLE_DEFAULT, "  stale: the node stopped answering");
}

/* The box: at most 80 wide, as tall as the text allows; false when the
 * screen is too small for one. */
static bool help_box(long text_lines, int lines, int cols, int *y0, int *x0, int *h, int *w)
{
	*w = cols - 4 < 80 ? cols - 4 : 80;
	if (*w < 20 || lines < 6) {
		return false;
	}
	*h = (int)text_lines + 2;
	if (*h > lines - 2) {
		*h = lines - 2;
	}
	*y0 = (lines - *h) / 2;
	*x0 = (cols - *w) / 2;
	return true;
}

static long help_lines(void)
{
	doc d;
	doc_init(&d);
	help_build(&d, false);
	long n = (long)d.n;
	doc_free(&d);
	return n;
}

void help_open(help_state *h)
{
	h->open = true;
	h->top = 0;
}

void help_prepare(help_state *hs, int lines, int cols)
{
	int y0, x0, h, w;
	hs->lines = help_lines();
	hs->page = help_box(hs->lines, lines, cols, &y0, &x0, &h, &w) ? h - 2 : 1;
	if (hs->top > hs->lines - hs->page) {
		hs->top = hs->lines - hs->page;
	}
	if (hs->top < 0) {
		hs->top = 0;
	}
}

void help_draw(const tui *t, int lines, int cols)
{
	const help_state *hs = &t->help;
	doc d;
	int border = draw_attr(ROLE_BORDER, false);
	int y0, x0, h, w;

	doc_init(&d);
	help_build(&d, t->utf8);
	if (!help_box((long)d.n, lines, cols, &y0, &x0, &h, &w)) {
		doc_free(&d);
		return;
	}
	attrset(border);
	mvaddch(y0, x0, ACS_ULCORNER);
	mvhline(y0, x0 + 1, ACS_HLINE, w - 2);
	mvaddch(y0, x0 + w - 1, ACS_URCORNER);
	mvaddch(y0 + h - 1, x0, ACS_LLCORNER);
	mvhline(y0 + h - 1, x0 + 1, ACS_HLINE, w - 2);
	mvaddch(y0 + h - 1, x0 + w - 1, ACS_LRCORNER);
	mvvline(y0 + 1, x0, ACS_VLINE, h - 2);
	mvvline(y0 + 1, x0 + w - 1, ACS_VLINE, h - 2);
	draw_text(y0, x0 + 2, w - 4, draw_attr(ROLE_TITLE, false), " Help ", t->utf8);
	if ((long)d.n > h - 2) {
		char pos[48];
		snprintf(pos, sizeof pos, " %ld/%ld ", hs->top + h - 2, (long)d.n);
		int pw = tw_width(pos);
		draw_text(y0 + h - 1, x0 + w - 2 - pw, pw, border, pos, t->utf8);
	}
	for (int i = 0; i < h - 2; i++) {
		long l = hs->top + i;
		draw_fill(y0 + 1 + i, x0 + 1, 1, draw_attr(ROLE_DEFAULT, false));
		if (l < (long)d.n) {
			draw_doc_line(y0 + 1 + i, x0 + 2, w - 3, &d.lines[l], t->utf8);
		} else {
			draw_fill(y0 + 1 + i, x0 + 2, w - 3, draw_attr(ROLE_DEFAULT, false));
		}
	}
	doc_free(&d);
}

static handler_result scroll_by(help_state *h, long delta)
{
	h->top += delta;
	if (h->top < 0) {
		h->top = 0;
	}
	/* the upper bound depends on the box: help_prepare clamps it */
	return handler_flags(HR_HANDLED | HR_REDRAW);
}

handler_result help_key(help_state *h, int key)
{
	switch (key) {
	case TK(KEY_UP):
	case 'k':
		return scroll_by(h, -1);
	case TK(KEY_DOWN):
	case 'j':
		return scroll_by(h, 1);
	case TK(KEY_PPAGE):
		return scroll_by(h, -(long)h->page);
	case TK(KEY_NPAGE):
	case ' ':
		return scroll_by(h, (long)h->page);
	default:
		return handler_flags(HR_HANDLED | HR_REDRAW | HR_BACK);
	}
}

handler_result help_mouse(help_state *h, int wheel)
{
	return scroll_by(h, 3L * wheel);
}
