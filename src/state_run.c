/* state_run.c - --state-dir in a live run (state_run.h). */
#include <config.h>

#include "state_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drift_trend.h"
#include "log.h"
#include "state_writer.h"
#include "walltime.h"
#include "xalloc.h"

struct state_run {
	state_run_config cfg;
	char dir[STATE_ERROR_LEN];
	node *nodes;
	size_t n_nodes;
	state_writer *writer;      /* NULL: no history this run */
	int64_t *ids;              /* per node: its row in the store's nodes */
	double *saved;             /* per node: the newest sample handed over */
	double *clock_saved;       /* per node: the newest clock check handed over */
	double *drift;             /* per node: the writer's latest trends ... */
	unsigned drift_gen;        /* ... and their generation */
	bool failing;              /* the writer's last write failed: retrying */
	state_writer_row *rows;    /* a feed round's samples, handed over at once */
	size_t n_rows, cap_rows;
	unsigned long dropped_told;
	size_t restored_samples, restored_events, restored_clock_checks;
	double restore_s;
};

static void tell(state_run *r, const char *what)
{
	char line[STATE_ERROR_LEN + 96];
	snprintf(line, sizeof line, "--state-dir: %s; running without history", what);
	log_printf("%s", line);
	if (r->cfg.trouble) {
		r->cfg.trouble(r->cfg.ctx, line);
	}
}

/* The writer keeps what it could not write and retries (state_writer.h):
 * told when it starts failing and when it writes again. */
static void on_writer_status(void *ctx, const char *err)
{
	state_run *r = ctx;
	r->failing = err != NULL;
	if (!err) {
		log_printf("--state-dir: writing history again");
		return;
	}
	char line[STATE_ERROR_LEN + 160];
	snprintf(line, sizeof line,
		 "--state-dir: %s; history is not written meanwhile, retried after %.0f s and then less often", err,
		 STATE_WRITER_RETRY_FIRST_S);
	log_printf("%s", line);
	if (r->cfg.trouble) {
		r->cfg.trouble(r->cfg.ctx, line);
	}
}

/* ------------------------------------------------------------ restoring */

/* A stored row back into its node's rings: a poll's sample, or a clock
 * check (only clock_check_s known). */
static void restore_sample(void *ctx, size_t index, const state_sample *x)
{
	state_run *r = ctx;
	history *h = &r->nodes[index].history;
	bool any = false;
	history_sample s = {.t = x->t};
	for (int i = 0; i < HISTORY_SERIES_COUNT; i++) {
		s.value[i] = x->value[i];
		any = any || isfinite(x->value[i]);
	}
	if (any) {
		history_push(h, &s);
		r->saved[index] = x->t;
		r->restored_samples++;
	} else if (isfinite(x->clock_check_s)) {
		history_push_clock(h, x->t, x->clock_check_s);
		r->clock_saved[index] = x->t;
		r->restored_clock_checks++;
	}
}

typedef struct {
	const char *host;
	uint32_t index;
} host_index;

static int by_host(const void *a, const void *b)
{
	return strcmp(((const host_index *)a)->host, ((const host_index *)b)->host);
}

typedef struct {
	event_log *log;
	host_index *hosts;
	size_t n_hosts;
	int64_t group_row;   /* the last group restored: its row ... */
	uint64_t group_id;   /* ... and its id in this run */
	size_t count;
} event_sink;

static void restore_event(void *ctx, int64_t row, const event *e, const char *host, int64_t group_row)
{
	event_sink *k = ctx;
	event copy = *e;
	if (host) {
		host_index key = {.host = host};
		const host_index *hit = bsearch(&key, k->hosts, k->n_hosts, sizeof *k->hosts, by_host);
		if (!hit) {
			return; /* a node no longer watched */
		}
		copy.node = hit->index;
	} else if (copy.node != EVENT_NODE_GROUP) {
		copy.node = EVENT_NODE_CLUSTER;
	}
	copy.group = group_row && group_row == k->group_row ? k->group_id : 0;
	uint64_t id = event_log_restore(k->log, &copy);
	if (copy.kind == EVENT_GROUP) {
		k->group_row = row;
		k->group_id = id;
	}
	k->count++;
}

static int restore(state_run *r, state_store *s, event_log *log)
{
	double now = walltime_now();
	/* what the rings can hold at this interval, and no more */
	double reach = HISTORY_CAPACITY * (r->cfg.interval_s > 1 ? r->cfg.interval_s : 1);
	if (state_store_load_history(s, r->ids, r->n_nodes, now - reach, restore_sample, r) != 0) {
		return -1;
	}
	if (!log) {
		return 0;
	}
	event_sink k = {.log = log, .n_hosts = r->n_nodes};
	k.hosts = xcalloc(r->n_nodes ? r->n_nodes : 1, sizeof *k.hosts);
	for (size_t i = 0; i < r->n_nodes; i++) {
		k.hosts[i].host = r->nodes[i].host;
		k.hosts[i].index = (uint32_t)i;
	}
	qsort(k.hosts, r->n_nodes, sizeof *k.hosts, by_host);
	double retention = r->cfg.limits.retention_s > 0 ? r->cfg.limits.retention_s : STATE_RETENTION_DEFAULT_S;
	int rc = state_store_load_events(s, now - retention, EVENT_LOG_DEFAULT_CAPACITY, restore_event, &k);
	r->restored_events = k.count;
	free(k.hosts);
	return rc;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

state_run *state_run_start(struct ev_loop *loop, const state_run_config *cfg, node *nodes, size_t n_nodes,
			   event_log *log)
{
	state_run *r = xcalloc(1, sizeof *r);
	r->cfg = *cfg;
	snprintf(r->dir, sizeof r->dir, "%s", cfg->dir);
	r->cfg.dir = r->dir;
	r->nodes = nodes;
	r->n_nodes = n_nodes;
	r->ids = xcalloc(n_nodes ? n_nodes : 1, sizeof *r->ids);
	r->saved = xcalloc(n_nodes ? n_nodes : 1, sizeof *r->saved);
	r->clock_saved = xcalloc(n_nodes ? n_nodes : 1, sizeof *r->clock_saved);

	char err[STATE_ERROR_LEN];
	double started = mono_now();
	state_store *s = state_store_open(r->dir, &cfg->limits, err, sizeof err);
	if (!s) {
		tell(r, err);
		return r;
	}
	int rc = state_store_begin(s);
	for (size_t i = 0; i < n_nodes && rc == 0; i++) {
		rc = state_store_node_id(s, nodes[i].host, &r->ids[i]);
	}
	if (rc == 0) {
		rc = state_store_commit(s);
	}
	if (rc == 0) {
		rc = restore(r, s, log);
	}
	if (rc != 0) {
		tell(r, state_store_error(s));
		state_store_close(s);
		return r;
	}
	r->restore_s = mono_now() - started;
	log_printf("--state-dir %s: %zu samples and %zu events restored in %.3f s (and %zu clock checks)", r->dir,
		   r->restored_samples, r->restored_events, r->restore_s, r->restored_clock_checks);
	r->writer = state_writer_new(loop, s, 0, on_writer_status, r);
	if (!r->writer) {
		tell(r, "cannot start the writer thread");
	} else {
		state_writer_track_drift(r->writer, r->ids, n_nodes);
		r->drift = xmalloc((n_nodes ? n_nodes : 1) * sizeof *r->drift);
	}
	return r;
}

bool state_run_active(const state_run *r)
{
	return r && r->writer;
}

const char *state_run_dir(const state_run *r)
{
	return state_run_active(r) ? r->dir : NULL;
}

static void add_row(state_run *r, int64_t id, const state_sample *x)
{
	if (r->n_rows == r->cap_rows) {
		r->cap_rows = r->cap_rows ? 2 * r->cap_rows : 1024;
		r->rows = xrealloc(r->rows, r->cap_rows * sizeof *r->rows);
	}
	r->rows[r->n_rows].node_id = id;
	r->rows[r->n_rows].x = *x;
	r->n_rows++;
}

static void feed_node(state_run *r, size_t i)
{
	const node *n = &r->nodes[i];
	const history *h = &n->history;
	size_t count = history_count(h), first = count;
	/* the samples newer than the last handed over, oldest first */
	while (first > 0 && history_at(h, first - 1)->t > r->saved[i]) {
		first--;
	}
	for (size_t k = first; k < count; k++) {
		const history_sample *hs = history_at(h, k);
		state_sample x = {.t = hs->t, .clock_check_s = NAN};
		memcpy(x.value, hs->value, sizeof x.value);
		add_row(r, r->ids[i], &x);
		r->saved[i] = hs->t;
	}
	/* the clock checks newer than the last handed over, the same way */
	count = history_clock_count(h);
	first = count;
	while (first > 0 && history_clock_at(h, first - 1)->t > r->clock_saved[i]) {
		first--;
	}
	for (size_t k = first; k < count; k++) {
		const history_clock_check *cc = history_clock_at(h, k);
		state_sample x = {.t = cc->t, .clock_check_s = cc->offset_s};
		for (int v = 0; v < HISTORY_SERIES_COUNT; v++) {
			x.value[v] = NAN;
		}
		add_row(r, r->ids[i], &x);
		r->clock_saved[i] = cc->t;
	}
	/* a source that sets the observation's check without the ring
	 * (--from-prometheus reads synctop's exported one) */
	const clock_check_obs *obs = &n->obs.clock;
	if (obs->state == OBS_OK && isfinite(obs->offset_s) && isfinite(obs->measured_at) &&
	    obs->measured_at > r->clock_saved[i]) {
		state_sample x = {.t = obs->measured_at, .clock_check_s = (float)obs->offset_s};
		for (int v = 0; v < HISTORY_SERIES_COUNT; v++) {
			x.value[v] = NAN;
		}
		add_row(r, r->ids[i], &x);
		r->clock_saved[i] = obs->measured_at;
	}
}

void state_run_feed_samples(state_run *r)
{
	if (!state_run_active(r)) {
		return;
	}
	r->n_rows = 0;
	for (size_t i = 0; i < r->n_nodes; i++) {
		feed_node(r, i);
	}
	state_writer_samples(r->writer, r->rows, r->n_rows);
	/* chrony.drift_daily's input, as the writer thread last computed it */
	unsigned gen = state_writer_drift(r->writer, r->drift_gen, r->drift, r->n_nodes);
	if (gen != r->drift_gen) {
		r->drift_gen = gen;
		for (size_t i = 0; i < r->n_nodes; i++) {
			r->nodes[i].history.drift_daily_ppm = r->drift[i];
		}
	}
	unsigned long dropped = state_writer_dropped(r->writer);
	if (dropped != r->dropped_told) {
		/* the log only: the writer catches up or the disk is hung */
		log_printf("--state-dir: the writer is behind: %lu samples or events not written in all", dropped);
		r->dropped_told = dropped;
	}
}

void state_run_feed_events(state_run *r, const event_log *log, size_t added)
{
	if (!state_run_active(r) || !log) {
		return;
	}
	size_t count = event_log_count(log);
	for (size_t i = count > added ? count - added : 0; i < count; i++) {
		const event *e = event_log_at(log, i);
		const char *host = e->node < r->n_nodes ? r->nodes[e->node].host : NULL;
		state_writer_event(r->writer, e, host);
	}
}

void state_run_read_drift(const char *dir, node *nodes, size_t n_nodes, state_run_trouble_fn trouble, void *ctx)
{
	char err[STATE_ERROR_LEN], line[STATE_ERROR_LEN + 64], path[STATE_ERROR_LEN + 32];
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	if (access(path, F_OK) != 0) {
		return; /* no live run has stored anything yet: every trend unknown */
	}
	state_store *s = state_store_open_reader(dir, err, sizeof err);
	size_t max = (size_t)(STATE_WRITER_DRIFT_SINCE_S / 60) + 120;
	double *t = xmalloc(max * sizeof *t), *ppm = xmalloc(max * sizeof *ppm);
	double since = walltime_now() - STATE_WRITER_DRIFT_SINCE_S;
	for (size_t i = 0; s && i < n_nodes; i++) {
		int64_t id;
		int found = state_store_find_node(s, nodes[i].host, &id);
		int got = found == 1 ? state_store_frequency(s, id, since, t, ppm, max) : found;
		if (got < 0) {
			snprintf(err, sizeof err, "%s", state_store_error(s));
			state_store_close(s);
			s = NULL;
			break;
		}
		nodes[i].history.drift_daily_ppm =
			got > 0 ? drift_trend_ppm_per_day(t, ppm, (size_t)got, DRIFT_TREND_MIN_SPAN_S) : NAN;
	}
	if (!s) {
		snprintf(line, sizeof line, "--state-dir: %s; no frequency trend", err);
		log_printf("%s", line);
		if (trouble) {
			trouble(ctx, line);
		}
	}
	state_store_close(s);
	free(t);
	free(ppm);
}

void state_run_restored(const state_run *r, size_t *samples, size_t *events, double *seconds)
{
	*samples = r ? r->restored_samples : 0;
	*events = r ? r->restored_events : 0;
	*seconds = r ? r->restore_s : 0;
}

void state_run_free(state_run *r, double grace)
{
	if (!r) {
		return;
	}
	state_writer_free(r->writer, grace);
	free(r->ids);
	free(r->saved);
	free(r->clock_saved);
	free(r->drift);
	free(r->rows);
	free(r);
}
