/* state_writer.h - the --state-dir writer thread and its bounded queue.
 *
 * The loop hands over samples and events (a copy each, no SQLite on the
 * loop); one thread owns the store and writes what is queued in one
 * transaction, at most every STATE_WRITER_COMMIT_S and at least once a
 * second while anything waits, so a crash loses about the last second.
 * Every STATE_WRITER_MAINTAIN_S it runs the store's maintenance (folding
 * the minutes, retention, size) and updates the drift trends.  A slow disk delays the database, never the polls:
 * past queue_max samples the newest are dropped and counted.
 *
 * A failed write (full disk, corruption, a lock held too long) is told to
 * the loop through `done`; the thread keeps what it could not write (within
 * the queue's bound) and tries again after STATE_WRITER_RETRY_FIRST_S,
 * doubling the delay up to STATE_WRITER_RETRY_MAX_S, and tells the loop
 * again when a write works (a disk with room again). */
#ifndef SYNCTOP_STATE_WRITER_H
#define SYNCTOP_STATE_WRITER_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "state_store.h"

#define STATE_WRITER_QUEUE_MAX 262144   /* samples: 4 min of 1,024 nodes at 1 s */
#define STATE_WRITER_COMMIT_S 0.5
#define STATE_WRITER_RETRY_FIRST_S 5.0
#define STATE_WRITER_RETRY_MAX_S 300.0
#define STATE_WRITER_MAINTAIN_S 60.0
#define STATE_WRITER_DRIFT_SINCE_S (7 * 86400.0)

typedef struct state_writer state_writer;

/* Called on the loop when writing starts failing (err: why) and when it
 * works again (err NULL). */
typedef void (*state_writer_done_fn)(void *ctx, const char *err);

/* A sample of a node (its state_store_node_id), as queued. */
typedef struct {
	int64_t node_id;
	state_sample x;
} state_writer_row;

/* Takes the store (closed by state_writer_free).  queue_max 0:
 * STATE_WRITER_QUEUE_MAX.  NULL if the thread cannot start (errno set;
 * the store is closed). */
state_writer *state_writer_new(struct ev_loop *loop, state_store *store, size_t queue_max, state_writer_done_fn done,
			       void *ctx);

/* Queues a round's samples under one lock and wakes the thread once;
 * returns how many were taken (the rest dropped: the queue is full). */
size_t state_writer_samples(state_writer *w, const state_writer_row *rows, size_t n);

/* One sample; false when dropped. */
bool state_writer_sample(state_writer *w, int64_t node_id, const state_sample *x);

/* Queues an event; host NULL for a group or the cluster.  Members must
 * follow their group (event_log_commit's order). */
bool state_writer_event(state_writer *w, const event *e, const char *host);

/* The nodes whose frequency trend (drift_trend.h) over the last
 * STATE_WRITER_DRIFT_SINCE_S the thread keeps (ids copied): read from the
 * database once, then updated at each maintenance from the minutes it
 * folds (hourly sums, drift_sums), and published each time. */
void state_writer_track_drift(state_writer *w, const int64_t *ids, size_t n);

/* The trends of the tracked nodes (ppm/day, NAN unknown) into out[0..n)
 * when newer than `seen` (a generation, 0 = none yet); returns the
 * generation of what out holds or would hold. */
unsigned state_writer_drift(state_writer *w, unsigned seen, double *out, size_t n);

/* Samples and events dropped because the queue was full (a slow or
 * failing disk). */
unsigned long state_writer_dropped(const state_writer *w);

/* Waits up to `grace` seconds for the queue to be written, then stops the
 * thread; one hung in a write is abandoned (the process is exiting). */
void state_writer_free(state_writer *w, double grace);

#endif
