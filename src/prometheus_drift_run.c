/* prometheus_drift_run.c - the frequency's trends from Prometheus into the
 * model (prometheus_drift_run.h).  Each answer sets the nodes' remote
 * trends (history.h) and their findings are judged again: the rules are
 * chrony's (chrony_rules.c), whatever the source. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrony_rules.h"
#include "drift_trend.h"
#include "health.h"
#include "log.h"
#include "prometheus_drift.h"
#include "prometheus_drift_run.h"
#include "prometheus_history.h"
#include "prometheus_source.h"
#include "walltime.h"
#include "xalloc.h"

/* Per window, the queries that ask it (prometheus_drift_plan): one per
 * server set and span among the nodes, so a --config group's own window
 * (chrony_drift_window_s, chrony_drift_min_span_s) is asked of its own
 * servers, with its own selector and naming. */
typedef struct {
	size_t *query_of;        /* each model node's query */
	prom_drift_key *keys;    /* each query's */
	size_t n_queries;
} drift_plan;

struct prom_drift_run {
	drift_plan plan[PROM_DRIFT_COUNT];
	size_t n_nodes;
	double week_asked_at;    /* NAN: never */
	size_t pending[PROM_DRIFT_COUNT];
	bool waiting;
};

/* One query of a window, asked in parts (the week's: a request per
 * family, so a server with several cores answers them side by side; the
 * hour's: one), judged once every part has answered.  Named by nodename,
 * node_uname_info is asked first, and the parts once it answered. */
typedef struct {
	app *a;
	size_t query;            /* in plan[w] */
	prom_drift_window w;
	const char *selector;
	const char *node_label;
	prom_drift_names names;  /* node_uname_info's, by instance */
	double now;              /* the instant asked */
	double asked_at;         /* walltime, for the log: the server's cost shows */
	size_t parts_left;
	bool failed;             /* a part had no answer */
	char error[512];         /* the first part's trouble, if any */
	prom_drift_result res;   /* the parts' answers so far */
} drift_ask;

static void make_plan(app *a, prom_drift_window w, const size_t *set_of, drift_plan *p)
{
	prom_drift_key *keys = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *keys);
	size_t *first = NULL;
	for (size_t i = 0; i < a->n_nodes; i++) {
		keys[i] = (prom_drift_key){set_of[i], prometheus_drift_span(w, &a->settings[i].th)};
	}
	p->query_of = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *p->query_of);
	p->n_queries = prometheus_drift_plan(keys, a->n_nodes, p->query_of, &first);
	p->keys = xcalloc(p->n_queries ? p->n_queries : 1, sizeof *p->keys);
	for (size_t q = 0; q < p->n_queries; q++) {
		p->keys[q] = keys[first[q]];
	}
	free(first);
	free(keys);
}

static struct prom_drift_run *run_of(app *a)
{
	if (!a->prom_drift) {
		struct prom_drift_run *r = xcalloc(1, sizeof *r);
		r->week_asked_at = NAN;
		r->n_nodes = a->n_nodes;
		size_t *set_of = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *set_of);
		for (size_t i = 0; i < a->n_nodes; i++) {
			prom_history_origin origin;
			prometheus_history_origin(a->conf, a->nodes[i].host, a->opt.n_prom_urls, a->opt.prom_selector,
						  a->opt.prom_node_label, &origin);
			set_of[i] = origin.set;
		}
		for (int w = 0; w < PROM_DRIFT_COUNT; w++) {
			make_plan(a, (prom_drift_window)w, set_of, &r->plan[w]);
		}
		free(set_of);
		a->prom_drift = r;
	}
	return a->prom_drift;
}

/* Who serves a set, for the log. */
static const char *set_name(const app *a, size_t set)
{
	if (a->opt.n_prom_urls && set == 0) {
		return "the command line's servers";
	}
	return a->prom_set_names[set - (a->opt.n_prom_urls ? 1 : 0)];
}

/* Whether the window's rule fires for this trend: the rules' own tests. */
static bool over(prom_drift_window w, double ppm, const thresholds *th)
{
	return w == PROM_DRIFT_HOUR ? chrony_drift_hourly_exceeds(ppm, th)
				    : drift_trend_exceeds(ppm, th->chrony_drift_daily_warn_ppm);
}

/* Every part of a query has answered: the nodes it serves judged. */
static void on_drift_answered(drift_ask *ask)
{
	app *a = ask->a;
	struct prom_drift_run *r = a->prom_drift;
	static const char *const names[] = {"hour", "week"};
	const char *error = ask->error[0] ? ask->error : NULL;
	r->pending[ask->w]--;
	size_t known = 0;
	if (ask->failed) {
		/* a part missing is no answer: a less trusted family's slope would
		 * stand in for the one that did not come */
		prometheus_drift_free(&ask->res);
	}
	prom_drift_result res = ask->res;
	if (ask->failed) {
		/* the trends turn unknown: a slope the server no longer gives is
		 * not judged from an older answer */
		log_printf("prometheus: drift (%s): %s", names[ask->w], error ? error : "no answer");
		if (a->opt.mode != MODE_LIVE) {
			/* not the source's error (no node's value is wrong), but said */
			fprintf(stderr, "synctop: --from-prometheus: the frequency's trend over the last %s: %s: "
					"chrony.drift%s not judged\n",
				names[ask->w], error ? error : "no answer", ask->w == PROM_DRIFT_WEEK ? "_daily" : "");
		}
	}
	for (size_t i = 0; i < r->n_nodes && i < a->n_nodes; i++) {
		if (r->plan[ask->w].query_of[i] != ask->query) {
			continue; /* another set or window serves it */
		}
		node *n = &a->nodes[i];
		double v = prometheus_drift_find(&res, n->host);
		double *field = ask->w == PROM_DRIFT_HOUR ? &n->history.remote_drift_hourly_ppm
							  : &n->history.remote_drift_daily_ppm;
		known += isfinite(v);
		if (*field == v || (isnan(*field) && isnan(v))) {
			continue;
		}
		const thresholds *th = &a->settings[i].th;
		bool judge = a->opt.mode != MODE_LIVE || over(ask->w, *field, th) != over(ask->w, v, th);
		*field = v;
		/* live, the slope moves a little at every answer: the node's next
		 * scrape judges it (as its other values); only a finding that comes
		 * or goes is judged now (every node's rules at every answer would
		 * be a refresh's rule work again; not measured) */
		if (judge) {
			health_apply(n, th);
		}
		tui_node_changed(a->tui, n);
	}
	if (!ask->failed) {
		const prom_drift_key *k = &r->plan[ask->w].keys[ask->query];
		log_printf("prometheus: drift (%s): %zu nodes with enough history, answered in %.3f s "
			   "(%g s window, %g s of history needed, from %s)%s%s",
			   names[ask->w], known, walltime_now() - ask->asked_at, k->span.range_s, k->span.min_span_s,
			   set_name(a, k->set), error ? "; " : "", error ? error : "");
	}
	prometheus_drift_free(&res);
	if (r->waiting && r->pending[PROM_DRIFT_HOUR] + r->pending[PROM_DRIFT_WEEK] == 0) {
		ev_break(a->loop, EVBREAK_ALL);
	}
	prometheus_drift_names_free(&ask->names);
	free(ask);
}

static void on_drift_answer(void *ctx, const prom_matrix *m, const char *error)
{
	drift_ask *ask = ctx;
	if (m) {
		prom_drift_result part;
		prometheus_drift_map_matrix(m, ask->node_label, &ask->names, &part);
		prometheus_drift_merge(&ask->res, &part);
		prometheus_drift_free(&part);
	} else {
		ask->failed = true;
	}
	if (error && !ask->error[0]) {
		snprintf(ask->error, sizeof ask->error, "%s", error);
	}
	if (--ask->parts_left == 0) {
		on_drift_answered(ask);
	}
}

/* The query's parts sent (the week's: a request per family, with its own
 * time); false when they do not fit. */
static bool send_parts(drift_ask *ask)
{
	app *a = ask->a;
	const prom_drift_key *k = &a->prom_drift->plan[ask->w].keys[ask->query];
	int n_parts = ask->w == PROM_DRIFT_WEEK ? PROM_DRIFT_FAMILIES : 1;
	char promql[PROM_DRIFT_FAMILIES][PROM_DRIFT_QUERY_MAX];
	for (int f = 0; f < n_parts; f++) {
		if (prometheus_drift_query(ask->w, k->span, n_parts > 1 ? f : PROM_DRIFT_ALL_FAMILIES, ask->selector,
					   promql[f], sizeof promql[f]) < 0) {
			return false;
		}
	}
	ask->parts_left = (size_t)n_parts;
	for (int f = 0; f < n_parts; f++) {
		/* a range of one instant: each series' value now */
		prometheus_source_query_range_within(a->source, k->set, promql[f], ask->now, ask->now, 60, 1,
						     ask->w == PROM_DRIFT_WEEK ? prometheus_drift_run_week_timeout(a) : 0,
						     on_drift_answer, ask);
	}
	return true;
}

/* node_uname_info's answer: the names, then the parts. */
static void on_names_answer(void *ctx, const prom_matrix *m, const char *error)
{
	drift_ask *ask = ctx;
	if (error) {
		snprintf(ask->error, sizeof ask->error, "%s", error);
	}
	if (m) {
		prometheus_drift_names_read(m, &ask->names);
		if (send_parts(ask)) {
			return;
		}
		snprintf(ask->error, sizeof ask->error, "the query does not fit");
	}
	ask->failed = true; /* named by nodename without the names: unknown */
	on_drift_answered(ask);
}

/* Window w asked of every set its nodes are served by, each with its own
 * selector and naming, once per span its nodes' groups set. */
static void ask_window(app *a, prom_drift_window w, double now)
{
	struct prom_drift_run *r = a->prom_drift;
	const drift_plan *p = &r->plan[w];
	for (size_t q = 0; q < p->n_queries; q++) {
		size_t set = p->keys[q].set;
		const char *selector = a->opt.prom_selector, *node_label = a->opt.prom_node_label;
		if (set > 0 || !a->opt.n_prom_urls) {
			const prometheus_server_set *s = &a->prom_sets[set - (a->opt.n_prom_urls ? 1 : 0)];
			selector = s->selector;
			node_label = s->node_label;
		}
		if (!prometheus_drift_span_askable(p->keys[q].span)) {
			/* the SSH rule would never judge it either */
			log_printf("prometheus: drift: a window of %g s needing %g s of history is never judged",
				   p->keys[q].span.range_s, p->keys[q].span.min_span_s);
			continue;
		}
		drift_ask *ask = xcalloc(1, sizeof *ask);
		ask->a = a;
		ask->query = q;
		ask->w = w;
		ask->selector = selector ? selector : "";
		ask->node_label = node_label;
		ask->now = now;
		ask->asked_at = walltime_now();
		char names[16384];
		if (node_label && strcmp(node_label, "nodename") == 0) {
			if (prometheus_drift_names_query(ask->selector, names, sizeof names) >= 0) {
				r->pending[w]++;
				prometheus_source_query_range_in(a->source, set, names, now, now, 60, 1, on_names_answer,
								 ask);
				continue;
			}
		} else if (send_parts(ask)) {
			r->pending[w]++;
			continue;
		}
		log_printf("prometheus: drift: the query does not fit");
		free(ask);
	}
}

double prometheus_drift_run_week_timeout(const app *a)
{
	return a->opt.timeout_s > PROM_DRIFT_WEEK_TIMEOUT_S ? a->opt.timeout_s : PROM_DRIFT_WEEK_TIMEOUT_S;
}

void prometheus_drift_run_ask(app *a, double now)
{
	if (!a->source || a->n_nodes == 0) {
		return;
	}
	struct prom_drift_run *r = run_of(a);
	if (r->pending[PROM_DRIFT_HOUR] == 0) {
		ask_window(a, PROM_DRIFT_HOUR, now);
	}
	if (r->pending[PROM_DRIFT_WEEK] == 0 && !(now - r->week_asked_at < PROM_DRIFT_WEEK_EVERY_S)) {
		r->week_asked_at = now;
		ask_window(a, PROM_DRIFT_WEEK, now);
	}
}

static void on_wait_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_break(loop, EVBREAK_ALL);
}

void prometheus_drift_run_wait(app *a, double timeout_s)
{
	struct prom_drift_run *r = a->prom_drift;
	if (!r) {
		return;
	}
	ev_timer deadline;
	if (r->pending[PROM_DRIFT_WEEK] > 0) {
		/* the week's own time, after node_uname_info's when named by it */
		timeout_s = prometheus_drift_run_week_timeout(a) + a->opt.timeout_s;
	}
	ev_timer_init(&deadline, on_wait_deadline, timeout_s + 0.5, 0); /* curl's own ends first */
	ev_timer_start(a->loop, &deadline);
	r->waiting = true;
	while (r->pending[PROM_DRIFT_HOUR] + r->pending[PROM_DRIFT_WEEK] > 0 && !a->interrupted &&
	       ev_is_active(&deadline)) {
		ev_run(a->loop, 0);
	}
	r->waiting = false;
	ev_timer_stop(a->loop, &deadline);
	if (r->pending[PROM_DRIFT_HOUR] + r->pending[PROM_DRIFT_WEEK] > 0) {
		log_printf("prometheus: drift: no answer within %.1f s: the trends stay unknown", timeout_s);
	}
}

void prometheus_drift_run_free(app *a)
{
	if (a->prom_drift) {
		for (int w = 0; w < PROM_DRIFT_COUNT; w++) {
			free(a->prom_drift->plan[w].query_of);
			free(a->prom_drift->plan[w].keys);
		}
		free(a->prom_drift);
		a->prom_drift = NULL;
	}
}
