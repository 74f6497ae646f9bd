/* prometheus_drift_run.c - the frequency's trends from Prometheus into the
 * model (prometheus_drift_run.h).  Each answer sets the nodes' remote
 * trends (history.h) and their findings are judged again: the rules are
 * chrony's (chrony_rules.c), whatever the source. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "log.h"
#include "prometheus_drift.h"
#include "prometheus_drift_run.h"
#include "prometheus_history.h"
#include "prometheus_source.h"
#include "walltime.h"
#include "xalloc.h"

struct prom_drift_run {
	size_t *set_of;          /* each model node's server set (prometheus_history_origin) */
	size_t n_nodes;
	double week_asked_at;    /* NAN: never */
	size_t pending[PROM_DRIFT_COUNT];
	bool waiting;
};

typedef struct {
	app *a;
	size_t set;
	prom_drift_window w;
	const char *node_label;
	double asked_at;         /* walltime, for the log: the server's cost shows */
} drift_ask;

static struct prom_drift_run *run_of(app *a)
{
	if (!a->prom_drift) {
		struct prom_drift_run *r = xcalloc(1, sizeof *r);
		r->week_asked_at = NAN;
		r->n_nodes = a->n_nodes;
		r->set_of = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *r->set_of);
		for (size_t i = 0; i < a->n_nodes; i++) {
			prom_history_origin origin;
			prometheus_history_origin(a->conf, a->nodes[i].host, a->opt.n_prom_urls, a->opt.prom_selector,
						  a->opt.prom_node_label, &origin);
			r->set_of[i] = origin.set;
		}
		a->prom_drift = r;
	}
	return a->prom_drift;
}

/* Whether a trend is known and over the drift rule's limit. */
static bool over(double ppm, double limit)
{
	return isfinite(ppm) && fabs(ppm) > limit;
}

static void on_drift_answer(void *ctx, const prom_matrix *m, const char *error)
{
	drift_ask *ask = ctx;
	app *a = ask->a;
	struct prom_drift_run *r = a->prom_drift;
	static const char *const names[] = {"hour", "week"};
	r->pending[ask->w]--;
	prom_drift_result res = {NULL, 0};
	size_t known = 0;
	if (m) {
		prometheus_drift_map_matrix(m, ask->node_label, &res);
	} else {
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
		if (r->set_of[i] != ask->set) {
			continue; /* another set serves it */
		}
		node *n = &a->nodes[i];
		double v = prometheus_drift_find(&res, n->host);
		double *field = ask->w == PROM_DRIFT_HOUR ? &n->history.remote_drift_hourly_ppm
							  : &n->history.remote_drift_daily_ppm;
		known += isfinite(v);
		if (*field == v || (isnan(*field) && isnan(v))) {
			continue;
		}
		double limit = ask->w == PROM_DRIFT_HOUR ? a->settings[i].th.chrony_drift_warn_ppm_per_hour
							 : a->settings[i].th.chrony_drift_daily_warn_ppm;
		bool judge = a->opt.mode != MODE_LIVE || over(*field, limit) != over(v, limit);
		*field = v;
		/* live, the slope moves a little at every answer: the node's next
		 * scrape judges it (as its other values); only a finding that comes
		 * or goes is judged now (every node's rules at every answer would
		 * be a refresh's rule work again; not measured) */
		if (judge) {
			health_apply(n, &a->settings[i].th);
		}
		tui_node_changed(a->tui, n);
	}
	if (m) {
		log_printf("prometheus: drift (%s): %zu nodes with enough history, answered in %.3f s%s%s",
			   names[ask->w], known, walltime_now() - ask->asked_at, error ? "; " : "", error ? error : "");
	}
	prometheus_drift_free(&res);
	if (r->waiting && r->pending[PROM_DRIFT_HOUR] + r->pending[PROM_DRIFT_WEEK] == 0) {
		ev_break(a->loop, EVBREAK_ALL);
	}
	free(ask);
}

/* Window w asked of every set, each with its own selector and naming. */
static void ask_window(app *a, prom_drift_window w, double now)
{
	struct prom_drift_run *r = a->prom_drift;
	size_t n_sets = (a->opt.n_prom_urls ? 1 : 0) + a->n_prom_sets;
	for (size_t set = 0; set < n_sets; set++) {
		const char *selector = a->opt.prom_selector, *node_label = a->opt.prom_node_label;
		if (set > 0 || !a->opt.n_prom_urls) {
			const prometheus_server_set *s = &a->prom_sets[set - (a->opt.n_prom_urls ? 1 : 0)];
			selector = s->selector;
			node_label = s->node_label;
		}
		char promql[16384];
		if (prometheus_drift_query(w, selector ? selector : "", node_label, promql, sizeof promql) < 0) {
			log_printf("prometheus: drift: the query does not fit");
			continue;
		}
		drift_ask *ask = xcalloc(1, sizeof *ask);
		*ask = (drift_ask){a, set, w, node_label, walltime_now()};
		r->pending[w]++;
		/* a range of one instant: each series' value now */
		prometheus_source_query_range_in(a->source, set, promql, now, now, 60, 1, on_drift_answer, ask);
	}
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
	ev_timer_init(&deadline, on_wait_deadline, timeout_s, 0);
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
		free(a->prom_drift->set_of);
		free(a->prom_drift);
		a->prom_drift = NULL;
	}
}
