/* event_log.h - the events of this run, in memory: a bounded ring.
 *
 * Events enter in two steps.  Change detection (node_update.c, after each
 * poll, failure and clock check; src/main.c after the cluster rules) stages
 * them through a node's event_watch; once per refresh event_log_commit()
 * groups what the refresh staged and appends it to the ring.  A change seen
 * on more than group_over nodes in one refresh (same kind, subject, from and
 * to: event_same_change) becomes one EVENT_GROUP event followed by its
 * members, which carry the group's id (so it expands to its nodes).
 *
 * The ring is allocated once (capacity events, about 380 bytes each: 100,000
 * are 38 MB, touched only as they fill); when full the oldest go.  Ids are
 * consecutive, so finding one by id is O(1).  Loop thread only. */
#ifndef SYNCTOP_EVENT_LOG_H
#define SYNCTOP_EVENT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "event_detect.h"
#include "node.h"

#define EVENT_LOG_DEFAULT_CAPACITY 100000
#define EVENT_GROUP_OVER_DEFAULT 5  /* thresholds.event_group_nodes */
/* What one refresh may stage: more are dropped and counted (a fleet of
 * 10,000 nodes all changing five things at once still fits). */
#define EVENT_LOG_STAGE_MAX 65536

typedef struct event_log event_log;

/* Dies on OOM like xmalloc. */
event_log *event_log_new(size_t capacity);
void event_log_free(event_log *l);

/* One node's change detection: the state it was last compared in.
 *
 * Start-up is not a change: until the node is settled nothing is staged.
 * It settles at the first refresh (event_log_watch_refresh) after its first
 * answer and, with await_clock_check, its first clock check, so what is
 * already wrong when synctop starts (its own findings, the clock check's,
 * the cluster rules') is the baseline, not a burst of events. */
typedef struct event_watch {
	event_log *log;
	uint32_t index;      /* the node's index in the model */
	bool await_clock_check; /* clock checks run: settle after the first */
	bool settled;
	double settled_at;   /* the refresh it settled at: findings since then wait their `for` */
	event_limits limits; /* from the node's thresholds */
	event_state prev;
} event_watch;

/* After a poll, a failure or a clock check (node_update.c): compares n's
 * judged state now with the last one and stages the changes, at time t;
 * the present state becomes the last one. */
void event_log_watch(event_watch *w, const node *n, double t);

/* The same after the cluster rules ran (once per refresh); settles the
 * node when it is ready. */
void event_log_watch_refresh(event_watch *w, const node *n, double t);

/* Once per refresh, after the cluster rules: event_log_watch_refresh() for
 * every node with a watch (nodes[i].watch; NULL ones are skipped), then the
 * cluster's own change detection (event_cluster.h) over the settled nodes'
 * cluster findings: one event per code raised or cleared, node
 * EVENT_NODE_CLUSTER.  A node that settles in this refresh brings its
 * cluster findings as part of the baseline, not as a change. */
void event_log_refresh(event_log *l, const node *nodes, size_t n, double t);

/* Stages one event (as event_log_watch does). */
void event_log_stage(event_log *l, const event *e);

/* Groups what was staged since the last commit and appends it; returns the
 * number of events appended (groups included).  They are then the last ones:
 * event_log_at(l, event_log_count(l) - returned ...). */
size_t event_log_commit(event_log *l, unsigned group_over);

/* An event of an earlier run (the state database, state_store.h) appended
 * as it was, with the next id; e->group must already be its group's new
 * id (0 for none).  Returns the id given.  Before the first commit. */
uint64_t event_log_restore(event_log *l, const event *e);

/* Events kept (<= capacity); i = 0 is the oldest, NULL past the end. */
size_t event_log_count(const event_log *l);
const event *event_log_at(const event_log *l, size_t i);

/* The event with this id, NULL when it has left the ring (or never was). */
const event *event_log_find(const event_log *l, uint64_t id);

/* The id of the newest event, 0 when none yet. */
uint64_t event_log_last_id(const event_log *l);

/* Events not inside a group (a group counts once) from the first one with
 * t >= since to the newest: the header's "events in the last 5 minutes".
 * O(log n): times grow from refresh to refresh; within one refresh they are
 * its nodes' poll times, so the edge of the window is exact to a refresh. */
size_t event_log_count_since(const event_log *l, double since);

/* Dropped: staged past EVENT_LOG_STAGE_MAX; overwritten: left the ring. */
unsigned long event_log_dropped(const event_log *l);
unsigned long event_log_overwritten(const event_log *l);

#endif
