/* app.h - the state of one synctop run, shared by main.c and the runs of
 * its sources (prometheus_run.c): options, model, loop, sinks.
 *
 * main.c owns it: it builds it in start-up order and frees it in reverse.
 * The app_* functions are main.c's steps that every source's run needs
 * (signals, events, state, findings' `for`, the cluster checks, reports). */
#ifndef SYNCTOP_APP_H
#define SYNCTOP_APP_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "conffile.h"
#include "demo_cluster.h"
#include "event_file.h"
#include "event_log.h"
#include "inventory.h"
#include "node_settings.h"
#include "prometheus_sink.h"
#include "prometheus_source.h"
#include "scheduler.h"
#include "state_run.h"
#include "thresholds.h"
#include "tui.h"

typedef struct app {
	struct ev_loop *loop;
	cli_options opt;
	inventory inv;
	demo_cluster *demo;        /* --demo: the nodes are simulated, inv is empty */
	node *nodes;
	node_settings *settings;   /* one per node: --config, then the command line */
	size_t n_nodes;
	thresholds th;             /* fallback for a node without settings */
	scheduler *sched;
	/* This machine's own clock state (its chronyc, through the local probe):
	 * the reference of every clock check, so the header shows it. */
	node client;
	scheduler *client_sched;
	ev_timer cluster_timer;    /* live: the cross-node checks, then sinks */
	ev_timer overall_deadline; /* --once / --check */
	ev_timer lasted_timer;     /* --check --for: has every node been watched long enough? */
	double check_started;      /* --check --for: when polling began (unix time) */
	ev_timer print_timer;      /* live plain-text table */
	ev_signal sigint, sigterm, sighup;
	bool interrupted;
	tui *tui;                  /* live view on a terminal, else NULL */
	prometheus_sink *prom;     /* live --prometheus: written off the loop */
	/* live: what changed (event_log.h), detected per node through its watch */
	event_log *events;
	event_watch *watches;      /* one per node */
	unsigned group_over;       /* thresholds.event_group_nodes of "defaults" */
	event_file *events_file;   /* --events: written off the loop */
	bool events_failing;       /* the last write failed */
	unsigned long events_dropped_told;
	bool prom_failing;         /* the last write failed or was dropped */
	/* --state-dir: history and events across runs (state_run.h) */
	char state_dir[NODE_SETTINGS_STATE_DIR_LEN]; /* "" = off */
	state_limits state_limits;
	state_run *state;
	bool state_trouble_told;   /* stderr once, when no dashboard */
	/* --from-prometheus: the source, and what its refresh said */
	prometheus_source *source;
	const conffile *conf;      /* until the source's nodes have their settings */
	char source_error[1024];   /* "" when every query answered cleanly */
	size_t source_answered;    /* servers that answered every query */
	bool source_done;          /* the first refresh is in: the model exists */
	ev_timer source_timer;     /* live: the next refresh */
	double source_last;        /* live: when the last refresh started */
	bool from_config;          /* no --from-prometheus: --config groups name the servers */
	/* --config groups with "prometheus": their server sets, and what their
	 * keep callbacks need (group i keeps the nodes it is the group of) */
	prometheus_server_set *prom_sets;
	size_t n_prom_sets;
	struct prom_keep {
		const conffile *conf;
		int group;              /* -1: the command line's set */
	} *prom_keeps;
	char (*prom_set_names)[96]; /* "--config group \"a\"", for the sets' messages */
	const char **source_urls;  /* every server, for the JSON's source */
	size_t n_source_urls;
	size_t *source_by_name;    /* live: the model's node indices, by host name */
	/* live: per model node, the digest of the samples it was last updated
	 * from when that update left it known (prometheus_map_digest), else 0,
	 * and its observation's time then */
	uint64_t *source_digest;
	double *source_taken_at;
	/* Prometheus nodes polled once over SSH (`S`, --ssh-detail): NULL
	 * until the first is asked for (ssh_detail_run.h) */
	struct ssh_detail_run *detail_run;
	/* the frequency's trends asked of the servers (prometheus_drift_run.h) */
	struct prom_drift_run *prom_drift;
} app;

/* A scheduler's on_all_done that does nothing (the client's, and the
 * Prometheus run's empty scheduler). */
void app_on_nothing(void *ctx);
/* SIGINT, SIGTERM and SIGHUP end the run (a->interrupted). */
void app_watch_signals(app *a);
/* --events and the event log; non-zero: the run cannot start. */
int app_start_events(app *a);
/* --state-dir: the writer, and the history and events it restores. */
void app_start_state(app *a);
/* Whether findings wait their `for` (finding_wait.h). */
void app_wait_findings(app *a, bool on);
/* The cross-node checks, then the sinks (--prometheus). */
void app_evaluate_cluster(app *a);
/* An ev_timer callback (w->data = a): app_evaluate_cluster, TUI redrawn. */
void app_on_cluster_timer(struct ev_loop *loop, ev_timer *w, int revents);
/* An ev_timer callback (w->data = a): the plain live table, once. */
void app_on_print_timer(struct ev_loop *loop, ev_timer *w, int revents);
/* The plain live table every interval. */
void app_start_print_timer(app *a);
/* --once/--check: the report of the chosen mode; the exit status. */
int app_report_once(app *a, int status);
/* The node's own process: the system ssh client with the command line's
 * options, or the --transport-cmd template with its name filled in; NULL
 * when the template cannot be split (checked when read: never). */
transport *app_exec_transport(app *a, const node_spec *spec, const char *command, sched_node *sn);
/* A scheduler's configuration from the command line (interval, clock
 * check, periods, timeout, pmc's sudo, interface, thresholds); the caller
 * sets once and the callbacks. */
void app_scheduler_config(const app *a, scheduler_config *cfg);

#endif
