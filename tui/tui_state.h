/* tui_state.h - the dashboard's state, shared by its screens (grid,
 * detail, help) and bars (header, footer).  Private to tui/. */
#ifndef SYNCTOP_TUI_STATE_H
#define SYNCTOP_TUI_STATE_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "filter.h"
#include "node.h"
#include "scheduler.h"
#include "theme.h"
#include "tui.h"

/* Keys: characters are their code point, curses key codes are shifted
 * past Unicode so the two never collide. */
#define TK(code) (0x110000 + (code))
#define TK_CTRL(c) ((c) & 0x1f)
#define TK_ESC 27

#define NO_NODE SIZE_MAX
#define MAX_THEMES 64

typedef enum {
	SCREEN_GRID = 0,
	SCREEN_DETAIL,
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

	/* grid */
	size_t *rows;        /* node indexes, filtered and sorted (last frame) */
	size_t *host_rank;   /* each node's place by name (order_rank_hosts) */
	size_t n_rows;
	size_t selected;     /* node index, NO_NODE when no row */
	size_t selected_row; /* its row, kept when the node leaves the view */
	bool pinned_top;     /* selection on the first row, whichever node it is */
	size_t top;          /* first row on screen */
	int page;            /* rows that fit on screen (last frame) */
	int list_y;          /* screen line of the first row */
	column_id sort;
	bool reverse;
	node_filter filter;
	column_layout layout;

	/* filter editing in the footer */
	bool editing;
	char edit[FILTER_TEXT_LEN];
	char edit_before[FILTER_TEXT_LEN];

	/* drill-down */
	tui_screen screen;
	size_t detail;       /* node index */
	long detail_top;     /* first doc line on screen */
	long detail_lines;   /* lines in the last built doc */
	int detail_page;

	/* help overlay */
	bool help;
	long help_top;
	long help_lines;
	int help_page;

	/* transient footer message */
	char message[THEME_ERROR_LEN + 64];
	double message_until;
	theme_role message_role;

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
};

/* Wall clock, seconds. */
double tui_now(void);

/* A footer message for a few seconds. */
void tui_message(tui *t, theme_role role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Re-sorts and re-filters t->rows and keeps the selection valid. */
void tui_refresh_rows(tui *t);
/* Selects the node in row r (clamped), as the user asked: row 0 pins the
 * selection to the top of the list, any other row follows its node. */
void tui_select_row(tui *t, long r);
/* Row of the selected node, or -1. */
long tui_selected_row(const tui *t);
/* Next (dir +1) or previous (-1) row after `from` whose node is not ok,
 * wrapping; -1 when there is none. */
long tui_problem_row(const tui *t, long from, int dir);
/* Opens the drill-down on the selected node. */
void tui_open_detail(tui *t);

#endif
