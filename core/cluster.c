/* cluster.c - status counts, offset spread and grandmaster set of a fleet. */
#include <config.h>

#include "cluster.h"
#include "health.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "time_service.h"
#include "xalloc.h"

/* min/max over a stream of finite values */
typedef struct {
	size_t count;
	double min, max;
} range;

static void range_add(range *r, double v)
{
	if (!isfinite(v)) {
		return;
	}
	if (r->count == 0 || v < r->min) {
		r->min = v;
	}
	if (r->count == 0 || v > r->max) {
		r->max = v;
	}
	r->count++;
}

static void range_result(const range *r, size_t *count, double *max_abs, double *spread)
{
	*count = r->count;
	if (r->count == 0) {
		*max_abs = NAN;
		*spread = NAN;
		return;
	}
	*max_abs = fmax(fabs(r->min), fabs(r->max));
	*spread = r->max - r->min;
}

bool cluster_chrony_offset(const node *nd, double *offset_s)
{
	const chrony_obs *c = &nd->obs.chrony;
	const chrony_tracking *t = &c->tracking;
	if (!node_answered(nd) || c->state != OBS_OK || !isfinite(t->system_time_offset_s)) {
		return false;
	}
	if (t->leap != CHRONY_LEAP_NORMAL && t->leap != CHRONY_LEAP_INSERT &&
	    t->leap != CHRONY_LEAP_DELETE) {
		return false;
	}
	if (chrony_tracking_is_local(t)) {
		return false;
	}
	*offset_s = t->system_time_offset_s;
	return true;
}

bool cluster_service_offset(const node *nd, double *offset_s)
{
	if (cluster_chrony_offset(nd, offset_s)) {
		return true;
	}
	if (!node_answered(nd) || nd->obs.chrony.state == OBS_OK) {
		return false; /* a chrony node is judged by chrony's offset alone */
	}
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		time_service_view v;
		if (!c->daemon || c->daemon == DAEMON_CHRONYD || !c->time_service) {
			continue; /* the kernel's view (Prometheus) is no daemon's claim */
		}
		if (c->time_service(&nd->obs, &v) && v.referenced && isfinite(v.offset_s) &&
		    v.leap != CHRONY_LEAP_UNSYNC) {
			*offset_s = v.offset_s;
			return true;
		}
	}
	return false;
}

bool cluster_ptp_offset(const node *nd, int64_t *offset_ns)
{
	const ptp_obs *p = &nd->obs.ptp;
	if (!node_answered(nd) || p->state != OBS_OK || ptp_locked_port(p) == NULL ||
	    p->offset_from_master_ns == PTP_NS_UNKNOWN) {
		return false;
	}
	*offset_ns = p->offset_from_master_ns;
	return true;
}

node_status cluster_node_status(const node *nd)
{
	switch (nd->status) {
	case NODE_STATUS_OK:
	case NODE_STATUS_WARN:
	case NODE_STATUS_CRIT:
		return nd->status;
	case NODE_STATUS_UNKNOWN:
	case NODE_STATUS_PENDING: /* never a judged status */
		break;
	}
	return NODE_STATUS_UNKNOWN;
}

const char *cluster_gm_identity(const ptp_obs *ptp)
{
	if (ptp->grandmaster_identity[0] != '\0') {
		return ptp->grandmaster_identity;
	}
	return ptp->gm_identity;
}

const char *cluster_node_grandmaster(const ptp_obs *ptp)
{
	if (ptp->state != OBS_OK) {
		return NULL;
	}
	const char *id = cluster_gm_identity(ptp);
	if (id[0] == '\0') {
		return NULL;
	}
	if (ptp_following_port(ptp)) {
		return id;
	}
	for (int i = 0; i < ptp_port_count(ptp); i++) {
		ptp_port_state s = ptp->ports[i].state;
		if (s == PTP_PORT_MASTER || s == PTP_PORT_GRAND_MASTER) {
			return id;
		}
	}
	return NULL;
}

typedef struct {
	const char *identity;
	int clock_class;
} gm_seen;

static int cmp_identity(const void *a, const void *b)
{
	return strncmp(((const gm_seen *)a)->identity, ((const gm_seen *)b)->identity, PTP_ID_LEN);
}

typedef struct {
	const char *identity;
	size_t nodes;
	int clock_class;
} gm_run;

static int cmp_run(const void *a, const void *b)
{
	const gm_run *x = a, *y = b;
	if (x->nodes != y->nodes) {
		return x->nodes > y->nodes ? -1 : 1;
	}
	return strncmp(x->identity, y->identity, PTP_ID_LEN);
}

/* Sort the identities, count runs of equal ones, keep the most followed.
 * Exact for any number of distinct grandmasters, in O(n log n). */
static void count_grandmasters(const node *nodes, size_t n, cluster_summary *out)
{
	gm_seen *ids = xmalloc((n ? n : 1) * sizeof *ids);
	size_t n_ids = 0;

	for (size_t i = 0; i < n; i++) {
		const ptp_obs *ptp = &nodes[i].obs.ptp;
		if (!node_answered(&nodes[i]) || ptp->state != OBS_OK) {
			continue;
		}
		const char *id = cluster_node_grandmaster(ptp);
		if (id) {
			ids[n_ids].identity = id;
			ids[n_ids].clock_class = ptp->gm_clock_class;
			n_ids++;
		}
	}
	if (n_ids == 0) {
		free(ids);
		return;
	}
	qsort(ids, n_ids, sizeof *ids, cmp_identity);

	gm_run *runs = xmalloc(n_ids * sizeof *runs);
	size_t n_runs = 0;
	for (size_t i = 0; i < n_ids; i++) {
		if (n_runs > 0 && strncmp(runs[n_runs - 1].identity, ids[i].identity, PTP_ID_LEN) == 0) {
			runs[n_runs - 1].nodes++;
			if (ids[i].clock_class > runs[n_runs - 1].clock_class) {
				runs[n_runs - 1].clock_class = ids[i].clock_class; /* INT_UNKNOWN is below all */
			}
		} else {
			runs[n_runs].identity = ids[i].identity;
			runs[n_runs].nodes = 1;
			runs[n_runs].clock_class = ids[i].clock_class;
			n_runs++;
		}
	}
	qsort(runs, n_runs, sizeof *runs, cmp_run);

	out->n_gms = n_runs < CLUSTER_MAX_GMS ? n_runs : CLUSTER_MAX_GMS;
	out->gms_more = n_runs - out->n_gms;
	for (size_t i = 0; i < out->n_gms; i++) {
		size_t len = strnlen(runs[i].identity, PTP_ID_LEN - 1);
		memcpy(out->gms[i].identity, runs[i].identity, len);
		out->gms[i].identity[len] = '\0';
		out->gms[i].nodes = runs[i].nodes;
		out->gms[i].clock_class = runs[i].clock_class;
	}
	free(runs);
	free(ids);
}

static void note_upstream_split(const node *nd, cluster_summary *out)
{
	int count = nd->findings.count < MAX_FINDINGS ? nd->findings.count : MAX_FINDINGS;
	for (int k = 0; k < count; k++) {
		const finding *f = &nd->findings.items[k];
		if (f->code && strcmp(f->code, "cluster.upstream_split") == 0) {
			if (out->upstream_split_nodes++ == 0) {
				memcpy(out->upstream_split, f->message, sizeof out->upstream_split);
				out->upstream_split[sizeof out->upstream_split - 1] = '\0';
			}
			return;
		}
	}
}

void cluster_summarise(const node *nodes, size_t n, cluster_summary *out)
{
	range chrony = {0}, ptp = {0}, service = {0};

	memset(out, 0, sizeof *out);
	out->nodes = n;
	for (size_t i = 0; i < n; i++) {
		const node *nd = &nodes[i];

		switch (cluster_node_status(nd)) {
		case NODE_STATUS_OK:
			out->ok++;
			break;
		case NODE_STATUS_WARN:
			out->warn++;
			break;
		case NODE_STATUS_CRIT:
			out->crit++;
			break;
		case NODE_STATUS_UNKNOWN:
		case NODE_STATUS_PENDING:
			out->unknown++;
			break;
		}
		out->shown[health_live_status(nd)]++;

		double offset_s;
		int64_t offset_ns;
		if (cluster_chrony_offset(nd, &offset_s)) {
			range_add(&chrony, offset_s);
		}
		if (cluster_service_offset(nd, &offset_s)) {
			range_add(&service, offset_s);
		}
		if (cluster_ptp_offset(nd, &offset_ns)) {
			range_add(&ptp, (double)offset_ns);
		}
		note_upstream_split(nd, out);
	}
	range_result(&chrony, &out->chrony_nodes, &out->max_abs_offset_s, &out->offset_spread_s);
	range_result(&ptp, &out->ptp_nodes, &out->ptp_max_abs_offset_ns, &out->ptp_offset_spread_ns);
	range_result(&service, &out->service_nodes, &out->service_max_abs_offset_s, &out->service_offset_spread_s);
	count_grandmasters(nodes, n, out);
}
