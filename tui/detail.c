/* detail.c - draws and scrolls the drill-down. */
#include <config.h>

#include "detail.h"

#include <curses.h>
#include <stdio.h>

#include "detail_doc.h"
#include "doc.h"
#include "draw.h"
#include "textwidth.h"

void detail_draw(tui *t, int y0, int y1, int cols)
{
	doc d;
	const node *nd;
	char title[NODE_NAME_LEN * 3 + 64], host[NODE_NAME_LEN * 3 + 1], pos[64];

	if (t->detail >= t->n_nodes) {
		t->screen = SCREEN_GRID;
		return;
	}
	nd = &t->nodes[t->detail];
	doc_init(&d);
	detail_doc_build(&d, nd, tui_now(), cols - 2, t->utf8);

	t->detail_lines = (long)d.n;
	t->detail_page = y1 - (y0 + 1);
	if (t->detail_page < 1) {
		t->detail_page = 1;
	}
	long max_top = t->detail_lines - t->detail_page;
	if (t->detail_top > max_top) {
		t->detail_top = max_top;
	}
	if (t->detail_top < 0) {
		t->detail_top = 0;
	}

	int attr = draw_attr(ROLE_COLUMN_HEADER, false);
	draw_fill(y0, 0, cols, attr);
	tw_clean(nd->host, sizeof nd->host, t->utf8, host, sizeof host);
	snprintf(title, sizeof title, " node %s", host);
	int used = draw_text(y0, 0, cols, attr | A_BOLD, title, t->utf8);
	long last = t->detail_top + t->detail_page;
	snprintf(pos, sizeof pos, "lines %ld-%ld of %ld ", t->detail_lines ? t->detail_top + 1 : 0,
		 last < t->detail_lines ? last : t->detail_lines, t->detail_lines);
	int w = tw_width(pos);
	if (used + 2 + w <= cols) {
		draw_text(y0, cols - w, w, attr, pos, t->utf8);
	}

	for (int i = 0; i < t->detail_page; i++) {
		long l = t->detail_top + i;
		int y = y0 + 1 + i;
		if (l >= (long)d.n) {
			draw_fill(y, 0, cols, draw_attr(ROLE_DEFAULT, false));
			continue;
		}
		draw_fill(y, 0, 1, draw_attr(ROLE_DEFAULT, false));
		draw_doc_line(y, 1, cols - 1, &d.lines[l], t->utf8);
	}
	doc_free(&d);
}

static void scroll_by(tui *t, long delta)
{
	t->detail_top += delta;
	if (t->detail_top < 0) {
		t->detail_top = 0;
	}
	/* the upper bound depends on the doc: detail_draw clamps it */
}

static void walk(tui *t, int dir)
{
	long from = -1;
	for (size_t r = 0; r < t->n_rows; r++) {
		if (t->rows[r] == t->detail) {
			from = (long)r;
			break;
		}
	}
	if (from < 0) {
		from = tui_selected_row(t);
	}
	long r = tui_problem_row(t, from, dir);
	if (r < 0 || t->rows[r] == t->detail) {
		tui_message(t, ROLE_STATUS_OK, "no other node with a problem");
		return;
	}
	tui_select_row(t, r);
	t->detail = t->rows[r];
	t->detail_top = 0;
}

bool detail_key(tui *t, int key)
{
	switch (key) {
	case TK(KEY_UP):
	case 'k':
		scroll_by(t, -1);
		return true;
	case TK(KEY_DOWN):
	case 'j':
		scroll_by(t, 1);
		return true;
	case TK(KEY_PPAGE):
	case TK_CTRL('b'):
	case 'b':
		scroll_by(t, -(long)t->detail_page);
		return true;
	case TK(KEY_NPAGE):
	case TK_CTRL('f'):
	case ' ':
		scroll_by(t, (long)t->detail_page);
		return true;
	case TK(KEY_HOME):
	case 'g':
		t->detail_top = 0;
		return true;
	case TK(KEY_END):
	case 'G':
		t->detail_top = t->detail_lines;
		return true;
	case TK_ESC:
	case 'q':
	case TK(KEY_LEFT):
	case 'h':
	case TK(KEY_BACKSPACE):
	case 127:
		t->screen = SCREEN_GRID;
		return true;
	case 'n':
		walk(t, 1);
		return true;
	case 'N':
		walk(t, -1);
		return true;
	default:
		return false;
	}
}

void detail_mouse(tui *t, int wheel)
{
	scroll_by(t, 3L * wheel);
}
