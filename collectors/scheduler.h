/* scheduler.h - when each node is polled, and what happens to the answer.
 *
 * Per node: a poll timer (with jitter so a thousand nodes never fire at
 * once), a deadline per poll, exponential backoff with jitter after a
 * failure, and the response accumulator.  A completed response is decoded
 * into a fresh observation and handed to core (node_update.h), which keeps
 * history and runs the health rules; then the owner is told the model
 * changed.  Which collectors a poll asks for comes from the registry
 * (collector.h); nothing here reads a tool's fields.
 *
 * Nothing here draws or prints: sinks read the node array. */
#ifndef SYNCTOP_SCHEDULER_H
#define SYNCTOP_SCHEDULER_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "collector_period.h"
#include "node.h"
#include "node_settings.h"
#include "thresholds.h"
#include "transport.h"

#define SCHEDULER_MAX_OUTPUT (256 << 10) /* per poll; more is a flood */

typedef struct scheduler scheduler;
typedef struct sched_node sched_node;

typedef struct {
	double interval_s;        /* time between polls of one node */
	double poll_timeout_s;    /* deadline for one poll's answer */
	double backoff_min_s, backoff_max_s;
	bool once;                /* poll each node once, then stop it */
	/* The independent clock check (CLOCK_CHECK_EXCHANGES time-only
	 * exchanges after a poll): at most this often; <= 0 = never.  Once
	 * mode checks every node when it is > 0. */
	double clock_check_every_s;
	/* For nodes added without their own settings (scheduler_add). */
	bool pmc_sudo;            /* run pmc through sudo -n */
	char iface[16];           /* "" = from ptp4l, else the default route's */
	const thresholds *thresholds;
	/* --period: the periodic collectors' periods (NULL or 0: each
	 * descriptor's own; collector_period.h).  Not copied: must outlive the
	 * scheduler. */
	const collector_periods *periods;
	/* Called after any node's model changed (may be NULL). */
	void (*on_update)(void *ctx, node *n);
	/* once mode: called when every node has answered or given up. */
	void (*on_all_done)(void *ctx);
	void *ctx;
} scheduler_config;

void scheduler_config_init(scheduler_config *cfg);

scheduler *scheduler_new(struct ev_loop *loop, const scheduler_config *cfg);
void scheduler_free(scheduler *s); /* destroys the transports too */

/* Register a node; the returned handle is the `owner` to create its
 * transport with (using scheduler_transport_events()).  settings (copied)
 * are the node's own thresholds and probe options; NULL = the config's
 * pmc_sudo, iface and thresholds. */
sched_node *scheduler_add(scheduler *s, node *model, const node_settings *settings);
void scheduler_attach(sched_node *sn, transport *t);
const transport_events *scheduler_transport_events(void);

/* A node that cannot be polled at all (bad inventory entry, ...). */
void scheduler_mark_unpollable(sched_node *sn, const char *why);

void scheduler_start(scheduler *s);
void scheduler_poll_now(scheduler *s);
void scheduler_set_paused(scheduler *s, bool paused);
bool scheduler_paused(const scheduler *s);
void scheduler_set_interval(scheduler *s, double interval_s);
double scheduler_interval(const scheduler *s);

/* The wait before reconnect attempt number failures+1: min_s doubling per
 * failure, capped at max_s, then spread by +-25% with unit in [0, 1]. */
double scheduler_backoff_delay(int failures, double min_s, double max_s, double unit);

/* once mode: nodes that have not finished get `why` as their error. */
void scheduler_give_up(scheduler *s, const char *why);
size_t scheduler_pending(const scheduler *s);
/* once mode: whether the i-th node added is finished (answered, given up or
 * unpollable); true past the end. */
bool scheduler_node_finished(const scheduler *s, size_t i);

#endif
