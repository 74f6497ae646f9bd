/* ethtool.c - the NIC collector: `ethtool -T IFACE` (timestamping
 * capabilities and the PHC index), parsed by ethtool_parse.c.
 *
 * Capabilities seldom change, so it runs at the first poll of a connection
 * and then every few minutes; between runs the node keeps the last answer.
 * IFACE is the request's (--iface, the config's iface, or the interface
 * ptp4l reports); "-" means unknown, and the shell then takes the default
 * route's interface from /proc/net/route. */
#include <config.h>

#include <stdio.h>

#include "collector.h"
#include "json_value.h"
#include "ethtool_parse.h"
#include "probe.h"

static void ethtool_decode(const tool_output *out, observation *obs)
{
	nic_obs *nic = &obs->nic;
	if (out->rc == PROBE_RC_NO_IFACE) {
		nic_obs_init(nic);
		nic->state = OBS_NO_DEVICE;
		snprintf(nic->error, sizeof nic->error,
			 "no interface to check: ptp4l reported none and there is no default route; use --iface");
		return;
	}
	ethtool_parse(out, nic);
}

static void ethtool_carry(observation *now, const observation *before)
{
	if (now->nic.state == OBS_NOT_COLLECTED) {
		now->nic = before->nic;
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
	"synctop_ethtool() {\n"
	"	if [ \"$iface\" = - ]; then synctop_route; iface=$i; fi\n"
	"	if synctop_iface_ok \"$iface\"; then\n"
	"		ethtool -T \"$iface\"\n"
	"	else\n"
	"		printf \"%s\" \"synctop: no interface given and no default route in /proc/net/route\" >&2\n"
	"		return 125\n"
	"	fi\n"
	"}\n";

static json_t *nic_json(const observation *obs, bool *ok)
{
	const nic_obs *nic = &obs->nic;
	if (obs_state_absent(nic->state)) {
		return json_null();
	}
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

static obs_state ethtool_part_state(const observation *obs)
{
	return obs->nic.state;
}

static void emit_nic_hw_timestamping(prom_writer *w, const observation *obs)
{
	const nic_obs *nic = &obs->nic;
	if (nic->state != OBS_OK) {
		return;
	}
	char iface[PROM_CLEAN_LEN(sizeof nic->interface)];
	prom_clean(iface, sizeof iface, nic->interface, sizeof nic->interface);
	bool hw = (nic->caps & NIC_CAP_HW_TX) && (nic->caps & NIC_CAP_HW_RX);
	prom_label l[] = {{"node", prom_node(w)}, {"interface", iface}};
	prom_sample(w, l, 2, hw ? 1 : 0);
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
	.part_state = ethtool_part_state,
	.prometheus = ethtool_prometheus,
	.n_prometheus = sizeof ethtool_prometheus / sizeof ethtool_prometheus[0],
	.decode = ethtool_decode,
	.carry = ethtool_carry,
};
