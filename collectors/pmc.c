/* pmc.c - the PTP collector: linuxptp's `pmc` asking the local ptp4l for
 * its data sets over its Unix socket (-u, boundary hops 0), parsed by
 * pmc_parse.c.  `--sudo` (old name `--pmc-sudo`) runs it through `sudo -n`
 * where the socket is root-only.  The node's CLOCK_REALTIME is read just
 * before and after pmc, for the age of the last Sync (pmc_sync.h). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "collector.h"
#include "json_value.h"
#include "pmc_instances.h"
#include "pmc_instances_rules.h"
#include "pmc_parse.h"
#include "pmc_sync.h"
#include "ptp_sync.h"
#include "system_clock.h"
#include "units.h"
#include "xalloc.h"

/* One ptp4l: the section is pmc's.  Several (or one that had to be found):
 * each instance's, and ptp the one that speaks for the node. */
static void pmc_decode(const tool_output *out, observation *obs)
{
	int more = 0;
	int n = pmc_instances_parse(out, obs->ptp_instances, PTP_MAX_INSTANCES, &more);
	if (n == 0) {
		pmc_parse(out, &obs->ptp);
		return;
	}
	obs->n_ptp_instances = n;
	obs->ptp_primary = pmc_instances_primary(obs->ptp_instances, n);
	obs->ptp = obs->ptp_instances[obs->ptp_primary].ptp;
	if (more > 0 && obs->ptp.state == OBS_OK && !obs->ptp.error[0]) {
		snprintf(obs->ptp.error, sizeof obs->ptp.error, "%d more ptp4l instance(s) not kept (limit %d)", more,
			 PTP_MAX_INSTANCES);
	}
}

/* ptp4l keeps its last offset and path delay after the port stops following
 * a master: only a following port's values are history. */
static void pmc_history(const observation *obs, history_sample *sample)
{
	const ptp_obs *p = &obs->ptp;
	if (ptp_following_port(p) == NULL) {
		return;
	}
	if (p->offset_from_master_ns != PTP_NS_UNKNOWN) {
		sample->value[HISTORY_PTP_OFFSET_NS] = (float)p->offset_from_master_ns;
	}
	if (p->mean_path_delay_ns != PTP_NS_UNKNOWN) {
		sample->value[HISTORY_PATH_DELAY_NS] = (float)p->mean_path_delay_ns;
	}
}

static const threshold_key pmc_keys[] = {
	THRESHOLD_KEY(ptp_offset_warn_ns, THRESHOLD_INT64, "ptp_offset_crit_ns"),
	THRESHOLD_KEY(ptp_offset_crit_ns, THRESHOLD_INT64, NULL),
	THRESHOLD_KEY(ptp_path_delay_jump_warn_ratio, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(ptp_path_delay_min_samples, THRESHOLD_INT, NULL),
	/* warn and crit count different intervals: no warn <= crit check */
	THRESHOLD_KEY(ptp_sync_age_warn_intervals, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(ptp_sync_age_crit_receipt_timeouts, THRESHOLD_DOUBLE, NULL),
};

/* The rx Sync count's baseline comes from the previous poll (pmc_sync.h). */
static void pmc_compare(observation *now, const observation *before)
{
	pmc_sync_compare(&now->ptp, now->taken_at, &before->ptp, before->taken_at);
	/* each instance against the same socket's last answer */
	for (int i = 0; i < now->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		ptp_instance *inst = &now->ptp_instances[i];
		for (int k = 0; k < before->n_ptp_instances && k < PTP_MAX_INSTANCES; k++) {
			const ptp_instance *was = &before->ptp_instances[k];
			if (strcmp(was->socket, inst->socket) == 0 && strcmp(was->config, inst->config) == 0) {
				pmc_sync_compare(&inst->ptp, now->taken_at, &was->ptp, before->taken_at);
				break;
			}
		}
	}
}

static json_t *jcount(int64_t v)
{
	return v == PTP_COUNT_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

static json_t *jport_state(ptp_port_state state)
{
	return state == PTP_PORT_UNKNOWN ? json_null() : json_string(ptp_port_state_name(state));
}

static json_t *ptp_ports_json(const ptp_obs *p, double taken_at, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < ptp_port_count(p); i++) {
		const ptp_port *port = &p->ports[i];
		json_t *o = json_object();
		json_value_put(o, "port_identity", json_value_text(port->port_identity, sizeof port->port_identity), ok);
		json_value_put(o, "port_number", json_value_int(port->port_number), ok);
		json_value_put(o, "state", jport_state(port->state), ok);
		json_value_put(o, "peer_mean_path_delay_ns", json_value_ns(port->peer_mean_path_delay_ns), ok);
		json_value_put(o, "log_sync_interval", json_value_int(port->log_sync_interval), ok);
		json_value_put(o, "delay_mechanism", json_value_int(port->delay_mechanism), ok);
		json_value_put(o, "interface", json_value_text(port->interface, sizeof port->interface), ok);
		json_value_put(o, "timestamping", json_value_text(port->timestamping, sizeof port->timestamping), ok);
		const ptp_port_sync *s = &port->sync;
		json_value_put(o, "log_announce_interval", json_value_int(s->log_announce_interval), ok);
		json_value_put(o, "announce_receipt_timeout", json_value_int(s->announce_receipt_timeout), ok);
		json_value_put(o, "rx_sync", jcount(s->rx_sync), ok);
		json_value_put(o, "rx_follow_up", jcount(s->rx_follow_up), ok);
		json_value_put(o, "rx_delay_resp", jcount(s->rx_delay_resp), ok);
		json_value_put(o, "rx_announce", jcount(s->rx_announce), ok);
		json_value_put(o, "tx_sync", jcount(s->tx_sync), ok);
		json_value_put(o, "tx_delay_req", jcount(s->tx_delay_req), ok);
		json_value_put(o, "tx_announce", jcount(s->tx_announce), ok);
		json_value_put(o, "announce_timeouts", jcount(s->announce_timeouts), ok);
		json_value_put(o, "sync_timeouts", jcount(s->sync_timeouts), ok);
		json_value_put(o, "rx_sync_unchanged_s", json_value_number(ptp_sync_still_s(port, taken_at)), ok);
		json_value_append(arr, o, ok);
	}
	return arr;
}

/* No ptp4l on this node at all, as opposed to a ptp4l that does not answer. */
static bool ptp_absent(const ptp_obs *p, const daemons_obs *d)
{
	if (obs_state_absent(p->state)) {
		return true;
	}
	return p->state == OBS_DAEMON_UNREACHABLE && d->state == OBS_OK && !(d->running & DAEMON_PTP4L);
}

static bool ptp_absent_of(const observation *obs)
{
	return ptp_absent(&obs->ptp, &obs->daemons);
}

static obs_state pmc_part_state(const observation *obs)
{
	return obs->ptp.state;
}

static expectation pmc_expectation(const thresholds *th)
{
	return th->expect_ptp;
}

static json_t *ptp_json(const observation *obs, bool *ok)
{
	const ptp_obs *ptp = &obs->ptp;
	const daemons_obs *d = &obs->daemons;
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
	json_value_put(o, "error", json_value_part_error(ptp->state, ptp->error, sizeof ptp->error), ok);
	json_value_put(o, "port_state", port ? jport_state(port->state) : json_null(), ok);
	/* ptp4l's last values linger after the port stops following: null */
	bool current = ptp_following_port(p) != NULL;
	json_value_put(o, "offset_from_master_ns", current ? json_value_ns(p->offset_from_master_ns) : json_null(), ok);
	json_value_put(o, "mean_path_delay_ns", current ? json_value_ns(p->mean_path_delay_ns) : json_null(), ok);
	const char *gm = cluster_node_grandmaster(p);
	json_value_put(o, "gm_identity", gm ? json_value_text(gm, PTP_ID_LEN) : json_null(), ok);
	json_value_put(o, "gm_present", json_value_flag(p->gm_present), ok);
	json_value_put(o, "steps_removed", json_value_int(p->steps_removed), ok);
	json_value_put(o, "clock_identity", json_value_text(p->clock_identity, sizeof p->clock_identity), ok);
	json_value_put(o, "domain_number", json_value_int(p->domain_number), ok);
	json_value_put(o, "current_utc_offset", json_value_int(p->current_utc_offset), ok);
	json_value_put(o, "ports", good ? ptp_ports_json(p, obs->taken_at, ok) : json_null(), ok);
	json_value_put(o, "last_sync_age_s", json_value_number(ptp_sync_last_age_s(obs)), ok);
	/* system clock - PHC (system_clock.h); details in the "phc" object */
	json_value_put(o, "phc_sys_offset_ns", json_value_ns(phc_sys_offset_ns(obs)), ok);
	/* The grandmaster's quality, null wherever gm_identity is: a LISTENING
	 * or FAULTY ptp4l reports its own defaults as if it were one. */
	/* a port following a master has one even when its identity is not known
	 * (linuxptp-daemon's series through Prometheus name no grandmaster) */
	json_value_put(o, "gm_clock_class", gm || current ? json_value_int(p->gm_clock_class) : json_null(), ok);
	json_value_put(o, "gm_clock_accuracy", gm ? json_value_int(p->gm_clock_accuracy) : json_null(), ok);
	json_value_put(o, "gm_offset_scaled_log_variance",
		       gm ? json_value_int(p->gm_offset_scaled_log_variance) : json_null(), ok);
	/* TIME_PROPERTIES_DATA_SET as ptp4l holds it (from the grandmaster's
	 * Announce, or its own when it is one), like current_utc_offset */
	json_value_put(o, "time_source", json_value_int(p->time_source), ok);
	json_value_put(o, "ptp_timescale", json_value_flag(p->ptp_timescale), ok);
	json_value_put(o, "time_traceable", json_value_flag(p->time_traceable), ok);
	json_value_put(o, "frequency_traceable", json_value_flag(p->frequency_traceable), ok);
	return o;
}

/* Every instance found, or NULL where pmc asked pmc's default socket only
 * (the node object then has no "ptp_instances" at all).  Each has the
 * "ptp" object of a lone ptp4l; the PHC read (phc_sys_offset_ns) belongs
 * to the primary instance only. */
static json_t *ptp_instances_json(const observation *obs, bool *ok)
{
	if (obs->n_ptp_instances <= 0) {
		return NULL;
	}
	json_t *arr = json_array();
	observation *one = xmalloc(sizeof *one);
	for (int i = 0; i < obs->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		const ptp_instance *inst = &obs->ptp_instances[i];
		*one = *obs;
		one->ptp = inst->ptp;
		one->n_ptp_instances = 0;
		if (i != obs->ptp_primary) {
			phc_obs_init(&one->phc);
		}
		json_t *o = json_object();
		json_value_put(o, "socket", json_value_text(inst->socket, sizeof inst->socket), ok);
		json_value_put(o, "config", json_value_text(inst->config, sizeof inst->config), ok);
		json_value_put(o, "config_error", json_value_text(inst->config_error, sizeof inst->config_error), ok);
		json_value_put(o, "primary", json_boolean(i == obs->ptp_primary), ok);
		json_value_put(o, "ptp", ptp_json(one, ok), ok);
		json_value_append(arr, o, ok);
	}
	free(one);
	return arr;
}

static const ptp_obs *ptp_of(const observation *obs)
{
	return obs->ptp.state == OBS_OK ? &obs->ptp : NULL;
}

#define PTP_VALUE(fn, expr) \
	static double fn(const observation *obs) \
	{ \
		const ptp_obs *p = ptp_of(obs); \
		return p ? (expr) : NAN; \
	}

/* Offset and delay only while a port follows a master: ptp4l keeps its last
 * values after that, and an alert must not read them as current. */
PTP_VALUE(v_ptp_offset, ptp_following_port(p) ? prom_ns_seconds(p->offset_from_master_ns) : NAN)
PTP_VALUE(v_ptp_mean_path_delay, ptp_following_port(p) ? prom_ns_seconds(p->mean_path_delay_ns) : NAN)
PTP_VALUE(v_ptp_steps_removed, prom_int(p->steps_removed))
PTP_VALUE(v_ptp_gm_present, p->gm_present == INT_UNKNOWN ? NAN : p->gm_present != 0)
PTP_VALUE(v_ptp_sync_age, ptp_sync_last_age_s(obs))
/* As synctop_ptp_grandmaster_info: only for a grandmaster the node keeps
 * time from (or is), never a LISTENING clock's own default class. */
PTP_VALUE(v_ptp_gm_clock_class, cluster_node_grandmaster(p) ? prom_int(p->gm_clock_class) : NAN)


/* The state is a label: ptp4l's internal numbering (GRAND_MASTER = 7) and
 * IEEE 1588's portState (PASSIVE = 7) disagree, a name cannot be misread. */
static void emit_ptp_port_state(prom_writer *w, const observation *obs)
{
	const ptp_obs *p = ptp_of(obs);
	if (!p) {
		return;
	}
	for (int i = 0; i < ptp_port_count(p); i++) {
		const ptp_port *port = &p->ports[i];
		if (port->state == PTP_PORT_UNKNOWN || port->port_number == INT_UNKNOWN) {
			continue;
		}
		char number[16];
		snprintf(number, sizeof number, "%d", port->port_number);
		prom_label l[] = {{"node", prom_node(w)}, {"port", number}, {"state", ptp_port_state_name(port->state)}};
		prom_sample(w, l, 3, 1);
	}
}

static void emit_ptp_grandmaster(prom_writer *w, const observation *obs)
{
	const ptp_obs *p = ptp_of(obs);
	if (!p) {
		return;
	}
	char gm[PROM_CLEAN_LEN(PTP_ID_LEN)];
	const char *id = cluster_node_grandmaster(p);
	if (!id) {
		return; /* follows nobody (LISTENING, FAULTY): ptp4l names itself */
	}
	prom_clean(gm, sizeof gm, id, PTP_ID_LEN);
	if (gm[0] == '\0') {
		return;
	}
	prom_label l[] = {{"node", prom_node(w)}, {"grandmaster", gm}};
	prom_sample(w, l, 2, 1);
}


/* ----------------------------------------------- per-instance series */

/* Several ptp4l on a node (ptp_instances): the families above describe the
 * primary instance, unlabelled as for a single ptp4l; these give every
 * instance's own, with a `uds` label (its socket; pmc's default for "")
 * that only they carry, so no existing series changes and no sum counts
 * the primary twice. */
#define PTP_DEFAULT_SOCKET "/var/run/ptp4l" /* linuxptp config.c uds_address */

/* Each answering instance as a one-instance observation (as ptp_instances'
 * JSON does: the PHC read goes with its own interface only, ptp_sync.c). */
static void emit_per_instance(prom_writer *w, const observation *obs,
			      void (*one)(prom_writer *w, const observation *o, const prom_label *l))
{
	observation *o = NULL;
	for (int i = 0; i < obs->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		const ptp_instance *inst = &obs->ptp_instances[i];
		if (inst->ptp.state != OBS_OK) {
			continue;
		}
		if (!o) {
			o = xmalloc(sizeof *o);
		}
		*o = *obs;
		o->ptp = inst->ptp;
		o->n_ptp_instances = 0;
		char uds[PROM_CLEAN_LEN(PTP_PATH_LEN)];
		prom_clean(uds, sizeof uds, inst->socket[0] ? inst->socket : PTP_DEFAULT_SOCKET, PTP_PATH_LEN);
		prom_label l[] = {{"node", prom_node(w)}, {"uds", uds}};
		one(w, o, l);
	}
	free(o);
}

static void sample_value(prom_writer *w, const prom_label *l, double v)
{
	if (!isnan(v)) {
		prom_sample(w, l, 2, v);
	}
}

static void one_offset(prom_writer *w, const observation *o, const prom_label *l)
{
	sample_value(w, l, v_ptp_offset(o));
}

static void one_delay(prom_writer *w, const observation *o, const prom_label *l)
{
	sample_value(w, l, v_ptp_mean_path_delay(o));
}

static void one_class(prom_writer *w, const observation *o, const prom_label *l)
{
	sample_value(w, l, v_ptp_gm_clock_class(o));
}

static void one_sync_age(prom_writer *w, const observation *o, const prom_label *l)
{
	sample_value(w, l, v_ptp_sync_age(o));
}

static void one_port_state(prom_writer *w, const observation *o, const prom_label *l)
{
	const ptp_obs *p = &o->ptp;
	for (int i = 0; i < ptp_port_count(p); i++) {
		const ptp_port *port = &p->ports[i];
		if (port->state == PTP_PORT_UNKNOWN || port->port_number == INT_UNKNOWN) {
			continue;
		}
		char number[16];
		snprintf(number, sizeof number, "%d", port->port_number);
		prom_label pl[] = {l[0], l[1], {"port", number}, {"state", ptp_port_state_name(port->state)}};
		prom_sample(w, pl, 4, 1);
	}
}

static void e_instance_offset(prom_writer *w, const observation *obs)
{
	emit_per_instance(w, obs, one_offset);
}

static void e_instance_delay(prom_writer *w, const observation *obs)
{
	emit_per_instance(w, obs, one_delay);
}

static void e_instance_class(prom_writer *w, const observation *obs)
{
	emit_per_instance(w, obs, one_class);
}

static void e_instance_sync_age(prom_writer *w, const observation *obs)
{
	emit_per_instance(w, obs, one_sync_age);
}

static void e_instance_port_state(prom_writer *w, const observation *obs)
{
	emit_per_instance(w, obs, one_port_state);
}

/* 1 for the instance the unlabelled series describe, 0 for the others;
 * every instance found, answering or not. */
static void e_instance_primary(prom_writer *w, const observation *obs)
{
	for (int i = 0; i < obs->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		const ptp_instance *inst = &obs->ptp_instances[i];
		char uds[PROM_CLEAN_LEN(PTP_PATH_LEN)];
		if (inst->config_error[0]) {
			continue; /* its socket is unknown (ptp.config_unreadable) */
		}
		prom_clean(uds, sizeof uds, inst->socket[0] ? inst->socket : PTP_DEFAULT_SOCKET, PTP_PATH_LEN);
		prom_label l[] = {{"node", prom_node(w)}, {"uds", uds}};
		prom_sample(w, l, 2, i == obs->ptp_primary);
	}
}

static const prom_family pmc_prometheus[] = {
	{"synctop_ptp_offset_seconds", "gauge",
	 "ptp4l offsetFromMaster: node clock minus its master (positive = node ahead).", v_ptp_offset, NULL},
	{"synctop_ptp_mean_path_delay_seconds", "gauge",
	 "ptp4l meanPathDelay: one-way delay to the master.", v_ptp_mean_path_delay, NULL},
	{"synctop_ptp_steps_removed", "gauge",
	 "ptp4l stepsRemoved: boundary-clock hops between the node and its grandmaster.", v_ptp_steps_removed,
	 NULL},
	{"synctop_ptp_gm_present", "gauge",
	 "ptp4l gmPresent: 1 if the node sees a grandmaster, else 0.", v_ptp_gm_present, NULL},
	{"synctop_ptp_gm_clock_class", "gauge",
	 "clockClass of the grandmaster the node follows or is (PARENT_DATA_SET gm.ClockClass): 6 locked, "
	 "7 holdover, 248 free-running, ...", v_ptp_gm_clock_class, NULL},
	{"synctop_ptp_port_state", "gauge",
	 "1 per PTP port, labelled with its state as pmc prints it (SLAVE, MASTER, LISTENING, FAULTY, ...).",
	 NULL, emit_ptp_port_state},
	{"synctop_ptp_grandmaster_info", "gauge",
	 "1, labelled with the identity of the grandmaster the node follows.", NULL, emit_ptp_grandmaster},
	{"synctop_ptp_sync_age_seconds", "gauge",
	 "Age of the last Sync a following port received (TIME_STATUS_NP ingress_time against the node's "
	 "clock; software timestamping only).", v_ptp_sync_age, NULL},
	{"synctop_ptp_instance_primary", "gauge",
	 "Several ptp4l on a node: 1 for the instance (uds: its socket) the unlabelled synctop_ptp_* series "
	 "describe, 0 for the others.", NULL, e_instance_primary},
	{"synctop_ptp_instance_offset_seconds", "gauge",
	 "Several ptp4l on a node: each instance's offsetFromMaster (uds: its socket).", NULL, e_instance_offset},
	{"synctop_ptp_instance_mean_path_delay_seconds", "gauge",
	 "Several ptp4l on a node: each instance's meanPathDelay (uds: its socket).", NULL, e_instance_delay},
	{"synctop_ptp_instance_gm_clock_class", "gauge",
	 "Several ptp4l on a node: the clockClass of each instance's grandmaster (uds: its socket).", NULL,
	 e_instance_class},
	{"synctop_ptp_instance_sync_age_seconds", "gauge",
	 "Several ptp4l on a node: the age of each instance's last Sync (uds: its socket).", NULL,
	 e_instance_sync_age},
	{"synctop_ptp_instance_port_state", "gauge",
	 "Several ptp4l on a node: 1 per port of each instance (uds: its socket), labelled with its state.",
	 NULL, e_instance_port_state},
};

/* ------------------------------------------------------------ grid columns */

static bool has_port(const observation *obs)
{
	return ptp_primary_port(&obs->ptp) != NULL;
}

static bool is_following(const observation *obs)
{
	return ptp_following_port(&obs->ptp) != NULL;
}

#define PORT_CELL_MAX 12 /* the PORT column's max_width */

static grid_cell port_cell(const observation *obs, char *out, size_t len)
{
	const ptp_port *port = ptp_primary_port(&obs->ptp);
	if (!port) {
		return GRID_CELL_NA;
	}
	snprintf(out, len, "%s", ptp_port_state_name(port->state));
	if (obs->n_ptp_instances > 1) {
		/* several ptp4l: how many of them follow a master, of how many
		 * (the drill-down lists each; any instance's finding colours it) */
		int following = 0;
		for (int i = 0; i < obs->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
			const ptp_obs *p = &obs->ptp_instances[i].ptp;
			following += p->state == OBS_OK && ptp_following_port(p) != NULL;
		}
		char all[32];
		snprintf(all, sizeof all, "%s %d/%d", ptp_port_state_name(port->state), following, obs->n_ptp_instances);
		if (strlen(all) <= PORT_CELL_MAX) {
			snprintf(out, len, "%s", all);
		}
	}
	return GRID_CELL_VALUE;
}

static void port_sort(const observation *obs, grid_sort_key *key)
{
	const ptp_port *port = ptp_primary_port(&obs->ptp);
	if (port) {
		key->numeric = false;
		snprintf(key->str, sizeof key->str, "%s", ptp_port_state_name(port->state));
	}
}

/* Offset and delay only while a port follows a master (ptp_following_port). */
static grid_cell ns_cell(const observation *obs, int64_t ns, bool magnitude, char *out, size_t len)
{
	if (!is_following(obs)) {
		return GRID_CELL_NA;
	}
	if (ns == PTP_NS_UNKNOWN) {
		return GRID_CELL_UNKNOWN;
	}
	char buf[64];
	units_format_ns(ns, buf, sizeof buf);
	snprintf(out, len, "%s", magnitude ? units_unsigned(buf) : buf);
	return GRID_CELL_VALUE;
}

static grid_cell ptp_offset_cell(const observation *obs, char *out, size_t len)
{
	return ns_cell(obs, obs->ptp.offset_from_master_ns, false, out, len);
}

static grid_cell path_delay_cell(const observation *obs, char *out, size_t len)
{
	return ns_cell(obs, obs->ptp.mean_path_delay_ns, true, out, len); /* a delay has no sign */
}

static void ptp_offset_sort(const observation *obs, grid_sort_key *key)
{
	if (is_following(obs) && obs->ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
		key->num = fabs((double)obs->ptp.offset_from_master_ns);
	}
}

static void path_delay_sort(const observation *obs, grid_sort_key *key)
{
	if (is_following(obs) && obs->ptp.mean_path_delay_ns != PTP_NS_UNKNOWN) {
		key->num = (double)obs->ptp.mean_path_delay_ns;
	}
}

static const char *const port_codes[] = {"ptp.port_state", NULL};
static const char *const ptp_offset_codes[] = {"ptp.offset", "cluster.ptp_spread", NULL};
static const char *const path_delay_codes[] = {"ptp.path_delay", NULL};

static const grid_column pmc_columns[] = {
	{.title = "PORT", .key = "port",
	 .help = "PTP port state (the port the node syncs through); several ptp4l: SLAVE 1/2 = 1 of 2 follow a master",
	 .min_width = 7, .max_width = PORT_CELL_MAX, .sortable = true, .place = 110, .rank = 7,
	 .cell = port_cell, .sort = port_sort, .has_data = has_port, .finding_codes = port_codes},
	{.title = "PTP OFFSET", .key = "ptp-offset", .help = "PTP offsetFromMaster, node minus master",
	 .min_width = 11, .max_width = 11, .right = true, .sortable = true, .descending = true,
	 .place = 120, .rank = 9, .cell = ptp_offset_cell, .sort = ptp_offset_sort,
	 .has_data = is_following, .finding_codes = ptp_offset_codes},
	{.title = "PATH DELAY", .key = "path-delay", .help = "PTP meanPathDelay",
	 .min_width = 10, .max_width = 10, .right = true, .sortable = true, .descending = true,
	 .place = 130, .rank = 13, .cell = path_delay_cell, .sort = path_delay_sort,
	 .has_data = is_following, .finding_codes = path_delay_codes},
};

/* ------------------------------------------------------------- demo renderer */

/* The probe's requests, in the order of the command below. */
static const char *const pmc_requests[] = {
	"TIME_STATUS_NP", "CURRENT_DATA_SET", "PORT_DATA_SET", "PARENT_DATA_SET",
	"DEFAULT_DATA_SET", "TIME_PROPERTIES_DATA_SET", "PORT_PROPERTIES_NP", "PORT_STATS_NP",
};
#define PMC_REQUESTS ((int)(sizeof pmc_requests / sizeof pmc_requests[0]))

/* pmc prints unknown numbers as ptp4l's defaults would be: 0. */
static int known_or_zero(int v)
{
	return v == INT_UNKNOWN ? 0 : v;
}

static long long ns_or_zero(int64_t v)
{
	return v == PTP_NS_UNKNOWN ? 0LL : (long long)v;
}

static long long count_or_zero(int64_t v)
{
	return v == PTP_COUNT_UNKNOWN ? 0LL : (long long)v;
}

static void pmc_header(text_sink *out, const char *clock_id, int port, int seq, const char *id)
{
	/* pmc prints the header with a trailing blank */
	text_sink_printf(out, "\t%s-%d seq %d RESPONSE MANAGEMENT %s \n", clock_id, port, seq, id);
}

/* The answer to request `which` as pmc 3.1 prints it (pmc.c, pmc_show;
 * fixture pmc-batch-multi-get-slave.txt): clock-wide data sets from port 0,
 * port data sets once per port. */
static void pmc_block(text_sink *out, const ptp_obs *p, int which)
{
	const char *id = p->clock_identity;
	switch (which) {
	case 0:
		pmc_header(out, id, 0, which, pmc_requests[which]);
		text_sink_printf(out, "\t\tmaster_offset              %lld\n", ns_or_zero(p->master_offset_ns));
		text_sink_printf(out, "\t\tingress_time               %lld\n", ns_or_zero(p->ingress_time_ns));
		text_sink_puts(out, "\t\tcumulativeScaledRateOffset +0.000000000\n"
				    "\t\tscaledLastGmPhaseChange    0\n"
				    "\t\tgmTimeBaseIndicator        0\n"
				    "\t\tlastGmPhaseChange          0x0000'0000000000000000.0000\n");
		text_sink_printf(out, "\t\tgmPresent                  %s\n", p->gm_present == 1 ? "true" : "false");
		text_sink_printf(out, "\t\tgmIdentity                 %s\n", p->gm_identity);
		break;
	case 1:
		pmc_header(out, id, 0, which, pmc_requests[which]);
		text_sink_printf(out, "\t\tstepsRemoved     %d\n\t\toffsetFromMaster %lld.0\n\t\tmeanPathDelay    %lld.0\n",
				 known_or_zero(p->steps_removed), ns_or_zero(p->offset_from_master_ns),
				 ns_or_zero(p->mean_path_delay_ns));
		break;
	case 2:
		for (int i = 0; i < ptp_port_count(p); i++) {
			const ptp_port *port = &p->ports[i];
			pmc_header(out, id, known_or_zero(port->port_number), which, pmc_requests[which]);
			text_sink_printf(out, "\t\tportIdentity            %s\n", port->port_identity);
			text_sink_printf(out, "\t\tportState               %s\n", ptp_port_state_name(port->state));
			text_sink_printf(out, "\t\tlogMinDelayReqInterval  0\n"
					      "\t\tpeerMeanPathDelay       %lld\n"
					      "\t\tlogAnnounceInterval     %d\n"
					      "\t\tannounceReceiptTimeout  %d\n"
					      "\t\tlogSyncInterval         %d\n"
					      "\t\tdelayMechanism          %d\n"
					      "\t\tlogMinPdelayReqInterval 0\n"
					      "\t\tversionNumber           2\n",
					 ns_or_zero(port->peer_mean_path_delay_ns),
					 known_or_zero(port->sync.log_announce_interval),
					 known_or_zero(port->sync.announce_receipt_timeout),
					 known_or_zero(port->log_sync_interval), known_or_zero(port->delay_mechanism));
		}
		break;
	case 3:
		pmc_header(out, id, 0, which, pmc_requests[which]);
		text_sink_printf(out, "\t\tparentPortIdentity                    %s\n", p->parent_port_identity);
		text_sink_puts(out, "\t\tparentStats                           0\n"
				    "\t\tobservedParentOffsetScaledLogVariance 0xffff\n"
				    "\t\tobservedParentClockPhaseChangeRate    0x7fffffff\n");
		text_sink_printf(out, "\t\tgrandmasterPriority1                  %d\n", known_or_zero(p->gm_priority1));
		text_sink_printf(out, "\t\tgm.ClockClass                         %d\n", known_or_zero(p->gm_clock_class));
		/* unknown prints as IEEE 1588's own "unknown" / "not computed" */
		text_sink_printf(out, "\t\tgm.ClockAccuracy                      0x%02x\n",
				 (unsigned)(p->gm_clock_accuracy == INT_UNKNOWN ? 0xfe : p->gm_clock_accuracy));
		text_sink_printf(out, "\t\tgm.OffsetScaledLogVariance            0x%04x\n",
				 (unsigned)(p->gm_offset_scaled_log_variance == INT_UNKNOWN ? 0xffff :
					    p->gm_offset_scaled_log_variance));
		text_sink_printf(out, "\t\tgrandmasterPriority2                  %d\n", known_or_zero(p->gm_priority2));
		text_sink_printf(out, "\t\tgrandmasterIdentity                   %s\n", p->grandmaster_identity);
		break;
	case 4:
		pmc_header(out, id, 0, which, pmc_requests[which]);
		text_sink_printf(out, "\t\ttwoStepFlag             1\n"
				      "\t\tslaveOnly               %d\n"
				      "\t\tnumberPorts             %d\n"
				      "\t\tpriority1               %d\n"
				      "\t\tclockClass              %d\n"
				      "\t\tclockAccuracy           0xfe\n"
				      "\t\toffsetScaledLogVariance 0xffff\n"
				      "\t\tpriority2               %d\n"
				      "\t\tclockIdentity           %s\n"
				      "\t\tdomainNumber            %d\n",
				 known_or_zero(p->slave_only), known_or_zero(p->number_ports), known_or_zero(p->priority1),
				 known_or_zero(p->clock_class), known_or_zero(p->priority2), id,
				 known_or_zero(p->domain_number));
		break;
	case 5:
		pmc_header(out, id, 0, which, pmc_requests[which]);
		text_sink_printf(out, "\t\tcurrentUtcOffset      %d\n"
				      "\t\tleap61                %d\n"
				      "\t\tleap59                %d\n"
				      "\t\tcurrentUtcOffsetValid %d\n"
				      "\t\tptpTimescale          %d\n"
				      "\t\ttimeTraceable         %d\n"
				      "\t\tfrequencyTraceable    %d\n"
				      "\t\ttimeSource            0x%02x\n",
				 known_or_zero(p->current_utc_offset), known_or_zero(p->leap61), known_or_zero(p->leap59),
				 known_or_zero(p->current_utc_offset_valid), known_or_zero(p->ptp_timescale),
				 known_or_zero(p->time_traceable), known_or_zero(p->frequency_traceable),
				 (unsigned)known_or_zero(p->time_source));
		break;
	case 7:
		/* linuxptp 3.1's counters (port.c, port_stats), zeros omitted
		 * from the model print as 0 */
		for (int i = 0; i < ptp_port_count(p); i++) {
			const ptp_port *port = &p->ports[i];
			const ptp_port_sync *st = &port->sync;
			pmc_header(out, id, known_or_zero(port->port_number), which, pmc_requests[which]);
			text_sink_printf(out,
					 "\t\tportIdentity              %s\n"
					 "\t\trx_Sync                   %lld\n"
					 "\t\trx_Delay_Req              0\n"
					 "\t\trx_Pdelay_Req             0\n"
					 "\t\trx_Pdelay_Resp            0\n"
					 "\t\trx_Follow_Up              %lld\n"
					 "\t\trx_Delay_Resp             %lld\n"
					 "\t\trx_Pdelay_Resp_Follow_Up  0\n"
					 "\t\trx_Announce               %lld\n"
					 "\t\trx_Signaling              0\n"
					 "\t\trx_Management             0\n"
					 "\t\ttx_Sync                   %lld\n"
					 "\t\ttx_Delay_Req              %lld\n"
					 "\t\ttx_Pdelay_Req             0\n"
					 "\t\ttx_Pdelay_Resp            0\n"
					 "\t\ttx_Follow_Up              %lld\n"
					 "\t\ttx_Delay_Resp             0\n"
					 "\t\ttx_Pdelay_Resp_Follow_Up  0\n"
					 "\t\ttx_Announce               %lld\n"
					 "\t\ttx_Signaling              0\n"
					 "\t\ttx_Management             0\n",
					 port->port_identity, count_or_zero(st->rx_sync), count_or_zero(st->rx_follow_up),
					 count_or_zero(st->rx_delay_resp), count_or_zero(st->rx_announce),
					 count_or_zero(st->tx_sync), count_or_zero(st->tx_delay_req),
					 count_or_zero(st->tx_sync), count_or_zero(st->tx_announce));
		}
		break;
	default:
		for (int i = 0; i < ptp_port_count(p); i++) {
			const ptp_port *port = &p->ports[i];
			pmc_header(out, id, known_or_zero(port->port_number), which, pmc_requests[6]);
			text_sink_printf(out, "\t\tportIdentity            %s\n", port->port_identity);
			text_sink_printf(out, "\t\tportState               %s\n", ptp_port_state_name(port->state));
			text_sink_printf(out, "\t\ttimestamping            %s\n", port->timestamping);
			text_sink_printf(out, "\t\tinterface               %s\n", port->interface);
		}
		break;
	}
}

static int pmc_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const ptp_obs *p = &truth->ptp;
	(void)iface;
	switch (p->state) {
	case OBS_OK:
		break;
	case OBS_DAEMON_UNREACHABLE:
		/* No ptp4l: pmc sends every request, waits, prints no answer and
		 * still exits 0 (lab-notes pitfall 9). */
		for (int k = 0; k < PMC_REQUESTS; k++) {
			text_sink_printf(out, "sending: GET %s\n", pmc_requests[k]);
		}
		text_sink_puts(err, "bad command: GET PORT_SERVICE_STATS_NP\n");
		return 0;
	case OBS_TOOL_MISSING:
		text_sink_puts(err, "sh: 1: pmc: not found\n");
		return TOOL_RC_NOT_FOUND;
	default:
		text_sink_printf(err, "%s\n", p->error);
		return 1;
	}
	/* The collector's realtime lines around pmc (synctop_pmc); pmc sends
	 * the next request before it reads the previous answer, so "sending:"
	 * lines and answers interleave (fixtures pmc-synctop-*.txt), and
	 * linuxptp 3.1's pmc rejects PORT_SERVICE_STATS_NP on stderr. */
	if (p->realtime_before_ns != PTP_NS_UNKNOWN) {
		text_sink_printf(out, "synctop-realtime-ns before %lld\n", (long long)p->realtime_before_ns);
	}
	text_sink_printf(out, "sending: GET %s\n", pmc_requests[0]);
	for (int k = 1; k < PMC_REQUESTS; k++) {
		text_sink_printf(out, "sending: GET %s\n", pmc_requests[k]);
		pmc_block(out, p, k - 1);
	}
	pmc_block(out, p, PMC_REQUESTS - 1);
	if (p->realtime_after_ns != PTP_NS_UNKNOWN) {
		text_sink_printf(out, "synctop-realtime-ns after %lld\n", (long long)p->realtime_after_ns);
	}
	text_sink_puts(err, "bad command: GET PORT_SERVICE_STATS_NP\n");
	return 0;
}

/* POSIX sh, inside the probe script (probe.h); no single quote. */
static const char pmc_functions[] =
	/* One pmc run on socket $1 ("" = pmc's default), bracketed by the
	 * node's CLOCK_REALTIME on lines pmc never prints (pmc_parse.c); pmc's
	 * exit status is the function's. */
	"synctop_pmc_ask() {\n"
	"	printf \"synctop-realtime-ns before %s\\n\" \"$(date +%s%N)\"\n"
	"	if [ -n \"$1\" ]; then set -- -s \"$1\"; else set --; fi\n"
	"	$sudo pmc -u -b 0 \"$@\" \"GET TIME_STATUS_NP\" \"GET CURRENT_DATA_SET\" \"GET PORT_DATA_SET\" \"GET PARENT_DATA_SET\" \"GET DEFAULT_DATA_SET\" \"GET TIME_PROPERTIES_DATA_SET\" \"GET PORT_PROPERTIES_NP\" \"GET PORT_STATS_NP\" \"GET PORT_SERVICE_STATS_NP\"\n"
	"	synctop_pmc_rc=$?\n"
	"	printf \"synctop-realtime-ns after %s\\n\" \"$(date +%s%N)\"\n"
	"	return $synctop_pmc_rc\n"
	"}\n"
	/* The ptp4l PIDs in the daemons section's process list of the last
	 * poll ($synctop_ps: "pid etimes comm"), with shell builtins only: when
	 * they change, the command lines are read again. */
	"synctop_pmc_pids() {\n"
	"	synctop_pmc_p=\n"
	"	case $synctop_ps in *ptp4l*) ;; *) return 0 ;; esac\n"
	"	set -f\n"
	"	synctop_pmc_l=\n"
	"	synctop_pmc_ifs=$IFS\n"
	"	IFS=\"\n"
	"\"\n"
	"	for synctop_pmc_w in $synctop_ps; do\n"
	"		case $synctop_pmc_w in *\" ptp4l\") synctop_pmc_l=\"$synctop_pmc_l $synctop_pmc_w\" ;; esac\n"
	"	done\n"
	"	IFS=$synctop_pmc_ifs\n"
	"	set -- $synctop_pmc_l\n"
	"	while [ $# -ge 3 ]; do synctop_pmc_p=\"$synctop_pmc_p $1\"; shift 3; done\n"
	"	set +f\n"
	"}\n"
	/* One line of `ps -o pid=,args=`: ptp4l's -f FILE and --uds_address.
	 * A line that is not a PID and a ptp4l command is no instance (a ps
	 * that ignores -C prints other processes).  getopt as ptp4l.c main()
	 * has it ("AEP246HSLf:i:p:sl:mqvh"): -f, -i, -p, -l take a value,
	 * attached or next; every config key is a long option with a required
	 * value (config.c config_alloc_longopts()), and a command-line value
	 * locks the key against the file (CFG_ITEM_LOCKED in config.c
	 * parse_item()), so --uds_address wins.  getopt_long takes any
	 * unambiguous prefix of a long option: the config keys that start
	 * with "uds" are uds_address, uds_file_mode, uds_ro_address and
	 * uds_ro_file_mode (config.c), so --uds_a... up to the whole name is
	 * uds_address, and --uds alone is refused by ptp4l.  A ptp4l in another network
	 * namespace (a container, another lab node) is not this node's when
	 * its namespace can be compared at all. */
	"synctop_pmc_argv() {\n"
	"	synctop_pmc_c=\n"
	"	synctop_pmc_s=\n"
	"	synctop_pmc_here=\n"
	"	if [ $# -lt 2 ]; then return 0; fi\n"
	"	case $1 in *[!0-9]*) return 0 ;; esac\n"
	"	case $2 in ptp4l|*/ptp4l) ;; *) return 0 ;; esac\n"
	"	synctop_pmc_here=1\n"
	"	if [ -e \"/proc/$1/ns/net\" ] && ! [ \"/proc/$1/ns/net\" -ef \"/proc/$$/ns/net\" ]; then synctop_pmc_here=; fi\n"
	"	shift 2\n"
	"	while [ $# -gt 0 ]; do\n"
	"		case $1 in\n"
	"		--) break ;;\n"
	"		--uds_a*)\n"
	"			synctop_pmc_k=${1%%=*}\n"
	"			case uds_address in\n"
	"			\"${synctop_pmc_k#--}\"*)\n"
	"				case $1 in *=*) synctop_pmc_s=${1#*=} ;; *) if [ $# -ge 2 ]; then synctop_pmc_s=$2; shift; fi ;; esac ;;\n"
	"			*) case $1 in *=*) ;; *) if [ $# -ge 2 ]; then shift; fi ;; esac ;;\n"
	"			esac\n"
	"			;;\n"
	"		--*=*) ;;\n"
	"		--*) if [ $# -ge 2 ]; then shift; fi ;;\n"
	"		-?*)\n"
	"			synctop_pmc_o=${1#-}\n"
	"			while [ -n \"$synctop_pmc_o\" ]; do\n"
	"				synctop_pmc_k=${synctop_pmc_o%\"${synctop_pmc_o#?}\"}\n"
	"				synctop_pmc_o=${synctop_pmc_o#?}\n"
	"				case $synctop_pmc_k in\n"
	"				f|i|p|l)\n"
	"					if [ -z \"$synctop_pmc_o\" ] && [ $# -ge 2 ]; then shift; synctop_pmc_o=$1; fi\n"
	"					if [ \"$synctop_pmc_k\" = f ]; then synctop_pmc_c=$synctop_pmc_o; fi\n"
	"					synctop_pmc_o=\n"
	"					;;\n"
	"				esac\n"
	"			done\n"
	"			;;\n"
	"		esac\n"
	"		shift\n"
	"	done\n"
	"}\n"
	/* uds_address from the [global] section of ptp4l's config, read as
	 * config.c config_read() does: leading blanks skipped, "#" starts a
	 * comment only at the start of a line, a section line is the whole
	 * trimmed line compared without case ("[global]", parse_section_line()),
	 * the value is the rest after the key and its blanks.  A file that
	 * cannot be read leaves its reason in $synctop_pmc_x: never a guess. */
	"synctop_pmc_conf() {\n"
	"	synctop_pmc_x=\n"
	"	if [ \"$1\" = - ]; then synctop_pmc_x=\"read from the standard input of ptp4l\"; return 0; fi\n"
	"	if [ -d \"$1\" ]; then synctop_pmc_x=\"Is a directory\"; return 0; fi\n"
	"	if ! [ -e \"$1\" ]; then synctop_pmc_x=\"No such file or directory\"; return 0; fi\n"
	"	if ! [ -r \"$1\" ]; then synctop_pmc_x=\"Permission denied\"; return 0; fi\n"
	"	synctop_pmc_g=\n"
	"	while read -r synctop_pmc_k synctop_pmc_v || [ -n \"$synctop_pmc_k\" ]; do\n"
	"		case $synctop_pmc_k in\n"
	"		\\[[Gg][Ll][Oo][Bb][Aa][Ll]\\]) if [ -z \"$synctop_pmc_v\" ]; then synctop_pmc_g=g; else synctop_pmc_g=p; fi ;;\n"
	"		\\[*) synctop_pmc_g=p ;;\n"
	"		uds_address) if [ \"$synctop_pmc_g\" = g ]; then synctop_pmc_s=$synctop_pmc_v; fi ;;\n"
	"		esac\n"
	"		synctop_pmc_k=\n"
	"	done <\"$1\"\n"
	"}\n"
	/* The instances as "socket TAB config TAB error" lines: at the first
	 * poll, when the ptp4l PIDs changed and every 30 polls, so a node with
	 * one ptp4l pays no process of its own per poll (`ps -C` costs one). */
	"synctop_pmc_find() {\n"
	"	synctop_pmc_pids\n"
	"	synctop_pmc_n=$((${synctop_pmc_n:-0} + 1))\n"
	"	if [ \"${synctop_pmc_seen-x}\" = \"$synctop_pmc_p\" ] && [ \"$synctop_pmc_n\" -lt 30 ]; then return 0; fi\n"
	"	synctop_pmc_seen=$synctop_pmc_p\n"
	"	synctop_pmc_n=0\n"
	"	synctop_pmc_list=\n"
	"	synctop_pmc_m=0\n"
	"	synctop_pmc_own=\n"
	"	synctop_pmc_a=$(ps -ww -C ptp4l -o pid=,args= 2>/dev/null)\n"
	"	[ -n \"$synctop_pmc_a\" ] || return 0\n"
	"	set -f\n"
	"	synctop_pmc_ifs=$IFS\n"
	"	IFS=\"\n"
	"\"\n"
	"	for synctop_pmc_w in $synctop_pmc_a; do\n"
	"		IFS=$synctop_pmc_ifs\n"
	"		synctop_pmc_argv $synctop_pmc_w\n"
	"		if [ -n \"$synctop_pmc_here\" ]; then\n"
	"			synctop_pmc_x=\n"
	"			if [ -z \"$synctop_pmc_s\" ] && [ -n \"$synctop_pmc_c\" ]; then synctop_pmc_conf \"$synctop_pmc_c\"; fi\n"
	"			if [ -n \"$synctop_pmc_s$synctop_pmc_x\" ]; then synctop_pmc_own=1; fi\n"
	"			synctop_pmc_list=\"$synctop_pmc_list$synctop_pmc_s\t$synctop_pmc_c\t$synctop_pmc_x\n"
	"\"\n"
	"			synctop_pmc_m=$((synctop_pmc_m + 1))\n"
	"		fi\n"
	"		IFS=\"\n"
	"\"\n"
	"	done\n"
	"	IFS=$synctop_pmc_ifs\n"
	"	set +f\n"
	"}\n"
	/* One ptp4l on pmc's default socket, or none found: one plain pmc
	 * run, as before.  Else every instance framed (pmc_instances.h), its
	 * stderr through the section's private file $e as ethtool's are. */
	"synctop_pmc() {\n"
	"	synctop_pmc_find\n"
	"	if [ \"${synctop_pmc_m:-0}\" -le 1 ] && [ -z \"$synctop_pmc_own\" ]; then\n"
	"		synctop_pmc_ask \"\"\n"
	"		return\n"
	"	fi\n"
	"	set -f\n"
	"	synctop_pmc_ifs=$IFS\n"
	"	IFS=\"\n"
	"\"\n"
	"	for synctop_pmc_w in $synctop_pmc_list; do\n"
	"		IFS=$synctop_pmc_ifs\n"
	"		synctop_pmc_s=${synctop_pmc_w%%\t*}\n"
	"		synctop_pmc_w=${synctop_pmc_w#*\t}\n"
	"		synctop_pmc_c=${synctop_pmc_w%%\t*}\n"
	"		synctop_pmc_x=${synctop_pmc_w#*\t}\n"
	"		printf \"synctop-ptp4l instance\\n\"\n"
	"		if [ -n \"$synctop_pmc_c\" ]; then printf \"synctop-ptp4l config %s\\n\" \"$synctop_pmc_c\"; fi\n"
	"		if [ -n \"$synctop_pmc_s\" ]; then printf \"synctop-ptp4l socket %s\\n\" \"$synctop_pmc_s\"; fi\n"
	"		if [ -n \"$synctop_pmc_x\" ]; then\n"
	"			printf \"synctop-ptp4l config-error %s\\n\" \"$synctop_pmc_x\"\n"
	"		else\n"
	"			if [ -n \"$e\" ]; then synctop_pmc_ask \"$synctop_pmc_s\" 2>\"$e\"; else synctop_pmc_ask \"$synctop_pmc_s\" 2>/dev/null; fi\n"
	"			r=$?\n"
	"			printf \"synctop-ptp4l stderr\\n\"\n"
	"			if [ -n \"$e\" ] && [ -r \"$e\" ]; then\n"
	"				l=\n"
	"				while IFS= read -r l; do printf \"%s\\n\" \"$l\"; done <\"$e\"\n"
	"				printf \"%s\" \"$l\"\n"
	"				: >\"$e\"\n"
	"			fi\n"
	"			printf \"\\nsynctop-ptp4l rc %s\\n\" \"$r\"\n"
	"		fi\n"
	"		IFS=\"\n"
	"\"\n"
	"	done\n"
	"	IFS=$synctop_pmc_ifs\n"
	"	set +f\n"
	"	return 0\n"
	"}\n";

const collector pmc_collector = {
	.name = "pmc",
	.title = "ptp4l data sets through pmc",
	.shell_functions = pmc_functions,
	.command = "synctop_pmc",
	.cadence = COLLECT_EVERY_POLL,
	.json_key = "ptp",
	.json = ptp_json,
	.part_state = pmc_part_state,
	.part_absent = ptp_absent_of,
	.prometheus = pmc_prometheus,
	.n_prometheus = sizeof pmc_prometheus / sizeof pmc_prometheus[0],
	.decode = pmc_decode,
	.history = pmc_history,
	.compare = pmc_compare,
	.rules = pmc_instances_rules,
	.expectation = pmc_expectation,
	.demo_render = pmc_render,
	.columns = pmc_columns,
	.n_columns = sizeof pmc_columns / sizeof pmc_columns[0],
	.threshold_keys = pmc_keys,
	.n_threshold_keys = sizeof pmc_keys / sizeof pmc_keys[0],
	.rules_any_state = pmc_instances_rules_others,
	.json_tail_key = "ptp_instances",
	.json_tail = ptp_instances_json,
};
