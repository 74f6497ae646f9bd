/* events.h - the events screen (`e`): what changed, newest first.
 *
 * Rows are the log's events outside groups, newest first; Enter on a group
 * expands it to its members (under it) and again folds it; Enter on a
 * node's event opens that node's drill-down.  The grid's filter (`/`, same
 * syntax, one filter for both screens) keeps the events whose host, kind,
 * subject, from, to or message match.  The rows are rebuilt only when the
 * filter or the expansion changed, newest first and a budget a frame (the
 * rest between frames), so a keystroke in the filter never tests all
 * 100,000 events at once; new events are appended to the rows (and those
 * that left the ring dropped), so a frame costs only the new ones. */
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
	/* rows: event ids, in two parts.  back: the events there were when the
	 * rows were started (a filter typed, a group expanded), newest first,
	 * filled by a scan of the log a budget at a time (EVENTS_SCAN_BUDGET:
	 * a frame never tests all 100,000 events); front: those logged since,
	 * oldest first, each tested once as it comes.  Screen row r (0: the
	 * newest) is front[n_front - 1 - r] while r < n_front, else
	 * back[r - n_front]. */
	uint64_t *front, *back;
	size_t n_front, cap_front, n_back, cap_back;
	size_t n_rows;        /* n_front + n_back */
	uint64_t scan_next;   /* the next id the scan tests, going down; 0: done */
	uint64_t scan_top;    /* the newest id when the rows were started */
	uint64_t seek_id;     /* a selected event the scan has not reached yet */
	/* what the rows were built from */
	uint64_t built_last_id;
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

/* The event id on screen row r (0: the newest), 0 past the end. */
uint64_t events_row_id(const events_state *s, long r);

/* Events a frame (or one idle step) tests at most when the rows are being
 * rebuilt: 8192 left a keystroke's frame at 10 ms of CPU on a 1,000-row
 * screen, 2048 at 4.4 ms (bench/results/screen.md, part e). */
#define EVENTS_SCAN_BUDGET 2048

/* Rebuilds the rows if needed (a new filter or expansion starts a scan of
 * the log from the newest event down; this call does one budget of it),
 * adds the new events, and keeps the selection and scroll inside the rows,
 * for a list on lines y0+1 .. y1-1. */
void events_prepare(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		    const node_filter *filter, int y0, int y1);

/* Whether a scan is under way (events_scan_step has more to do). */
bool events_scanning(const events_state *s);

/* One more budget of the scan, between frames (the TUI's idle watcher):
 * the rows fill while nothing else waits.  Returns events_scanning(). */
bool events_scan_step(events_state *s, const event_log *log, const node *nodes, size_t n_nodes,
		      const node_filter *filter);

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
