/* health.h - the per-node health rules: observation + history in, findings
 * out.
 *
 * A node is judged by the time service it actually runs: a PTP node steered
 * by ptp4l/phc2sys needs no chronyd and vice versa, but a node with no working
 * service at all is critical.  What a node runs comes from the daemons part of
 * the observation, or, when that was not collected, from which tools answered;
 * thresholds.expect_* overrides the guess. */
#ifndef SYNCTOP_HEALTH_H
#define SYNCTOP_HEALTH_H

#include "finding.h"
#include "node.h"
#include "thresholds.h"

/* Pure: reads n->obs, n->history and the reachability flags only.  Fills out
 * with at most MAX_FINDINGS findings, most severe first (rule order within a
 * severity).  A node without a completed poll (!has_observation or
 * !reachable) gets no findings: its status is unknown, not healthy. */
void health_evaluate(const node *n, const thresholds *th, finding_list *out);

/* The worst finding's severity; NODE_STATUS_UNKNOWN when the node has no
 * completed poll.  findings may be NULL (= none). */
node_status health_status(const node *n, const finding_list *findings);

/* health_evaluate into n->findings (keeping the cluster findings that
 * followed the node's own ones), then n->status = health_status(). */
void health_apply(node *n, const thresholds *th);

/* Replaces the cluster findings that follow the node's own ones with
 * items[0..count) (sorted most severe first; dropped past MAX_FINDINGS) and
 * recomputes n->status.  Called by the cluster pass (consistency.h).
 * Both this and health_apply carry each finding's `since` from the last
 * evaluation and set `pending` under th (finding_wait.h). */
void health_set_cluster_findings(node *n, const finding *items, int count, const thresholds *th);

/* The node as the live view shows it: n->status judged on the findings
 * that have lasted their wait; NODE_STATUS_PENDING when only pending ones
 * would raise it.  Equal to n->status when nothing waits. */
node_status health_live_status(const node *n);

/* --check --for: forget the findings that have not lasted (pending), and
 * judge the node on the rest. */
void health_drop_pending(node *n);

#endif
