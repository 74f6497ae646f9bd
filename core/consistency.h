/* consistency.h - the cluster-wide checks: how each node compares with the
 * others (grandmaster, PTP domain, NTP reference, offset spreads, leap
 * announcements, TAI-UTC offset, the independent clock check's median, and
 * --config groups that follow different upstreams and drift apart).
 *
 * Each node's own rules (health.c) judge it against its own daemon's opinion;
 * these judge it against the fleet, because distributed jobs fail when nodes
 * disagree with each other while each one looks healthy alone.
 *
 * "Majority" below means the value most nodes share (a plurality).  When two
 * values share the top count there is no majority: no node is called the
 * minority, every node taking part gets a warn "split" finding instead, since
 * synctop cannot tell which side is intended (configure `grandmaster` /
 * `ntp_upstream` to say it).  docs/checks.md documents every finding. */
#ifndef SYNCTOP_CONSISTENCY_H
#define SYNCTOP_CONSISTENCY_H

#include <stddef.h>

#include "node.h"
#include "node_settings.h"

#define CONSISTENCY_KEY_LEN 64 /* a chrony source name, a PTP identity */

typedef struct {
	/* PTP grandmasters, over nodes with a PTP answer naming one. */
	size_t gm_nodes;                          /* nodes that name a grandmaster */
	size_t n_gms;                             /* distinct grandmasters */
	char majority_gm[CONSISTENCY_KEY_LEN];    /* most followed; "" if none or tied */
	size_t majority_gm_nodes;                 /* nodes on it (the tied count when tied) */
	bool gm_tied;

	/* chrony references (as `chronyc -n` names them: an address or a
	 * refclock name), over synchronised chrony nodes not on `local`. */
	size_t reference_nodes;
	size_t n_references;
	char majority_reference[CONSISTENCY_KEY_LEN]; /* "" if none or tied */
	size_t majority_reference_nodes;
	bool reference_tied;
	size_t local_clock_nodes;                 /* serving their own clock (`local`) */

	/* Spreads (max - min) and medians of the nodes' own offset claims: the
	 * same nodes cluster_summarise() counts (cluster_chrony_offset() and
	 * cluster_ptp_offset()).  NAN when no node contributed. */
	size_t chrony_nodes;
	double chrony_spread_s;
	double chrony_median_s;
	size_t chrony_outliers;                   /* nodes given cluster.offset_spread */
	size_t ptp_nodes;
	double ptp_spread_ns;
	double ptp_median_ns;
	size_t ptp_outliers;                      /* nodes given cluster.ptp_spread */

	/* The independent clock check (node - client) over nodes that have one. */
	size_t clock_nodes;
	double clock_median_s;                    /* NAN when clock_nodes == 0 */

	size_t flagged_nodes;                     /* nodes with at least one cluster finding */
	size_t upstream_split_nodes;              /* nodes given cluster.upstream_split */
} consistency_summary;

/* Evaluates nodes[0..n) against each other and replaces every node's cluster
 * findings (health_set_cluster_findings(); nodes that did not answer their
 * last poll get none).  settings[i] belongs to nodes[i] (its thresholds,
 * ntp_upstream and grandmaster); NULL = built-in defaults for every node.
 * Run it after health_apply() of the polls it should see: it reads the nodes'
 * own findings so as not to repeat them.  O(n log n); allocates scratch
 * memory and frees it before returning.  out may be NULL. */
void consistency_evaluate(node *nodes, size_t n, const node_settings *settings,
			  consistency_summary *out);

#endif
