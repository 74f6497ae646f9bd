/* events.h - the events screen (`e`): what changed, newest first.
 *
 * Rows are the log's events outside groups, newest first; Enter on a group
 * expands it to its members (under it) and again folds it; Enter on a
 * node's event opens that node's drill-down.  The grid's filter (`/`, same
 * syntax, one filter for both screens) keeps the events whose host, kind,
 * subject, from, to or message match.  The rows are rebuilt only when the
 * filter or the expansion changed; new events are appended to them (and
 * those that left the ring dropped), so a frame over 100,000 events costs
 * only the new ones. */
#ifndef SYNCTOP_EVENTS_H
#define SYNCTOP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event_log.h"
#include "filter.h"
#include "handler.h"
#include "node.h"
#include "tui.h"

typedef struct {
	/* rows: event ids, oldest first (row r on screen, newest first, is
	 * rows[n_rows - 1 - r]): new events are appended */
	uint64_t *rows;
	size_t n_rows, cap_rows;
	/* what the rows were built from */
	uint64_t built_last_id;
	size_t built_count;
	char built_filter[FILTER_TEXT_LEN];
	uint64_t built_expanded;
	bool built;

	long selected;        /* row */
	uint64_t selected_id; /* the event, kept selected as new ones arrive */
	long top;             /* first row on screen */
	int page;             /* rows on screen */
	uint64_t expanded;    /* a group's id, 0 = none */
	size_t open_node;     /* HR_OPEN_DETAIL: the node to open */
} events_state;

void events_init(events_state *s);
void events_free(events_state *s);

/* Rebuilds the rows if needed and keeps the selection and scroll inside
 * them, for a list on lines y0+1 .. y1-1. */
/* The event id on screen row r (0: the newest), 0 past the end. */
uint64_t events_row_id(const events_state *s, long r);

void events_prepare(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		    const node_filter *filter, int y0, int y1);

/* Title on line y0, the rows on y0+1 .. y1-1.  Changes nothing. */
void events_draw(const tui *t, int y0, int y1, int cols);

/* Moves, expands, HR_OPEN_DETAIL (open_node set), HR_EDIT_FILTER, or
 * HR_BACK. */
handler_result events_key(events_state *s, const event_log *log, size_t n_nodes, int key);

/* One event as a line: "HH:MM:SS  kind  message" into out. */
void events_line(const event *e, char *out, size_t out_len);

/* The node's own events, newest first, at most max: for the drill-down
 * (detail_doc.h).  Returns how many were written to out. */
size_t events_of_node(const event_log *log, size_t node_index, const event **out, size_t max);

#endif
