/* tui_state.h - the dashboard's state.  Private to tui/.
 *
 * Who writes what: tui.c owns the struct and is the only writer of its
 * fields outside the screens' own states (view, detail, help, edit), which
 * each screen's handler changes and returns flags for the rest (handler.h).
 * Drawing functions take a const tui: a frame changes no state.  Each frame
 * is two steps: tui_frame_prepare (state: rows, scroll position, layout,
 * the header's summary) then the drawing. */
#ifndef SYNCTOP_TUI_STATE_H
#define SYNCTOP_TUI_STATE_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bars.h"
#include "cluster.h"
#include "columns.h"
#include "detail.h"
#include "event_log.h"
#include "events.h"
#include "help.h"
#include "keys.h"
#include "node.h"
#include "scheduler.h"
#include "theme.h"
#include "tui.h"
#include "view.h"

#define MAX_THEMES 64

typedef enum {
	SCREEN_GRID = 0,
	SCREEN_DETAIL,
	SCREEN_EVENTS,
} tui_screen;

struct tui {
	tui_options opt;
	bool utf8;
	bool color;          /* colours in use (terminal has them, not disabled) */
	bool mouse;
	theme theme;

	/* the model, borrowed */
	struct ev_loop *loop;
	node *nodes;
	size_t n_nodes;
	scheduler *sched;
	const node *client;  /* this machine, or NULL */
	double last_update;  /* wall clock of the latest model change */

	/* set by tui_frame_prepare, read by drawing */
	double now;          /* wall clock of the frame */
	cluster_summary summary; /* the header's, taken when the model changed: */
	uint64_t summary_gen;    /* the view.generation it was taken at */
	bool summary_valid;
	column_layout layout;
	int list_y;          /* screen line of the first row */

	/* the screens' own state */
	view view;           /* the grid */
	filter_editor edit;  /* the footer's filter line */
	tui_screen screen;
	detail_state detail;
	help_state help;
	events_state events;
	const event_log *event_log; /* borrowed; NULL: events not recorded */
	tui_screen detail_from;     /* the screen the drill-down goes back to */
	tui_detail_hook detail_hook; /* tui_set_detail_hook's */
	void *detail_hook_ctx;
	tui_ssh_detail_hook ssh_detail_hook; /* tui_set_ssh_detail_hook's */
	void *ssh_detail_hook_ctx;
	size_t recent_events;       /* the header's: events in the last 5 minutes */
	/* --state-dir (tui_set_history): the day view's directory; history_off:
	 * asked for, but the store could not be used (the header says so) */
	char *history_dir;
	bool history_off;
	dayview dayview;            /* the drill-down's day view, read from history_dir */

	/* transient footer message */
	char message[THEME_ERROR_LEN + 64];
	double message_until;
	theme_role message_role;

	/* the header's: what the nodes' source (--from-prometheus) last said
	 * went wrong; "" when it answered cleanly */
	char source_error[400];

	/* mouse double-click */
	double click_at;
	size_t click_node;

	/* loop */
	bool dirty;
	bool force;          /* draw at the next pass whatever the rate */
	double last_frame;
	bool quit;
	int status;
	ev_io input;
	ev_signal sigwinch, sigint, sigterm, sighup;
	ev_prepare prepare;
	ev_timer frame_timer, tick;
	ev_idle scan_idle;   /* the events screen's rows being matched, between frames */
};

/* The model half of tui_run's set-up, once curses is up (the bench calls
 * it without the loop). */
void tui_attach(tui *t, struct ev_loop *loop, node *nodes, size_t n, scheduler *sched);

/* A frame's state for a lines x cols screen: rows (re-sorted only when
 * something changed), scroll position, layout, the header's summary. */
void tui_frame_prepare(tui *t, int lines, int cols);

/* One whole frame: prepare, draw, doupdate. */
void tui_frame(tui *t);

#endif
