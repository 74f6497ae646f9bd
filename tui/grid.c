/* grid.c - the node grid: layout, rows, navigation, sorting. */
#include <config.h>

#include "grid.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "health.h"
#include "draw.h"
#include "textwidth.h"
#include "tui_state.h"

static theme_role badge_role(node_status s)
{
	switch (s) {
	case NODE_STATUS_OK: return ROLE_BADGE_OK;
	case NODE_STATUS_WARN: return ROLE_BADGE_WARN;
	case NODE_STATUS_CRIT: return ROLE_BADGE_CRIT;
	case NODE_STATUS_PENDING: return ROLE_BADGE_PENDING;
	case NODE_STATUS_UNKNOWN: break;
	}
	return ROLE_BADGE_UNKNOWN;
}

static theme_role tone_role(cell_tone tone, column_id id)
{
	switch (tone) {
	case TONE_WARN: return ROLE_STATUS_WARN;
	case TONE_CRIT: return ROLE_STATUS_CRIT;
	case TONE_DIM: return ROLE_DIM;
	case TONE_PLAIN:
	case TONE_BADGE: break;
	}
	return id == COL_SPARK ? ROLE_SPARKLINE : ROLE_DEFAULT;
}

static void draw_headings(const tui *t, int y, int cols)
{
	const char *up = t->utf8 ? "\xe2\x96\xb2" : "^";
	const char *down = t->utf8 ? "\xe2\x96\xbc" : "v";
	int attr = draw_attr(ROLE_COLUMN_HEADER, false);
	int end = 0;

	draw_fill(y, 0, cols, attr);
	for (int i = 0; i < t->layout.n; i++) {
		column_id id = t->layout.id[i];
		const column_info *info = columns_info(id);
		char title[64];
		const char *name = id == COL_OFFSET ? columns_offset_title(&t->layout) : info->title;
		if (id == t->view.sort) {
			/* down: biggest (or worst) first */
			bool descending = info->descending != t->view.reverse;
			snprintf(title, sizeof title, "%s%s", name, descending ? down : up);
		} else {
			snprintf(title, sizeof title, "%s", name);
		}
		draw_cell(y, t->layout.x[i], t->layout.width[i], attr | (id == t->view.sort ? A_BOLD : 0), title,
			  info->right, t->utf8);
		end = t->layout.x[i] + t->layout.width[i];
	}
	/* position, when there is room after the last column */
	if (t->view.n_rows > 0) {
		char pos[48];
		long r = view_selected_row(&t->view);
		snprintf(pos, sizeof pos, "%ld/%zu", r >= 0 ? r + 1 : 0, t->view.n_rows);
		int w = tw_width(pos);
		if (end + 2 + w <= cols) {
			draw_text(y, cols - w, w, attr, pos, t->utf8);
		}
	}
}

static void draw_row(const tui *t, int y, int cols, const node *nd, bool selected, double now)
{
	column_cell c;
	int row_attr = draw_attr(selected ? ROLE_SELECTED : ROLE_DEFAULT, false);

	draw_fill(y, 0, cols, row_attr);
	for (int i = 0; i < t->layout.n; i++) {
		column_id id = t->layout.id[i];
		const column_info *info = columns_info(id);
		int attr;
		if (id == COL_OFFSET && t->layout.offset_shares_ptp) {
			columns_offset_cell(nd, now, t->utf8, &c);
		} else {
			columns_cell(nd, id, t->layout.width[i], now, t->utf8, &c);
		}
		if (c.tone == TONE_BADGE) {
			attr = draw_attr(badge_role(health_live_status(nd)), false);
		} else {
			theme_role role = tone_role(c.tone, id);
			attr = selected && role == ROLE_DEFAULT ? row_attr : draw_attr(role, selected);
		}
		draw_cell(y, t->layout.x[i], t->layout.width[i], attr, c.text, info->right, t->utf8);
		if (id == COL_STATUS && !nd->has_observation && nd->error[0] && i + 1 < t->layout.n) {
			/* Nothing to show but why: say it across the empty columns. */
			char why[NODE_ERROR_LEN * 3 + 1];
			int x = t->layout.x[i + 1];
			tw_clean(nd->error, sizeof nd->error, t->utf8, why, sizeof why);
			draw_cell(y, x, cols - x, draw_attr(ROLE_DIM, selected), why, false, t->utf8);
			return;
		}
	}
}

void grid_draw(const tui *t, int y0, int y1, int cols)
{
	const view *v = &t->view;
	int list_y = y0 + 1, page = y1 - list_y;

	draw_headings(t, y0, cols);
	for (int i = 0; i < page; i++) {
		size_t r = v->top + (size_t)i;
		int y = list_y + i;
		if (r >= v->n_rows) {
			draw_fill(y, 0, cols, draw_attr(ROLE_DEFAULT, false));
			continue;
		}
		draw_row(t, y, cols, &v->nodes[v->rows[r]], v->rows[r] == v->selected, t->now);
	}
	if (v->n_rows == 0) {
		draw_text(list_y, 1, cols - 1, draw_attr(ROLE_DIM, false),
			  v->n_nodes == 0 ? "no nodes" : "no node matches the filter (/ to change, Esc to clear)",
			  t->utf8);
	}
}

/* ------------------------------------------------------------------ keys */

#define MOVED (HR_HANDLED | HR_REDRAW)

static handler_result jump_problem(view *v, int dir)
{
	long r = view_problem_row(v, view_selected_row(v), dir);
	if (r < 0) {
		return handler_message(HR_HANDLED, ROLE_STATUS_OK, "no node with a problem%s",
				       filter_active(&v->filter) ? " among the filtered" : "");
	}
	view_select_row(v, r);
	return handler_flags(MOVED);
}

static handler_result cycle_sort(view *v, int dir)
{
	view_cycle_sort(v, dir);
	return handler_message(MOVED, ROLE_MESSAGE, "sorted by %s", columns_info(v->sort)->key);
}

handler_result grid_key(view *v, int key)
{
	switch (key) {
	case TK(KEY_UP):
	case 'k':
		view_move(v, -1);
		return handler_flags(MOVED);
	case TK(KEY_DOWN):
	case 'j':
		view_move(v, 1);
		return handler_flags(MOVED);
	case TK(KEY_PPAGE):
	case TK_CTRL('b'):
		view_move(v, -(long)v->page);
		return handler_flags(MOVED);
	case TK(KEY_NPAGE):
	case TK_CTRL('f'):
	case ' ':
		view_move(v, (long)v->page);
		return handler_flags(MOVED);
	case TK(KEY_HOME):
	case 'g':
		view_select_row(v, 0);
		return handler_flags(MOVED);
	case TK(KEY_END):
	case 'G':
		view_select_row(v, (long)v->n_rows - 1);
		return handler_flags(MOVED);
	case '\n':
	case '\r':
	case TK(KEY_ENTER):
	case TK(KEY_RIGHT):
	case 'l':
		return handler_flags(HR_HANDLED | HR_REDRAW | HR_OPEN_DETAIL);
	case 'q':
		return handler_flags(HR_HANDLED | HR_QUIT);
	case TK_ESC:
		if (filter_active(&v->filter)) {
			char err[8];
			view_set_filter(v, "", err, sizeof err);
			return handler_message(MOVED, ROLE_MESSAGE, "filter cleared");
		}
		return handler_flags(HR_HANDLED);
	case '/':
		return handler_flags(HR_HANDLED | HR_REDRAW | HR_EDIT_FILTER);
	case 's':
	case '>':
		return cycle_sort(v, 1);
	case 'S':
	case '<':
		return cycle_sort(v, -1);
	case 'r':
		view_toggle_reverse(v);
		return handler_flags(MOVED);
	case 'n':
		return jump_problem(v, 1);
	case 'N':
		return jump_problem(v, -1);
	default:
		return handler_flags(HR_IGNORED);
	}
}

handler_result grid_mouse(view *v, const column_layout *layout, int list_y, int y, int x, bool click,
			  bool double_click, int wheel)
{
	if (wheel) {
		view_move(v, 3L * wheel);
		return handler_flags(MOVED);
	}
	if (!click && !double_click) {
		return handler_flags(HR_IGNORED);
	}
	if (y == list_y - 1) {
		/* a heading: sort by it, again to reverse */
		for (int i = 0; i < layout->n; i++) {
			column_id id = layout->id[i];
			if (x >= layout->x[i] && x < layout->x[i] + layout->width[i] + 1 &&
			    columns_info(id)->sortable) {
				view_sort_by(v, id, v->sort == id ? !v->reverse : false);
				return handler_flags(MOVED);
			}
		}
		return handler_flags(HR_HANDLED);
	}
	if (y < list_y || y >= list_y + (int)v->page) {
		return handler_flags(HR_IGNORED);
	}
	size_t r = v->top + (size_t)(y - list_y);
	if (r >= v->n_rows) {
		return handler_flags(HR_HANDLED);
	}
	view_select_row(v, (long)r);
	return handler_flags(MOVED | (double_click ? HR_OPEN_DETAIL : 0));
}
