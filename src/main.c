/* main.c - synctop entry point: options, inventory, the engine, one sink.
 *
 * Start-up order (undone in reverse on the way out): options, inventory,
 * model (one node per inventory entry), event loop, resolver, SSH library,
 * scheduler with one transport per node, then the chosen sink. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <ev.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "conffile.h"
#include "consistency.h"
#include "demo_cluster.h"
#include "demo_transport.h"
#include "exec_transport.h"
#include "exit_codes.h"
#include "finding_wait.h"
#include "health.h"
#include "inventory.h"
#include "local_transport.h"
#include "log.h"
#include "private_agent.h"
#include "probe.h"
#include "progress.h"
#include "node_update.h"
#include "event_file.h"
#include "event_log.h"
#include "prometheus_drift_run.h"
#include "prometheus_run.h"
#include "prometheus_sink.h"
#include "prometheus_source.h"
#include "remote_history.h"
#include "report_check.h"
#include "report_json.h"
#include "report_prometheus.h"
#include "report_text.h"
#include "resolver.h"
#include "scheduler.h"
#include "state_run.h"
#include "ssh_detail.h"
#include "ssh_detail_run.h"
#include "ssh_transport.h"
#include "thresholds.h"
#include "tui.h"
#include "walltime.h"
#include "xalloc.h"

_Static_assert(TUI_EXIT_INTERRUPTED == SYNCTOP_EXIT_INTERRUPTED, "the dashboard and main agree on 130");


static void on_all_done(void *ctx)
{
	app *a = ctx;
	ev_break(a->loop, EVBREAK_ALL);
}

/* The client finishing its one poll says nothing about the nodes. */
void app_on_nothing(void *ctx)
{
	(void)ctx;
}

/* Live --prometheus trouble goes to the log every time, and to stderr (when
 * no dashboard owns the terminal) once per run of failures. */
static void prometheus_trouble(app *a, const char *what)
{
	log_printf("--prometheus: %s", what);
	char shown[300];
	snprintf(shown, sizeof shown, "--prometheus: %s", what);
	tui_warn(a->tui, shown);
	if (!a->tui && !a->prom_failing) {
		fprintf(stderr, "synctop: --prometheus: %s\n", what);
	}
	a->prom_failing = true;
}

static void on_prometheus_written(void *ctx, const char *err)
{
	app *a = ctx;
	if (err) {
		prometheus_trouble(a, err);
	} else if (a->prom_failing) {
		a->prom_failing = false;
		log_printf("--prometheus: %s written again", a->opt.prometheus_file);
		if (!a->tui) {
			fprintf(stderr, "synctop: --prometheus: %s written again\n", a->opt.prometheus_file);
		}
	}
}

/* --events trouble goes to the log every time, and to stderr (when no
 * dashboard owns the terminal) once per run of failures. */
static void events_trouble(app *a, const char *what)
{
	log_printf("--events: %s", what);
	char shown[600];
	snprintf(shown, sizeof shown, "--events: %s", what);
	tui_warn(a->tui, shown);
	if (!a->tui && !a->events_failing) {
		fprintf(stderr, "synctop: --events: %s\n", what);
	}
	a->events_failing = true;
}

static void on_events_written(void *ctx, const char *err)
{
	app *a = ctx;
	if (err) {
		events_trouble(a, err);
	} else if (a->events_failing) {
		a->events_failing = false;
		log_printf("--events: %s written again", a->opt.events_file);
		if (!a->tui) {
			fprintf(stderr, "synctop: --events: %s written again\n", a->opt.events_file);
		}
	}
}

static void on_state_trouble(void *ctx, const char *what)
{
	app *a = ctx;
	tui_warn(a->tui, what);
	tui_set_history(a->tui, state_run_active(a->state) ? state_run_dir(a->state) : ""); /* off unless retrying */
	if (!a->tui && !a->state_trouble_told) {
		fprintf(stderr, "synctop: %s\n", what);
	}
	a->state_trouble_told = true;
}

/* Live with a state directory: the rings and the event log as the last
 * run left them, then every new sample and event to the writer. */
void app_start_state(app *a)
{
	if (a->opt.mode != MODE_LIVE || !a->state_dir[0] || a->state) {
		return;
	}
	state_run_config cfg = {
		.dir = a->state_dir,
		.limits = a->state_limits,
		.interval_s = a->opt.interval_s,
		.trouble = on_state_trouble,
		.ctx = a,
	};
	a->state = state_run_start(a->loop, &cfg, a->nodes, a->n_nodes, a->events);
	tui_set_history(a->tui, state_run_active(a->state) ? state_run_dir(a->state) : "");
}

/* Live: every node gets a watch, so node_update detects its changes. */
int app_start_events(app *a)
{
	if (a->opt.mode != MODE_LIVE || a->events) {
		return 0;
	}
	a->events = event_log_new(EVENT_LOG_DEFAULT_CAPACITY);
	a->watches = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->watches);
	for (size_t i = 0; i < a->n_nodes; i++) {
		const thresholds *th = a->settings ? &a->settings[i].th : &a->th;
		a->watches[i].log = a->events;
		a->watches[i].index = (uint32_t)i;
		a->watches[i].limits.step_s = th->event_step_s;
		a->watches[i].await_clock_check = a->opt.clock_check_s > 0 && !a->source;
		a->nodes[i].watch = &a->watches[i];
	}
	if (a->opt.events_file) {
		a->events_file = event_file_new(a->loop, a->opt.events_file, 0, on_events_written, a);
		if (!a->events_file) {
			fprintf(stderr, "synctop: --events: cannot start the writer thread: %s\n", strerror(errno));
			return -1;
		}
	}
	tui_set_events(a->tui, a->events);
	return 0;
}

/* After the cluster rules: their findings' changes, then this refresh's
 * events grouped into the log and handed to the --events writer. */
static void commit_events(app *a)
{
	if (!a->events) {
		return;
	}
	event_log_refresh(a->events, a->nodes, a->n_nodes, walltime_now());
	size_t added = event_log_commit(a->events, a->group_over);
	state_run_feed_samples(a->state);
	state_run_feed_events(a->state, a->events, added);
	if (added == 0 || !a->events_file) {
		return;
	}
	size_t count = event_log_count(a->events);
	for (size_t i = count > added ? count - added : 0; i < count; i++) {
		const event *e = event_log_at(a->events, i);
		const char *host = e->node < a->n_nodes ? a->nodes[e->node].host : NULL;
		event_file_submit(a->events_file, e, host);
	}
	unsigned long dropped = event_file_dropped(a->events_file);
	if (dropped != a->events_dropped_told) {
		char what[300];
		snprintf(what, sizeof what,
			 "%zu lines wait for %s (the writer is stuck?): %lu events not written in all",
			 event_file_queued(a->events_file), a->opt.events_file, dropped);
		events_trouble(a, what);
		a->events_dropped_told = dropped;
	}
}

/* The cross-node checks, then the file sinks: what every sink shows. */
void app_evaluate_cluster(app *a)
{
	consistency_evaluate(a->nodes, a->n_nodes, a->settings, NULL);
	commit_events(a);
	if (a->prom) {
		unsigned long dropped = prometheus_sink_dropped(a->prom);
		if (!prometheus_sink_submit(a->prom, a->nodes, a->n_nodes, walltime_now()) &&
		    prometheus_sink_dropped(a->prom) != dropped) {
			char what[256];
			snprintf(what, sizeof what,
				 "the previous write of %s has taken %.1f s so far; this sweep is not written "
				 "(%lu skipped in all)",
				 a->opt.prometheus_file, prometheus_sink_busy_for(a->prom),
				 prometheus_sink_dropped(a->prom));
			prometheus_trouble(a, what);
		}
	} else if (a->opt.prometheus_file) {
		char err[512];
		if (report_prometheus_write(a->opt.prometheus_file, a->nodes, a->n_nodes, NULL, walltime_now(), err,
					    sizeof err) != 0) {
			/* Live: keep going, the next sweep may succeed (a full disk). */
			log_printf("--prometheus: %s", err);
			if (!a->tui) {
				fprintf(stderr, "synctop: --prometheus: %s\n", err);
			}
		}
	}
}

void app_on_cluster_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	app_evaluate_cluster(a);
	tui_mark_dirty(a->tui);
}

/* The model changed: the TUI draws it at its next frame. */
static void on_update(void *ctx, node *n)
{
	app *a = ctx;
	tui_node_changed(a->tui, n);
}

static void on_overall_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	char why[128];
	snprintf(why, sizeof why, "no answer within the %.1f s deadline (--timeout)", a->opt.timeout_s);
	scheduler_give_up(a->sched, why);
	ev_break(loop, EVBREAK_ALL);
}

void app_on_print_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	report_text_write(stdout, a->nodes, a->n_nodes, walltime_now());
	fputc('\n', stdout);
	fflush(stdout);
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	app *a = w->data;
	a->interrupted = true;
	ev_break(loop, EVBREAK_ALL);
}

/* This machine's own chrony, polled like a node through the local probe, less
 * often: it changes slowly and the nodes' checks only need its state. */
static void start_client(app *a, const scheduler_config *nodes_cfg)
{
	scheduler_config cfg = *nodes_cfg;
	const char *argv[] = {"/bin/sh", "-c", probe_script(), NULL};
	node_init(&a->client, "this machine");
	if (a->opt.clock_check_s <= 0 || !a->tui) {
		return; /* no clock check, or no header to show it in */
	}
	cfg.interval_s = nodes_cfg->interval_s > 10 ? nodes_cfg->interval_s : 10;
	cfg.clock_check_every_s = 0;
	cfg.on_all_done = app_on_nothing;
	a->client_sched = scheduler_new(a->loop, &cfg);
	sched_node *sn = scheduler_add(a->client_sched, &a->client, NULL);
	scheduler_attach(sn, local_transport_new(a->loop, argv, scheduler_transport_events(), sn));
	scheduler_start(a->client_sched);
}

/* --check --for SEC: poll like the live view, and judge what lasted. */
static bool checking_for(const app *a)
{
	return a->opt.mode == MODE_CHECK && a->opt.check_for_s > 0;
}

void app_scheduler_config(const app *a, scheduler_config *cfg)
{
	scheduler_config_init(cfg);
	cfg->interval_s = a->opt.interval_s;
	cfg->clock_check_every_s = a->opt.clock_check_s;
	cfg->periods = &a->opt.periods;
	cfg->poll_timeout_s = a->opt.timeout_s;
	cfg->pmc_sudo = a->opt.pmc_sudo;
	if (a->opt.iface) {
		snprintf(cfg->iface, sizeof cfg->iface, "%s", a->opt.iface);
	}
	cfg->thresholds = &a->th;
}

transport *app_exec_transport(app *a, const node_spec *spec, const char *command, sched_node *sn)
{
	const cli_options *o = &a->opt;
	double start_timeout = o->connect_timeout_s > 0 ? o->connect_timeout_s : 10.0;
	if (spec->settings.transport == NODE_TRANSPORT_CMD) {
		command_template tmpl;
		char why[160];
		/* checked when read (cli.c, conffile.c): cannot fail here */
		if (command_template_split(spec->settings.transport_cmd, &tmpl, why, sizeof why) != 0) {
			return NULL;
		}
		/* kubectl debug may pull an image first: more time unless told */
		transport *t = exec_transport_new_cmd(a->loop, &tmpl, spec->target_host,
						      o->connect_timeout_s > 0 ? o->connect_timeout_s : 30.0, command,
						      scheduler_transport_events(), sn);
		command_template_free(&tmpl);
		return t;
	}
	static const char *const strict_names[] = {
		[KNOWN_HOSTS_STRICT_YES] = "yes",
		[KNOWN_HOSTS_STRICT_ACCEPT_NEW] = "accept-new",
		[KNOWN_HOSTS_STRICT_NO] = "no",
	};
	exec_ssh_args args = {
		.host = spec->target_host,
		.user = spec->target_user[0] ? spec->target_user : o->user,
		.port = spec->target_port ? spec->target_port : o->port,
		.ssh_config = o->ssh_config,
		.strict = o->strict >= 0 ? strict_names[o->strict] : NULL,
		.connect_timeout_s = o->connect_timeout_s > 0 ? (int)ceil(o->connect_timeout_s) : 0,
		.jump = spec->settings.jump,
	};
	for (int i = 0; i < o->n_identities && i < EXEC_SSH_MAX_IDENTITIES; i++) {
		args.identities[args.n_identities++] = o->identities[i];
	}
	for (int i = 0; i < o->n_known_hosts && i < EXEC_SSH_MAX_KNOWN_HOSTS; i++) {
		args.known_hosts[args.n_known_hosts++] = o->known_hosts[i];
	}
	return exec_transport_new_ssh(a->loop, &args, start_timeout, command, scheduler_transport_events(), sn);
}

/* Exec transports hold three pipe ends per node: the soft limit on open
 * files (1024 by default) would cap a run at about 330 nodes, so take what
 * the hard limit allows. */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == rl.rlim_max) {
		return;
	}
	rlim_t was = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0) {
		log_printf("RLIMIT_NOFILE raised from %llu to %llu for the exec transports", (unsigned long long)was,
			   (unsigned long long)rl.rlim_cur);
	}
}

static int start_engine(app *a)
{
	char command[PROBE_COMMAND_MAX];
	scheduler_config cfg;

	if (probe_command(command, sizeof command) < 0) {
		fputs("synctop: internal error: probe command does not fit\n", stderr);
		return -1;
	}
	if (resolver_init(a->loop) != 0) {
		fputs("synctop: cannot start the resolver thread\n", stderr);
		return -1;
	}
	app_scheduler_config(a, &cfg);
	cfg.once = a->opt.mode != MODE_LIVE && !checking_for(a);
	cfg.on_all_done = on_all_done;
	cfg.on_update = on_update;
	cfg.ctx = a;
	a->sched = scheduler_new(a->loop, &cfg);

	for (size_t i = 0; i < a->n_nodes; i++) {
		sched_node *sn = scheduler_add(a->sched, &a->nodes[i], &a->settings[i]);
		transport *t;
		if (a->demo) {
			double connect_timeout = a->opt.connect_timeout_s > 0 ? a->opt.connect_timeout_s
									   : DEMO_CONNECT_TIMEOUT_S;
			t = demo_transport_new(a->loop, a->demo, i, connect_timeout, scheduler_transport_events(), sn);
			scheduler_attach(sn, t);
			continue;
		}
		node_spec *spec = &a->inv.specs[i];
		if (spec->local) {
			const char *argv[] = {"/bin/sh", "-c", probe_script(), NULL};
			t = local_transport_new(a->loop, argv, scheduler_transport_events(), sn);
		} else if (spec->settings.transport != NODE_TRANSPORT_LIBSSH2) {
			t = app_exec_transport(a, spec, command, sn);
			if (!t) {
				scheduler_mark_unpollable(sn, "the transport command cannot be split into words");
				continue;
			}
		} else {
			t = ssh_transport_new(a->loop, &spec->ssh, command, scheduler_transport_events(), sn);
		}
		scheduler_attach(sn, t);
	}
	scheduler_start(a->sched);
	start_client(a, &cfg);
	return 0;
}

/* The scheduler has node i at the index main added it with. */
static bool node_finished(const void *ctx, size_t i)
{
	return scheduler_node_finished(ctx, i);
}

void app_watch_signals(app *a)
{
	ev_signal_init(&a->sigint, on_signal, SIGINT);
	ev_signal_init(&a->sigterm, on_signal, SIGTERM);
	ev_signal_init(&a->sighup, on_signal, SIGHUP);
	a->sigint.data = a->sigterm.data = a->sighup.data = a;
	ev_signal_start(a->loop, &a->sigint);
	ev_signal_start(a->loop, &a->sigterm);
	ev_signal_start(a->loop, &a->sighup);
}

void app_start_print_timer(app *a)
{
	ev_timer_init(&a->print_timer, app_on_print_timer, a->opt.interval_s, a->opt.interval_s);
	a->print_timer.data = a;
	ev_timer_start(a->loop, &a->print_timer);
}

/* Whether findings wait their `for` (finding_wait.h): the dashboard and
 * --check --for do; every other output judges now. */
void app_wait_findings(app *a, bool on)
{
	for (size_t i = 0; i < a->n_nodes; i++) {
		a->settings[i].th.findings_wait = on;
	}
}

/* --check --for: every code waits SEC, whatever its own `for`. */
static void wait_findings_for(app *a, double seconds)
{
	app_wait_findings(a, true);
	for (size_t i = 0; i < a->n_nodes; i++) {
		for (size_t k = 0; k < finding_code_count(); k++) {
			(void)finding_wait_set(&a->settings[i].th, finding_code_at(k), seconds);
		}
	}
}

/* --check --for: done once every node that answers has been watched over
 * SEC seconds of its own polls (a finding seen at all of them has lasted);
 * one that stopped answering after SEC is judged as it is. */
static void on_lasted_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	app *a = w->data;
	double now = walltime_now();
	if (now - a->check_started < a->opt.check_for_s) {
		return;
	}
	for (size_t i = 0; i < a->n_nodes; i++) {
		const node *n = &a->nodes[i];
		if (node_answered(n) && n->obs.taken_at - n->first_observed_at < a->opt.check_for_s) {
			return;
		}
	}
	ev_break(loop, EVBREAK_ALL);
}

static void start_lasted_timer(app *a)
{
	a->check_started = walltime_now();
	ev_timer_init(&a->lasted_timer, on_lasted_timer, 0.2, 0.2);
	a->lasted_timer.data = a;
	ev_timer_start(a->loop, &a->lasted_timer);
}

/* --check --for: the findings that did not last are not counted; says how
 * many on stderr (the report on stdout stays the same shape). */
static void judge_what_lasted(app *a)
{
	size_t dropped = 0;
	for (size_t i = 0; i < a->n_nodes; i++) {
		int before = a->nodes[i].findings.count;
		health_drop_pending(&a->nodes[i]);
		dropped += (size_t)(before - a->nodes[i].findings.count);
	}
	if (dropped) {
		fprintf(stderr, "synctop: --for %g: %zu finding%s that did not last %g s not counted\n",
			a->opt.check_for_s, dropped, dropped == 1 ? "" : "s", a->opt.check_for_s);
	}
}

static int run(app *a)
{
	int status = EXIT_SUCCESS;
	/* The TUI needs a terminal to draw on and one to read keys from. */
	bool use_tui = a->opt.mode == MODE_LIVE && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);

	if (checking_for(a)) {
		wait_findings_for(a, a->opt.check_for_s);
	} else {
		app_wait_findings(a, use_tui);
	}
	if (use_tui) {
		/* before the engine: a theme error still reaches stderr */
		tui_options topt = {a->opt.theme, a->opt.no_color, a->opt.no_mouse};
		a->tui = tui_new(&topt);
	} else {
		app_watch_signals(a); /* the TUI watches its own */
	}
	if (a->opt.mode != MODE_LIVE) {
		/* --for: the watch, one more poll to see its end, then the usual deadline */
		double deadline = checking_for(a) ? a->opt.check_for_s + a->opt.interval_s + a->opt.timeout_s
						  : a->opt.timeout_s;
		ev_timer_init(&a->overall_deadline, on_overall_deadline, deadline, 0);
		a->overall_deadline.data = a;
		ev_timer_start(a->loop, &a->overall_deadline);
	}
	if (checking_for(a)) {
		/* the cross-node findings need their `since` too */
		ev_timer_init(&a->cluster_timer, app_on_cluster_timer, 1.0, 1.0);
		a->cluster_timer.data = a;
		ev_timer_start(a->loop, &a->cluster_timer);
		start_lasted_timer(a);
	} else if (a->opt.mode == MODE_LIVE) {
		/* once a second, and a Prometheus file per poll interval at most */
		double every = a->opt.interval_s < 1 ? a->opt.interval_s : 1;
		if (a->opt.prometheus_file && a->opt.interval_s > every) {
			every = a->opt.interval_s;
		}
		ev_timer_init(&a->cluster_timer, app_on_cluster_timer, every, every);
		a->cluster_timer.data = a;
		ev_timer_start(a->loop, &a->cluster_timer);
		if (!use_tui) {
			app_start_print_timer(a);
		}
	}
	if (a->opt.mode == MODE_LIVE && a->opt.prometheus_file) {
		a->prom = prometheus_sink_new(a->loop, a->opt.prometheus_file, NULL, on_prometheus_written, a);
		if (!a->prom) {
			fprintf(stderr, "synctop: --prometheus: cannot start the writer thread: %s\n",
				strerror(errno));
			return EX_SOFTWARE;
		}
	}
	if (app_start_events(a) != 0) {
		return EX_SOFTWARE;
	}
	app_start_state(a);
	if (start_engine(a) != 0) {
		return EX_SOFTWARE;
	}
	if (use_tui) {
		tui_set_client(a->tui, a->client_sched ? &a->client : NULL);
		status = tui_run(a->tui, a->loop, a->nodes, a->n_nodes, a->sched);
		if (status != TUI_NO_TERMINAL) {
			return status;
		}
		const char *term = getenv("TERM");
		fprintf(stderr, "synctop: cannot drive this terminal (TERM=%s); printing plain text\n",
			term ? term : "unset");
		tui_free(a->tui);
		a->tui = NULL;
		status = EXIT_SUCCESS;
		app_wait_findings(a, false); /* a plain table judges now */
		app_watch_signals(a);
		app_start_print_timer(a);
	}
	if (a->opt.mode == MODE_LIVE || checking_for(a) || scheduler_pending(a->sched) > 0) {
		progress *prog = NULL;
		if (a->opt.mode != MODE_LIVE && !checking_for(a)) {
			/* on a terminal, a line on stderr while the nodes answer */
			prog = progress_start(a->loop, STDERR_FILENO, a->nodes, a->n_nodes, node_finished, a->sched);
		}
		ev_run(a->loop, 0);
		progress_stop(prog); /* erased before the result is printed */
	}
	if (a->interrupted && a->opt.mode != MODE_LIVE) {
		scheduler_give_up(a->sched, "interrupted before the node answered");
	}
	if (a->opt.mode != MODE_LIVE && a->state_dir[0]) {
		/* --once / --check: the stored history's frequency trend, read only */
		state_run_read_drift(a->state_dir, a->nodes, a->n_nodes, on_state_trouble, a);
	}
	for (size_t i = 0; i < a->n_nodes; i++) {
		health_apply(&a->nodes[i], &a->settings[i].th);
	}
	if (a->opt.mode != MODE_LIVE) {
		app_evaluate_cluster(a);
	}
	if (checking_for(a)) {
		judge_what_lasted(a);
	}
	return app_report_once(a, status);
}

/* --once, --json, --check: the one report, from the evaluated model. */
int app_report_once(app *a, int status)
{
	report_json_source source = {"prometheus", a->source_urls, a->n_source_urls, a->source_answered,
				     a->source_error};
	switch (a->opt.mode) {
	case MODE_ONCE_JSON:
		if (report_json_write_sourced(stdout, a->nodes, a->n_nodes, walltime_now(),
					      a->source ? &source : NULL) != 0) {
			/* A reader that went away (| head) is not an error worth a word. */
			if (errno != EPIPE) {
				fprintf(stderr, "synctop: cannot write the JSON report: %s\n", strerror(errno));
			}
			status = errno == EPIPE ? SYNCTOP_EXIT_BROKEN_PIPE : EX_IOERR;
		}
		break;
	case MODE_CHECK:
		if (a->opt.hostlist_only) {
			status = report_check_write_hostlist(stdout, a->nodes, a->n_nodes, NULL, a->opt.fail_on);
			break;
		}
		status = report_check_write(stdout, a->nodes, a->n_nodes, NULL, a->opt.fail_on, a->opt.verbose);
		break;
	case MODE_ONCE_TEXT:
		report_text_write(stdout, a->nodes, a->n_nodes, walltime_now());
		break;
	case MODE_LIVE:
		break;
	}
	if (a->interrupted && a->opt.mode == MODE_LIVE) {
		status = SYNCTOP_EXIT_INTERRUPTED;
	}
	return status;
}

/* The fleet-wide event grouping limit: the configuration's "defaults". */
static unsigned events_group_over(const cli_options *opt, const conffile *conf)
{
	node_settings defaults;
	inventory_node_settings(opt, conf, "", &defaults);
	int n = defaults.th.event_group_nodes;
	return n > 0 ? (unsigned)n : UINT_MAX; /* 0: never grouped */
}

/* --state-dir DIR, --state, else the configuration's `state_dir`; the
 * bounds from "defaults" thresholds. */
static int state_settings(app *a, const conffile *conf)
{
	node_settings defaults;
	inventory_node_settings(&a->opt, conf, "", &defaults);
	a->state_limits.retention_s = defaults.th.state_retention_days * 86400.0;
	a->state_limits.max_bytes = (uint64_t)defaults.th.state_max_mib * 1024 * 1024;
	if (a->opt.state_dir) {
		snprintf(a->state_dir, sizeof a->state_dir, "%s", a->opt.state_dir);
	} else if (a->opt.state_default) {
		if (state_store_default_dir(a->state_dir, sizeof a->state_dir) != 0) {
			fputs("synctop: --state: neither XDG_STATE_HOME nor HOME is set; use --state-dir DIR\n", stderr);
			return -1;
		}
	} else {
		memcpy(a->state_dir, defaults.state_dir, sizeof a->state_dir);
	}
	if (strlen(a->state_dir) >= sizeof a->state_dir - 1) {
		fputs("synctop: --state-dir: the path is too long\n", stderr);
		return -1;
	}
	return 0;
}

/* One node (and its settings) per inventory entry or simulated node. */
static void build_model(app *a, const conffile *conf)
{
	a->n_nodes = a->demo ? demo_cluster_count(a->demo) : a->inv.count;
	a->nodes = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->nodes);
	a->settings = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof *a->settings);
	for (size_t i = 0; i < a->n_nodes; i++) {
		node_init(&a->nodes[i], a->demo ? demo_cluster_name(a->demo, i) : a->inv.specs[i].name);
		if (a->demo) {
			inventory_node_settings(&a->opt, conf, demo_cluster_name(a->demo, i), &a->settings[i]);
			if (!a->settings[i].ntp_upstream[0]) {
				/* as a site's --config would say: the relay is not a stray */
				snprintf(a->settings[i].ntp_upstream, sizeof a->settings[i].ntp_upstream, "%s",
					 demo_cluster_ntp_upstream(a->demo, i));
			}
		} else {
			a->settings[i] = a->inv.specs[i].settings;
		}
	}
}

int main(int argc, char **argv)
{
	app a;
	conffile *conf = NULL;
	char err[1024];
	int status;

	memset(&a, 0, sizeof a);
	/* A peer that closes its socket must give us EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	json_set_alloc_funcs(xmalloc, free); /* die cleanly on OOM, like the rest */
	srandom((unsigned)(time(NULL) ^ getpid()));

	/* Every exit below goes through "out", which undoes whatever was done:
	 * each step there is a no-op for what never started. */
	status = cli_parse(argc, argv, &a.opt);
	if (status != CLI_CONTINUE) {
		goto out;
	}
	if (a.opt.log_file && log_open(a.opt.log_file) != 0) {
		fprintf(stderr, "synctop: --log %s: %s\n", a.opt.log_file, strerror(errno));
		status = EX_USAGE;
		goto out;
	}
	log_printf("synctop %s starting", PACKAGE_VERSION);
	/* Before anything connects: a bad file changes nothing. */
	if (a.opt.config && conffile_load(a.opt.config, &conf, err, sizeof err) != 0) {
		fprintf(stderr, "synctop: %s\n", err);
		status = EX_USAGE;
		goto out;
	}
	if (!a.opt.n_prom_urls && prometheus_run_config_groups(conf) > 0) {
		/* the configuration's groups read their nodes from Prometheus */
		if (a.opt.demo || a.opt.local || a.opt.check_for_s > 0) {
			fprintf(stderr, "synctop: %s: groups with \"prometheus\" read their nodes from Prometheus: no "
					"--demo, --local or --check --for with them\n", a.opt.config);
			status = EX_USAGE;
			goto out;
		}
		if (!a.opt.interval_given) {
			a.opt.interval_s = 15.0; /* as with --from-prometheus: a scrape interval */
		}
		a.from_config = true;
	} else if (a.opt.ssh_detail && !a.opt.n_prom_urls) {
		fputs("synctop: --ssh-detail polls nodes read from Prometheus over SSH: it goes with "
		      "--from-prometheus or a --config group with \"prometheus\"\n", stderr);
		status = EX_USAGE;
		goto out;
	} else if (cli_no_nodes(&a.opt)) {
		fputs("synctop: no nodes given (hosts as arguments, -w HOSTLIST, -f FILE, --local, or a --config "
		      "group with \"prometheus\")\nTry 'synctop --help' for more information.\n", stderr);
		status = EX_USAGE;
		goto out;
	}
	a.loop = EV_DEFAULT;
	/* Before the inventory: known_hosts asks libssh2 which key types it
	 * supports. */
	if (ssh_transport_global_init(a.loop, a.opt.max_handshakes) != 0) {
		fputs("synctop: cannot initialise libssh2\n", stderr);
		status = EX_SOFTWARE;
		goto out;
	}
	if (a.opt.demo) {
		a.demo = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, walltime_now());
	} else if ((!(a.opt.n_prom_urls || a.from_config) || a.opt.n_hosts || a.opt.n_hostlists ||
		    a.opt.n_host_files) &&
		   inventory_build(&a.opt, conf, &a.inv, err, sizeof err) != 0) {
		fprintf(stderr, "synctop: %s\n", err);
		status = EX_USAGE;
		goto out;
	}
	for (int i = 0; i < a.inv.n_warnings; i++) {
		fprintf(stderr, "synctop: warning: %s\n", a.inv.warnings[i]);
	}
	if (a.opt.n_prom_urls || a.from_config) {
		/* no SSH: the inventory, if any, only says which nodes to show */
		thresholds_init_defaults(&a.th);
		a.group_over = events_group_over(&a.opt, conf);
		if (state_settings(&a, conf) != 0) {
			status = EX_USAGE;
			goto out;
		}
		a.conf = conf;
		status = prometheus_run(&a);
		goto out;
	}
	/* Encrypted key files: ssh-add asks their passphrases now, on the
	 * terminal, before the event loop and any TUI (private_agent.h). */
	inventory_load_encrypted_keys(&a.inv);
	if (inventory_uses_exec(&a.inv)) {
		raise_fd_limit();
		/* a child's start is its key exchange: the same cap as libssh2's */
		local_transport_set_start_limit(a.opt.max_handshakes);
	}
	thresholds_init_defaults(&a.th);
	build_model(&a, conf);
	a.group_over = events_group_over(&a.opt, conf);
	if (state_settings(&a, conf) != 0) {
		status = EX_USAGE;
		goto out;
	}
	conffile_free(conf); /* every node has its settings now */
	conf = NULL;

	status = run(&a);

out:
	/* the start-up order, undone in reverse */
	tui_free(a.tui);
	/* the source's pending answers are told as it is freed, and mark their
	 * nodes changed: not on the dashboard just freed */
	a.tui = NULL;
	prometheus_source_free(a.source);
	prometheus_drift_run_free(&a); /* after the source: its answers pending are told first */
	free(a.prom_sets);
	free(a.prom_keeps);
	free(a.prom_set_names);
	free(a.source_urls);
	/* what is queued gets a moment to reach the disk, a hung one not long */
	event_file_free(a.events_file, 2.0);
	/* the last second's samples reach the database; a hung disk is not
	 * waited for long */
	state_run_free(a.state, 2.0);
	event_log_free(a.events);
	free(a.watches);
	/* a write hung on its file system is not waited for long at exit */
	prometheus_sink_free(a.prom, 2.0);
	scheduler_free(a.sched);
	scheduler_free(a.client_sched);
	ssh_detail_run_free(a.detail_run); /* before the nodes' details it polls */
	demo_cluster_free(a.demo); /* after the transports that read it */
	private_agent_stop(); /* after the transports: none is still talking to it */
	ssh_transport_global_free();
	resolver_free();
	for (size_t i = 0; a.nodes && i < a.n_nodes; i++) {
		remote_history_free(a.nodes[i].remote);
		ssh_detail_free(a.nodes[i].ssh_detail);
	}
	free(a.nodes);
	free(a.settings);
	free(a.source_by_name);
	free(a.source_digest);
	free(a.source_taken_at);
	inventory_free(&a.inv);
	conffile_free(conf);
	cli_free(&a.opt);
	if (a.loop) {
		ev_loop_destroy(a.loop);
	}
	log_printf("synctop exiting with status %d", status);
	log_close();
	return status;
}
