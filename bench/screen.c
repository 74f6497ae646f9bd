/* screen.c - bench: what the live view costs at scale.  Times (a) one whole
 * frame of the node grid with 1,000 rows on screen, doupdate() included, and
 * (b) re-sorting 10,000 nodes by every sort key the grid offers, against the
 * issue's targets (<= 5 ms each).
 *
 * Everything measured is the TUI's own code (tui_refresh_rows -> order_build,
 * bars_draw_header, grid_draw, bars_draw_footer, draw.c, columns.c) drawing
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
 * tui.c's frame() and the set-up half of tui_run() are static, so the frame is
 * put together here from the same public calls in the same order (see
 * bench/results/screen.md: a tui_draw_frame() entry point would remove it).
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
#include "grid.h"
#include "order.h"
#include "scheduler.h"
#include "thresholds.h"
#include "tui.h"
#include "tui_state.h"
#include "xalloc.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PROFILE_ON() CALLGRIND_START_INSTRUMENTATION
#define PROFILE_OFF(part) \
	do { \
		CALLGRIND_STOP_INSTRUMENTATION; \
		CALLGRIND_DUMP_STATS_AT(part); \
	} while (0)
#endif
#endif
#ifndef PROFILE_ON
#define PROFILE_ON() ((void)0)
#define PROFILE_OFF(part) ((void)(part))
#endif

#define NOINLINE __attribute__((noinline))
#define TARGET_MS 5.0

typedef struct {
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
	m->demo = demo_cluster_new(seed, tui_now());
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

/* What tui_run() does before its loop, minus the loop and the watchers. */
static tui *view_attach(model *m)
{
	tui_options topt = {NULL, false, true};
	tui *t = tui_new(&topt);

	t->loop = m->loop;
	t->nodes = m->nodes;
	t->n_nodes = m->n;
	t->sched = m->sched;
	t->rows = xcalloc(m->n ? m->n : 1, sizeof *t->rows);
	t->host_rank = xcalloc(m->n ? m->n : 1, sizeof *t->host_rank);
	order_rank_hosts(m->nodes, m->n, t->host_rank);
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	t->color = has_colors() && COLORS >= 8;
	if (!t->color) {
		theme_builtin_mono(&t->theme);
	}
	draw_use_theme(&t->theme, t->color);
	return t;
}

typedef enum {
	PH_ROWS = 0, /* erase + tui_refresh_rows (filter + sort) */
	PH_HEADER,
	PH_GRID,
	PH_FOOTER,
	PH_UPDATE,   /* wnoutrefresh + doupdate: diff and write */
	PH_COUNT
} phase;

static const char *phase_names[PH_COUNT] = {
	"erase + tui_refresh_rows", "bars_draw_header", "grid_draw", "bars_draw_footer", "doupdate",
};

/* tui.c's frame() for the grid screen, timing each step. */
static void frame(tui *t, double ph[PH_COUNT])
{
	int lines, cols;
	double t0 = mono_now(), t1;

	getmaxyx(stdscr, lines, cols);
	erase();
	tui_refresh_rows(t);
	t1 = mono_now();
	ph[PH_ROWS] = t1 - t0;
	t0 = t1;
	bars_draw_header(t, cols);
	t1 = mono_now();
	ph[PH_HEADER] = t1 - t0;
	t0 = t1;
	grid_draw(t, BARS_HEADER_LINES, lines - 1, cols);
	t1 = mono_now();
	ph[PH_GRID] = t1 - t0;
	t0 = t1;
	bars_draw_footer(t, lines - 1, cols);
	t1 = mono_now();
	ph[PH_FOOTER] = t1 - t0;
	t0 = t1;
	wnoutrefresh(stdscr);
	doupdate();
	ph[PH_UPDATE] = mono_now() - t0;
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
				t->reverse = !t->reverse;
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
		t->reverse = false;
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

static NOINLINE void bench_sorts(tui *t, const options *o, const char *size)
{
	double *v = xcalloc((size_t)o->sort_reps, sizeof *v);
	double *cv = xcalloc((size_t)o->sort_reps, sizeof *cv);
	char part[128];

	for (int id = 0; id < COL_COUNT; id++) {
		if (!columns_info((column_id)id)->sortable) {
			continue;
		}
		for (int rev = 0; rev < 2; rev++) {
			t->sort = (column_id)id;
			t->reverse = rev == 1;
			tui_refresh_rows(t); /* untimed: first touch */
			PROFILE_ON();
			for (int r = 0; r < o->sort_reps; r++) {
				double c0 = thread_cpu_now(), t0 = mono_now();
				tui_refresh_rows(t);
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
	t->sort = COL_STATUS;
	t->reverse = false;
	free(cv);
	free(v);
}

/* --------------------------------------------------------------- main */

static void usage(void)
{
	fputs("usage: screen [--frame-nodes N] [--sort-nodes N] [--cols C] [--frame-reps R] [--sort-reps R]\n"
	      "              [--fill-polls K] [--fill-interval S] [--fill-max-secs S] [--term TERM] [--seed N]\n",
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
		{NULL, 0, NULL, 0},
	};
	options o = {1000, 10000, 200, 200, 50, 60, 0.25, 600.0, "xterm-256color", DEMO_CLUSTER_DEFAULT_SEED};
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
		default: usage();
		}
	}
	if (optind != argc) {
		usage();
	}
	/* as tui_run: LC_CTYPE only */
	setlocale(LC_CTYPE, "");
	srandom((unsigned)o.seed);

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
	char lines_s[32], cols_s[32];
	snprintf(lines_s, sizeof lines_s, "%d", o.frame_nodes + BARS_HEADER_LINES + 2);
	snprintf(cols_s, sizeof cols_s, "%d", o.cols);
	setenv("LINES", lines_s, 1);
	setenv("COLUMNS", cols_s, 1);
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	if (!out || !in) {
		perror("screen: /dev/null");
		return 70;
	}
	SCREEN *scr = newterm(o.term, out, in);
	if (!scr) {
		fprintf(stderr, "screen: curses cannot drive TERM=%s\n", o.term);
		return 70;
	}
	set_term(scr);
	/* tui_run's settings that change what a frame does */
	cbreak();
	noecho();
	nonl();
	leaveok(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
	}

	tui *ft = view_attach(&fm);
	tui *st = view_attach(&sm);
	int lines, cols;
	getmaxyx(stdscr, lines, cols);
	frame(ft, (double[PH_COUNT]){0});
	printf("screen: TERM=%s %dx%d, %s, %s, %d colours; rows on screen %d; columns:", o.term, cols, lines,
	       ft->utf8 ? "UTF-8" : "not UTF-8", ft->color ? "colour" : "mono", COLORS, ft->page);
	for (int i = 0; i < ft->layout.n; i++) {
		printf(" %s(%d)", columns_info(ft->layout.id[i])->key, ft->layout.width[i]);
	}
	printf("\nnode struct %zu bytes; frame reps %d, sort reps %d per key\n\n", sizeof(node), o.frame_reps,
	       o.sort_reps);
	if (lines != o.frame_nodes + BARS_HEADER_LINES + 2 || ft->page != o.frame_nodes) {
		fprintf(stderr, "screen: curses gave %d lines, %d rows: LINES was not honoured\n", lines, ft->page);
		return 70;
	}

	char fsize[64], ssize[64];
	snprintf(fsize, sizeof fsize, "%d nodes, %d rows", o.frame_nodes, ft->page);
	snprintf(ssize, sizeof ssize, "%d nodes", o.sort_nodes);
	printf("| measured | size | median ms | p99 ms | max ms | CPU median ms | target <= %.0f ms |\n", TARGET_MS);
	printf("| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
	char tag[32];
	snprintf(tag, sizeof tag, "%d-nodes", o.frame_nodes);
	bench_frames(ft, &o, fsize, tag, true);
	bench_sorts(st, &o, ssize);
	/* The same frame when the fleet is the sort model: 1,000 of 10,000
	 * rows on screen, every frame re-sorting and summarising all of them. */
	snprintf(fsize, sizeof fsize, "%d nodes, %d rows", o.sort_nodes, ft->page);
	snprintf(tag, sizeof tag, "%d-nodes", o.sort_nodes);
	bench_frames(st, &o, fsize, tag, false);

	tui_free(ft);
	tui_free(st);
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	model_free(&fm);
	model_free(&sm);
	return 0;
}
