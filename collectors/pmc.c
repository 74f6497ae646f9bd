/* pmc.c - the PTP collector: linuxptp's `pmc` asking the local ptp4l for
 * its data sets over its Unix socket (-u, boundary hops 0), parsed by
 * pmc_parse.c.  `--pmc-sudo` runs it through `sudo -n` where the socket is
 * root-only. */
#include <config.h>

#include <math.h>

#include "cluster.h"
#include "collector.h"
#include "json_value.h"
#include "pmc_parse.h"
#include "pmc_rules.h"

static void pmc_decode(const tool_output *out, observation *obs)
{
	pmc_parse(out, &obs->ptp);
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
};

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
		json_value_put(o, "port_identity", json_value_text(port->port_identity, sizeof port->port_identity), ok);
		json_value_put(o, "port_number", json_value_int(port->port_number), ok);
		json_value_put(o, "state", jport_state(port->state), ok);
		json_value_put(o, "peer_mean_path_delay_ns", json_value_ns(port->peer_mean_path_delay_ns), ok);
		json_value_put(o, "log_sync_interval", json_value_int(port->log_sync_interval), ok);
		json_value_put(o, "delay_mechanism", json_value_int(port->delay_mechanism), ok);
		json_value_put(o, "interface", json_value_text(port->interface, sizeof port->interface), ok);
		json_value_put(o, "timestamping", json_value_text(port->timestamping, sizeof port->timestamping), ok);
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
	json_value_put(o, "ports", good ? ptp_ports_json(p, ok) : json_null(), ok);
	/* The grandmaster's quality, null wherever gm_identity is: a LISTENING
	 * or FAULTY ptp4l reports its own defaults as if it were one. */
	json_value_put(o, "gm_clock_class", gm ? json_value_int(p->gm_clock_class) : json_null(), ok);
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
};

const collector pmc_collector = {
	.name = "pmc",
	.title = "ptp4l data sets through pmc",
	.command = "$sudo pmc -u -b 0 \"GET TIME_STATUS_NP\" \"GET CURRENT_DATA_SET\" \"GET PORT_DATA_SET\""
		   " \"GET PARENT_DATA_SET\" \"GET DEFAULT_DATA_SET\" \"GET TIME_PROPERTIES_DATA_SET\""
		   " \"GET PORT_PROPERTIES_NP\"",
	.cadence = COLLECT_EVERY_POLL,
	.json_key = "ptp",
	.json = ptp_json,
	.part_state = pmc_part_state,
	.part_absent = ptp_absent_of,
	.prometheus = pmc_prometheus,
	.n_prometheus = sizeof pmc_prometheus / sizeof pmc_prometheus[0],
	.decode = pmc_decode,
	.history = pmc_history,
	.rules = pmc_rules,
	.expectation = pmc_expectation,
	.threshold_keys = pmc_keys,
	.n_threshold_keys = sizeof pmc_keys / sizeof pmc_keys[0],
};
