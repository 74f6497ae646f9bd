/* phc_ctl.c - the PHC collector: linuxptp's `phc_ctl -q IFACE get cmp` on
 * the PHC of the interface ptp4l uses, so the system clock can be compared
 * with the PHC ptp4l disciplines (system_clock.h), parsed by
 * phc_ctl_parse.c.
 *
 * When it runs (synctop_phc below): only once the interface ptp4l uses is
 * known ($iface: the request's, from the last pmc answer or --iface), and
 * only where a PHC can be in use: a /dev/ptp* device exists, or phc2sys runs
 * (the daemons collector's function leaves its ps output in $synctop_ps;
 * it runs earlier in the same request, see registry.c; ethtool's function
 * runs later because it sets $iface to the default route's interface when
 * none is known, and phc_ctl must not read that one's PHC).  Elsewhere it
 * prints "synctop: phc_ctl not run: WHY" and costs no process.  Where it
 * runs, it costs one process per poll (phc_ctl opens the PHC and reads it
 * with PTP_SYS_OFFSET* 9 times: a few ms of CPU, bench/run) and a second
 * one, `phc_ctl -v`, only when it fell back to its "approximately" line,
 * whose sign depends on the version.  Every poll, because a phc2sys that
 * died shows as a system clock walking away from the PHC within seconds.
 *
 * phc_ctl opens /dev/ptpN read-write: it needs root or write access to the
 * device; `--sudo` runs it through `sudo -n` as it does pmc. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector.h"
#include "grid_column.h"
#include "json_value.h"
#include "phc_ctl_parse.h"
#include "system_clock.h"
#include "units.h"

static void phc_decode(const tool_output *out, observation *obs)
{
	phc_ctl_parse(out, &obs->phc);
}

static void phc_history(const observation *obs, history_sample *sample)
{
	int64_t v = phc_sys_offset_ns(obs);
	if (v != PTP_NS_UNKNOWN) {
		sample->value[HISTORY_PHC_SYS_OFFSET_NS] = (float)v;
	}
}

static obs_state phc_part_state(const observation *obs)
{
	return obs->phc.state;
}

static expectation phc_expectation(const thresholds *th)
{
	return th->expect_ptp;
}

static json_t *phc_json(const observation *obs, bool *ok)
{
	const phc_obs *phc = &obs->phc;
	if (obs_state_absent(phc->state)) {
		return json_null();
	}
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(phc->state, phc->error, sizeof phc->error), ok);
	json_value_put(o, "interface", json_value_text(phc->interface, sizeof phc->interface), ok);
	json_value_put(o, "realtime_minus_phc_ns", json_value_ns(phc->realtime_minus_phc_ns), ok);
	json_value_put(o, "approximate", phc->state == OBS_OK ? json_boolean(phc->approximate) : json_null(), ok);
	json_value_put(o, "phc_time_ns", json_value_ns(phc->phc_time_ns), ok);
	sysclk_steerer s = sysclk_steering(obs);
	json_value_put(o, "system_clock_steered_by", s == SYSCLK_UNKNOWN ? json_null()
				: json_string(sysclk_steerer_name(s)), ok);
	json_value_put(o, "phc_sys_offset_ns", json_value_ns(phc_sys_offset_ns(obs)), ok);
	json_value_put(o, "judged", json_boolean(phc_sys_offset_judged(obs)), ok);
	return o;
}

static double v_phc_sys_offset(const observation *obs)
{
	return prom_ns_seconds(phc_sys_offset_ns(obs));
}

static const prom_family phc_prometheus[] = {
	{"synctop_ptp_phc_sys_offset_seconds", "gauge",
	 "System clock minus the PHC ptp4l disciplines, on the UTC timescale (phc_ctl cmp plus "
	 "currentUtcOffset): how far phc2sys or chronyd keep CLOCK_REALTIME from PTP time.",
	 v_phc_sys_offset, NULL},
};

static const threshold_key phc_keys[] = {
	THRESHOLD_KEY(phc_sys_offset_warn_ns, THRESHOLD_INT64, "phc_sys_offset_crit_ns"),
	THRESHOLD_KEY(phc_sys_offset_crit_ns, THRESHOLD_INT64, NULL),
};

/* ptp.phc_sys_offset: judged only where the system clock is meant to follow
 * this PHC (phc_sys_offset_judged); a node on NTP shows it only. */
static void phc_rules(const health_context *ctx, finding_list *out)
{
	const observation *o = ctx->obs;
	if (!phc_sys_offset_judged(o)) {
		return;
	}
	int64_t v = phc_sys_offset_ns(o);
	double mag = fabs((double)v);
	severity sev = health_grade(mag, (double)ctx->th->phc_sys_offset_warn_ns,
				    (double)ctx->th->phc_sys_offset_crit_ns);
	if (sev == SEVERITY_OK) {
		return;
	}
	char value[UNITS_BUF_LEN], limit[UNITS_BUF_LEN], iface[HEALTH_NAME_LEN];
	HEALTH_CLEAN(iface, o->phc.interface);
	if (!iface[0]) {
		snprintf(iface, sizeof iface, "IFACE");
	}
	sysclk_steerer s = sysclk_steering(o);
	finding f;
	finding_start(&f, sev, "ptp.phc_sys_offset");
	finding_message(&f, "System clock %s from the PHC of %s%s, which %s steers it from (%s above %s)",
			units_format_ns(v, value, sizeof value), iface,
			o->phc.approximate ? " (phc_ctl's approximate reading)" : "", sysclk_steerer_name(s),
			severity_name(sev),
			units_magnitude_ns(sev == SEVERITY_CRIT ? ctx->th->phc_sys_offset_crit_ns
							      : ctx->th->phc_sys_offset_warn_ns,
					   limit, sizeof limit));
	if (s == SYSCLK_PHC2SYS) {
		finding_hint(&f, "`systemctl status phc2sys` (Debian: phc2sys@%s) and its log "
			     "(`CLOCK_REALTIME phc offset ...` lines); a phc2sys that lost ptp4l or was "
			     "stopped leaves the clock drifting: restart it; confirm with "
			     "`phc_ctl %s -q cmp` (about -37 s is right: the UTC offset).", iface, iface);
	} else {
		finding_hint(&f, "`chronyc sources -v` and `chronyc tracking`: the PHC refclock must stay "
			     "selected (`#*`); confirm with `phc_ctl %s -q cmp` (about -37 s is right: "
			     "the UTC offset).", iface);
	}
	health_add_finding(out, &f);
}

/* ------------------------------------------------------------ grid column */

static bool has_offset(const observation *obs)
{
	return phc_sys_offset_ns(obs) != PTP_NS_UNKNOWN;
}

/* Shown wherever measured, judged (coloured) only where the system clock
 * follows the PHC: the finding decides the colour. */
static grid_cell sys_phc_cell(const observation *obs, char *out, size_t len)
{
	if (obs->phc.state != OBS_OK) {
		return GRID_CELL_NA;
	}
	int64_t v = phc_sys_offset_ns(obs);
	if (v == PTP_NS_UNKNOWN) {
		return GRID_CELL_UNKNOWN;
	}
	units_format_ns(v, out, len);
	return GRID_CELL_VALUE;
}

static void sys_phc_sort(const observation *obs, grid_sort_key *key)
{
	int64_t v = phc_sys_offset_ns(obs);
	if (v != PTP_NS_UNKNOWN) {
		key->num = fabs((double)v);
	}
}

static const char *const sys_phc_codes[] = {"ptp.phc_sys_offset", "ptp.system_clock_unsteered", NULL};

static const grid_column phc_columns[] = {
	{.title = "SYS-PHC", .key = "sys-phc",
	 .help = "system clock minus the PHC (phc_ctl, UTC timescale): how well phc2sys/chronyd follow PTP",
	 .min_width = 10, .max_width = 10, .right = true, .sortable = true, .descending = true,
	 .place = 125, .rank = 12, .cell = sys_phc_cell, .sort = sys_phc_sort, .has_data = has_offset,
	 .finding_codes = sys_phc_codes},
};

/* ------------------------------------------------------------- demo renderer */

/* What the probe's function prints for the part in truth (phc_ctl 3.1.1's
 * formats, phc_ctl_parse.c); iface is the request's. */
static int phc_demo_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const phc_obs *phc = &truth->phc;
	const char *name = phc->interface[0] ? phc->interface : strcmp(iface, "-") != 0 ? iface : "eth0";
	if (phc->state == OBS_NOT_COLLECTED) {
		const char *why = strncmp(phc->error, "phc_ctl not run: ", 17) == 0 ? phc->error + 17
				  : strcmp(iface, "-") == 0 ? "the PTP interface is not known yet"
							     : "no /dev/ptp* device and no phc2sys";
		text_sink_printf(out, "synctop: phc_ctl not run: %s\n", why);
		return 0;
	}
	if (phc->state == OBS_TOOL_MISSING) {
		text_sink_printf(out, "synctop: phc_ctl %s\n", name);
		text_sink_puts(err, "sh: 1: phc_ctl: not found\n");
		return TOOL_RC_NOT_FOUND;
	}
	text_sink_printf(out, "synctop: phc_ctl %s\n", name);
	switch (phc->state) {
	case OBS_OK:
		break;
	case OBS_PERMISSION_DENIED:
		text_sink_printf(err, "phc_ctl[0.000]: cannot open /dev/ptp0 for %s: Permission denied\n", name);
		return 255;
	case OBS_NO_DEVICE:
		text_sink_printf(err, "phc_ctl[0.000]: ioctl SIOCETHTOOL failed: No such device\n"
				      "phc_ctl[0.000]: unknown clock %s: No such device\n", name);
		return 255;
	case OBS_NOT_SUPPORTED:
		text_sink_printf(err, "phc_ctl[0.000]: interface %s does not have a PHC\n", name);
		return 255;
	case OBS_EMPTY:
		return 0;
	case OBS_GARBAGE:
		text_sink_puts(out, "phc_ctl[0.000]: offset from CLOCK_REALTIME is ?ns\n");
		return 0;
	case OBS_TRUNCATED:
		text_sink_puts(out, "phc_ctl[0.000]: offset from CLOCK_REALTIME is 1");
		return 0;
	default:
		text_sink_puts(err, "phc_ctl[0.000]: cmp: failed to compare clocks: Invalid argument\n");
		return 0; /* phc_ctl exits 0 when a command fails */
	}
	if (phc->phc_time_ns != PTP_NS_UNKNOWN && phc->phc_time_ns >= 0) {
		time_t s = (time_t)(phc->phc_time_ns / 1000000000LL);
		struct tm tm;
		char when[64] = "?";
		if (gmtime_r(&s, &tm)) {
			strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
		}
		text_sink_printf(out, "phc_ctl[0.000]: clock time is %lld.%09lld or %s\n\n",
				 (long long)(phc->phc_time_ns / 1000000000LL),
				 (long long)(phc->phc_time_ns % 1000000000LL), when);
	}
	long long v = (long long)phc->realtime_minus_phc_ns;
	if (phc->approximate) {
		const char *version = phc->version[0] ? phc->version : "3.1.1";
		/* linuxptp < 4.0 printed the fallback the other way round */
		text_sink_printf(out, "phc_ctl[0.000]: offset from CLOCK_REALTIME is approximately %lldns\n",
				 phc_ctl_version_major(version) < 4 ? -v : v);
		text_sink_printf(out, "synctop: phc_ctl version %s\n", version);
	} else {
		text_sink_printf(out, "phc_ctl[0.000]: offset from CLOCK_REALTIME is %lldns\n", v);
	}
	return 0;
}

const collector phc_ctl_collector = {
	.name = "phc_ctl",
	.title = "the PHC against the system clock (phc_ctl get cmp)",
	/* no single quote anywhere: the script travels inside '...'; $iface
	 * may list several ptp4l interfaces (a boundary clock): the first is
	 * read */
	.shell_functions =
		"synctop_phc() {\n"
		"	if [ \"$iface\" = - ]; then\n"
		"		printf \"synctop: phc_ctl not run: the PTP interface is not known yet\\n\"\n"
		"		return 0\n"
		"	fi\n"
		"	synctop_p=\n"
		"	case $synctop_ps in *phc2sys*) synctop_p=1 ;; esac\n"
		"	for synctop_d in /dev/ptp*; do [ -e \"$synctop_d\" ] && synctop_p=1; break; done\n"
		"	if [ -z \"$synctop_p\" ]; then\n"
		"		printf \"synctop: phc_ctl not run: no /dev/ptp* device and no phc2sys\\n\"\n"
		"		return 0\n"
		"	fi\n"
		"	synctop_i=${iface%%,*}\n"
		"	printf \"synctop: phc_ctl %s\\n\" \"$synctop_i\"\n"
		"	synctop_o=$($sudo phc_ctl -q \"$synctop_i\" get cmp)\n"
		"	synctop_r=$?\n"
		"	[ -z \"$synctop_o\" ] || printf \"%s\\n\" \"$synctop_o\"\n"
		"	case $synctop_o in *approximately*) printf \"synctop: phc_ctl version %s\\n\" \"$(phc_ctl -v 2>&1)\" ;; esac\n"
		"	return $synctop_r\n"
		"}\n",
	.command = "synctop_phc",
	.cadence = COLLECT_EVERY_POLL,
	.decode = phc_decode,
	.history = phc_history,
	.json_key = "phc",
	.json = phc_json,
	.part_state = phc_part_state,
	.prometheus = phc_prometheus,
	.n_prometheus = sizeof phc_prometheus / sizeof phc_prometheus[0],
	.rules = phc_rules,
	.expectation = phc_expectation,
	.columns = phc_columns,
	.n_columns = sizeof phc_columns / sizeof phc_columns[0],
	.demo_render = phc_demo_render,
	.threshold_keys = phc_keys,
	.n_threshold_keys = sizeof phc_keys / sizeof phc_keys[0],
};
