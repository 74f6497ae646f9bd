/* tui.h - the live ncurses dashboard: the node grid, the per-node
 * drill-down and the help screen, driven by the same libev loop as the
 * collectors.
 *
 * Life cycle: tui_new() before the engine starts (it loads the theme, and
 * its error goes to stderr while stderr is still visible), then give the
 * scheduler an on_update callback that calls tui_node_changed(), then
 * tui_run() until the user quits, then tui_free().  The TUI draws at most
 * ten frames a second and only when something changed; it never polls or
 * evaluates anything itself, it asks the scheduler. */
#ifndef SYNCTOP_TUI_H
#define SYNCTOP_TUI_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "node.h"
#include "scheduler.h"

typedef struct {
	const char *theme;  /* name or file; NULL = "default" */
	bool no_color;      /* --no-color (NO_COLOR in the environment does the same) */
	bool no_mouse;      /* --no-mouse */
} tui_options;

typedef struct tui tui;

/* Loads the theme (a broken one: message on stderr, the default is used). */
tui *tui_new(const tui_options *opt);
void tui_free(tui *t);

/* Something in the model changed (the cluster-wide checks, or anything
 * that may touch every node).  Cheap: marks the screen for the next frame,
 * which then reads every node again.  t may be NULL. */
void tui_mark_dirty(tui *t);

/* One node changed (the scheduler's on_update).  Takes what the grid's
 * order needs from it now, while it is in the cache, so the next frame's
 * re-sort reads no node.  t may be NULL; a node not of the array given to
 * tui_run counts as tui_mark_dirty. */
void tui_node_changed(tui *t, const node *nd);

/* A source refreshed the nodes (Prometheus): the header's "updated" time,
 * though no row need change. */
void tui_source_refreshed(tui *t);

/* Something outside the nodes went wrong (a --prometheus write): shown in
 * the footer for a few seconds, in the warning colour.  t may be NULL. */
void tui_warn(tui *t, const char *text);

/* What the nodes' source (--from-prometheus) said went wrong in its last
 * refresh: shown in the header until a refresh answers cleanly (NULL or
 * "").  Copied.  t may be NULL. */
void tui_set_source_error(tui *t, const char *error);

/* This machine's own clock state, for the header: the reference of the
 * clock checks.  Borrowed; NULL (the default) = not polled. */
void tui_set_client(tui *t, const node *client);

/* The events of this run (event_log.h) for the events screen, the
 * drill-down and the header.  Borrowed; NULL (the default) = none.  t may
 * be NULL. */
struct event_log;
void tui_set_events(tui *t, const struct event_log *log);

/* --state-dir: the directory the drill-down's day view reads (copied);
 * "" = asked for but off this run (the header says "no history"); NULL
 * (the default) = not asked for.  t may be NULL. */
void tui_set_history(tui *t, const char *state_dir);
/* Called when a node's drill-down opens, with the node's index and the
 * columns a plot there spans, so a source can fetch what the drill-down
 * shows (Prometheus's 24 h).  It writes the model as any update does; the
 * drill-down only reads it.  NULL (the default): none.  t may be NULL. */
typedef void (*tui_detail_hook)(void *ctx, size_t node_index, int plot_columns);
void tui_set_detail_hook(tui *t, tui_detail_hook hook, void *ctx);
/* `S` in a drill-down: the source polls the node once over SSH (its
 * ssh_detail, beside what the source says) and writes the footer's message
 * into msg.  NULL (the default): S says it has nothing to do (a node read
 * over SSH shows its detail already).  t may be NULL. */
typedef void (*tui_ssh_detail_hook)(void *ctx, size_t node_index, char *msg, size_t msg_len);
void tui_set_ssh_detail_hook(tui *t, tui_ssh_detail_hook hook, void *ctx);

/* Runs the dashboard on the terminal until q, Ctrl-C, SIGTERM or SIGHUP;
 * the terminal is restored on every way out.  Returns the exit status
 * (0 after q, TUI_EXIT_INTERRUPTED after a signal), or TUI_NO_TERMINAL
 * without touching the screen when curses cannot start (unknown TERM): print
 * plain text then. */
#define TUI_NO_TERMINAL (-1)
#define TUI_EXIT_INTERRUPTED 130 /* 128 + SIGINT, as a shell reports it (src/exit_codes.h) */
int tui_run(tui *t, struct ev_loop *loop, node *nodes, size_t n, scheduler *sched);

#endif
