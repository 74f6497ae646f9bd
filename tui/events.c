/* events.c - the events screen (events.h). */
#include <config.h>

#include "events.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "keys.h"
#include "textwidth.h"
#include "tui_state.h"
#include "xalloc.h"

#define MOVED (HR_HANDLED | HR_REDRAW)

void events_init(events_state *s)
{
	memset(s, 0, sizeof *s);
}

void events_free(events_state *s)
{
	free(s->rows);
	memset(s, 0, sizeof *s);
}

static void push_row(events_state *s, uint64_t id)
{
	if (s->n_rows == s->cap_rows) {
		s->cap_rows = s->cap_rows ? 2 * s->cap_rows : 256;
		s->rows = xrealloc(s->rows, s->cap_rows * sizeof *s->rows);
	}
	s->rows[s->n_rows++] = id;
}

static const char *host_of(const event *e, const node *nodes, size_t n_nodes, char *buf, size_t len)
{
	if (e->node == EVENT_NODE_GROUP) {
		snprintf(buf, len, "%u nodes", e->group_size);
	} else if (e->node == EVENT_NODE_CLUSTER || e->node >= n_nodes) {
		snprintf(buf, len, "cluster");
	} else {
		snprintf(buf, len, "%.*s", (int)strnlen(nodes[e->node].host, sizeof nodes[e->node].host),
			 nodes[e->node].host);
	}
	return buf;
}

static bool matches(const event *e, const node *nodes, size_t n_nodes, const node_filter *filter)
{
	if (!filter_active(filter)) {
		return true;
	}
	char host[NODE_NAME_LEN];
	const char *fields[] = {
		host_of(e, nodes, n_nodes, host, sizeof host), event_kind_name(e->kind),
		e->kind == EVENT_GROUP ? event_kind_name(e->group_kind) : NULL,
		e->subject, e->from, e->to, e->message,
	};
	return filter_match_fields(filter, fields, sizeof fields / sizeof fields[0]);
}

uint64_t events_row_id(const events_state *s, long r)
{
	if (r < 0 || (size_t)r >= s->n_rows) {
		return 0;
	}
	return s->rows[s->n_rows - 1 - (size_t)r];
}

/* Appends the rows of log's events from index `from` on (oldest first); an
 * expanded group's members go before it, so that on screen (newest first)
 * they are listed under it. */
static void add_rows(events_state *s, const event_log *log, size_t from, const node *nodes, size_t n_nodes,
		     const node_filter *filter)
{
	for (size_t i = from; i < event_log_count(log); i++) {
		const event *e = event_log_at(log, i);
		if (e->group != 0) {
			continue; /* listed under its group when that is expanded */
		}
		bool shown = false; /* an expanded group: members the filter keeps */
		if (e->kind == EVENT_GROUP && e->id == s->expanded) {
			for (uint32_t k = e->group_size; k >= 1; k--) {
				const event *m = event_log_find(log, e->id + k);
				if (m && m->group == e->id && matches(m, nodes, n_nodes, filter)) {
					push_row(s, m->id);
					shown = true;
				}
			}
		}
		if (shown || matches(e, nodes, n_nodes, filter)) {
			push_row(s, e->id);
		}
	}
}

static void rebuild(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		    const node_filter *filter)
{
	bool same = s->built && strcmp(s->built_filter, filter->text) == 0 && s->built_expanded == s->expanded;
	size_t added_from = 0;
	if (same) {
		/* only new events: drop the rows that left the ring, append */
		uint64_t oldest = event_log_count(log) ? event_log_at(log, 0)->id : UINT64_MAX;
		size_t drop = 0;
		while (drop < s->n_rows && s->rows[drop] < oldest) {
			drop++;
		}
		if (drop > 0) { /* rows may still be NULL: no row yet */
			memmove(s->rows, s->rows + drop, (s->n_rows - drop) * sizeof *s->rows);
			s->n_rows -= drop;
		}
		uint64_t first_new = s->built_last_id + 1;
		added_from = event_log_count(log);
		if (event_log_count(log) && first_new >= oldest) {
			added_from = (size_t)(first_new - oldest);
		} else if (event_log_count(log)) {
			added_from = 0;
		}
	} else {
		s->n_rows = 0;
	}
	size_t before = s->n_rows;
	add_rows(s, log, added_from, nodes, n_nodes, filter);
	/* the selection stays on its event as new ones arrive above it, unless
	 * it is on the newest row, which it follows */
	if (same && s->selected > 0) {
		s->selected += (long)(s->n_rows - before);
		s->top += (long)(s->n_rows - before);
	}
	s->built = true;
	s->built_last_id = event_log_last_id(log);
	s->built_count = event_log_count(log);
	snprintf(s->built_filter, sizeof s->built_filter, "%s", filter->text);
	s->built_expanded = s->expanded;
}

void events_prepare(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		    const node_filter *filter, int y0, int y1)
{
	s->page = y1 - (y0 + 1);
	if (s->page < 1) {
		s->page = 1;
	}
	if (!log) {
		s->n_rows = 0;
		return;
	}
	if (!s->built || s->built_last_id != event_log_last_id(log) || s->built_count != event_log_count(log) ||
	    strcmp(s->built_filter, filter->text) != 0 || s->built_expanded != s->expanded) {
		bool refiltered = s->built && (strcmp(s->built_filter, filter->text) != 0 ||
					       s->built_expanded != s->expanded);
		rebuild(s, log, nodes, n_nodes, filter);
		if (refiltered && s->selected_id) {
			/* find the selected event among the new rows */
			for (size_t r = 0; r < s->n_rows; r++) {
				if (events_row_id(s, (long)r) == s->selected_id) {
					s->selected = (long)r;
					break;
				}
			}
		}
	}
	if (s->selected >= (long)s->n_rows) {
		s->selected = (long)s->n_rows - 1;
	}
	if (s->selected < 0) {
		s->selected = 0;
	}
	s->selected_id = events_row_id(s, s->selected);
	if (s->top > s->selected) {
		s->top = s->selected;
	}
	if (s->selected >= s->top + s->page) {
		s->top = s->selected - s->page + 1;
	}
	if (s->top < 0) {
		s->top = 0;
	}
}

void events_line(const event *e, char *out, size_t out_len)
{
	char when[16] = "?";
	time_t tt = (time_t)e->t;
	struct tm tm;
	if (isfinite(e->t) && localtime_r(&tt, &tm)) {
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	}
	event_kind kind = e->kind == EVENT_GROUP ? e->group_kind : e->kind;
	snprintf(out, out_len, "%s  %-23s %s", when, event_kind_name(kind), e->message);
}

/* The colour that says which way a change went. */
static theme_role event_role(const event *e)
{
	event_kind kind = e->kind == EVENT_GROUP ? e->group_kind : e->kind;
	const char *to = e->to;
	switch (kind) {
	case EVENT_STATUS:
	case EVENT_FINDING_RAISED:
	case EVENT_FINDING_CHANGED:
	case EVENT_CLUSTER_FINDING_RAISED:
		if (strcmp(to, "crit") == 0) {
			return ROLE_STATUS_CRIT;
		}
		if (strcmp(to, "warn") == 0) {
			return ROLE_STATUS_WARN;
		}
		if (strcmp(to, "unknown") == 0) {
			return ROLE_STATUS_UNKNOWN;
		}
		return ROLE_STATUS_OK;
	case EVENT_FINDING_CLEARED:
	case EVENT_CLUSTER_FINDING_CLEARED:
	case EVENT_CONNECTION_RESTORED:
		return ROLE_STATUS_OK;
	case EVENT_CONNECTION_LOST:
		return ROLE_STATUS_UNKNOWN;
	case EVENT_DAEMON_RESTARTED:
	case EVENT_CLOCK_STEP:
	case EVENT_PTP_GRANDMASTER:
		return ROLE_STATUS_WARN;
	default:
		return ROLE_DEFAULT;
	}
}

void events_draw(const tui *t, int y0, int y1, int cols)
{
	const events_state *s = &t->events;
	int attr = draw_attr(ROLE_COLUMN_HEADER, false);
	char title[160];
	draw_fill(y0, 0, cols, attr);
	if (!t->event_log) {
		draw_text(y0, 0, cols, attr | A_BOLD, " events: not recorded", t->utf8);
		return;
	}
	snprintf(title, sizeof title, " events, newest first  %s  %-22s %s", "time    ", "node", "kind / what changed");
	int used = draw_text(y0, 0, cols, attr | A_BOLD, title, t->utf8);
	char pos[64];
	snprintf(pos, sizeof pos, "%ld/%zu ", s->n_rows ? s->selected + 1 : 0, s->n_rows);
	int w = tw_width(pos);
	if (used + 2 + w <= cols) {
		draw_text(y0, cols - w, w, attr, pos, t->utf8);
	}
	if (s->n_rows == 0) {
		draw_text(y0 + 2, 2, cols - 2, draw_attr(ROLE_DIM, false),
			  filter_active(&t->view.filter) ? "no event matches the filter"
							 : "no event yet: changes appear here as the nodes report them",
			  t->utf8);
		return;
	}
	for (int i = 0; i < y1 - (y0 + 1); i++) {
		long r = s->top + i;
		int y = y0 + 1 + i;
		if (r >= (long)s->n_rows) {
			break;
		}
		const event *e = event_log_find(t->event_log, events_row_id(s, r));
		bool selected = r == s->selected;
		int row_attr = draw_attr(selected ? ROLE_SELECTED : ROLE_DEFAULT, false);
		draw_fill(y, 0, cols, row_attr);
		if (!e) {
			continue; /* left the ring since the rows were built */
		}
		char host[NODE_NAME_LEN], clean[NODE_NAME_LEN * 3 + 1], line[EVENT_MESSAGE_LEN + 64], cell[sizeof clean + 8];
		char when[16] = "?";
		time_t tt = (time_t)e->t;
		struct tm tm;
		if (isfinite(e->t) && localtime_r(&tt, &tm)) {
			strftime(when, sizeof when, "%H:%M:%S", &tm);
		}
		int x = 1;
		draw_text(y, x, cols - x, row_attr, when, t->utf8);
		x += 10;
		host_of(e, t->nodes, t->n_nodes, host, sizeof host);
		tw_clean(host, sizeof host, t->utf8, clean, sizeof clean);
		const char *mark = e->kind == EVENT_GROUP ? (e->id == s->expanded ? "- " : "+ ")
							  : (e->group ? "    " : "");
		snprintf(cell, sizeof cell, "%s%s", mark, clean);
		if (x < cols) {
			draw_cell(y, x, 22 < cols - x ? 22 : cols - x, row_attr | (e->kind == EVENT_GROUP ? A_BOLD : 0),
				  cell, false, t->utf8);
		}
		x += 24;
		if (x < cols) {
			event_kind kind = e->kind == EVENT_GROUP ? e->group_kind : e->kind;
			snprintf(line, sizeof line, "%-23s %s", event_kind_name(kind), e->message);
			draw_text(y, x, cols - x, draw_attr(selected ? ROLE_SELECTED : event_role(e), selected), line,
				  t->utf8);
		}
	}
}

handler_result events_key(events_state *s, const event_log *log, size_t n_nodes, int key)
{
	switch (key) {
	case TK(KEY_UP):
	case 'k':
		s->selected--;
		s->selected_id = 0;
		return handler_flags(MOVED);
	case TK(KEY_DOWN):
	case 'j':
		s->selected++;
		s->selected_id = 0;
		return handler_flags(MOVED);
	case TK(KEY_PPAGE):
	case TK_CTRL('b'):
	case 'b':
		s->selected -= s->page;
		s->selected_id = 0;
		return handler_flags(MOVED);
	case TK(KEY_NPAGE):
	case TK_CTRL('f'):
	case ' ':
		s->selected += s->page;
		s->selected_id = 0;
		return handler_flags(MOVED);
	case TK(KEY_HOME):
	case 'g':
		s->selected = 0;
		s->selected_id = 0;
		return handler_flags(MOVED);
	case TK(KEY_END):
	case 'G':
		s->selected = s->n_rows ? (long)s->n_rows - 1 : 0;
		s->selected_id = 0;
		return handler_flags(MOVED);
	case '/':
		return handler_flags(HR_HANDLED | HR_EDIT_FILTER);
	case TK_ESC:
	case 'q':
	case 'e':
	case TK(KEY_LEFT):
	case 'h':
		return handler_flags(HR_HANDLED | HR_BACK | HR_REDRAW);
	case '\n':
	case '\r':
	case TK(KEY_ENTER):
	case TK(KEY_RIGHT):
	case 'l': {
		const event *e = log ? event_log_find(log, events_row_id(s, s->selected)) : NULL;
		if (!e) {
			return handler_flags(HR_HANDLED);
		}
		if (e->kind == EVENT_GROUP) {
			s->expanded = s->expanded == e->id ? 0 : e->id;
			return handler_flags(MOVED);
		}
		if (e->node >= n_nodes) {
			return handler_message(HR_HANDLED, ROLE_MESSAGE, "a cluster-wide event: no node to open");
		}
		s->open_node = e->node;
		return handler_flags(HR_HANDLED | HR_OPEN_DETAIL);
	}
	default:
		return handler_flags(HR_IGNORED);
	}
}

size_t events_of_node(const event_log *log, size_t node_index, const event **out, size_t max)
{
	size_t n = 0;
	if (!log) {
		return 0;
	}
	for (size_t i = event_log_count(log); i-- > 0 && n < max;) {
		const event *e = event_log_at(log, i);
		if (e->node == node_index) {
			out[n++] = e;
		}
	}
	return n;
}
