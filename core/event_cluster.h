/* event_cluster.h - cluster-wide findings as cluster events: one event per
 * finding code across the fleet, not one per node that carries it.
 *
 * The cluster rules (consistency.c) give a finding such as
 * cluster.offset_spread to each node that is out of line; the operator's
 * question is "when did the cluster start (and stop) disagreeing", one
 * change, so event_cluster_add() folds the nodes' cluster findings into one
 * entry per code (its worst severity, how many nodes carry it, the first of
 * them) and event_cluster_compare() turns two such states into events with
 * node EVENT_NODE_CLUSTER, subject the code and group_size the nodes:
 *   - cluster_finding_raised: the code was on no node and is now on some
 *     (from ""), or its worst severity changed (from: the old one);
 *   - cluster_finding_cleared: it was on some node and is now on none.
 * Which nodes carry it may change without an event: each node's own status
 * event tells that.  Which nodes are counted (settled ones; a new one's
 * findings are a baseline, not a change) is event_log.c's business. */
#ifndef SYNCTOP_EVENT_CLUSTER_H
#define SYNCTOP_EVENT_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "finding.h"
#include "node.h"

/* Distinct cluster finding codes held (consistency.c raises nine). */
#define EVENT_CLUSTER_CODES 16
#define EVENT_CLUSTER_HOST_LEN 48

typedef struct {
	const char *code;   /* static, as finding.code */
	severity sev;       /* the worst over the nodes */
	uint32_t nodes;     /* how many nodes carry it */
	char first[EVENT_CLUSTER_HOST_LEN]; /* the first of them (model order), for the message */
	char message[FINDING_MESSAGE_LEN];  /* its finding's message there */
} event_cluster_finding;

typedef struct {
	int count;
	event_cluster_finding items[EVENT_CLUSTER_CODES];
} event_cluster_state;

/* Adds n's cluster findings (findings.items[n_own_findings..]) that count
 * (event_detect_counts: lasted their `for`, or there since baseline_t) to s.
 * Codes past EVENT_CLUSTER_CODES are left out. */
void event_cluster_add(event_cluster_state *s, const node *n, double baseline_t);

/* Adds one node's finding (what event_cluster_add does per finding). */
void event_cluster_add_finding(event_cluster_state *s, const char *code, severity sev, const char *host,
			       const char *message);

/* The cluster events from before to after at time t: at most max written to
 * out, returns how many there were.  Pure. */
size_t event_cluster_compare(const event_cluster_state *before, const event_cluster_state *after, double t,
			     event *out, size_t max);

#endif
