/* cluster.h - the fleet at a glance: status counts, offset spread and the
 * grandmasters the nodes follow, summarised from already evaluated nodes.
 *
 * Offsets only count for nodes that answered the last poll (reachable, with
 * an observation): a stale offset from a node we lost says nothing about how
 * far apart the fleet is now. */
#ifndef SYNCTOP_CLUSTER_H
#define SYNCTOP_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "finding.h"
#include "node.h"

#define CLUSTER_MAX_GMS 8

typedef struct {
	char identity[PTP_ID_LEN];
	size_t nodes; /* nodes that name this grandmaster */
	/* its gm.ClockClass (PARENT_DATA_SET) as those nodes report it; should
	 * they differ (a class change seen mid-sweep), the highest number, the
	 * least good in IEEE 1588's order; INT_UNKNOWN when none knows it */
	int clock_class;
} cluster_gm;

typedef struct {
	size_t nodes;
	size_t ok, warn, crit, unknown; /* by node status */
	/* by the status the live view shows (health_live_status): counts
	 * pending apart; equal to the above when nothing waits */
	size_t shown[NODE_STATUS_PENDING + 1];

	/* chrony "System time" offset (node - reference) over the nodes
	 * cluster_chrony_offset() accepts. */
	size_t chrony_nodes;      /* nodes that contributed */
	double max_abs_offset_s;  /* max |offset|; NAN when chrony_nodes == 0 */
	double offset_spread_s;   /* max - min; NAN when chrony_nodes == 0 */

	/* PTP offsetFromMaster over the nodes cluster_ptp_offset() accepts. */
	size_t ptp_nodes;
	double ptp_max_abs_offset_ns; /* NAN when ptp_nodes == 0 */
	double ptp_offset_spread_ns;  /* NAN when ptp_nodes == 0 */

	/* Grandmaster identities as the nodes with a PTP answer report them (a
	 * master or free-running clock names itself), most followed first, ties
	 * by identity.  More than one usually means a split domain. */
	size_t n_gms;
	cluster_gm gms[CLUSTER_MAX_GMS];
	size_t gms_more; /* further distinct identities not listed */

	/* Nodes carrying cluster.upstream_split (consistency.h: --config groups
	 * that follow different upstreams and drift apart), and the message of
	 * the first one, for the header; "" when none. */
	size_t upstream_split_nodes;
	char upstream_split[FINDING_MESSAGE_LEN];

	/* Every NTP daemon's offset over the nodes cluster_service_offset()
	 * accepts (chronyd's as above, else ntpd's, openntpd's or
	 * systemd-timesyncd's): the check and text summaries' max |offset| and
	 * spread.  The chrony-only fields above stay what JSON and Prometheus
	 * export. */
	size_t service_nodes;
	double service_max_abs_offset_s; /* NAN when service_nodes == 0 */
	double service_offset_spread_s;  /* NAN when service_nodes == 0 */
} cluster_summary;

/* Pure: reads nodes[0..n), fills *out completely. */
/* The offset (node - reference) of the NTP daemon that keeps the node's
 * time: chronyd's where cluster_chrony_offset accepts it; on a node whose
 * chrony did not answer, the first other daemon collector (ntpd, openntpd,
 * systemd-timesyncd: collector.h time_service) that has a reference and a
 * finite offset, leap not unsynchronised.  False when none. */
bool cluster_service_offset(const node *nd, double *offset_s);

void cluster_summarise(const node *nodes, size_t n, cluster_summary *out);

/* A node's status as the summary counts it: a value that is not ok, warn or
 * crit counts as unknown.  The sinks name statuses through this so they all
 * agree with the counts. */
node_status cluster_node_status(const node *nd);

/* The grandmaster a PTP answer names: PARENT_DATA_SET's grandmasterIdentity,
 * else TIME_STATUS_NP's gmIdentity; "" when neither is known.  Points into
 * ptp; read at most PTP_ID_LEN bytes.  Shared by the sinks so the JSON and
 * the summary name the same clock. */
const char *cluster_gm_identity(const ptp_obs *ptp);

/* The grandmaster whose time this node keeps: the one it follows (a port
 * SLAVE or UNCALIBRATED), or itself when a port is MASTER or GRAND_MASTER.
 * NULL otherwise, and when pmc did not answer: a LISTENING or FAULTY ptp4l
 * names its own clock as grandmaster, which is nobody's time, so such a
 * node is neither counted among a fleet's grandmasters nor judged by them. */
const char *cluster_node_grandmaster(const ptp_obs *ptp);

/* Whether a node's own offset claim counts towards the fleet's spread, and
 * that offset.  Shared with the consistency checks (consistency.h) so the
 * header's spread and the findings about it count the same nodes. */

/* The chrony System time offset of a node that answered its last poll with
 * chrony OK and synchronised to an external reference: an unsynchronised
 * chronyd reports a placeholder 0 and one serving its own clock (`local`,
 * reference ID 7F7F0101) is 0 against itself by definition. */
bool cluster_chrony_offset(const node *nd, double *offset_s);

/* offsetFromMaster of a node that answered its last poll with a SLAVE port
 * (a master's offset means nothing). */
bool cluster_ptp_offset(const node *nd, int64_t *offset_ns);

#endif
