/* prometheus_run.c - a run whose nodes come from Prometheus servers
 * (--from-prometheus, or --config groups with "prometheus"): the source's
 * refreshes become the model through node_update, as an SSH poll's answers
 * do; then the one report, or the live view with its refresh timer and the
 * drill-down's 24 h history from query_range. */
#include <config.h>

#include <ev.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "exit_codes.h"
#include "inventory.h"
#include "log.h"
#include "node_update.h"
#include "prometheus_drift_run.h"
#include "prometheus_history.h"
#include "prometheus_run.h"
#include "prometheus_source.h"
#include "remote_history.h"
#include "report_check.h"
#include "scheduler.h"
#include "ssh_detail.h"
#include "ssh_detail_run.h"
#include "walltime.h"
#include "xalloc.h"

typedef struct {
	const char *name;
	size_t index; /* in the map */
} prom_node_ref;

/* Why a node is missing from a refresh's answer: the source's trouble when
 * it had some (the node may be fine; the answer about it did not come). */
static void prometheus_node_missing(node *n, const thresholds *th, const char *source_error, size_t answered)
{
	char why[sizeof n->error];
	if (!source_error[0]) {
		node_update_unreachable(n, "not in Prometheus's answer: no series names this node", th);
		return;
	}
	snprintf(why, sizeof why, "%s: %.*s",
		 answered ? "not in Prometheus's answer, which was incomplete" : "no usable answer from Prometheus",
		 (int)sizeof why - 64, source_error);
	node_update_unreachable(n, why, th);
}

/* What one refresh says about one node, through node_update as an SSH
 * poll's answer; pn NULL: no series names it (a->source_error says whether
 * the answer was whole). */
static void apply_prometheus_node(app *a, node *n, const prom_node *pn, const thresholds *th)
{
	if (!pn) {
		prometheus_node_missing(n, th, a->source_error, a->source_answered);
		return;
	}
	/* the same scrape seen again is no new observation (no history point) */
	bool fresh = !n->has_observation || !n->reachable || pn->obs.taken_at != n->obs.taken_at;
	if (pn->has_data && fresh) {
		observation obs = pn->obs;
		node_update_observation(n, &obs, th);
	}
	if (pn->error[0]) {
		node_update_unreachable(n, pn->error, th);
	}
}

static int compare_prom_nodes(const void *x, const void *y)
{
	const prom_node_ref *a = x, *b = y;
	return strcmp(a->name, b->name);
}

/* How many nodes are taken from the map between two hand-backs of its
 * memory (prometheus_map_release_before): a few MB at a time. */
#define PROM_RELEASE_EVERY 64

/* The model from the source's nodes: the inventory's when hosts, -w or -f
 * name them (a node Prometheus does not know is unknown), else every node
 * Prometheus knows, by name.  Each enters through node_update as an SSH
 * poll's answer does; without an inventory they are taken in the map's
 * order (a map of several server sets holds its nodes whole: its memory is
 * handed back as they go; a single set's are put together one at a time). */
static void build_prometheus_model(app *a, prom_map *map)
{
	prom_node_ref *order = xcalloc(map->n_nodes ? map->n_nodes : 1, sizeof *order);
	for (size_t i = 0; i < map->n_nodes; i++) {
		order[i].name = prometheus_map_name(map, i);
		order[i].index = i;
	}
	qsort(order, map->n_nodes, sizeof *order, compare_prom_nodes);
	a->n_nodes = a->inv.count ? a->inv.count : map->n_nodes;
	a->nodes = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->nodes);
	a->settings = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->settings);
	if (a->inv.count) {
		for (size_t i = 0; i < a->n_nodes; i++) {
			node *n = &a->nodes[i];
			node_init(n, a->inv.specs[i].name);
			history_set_capacity(&n->history, PROMETHEUS_NODE_HISTORY);
			a->settings[i] = a->inv.specs[i].settings;
			apply_prometheus_node(a, n, prometheus_map_find(map, a->inv.specs[i].name), &a->settings[i].th);
		}
		free(order);
		return;
	}
	size_t *rank = xcalloc(map->n_nodes ? map->n_nodes : 1, sizeof *rank);
	for (size_t k = 0; k < map->n_nodes; k++) {
		rank[order[k].index] = k;
	}
	free(order);
	for (size_t j = 0; j < map->n_nodes; j++) {
		const prom_node *pn = prometheus_map_node(map, j);
		size_t i = rank[j];
		node_init(&a->nodes[i], pn->name);
		history_set_capacity(&a->nodes[i].history, PROMETHEUS_NODE_HISTORY);
		inventory_node_settings(&a->opt, a->conf, pn->name, &a->settings[i]);
		apply_prometheus_node(a, &a->nodes[i], pn, &a->settings[i].th);
		if ((j + 1) % PROM_RELEASE_EVERY == 0) {
			prometheus_map_release_before(map, j + 1);
		}
	}
	free(rank);
}

static const node *source_sort_nodes; /* compare_node_index's, during one qsort */

static int compare_node_index(const void *x, const void *y)
{
	return strcmp(source_sort_nodes[*(const size_t *)x].host, source_sort_nodes[*(const size_t *)y].host);
}

/* The first model index whose host is name, or n_nodes. */
static size_t model_lookup(const app *a, const char *name)
{
	size_t lo = 0, hi = a->n_nodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(a->nodes[a->source_by_name[mid]].host, name) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* Later refreshes (live): the nodes of the first one, by name, taken in the
 * map's order as the first build does.  Nodes that appear later are not
 * added (the grid's rows are fixed): logged. */
static void update_prometheus_model(app *a, prom_map *map)
{
	size_t known = 0, matched = 0;
	if (!a->source_by_name) {
		a->source_by_name = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->source_by_name);
		for (size_t i = 0; i < a->n_nodes; i++) {
			a->source_by_name[i] = i;
		}
		source_sort_nodes = a->nodes;
		qsort(a->source_by_name, a->n_nodes, sizeof *a->source_by_name, compare_node_index);
	}
	if (!a->source_digest) {
		a->source_digest = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->source_digest);
		a->source_taken_at = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->source_taken_at);
	}
	bool *seen = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *seen);
	size_t same = 0;
	for (size_t j = 0; j < map->n_nodes; j++) {
		const char *name = prometheus_map_name(map, j);
		const prom_node *pn = NULL;
		uint64_t digest = prometheus_map_digest(map, j);
		bool any = false;
		/* the same host twice in an inventory: both rows */
		for (size_t k = model_lookup(a, name);
		     k < a->n_nodes && strcmp(a->nodes[a->source_by_name[k]].host, name) == 0; k++) {
			size_t i = a->source_by_name[k];
			node *n = &a->nodes[i];
			seen[i] = true;
			matched++;
			any = true;
			/* the samples it was last updated from, known then and still
			 * (not stale now): applying them again changes nothing */
			if (digest && a->source_digest[i] == digest && n->reachable && n->has_observation &&
			    n->obs.taken_at == a->source_taken_at[i] && !prometheus_map_stale(map, n->obs.taken_at)) {
				same++;
				continue;
			}
			if (!pn) {
				pn = prometheus_map_node(map, j);
			}
			apply_prometheus_node(a, n, pn, &a->settings[i].th);
			tui_node_changed(a->tui, n);
			bool known_now = pn->has_data && !pn->error[0] && n->reachable;
			a->source_digest[i] = known_now ? digest : 0;
			a->source_taken_at[i] = n->obs.taken_at;
		}
		known += any;
		if ((j + 1) % PROM_RELEASE_EVERY == 0) {
			prometheus_map_release_before(map, j + 1);
		}
	}
	for (size_t i = 0; i < a->n_nodes && matched < a->n_nodes; i++) {
		if (!seen[i]) {
			apply_prometheus_node(a, &a->nodes[i], NULL, &a->settings[i].th);
			tui_node_changed(a->tui, &a->nodes[i]);
			a->source_digest[i] = 0;
		}
	}
	free(seen);
	tui_source_refreshed(a->tui); /* "updated" in the header, whatever changed */
	log_printf("prometheus: %zu of %zu nodes as at the last refresh (samples unchanged, not stale)", same,
		   a->n_nodes);
	if (map->n_nodes > known && !a->inv.count) {
		log_printf("prometheus: %zu nodes appeared after start; restart synctop to show them",
			   map->n_nodes - known);
	}
}

static void on_prometheus_refresh(void *ctx, prom_map *map, const char *error, size_t answered)
{
	app *a = ctx;
	bool first = !a->source_done;
	/* the header shows it while it lasts; a plain live table says it
	 * when it changes, and when it is over */
	tui_set_source_error(a->tui, error);
	if (error && !first && !a->tui && strcmp(error, a->source_error) != 0) {
		fprintf(stderr, "synctop: --from-prometheus: %s\n", error);
	} else if (!error && a->source_error[0]) {
		log_printf("prometheus: every server answered again");
		if (!a->tui) {
			fprintf(stderr, "synctop: --from-prometheus: every server answered again\n");
		}
	}
	snprintf(a->source_error, sizeof a->source_error, "%s", error ? error : "");
	a->source_answered = answered;
	a->source_done = true;
	if (first) {
		build_prometheus_model(a, map);
		ev_break(a->loop, EVBREAK_ALL);
	} else {
		update_prometheus_model(a, map);
	}
}

/* ------------------------------------------ a drill-down's 24 h history */

typedef struct {
	app *a;
	size_t node_index;
	remote_series_id id;
} history_ask;

/* One quantity's answer: into the node's remote history (the model), the
 * drill-down redrawn.  A failure is a line there, never more. */
static void on_history_answer(void *ctx, const prom_matrix *m, const char *error)
{
	history_ask *ask = ctx;
	node *n = &ask->a->nodes[ask->node_index];
	remote_history *h = n->remote;
	const char *what = NULL;
	const prom_series *s = m ? prometheus_history_pick(m, &what) : NULL;
	if (s) {
		remote_history_set(h, ask->id, s->t, s->v, s->n_points, what);
	} else if (error && !h->error[0]) {
		snprintf(h->error, sizeof h->error, "%s", error);
	}
	if (--h->pending == 0) {
		bool any = false;
		for (int id = 0; id < REMOTE_SERIES_COUNT; id++) {
			any |= h->series[id].t != NULL;
		}
		h->state = any || !h->error[0] ? REMOTE_HISTORY_READY : REMOTE_HISTORY_FAILED;
	}
	static const char *const names[] = {"offset", "frequency", "PTP offset"};
	_Static_assert(sizeof names / sizeof names[0] == REMOTE_SERIES_COUNT, "a name per series");
	log_printf("prometheus: %s: %s history: %s", n->host, names[ask->id],
		   s ? "answered" : error ? error : "no series");
	tui_node_changed(ask->a->tui, n);
	free(ask);
}

/* A drill-down opened: its node's last 24 h from Prometheus, about one
 * point per plot column, unless asked within the last minute or still
 * coming. */
static void on_detail_open(void *ctx, size_t node_index, int plot_columns)
{
	app *a = ctx;
	double now = walltime_now();
	if (!a->source || node_index >= a->n_nodes) {
		return;
	}
	node *n = &a->nodes[node_index];
	if (n->remote && (n->remote->pending > 0 || now - n->remote->asked_at < 60)) {
		return;
	}
	remote_history_free(n->remote);
	/* the y axis's labels take about a dozen of the columns */
	int points = plot_columns - 12 > 20 ? plot_columns - 12 : 20;
	double step = prometheus_history_step(PROM_HISTORY_RANGE_S, points);
	n->remote = remote_history_new(now, prometheus_history_start(now, PROM_HISTORY_RANGE_S, step), now, step);
	/* the servers that serve the node, named as they name it */
	prom_history_origin origin;
	prometheus_history_origin(a->conf, n->host, a->opt.n_prom_urls, a->opt.prom_selector, a->opt.prom_node_label,
				  &origin);
	for (int id = 0; id < REMOTE_SERIES_COUNT; id++) {
		char promql[PROM_HISTORY_QUERY_MAX];
		if (prometheus_history_query((remote_series_id)id, n->host, origin.node_label, origin.selector, promql,
					     sizeof promql) < 0) {
			snprintf(n->remote->error, sizeof n->remote->error,
				 "no history query for this node (named by %s)",
				 origin.node_label ? origin.node_label : "instance");
			continue;
		}
		history_ask *ask = xcalloc(1, sizeof *ask);
		ask->a = a;
		ask->node_index = node_index;
		ask->id = (remote_series_id)id;
		n->remote->pending++;
		prometheus_source_query_range_in(a->source, origin.set, promql, n->remote->start, n->remote->end, step,
						 PROM_HISTORY_MAX_POINTS, on_history_answer, ask);
	}
	if (n->remote->pending == 0) {
		n->remote->state = REMOTE_HISTORY_FAILED;
	}
	tui_node_changed(a->tui, n);
}

/* ------------------------------------------- a node's detail over SSH */

/* `S` in a drill-down: the node, by its name, polled once over SSH. */
static void on_ssh_detail_key(void *ctx, size_t node_index, char *msg, size_t msg_len)
{
	app *a = ctx;
	size_t busy = 0;
	if (node_index >= a->n_nodes) {
		snprintf(msg, msg_len, "no such node");
		return;
	}
	/* under the dashboard: ssh-add cannot ask a passphrase (an agent can) */
	if (ssh_detail_run_ask(a, &node_index, 1, false, &busy) == 0) {
		snprintf(msg, msg_len, "%.100s: the SSH poll asked for is still running", a->nodes[node_index].host);
		return;
	}
	snprintf(msg, msg_len, "%.100s: polling once over SSH (below Prometheus's view)", a->nodes[node_index].host);
}

/* --ssh-detail HOSTLIST: the model's nodes it names, polled once over
 * SSH; a name Prometheus did not give is said on stderr. */
static void ask_listed_details(app *a)
{
	char err[256];
	size_t n = 0, unknown = 0;
	if (!a->opt.ssh_detail || a->n_nodes == 0) {
		return;
	}
	size_t *idx = ssh_detail_run_select(a, a->opt.ssh_detail, &n, &unknown, err, sizeof err);
	if (!idx) {
		fprintf(stderr, "synctop: --ssh-detail: %s\n", err); /* checked by cli.c: not reached */
		return;
	}
	if (unknown) {
		fprintf(stderr, "synctop: --ssh-detail: %zu of its names %s not among the nodes Prometheus gave\n",
			unknown, unknown == 1 ? "is" : "are");
	}
	/* before any screen: ssh-add may ask for passphrases */
	ssh_detail_run_ask(a, idx, n, true, NULL);
	free(idx);
}

/* Live: a refresh every interval (the dashboard's +/- change it, p pauses;
 * r does not reach Prometheus), never two at once. */
static void on_source_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	double now = ev_now(loop);
	if (scheduler_paused(a->sched) || now - a->source_last < scheduler_interval(a->sched)) {
		return;
	}
	if (prometheus_source_refresh(a->source)) {
		a->source_last = now;
		prometheus_drift_run_ask(a, walltime_now()); /* the hour's at every refresh, the week's less often */
	}
}

/* Live: the dashboard, or a plain table every interval, over the nodes of
 * the first refresh.  The dashboard's interval and pause live in a
 * scheduler with no nodes: the source reads them from there. */
static int run_live(app *a)
{
	int status = EXIT_SUCCESS;
	bool use_tui = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	scheduler_config cfg;
	scheduler_config_init(&cfg);
	cfg.interval_s = a->opt.interval_s;
	cfg.on_all_done = app_on_nothing;
	a->sched = scheduler_new(a->loop, &cfg);
	a->source_last = ev_now(a->loop);
	ev_timer_init(&a->source_timer, on_source_timer, 1.0, 1.0);
	a->source_timer.data = a;
	ev_timer_start(a->loop, &a->source_timer);
	ev_timer_init(&a->cluster_timer, app_on_cluster_timer, 1.0, 1.0);
	a->cluster_timer.data = a;
	ev_timer_start(a->loop, &a->cluster_timer);
	if (app_start_events(a) != 0) {
		return EX_SOFTWARE;
	}
	app_start_state(a);
	app_wait_findings(a, use_tui); /* from the next refresh on */
	app_evaluate_cluster(a);
	ask_listed_details(a);
	if (use_tui) {
		tui_options topt = {a->opt.theme, a->opt.no_color, a->opt.no_mouse};
		ev_signal_stop(a->loop, &a->sigint); /* the TUI watches its own */
		ev_signal_stop(a->loop, &a->sigterm);
		ev_signal_stop(a->loop, &a->sighup);
		a->tui = tui_new(&topt);
		tui_set_events(a->tui, a->events);
		if (a->state) {
			tui_set_history(a->tui, state_run_active(a->state) ? state_run_dir(a->state) : "");
		}
		tui_set_detail_hook(a->tui, on_detail_open, a);
		tui_set_ssh_detail_hook(a->tui, on_ssh_detail_key, a);
		tui_set_source_error(a->tui, a->source_error);
		status = tui_run(a->tui, a->loop, a->nodes, a->n_nodes, a->sched);
		if (status != TUI_NO_TERMINAL) {
			return status;
		}
		tui_free(a->tui);
		a->tui = NULL;
		status = EXIT_SUCCESS;
		app_wait_findings(a, false);
		app_watch_signals(a);
	}
	app_start_print_timer(a);
	app_on_print_timer(a->loop, &a->print_timer, 0); /* the first table now */
	ev_run(a->loop, 0);
	return a->interrupted ? SYNCTOP_EXIT_INTERRUPTED : status;
}

static void on_first_answer_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_break(loop, EVBREAK_ALL);
}

/* Live without a host list, the rows are the nodes of the first answer: a
 * server that is down or restarting at start would leave the grid empty for
 * good.  So ask again every interval (saying so on stderr, before any
 * screen) until a server answers or the user gives up. */
static void wait_first_answer(app *a)
{
	ev_timer retry;
	while (a->source_answered == 0 && !a->interrupted) {
		fprintf(stderr, "synctop: --from-prometheus: no usable answer yet: asking again in %.3g s\n",
			a->opt.interval_s);
		ev_timer_init(&retry, on_first_answer_retry, a->opt.interval_s, 0);
		ev_timer_start(a->loop, &retry);
		ev_run(a->loop, 0);
		ev_timer_stop(a->loop, &retry);
		if (a->interrupted) {
			return;
		}
		/* nothing answered: no nodes were made (map was empty) */
		free(a->nodes);
		free(a->settings);
		a->nodes = NULL;
		a->settings = NULL;
		a->n_nodes = 0;
		a->source_done = false;
		prometheus_source_refresh(a->source);
		if (!a->source_done) {
			ev_run(a->loop, 0);
		}
		if (!a->source_done) {
			prometheus_source_give_up(a->source, "interrupted before Prometheus answered");
		}
		if (a->source_error[0]) {
			fprintf(stderr, "synctop: --from-prometheus: %s\n", a->source_error);
		}
	}
}

static void on_prometheus_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	char why[128];
	snprintf(why, sizeof why, "no answer within the %.1f s deadline (--timeout)", a->opt.timeout_s);
	prometheus_source_give_up(a->source, why);
}

size_t prometheus_run_config_groups(const conffile *conf)
{
	size_t n = 0;
	for (size_t i = 0; i < conffile_group_count(conf); i++) {
		n += conffile_group_prometheus(conf, i) != NULL;
	}
	return n;
}

/* A node belongs to the first group naming it (conffile_resolve): a group's
 * servers serve that group's nodes; the command line's, every node whose
 * group has no servers of its own. */
static bool keep_prometheus_node(void *ctx, const char *name)
{
	const struct prom_keep *k = ctx;
	node_settings ns;
	int g = conffile_resolve(k->conf, name, &ns);
	if (k->group >= 0) {
		return g == k->group;
	}
	return g < 0 || conffile_group_prometheus(k->conf, (size_t)g) == NULL;
}

/* The server sets of the configuration's groups (a->prom_sets). */
static void config_prometheus_sets(app *a)
{
	size_t n = conffile_group_count(a->conf);
	a->prom_sets = xcalloc(n + 1, sizeof *a->prom_sets);
	a->prom_keeps = xcalloc(n + 1, sizeof *a->prom_keeps);
	a->prom_set_names = xcalloc(n + 1, sizeof *a->prom_set_names);
	a->prom_keeps[n].conf = a->conf;
	a->prom_keeps[n].group = -1; /* the command line's */
	a->n_source_urls = a->opt.n_prom_urls;
	for (size_t i = 0; i < n; i++) {
		const conffile_prometheus *cp = conffile_group_prometheus(a->conf, i);
		if (cp) {
			a->n_source_urls += cp->n_urls;
		}
	}
	a->source_urls = xcalloc(a->n_source_urls + 1, sizeof *a->source_urls);
	size_t u = 0;
	for (size_t i = 0; i < a->opt.n_prom_urls; i++) {
		a->source_urls[u++] = a->opt.prom_urls[i];
	}
	for (size_t i = 0; i < n; i++) {
		const conffile_prometheus *cp = conffile_group_prometheus(a->conf, i);
		if (!cp) {
			continue;
		}
		prometheus_server_set *set = &a->prom_sets[a->n_prom_sets];
		char *name = a->prom_set_names[a->n_prom_sets];
		snprintf(name, sizeof a->prom_set_names[0], "--config group \"%.60s\"", conffile_group_name(a->conf, i));
		a->prom_keeps[i].conf = a->conf;
		a->prom_keeps[i].group = (int)i;
		*set = (prometheus_server_set){
			name, (const char *const *)cp->urls, cp->n_urls, cp->selector, cp->node_label, cp->ca,
			cp->token_file, cp->basic_auth_file, keep_prometheus_node, &a->prom_keeps[i],
		};
		a->n_prom_sets++;
		for (size_t k = 0; k < cp->n_urls; k++) {
			a->source_urls[u++] = cp->urls[k];
		}
	}
}

/* One refresh from the Prometheus servers, then the one report or the
 * live view. */
int prometheus_run(app *a)
{
	char err[512];
	prometheus_source_config cfg = {
		.urls = (const char *const *)a->opt.prom_urls,
		.n_urls = a->opt.n_prom_urls,
		.selector = a->opt.prom_selector,
		.node_label = a->opt.prom_node_label,
		.timeout_s = a->opt.timeout_s,
		.stale_after_s = a->opt.prom_stale_s,
		.ca_file = a->opt.prom_ca,
		.bearer_token_file = a->opt.prom_bearer_token_file,
		.basic_auth_file = a->opt.prom_basic_auth_file,
		.on_refresh = on_prometheus_refresh,
		.ctx = a,
	};
	config_prometheus_sets(a);
	cfg.sets = a->prom_sets;
	cfg.n_sets = a->n_prom_sets;
	if (a->n_prom_sets > 0) {
		/* the command line's servers serve the nodes no group's do */
		cfg.keep = keep_prometheus_node;
		cfg.keep_ctx = &a->prom_keeps[conffile_group_count(a->conf)];
	}
	a->source = prometheus_source_new(a->loop, &cfg, err, sizeof err);
	if (!a->source) {
		fprintf(stderr, "synctop: %s\n", err);
		return EX_USAGE;
	}
	app_watch_signals(a);
	/* the requests have their own deadline; this one is the last resort */
	ev_timer_init(&a->overall_deadline, on_prometheus_deadline, a->opt.timeout_s + 1.0, 0);
	a->overall_deadline.data = a;
	ev_timer_start(a->loop, &a->overall_deadline);
	prometheus_source_refresh(a->source);
	if (!a->source_done) {
		ev_run(a->loop, 0);
	}
	if (!a->source_done) {
		prometheus_source_give_up(a->source, "interrupted before Prometheus answered");
	}
	ev_timer_stop(a->loop, &a->overall_deadline);
	if (a->source_error[0]) {
		fprintf(stderr, "synctop: --from-prometheus: %s\n", a->source_error);
	}
	if (a->opt.mode == MODE_LIVE && !a->inv.count) {
		wait_first_answer(a);
	}
	if (a->opt.mode == MODE_LIVE && !a->interrupted) {
		prometheus_drift_run_ask(a, walltime_now());
		return run_live(a);
	}
	if (!a->interrupted && a->source_answered > 0) {
		/* the frequency's trends, beside the SSH details */
		prometheus_drift_run_ask(a, walltime_now());
		/* --once --json --ssh-detail: the listed nodes over SSH, within
		 * their own --timeout (the Prometheus answer is in) */
		ask_listed_details(a);
		ssh_detail_run_wait(a, a->opt.timeout_s);
		prometheus_drift_run_wait(a, a->opt.timeout_s);
	}
	app_evaluate_cluster(a);
	int status = app_report_once(a, EXIT_SUCCESS);
	if (a->interrupted) {
		return SYNCTOP_EXIT_INTERRUPTED;
	}
	if (a->source_answered == 0) {
		/* no server answered anything: the report says nothing */
		return a->opt.mode == MODE_CHECK ? REPORT_CHECK_UNKNOWN : EX_UNAVAILABLE;
	}
	if (a->source_error[0] && a->opt.mode == MODE_CHECK && status != REPORT_CHECK_CRIT) {
		return REPORT_CHECK_UNKNOWN; /* part of the fleet went unseen */
	}
	return status;
}
