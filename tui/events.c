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
	free(s->front);
	free(s->back);
	memset(s, 0, sizeof *s);
}

static void push(uint64_t **ids, size_t *n, size_t *cap, uint64_t id)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*ids = xrealloc(*ids, *cap * sizeof **ids);
	}
	(*ids)[(*n)++] = id;
}

static void push_front(events_state *s, uint64_t id)
{
	push(&s->front, &s->n_front, &s->cap_front, id);
	s->n_rows = s->n_front + s->n_back;
}

static void push_back(events_state *s, uint64_t id)
{
	push(&s->back, &s->n_back, &s->cap_back, id);
	s->n_rows = s->n_front + s->n_back;
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
	size_t i = (size_t)r;
	if (i < s->n_front) {
		return s->front[s->n_front - 1 - i];
	}
	return s->back[i - s->n_front];
}

bool events_scanning(const events_state *s)
{
	return s->scan_next != 0;
}

static uint64_t oldest_id(const event_log *log)
{
	return event_log_count(log) ? event_log_at(log, 0)->id : UINT64_MAX;
}

/* Appends the rows of log's events from index `from` on (oldest first) to
 * front; an expanded group's members go before it, so that on screen
 * (newest first) they are listed under it. */
static void add_front(events_state *s, const event_log *log, size_t from, const node *nodes, size_t n_nodes,
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
					push_front(s, m->id);
					shown = true;
				}
			}
		}
		if (shown || matches(e, nodes, n_nodes, filter)) {
			push_front(s, e->id);
		}
	}
}

/* The rows that left the ring: the oldest, at the end of back (or, when
 * back is empty, at the start of front). */
static void drop_gone(events_state *s, const event_log *log)
{
	uint64_t oldest = oldest_id(log);
	while (s->n_back > 0 && s->back[s->n_back - 1] < oldest) {
		s->n_back--;
	}
	if (s->n_back == 0) {
		size_t drop = 0;
		while (drop < s->n_front && s->front[drop] < oldest) {
			drop++;
		}
		if (drop > 0) {
			memmove(s->front, s->front + drop, (s->n_front - drop) * sizeof *s->front);
			s->n_front -= drop;
		}
	}
	if (s->scan_next != 0 && s->scan_next < oldest) {
		s->scan_next = 0; /* the rest left the ring */
	}
	s->n_rows = s->n_front + s->n_back;
}

/* Tests up to `budget` events of the scan (going down from scan_next) and
 * appends the matching ones to back; an expanded group is followed by its
 * matching members.  Finds seek_id's row when it comes. */
static void scan(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		 const node_filter *filter, size_t budget)
{
	uint64_t oldest = oldest_id(log);
	size_t tested = 0, first_new = s->n_back;
	while (s->scan_next != 0 && s->scan_next >= oldest && tested < budget) {
		const event *e = event_log_find(log, s->scan_next);
		s->scan_next--;
		tested++;
		if (!e || e->group != 0) {
			continue; /* a member: listed under its group */
		}
		if (e->kind == EVENT_GROUP && e->id == s->expanded) {
			size_t mark = s->n_back;
			push_back(s, e->id);
			bool shown = false;
			for (uint32_t k = 1; k <= e->group_size; k++) {
				const event *m = event_log_find(log, e->id + k);
				if (m && m->group == e->id && matches(m, nodes, n_nodes, filter)) {
					push_back(s, m->id);
					shown = true;
				}
			}
			tested += e->group_size;
			if (!shown && !matches(e, nodes, n_nodes, filter)) {
				s->n_back = mark;
				s->n_rows = s->n_front + s->n_back;
			}
			continue;
		}
		if (matches(e, nodes, n_nodes, filter)) {
			push_back(s, e->id);
		}
	}
	if (s->scan_next < oldest) {
		s->scan_next = 0;
	}
	if (s->seek_id) {
		for (size_t i = first_new; i < s->n_back; i++) {
			if (s->back[i] == s->seek_id) {
				s->selected = (long)(s->n_front + i);
				s->seek_id = 0;
				break;
			}
		}
		if (!events_scanning(s)) {
			s->seek_id = 0; /* filtered out */
		}
	}
}

bool events_scan_step(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		      const node_filter *filter)
{
	if (log && events_scanning(s)) {
		drop_gone(s, log);
		scan(s, log, nodes, n_nodes, filter, EVENTS_SCAN_BUDGET);
	}
	return events_scanning(s);
}

/* A new filter or expansion: the rows start again from the newest event,
 * and the selected event is looked for as the scan goes. */
static void restart(events_state *s, const event_log *log, const node_filter *filter)
{
	s->n_front = s->n_back = s->n_rows = 0;
	s->scan_top = event_log_last_id(log);
	s->scan_next = event_log_count(log) ? s->scan_top : 0;
	s->seek_id = s->built ? s->selected_id : 0;
	if (s->seek_id) {
		s->selected = 0;
	}
	s->built = true;
	s->built_last_id = s->scan_top;
	snprintf(s->built_filter, sizeof s->built_filter, "%s", filter->text);
	s->built_expanded = s->expanded;
}

/* The events logged since the rows last saw the log: appended to front. */
static void add_new(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		    const node_filter *filter)
{
	uint64_t last = event_log_last_id(log);
	if (last == s->built_last_id) {
		return;
	}
	uint64_t oldest = oldest_id(log);
	uint64_t first_new = s->built_last_id + 1;
	size_t from = first_new >= oldest ? (size_t)(first_new - oldest) : 0;
	size_t before = s->n_rows;
	add_front(s, log, from, nodes, n_nodes, filter);
	/* the selection stays on its event as new ones arrive above it, unless
	 * it is on the newest row, which it follows */
	if (s->selected > 0 || s->seek_id) {
		s->selected += (long)(s->n_rows - before);
		s->top += (long)(s->n_rows - before);
	}
	s->built_last_id = last;
}

void events_prepare(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		    const node_filter *filter, int y0, int y1)
{
	s->page = y1 - (y0 + 1);
	if (s->page < 1) {
		s->page = 1;
	}
	if (!log) {
		s->n_front = s->n_back = s->n_rows = 0;
		s->scan_next = 0;
		return;
	}
	if (s->seek_id && s->selected_id != s->seek_id) {
		s->seek_id = 0; /* the user moved meanwhile */
	}
	if (!s->built || strcmp(s->built_filter, filter->text) != 0 || s->built_expanded != s->expanded) {
		restart(s, log, filter);
	}
	drop_gone(s, log);
	add_new(s, log, nodes, n_nodes, filter);
	if (events_scanning(s)) {
		scan(s, log, nodes, n_nodes, filter, EVENTS_SCAN_BUDGET);
	}
	if (s->selected >= (long)s->n_rows) {
		s->selected = (long)s->n_rows - 1;
	}
	if (s->selected < 0) {
		s->selected = 0;
	}
	if (!s->seek_id) {
		s->selected_id = events_row_id(s, s->selected);
	}
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
	if (events_scanning(s)) {
		/* the rows are still being matched (events_scan_step) */
		uint64_t oldest = oldest_id(t->event_log);
		uint64_t span = s->scan_top >= oldest ? s->scan_top - oldest + 1 : 1;
		uint64_t done = s->scan_top >= s->scan_next ? s->scan_top - s->scan_next : 0;
		snprintf(pos, sizeof pos, "matching %u%%  %zu ", (unsigned)(done * 100 / span), s->n_rows);
	} else {
		snprintf(pos, sizeof pos, "%ld/%zu ", s->n_rows ? s->selected + 1 : 0, s->n_rows);
	}
	int w = tw_width(pos);
	if (used + 2 + w <= cols) {
		draw_text(y0, cols - w, w, attr, pos, t->utf8);
	}
	if (s->n_rows == 0) {
		draw_text(y0 + 2, 2, cols - 2, draw_attr(ROLE_DIM, false),
			  events_scanning(s) ? "matching..."
			  : filter_active(&t->view.filter) ? "no event matches the filter"
							  : "no event yet: changes appear here as the nodes report them",
			  t->utf8);
		return;
	}
	/* rows of the same second share their time's text (localtime_r is the
	 * dearest part of a row) */
	time_t shown_tt = (time_t)-1;
	char when[16] = "?";
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
		time_t tt = isfinite(e->t) ? (time_t)e->t : (time_t)-1;
		if (tt != shown_tt) {
			struct tm tm;
			snprintf(when, sizeof when, "?");
			if (tt != (time_t)-1 && localtime_r(&tt, &tm)) {
				strftime(when, sizeof when, "%H:%M:%S", &tm);
			}
			shown_tt = tt;
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
