/* grid.c - the node grid: layout, rows, navigation, sorting. */
#include <config.h>

#include "grid.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "bars.h"
#include "cluster.h"
#include "draw.h"
#include "textwidth.h"

static theme_role badge_role(node_status s)
{
	switch (s) {
	case NODE_STATUS_OK: return ROLE_BADGE_OK;
	case NODE_STATUS_WARN: return ROLE_BADGE_WARN;
	case NODE_STATUS_CRIT: return ROLE_BADGE_CRIT;
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

static void draw_headings(tui *t, int y, int cols)
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
		if (id == t->sort) {
			/* down: biggest (or worst) first */
			bool descending = info->descending != t->reverse;
			snprintf(title, sizeof title, "%s%s", info->title, descending ? down : up);
		} else {
			snprintf(title, sizeof title, "%s", info->title);
		}
		draw_cell(y, t->layout.x[i], t->layout.width[i], attr | (id == t->sort ? A_BOLD : 0), title,
			  info->right, t->utf8);
		end = t->layout.x[i] + t->layout.width[i];
	}
	/* position, when there is room after the last column */
	if (t->n_rows > 0) {
		char pos[48];
		long r = tui_selected_row(t);
		snprintf(pos, sizeof pos, "%ld/%zu", r >= 0 ? r + 1 : 0, t->n_rows);
		int w = tw_width(pos);
		if (end + 2 + w <= cols) {
			draw_text(y, cols - w, w, attr, pos, t->utf8);
		}
	}
}

static void draw_row(tui *t, int y, int cols, const node *nd, bool selected, double now)
{
	column_cell c;
	int row_attr = draw_attr(selected ? ROLE_SELECTED : ROLE_DEFAULT, false);

	draw_fill(y, 0, cols, row_attr);
	for (int i = 0; i < t->layout.n; i++) {
		column_id id = t->layout.id[i];
		const column_info *info = columns_info(id);
		int attr;
		columns_cell(nd, id, t->layout.width[i], now, t->utf8, &c);
		if (c.tone == TONE_BADGE) {
			attr = draw_attr(badge_role(cluster_node_status(nd)), false);
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

void grid_draw(tui *t, int y0, int y1, int cols)
{
	unsigned mask = 0;
	int node_w = 4;
	double now = tui_now();

	for (size_t i = 0; i < t->n_rows; i++) {
		const node *nd = &t->nodes[t->rows[i]];
		mask |= columns_data_mask(nd);
		int w = (int)strnlen(nd->host, sizeof nd->host);
		node_w = w > node_w ? w : node_w;
	}
	columns_layout(cols, mask, node_w, &t->layout);

	t->list_y = y0 + 1;
	t->page = y1 - t->list_y;
	if (t->page < 1) {
		t->page = 1;
	}
	long sel = tui_selected_row(t);
	if (sel >= 0) {
		if ((size_t)sel < t->top) {
			t->top = (size_t)sel;
		} else if ((size_t)sel >= t->top + (size_t)t->page) {
			t->top = (size_t)sel - (size_t)t->page + 1;
		}
	}
	if (t->n_rows <= (size_t)t->page) {
		t->top = 0;
	} else if (t->top > t->n_rows - (size_t)t->page) {
		t->top = t->n_rows - (size_t)t->page;
	}

	draw_headings(t, y0, cols);
	for (int i = 0; i < t->page; i++) {
		size_t r = t->top + (size_t)i;
		int y = t->list_y + i;
		if (r >= t->n_rows) {
			draw_fill(y, 0, cols, draw_attr(ROLE_DEFAULT, false));
			continue;
		}
		draw_row(t, y, cols, &t->nodes[t->rows[r]], t->rows[r] == t->selected, now);
	}
	if (t->n_rows == 0) {
		draw_text(t->list_y, 1, cols - 1, draw_attr(ROLE_DIM, false),
			  t->n_nodes == 0 ? "no nodes" : "no node matches the filter (/ to change, Esc to clear)",
			  t->utf8);
	}
}

/* ------------------------------------------------------------------ keys */

static void move_by(tui *t, long delta)
{
	long r = tui_selected_row(t);
	if (r < 0) {
		r = 0;
	}
	tui_select_row(t, r + delta);
}

static void jump_problem(tui *t, int dir)
{
	long r = tui_problem_row(t, tui_selected_row(t), dir);
	if (r < 0) {
		tui_message(t, ROLE_STATUS_OK, "no node with a problem%s",
			    filter_active(&t->filter) ? " among the filtered" : "");
		return;
	}
	tui_select_row(t, r);
}

static void cycle_sort(tui *t, int dir)
{
	int id = (int)t->sort;
	do {
		id = (id + dir + COL_COUNT) % COL_COUNT;
	} while (!columns_info((column_id)id)->sortable);
	t->sort = (column_id)id;
	t->reverse = false;
	tui_refresh_rows(t);
	tui_message(t, ROLE_MESSAGE, "sorted by %s", columns_info(t->sort)->key);
}

bool grid_key(tui *t, int key)
{
	switch (key) {
	case TK(KEY_UP):
	case 'k':
		move_by(t, -1);
		return true;
	case TK(KEY_DOWN):
	case 'j':
		move_by(t, 1);
		return true;
	case TK(KEY_PPAGE):
	case TK_CTRL('b'):
		move_by(t, -(long)t->page);
		return true;
	case TK(KEY_NPAGE):
	case TK_CTRL('f'):
	case ' ':
		move_by(t, (long)t->page);
		return true;
	case TK(KEY_HOME):
	case 'g':
		tui_select_row(t, 0);
		return true;
	case TK(KEY_END):
	case 'G':
		tui_select_row(t, (long)t->n_rows - 1);
		return true;
	case '\n':
	case '\r':
	case TK(KEY_ENTER):
	case TK(KEY_RIGHT):
	case 'l':
		tui_open_detail(t);
		return true;
	case 'q':
		t->quit = true;
		t->status = 0;
		return true;
	case TK_ESC:
		if (filter_active(&t->filter)) {
			char err[8];
			filter_set(&t->filter, "", err, sizeof err);
			tui_refresh_rows(t);
			tui_message(t, ROLE_MESSAGE, "filter cleared");
		}
		return true;
	case '/':
		bars_filter_begin(t);
		return true;
	case 's':
	case '>':
		cycle_sort(t, 1);
		return true;
	case 'S':
	case '<':
		cycle_sort(t, -1);
		return true;
	case 'r':
		t->reverse = !t->reverse;
		tui_refresh_rows(t);
		return true;
	case 'n':
		jump_problem(t, 1);
		return true;
	case 'N':
		jump_problem(t, -1);
		return true;
	default:
		return false;
	}
}

void grid_mouse(tui *t, int y, int x, bool click, bool double_click, int wheel)
{
	if (wheel) {
		move_by(t, 3L * wheel);
		return;
	}
	if (!click && !double_click) {
		return;
	}
	if (y == t->list_y - 1) {
		/* a heading: sort by it, again to reverse */
		for (int i = 0; i < t->layout.n; i++) {
			column_id id = t->layout.id[i];
			if (x >= t->layout.x[i] && x < t->layout.x[i] + t->layout.width[i] + 1 &&
			    columns_info(id)->sortable) {
				if (t->sort == id) {
					t->reverse = !t->reverse;
				} else {
					t->sort = id;
					t->reverse = false;
				}
				tui_refresh_rows(t);
				return;
			}
		}
		return;
	}
	if (y < t->list_y || y >= t->list_y + t->page) {
		return;
	}
	size_t r = t->top + (size_t)(y - t->list_y);
	if (r >= t->n_rows) {
		return;
	}
	tui_select_row(t, (long)r);
	if (double_click) {
		tui_open_detail(t);
	}
}
