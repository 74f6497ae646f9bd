/* prometheus_map.h - Prometheus query answers into synctop's model: which
 * node each sample is about and which observation part it fills.  Pure:
 * answers in, nodes with observations out.
 *
 * One instant query per metric family and refresh, never one per node
 * (prometheus_map_query gives the PromQL):
 *   up                 scrape targets; a target that is down makes the nodes
 *                      it serves unknown
 *   node_uname_info    node_exporter's nodename, for naming by it
 *   node_timex_*       node_exporter's timex collector -> kernel_clock part
 *   timestamp(...)     when each target's timex / chrony series were scraped
 *   chrony_up, chrony_tracking_*, chrony_sources_*
 *                      chrony_exporter -> chrony part (tracking and sources)
 *   synctop_*          synctop's own --prometheus textfile -> the parts it
 *                      exported (chrony, selection, PTP, NIC, clock check)
 *   group by (instance, node) (last_over_time(...[10m]))
 *                      which nodes named by a `node` label each target
 *                      served lately: a target that goes down has its
 *                      series marked stale at once, its nodes stay known
 *   openshift_ptp_*    OpenShift's linuxptp-daemon -> PTP part (port roles,
 *                      offset, path delay, grandmaster clock class) and the
 *                      system clock's offset phc2sys reports (phc part)
 *
 * Node names: node_exporter's and chrony_exporter's series by `instance`
 * with the port stripped ("10.0.0.7:9100" -> "10.0.0.7"), or by another
 * label (prom_map_options.node_label), or "nodename" to take
 * node_uname_info's nodename of the same instance; synctop's own series and
 * linuxptp-daemon's by their `node` label, always.  What no series says stays unknown, never 0. */
#ifndef SYNCTOP_PROMETHEUS_MAP_H
#define SYNCTOP_PROMETHEUS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node.h"
#include "observation.h"
#include "prometheus_query.h"

typedef enum {
	PROM_Q_UP = 0,
	PROM_Q_UNAME,
	PROM_Q_TIMEX,
	PROM_Q_TIMEX_TIME,
	PROM_Q_CHRONY,
	PROM_Q_CHRONY_TIME,
	PROM_Q_SYNCTOP,
	PROM_Q_OPENSHIFT_PTP,
	PROM_Q_OPENSHIFT_TIME,
	PROM_Q_SERVED,
	PROM_Q_COUNT,
} prom_query_id;

/* A short name for messages: "up", "timex", ... */
const char *prometheus_map_query_name(prom_query_id id);

/* The selector is empty or "{matchers}" of at most PROM_SELECTOR_MAX
 * characters; 0, else -1 with a reason. */
#define PROM_SELECTOR_MAX 1024
int prometheus_map_check_selector(const char *selector, char *err, size_t err_len);

/* The PromQL of query id restricted by selector (checked as above).  The
 * length written, or -1 when it does not fit in len. */
int prometheus_map_query(prom_query_id id, const char *selector, char *buf, size_t len);
/* Room for any query prometheus_map_query writes: the family's matcher and
 * a selector of up to 1,024 characters (prometheus_map_check_selector). */
#define PROM_QUERY_MAX 4096

typedef struct {
	/* NULL: the defaults above; a label name; "nodename": join on
	 * node_uname_info.  Applies to node_exporter's and chrony_exporter's
	 * series (synctop's are named by `node`). */
	const char *node_label;
	double now;           /* client unix time */
	/* A node whose newest sample is older is stale: it keeps its values
	 * and reads unknown, as a node that stopped answering over SSH. */
	double stale_after_s;
} prom_map_options;

#define PROM_INSTANCE_LEN 128

typedef struct {
	char name[NODE_NAME_LEN];
	char instance[PROM_INSTANCE_LEN]; /* the scrape target of its first sample */
	observation obs;                  /* taken_at: its newest sample's time */
	bool has_data;                    /* a series about its clock, not only `up` */
	/* Non-empty: the node is unknown for this reason (its target is down,
	 * synctop could not poll it, its samples are stale); obs keeps what was
	 * known. */
	char error[NODE_ERROR_LEN];
	/* chrony_exporter's sources, while they are put together: bit i, the
	 * state of obs.chrony.sources[i] came; polls it answered of the last
	 * 8, and whether it answered the newest, each + 1 (0: not sent). */
	unsigned chrony_src_state;
	unsigned char chrony_src_answered[CHRONY_MAX_SOURCES];
	unsigned char chrony_src_newest[CHRONY_MAX_SOURCES];
	/* linuxptp-daemon: ptp4l's clock_state + 1 (0: not sent; the first
	 * not LOCKED of several), and whether its offset was the faulty marker */
	unsigned char openshift_clock_state;
	bool openshift_faulty_offset;
} prom_node;

typedef struct prom_index prom_index;

typedef struct {
	/* An eager map's nodes (prometheus_map_build, _adopt), in the order
	 * first seen, in an anonymous mapping of their own; NULL in an owning
	 * map (prometheus_map_build_owning), whose nodes are put together one
	 * at a time from their samples (ix) when asked for: a refresh of
	 * 10,000 nodes then never holds 10,000 observations (31 KiB each)
	 * beside the model's own, nor faults their pages in again at every
	 * refresh. */
	prom_node *nodes;
	size_t n_nodes;
	size_t cap;
	size_t released;      /* bytes at the start of nodes handed back */
	size_t *slots;        /* open-addressing index by name: node index + 1, 0 empty */
	size_t n_slots;
	size_t unnamed;       /* samples no node name could be found for */
	prom_index *ix;       /* an owning map's samples by node; NULL once eager */
} prom_map;

/* Builds the nodes from one refresh's answers; answers[id] NULL: that
 * query failed (the source reports it) and says nothing.  out is
 * initialised here, every node in it; free it with prometheus_map_free. */
void prometheus_map_build(const prom_vector *const answers[PROM_Q_COUNT], const prom_map_options *opt,
			  prom_map *out);

/* The same nodes, put together one at a time when prometheus_map_node or
 * _find asks for one.  The answers' samples move into out (each non-NULL
 * answers[id] is left empty); opt->node_label must outlive out. */
void prometheus_map_build_owning(prom_vector *answers[PROM_Q_COUNT], const prom_map_options *opt, prom_map *out);

/* Node i (< n_nodes), or NULL.  From an owning map it is put together in
 * one buffer the map keeps: valid until the next call for another node. */
/* An exporter's instance label as a node's name: "host:9100" -> "host",
 * "[fe80::1]:9100" -> "fe80::1"; a bare IPv6 address (more than one ':')
 * stays as it is.  Every query that names nodes by instance uses it, so a
 * node has one name whatever it was asked about. */
void prometheus_map_strip_port(const char *instance, char *out, size_t len);

const prom_node *prometheus_map_node(const prom_map *m, size_t i);

/* A digest of everything node i of an owning map is put together from
 * (its samples' values and labels, its target's `up` == 0), without putting
 * it together: equal digests in two refreshes give the same observation, so
 * a node whose samples did not change since the last refresh (most of them
 * when the refresh is more frequent than the scrape) need not be put
 * together again.  0, never equal: an eager map, or a node without a scrape
 * time (its observation is dated by the refresh itself). */
uint64_t prometheus_map_digest(const prom_map *m, size_t i);

/* Whether a node whose newest sample is from taken_at is stale as of this
 * map's refresh (what putting it together would say); true for an eager
 * map. */
bool prometheus_map_stale(const prom_map *m, double taken_at);

/* Node i's name without putting it together; NULL past the end. */
const char *prometheus_map_name(const prom_map *m, size_t i);

/* NULL for a name no node has, or whose node was released; as
 * prometheus_map_node otherwise. */
const prom_node *prometheus_map_find(const prom_map *m, const char *name);

/* An eager map: the caller has taken nodes[0, n) and will not read them
 * again: the memory pages wholly inside them go back to the system (they
 * then read as zeros: an empty name, found by no lookup). */
void prometheus_map_release_before(prom_map *m, size_t n);

void prometheus_map_free(prom_map *m);

/* Copies pn into m (an eager map, initialised or zeroed) unless m has a
 * node of its name: the merge of several maps, first come first kept.
 * false: it had. */
bool prometheus_map_adopt(prom_map *m, const prom_node *pn);

#endif
