/* tui.c - the dashboard's life cycle: curses set-up and tear-down, the
 * libev watchers (keys, signals, the coalesced redraw), key dispatch to
 * the screens and acting on what their handlers return (handler.h), the
 * keys every screen shares, and the frame: its state first
 * (tui_frame_prepare), then drawing that changes nothing. */
#include <config.h>

#include "tui.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bars.h"
#include "cluster.h"
#include "detail.h"
#include "draw.h"
#include "grid.h"
#include "help.h"
#include "tui_state.h"
#include "xalloc.h"

#define FRAME_INTERVAL 0.1   /* at most ten frames a second */
#define MESSAGE_SECONDS 4.0
#define DOUBLE_CLICK_S 0.5

/* Poll intervals + and - step through. */
static const double intervals[] = {0.5, 1, 2, 3, 5, 10, 15, 30, 60, 120, 300, 600};
#define N_INTERVALS (sizeof intervals / sizeof intervals[0])

/* ------------------------------------------------------------- helpers */

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A footer message for a few seconds. */
static void message(tui *t, theme_role role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void message(tui *t, theme_role role, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->message, sizeof t->message, fmt, ap);
	va_end(ap);
	t->message_role = role;
	t->message_until = wall_now() + MESSAGE_SECONDS;
	t->dirty = true;
}

void tui_warn(tui *t, const char *text)
{
	if (t) {
		message(t, ROLE_STATUS_WARN, "%s", text);
	}
}

/* --------------------------------------------------------------- themes */

static bool colors_disabled(const tui *t)
{
	const char *no_color = getenv("NO_COLOR");
	return t->opt.no_color || (no_color && *no_color);
}

static void cycle_theme(tui *t, int dir)
{
	char (*names)[THEME_NAME_LEN] = xcalloc(MAX_THEMES, THEME_NAME_LEN);
	char err[THEME_ERROR_LEN], later[THEME_ERROR_LEN];
	size_t n = theme_list(names, MAX_THEMES);
	long at = -1;
	theme next;

	if (!t->color) {
		message(t, ROLE_MESSAGE, "colours are off (%s): the mono theme stays",
			    colors_disabled(t) ? "--no-color or NO_COLOR" : "the terminal has none");
		free(names);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], t->theme.name) == 0) {
			at = (long)i;
		}
	}
	/* try each in turn: a broken file is skipped, and said so */
	bool skipped = false;
	for (size_t tries = 0; tries < n; tries++) {
		at = ((at + dir) % (long)n + (long)n) % (long)n;
		/* the first error is the one reported */
		if (theme_load(names[at], &next, skipped ? later : err, THEME_ERROR_LEN) == 0) {
			t->theme = next;
			draw_use_theme(&t->theme, t->color);
			if (skipped) {
				message(t, ROLE_STATUS_CRIT, "theme %s; skipped %s", t->theme.name, err);
			} else {
				message(t, ROLE_MESSAGE, "theme %s", t->theme.name);
			}
			free(names);
			return;
		}
		skipped = true;
	}
	message(t, ROLE_STATUS_CRIT, "%s", err);
	free(names);
}

/* ------------------------------------------------------------------ keys */

static void change_interval(tui *t, int dir)
{
	double cur = scheduler_interval(t->sched), next = cur;
	if (dir > 0) {
		for (size_t i = 0; i < N_INTERVALS; i++) {
			if (intervals[i] > cur + 1e-9) {
				next = intervals[i];
				break;
			}
		}
	} else {
		for (size_t i = N_INTERVALS; i-- > 0;) {
			if (intervals[i] < cur - 1e-9) {
				next = intervals[i];
				break;
			}
		}
	}
	if (next == cur) {
		message(t, ROLE_MESSAGE, "poll interval stays %g s (%s)", cur, dir > 0 ? "longest" : "shortest");
		return;
	}
	scheduler_set_interval(t->sched, next);
	message(t, ROLE_MESSAGE, "poll every %g s", next);
}

static bool global_key(tui *t, int key)
{
	switch (key) {
	case 'R':
		scheduler_poll_now(t->sched);
		message(t, ROLE_MESSAGE, "polling every node now");
		return true;
	case 'p':
		scheduler_set_paused(t->sched, !scheduler_paused(t->sched));
		message(t, ROLE_MESSAGE, scheduler_paused(t->sched) ? "polling paused (p resumes)"
								    : "polling resumed");
		return true;
	case '+':
	case '=':
		change_interval(t, 1);
		return true;
	case '-':
		change_interval(t, -1);
		return true;
	case 't':
		cycle_theme(t, 1);
		return true;
	case 'T':
		cycle_theme(t, -1);
		return true;
	case '?':
	case TK(KEY_F(1)):
		help_open(&t->help);
		return true;
	case 'e':
		if (t->screen == SCREEN_EVENTS) {
			return false; /* the screen's own key: back */
		}
		if (t->edit.editing) {
			return false;
		}
		t->screen = SCREEN_EVENTS;
		return true;
	case TK_CTRL('l'):
		clearok(curscr, TRUE);
		t->force = true;
		return true;
	default:
		return false;
	}
}

/* Does what a screen's handler asked (handler.h): the one place that
 * switches screens, opens and closes overlays, shows messages and quits. */
/* The drill-down's plots span the screen less their margins, at most 200
 * columns (detail_doc.c plot_one). */
static void detail_opened(tui *t, size_t node_index)
{
	if (t->detail_hook) {
		int cols = COLS - 2 < 200 ? COLS - 2 : 200;
		t->detail_hook(t->detail_hook_ctx, node_index, cols);
	}
}

static void act(tui *t, const handler_result *r)
{
	if (r->flags & HR_MESSAGE) {
		message(t, r->role, "%s", r->message);
	}
	if (r->flags & HR_REDRAW) {
		t->dirty = true;
	}
	if (r->flags & HR_BACK) {
		if (t->help.open) {
			t->help.open = false;
		} else if (t->screen == SCREEN_DETAIL) {
			t->screen = t->detail_from;
		} else {
			t->screen = SCREEN_GRID;
		}
	}
	if ((r->flags & HR_OPEN_DETAIL) && t->screen == SCREEN_EVENTS && t->events.open_node < t->n_nodes) {
		t->screen = SCREEN_DETAIL;
		t->detail_from = SCREEN_EVENTS;
		detail_open(&t->detail, t->events.open_node);
		detail_opened(t, t->events.open_node);
	} else if ((r->flags & HR_OPEN_DETAIL) && t->view.selected != NO_NODE) {
		t->screen = SCREEN_DETAIL;
		t->detail_from = SCREEN_GRID;
		detail_open(&t->detail, t->view.selected);
		detail_opened(t, t->view.selected);
	}
	if ((r->flags & HR_SSH_DETAIL) && t->screen == SCREEN_DETAIL && t->detail.node < t->n_nodes) {
		char msg[HANDLER_MESSAGE_LEN];
		if (t->ssh_detail_hook) {
			t->ssh_detail_hook(t->ssh_detail_hook_ctx, t->detail.node, msg, sizeof msg);
		} else {
			snprintf(msg, sizeof msg, "S polls a node read from Prometheus over SSH; this one is "
						  "polled over SSH already");
		}
		message(t, ROLE_MESSAGE, "%s", msg);
	}
	if (r->flags & HR_EDIT_FILTER) {
		bars_filter_begin(&t->edit, &t->view);
	}
	if (r->flags & HR_QUIT) {
		t->quit = true;
		t->status = 0;
	}
}

static void handle_key(tui *t, int key)
{
	handler_result r;

	t->dirty = true;
	if (key == TK(KEY_RESIZE)) {
		t->force = true;
		return;
	}
	if (t->help.open) {
		r = help_key(&t->help, key);
		act(t, &r);
		return;
	}
	r = bars_filter_key(&t->edit, &t->view, key);
	if (r.flags & HR_HANDLED) {
		act(t, &r);
		return;
	}
	if (global_key(t, key)) {
		return;
	}
	if (t->screen == SCREEN_DETAIL) {
		r = detail_key(&t->detail, &t->view, key);
	} else if (t->screen == SCREEN_EVENTS) {
		r = events_key(&t->events, t->event_log, t->n_nodes, key);
	} else {
		r = grid_key(&t->view, key);
	}
	act(t, &r);
}

static void handle_mouse(tui *t)
{
	MEVENT ev;
	handler_result r;
	if (getmouse(&ev) != OK) {
		return;
	}
	t->dirty = true;
	int wheel = 0;
	if (ev.bstate & BUTTON4_PRESSED) {
		wheel = -1;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		wheel = 1;
	}
#endif
	bool click = (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) != 0;
	if (t->help.open) {
		if (click) {
			t->help.open = false;
		} else if (wheel) {
			r = help_mouse(&t->help, wheel);
			act(t, &r);
		}
		return;
	}
	if (t->screen == SCREEN_DETAIL) {
		if (wheel) {
			r = detail_mouse(&t->detail, wheel);
			act(t, &r);
		}
		return;
	}
	if (t->screen == SCREEN_EVENTS) {
		if (wheel) {
			r = events_key(&t->events, t->event_log, t->n_nodes, wheel > 0 ? 'j' : 'k');
			act(t, &r);
		}
		return;
	}
	view *v = &t->view;
	bool in_list = ev.y >= t->list_y && ev.y < t->list_y + (int)v->page;
	bool double_click = in_list && (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0;
	if (click && !in_list) {
		/* a heading: sort */
		r = grid_mouse(v, &t->layout, t->list_y, ev.y, ev.x, true, false, 0);
		act(t, &r);
		return;
	}
	if (click) {
		/* Detected here: curses' own double-click detection needs a
		 * blocking read, which the event loop does not do. */
		double now = wall_now();
		size_t before = v->selected;
		r = grid_mouse(v, &t->layout, t->list_y, ev.y, ev.x, true, false, 0);
		act(t, &r);
		if (v->selected != NO_NODE && v->selected == before && t->click_node == before &&
		    now - t->click_at < DOUBLE_CLICK_S) {
			double_click = true;
		}
		t->click_node = v->selected;
		t->click_at = now;
	}
	if (double_click) {
		t->click_at = 0;
		r = grid_mouse(v, &t->layout, t->list_y, ev.y, ev.x, false, true, 0);
		act(t, &r);
		return;
	}
	if (wheel) {
		r = grid_mouse(v, &t->layout, t->list_y, ev.y, ev.x, false, false, wheel);
		act(t, &r);
	}
}

/* --------------------------------------------------------------- frames */

void tui_frame_prepare(tui *t, int lines, int cols)
{
	t->now = wall_now();
	/* The events screen draws no node rows: a filter typed there, which
	 * makes every node's key be taken again (10,000 nodes: ~3 ms a
	 * keystroke), is applied to the grid when a screen that shows it
	 * comes back.  Updates of single nodes stay cheap and go on. */
	if (t->screen != SCREEN_EVENTS || !t->view.keys_stale) {
		view_update(&t->view, t->now);
	}
	if (!t->summary_valid || t->summary_gen != t->view.generation) {
		/* the header's figures: a scan of every node, only when one changed */
		cluster_summarise(t->nodes, t->n_nodes, &t->summary);
		t->summary_gen = t->view.generation;
		t->summary_valid = true;
	}
	t->list_y = BARS_HEADER_LINES + 1;
	int page = lines - 1 - t->list_y;
	view_set_page(&t->view, page > 0 ? (size_t)page : 1);
	columns_layout(cols, t->view.data_mask, t->view.node_width, &t->layout);
	t->recent_events = t->event_log ? event_log_count_since(t->event_log, t->now - 300) : 0;
	if (t->screen == SCREEN_DETAIL) {
		if (t->detail.node >= t->n_nodes) {
			t->screen = SCREEN_GRID;
		} else {
			const node *nd = &t->nodes[t->detail.node];
			dayview_refresh(&t->dayview, t->history_dir, t->detail.day, nd->host, detail_day_width(cols),
					t->now);
			detail_prepare(&t->detail, nd, t->event_log, &t->dayview, t->history_dir, t->now,
				       BARS_HEADER_LINES, lines - 1, cols, t->utf8);
		}
	} else if (t->screen == SCREEN_EVENTS) {
		events_prepare(&t->events, t->event_log, t->nodes, t->n_nodes, &t->view.filter, BARS_HEADER_LINES,
			       lines - 1);
	}
	if (t->help.open) {
		help_prepare(&t->help, lines, cols);
	}
}

/* Draws what tui_frame_prepare set up; changes nothing. */
static void frame_draw(const tui *t, int lines, int cols)
{
	/* the events list moves down a row per new event: let curses scroll
	 * the terminal's lines instead of sending every row again */
	idlok(stdscr, t->screen == SCREEN_EVENTS);
	erase();
	if (lines < 6 || cols < 30) {
		draw_text(0, 0, cols, draw_attr(ROLE_DEFAULT, false), "synctop: the terminal is too small", t->utf8);
	} else {
		bars_draw_header(t, cols);
		if (t->screen == SCREEN_DETAIL) {
			detail_draw(t, BARS_HEADER_LINES, lines - 1, cols);
		} else if (t->screen == SCREEN_EVENTS) {
			events_draw(t, BARS_HEADER_LINES, lines - 1, cols);
		} else {
			grid_draw(t, BARS_HEADER_LINES, lines - 1, cols);
		}
		bars_draw_footer(t, lines - 1, cols);
		if (t->help.open) {
			help_draw(t, lines, cols);
		}
	}
	wnoutrefresh(stdscr);
	doupdate();
}

void tui_frame(tui *t)
{
	int lines, cols;
	getmaxyx(stdscr, lines, cols);
	tui_frame_prepare(t, lines, cols);
	frame_draw(t, lines, cols);
}

static void on_prepare(struct ev_loop *loop, ev_prepare *w, int revents)
{
	tui *t = w->data;
	if (!t->dirty && !t->force) {
		return;
	}
	double now = ev_time();
	double wait = t->last_frame + FRAME_INTERVAL - now;
	if (!t->force && wait > 0) {
		/* too soon: one timer wakes the loop when the frame is due */
		if (!ev_is_active(&t->frame_timer)) {
			ev_timer_set(&t->frame_timer, wait, 0);
			ev_timer_start(loop, &t->frame_timer);
		}
		return;
	}
	ev_timer_stop(loop, &t->frame_timer);
	tui_frame(t);
	t->last_frame = now;
	t->dirty = false;
	t->force = false;
	if (t->screen == SCREEN_EVENTS && events_scanning(&t->events) && !ev_is_active(&t->scan_idle)) {
		ev_idle_start(loop, &t->scan_idle);
	}
}

/* The events screen's rows, one budget at a time while the loop has
 * nothing else to do: a filter over 100,000 events never holds a frame. */
static void on_scan_idle(struct ev_loop *loop, ev_idle *w, int revents)
{
	tui *t = w->data;
	(void)revents;
	if (t->screen != SCREEN_EVENTS || !events_scan_step(&t->events, t->event_log, t->nodes, t->n_nodes,
							    &t->view.filter)) {
		ev_idle_stop(loop, w);
	}
	t->dirty = true;
}

static void on_frame_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	/* nothing: waking up lets on_prepare draw */
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	tui *t = w->data;
	t->dirty = true; /* ages and the clock move on */
}

static void on_input(struct ev_loop *loop, ev_io *w, int revents)
{
	tui *t = w->data;
	int avail = 0;
	wint_t wc;
	int rc;

	/* Readable with nothing to read: the terminal is gone. */
	if (ioctl(STDIN_FILENO, FIONREAD, &avail) == 0 && avail == 0) {
		t->quit = true;
		t->status = TUI_EXIT_INTERRUPTED;
	}
	while (!t->quit && (rc = wget_wch(stdscr, &wc)) != ERR) {
		if (rc == KEY_CODE_YES && wc == KEY_MOUSE) {
			handle_mouse(t);
		} else {
			handle_key(t, rc == KEY_CODE_YES ? TK((int)wc) : (int)wc);
		}
	}
	if (t->quit) {
		ev_break(loop, EVBREAK_ALL);
	}
}

static void on_winch(struct ev_loop *loop, ev_signal *w, int revents)
{
	tui *t = w->data;
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		resizeterm(ws.ws_row, ws.ws_col);
	}
	t->force = true;
}

static void on_quit_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	tui *t = w->data;
	t->quit = true;
	t->status = TUI_EXIT_INTERRUPTED;
	ev_break(loop, EVBREAK_ALL);
}

/* ------------------------------------------------------- crash handling */

static const int crash_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
#define N_CRASH (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction crash_old[N_CRASH];

/* What endwin() would send to leave the screen (normal attributes, visible
 * cursor, keypad off, main screen), looked up while curses is sane: a crash
 * handler may only write() it. */
static char crash_restore_seq[256];
static size_t crash_restore_len;

static void crash_restore_prepare(void)
{
	const char *caps[] = {"sgr0", "cnorm", "rmkx", "rmcup"};
	crash_restore_len = 0;
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		const char *seq = tigetstr(caps[i]);
		if (seq == NULL || seq == (const char *)-1) {
			continue;
		}
		size_t n = strlen(seq);
		if (crash_restore_len + n < sizeof crash_restore_seq) {
			memcpy(crash_restore_seq + crash_restore_len, seq, n + 1);
			crash_restore_len += n;
		}
	}
}

/* Give the shell its terminal back, then let the crash happen as it
 * would have (the previous handler, e.g. a sanitizer's, or the default). */
static void on_crash(int sig, siginfo_t *si, void *ctx)
{
	if (crash_restore_len > 0) {
		ssize_t ignored = write(STDOUT_FILENO, crash_restore_seq, crash_restore_len);
		(void)ignored;
	}
	reset_shell_mode();
	for (size_t i = 0; i < N_CRASH; i++) {
		if (crash_signals[i] == sig) {
			sigaction(sig, &crash_old[i], NULL);
		}
	}
	/* A real fault recurs on return, now with the old handler and the
	 * original context; a sent or raised signal has to be raised again. */
	if (sig == SIGABRT || si == NULL || si->si_code <= 0) {
		raise(sig);
	}
}

static void crash_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_CRASH; i++) {
		sigaction(crash_signals[i], &sa, &crash_old[i]);
	}
}

static void crash_uninstall(void)
{
	for (size_t i = 0; i < N_CRASH; i++) {
		sigaction(crash_signals[i], &crash_old[i], NULL);
	}
}

static void restore_terminal(void)
{
	endwin();
}

/* ------------------------------------------------------------ life cycle */

tui *tui_new(const tui_options *opt)
{
	tui *t = xcalloc(1, sizeof *t);
	char err[THEME_ERROR_LEN];

	t->opt = *opt;
	t->click_node = NO_NODE;
	view_init(&t->view);
	events_init(&t->events);
	if (colors_disabled(t)) {
		theme_builtin_mono(&t->theme);
	} else if (theme_load(opt->theme ? opt->theme : "default", &t->theme, err, sizeof err) != 0) {
		fprintf(stderr, "synctop: %s; using the default theme\n", err);
		snprintf(t->message, sizeof t->message, "theme: %s", err);
		t->message_role = ROLE_STATUS_CRIT;
	}
	return t;
}

void tui_free(tui *t)
{
	if (!t) {
		return;
	}
	view_free(&t->view);
	events_free(&t->events);
	free(t->history_dir);
	dayview_free(&t->dayview);
	free(t);
}

void tui_set_history(tui *t, const char *state_dir)
{
	if (!t) {
		return;
	}
	free(t->history_dir);
	t->history_dir = state_dir && state_dir[0] ? xstrdup(state_dir) : NULL;
	t->history_off = state_dir && !state_dir[0];
	t->dirty = true;
}

void tui_set_events(tui *t, const struct event_log *log)
{
	if (t) {
		t->event_log = log;
	}
}

void tui_set_detail_hook(tui *t, tui_detail_hook hook, void *ctx)
{
	if (t) {
		t->detail_hook = hook;
		t->detail_hook_ctx = ctx;
	}
}

void tui_set_ssh_detail_hook(tui *t, tui_ssh_detail_hook hook, void *ctx)
{
	if (t) {
		t->ssh_detail_hook = hook;
		t->ssh_detail_hook_ctx = ctx;
	}
}

void tui_mark_dirty(tui *t)
{
	if (t) {
		t->dirty = true;
		t->last_update = wall_now();
		view_data_changed(&t->view); /* the rows are re-sorted at the next frame */
	}
}

void tui_source_refreshed(tui *t)
{
	if (t) {
		t->dirty = true;
		t->last_update = wall_now();
	}
}

void tui_node_changed(tui *t, const node *nd)
{
	if (!t) {
		return;
	}
	if (nd == t->client) {
		t->dirty = true; /* the header's "this host"; not a row */
	} else if (t->nodes && nd >= t->nodes && nd < t->nodes + t->n_nodes) {
		t->dirty = true;
		t->last_update = wall_now();
		view_node_changed(&t->view, (size_t)(nd - t->nodes));
	} else {
		tui_mark_dirty(t);
	}
}

void tui_set_source_error(tui *t, const char *error)
{
	if (t && strcmp(t->source_error, error ? error : "") != 0) {
		snprintf(t->source_error, sizeof t->source_error, "%s", error ? error : "");
		t->dirty = true;
	}
}

void tui_set_client(tui *t, const node *client)
{
	if (t) {
		t->client = client;
	}
}

void tui_attach(tui *t, struct ev_loop *loop, node *nodes, size_t n, scheduler *sched)
{
	t->loop = loop;
	t->nodes = nodes;
	t->n_nodes = n;
	t->sched = sched;
	view_attach(&t->view, nodes, n);
	t->summary_valid = false;
}

int tui_run(tui *t, struct ev_loop *loop, node *nodes, size_t n, scheduler *sched)
{
	SCREEN *screen;

	/* LC_CTYPE only: the parsers read numbers with strtod, which
	 * LC_NUMERIC would change. */
	setlocale(LC_CTYPE, "");
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;

	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		return TUI_NO_TERMINAL;
	}
	set_term(screen);
	xalloc_set_fatal_hook(restore_terminal);
	crash_restore_prepare();
	crash_install();

	tui_attach(t, loop, nodes, n, sched);
	if (t->message[0]) {
		t->message_until = wall_now() + 3 * MESSAGE_SECONDS;
	}

	cbreak(); /* not raw(): Ctrl-C stays SIGINT, handled below */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	leaveok(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);

	t->color = !colors_disabled(t) && has_colors() && start_color() == OK && COLORS >= 8;
	if (!t->color) {
		theme_builtin_mono(&t->theme);
	}
	draw_use_theme(&t->theme, t->color);

	if (!t->opt.no_mouse) {
		mmask_t want = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
		want |= BUTTON5_PRESSED;
#endif
		t->mouse = mousemask(want, NULL) != 0;
		mouseinterval(0); /* report presses at once; see handle_mouse */
	}

	ev_io_init(&t->input, on_input, STDIN_FILENO, EV_READ);
	ev_signal_init(&t->sigwinch, on_winch, SIGWINCH);
	ev_signal_init(&t->sigint, on_quit_signal, SIGINT);
	ev_signal_init(&t->sigterm, on_quit_signal, SIGTERM);
	ev_signal_init(&t->sighup, on_quit_signal, SIGHUP);
	ev_prepare_init(&t->prepare, on_prepare);
	ev_init(&t->frame_timer, on_frame_timer);
	ev_timer_init(&t->tick, on_tick, 1.0, 1.0);
	ev_idle_init(&t->scan_idle, on_scan_idle);
	t->scan_idle.data = t;
	t->input.data = t->sigwinch.data = t->sigint.data = t->sigterm.data = t->sighup.data = t;
	t->prepare.data = t->frame_timer.data = t->tick.data = t;
	ev_io_start(loop, &t->input);
	ev_signal_start(loop, &t->sigwinch);
	ev_signal_start(loop, &t->sigint);
	ev_signal_start(loop, &t->sigterm);
	ev_signal_start(loop, &t->sighup);
	ev_prepare_start(loop, &t->prepare);
	ev_timer_start(loop, &t->tick);

	t->force = true;
	t->quit = false;
	ev_run(loop, 0);

	ev_io_stop(loop, &t->input);
	ev_signal_stop(loop, &t->sigwinch);
	ev_signal_stop(loop, &t->sigint);
	ev_signal_stop(loop, &t->sigterm);
	ev_signal_stop(loop, &t->sighup);
	ev_prepare_stop(loop, &t->prepare);
	ev_timer_stop(loop, &t->frame_timer);
	ev_timer_stop(loop, &t->tick);
	ev_idle_stop(loop, &t->scan_idle);

	if (t->mouse) {
		mousemask(0, NULL);
	}
	endwin();
	delscreen(screen);
	crash_uninstall();
	xalloc_set_fatal_hook(NULL);
	return t->quit ? t->status : 0;
}
