/* pmc.c - the PTP collector: linuxptp's `pmc` asking the local ptp4l for
 * its data sets over its Unix socket (-u, boundary hops 0), parsed by
 * pmc_parse.c.  `--pmc-sudo` runs it through `sudo -n` where the socket is
 * root-only. */
#include <config.h>

#include "collector.h"
#include "pmc_parse.h"

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

const collector pmc_collector = {
	.name = "pmc",
	.title = "ptp4l data sets through pmc",
	.command = "$sudo pmc -u -b 0 \"GET TIME_STATUS_NP\" \"GET CURRENT_DATA_SET\" \"GET PORT_DATA_SET\""
		   " \"GET PARENT_DATA_SET\" \"GET DEFAULT_DATA_SET\" \"GET TIME_PROPERTIES_DATA_SET\""
		   " \"GET PORT_PROPERTIES_NP\"",
	.cadence = COLLECT_EVERY_POLL,
	.decode = pmc_decode,
	.history = pmc_history,
	.threshold_keys = pmc_keys,
	.n_threshold_keys = sizeof pmc_keys / sizeof pmc_keys[0],
};
