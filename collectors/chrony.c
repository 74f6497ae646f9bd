/* chrony.c - the chrony collector: `chronyc -c -n -m tracking sources
 * sourcestats`, parsed by chrony_parse.c.
 *
 * The three reports travel in one chronyc call: they need the same access
 * (monitoring commands, allowed to any local user) and fail together when
 * chronyd does not answer, so `-m` stopping at the first failure loses
 * nothing.  Reports that need chronyd's authorisation belong in a collector
 * of their own, so a refusal drops nothing else. */
#include <config.h>

#include "chrony_parse.h"
#include "collector.h"

static void chrony_decode(const tool_output *out, observation *obs)
{
	chrony_parse_csv(out, &obs->chrony);
	chrony_tracking_settle(&obs->chrony.tracking);
}

static void chrony_history(const observation *obs, history_sample *sample)
{
	if (obs->chrony.state != OBS_OK) {
		return;
	}
	const chrony_tracking *t = &obs->chrony.tracking;
	sample->value[HISTORY_OFFSET_S] = (float)t->system_time_offset_s;
	sample->value[HISTORY_FREQUENCY_PPM] = (float)t->frequency_ppm;
	sample->value[HISTORY_SKEW_PPM] = (float)t->skew_ppm;
}

static const threshold_key chrony_keys[] = {
	THRESHOLD_KEY(chrony_offset_warn_s, THRESHOLD_DOUBLE, "chrony_offset_crit_s"),
	THRESHOLD_KEY(chrony_offset_crit_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(chrony_error_bound_warn_s, THRESHOLD_DOUBLE, "chrony_error_bound_crit_s"),
	THRESHOLD_KEY(chrony_error_bound_crit_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(chrony_frequency_warn_ppm, THRESHOLD_DOUBLE, "chrony_frequency_crit_ppm"),
	THRESHOLD_KEY(chrony_frequency_crit_ppm, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(chrony_skew_warn_ppm, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(chrony_drift_warn_ppm_per_hour, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(chrony_drift_window_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(chrony_drift_min_span_s, THRESHOLD_DOUBLE, NULL),
};

const collector chrony_collector = {
	.name = "chrony",
	.title = "chrony tracking, sources and sourcestats",
	.command = "chronyc -c -n -m tracking sources sourcestats",
	.cadence = COLLECT_EVERY_POLL,
	.decode = chrony_decode,
	.history = chrony_history,
	.threshold_keys = chrony_keys,
	.n_threshold_keys = sizeof chrony_keys / sizeof chrony_keys[0],
};
