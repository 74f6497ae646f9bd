/* ssh_detail_run.c - Prometheus nodes polled once over SSH (ssh_detail_run.h). */
#include <config.h>

#include "ssh_detail_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "local_transport.h"
#include "log.h"
#include "probe.h"
#include "resolver.h"
#include "ssh_detail.h"
#include "ssh_transport.h"
#include "walltime.h"
#include "xalloc.h"

/* One node's poll: its own scheduler (once mode), polling detail->node. */
typedef struct detail_poll {
	app *a;
	size_t node_index;
	ssh_detail *detail;
	scheduler *sched;
	bool done;
	struct detail_batch *batch;
} detail_poll;

/* One request's nodes and the inventory their specs live in; freed when
 * every poll of it has finished. */
typedef struct detail_batch {
	inventory inv;
	detail_poll *polls;
	size_t n;
	size_t n_done;
	struct detail_batch *next;
} detail_batch;

struct ssh_detail_run {
	detail_batch *batches;
	size_t pending;
	bool waiting;                 /* ssh_detail_run_wait: break when none is pending */
	ssh_detail **retired;         /* replaced while their batch was alive */
	size_t n_retired;
	char command[PROBE_COMMAND_MAX];
};

static void on_poll_done(void *ctx)
{
	detail_poll *p = ctx;
	ssh_detail_run *r = p->a->detail_run;
	if (p->done) {
		return;
	}
	p->done = true;
	p->batch->n_done++;
	r->pending--;
	ssh_detail_finish(p->detail, walltime_now());
	node *n = &p->a->nodes[p->node_index];
	log_printf("ssh detail: %s: %s", n->host,
		   node_answered(&p->detail->node) ? "answered" : p->detail->node.error);
	tui_node_changed(p->a->tui, n);
	if (r->waiting && r->pending == 0) {
		ev_break(p->a->loop, EVBREAK_ALL);
	}
}

/* The SSH node changed (a connection event, an answer): the drill-down of
 * its Prometheus node shows it. */
static void on_poll_update(void *ctx, node *changed)
{
	detail_poll *p = ctx;
	(void)changed;
	tui_node_changed(p->a->tui, &p->a->nodes[p->node_index]);
}

static ssh_detail_run *run_new(app *a)
{
	ssh_detail_run *r = xcalloc(1, sizeof *r);
	if (probe_command(r->command, sizeof r->command) < 0) {
		r->command[0] = '\0'; /* every poll then fails with a word */
	}
	/* libssh2's names are resolved off the loop (resolver.h) */
	if (resolver_init(a->loop) != 0) {
		log_printf("ssh detail: cannot start the resolver thread");
	}
	return r;
}

static void batch_free(detail_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		scheduler_free(b->polls[i].sched);
	}
	inventory_free(&b->inv);
	free(b->polls);
	free(b);
}

/* Batches whose polls have all finished, and the details replaced while
 * they ran: freed here, outside any of their callbacks. */
static void sweep(ssh_detail_run *r, bool all)
{
	detail_batch **link = &r->batches;
	while (*link) {
		detail_batch *b = *link;
		if (all || b->n_done == b->n) {
			*link = b->next;
			batch_free(b);
		} else {
			link = &b->next;
		}
	}
	if (!all && r->batches) {
		return; /* a retired detail may still be some live scheduler's model */
	}
	for (size_t i = 0; i < r->n_retired; i++) {
		ssh_detail_free(r->retired[i]);
	}
	free(r->retired);
	r->retired = NULL;
	r->n_retired = 0;
}

/* The poll's transport, as start_engine (main.c) makes a node's. */
static transport *poll_transport(app *a, ssh_detail_run *r, const node_spec *spec, sched_node *sn)
{
	if (spec->local) {
		const char *argv[] = {"/bin/sh", "-c", probe_script(), NULL};
		return local_transport_new(a->loop, argv, scheduler_transport_events(), sn);
	}
	if (spec->settings.transport != NODE_TRANSPORT_LIBSSH2) {
		return app_exec_transport(a, spec, r->command, sn);
	}
	return ssh_transport_new(a->loop, &spec->ssh, r->command, scheduler_transport_events(), sn);
}

/* The inventory of names[0..n), as an SSH run would build it from the same
 * command line (its -l, -p, -i, -F, --known-hosts, --transport, -J) and
 * --config.  Returns 0, or -1 with err. */
static int build_inventory(app *a, const char *const *names, size_t n, inventory *inv, char *err, size_t err_len)
{
	cli_options o = a->opt;
	o.hosts = (char **)names;
	o.n_hosts = n;
	o.hostlists = NULL;
	o.n_hostlists = 0;
	o.host_files = NULL;
	o.n_host_files = 0;
	o.local = false;
	return inventory_build(&o, a->conf, inv, err, err_len);
}

static void start_poll(app *a, ssh_detail_run *r, detail_batch *b, size_t k, const node_spec *spec,
		       const char *spec_error)
{
	detail_poll *p = &b->polls[k];
	node *n = &a->nodes[p->node_index];
	scheduler_config cfg;
	app_scheduler_config(a, &cfg);
	cfg.once = true;
	cfg.on_all_done = on_poll_done;
	cfg.on_update = on_poll_update;
	cfg.ctx = p;
	p->sched = scheduler_new(a->loop, &cfg);
	/* the node's group's thresholds; judged now, as --once does: one poll
	 * has no `for` to wait */
	node_settings ns = a->settings[p->node_index];
	ns.th.findings_wait = false;
	sched_node *sn = scheduler_add(p->sched, &p->detail->node, &ns);
	transport *t = spec && r->command[0] ? poll_transport(a, r, spec, sn) : NULL;
	if (t) {
		scheduler_attach(sn, t);
	} else {
		scheduler_mark_unpollable(sn, spec_error ? spec_error
					  : !r->command[0] ? "internal error: the probe command does not fit"
							   : "the transport command cannot be split into words");
	}
	log_printf("ssh detail: %s: polling once over SSH", n->host);
	r->pending++;
	scheduler_start(p->sched); /* may finish at once (unpollable): on_poll_done */
}

size_t ssh_detail_run_ask(app *a, const size_t *nodes, size_t n, bool may_prompt, size_t *busy)
{
	if (!a->detail_run) {
		a->detail_run = run_new(a);
	}
	ssh_detail_run *r = a->detail_run;
	size_t started = 0, running = 0;
	sweep(r, false);
	detail_batch *b = xcalloc(1, sizeof *b);
	b->polls = xcalloc(n ? n : 1, sizeof *b->polls);
	const char **names = xcalloc(n ? n : 1, sizeof *names);
	for (size_t i = 0; i < n; i++) {
		node *nd = &a->nodes[nodes[i]];
		if (!ssh_detail_can_ask(nd->ssh_detail)) {
			running++;
			continue;
		}
		detail_poll *p = &b->polls[b->n++];
		p->a = a;
		p->batch = b;
		p->node_index = nodes[i];
		names[b->n - 1] = nd->host;
	}
	if (busy) {
		*busy = running;
	}
	if (b->n == 0) {
		free(names);
		free(b->polls);
		free(b);
		return 0;
	}
	char err[1024];
	bool whole = build_inventory(a, names, b->n, &b->inv, err, sizeof err) == 0 && b->inv.count == b->n;
	if (whole && may_prompt) {
		inventory_load_encrypted_keys(&b->inv);
	}
	b->next = r->batches;
	r->batches = b;
	for (size_t k = 0; k < b->n; k++) {
		detail_poll *p = &b->polls[k];
		node *nd = &a->nodes[p->node_index];
		if (nd->ssh_detail) {
			/* a finished poll's: its scheduler may live on until swept */
			r->retired = xrealloc(r->retired, (r->n_retired + 1) * sizeof(ssh_detail *));
			r->retired[r->n_retired++] = nd->ssh_detail;
		}
		p->detail = ssh_detail_new(nd->host, walltime_now());
		nd->ssh_detail = p->detail;
		if (whole) {
			start_poll(a, r, b, k, &b->inv.specs[k], NULL);
			started++;
			continue;
		}
		/* one name the whole list could not be built with: each alone,
		 * so only the bad one fails, with its own reason */
		inventory one;
		char why[1024];
		if (build_inventory(a, &names[k], 1, &one, why, sizeof why) != 0 || one.count != 1) {
			char msg[NODE_ERROR_LEN];
			snprintf(msg, sizeof msg, "cannot be reached over SSH: %.500s", why);
			start_poll(a, r, b, k, NULL, msg);
		} else {
			if (may_prompt) {
				inventory_load_encrypted_keys(&one);
			}
			/* its spec must outlive the poll: a batch of its own */
			detail_batch *solo = xcalloc(1, sizeof *solo);
			solo->inv = one;
			solo->polls = xcalloc(1, sizeof *solo->polls);
			solo->polls[0] = *p;
			solo->polls[0].batch = solo;
			solo->n = 1;
			solo->next = r->batches;
			r->batches = solo;
			/* the original slot stays, finished, without a scheduler */
			p->done = true;
			b->n_done++;
			start_poll(a, r, solo, 0, &solo->inv.specs[0], NULL);
		}
		started++;
	}
	free(names);
	return started;
}

size_t ssh_detail_run_pending(const ssh_detail_run *r)
{
	return r ? r->pending : 0;
}

static void on_wait_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	char why[128];
	snprintf(why, sizeof why, "no SSH answer within the %.1f s deadline (--timeout)", a->opt.timeout_s);
	for (detail_batch *b = a->detail_run->batches; b; b = b->next) {
		for (size_t i = 0; i < b->n; i++) {
			if (!b->polls[i].done && b->polls[i].sched) {
				scheduler_give_up(b->polls[i].sched, why);
			}
		}
	}
	ev_break(loop, EVBREAK_ALL);
}

void ssh_detail_run_wait(app *a, double timeout_s)
{
	ssh_detail_run *r = a->detail_run;
	if (!r || r->pending == 0) {
		return;
	}
	ev_timer deadline;
	ev_timer_init(&deadline, on_wait_deadline, timeout_s, 0);
	deadline.data = a;
	ev_timer_start(a->loop, &deadline);
	r->waiting = true;
	while (r->pending > 0 && !a->interrupted && ev_is_active(&deadline)) {
		ev_run(a->loop, 0);
	}
	r->waiting = false;
	ev_timer_stop(a->loop, &deadline);
	if (r->pending > 0) {
		/* interrupted: the rest say so */
		for (detail_batch *b = r->batches; b; b = b->next) {
			for (size_t i = 0; i < b->n; i++) {
				if (!b->polls[i].done && b->polls[i].sched) {
					scheduler_give_up(b->polls[i].sched, "interrupted before the node answered");
				}
			}
		}
	}
}

static const node *select_nodes; /* compare_host's, during one qsort */

static int compare_host(const void *x, const void *y)
{
	return strcmp(select_nodes[*(const size_t *)x].host, select_nodes[*(const size_t *)y].host);
}

typedef struct {
	const app *a;
	const size_t *by_name;
	bool *chosen;
	size_t unknown;
} select_ctx;

static int select_one(const char *host, void *ctxp)
{
	select_ctx *c = ctxp;
	size_t lo = 0, hi = c->a->n_nodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(c->a->nodes[c->by_name[mid]].host, host) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	bool any = false;
	for (; lo < c->a->n_nodes && strcmp(c->a->nodes[c->by_name[lo]].host, host) == 0; lo++) {
		c->chosen[c->by_name[lo]] = true;
		any = true;
	}
	c->unknown += !any;
	return 0;
}

size_t *ssh_detail_run_select(const app *a, const char *hostlist, size_t *n, size_t *unknown, char *err,
			      size_t err_len)
{
	size_t *by_name = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *by_name);
	for (size_t i = 0; i < a->n_nodes; i++) {
		by_name[i] = i;
	}
	select_nodes = a->nodes;
	qsort(by_name, a->n_nodes, sizeof *by_name, compare_host);
	select_ctx c = {a, by_name, xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof(bool)), 0};
	size_t *out = NULL;
	if (hostlist_expand(hostlist, select_one, &c, err, err_len) == 0) {
		out = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *out);
		*n = 0;
		for (size_t i = 0; i < a->n_nodes; i++) {
			if (c.chosen[i]) {
				out[(*n)++] = i;
			}
		}
		*unknown = c.unknown;
	}
	free(c.chosen);
	free(by_name);
	return out;
}

void ssh_detail_run_free(ssh_detail_run *r)
{
	if (!r) {
		return;
	}
	sweep(r, true);
	free(r);
}
