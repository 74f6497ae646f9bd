/* state_run.h - --state-dir in a live run: open the store, bring back the
 * earlier runs' history and events, then hand every new sample and event
 * to the writer thread (state_writer.h).
 *
 * A store that cannot be opened (the directory held by another synctop, a
 * corrupt or read-only database) is told through `trouble` and the run goes
 * on without history: state_run_active() then says false and the feed calls
 * do nothing.  A write that fails later (a full disk) is told through
 * `trouble` too, but the writer keeps what it could not write and retries
 * (state_writer.h): the run stays active and the log says when writing
 * works again. */
#ifndef SYNCTOP_STATE_RUN_H
#define SYNCTOP_STATE_RUN_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "event_log.h"
#include "node.h"
#include "state_store.h"

typedef struct state_run state_run;

/* Called on the loop with one sentence (what went wrong, and that history
 * is off for this run). */
typedef void (*state_run_trouble_fn)(void *ctx, const char *what);

typedef struct {
	const char *dir;           /* the state directory */
	state_limits limits;
	double interval_s;         /* the poll interval: how far back the rings reach */
	state_run_trouble_fn trouble;
	void *ctx;
} state_run_config;

/* Opens the store in cfg->dir, restores the nodes' history rings and the
 * event log (log may be NULL), and starts the writer.  Never NULL: a
 * store that cannot be used is told and leaves the run without history. */
state_run *state_run_start(struct ev_loop *loop, const state_run_config *cfg, node *nodes, size_t n_nodes,
			   event_log *log);

/* Whether history is being kept. */
bool state_run_active(const state_run *r);

/* The directory (for the day view's reader), NULL when not active. */
const char *state_run_dir(const state_run *r);

/* Once a refresh: the samples the nodes gained since the last call. */
void state_run_feed_samples(state_run *r);

/* The events just committed: the last `added` of log. */
void state_run_feed_events(state_run *r, const event_log *log, size_t added);

/* The last restore: samples and events brought back, seconds it took. */
void state_run_restored(const state_run *r, size_t *samples, size_t *events, double *seconds);

/* --once and --check with a state directory: each node's frequency trend
 * (chrony.drift_daily, the JSON's frequency_drift_ppm_per_day) from what
 * live runs stored, through a read-only connection: nothing is written.
 * A store that cannot be read is told through trouble (ctx). */
void state_run_read_drift(const char *dir, node *nodes, size_t n_nodes, state_run_trouble_fn trouble, void *ctx);

/* Drains the queue (up to grace seconds) and closes the store. */
void state_run_free(state_run *r, double grace);

#endif
