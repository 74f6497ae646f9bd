/* screen.c - bench: what the live view costs at scale.  Times (a) one whole
 * frame of the node grid with 1,000 rows on screen, doupdate() included, and
 * (b) re-sorting 10,000 nodes by every sort key the grid offers, against the
 * issue's targets (<= 5 ms each).
 *
 * It also times (c) the live view of 10,000 polled nodes on a 200x60
 * terminal: a frame where nothing changed (<= 1 ms of CPU) and one where
 * every value changed, re-sort included (<= 5 ms).  (d) The events screen
 * over 100,000 events (issue 19, <= 5 ms), on both terminals.
 *
 * Everything measured is the TUI's own code (tui_frame_prepare -> view.c ->
 * order_build, bars_draw_header, grid_draw, bars_draw_footer, draw.c,
 * columns.c) drawing
 * into a real ncurses screen: newterm() on /dev/null with LINES/COLUMNS set,
 * so a 1,000-row frame fits and the bytes curses emits cost their write().
 * The nodes are not made up here: a demo cluster (demo/demo_cluster.h)
 * answers through the real scheduler, probe decoder, history and health
 * rules, node k playing demo node k mod 48 (the demo's node count), so
 * offsets, findings, sparkline history and unreachable-node errors are what
 * the TUI really shows.  The
 * fill stops on a count of polls, not on a time, so a loaded machine (or
 * valgrind) gives the same model, only later.
 *
 * The frame is tui.c's tui_frame() step by step (tui_frame_prepare, then each
 * drawing call), so each step can be timed.  The same file also builds
 * against a tree from before the view module (cf3e072, issue 14's "before"):
 * without view.h it repeats that tree's frame() (erase, tui_refresh_rows,
 * the drawing) and sets struct tui's fields as its tui_run() did; see
 * bench/results/screen.md for the command.
 *
 * Timing: CLOCK_MONOTONIC around each repetition; median, p99 and max.  The
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID) is reported beside it: on a
 * shared machine the wall time also holds the time other processes ran.
 *
 * Under callgrind (bench/profile runs it with --instr-atstart=no) only the
 * timed repetitions are instrumented, each kind of frame and each sort key
 * dumped as its own part named "<what> x<repetitions>": filling the nodes
 * would only add noise.  Without valgrind's header the macros are nothing
 * and callgrind sees the whole run. */
#include <config.h>

#include <curses.h>
#include <ev.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bars.h"
#include "cluster.h"
#include "demo_cluster.h"
#include "demo_transport.h"
#include "draw.h"
#include "event_log.h"
#include "events.h"
#include "grid.h"
#include "order.h"
#include "scheduler.h"
#include "thresholds.h"
#include "tui.h"
#include "tui_state.h"
#include "xalloc.h"

#if defined(__has_include)
#if __has_include("view.h")
#define HAVE_VIEW 1
#include "view.h"
#endif
#endif

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PROFILE_ON() CALLGRIND_START_INSTRUMENTATION
#define PROFILE_PAUSE() CALLGRIND_STOP_INSTRUMENTATION
#define PROFILE_OFF(part) \
	do { \
		CALLGRIND_STOP_INSTRUMENTATION; \
		CALLGRIND_DUMP_STATS_AT(part); \
	} while (0)
#endif
#endif
#ifndef PROFILE_ON
#define PROFILE_ON() ((void)0)
#define PROFILE_PAUSE() ((void)0)
#define PROFILE_OFF(part) ((void)(part))
#endif

#define NOINLINE __attribute__((noinline))
#define TARGET_MS 5.0
#define TARGET_SAME_MS 1.0 /* the polled view, a frame where nothing changed */

typedef struct {
	int polled_nodes;    /* nodes of the polled-view bench */
	int polled_lines, polled_cols; /* its terminal */
	int polled_polls;    /* its history samples per reachable node, on average */
	int polled_reps;
	int frame_nodes;     /* nodes (= rows on screen) of the frame bench */
	int sort_nodes;      /* nodes of the sort bench */
	int cols;            /* terminal width */
	int frame_reps;
	int sort_reps;       /* per sort key */
	int fill_polls;      /* frame model: history samples per reachable node, on average */
	double fill_interval;
	double fill_max_secs; /* give up filling (either model) after this long */
	const char *term;
	unsigned long seed;  /* the demo's; the scheduler's jitter uses srandom(seed) */
} options;

/* A model: nodes filled by the demo engine, and the engine kept (stopped)
 * because the header reads the scheduler's interval and pause state. */
typedef struct {
	struct ev_loop *loop;
	demo_cluster *demo;
	scheduler *sched;
	node *nodes;
	size_t n;
	thresholds th;
	ev_timer stop, check;
	size_t reachable;    /* nodes the demo lets us reach */
	unsigned long want;  /* live: stop after this many polls */
	double cpu_s;        /* process CPU the fill took */
	unsigned long polls; /* completed */
} model;

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double thread_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

/* ------------------------------------------------------------ the model */

static void on_all_done(void *ctx)
{
	model *m = ctx;
	ev_break(m->loop, EVBREAK_ALL);
}

static unsigned long polls_done(const model *m)
{
	unsigned long polls = 0;
	for (size_t i = 0; i < m->n; i++) {
		polls += m->nodes[i].polls_completed;
	}
	return polls;
}

static void on_stop(struct ev_loop *loop, ev_timer *w, int revents)
{
	model *m = w->data;
	(void)revents;
	fprintf(stderr, "screen: filling the model took too long (%lu polls); measuring what there is\n",
		polls_done(m));
	ev_break(loop, EVBREAK_ALL);
}

static void on_check(struct ev_loop *loop, ev_timer *w, int revents)
{
	model *m = w->data;
	(void)revents;
	if (polls_done(m) >= m->want) {
		ev_break(loop, EVBREAK_ALL);
	}
}

/* n nodes named rNNN-<demo name>.  live: poll every `interval` until the
 * reachable nodes have `polls` polls each on average (slow nodes have
 * fewer, as they would); else one poll per node (once mode, as --once).
 * Either way at most max_secs. */
static NOINLINE void fill_nodes(model *m, size_t n, unsigned long seed, bool live, double interval, int polls,
				double max_secs)
{
	scheduler_config cfg;
	double cpu0 = cpu_now();

	memset(m, 0, sizeof *m);
	m->loop = ev_loop_new(EVFLAG_AUTO);
	if (!m->loop) {
		fputs("screen: cannot create an event loop\n", stderr);
		exit(70);
	}
	m->demo = demo_cluster_new(seed, wall_now());
	m->n = n;
	m->nodes = xcalloc(n, sizeof *m->nodes);
	thresholds_init_defaults(&m->th);

	scheduler_config_init(&cfg);
	cfg.interval_s = interval;
	cfg.once = !live;
	cfg.thresholds = &m->th;
	cfg.on_all_done = on_all_done;
	cfg.ctx = m;
	m->sched = scheduler_new(m->loop, &cfg);

	size_t per = demo_cluster_count(m->demo);
	for (size_t i = 0; i < n; i++) {
		char name[NODE_NAME_LEN];
		snprintf(name, sizeof name, "r%03zu-%s", i / per, demo_cluster_name(m->demo, i % per));
		node_init(&m->nodes[i], name);
		m->reachable += demo_cluster_reachable(m->demo, i % per);
		sched_node *sn = scheduler_add(m->sched, &m->nodes[i], NULL);
		transport *t = demo_transport_new(m->loop, m->demo, i % per, DEMO_CONNECT_TIMEOUT_S,
						  scheduler_transport_events(), sn);
		scheduler_attach(sn, t);
	}
	m->want = (unsigned long)polls * m->reachable;
	ev_timer_init(&m->stop, on_stop, max_secs, 0);
	ev_timer_init(&m->check, on_check, 0.2, 0.2);
	m->stop.data = m->check.data = m;
	ev_timer_start(m->loop, &m->stop);
	if (live) {
		ev_timer_start(m->loop, &m->check);
	}
	scheduler_start(m->sched);
	ev_run(m->loop, 0);
	ev_timer_stop(m->loop, &m->stop);
	ev_timer_stop(m->loop, &m->check);
	if (!live) {
		scheduler_give_up(m->sched, "no answer while the bench filled the nodes");
	}
	/* Freeze the model: no poll runs while the view is timed. */
	scheduler_set_paused(m->sched, true);
	m->polls = polls_done(m);
	m->cpu_s = cpu_now() - cpu0;
}

static void model_free(model *m)
{
	scheduler_free(m->sched);
	demo_cluster_free(m->demo);
	free(m->nodes);
	ev_loop_destroy(m->loop);
}

static void model_describe(const char *what, const model *m)
{
	size_t counts[4] = {0}, hist = 0;
	for (size_t i = 0; i < m->n; i++) {
		node_status s = cluster_node_status(&m->nodes[i]);
		counts[s <= NODE_STATUS_UNKNOWN ? s : NODE_STATUS_UNKNOWN]++;
		hist += history_count(&m->nodes[i].history);
	}
	printf("%s: %zu nodes (ok %zu, warn %zu, crit %zu, unknown %zu), %lu polls decoded, "
	       "%.1f history samples per node, fill CPU %.2f s (%.1f us per poll)\n",
	       what, m->n, counts[NODE_STATUS_OK], counts[NODE_STATUS_WARN], counts[NODE_STATUS_CRIT],
	       counts[NODE_STATUS_UNKNOWN], m->polls, (double)hist / (double)m->n, m->cpu_s,
	       m->polls ? m->cpu_s / (double)m->polls * 1e6 : 0.0);
}

/* ------------------------------------------------------------ the screen */

/* ------------------------------------------------- this tree or the old one */

#ifdef HAVE_VIEW
static void attach(tui *t, model *m)
{
	tui_attach(t, m->loop, m->nodes, m->n, m->sched);
}

/* Filter and sort now, as after a model change. */
static void resort(tui *t)
{
	view_data_changed(&t->view);
	view_update(&t->view, wall_now());
}

static void sort_by(tui *t, column_id id, bool reverse)
{
	view_sort_by(&t->view, id, reverse);
}

static void toggle_reverse(tui *t)
{
	view_toggle_reverse(&t->view);
}

static int page_of(const tui *t)
{
	return (int)t->view.page;
}

/* As the scheduler's on_update, after each node's poll. */
static void node_changed(tui *t, const node *nd)
{
	tui_node_changed(t, nd);
}

static void model_changed(tui *t)
{
	(void)t;
}

/* tui_frame_prepare in two timed steps: its view_update (the rows, rebuilt
 * only when something changed), then the rest (summary, page, layout). */
static void prepare_rows(tui *t)
{
	view_update(&t->view, wall_now());
}

static void prepare(tui *t, int lines, int cols)
{
	tui_frame_prepare(t, lines, cols);
	erase();
}

#define ROWS_NAME "view_update (rows: filter + sort when changed)"
#define PREPARE_NAME "rest of tui_frame_prepare (header summary, layout) + erase"
#else
static void attach(tui *t, model *m)
{
	t->loop = m->loop;
	t->nodes = m->nodes;
	t->n_nodes = m->n;
	t->sched = m->sched;
	t->rows = xcalloc(m->n ? m->n : 1, sizeof *t->rows);
	t->host_rank = xcalloc(m->n ? m->n : 1, sizeof *t->host_rank);
	order_rank_hosts(m->nodes, m->n, t->host_rank);
}

static void resort(tui *t)
{
	tui_refresh_rows(t);
}

static void sort_by(tui *t, column_id id, bool reverse)
{
	t->sort = id;
	t->reverse = reverse;
}

static void toggle_reverse(tui *t)
{
	t->reverse = !t->reverse;
}

static int page_of(const tui *t)
{
	return t->page;
}

/* That tree's on_update: tui_mark_dirty, for each node. */
static void node_changed(tui *t, const node *nd)
{
	(void)nd;
	t->dirty = true;
}

static void model_changed(tui *t)
{
	tui_mark_dirty(t);
}

/* that tree's frame(): every frame re-sorted */
static void prepare_rows(tui *t)
{
	erase();
	tui_refresh_rows(t);
}

static void prepare(tui *t, int lines, int cols)
{
	(void)t;
	(void)lines;
	(void)cols;
}

#define ROWS_NAME "erase + tui_refresh_rows (filter + sort)"
#define PREPARE_NAME "nothing (the header summarises)"
#endif

/* What tui_run() does before its loop, minus the loop and the watchers. */
static tui *screen_attach(model *m)
{
	tui_options topt = {NULL, false, true};
	tui *t = tui_new(&topt);

	attach(t, m);
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	t->color = has_colors() && COLORS >= 8;
	if (!t->color) {
		theme_builtin_mono(&t->theme);
	}
	draw_use_theme(&t->theme, t->color);
	return t;
}

typedef enum {
	PH_ROWS = 0, /* the rows (filter + sort) */
	PH_PREPARE,  /* the rest of the frame's state */
	PH_HEADER,
	PH_GRID,
	PH_FOOTER,
	PH_UPDATE,   /* wnoutrefresh + doupdate: diff and write */
	PH_COUNT
} phase;

static const char *phase_names[PH_COUNT] = {
	ROWS_NAME, PREPARE_NAME, "bars_draw_header", "grid_draw", "bars_draw_footer", "doupdate",
};

/* tui.c's frame for the grid screen, timing each step (thread CPU time:
 * a step is too short for another process's time slice to be told apart). */
static void frame(tui *t, double ph[PH_COUNT])
{
	int lines, cols;
	double t0 = thread_cpu_now(), t1;

	getmaxyx(stdscr, lines, cols);
	prepare_rows(t);
	t1 = thread_cpu_now();
	ph[PH_ROWS] = t1 - t0;
	t0 = t1;
	prepare(t, lines, cols);
	t1 = thread_cpu_now();
	ph[PH_PREPARE] = t1 - t0;
	t0 = t1;
	bars_draw_header(t, cols);
	t1 = thread_cpu_now();
	ph[PH_HEADER] = t1 - t0;
	t0 = t1;
	grid_draw(t, BARS_HEADER_LINES, lines - 1, cols);
	t1 = thread_cpu_now();
	ph[PH_GRID] = t1 - t0;
	t0 = t1;
	bars_draw_footer(t, lines - 1, cols);
	t1 = thread_cpu_now();
	ph[PH_FOOTER] = t1 - t0;
	t0 = t1;
	wnoutrefresh(stdscr);
	doupdate();
	ph[PH_UPDATE] = thread_cpu_now() - t0;
}

/* ------------------------------------------------------------ statistics */

typedef struct {
	double median, p99, max;
} stats;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v; nearest-rank p99. */
static stats summarise(double *v, int n)
{
	stats s;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	int k = (int)ceil(0.99 * n) - 1;
	s.p99 = v[k < 0 ? 0 : k];
	s.max = v[n - 1];
	return s;
}

/* wall: the times (sorted on return); cpu: the thread CPU times (idem). */
/* cpu NULL: not measured (the phases of a frame). */
static void row(const char *what, const char *size, double *wall, double *cpu, int n, bool with_target)
{
	stats s = summarise(wall, n);
	const char *verdict = "";
	char cpu_ms[32] = "-";
	if (cpu) {
		snprintf(cpu_ms, sizeof cpu_ms, "%.3f", summarise(cpu, n).median * 1e3);
	}
	if (with_target) {
		verdict = s.p99 * 1e3 <= TARGET_MS      ? "met"
			  : s.median * 1e3 <= TARGET_MS ? "median met, p99 not"
							: "missed";
	}
	printf("| %s | %s | %.3f | %.3f | %.3f | %s | %s |\n", what, size, s.median * 1e3, s.p99 * 1e3,
	       s.max * 1e3, cpu_ms, verdict);
}

static void table_head(void)
{
	printf("| measured | size | median ms | p99 ms | max ms | CPU median ms | target |\n");
	printf("| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
}

/* ---------------------------------------------------------- the benches */

typedef enum {
	FRAME_REPAINT = 0, /* clearok(curscr): every cell is sent again (first frame, Ctrl-L) */
	FRAME_CHANGED,     /* order reversed each time: nearly every line differs */
	FRAME_SAME,        /* nothing changed but the clock and the ages */
	FRAME_KINDS
} frame_kind;

static const char *kind_names[FRAME_KINDS] = {
	"full repaint (clearok)", "every row changed (r: reverse)", "nothing changed",
};
static const char *kind_tags[FRAME_KINDS] = {"repaint", "changed", "same"};

/* tag names the callgrind parts: "frames <tag> <kind> x<reps>". */
static NOINLINE void bench_frames(tui *t, const options *o, const char *size, const char *tag, bool phases)
{
	double *v = xcalloc((size_t)o->frame_reps, sizeof *v);
	double *cv = xcalloc((size_t)o->frame_reps, sizeof *cv);
	double *pv[PH_COUNT];
	double ph[PH_COUNT];
	char part[128];

	for (int p = 0; p < PH_COUNT; p++) {
		pv[p] = xcalloc((size_t)o->frame_reps, sizeof *pv[p]);
	}
	for (int k = 0; k < FRAME_KINDS; k++) {
		/* one untimed frame: first-touch and curses' first diff */
		frame(t, ph);
		PROFILE_ON();
		for (int r = 0; r < o->frame_reps; r++) {
			if (k == FRAME_REPAINT) {
				clearok(curscr, TRUE);
			} else if (k == FRAME_CHANGED) {
				toggle_reverse(t);
			}
			double c0 = thread_cpu_now(), t0 = mono_now();
			frame(t, ph);
			v[r] = mono_now() - t0;
			cv[r] = thread_cpu_now() - c0;
			for (int p = 0; p < PH_COUNT; p++) {
				pv[p][r] = ph[p];
			}
		}
		snprintf(part, sizeof part, "frames %s %s x%d", tag, kind_tags[k], o->frame_reps);
		PROFILE_OFF(part);
		sort_by(t, COL_STATUS, false);
		char what[128];
		snprintf(what, sizeof what, "frame, %s", kind_names[k]);
		row(what, size, v, cv, o->frame_reps, true);
		if (phases) {
			for (int p = 0; p < PH_COUNT; p++) {
				snprintf(what, sizeof what, "&nbsp;&nbsp;of which %s", phase_names[p]);
				row(what, size, pv[p], NULL, o->frame_reps, false);
			}
		}
	}
	for (int p = 0; p < PH_COUNT; p++) {
		free(pv[p]);
	}
	free(cv);
	free(v);
}

#ifdef HAVE_VIEW
/* (d) The events screen over a full ring (issue 19: 100,000 events, <= 5 ms
 * a frame): every event within the last 5 minutes (the header counts them
 * all), a frame with nothing new, one with a new event (appended to the
 * rows), the same under a filter, and a filter typed (every event matched
 * again; with the scan budget, also the sum of the frame and the idle steps
 * that finish matching the ring).  The whole frame: tui_frame_prepare,
 * header, events_draw, footer, doupdate. */
#define EVENTS_BENCH_COUNT 100000
static NOINLINE void bench_events(tui *t, const options *o, const char *size)
{
	int reps = o->frame_reps > o->polled_reps ? o->frame_reps : o->polled_reps;
	double *v = xcalloc((size_t)reps, sizeof *v);
	double *cv = xcalloc((size_t)reps, sizeof *cv);
	event_log *log = event_log_new(EVENT_LOG_DEFAULT_CAPACITY);
	double now = wall_now();
	static const event_kind kinds[] = {EVENT_STATUS, EVENT_FINDING_RAISED, EVENT_PTP_PORT_STATE,
					   EVENT_CHRONY_REFERENCE, EVENT_DAEMON_RESTARTED};
	uint32_t k = 0;
	for (int batch = 0; batch < EVENTS_BENCH_COUNT / 1000; batch++) {
		for (int i = 0; i < 1000; i++, k++) {
			event e;
			event_set(&e, kinds[k % 5], k % (uint32_t)t->n_nodes, now - 200 + k * 1e-3, "eth0", "SLAVE",
				  "LISTENING", "PTP port eth0 SLAVE -> LISTENING");
			event_log_stage(log, &e);
		}
		event_log_commit(log, 5000);
	}
	tui_set_events(t, log);
	t->screen = SCREEN_EVENTS;
	char err[128];
	static const char *const names[] = {
		"events screen, nothing new", "events screen, a new event", "events screen, filter gpu00 + a new event",
		"events screen, filter typed (all matched again)",
	};
	for (int kind = 0; kind < 4; kind++) {
		view_set_filter(&t->view, kind >= 2 ? "gpu00" : "", err, sizeof err);
		tui_frame(t);
		for (int r = 0; r < reps; r++) {
			if (kind == 1 || kind == 2) {
				event e;
				event_set(&e, EVENT_STATUS, (uint32_t)r % (uint32_t)t->n_nodes, now, "", "ok", "warn", "m");
				event_log_stage(log, &e);
				event_log_commit(log, 5000);
			} else if (kind == 3) {
				view_set_filter(&t->view, r % 2 ? "gpu00" : "gpu01", err, sizeof err);
			}
			double c0 = thread_cpu_now(), t0 = mono_now();
			tui_frame(t);
			v[r] = mono_now() - t0;
			cv[r] = thread_cpu_now() - c0;
		}
		row(names[kind], size, v, cv, reps, true);
	}
#ifdef EVENTS_SCAN_BUDGET
	/* The filter's whole cost, spread over frames and idle steps by the
	 * scan budget: a keystroke's frame, then every step until the whole
	 * ring is matched (not one frame: the sum) */
	int whole_reps = reps < 20 ? reps : 20;
	long steps = 0;
	for (int r = 0; r < whole_reps; r++) {
		view_set_filter(&t->view, r % 2 ? "gpu00" : "gpu01", err, sizeof err);
		double c0 = thread_cpu_now(), t0 = mono_now();
		tui_frame(t);
		while (events_scan_step(&t->events, t->event_log, t->nodes, t->n_nodes, &t->view.filter)) {
			steps++;
		}
		v[r] = mono_now() - t0;
		cv[r] = thread_cpu_now() - c0;
	}
	char whole[160];
	snprintf(whole, sizeof whole, "events screen, filter typed: the whole ring matched (frame + %ld idle steps)",
		 whole_reps ? steps / whole_reps : 0);
	row(whole, size, v, cv, whole_reps, false);
#endif
	view_set_filter(&t->view, "", err, sizeof err);
	t->screen = SCREEN_GRID;
	tui_set_events(t, NULL);
	event_log_free(log);
	free(cv);
	free(v);
}
#endif

static NOINLINE void bench_sorts(tui *t, const options *o, const char *size)
{
	double *v = xcalloc((size_t)o->sort_reps, sizeof *v);
	double *cv = xcalloc((size_t)o->sort_reps, sizeof *cv);
	char part[128];

	for (int id = 0; id < columns_count(); id++) {
		if (!columns_info((column_id)id)->sortable) {
			continue;
		}
		for (int rev = 0; rev < 2; rev++) {
			sort_by(t, (column_id)id, rev == 1);
			resort(t); /* untimed: first touch */
			PROFILE_ON();
			for (int r = 0; r < o->sort_reps; r++) {
				double c0 = thread_cpu_now(), t0 = mono_now();
				resort(t);
				v[r] = mono_now() - t0;
				cv[r] = thread_cpu_now() - c0;
			}
			snprintf(part, sizeof part, "sort %s%s x%d", columns_info((column_id)id)->key,
				 rev ? "-reversed" : "", o->sort_reps);
			PROFILE_OFF(part);
			char what[128];
			snprintf(what, sizeof what, "sort by %s%s", columns_info((column_id)id)->key,
				 rev ? " (reversed)" : "");
			row(what, size, v, cv, o->sort_reps, true);
		}
	}
	sort_by(t, COL_STATUS, false);
	resort(t);
	free(cv);
	free(v);
}

/* Every value the grid shows moves, as after a poll of every node: the
 * offsets (chrony, PTP, clock check), frequency, path delay, round trip and
 * the poll time, plus a history sample (the trend).  Statuses stay: the
 * health rules are not this bench's.  xorshift, seeded: the same run gives
 * the same values.  notify: told of each node as the scheduler tells the
 * TUI (NULL: not told). */
static void perturb(model *m, uint32_t *seed, double now, tui *notify)
{
	for (size_t i = 0; i < m->n; i++) {
		node *nd = &m->nodes[i];
		uint32_t x = *seed;
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		*seed = x;
		double u = (double)(x & 0xffff) / 65536.0 - 0.5; /* -0.5 .. 0.5 */
		if (!nd->has_observation) {
			continue;
		}
		observation *o = &nd->obs;
		o->chrony.tracking.system_time_offset_s = o->chrony.tracking.system_time_offset_s * 0.5 + u * 1e-4;
		o->chrony.tracking.frequency_ppm += u * 0.01;
		o->clock.offset_s += u * 1e-5;
		if (o->ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
			o->ptp.offset_from_master_ns = (int64_t)(u * 2000);
		}
		if (o->ptp.mean_path_delay_ns != PTP_NS_UNKNOWN) {
			o->ptp.mean_path_delay_ns += (int64_t)(u * 10);
		}
		o->rtt_s = 0.002 + (u + 0.5) * 0.01;
		o->taken_at = now;
		history_sample hs = {now, {0}};
		hs.value[HISTORY_OFFSET_S] = (float)o->chrony.tracking.system_time_offset_s;
		hs.value[HISTORY_FREQUENCY_PPM] = (float)o->chrony.tracking.frequency_ppm;
		hs.value[HISTORY_SKEW_PPM] = (float)o->chrony.tracking.skew_ppm;
		hs.value[HISTORY_PTP_OFFSET_NS] = (float)o->ptp.offset_from_master_ns;
		hs.value[HISTORY_PATH_DELAY_NS] = (float)o->ptp.mean_path_delay_ns;
		history_push(&nd->history, &hs);
		if (notify) {
			node_changed(notify, nd);
		}
	}
	if (notify) {
		model_changed(notify);
	}
}

/* The live view of many polled nodes on an ordinary terminal: frames where
 * nothing changed (the 1 s tick: ages and the clock move) and frames after
 * every value changed (the model told, as the scheduler's on_update does,
 * so the rows are re-sorted). */
static NOINLINE void bench_polled(tui *t, model *m, const options *o, const char *size)
{
	double *v = xcalloc((size_t)o->polled_reps, sizeof *v);
	double *cv = xcalloc((size_t)o->polled_reps, sizeof *cv);
	double *pv[PH_COUNT];
	double ph[PH_COUNT];
	uint32_t seed = (uint32_t)o->seed | 1u;
	char part[128];

	for (int p = 0; p < PH_COUNT; p++) {
		pv[p] = xcalloc((size_t)o->polled_reps, sizeof *pv[p]);
	}
	/* What telling the TUI costs the update side: a pass that changes every
	 * node with and without telling it. */
	double plain = thread_cpu_now();
	perturb(m, &seed, wall_now(), NULL);
	plain = thread_cpu_now() - plain;
	double told = thread_cpu_now();
	perturb(m, &seed, wall_now(), t);
	told = thread_cpu_now() - told;
	printf("changing every node: %.3f ms of CPU, %.3f ms with the TUI told of each (%.2f us per node)\n\n",
	       plain * 1e3, told * 1e3, (told - plain) / (double)m->n * 1e6);
	table_head();

	for (int changed = 0; changed < 2; changed++) {
		frame(t, ph); /* untimed: first touch */
		PROFILE_ON();
		for (int r = 0; r < o->polled_reps; r++) {
			if (changed) {
				/* not counted: the part holds the frames alone */
				PROFILE_PAUSE();
				perturb(m, &seed, wall_now(), t);
				PROFILE_ON();
			}
			double c0 = thread_cpu_now(), t0 = mono_now();
			frame(t, ph);
			v[r] = mono_now() - t0;
			cv[r] = thread_cpu_now() - c0;
			for (int p = 0; p < PH_COUNT; p++) {
				pv[p][r] = ph[p];
			}
		}
		snprintf(part, sizeof part, "polled %s x%d", changed ? "changed" : "same", o->polled_reps);
		PROFILE_OFF(part);
		stats c = summarise(cv, o->polled_reps), w = summarise(v, o->polled_reps);
		double target = changed ? TARGET_MS : TARGET_SAME_MS;
		printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %s (<= %.0f ms CPU) |\n",
		       changed ? "polled view, every value changed (re-sort included)"
			       : "polled view, nothing changed",
		       size, w.median * 1e3, w.p99 * 1e3, w.max * 1e3, c.median * 1e3,
		       c.median * 1e3 <= target ? "met" : "missed", target);
		printf("| &nbsp;&nbsp;CPU p99 / max | | | | | %.3f / %.3f | |\n", c.p99 * 1e3, c.max * 1e3);
		for (int p = 0; p < PH_COUNT; p++) {
			char what[160];
			snprintf(what, sizeof what, "&nbsp;&nbsp;of which %s", phase_names[p]);
			row(what, size, pv[p], NULL, o->polled_reps, false);
		}
	}
	for (int p = 0; p < PH_COUNT; p++) {
		free(pv[p]);
	}
	free(cv);
	free(v);
}

/* (a) and (b): the 1,000-row frames and the sorts; the curses screen is
 * left open (1,000 rows tall) for the polled bench to resize. */
static SCREEN *bench_screen;
static FILE *bench_out, *bench_in;

static int open_screen(const options *o, int lines, int cols)
{
	char lines_s[32], cols_s[32];
	snprintf(lines_s, sizeof lines_s, "%d", lines);
	snprintf(cols_s, sizeof cols_s, "%d", cols);
	setenv("LINES", lines_s, 1);
	setenv("COLUMNS", cols_s, 1);
	bench_out = fopen("/dev/null", "w");
	bench_in = fopen("/dev/null", "r");
	if (!bench_out || !bench_in) {
		perror("screen: /dev/null");
		return 70;
	}
	bench_screen = newterm(o->term, bench_out, bench_in);
	if (!bench_screen) {
		fprintf(stderr, "screen: curses cannot drive TERM=%s\n", o->term);
		return 70;
	}
	set_term(bench_screen);
	/* tui_run's settings that change what a frame does */
	cbreak();
	noecho();
	nonl();
	leaveok(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
	}
	return 0;
}

static void close_screen(void)
{
	if (bench_screen) {
		endwin();
		delscreen(bench_screen);
		fclose(bench_out);
		fclose(bench_in);
		bench_screen = NULL;
	}
}

static int frames_and_sorts(const options *op)
{
	options o = *op;
	/* The frame's model: live polling until the sparklines are full. */
	model fm, sm;
	fill_nodes(&fm, (size_t)o.frame_nodes, o.seed, true, o.fill_interval, o.fill_polls, o.fill_max_secs);
	model_describe("frame model", &fm);
	/* The sort's: one poll per node, as --once (slow and unreachable
	 * nodes are done within 3 s). */
	fill_nodes(&sm, (size_t)o.sort_nodes, o.seed, false, 2.0, 1, o.fill_max_secs);
	model_describe("sort model", &sm);

	/* A terminal with a line per row: 2 header lines, the headings, the
	 * rows, the footer. */
	int rc = open_screen(&o, o.frame_nodes + BARS_HEADER_LINES + 2, o.cols);
	if (rc != 0) {
		return rc;
	}

	tui *ft = screen_attach(&fm);
	tui *st = screen_attach(&sm);
	int lines, cols;
	getmaxyx(stdscr, lines, cols);
	frame(ft, (double[PH_COUNT]){0});
	printf("screen: TERM=%s %dx%d, %s, %s, %d colours; rows on screen %d; columns:", o.term, cols, lines,
	       ft->utf8 ? "UTF-8" : "not UTF-8", ft->color ? "colour" : "mono", COLORS, page_of(ft));
	for (int i = 0; i < ft->layout.n; i++) {
		printf(" %s(%d)", columns_info(ft->layout.id[i])->key, ft->layout.width[i]);
	}
	printf("\nnode struct %zu bytes; frame reps %d, sort reps %d per key\n\n", sizeof(node), o.frame_reps,
	       o.sort_reps);
	if (lines != o.frame_nodes + BARS_HEADER_LINES + 2 || page_of(ft) != o.frame_nodes) {
		fprintf(stderr, "screen: curses gave %d lines, %d rows: LINES was not honoured\n", lines, page_of(ft));
		return 70;
	}

	char fsize[64], ssize[64];
	snprintf(fsize, sizeof fsize, "%d nodes, %d rows", o.frame_nodes, page_of(ft));
	snprintf(ssize, sizeof ssize, "%d nodes", o.sort_nodes);
	table_head();
	char tag[32];
	snprintf(tag, sizeof tag, "%d-nodes", o.frame_nodes);
	bench_frames(ft, &o, fsize, tag, true);
#ifdef HAVE_VIEW
	char esize[96];
	snprintf(esize, sizeof esize, "%d events, %d rows", EVENTS_BENCH_COUNT, page_of(ft));
	bench_events(ft, &o, esize);
#endif
	bench_sorts(st, &o, ssize);
	/* The same frame when the fleet is the sort model: 1,000 of 10,000
	 * rows on screen, every frame re-sorting and summarising all of them. */
	snprintf(fsize, sizeof fsize, "%d nodes, %d rows", o.sort_nodes, page_of(ft));
	snprintf(tag, sizeof tag, "%d-nodes", o.sort_nodes);
	bench_frames(st, &o, fsize, tag, false);

	tui_free(ft);
	tui_free(st);
	model_free(&fm);
	model_free(&sm);
	printf("\n");
	return 0;
}

/* (c): the polled view, on the screen left open (resized) or a new one. */
static int polled(const options *o, bool fresh)
{
	model pm;
	char size[96];

	fill_nodes(&pm, (size_t)o->polled_nodes, o->seed, true, o->fill_interval, o->polled_polls,
		   o->fill_max_secs);
	model_describe("polled model", &pm);
	if (fresh) {
		int rc = open_screen(o, o->polled_lines, o->polled_cols);
		if (rc != 0) {
			return rc;
		}
	} else {
		resizeterm(o->polled_lines, o->polled_cols);
	}
	tui *pt = screen_attach(&pm);
	int lines, cols;
	getmaxyx(stdscr, lines, cols);
	frame(pt, (double[PH_COUNT]){0});
	printf("polled view: %dx%d, rows on screen %d; columns:", cols, lines, page_of(pt));
	for (int i = 0; i < pt->layout.n; i++) {
		printf(" %s(%d)", columns_info(pt->layout.id[i])->key, pt->layout.width[i]);
	}
	printf("\nreps %d per kind\n\n", o->polled_reps);
	snprintf(size, sizeof size, "%d nodes, %dx%d", o->polled_nodes, cols, lines);
	bench_polled(pt, &pm, o, size);
#ifdef HAVE_VIEW
	snprintf(size, sizeof size, "%d events, %dx%d", EVENTS_BENCH_COUNT, cols, lines);
	bench_events(pt, o, size);
#endif
	tui_free(pt);
	close_screen();
	model_free(&pm);
	return 0;
}

/* --------------------------------------------------------------- main */

static void usage(void)
{
	fputs("usage: screen [--frame-nodes N] [--sort-nodes N] [--cols C] [--frame-reps R] [--sort-reps R]\n"
	      "              [--fill-polls K] [--fill-interval S] [--fill-max-secs S] [--term TERM] [--seed N]\n"
	      "              [--polled-nodes N] [--polled-size COLSxLINES] [--polled-polls K] [--polled-reps R]\n"
	      "              [--only polled]\n",
	      stderr);
	exit(2);
}

static int int_arg(const char *s, int lo)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > 1000000) {
		usage();
	}
	return (int)v;
}

static unsigned long seed_arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v > 0xffffffffULL) {
		usage();
	}
	return (unsigned long)v;
}

static double secs_arg(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(v > 0) || v > 3600) {
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"frame-nodes", required_argument, NULL, 'f'}, {"sort-nodes", required_argument, NULL, 's'},
		{"cols", required_argument, NULL, 'c'},        {"frame-reps", required_argument, NULL, 'F'},
		{"sort-reps", required_argument, NULL, 'S'},   {"fill-max-secs", required_argument, NULL, 'x'},
		{"fill-interval", required_argument, NULL, 'i'}, {"term", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 'r'},        {"fill-polls", required_argument, NULL, 'p'},
		{"polled-nodes", required_argument, NULL, 'n'}, {"polled-size", required_argument, NULL, 'z'},
		{"polled-polls", required_argument, NULL, 'P'}, {"polled-reps", required_argument, NULL, 'R'},
		{"only", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	options o = {10000, 60, 200, 60, 200, 1000, 10000, 200, 200, 50, 60, 0.25, 600.0, "xterm-256color",
		     DEMO_CLUSTER_DEFAULT_SEED};
	bool only_polled = false;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o.frame_nodes = int_arg(optarg, 1); break;
		case 's': o.sort_nodes = int_arg(optarg, 1); break;
		case 'c': o.cols = int_arg(optarg, 30); break;
		case 'F': o.frame_reps = int_arg(optarg, 1); break;
		case 'S': o.sort_reps = int_arg(optarg, 1); break;
		case 'x': o.fill_max_secs = secs_arg(optarg); break;
		case 'p': o.fill_polls = int_arg(optarg, 1); break;
		case 'i': o.fill_interval = secs_arg(optarg); break;
		case 't': o.term = optarg; break;
		case 'r': o.seed = seed_arg(optarg); break;
		case 'n': o.polled_nodes = int_arg(optarg, 1); break;
		case 'z':
			if (sscanf(optarg, "%dx%d", &o.polled_cols, &o.polled_lines) != 2 || o.polled_cols < 30 ||
			    o.polled_lines < 6 || o.polled_cols > 1000 || o.polled_lines > 1000) {
				usage();
			}
			break;
		case 'P': o.polled_polls = int_arg(optarg, 1); break;
		case 'R': o.polled_reps = int_arg(optarg, 1); break;
		case 'o':
			if (strcmp(optarg, "polled") != 0) {
				usage();
			}
			only_polled = true;
			break;
		default: usage();
		}
	}
	if (optind != argc) {
		usage();
	}
	/* as tui_run: LC_CTYPE only */
	setlocale(LC_CTYPE, "");
	srandom((unsigned)o.seed);

	if (!only_polled) {
		int rc = frames_and_sorts(&o);
		if (rc != 0) {
			return rc;
		}
	}
	return polled(&o, only_polled);
}
