/* ethtool.c - the NIC collector: `ethtool -T IFACE` (timestamping
 * capabilities and the PHC index) on every interface the request names,
 * parsed by ethtool_parse.c.
 *
 * Capabilities seldom change, so it runs at the first poll of a connection
 * and then every few minutes; between runs the node keeps the last answer.
 * The interfaces are the request's (probe.h): --iface or the config's iface,
 * else every interface ptp4l reports in PORT_PROPERTIES_NP (a boundary clock
 * has several); "-" means unknown, and the shell then takes the default
 * route's interface from /proc/net/route.  Each interface's answer is framed
 * in the section (ethtool_parse.h) so each keeps its own stderr and exit
 * status.  observation.nic is the primary PTP interface's answer,
 * observation.nics every one. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "json_value.h"
#include "ethtool_parse.h"
#include "probe.h"

_Static_assert(PROBE_IFACE_LIST_MAX == NIC_MAX, "the request names at most the interfaces kept");

/* Needs the PTP part of obs decoded first (pmc's section comes before this
 * one in the registry) to pick the primary interface. */
static void ethtool_decode(const tool_output *out, observation *obs)
{
	nic_obs *nic = &obs->nic;
	if (out->rc == PROBE_RC_NO_IFACE) {
		nic_obs_init(nic);
		nic->state = OBS_NO_DEVICE;
		snprintf(nic->error, sizeof nic->error,
			 "no interface to check: ptp4l reported none and there is no default route; use --iface");
		obs->n_nics = 0;
		return;
	}
	obs->n_nics = ethtool_parse_list(out, obs->nics, NIC_MAX);
	observation_settle_nic(obs);
}

/* The primary interface is chosen again: ptp4l's ports change state between
 * ethtool's runs. */
static void ethtool_carry(observation *now, const observation *before)
{
	if (now->nic.state == OBS_NOT_COLLECTED) {
		now->nic = before->nic;
		now->n_nics = before->n_nics;
		memcpy(now->nics, before->nics, sizeof now->nics);
		observation_settle_nic(now);
	}
}

/* POSIX sh; runs inside the probe script (probe.h).  $i is left holding the
 * default route's interface. */
static const char ethtool_functions[] =
	"synctop_route() {\n"
	"	i=\n"
	"	if [ -r /proc/net/route ]; then\n"
	"		while read -r f1 f2 f3; do\n"
	"			if [ \"$f2\" = 00000000 ]; then i=$f1; break; fi\n"
	"		done </proc/net/route\n"
	"	fi\n"
	"}\n"
	/* One interface, framed (ethtool_parse.h).  Its stderr goes through the
	 * section's private file $e, as synctop_run's does, emptied after the
	 * replay so that synctop_run finds nothing left of it. */
	"synctop_ethtool_one() {\n"
	"	printf \"@@ethtool iface %s\\n\" \"$1\"\n"
	"	if [ -n \"$e\" ]; then ethtool -T \"$1\" </dev/null 2>\"$e\"; else ethtool -T \"$1\" </dev/null 2>/dev/null; fi\n"
	"	r=$?\n"
	"	printf \"\\n@@ethtool stderr\\n\"\n"
	"	if [ -n \"$e\" ] && [ -r \"$e\" ]; then\n"
	"		l=\n"
	"		while IFS= read -r l; do printf \"%s\\n\" \"$l\"; done <\"$e\"\n"
	"		printf \"%s\" \"$l\"\n"
	"		: >\"$e\"\n"
	"	fi\n"
	"	printf \"\\n@@ethtool rc %s\\n\" \"$r\"\n"
	"}\n"
	/* $iface is "-" or a list the request loop has checked (synctop_ifaces_ok) */
	"synctop_ethtool() {\n"
	"	if [ \"$iface\" = - ]; then synctop_route; iface=$i; fi\n"
	"	if ! synctop_ifaces_ok \"$iface\"; then\n"
	"		printf \"%s\" \"synctop: no interface given and no default route in /proc/net/route\" >&2\n"
	"		return 125\n"
	"	fi\n"
	"	synctop_nl=$iface\n"
	"	while [ -n \"$synctop_nl\" ]; do\n"
	"		synctop_ethtool_one \"${synctop_nl%%,*}\"\n"
	"		case $synctop_nl in *,*) synctop_nl=${synctop_nl#*,} ;; *) synctop_nl= ;; esac\n"
	"	done\n"
	"}\n";

static json_t *nic_object(const nic_obs *nic, bool *ok)
{
	bool good = nic->state == OBS_OK;
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(nic->state, nic->error, sizeof nic->error), ok);
	/* the interface is what we asked about, known even when ethtool failed */
	json_value_put(o, "interface", json_value_text(nic->interface, sizeof nic->interface), ok);
	json_value_put(o, "hw_transmit", good ? json_boolean(nic->caps & NIC_CAP_HW_TX) : json_null(), ok);
	json_value_put(o, "hw_receive", good ? json_boolean(nic->caps & NIC_CAP_HW_RX) : json_null(), ok);
	json_value_put(o, "hw_raw_clock", good ? json_boolean(nic->caps & NIC_CAP_HW_RAW_CLOCK) : json_null(), ok);
	json_value_put(o, "phc_index", good && nic->phc_index >= 0 ? json_integer(nic->phc_index) : json_null(), ok);
	return o;
}

static bool nic_absent(const observation *obs)
{
	return obs_state_absent(obs->nic.state);
}

/* "nic": the primary PTP interface */
static json_t *nic_json(const observation *obs, bool *ok)
{
	return nic_absent(obs) ? json_null() : nic_object(&obs->nic, ok);
}

/* "nics": every interface checked, in the order asked (each as "nic") */
static json_t *nics_json(const observation *obs, bool *ok)
{
	if (nic_absent(obs)) {
		return json_null();
	}
	json_t *arr = json_array();
	for (int i = 0; i < observation_nic_count(obs); i++) {
		json_value_append(arr, nic_object(observation_nic_at(obs, i), ok), ok);
	}
	return arr;
}

static obs_state ethtool_part_state(const observation *obs)
{
	return obs->nic.state;
}

/* One series per interface checked. */
static void emit_nic_hw_timestamping(prom_writer *w, const observation *obs)
{
	for (int i = 0; i < observation_nic_count(obs); i++) {
		const nic_obs *nic = observation_nic_at(obs, i);
		if (nic->state != OBS_OK) {
			continue;
		}
		char iface[PROM_CLEAN_LEN(sizeof nic->interface)];
		prom_clean(iface, sizeof iface, nic->interface, sizeof nic->interface);
		bool hw = (nic->caps & NIC_CAP_HW_TX) && (nic->caps & NIC_CAP_HW_RX);
		prom_label l[] = {{"node", prom_node(w)}, {"interface", iface}};
		prom_sample(w, l, 2, hw ? 1 : 0);
	}
}


static const prom_family ethtool_prometheus[] = {
	{"synctop_nic_hardware_timestamping", "gauge",
	 "1 if ethtool -T lists hardware transmit and receive timestamping on the interface, else 0.",
	 NULL, emit_nic_hw_timestamping},
};

const collector ethtool_collector = {
	.name = "ethtool",
	.title = "NIC timestamping (ethtool -T)",
	.shell_functions = ethtool_functions,
	.command = "synctop_ethtool",
	.cadence = COLLECT_PERIODIC,
	.request_flag = 'E',
	.request_bit = PROBE_FLAG_ETHTOOL,
	.period_s = 300.0,
	.json_key = "nic",
	.json = nic_json,
	.json_list_key = "nics",
	.json_list = nics_json,
	.part_state = ethtool_part_state,
	.prometheus = ethtool_prometheus,
	.n_prometheus = sizeof ethtool_prometheus / sizeof ethtool_prometheus[0],
	.decode = ethtool_decode,
	.carry = ethtool_carry,
};
