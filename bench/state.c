/* state.c - bench: what --state-dir costs the client (issue 19: the writer
 * adds <= 10% client CPU at 1,024 nodes polled every second), and how large
 * the database grows per node and day.
 *
 * N nodes (default 1,024) answer through the demo transport (node k plays
 * demo node k mod 48), so the real scheduler, probe decoder, history and
 * health rules run and only the client is measured.  Each run polls them
 * every second for a warm-up, then for a window in which the process's CPU
 * time (getrusage RUSAGE_SELF: the loop and the writer thread together) is
 * measured.  Runs alternate without and with a state directory (the same
 * src/state_run.c feed synctop uses, once a second, as synctop's cluster
 * timer does), so the machine's load hits both alike; the report gives the
 * median CPU of each and their ratio.
 *
 * The database: the writer runs with raw_s = 60 s instead of an hour, so
 * every maintenance in the window downsamples a full minute of every node
 * as a long run does each minute.  After the last run the bytes per raw and
 * per downsampled row are measured (a copy downsampled entirely at an
 * injected later time) and extrapolated to a node-day and to a full
 * 7-day store: an extrapolation from a measured run, not a week-long run.
 *
 * The steady state: --prefill DAYS first fills the store (once: a store
 * that already holds samples is kept, so alternated invocations share it)
 * with DAYS of one sample a minute and the last hour at one a second for
 * every node, as a long run leaves it, and the writer then runs with the
 * default raw_s (an hour) unless --raw-s says otherwise; both sides' rings
 * then start full (an hour), as after an hour of polling, and both restore
 * from the store (without: the writer stopped at once): the health rules
 * read the same rings in both, so the difference is the writer's.  --only with or
 * --only without runs one side (for perf).  The prefill uses only the
 * store's put/maintain calls, so this file builds against older versions.
 *
 *   bench/state-run [--nodes N] [--warmup S] [--window S] [--runs R] [--dir D]
 *                   [--prefill DAYS] [--raw-s S] [--only with|without]
 *   bench/state-run --size-days DAYS [--nodes N] [--dir D]   (measure_long_run)
 */
#include <config.h>

#include <ev.h>
#include <getopt.h>
#include <sqlite3.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "demo_cluster.h"
#include "demo_transport.h"
#include "node.h"
#include "scheduler.h"
#include "state_run.h"
#include "state_store.h"
#include "thresholds.h"
#include "walltime.h"
#include "xalloc.h"

/* Node i's name: the same in every run and in the prefill. */
static void node_name(demo_cluster *demo, size_t i, char name[NODE_NAME_LEN])
{
	size_t per = demo_cluster_count(demo);
	snprintf(name, NODE_NAME_LEN, "r%03zu-%s", i / per, demo_cluster_name(demo, i % per));
}

/* Node i's values at t in the prefill and the rings: a slow swing of the
 * offset and frequency, a fixed skew. */
static void synthetic(size_t i, double t, float value[HISTORY_SERIES_COUNT])
{
	for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
		value[k] = NAN;
	}
	double ph = (double)i * 0.37 + t / 3600.0;
	value[HISTORY_OFFSET_S] = (float)(2e-6 * sin(ph) + 1e-7 * (double)(i % 7));
	value[HISTORY_FREQUENCY_PPM] = (float)(-3.0 + 0.4 * sin(ph / 24.0) + 0.001 * (double)i);
	value[HISTORY_SKEW_PPM] = 0.02f;
}

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

typedef struct {
	struct ev_loop *loop;
	state_run *state;
	unsigned long polls;
	ev_timer feed, stop;
} run_ctx;

static void on_all_done(void *ctx)
{
	(void)ctx;
}

static void on_update(void *ctx, node *n)
{
	(void)n;
	((run_ctx *)ctx)->polls++;
}

static void on_feed(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	run_ctx *r = w->data;
	state_run_feed_samples(r->state);
}

static void on_stop(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static void on_trouble(void *ctx, const char *what)
{
	(void)ctx;
	fprintf(stderr, "state: %s\n", what);
	exit(1);
}

static void run_loop(run_ctx *r, double seconds)
{
	ev_timer_set(&r->stop, seconds, 0);
	ev_timer_start(r->loop, &r->stop);
	ev_run(r->loop, 0);
}

typedef struct {
	double cpu_s;
	unsigned long polls;
} result;

/* One run: N nodes polled every second; with a state directory if dir.
 * full_rings (the steady state): every node's ring starts with an hour,
 * and then gets what the store in `rings_from` holds, through the same
 * restore in both runs (without: the writer stopped at once), so the
 * health rules read the same rings with and without the writer. */
static result one_run(size_t n, double warmup, double window, const char *dir, double raw_s, bool full_rings,
		      const char *rings_from)
{
	run_ctx r = {0};
	result out = {0, 0};
	r.loop = ev_loop_new(EVFLAG_AUTO);
	demo_cluster *demo = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, walltime_now());
	node *nodes = xcalloc(n, sizeof *nodes);
	thresholds th;
	thresholds_init_defaults(&th);
	scheduler_config cfg;
	scheduler_config_init(&cfg);
	cfg.interval_s = 1.0;
	cfg.clock_check_every_s = 0;
	cfg.thresholds = &th;
	cfg.on_all_done = on_all_done;
	cfg.on_update = on_update;
	cfg.ctx = &r;
	scheduler *sched = scheduler_new(r.loop, &cfg);
	size_t per = demo_cluster_count(demo);
	for (size_t i = 0; i < n; i++) {
		char name[NODE_NAME_LEN];
		node_name(demo, i, name);
		node_init(&nodes[i], name);
		for (double t = walltime_now() - HISTORY_CAPACITY; full_rings && history_count(&nodes[i].history) <
								       HISTORY_CAPACITY; t += 1.0) {
			history_sample hs = {.t = t};
			synthetic(i, t, hs.value);
			history_push(&nodes[i].history, &hs);
		}
		sched_node *sn = scheduler_add(sched, &nodes[i], NULL);
		scheduler_attach(sn, demo_transport_new(r.loop, demo, i % per, DEMO_CONNECT_TIMEOUT_S,
							scheduler_transport_events(), sn));
	}
	if (!dir && full_rings) {
		state_run_config sc = {.dir = rings_from, .limits = {.raw_s = raw_s}, .interval_s = 1.0, .trouble = on_trouble};
		state_run_free(state_run_start(r.loop, &sc, nodes, n, NULL), 10.0);
	}
	if (dir) {
		state_run_config sc = {
			.dir = dir,
			.limits = {.raw_s = raw_s},
			.interval_s = 1.0,
			.trouble = on_trouble,
		};
		r.state = state_run_start(r.loop, &sc, nodes, n, NULL);
	}
	ev_timer_init(&r.feed, on_feed, 1.0, 1.0);
	ev_timer_init(&r.stop, on_stop, 0, 0);
	r.feed.data = &r;
	ev_timer_start(r.loop, &r.feed);
	scheduler_start(sched);
	run_loop(&r, warmup);
	unsigned long polls0 = r.polls;
	double cpu0 = cpu_now();
	run_loop(&r, window);
	out.cpu_s = cpu_now() - cpu0;
	out.polls = r.polls - polls0;
	/* the writer's queue drained before the next run starts */
	state_run_free(r.state, 10.0);
	scheduler_free(sched);
	demo_cluster_free(demo);
	free(nodes);
	ev_loop_destroy(r.loop);
	return out;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void count_sample(void *ctx, const state_sample *x)
{
	(void)x;
	(*(size_t *)ctx)++;
}

/* Rows and bytes of the store in dir, then the same downsampled entirely. */
static void measure_size(const char *dir, size_t n)
{
	char copy[300], cmd[1400];
	snprintf(copy, sizeof copy, "%.280s-downsampled", dir);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%s/synctop.db' '%s/'", copy, copy, dir, copy);
	if (system(cmd) != 0) {
		fprintf(stderr, "state: cannot copy the database\n");
		return;
	}
	char err[STATE_ERROR_LEN];
	state_limits lim = {.raw_s = 60.0};
	state_store *s = state_store_open(dir, &lim, err, sizeof err);
	if (!s) {
		fprintf(stderr, "state: %s\n", err);
		return;
	}
	size_t raw_rows = 0;
	/* the nodes' ids are 1..n: the first run added them in order */
	for (int64_t id = 1; id <= (int64_t)n; id++) {
		state_store_load_samples(s, id, 0, count_sample, &raw_rows);
	}
	/* what the last maintenance left: the newest minute still raw */
	uint64_t bytes = state_store_bytes(s);
	state_store_close(s);

	s = state_store_open(copy, &lim, err, sizeof err);
	if (!s) {
		fprintf(stderr, "state: %s\n", err);
		return;
	}
	if (state_store_maintain(s, walltime_now() + 7200) != 0) {
		fprintf(stderr, "state: %s\n", state_store_error(s));
	}
	size_t coarse_rows = 0;
	for (int64_t id = 1; id <= (int64_t)n; id++) {
		state_store_load_samples(s, id, 0, count_sample, &coarse_rows);
	}
	uint64_t coarse_bytes = state_store_bytes(s);
	state_store_close(s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", copy);
	(void)system(cmd);

	double per_raw = raw_rows ? (double)bytes / (double)raw_rows : NAN;
	double per_coarse = coarse_rows ? (double)coarse_bytes / (double)coarse_rows : NAN;
	/* a node polled every second: its last hour raw, the rest a row a minute */
	double hour_raw = 3600 * per_raw;
	double day_coarse = 1440 * per_coarse;
	printf("database: %zu rows in %.1f MiB after the last run (%.0f bytes a row, indexes included);\n"
	       "  downsampled entirely: %zu rows in %.2f MiB (%.0f bytes a row)\n",
	       raw_rows, (double)bytes / 1048576.0, per_raw, coarse_rows, (double)coarse_bytes / 1048576.0,
	       per_coarse);
	printf("per node (1 s polls, extrapolated from these rows): the last hour at full rate %.0f KiB,\n"
	       "  each further day %.0f KiB; 7 days kept: %.2f MiB per node, %.2f GiB for %zu nodes\n",
	       hour_raw / 1024, day_coarse / 1024, (hour_raw + 7 * day_coarse) / 1048576.0,
	       (hour_raw + 7 * day_coarse) * (double)n / 1073741824.0, n);
}

static void check(state_store *s, int rc)
{
	if (rc != 0) {
		fprintf(stderr, "state: prefill: %s\n", state_store_error(s));
		exit(1);
	}
}

/* DAYS of history for every node, as a long run leaves it: a sample a
 * minute, then the last raw_s at one a second; skipped when the store
 * already has samples (an earlier invocation filled it). */
static void prefill(const char *dir, size_t n, double days, double raw_s)
{
	char err[STATE_ERROR_LEN];
	state_limits lim = {.raw_s = raw_s};
	state_store *s = state_store_open(dir, &lim, err, sizeof err);
	if (!s) {
		fprintf(stderr, "state: %s\n", err);
		exit(1);
	}
	demo_cluster *demo = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, walltime_now());
	int64_t *ids = xcalloc(n, sizeof *ids);
	check(s, state_store_begin(s));
	for (size_t i = 0; i < n; i++) {
		char name[NODE_NAME_LEN];
		node_name(demo, i, name);
		check(s, state_store_node_id(s, name, &ids[i]));
	}
	check(s, state_store_commit(s));
	size_t have = 0;
	state_store_load_samples(s, ids[0], 0, count_sample, &have);
	if (have > 0) {
		printf("prefill: %s already holds %zu samples of the first node: kept\n", dir, have);
		goto out;
	}
	double started = cpu_now(), now = floor(walltime_now());
	double raw_from = now - raw_s, from = floor((now - days * 86400.0) / 60.0) * 60.0 + 30.0;
	size_t rows = 0;
	/* oldest first, a transaction per span, as the writer would have */
	for (double t0 = from; t0 < now; t0 += 600.0) {
		check(s, state_store_begin(s));
		for (size_t i = 0; i < n; i++) {
			double step = 60.0;
			for (double t = t0; t < t0 + 600.0 && t < now; t += step) {
				step = t >= raw_from ? 1.0 : 60.0;
				state_sample x = {.t = t, .clock_check_s = NAN};
				synthetic(i, t, x.value);
				check(s, state_store_put_sample(s, ids[i], &x));
				rows++;
			}
		}
		check(s, state_store_commit(s));
	}
	check(s, state_store_maintain(s, now));
	printf("prefill: %zu rows (%g days a minute, the last %g s a second) for %zu nodes in %.0f s CPU; "
	       "%.1f MiB\n",
	       rows, days, raw_s, n, cpu_now() - started, (double)state_store_bytes(s) / 1048576.0);
out:
	fflush(stdout);
	demo_cluster_free(demo);
	free(ids);
	state_store_close(s);
}

/* The size of a long run, measured rather than extrapolated from a few
 * minutes: DAYS of N nodes polled every second (all six series known, a
 * clock check every 30 s) put through the store as the writer does (a
 * transaction a second, the maintenance every minute at the simulated
 * time), then each table's bytes (SQLite's dbstat).  Schema 3 only: the
 * tables' names are this version's. */
static int measure_long_run(const char *dir, size_t n, double days)
{
	char err[STATE_ERROR_LEN];
	state_store *s = state_store_open(dir, NULL, err, sizeof err);
	if (!s) {
		fprintf(stderr, "state: %s\n", err);
		return 1;
	}
	int64_t *ids = xcalloc(n, sizeof *ids);
	for (size_t i = 0; i < n; i++) {
		char name[NODE_NAME_LEN];
		snprintf(name, sizeof name, "size-%zu", i);
		check(s, state_store_node_id(s, name, &ids[i]));
	}
	double start = floor((walltime_now() - days * 86400.0) / 60.0) * 60.0, end = start + days * 86400.0;
	double cpu0 = cpu_now();
	for (double t = start; t < end; t += 1.0) {
		check(s, state_store_begin(s));
		for (size_t i = 0; i < n; i++) {
			state_sample x = {.t = t + 0.001 * (double)i, .clock_check_s = NAN};
			synthetic(i, t, x.value);
			x.value[HISTORY_PTP_OFFSET_NS] = (float)(12.0 * sin(t / 7.0 + (double)i));
			x.value[HISTORY_PATH_DELAY_NS] = (float)(480.0 + 3.0 * cos(t / 11.0));
			x.value[HISTORY_PHC_SYS_OFFSET_NS] = (float)(-35.0 + 2.0 * sin(t / 13.0));
			check(s, state_store_put_sample(s, ids[i], &x));
			if (fmod(t, 30.0) == 0) {
				state_sample c = {.t = t + 0.5 + 0.001 * (double)i, .clock_check_s = 1.5e-4f};
				for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
					c.value[k] = NAN;
				}
				check(s, state_store_put_sample(s, ids[i], &c));
			}
		}
		check(s, state_store_commit(s));
		if (fmod(t + 1.0, 60.0) == 0) {
			check(s, state_store_maintain(s, t + 1.0));
		}
	}
	state_store_close(s);
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	sqlite3 *db;
	sqlite3_stmt *st;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT name, sum(pgsize), (SELECT count(*) FROM samples), (SELECT count(*) FROM recent)"
			       " FROM dbstat WHERE name IN ('samples', 'recent') GROUP BY name",
			       -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "state: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	double samples_b = NAN, recent_b = NAN, samples_rows = NAN, recent_rows = NAN;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		double bytes = sqlite3_column_double(st, 1);
		samples_rows = sqlite3_column_double(st, 2);
		recent_rows = sqlite3_column_double(st, 3);
		*(strcmp(name, "samples") == 0 ? &samples_b : &recent_b) = bytes;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	double per_minute = samples_b / samples_rows, per_raw = recent_b / recent_rows;
	double day = 1440.0 * per_minute, hour = recent_b / (double)n;
	printf("long run: %zu nodes, %g days at 1 s (%.0f s CPU): samples %.0f rows in %.1f MiB (%.1f bytes a "
	       "minute mean), recent %.0f rows in %.1f MiB (%.1f bytes a raw row)\n",
	       n, days, cpu_now() - cpu0, samples_rows, samples_b / 1048576.0, per_minute, recent_rows,
	       recent_b / 1048576.0, per_raw);
	printf("per node: %.0f KiB a day (minute means), %.0f KiB for the raw hour; 7 days: %.2f MiB per node, "
	       "%.2f GiB for 1,024 nodes (the default bound: 1 GiB)\n",
	       day / 1024.0, hour / 1024.0, (7 * day + hour) / 1048576.0, (7 * day + hour) * 1024.0 / 1073741824.0);
	free(ids);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 1024;
	double warmup = 15, window = 60;
	int runs = 3;
	const char *dir = NULL, *only = "";
	double prefill_days = 0, raw_s = NAN, size_days = 0;
	static const struct option opts[] = {
		{"nodes", required_argument, NULL, 'n'},   {"warmup", required_argument, NULL, 'w'},
		{"window", required_argument, NULL, 's'},  {"runs", required_argument, NULL, 'r'},
		{"dir", required_argument, NULL, 'd'},     {"prefill", required_argument, NULL, 'p'},
		{"raw-s", required_argument, NULL, 'R'},   {"only", required_argument, NULL, 'o'},
		{"size-days", required_argument, NULL, 'S'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': n = (size_t)strtoul(optarg, NULL, 10); break;
		case 'w': warmup = strtod(optarg, NULL); break;
		case 's': window = strtod(optarg, NULL); break;
		case 'r': runs = atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 'p': prefill_days = strtod(optarg, NULL); break;
		case 'R': raw_s = strtod(optarg, NULL); break;
		case 'o': only = optarg; break;
		case 'S': size_days = strtod(optarg, NULL); break;
		default:
			fprintf(stderr, "usage: state [--nodes N] [--warmup S] [--window S] [--runs R] [--dir D]"
					" [--prefill DAYS] [--raw-s S] [--only with|without]\n");
			return 64;
		}
	}
	char tmpl[] = "/tmp/synctop-bench-state.XXXXXX";
	if (!dir && !(dir = mkdtemp(tmpl))) {
		perror("mkdtemp");
		return 1;
	}
	if (runs < 1 || runs > 50 || n < 1 || prefill_days < 0 ||
	    (only[0] && strcmp(only, "with") != 0 && strcmp(only, "without") != 0)) {
		fprintf(stderr, "state: bad --runs, --nodes, --prefill or --only\n");
		return 64;
	}
	if (size_days > 0) {
		return measure_long_run(dir, n, size_days);
	}
	/* the first minutes: every maintenance downsamples a minute (raw_s 60);
	 * the steady state: the default hour */
	if (isnan(raw_s)) {
		raw_s = prefill_days > 0 ? STATE_RAW_DEFAULT_S : 60.0;
	}
	if (prefill_days > 0) {
		prefill(dir, n, prefill_days, raw_s);
	}
	double *without = xcalloc((size_t)runs, sizeof *without), *with = xcalloc((size_t)runs, sizeof *with);
	double *without_pp = xcalloc((size_t)runs, sizeof *without_pp), *with_pp = xcalloc((size_t)runs, sizeof *with_pp);
	printf("# bench/state: %zu nodes (demo transport) polled every 1 s; %g s warm-up, %g s window, %d runs "
	       "each, alternating; raw_s %g s%s\n",
	       n, warmup, window, runs, raw_s, prefill_days > 0 ? ", prefilled store" : "");
	for (int i = 0; i < runs; i++) {
		bool full = prefill_days > 0;
		result a =
			strcmp(only, "with") == 0 ? (result){1, 1} : one_run(n, warmup, window, NULL, raw_s, full, dir);
		result b =
			strcmp(only, "without") == 0 ? (result){1, 1} : one_run(n, warmup, window, dir, raw_s, full, dir);
		without[i] = a.cpu_s;
		with[i] = b.cpu_s;
		/* a loaded machine decodes fewer polls than N a second: compare
		 * the CPU per decoded poll too */
		without_pp[i] = a.polls ? a.cpu_s / (double)a.polls : NAN;
		with_pp[i] = b.polls ? b.cpu_s / (double)b.polls : NAN;
		printf("run %d: without %.2f s CPU (%lu polls, %.1f us each), with --state-dir %.2f s CPU (%lu polls, "
		       "%.1f us each): x%.3f, per poll x%.3f\n",
		       i + 1, a.cpu_s, a.polls, without_pp[i] * 1e6, b.cpu_s, b.polls, with_pp[i] * 1e6, b.cpu_s / a.cpu_s,
		       with_pp[i] / without_pp[i]);
		fflush(stdout);
	}
	double mw = median(without, runs), mt = median(with, runs);
	double pw = median(without_pp, runs), pt = median(with_pp, runs);
	printf("median client CPU: without %.2f s (%.1f%% of a core), with --state-dir %.2f s (%.1f%%): ratio %.3f\n",
	       mw, 100 * mw / window, mt, 100 * mt / window, mt / mw);
	printf("median CPU per decoded poll: without %.1f us, with --state-dir %.1f us: ratio %.3f "
	       "(target <= 1.10: %s)\n",
	       pw * 1e6, pt * 1e6, pt / pw, pt / pw <= 1.10 ? "met" : "MISSED");
	if (prefill_days == 0 && strcmp(only, "without") != 0) {
		measure_size(dir, n); /* a prefilled store's rows are not the runs' */
	}
	free(without);
	free(with);
	free(without_pp);
	free(with_pp);
	return 0;
}
