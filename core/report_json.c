/* report_json.c - build and print the JSON snapshot (shape in report_json.h). */
#include <config.h>

#include "report_json.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "sanitize.h"

/* Largest model string is 256 bytes; sanitising can triple it. */
#define TEXT_BUF 1024

/* json_object_set_new() and json_array_append_new() take the value even when
 * they fail; a NULL value or container means allocation failed somewhere, and
 * *ok carries that up so the whole build returns NULL. */
static void put(json_t *obj, const char *key, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(obj, key, v) != 0) {
		*ok = false;
	}
}

static void append(json_t *arr, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(arr, v) != 0) {
		*ok = false;
	}
}

/* A sanitised copy of a fixed-size model string; null when it is empty. */
static json_t *jtext(const char *s, size_t max)
{
	char buf[TEXT_BUF];
	size_t len = sanitize_text(s, strnlen(s, max), buf, sizeof buf, 0);
	return len > 0 ? json_string(buf) : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jint(int v)
{
	return v == INT_UNKNOWN ? json_null() : json_integer(v);
}

static json_t *jns(int64_t v)
{
	return v == PTP_NS_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

/* 0/1 flags with INT_UNKNOWN */
static json_t *jflag(int v)
{
	return v == INT_UNKNOWN ? json_null() : json_boolean(v != 0);
}

/* A whole number held in a double: an integer while it fits one. */
static json_t *jwhole(double v)
{
	if (!isfinite(v)) {
		return json_null();
	}
	return fabs(v) < 9.2e18 ? json_integer((json_int_t)v) : json_real(v);
}

static json_t *jcount(size_t v)
{
	return json_integer((json_int_t)v);
}

/* "2026-01-31T12:34:56.789Z", or null when t is not a representable time. */
static json_t *jtime(double t)
{
	if (!isfinite(t) || fabs(t) > 1e15) {
		return json_null();
	}
	long long ms = llround(t * 1000.0);
	long long sec = ms / 1000;
	long long frac = ms % 1000;
	if (frac < 0) {
		frac += 1000;
		sec--;
	}
	time_t tt = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
		return json_null();
	}
	char buf[80]; /* the compiler cannot see the ranges of tm fields */
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	return json_string(buf);
}

/* The error of a part that failed: its own text, else the state's name. */
static json_t *jpart_error(obs_state state, const char *error, size_t max)
{
	if (state == OBS_OK) {
		return json_null();
	}
	json_t *e = jtext(error, max);
	if (json_is_null(e)) {
		json_decref(e);
		e = json_string(obs_state_name(state));
	}
	return e;
}

/* ------------------------------------------------------------------ chrony */

static json_t *jsource_mode(chrony_source_mode mode)
{
	switch (mode) {
	case CHRONY_MODE_SERVER: return json_string("server");
	case CHRONY_MODE_PEER: return json_string("peer");
	case CHRONY_MODE_REFCLOCK: return json_string("refclock");
	case CHRONY_MODE_UNKNOWN: break;
	}
	return json_null();
}

static json_t *jsource_state(chrony_source_state state)
{
	switch (state) {
	case CHRONY_STATE_SELECTED: return json_string("selected");
	case CHRONY_STATE_COMBINED: return json_string("combined");
	case CHRONY_STATE_NOT_COMBINED: return json_string("not_combined");
	case CHRONY_STATE_FALSETICKER: return json_string("falseticker");
	case CHRONY_STATE_JITTERY: return json_string("jittery");
	case CHRONY_STATE_UNUSABLE: return json_string("unusable");
	case CHRONY_STATE_UNKNOWN: break;
	}
	return json_null();
}

static int clamp_count(int n, int max)
{
	if (n < 0) {
		return 0;
	}
	return n < max ? n : max;
}

static json_t *chrony_sources_json(const chrony_obs *c, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < clamp_count(c->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_source *s = &c->sources[i];
		json_t *o = json_object();
		put(o, "mode", jsource_mode(s->mode), ok);
		put(o, "state", jsource_state(s->state), ok);
		put(o, "name", jtext(s->name, sizeof s->name), ok);
		put(o, "stratum", jint(s->stratum), ok);
		put(o, "poll", jint(s->poll), ok);
		put(o, "reach", json_integer(s->reach), ok);
		/* -1 means chrony never got a sample from it */
		put(o, "last_rx_s", s->last_rx_s < 0 ? json_null() : json_integer((json_int_t)s->last_rx_s), ok);
		put(o, "adjusted_offset_s", jnum(s->adjusted_offset_s), ok);
		put(o, "measured_offset_s", jnum(s->measured_offset_s), ok);
		put(o, "error_s", jnum(s->error_s), ok);
		append(arr, o, ok);
	}
	return arr;
}

static json_t *chrony_sourcestats_json(const chrony_obs *c, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < clamp_count(c->n_sourcestats, CHRONY_MAX_SOURCES); i++) {
		const chrony_sourcestat *s = &c->sourcestats[i];
		json_t *o = json_object();
		put(o, "name", jtext(s->name, sizeof s->name), ok);
		put(o, "samples", jint(s->samples), ok);
		put(o, "runs", jint(s->runs), ok);
		put(o, "span_s", jint(s->span_s), ok);
		put(o, "frequency_ppm", jnum(s->frequency_ppm), ok);
		put(o, "skew_ppm", jnum(s->skew_ppm), ok);
		put(o, "offset_s", jnum(s->offset_s), ok);
		put(o, "std_dev_s", jnum(s->std_dev_s), ok);
		append(arr, o, ok);
	}
	return arr;
}

static json_t *chrony_json(const chrony_obs *c, bool *ok)
{
	if (c->state == OBS_NOT_COLLECTED || c->state == OBS_TOOL_MISSING) {
		return json_null();
	}
	bool good = c->state == OBS_OK;
	/* A failed part may hold half-parsed values; show none of them, by
	 * rendering a blank tracking record through the same code. */
	chrony_obs blank;
	const chrony_tracking *t = &c->tracking;
	if (!good) {
		chrony_obs_init(&blank);
		t = &blank.tracking;
	}

	json_t *o = json_object();
	put(o, "error", jpart_error(c->state, c->error, sizeof c->error), ok);
	put(o, "leap_status",
	    t->leap == CHRONY_LEAP_UNKNOWN ? json_null() : json_string(chrony_leap_name(t->leap)), ok);
	put(o, "stratum", jint(t->stratum), ok);
	if (t->has_reference_id) {
		char id[16];
		snprintf(id, sizeof id, "%08X", (unsigned)t->reference_id);
		put(o, "reference_id", json_string(id), ok);
	} else {
		put(o, "reference_id", json_null(), ok);
	}
	put(o, "reference_name", jtext(t->reference_name, sizeof t->reference_name), ok);
	put(o, "system_time_offset_s", jnum(t->system_time_offset_s), ok);
	put(o, "last_offset_s", jnum(t->last_offset_s), ok);
	put(o, "rms_offset_s", jnum(t->rms_offset_s), ok);
	put(o, "frequency_ppm", jnum(t->frequency_ppm), ok);
	put(o, "residual_frequency_ppm", jnum(t->residual_frequency_ppm), ok);
	put(o, "skew_ppm", jnum(t->skew_ppm), ok);
	put(o, "root_delay_s", jnum(t->root_delay_s), ok);
	put(o, "root_dispersion_s", jnum(t->root_dispersion_s), ok);
	put(o, "update_interval_s", jnum(t->update_interval_s), ok);
	put(o, "sources_total", good ? json_integer(c->n_sources_total < 0 ? 0 : c->n_sources_total) : json_null(), ok);
	put(o, "sources", good ? chrony_sources_json(c, ok) : json_null(), ok);
	put(o, "sourcestats", good ? chrony_sourcestats_json(c, ok) : json_null(), ok);
	return o;
}

/* --------------------------------------------------------------------- PTP */

static json_t *jport_state(ptp_port_state state)
{
	return state == PTP_PORT_UNKNOWN ? json_null() : json_string(ptp_port_state_name(state));
}

static json_t *ptp_ports_json(const ptp_obs *p, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < ptp_port_count(p); i++) {
		const ptp_port *port = &p->ports[i];
		json_t *o = json_object();
		put(o, "port_identity", jtext(port->port_identity, sizeof port->port_identity), ok);
		put(o, "port_number", jint(port->port_number), ok);
		put(o, "state", jport_state(port->state), ok);
		put(o, "peer_mean_path_delay_ns", jns(port->peer_mean_path_delay_ns), ok);
		put(o, "log_sync_interval", jint(port->log_sync_interval), ok);
		put(o, "delay_mechanism", jint(port->delay_mechanism), ok);
		put(o, "interface", jtext(port->interface, sizeof port->interface), ok);
		put(o, "timestamping", jtext(port->timestamping, sizeof port->timestamping), ok);
		append(arr, o, ok);
	}
	return arr;
}

/* No ptp4l on this node at all, as opposed to a ptp4l that does not answer. */
static bool ptp_absent(const ptp_obs *p, const daemons_obs *d)
{
	if (p->state == OBS_NOT_COLLECTED || p->state == OBS_TOOL_MISSING) {
		return true;
	}
	return p->state == OBS_DAEMON_UNREACHABLE && d->state == OBS_OK && !(d->running & DAEMON_PTP4L);
}

static json_t *ptp_json(const ptp_obs *ptp, const daemons_obs *d, bool *ok)
{
	if (ptp_absent(ptp, d)) {
		return json_null();
	}
	bool good = ptp->state == OBS_OK;
	ptp_obs blank;
	const ptp_obs *p = ptp;
	if (!good) {
		ptp_obs_init(&blank);
		p = &blank;
	}

	const ptp_port *port = ptp_primary_port(p);
	json_t *o = json_object();
	put(o, "error", jpart_error(ptp->state, ptp->error, sizeof ptp->error), ok);
	put(o, "port_state", port ? jport_state(port->state) : json_null(), ok);
	/* ptp4l's last values linger after the port stops following: null */
	bool current = ptp_following_port(p) != NULL;
	put(o, "offset_from_master_ns", current ? jns(p->offset_from_master_ns) : json_null(), ok);
	put(o, "mean_path_delay_ns", current ? jns(p->mean_path_delay_ns) : json_null(), ok);
	const char *gm = cluster_node_grandmaster(p);
	put(o, "gm_identity", gm ? jtext(gm, PTP_ID_LEN) : json_null(), ok);
	put(o, "gm_present", jflag(p->gm_present), ok);
	put(o, "steps_removed", jint(p->steps_removed), ok);
	put(o, "clock_identity", jtext(p->clock_identity, sizeof p->clock_identity), ok);
	put(o, "domain_number", jint(p->domain_number), ok);
	put(o, "current_utc_offset", jint(p->current_utc_offset), ok);
	put(o, "ports", good ? ptp_ports_json(p, ok) : json_null(), ok);
	return o;
}

/* --------------------------------------------------------------------- NIC */

static json_t *nic_json(const nic_obs *nic, bool *ok)
{
	if (nic->state == OBS_NOT_COLLECTED || nic->state == OBS_TOOL_MISSING) {
		return json_null();
	}
	bool good = nic->state == OBS_OK;
	json_t *o = json_object();
	put(o, "error", jpart_error(nic->state, nic->error, sizeof nic->error), ok);
	/* the interface is what we asked about, known even when ethtool failed */
	put(o, "interface", jtext(nic->interface, sizeof nic->interface), ok);
	put(o, "hw_transmit", good ? json_boolean(nic->caps & NIC_CAP_HW_TX) : json_null(), ok);
	put(o, "hw_receive", good ? json_boolean(nic->caps & NIC_CAP_HW_RX) : json_null(), ok);
	put(o, "hw_raw_clock", good ? json_boolean(nic->caps & NIC_CAP_HW_RAW_CLOCK) : json_null(), ok);
	put(o, "phc_index", good && nic->phc_index >= 0 ? json_integer(nic->phc_index) : json_null(), ok);
	return o;
}

/* ---------------------------------------------------- the clock check */

static json_t *clock_json(const clock_check_obs *cc, bool *ok)
{
	if (cc->state == OBS_NOT_COLLECTED) {
		return json_null();
	}
	bool good = cc->state == OBS_OK;
	json_t *o = json_object();
	put(o, "error", jpart_error(cc->state, cc->error, sizeof cc->error), ok);
	put(o, "offset_s", good ? jnum(cc->offset_s) : json_null(), ok);
	put(o, "uncertainty_s", good ? jnum(cc->uncertainty_s) : json_null(), ok);
	put(o, "exchanges", json_integer(cc->exchanges), ok);
	put(o, "measured_at", good ? jtime(cc->measured_at) : json_null(), ok);
	return o;
}

/* ---------------------------------------------------------------- the rest */

static json_t *findings_json(const finding_list *list, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < clamp_count(list->count, MAX_FINDINGS); i++) {
		const finding *f = &list->items[i];
		json_t *o = json_object();
		put(o, "severity", json_string(severity_name(f->sev)), ok);
		put(o, "code", f->code ? jtext(f->code, FINDING_MESSAGE_LEN) : json_null(), ok);
		put(o, "message", jtext(f->message, sizeof f->message), ok);
		put(o, "hint", jtext(f->hint, sizeof f->hint), ok);
		append(arr, o, ok);
	}
	return arr;
}

static json_t *node_json(const node *nd, bool *ok)
{
	const observation *obs = &nd->obs;
	/* without a completed poll, obs holds nothing worth printing */
	bool has = nd->has_observation;
	char host[TEXT_BUF];

	sanitize_text(nd->host, strnlen(nd->host, sizeof nd->host), host, sizeof host, SANITIZE_SINGLE_LINE);
	json_t *o = json_object();
	put(o, "host", json_string(host), ok);
	put(o, "status", json_string(node_status_name(cluster_node_status(nd))), ok);
	put(o, "reachable", json_boolean(nd->reachable), ok);
	put(o, "error", jtext(nd->error, sizeof nd->error), ok);
	put(o, "observed_at", has ? jtime(obs->taken_at) : json_null(), ok);
	put(o, "rtt_s", has ? jnum(obs->rtt_s) : json_null(), ok);
	put(o, "chrony", has ? chrony_json(&obs->chrony, ok) : json_null(), ok);
	put(o, "ptp", has ? ptp_json(&obs->ptp, &obs->daemons, ok) : json_null(), ok);
	put(o, "nic", has ? nic_json(&obs->nic, ok) : json_null(), ok);
	put(o, "clock_check", has ? clock_json(&obs->clock, ok) : json_null(), ok);
	put(o, "findings", findings_json(&nd->findings, ok), ok);
	return o;
}

static json_t *summary_json(const cluster_summary *s, bool *ok)
{
	json_t *o = json_object();
	put(o, "nodes", jcount(s->nodes), ok);
	put(o, "ok", jcount(s->ok), ok);
	put(o, "warn", jcount(s->warn), ok);
	put(o, "crit", jcount(s->crit), ok);
	put(o, "unknown", jcount(s->unknown), ok);
	put(o, "max_abs_offset_s", jnum(s->max_abs_offset_s), ok);
	put(o, "offset_spread_s", jnum(s->offset_spread_s), ok);
	put(o, "ptp_max_abs_offset_ns", jwhole(s->ptp_max_abs_offset_ns), ok);
	put(o, "ptp_offset_spread_ns", jwhole(s->ptp_offset_spread_ns), ok);

	json_t *gms = json_array();
	for (size_t i = 0; i < s->n_gms && i < CLUSTER_MAX_GMS; i++) {
		json_t *gm = json_object();
		put(gm, "identity", jtext(s->gms[i].identity, sizeof s->gms[i].identity), ok);
		put(gm, "nodes", jcount(s->gms[i].nodes), ok);
		append(gms, gm, ok);
	}
	put(o, "grandmasters", gms, ok);
	put(o, "grandmasters_more", jcount(s->gms_more), ok);
	return o;
}

json_t *report_json_build(const node *nodes, size_t n, double generated_at)
{
	cluster_summary summary;
	bool ok = true;

	cluster_summarise(nodes, n, &summary);

	json_t *root = json_object();
	put(root, "version", json_integer(REPORT_JSON_VERSION), &ok);
	put(root, "generated_at", jtime(generated_at), &ok);
	put(root, "summary", summary_json(&summary, &ok), &ok);
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		append(arr, node_json(&nodes[i], &ok), &ok);
	}
	put(root, "nodes", arr, &ok);

	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int report_json_write(FILE *f, const node *nodes, size_t n, double generated_at)
{
	json_t *root = report_json_build(nodes, n, generated_at);
	if (!root) {
		return -1;
	}
	int rc = json_dumpf(root, f, JSON_INDENT(2));
	json_decref(root);
	if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0) {
		return -1;
	}
	return 0;
}
