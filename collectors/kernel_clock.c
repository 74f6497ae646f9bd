/* kernel_clock.c - the kernel clock collector: adjtimex(2)'s view of the
 * system clock (observation.h kernel_clock_obs).
 *
 * It runs nothing on a node (command NULL: no probe section); the
 * Prometheus source fills its part from node_exporter's timex series.  It
 * owns what every source shares: the part's JSON object, its rules, its
 * drill-down section and its view for the grid's time columns. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chrony_rules.h"
#include "collector.h"
#include "json_value.h"
#include "units.h"

static void kernel_decode(const tool_output *out, observation *obs)
{
	/* never called: no probe section carries this part */
	(void)out;
	(void)obs;
}

static obs_state kernel_part_state(const observation *obs)
{
	return obs->kernel.state;
}

static const struct {
	unsigned bit;
	const char *name;
} status_bits[] = {
	{KERNEL_STA_PLL, "PLL"},          {KERNEL_STA_PPSFREQ, "PPSFREQ"},   {KERNEL_STA_PPSTIME, "PPSTIME"},
	{KERNEL_STA_FLL, "FLL"},          {KERNEL_STA_INS, "INS"},           {KERNEL_STA_DEL, "DEL"},
	{KERNEL_STA_UNSYNC, "UNSYNC"},    {KERNEL_STA_FREQHOLD, "FREQHOLD"}, {KERNEL_STA_PPSSIGNAL, "PPSSIGNAL"},
	{KERNEL_STA_PPSJITTER, "PPSJITTER"}, {KERNEL_STA_PPSWANDER, "PPSWANDER"}, {KERNEL_STA_PPSERROR, "PPSERROR"},
	{KERNEL_STA_CLOCKERR, "CLOCKERR"}, {KERNEL_STA_NANO, "NANO"},        {KERNEL_STA_MODE, "MODE"},
	{KERNEL_STA_CLK, "CLK"},
};

/* The leap second the kernel will apply at the end of the UTC day. */
static chrony_leap kernel_leap(const kernel_clock_obs *k)
{
	if (!kernel_clock_synchronised(k)) {
		return k->status == INT_UNKNOWN && k->synchronised == INT_UNKNOWN ? CHRONY_LEAP_UNKNOWN
										    : CHRONY_LEAP_UNSYNC;
	}
	if (k->status == INT_UNKNOWN) {
		return CHRONY_LEAP_UNKNOWN;
	}
	if (k->status & KERNEL_STA_INS) {
		return CHRONY_LEAP_INSERT;
	}
	return (k->status & KERNEL_STA_DEL) ? CHRONY_LEAP_DELETE : CHRONY_LEAP_NORMAL;
}

static json_t *kernel_json(const observation *obs, bool *ok)
{
	const kernel_clock_obs *k = &obs->kernel;
	if (obs_state_absent(k->state)) {
		return json_null();
	}
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(k->state, k->error, sizeof k->error), ok);
	bool known = k->state == OBS_OK;
	json_value_put(o, "synchronised",
		       known && (k->synchronised != INT_UNKNOWN || k->status != INT_UNKNOWN)
			       ? json_boolean(kernel_clock_synchronised(k))
			       : json_null(),
		       ok);
	json_value_put(o, "offset_s", json_value_number(known ? k->offset_s : NAN), ok);
	json_value_put(o, "max_error_s", json_value_number(known ? k->max_error_s : NAN), ok);
	json_value_put(o, "est_error_s", json_value_number(known ? k->est_error_s : NAN), ok);
	json_value_put(o, "freq_adjust_ppm", json_value_number(known ? k->freq_adjust_ppm : NAN), ok);
	json_value_put(o, "status", json_value_int(known ? k->status : INT_UNKNOWN), ok);
	json_t *flags = known && k->status != INT_UNKNOWN ? json_array() : json_null();
	for (size_t i = 0; json_is_array(flags) && i < sizeof status_bits / sizeof status_bits[0]; i++) {
		if ((unsigned)k->status & status_bits[i].bit) {
			json_value_append(flags, json_string(status_bits[i].name), ok);
		}
	}
	json_value_put(o, "status_flags", flags, ok);
	chrony_leap leap = known ? kernel_leap(k) : CHRONY_LEAP_UNKNOWN;
	json_value_put(o, "leap_status", leap == CHRONY_LEAP_UNKNOWN ? json_null() : json_string(chrony_leap_name(leap)),
		       ok);
	json_value_put(o, "time_constant", json_value_int(known ? k->time_constant : INT_UNKNOWN), ok);
	json_value_put(o, "tick_s", json_value_number(known ? k->tick_s : NAN), ok);
	json_value_put(o, "tai_offset_s", json_value_int(known ? k->tai_offset_s : INT_UNKNOWN), ok);
	return o;
}

/* What the kernel alone can tell.  A time daemon's own part (chrony) says
 * more and decides when it answered: under chronyd the kernel reads
 * unsynchronised unless chrony.conf has `rtcsync`. */
static void kernel_rules(const health_context *ctx, finding_list *out)
{
	const observation *o = ctx->obs;
	const kernel_clock_obs *k = &o->kernel;
	const thresholds *th = ctx->th;
	finding f;
	char a[UNITS_BUF_LEN], b[UNITS_BUF_LEN];

	if (o->chrony.state == OBS_OK) {
		return;
	}
	/* The kernel's frequency is the discipline's (chronyd sets it to minus
	 * its own): its trend from Prometheus, judged by chrony's drift rules. */
	chrony_drift_rules(ctx->history, th, out);
	if (!kernel_clock_synchronised(k)) {
		if (k->synchronised == INT_UNKNOWN && k->status == INT_UNKNOWN) {
			return; /* nothing said either way */
		}
		finding_start(&f, SEVERITY_WARN, "kernel.unsynchronised");
		finding_message(&f, "The kernel marks the clock unsynchronised (STA_UNSYNC / TIME_ERROR); "
				    "no time daemon's own view is available to say more");
		finding_hint(&f, "Under chronyd this is normal without `rtcsync` in chrony.conf (add it, or export "
				 "chrony_exporter series so synctop can judge chrony itself); otherwise start a time "
				 "daemon (`systemctl enable --now chronyd`).");
		health_add_finding(out, &f);
		return;
	}
	severity sev = health_grade(fabs(k->offset_s), th->chrony_offset_warn_s, th->chrony_offset_crit_s);
	if (sev != SEVERITY_OK) {
		finding_start(&f, sev, "kernel.offset");
		finding_message(&f, "Kernel PLL offset %s (limit %s)",
				units_format_seconds(k->offset_s, a, sizeof a),
				units_format_seconds(sev == SEVERITY_CRIT ? th->chrony_offset_crit_s
									  : th->chrony_offset_warn_s,
						     b, sizeof b));
		finding_hint(&f, "The time daemon disciplining the kernel (ntpd?) is far from its reference: check "
				 "it on the node (`ntpq -p`, `chronyc tracking`).");
		health_add_finding(out, &f);
	}
	sev = health_grade(k->max_error_s, th->chrony_error_bound_warn_s, th->chrony_error_bound_crit_s);
	if (sev != SEVERITY_OK) {
		finding_start(&f, sev, "kernel.max_error");
		finding_message(&f, "Kernel maximum error %s (limit %s)",
				units_format_seconds(k->max_error_s, a, sizeof a),
				units_format_seconds(sev == SEVERITY_CRIT ? th->chrony_error_bound_crit_s
									  : th->chrony_error_bound_warn_s,
						     b, sizeof b));
		finding_hint(&f, "maxerror grows by 500 ppm while no daemon updates it: the time daemon has not "
				 "updated the kernel lately, or its reference is far (large root distance).");
		health_add_finding(out, &f);
	}
}

static void kernel_detail(const observation *obs, const detail_sink *out)
{
	const kernel_clock_obs *k = &obs->kernel;
	char v[UNITS_BUF_LEN], line[256];
	if (k->state != OBS_OK) {
		snprintf(line, sizeof line, "%s: %s", obs_state_name(k->state), k->error);
		out->text(out->ctx, line, DETAIL_WARN);
		return;
	}
	bool synced = kernel_clock_synchronised(k);
	out->kv(out->ctx, "Synchronised", synced ? "yes" : "no (STA_UNSYNC)", synced ? DETAIL_GOOD : DETAIL_WARN);
	out->kv(out->ctx, "Offset", units_format_seconds(k->offset_s, v, sizeof v),
		isnan(k->offset_s) ? DETAIL_DIM : DETAIL_PLAIN);
	out->kv(out->ctx, "Max error", units_format_seconds(k->max_error_s, v, sizeof v),
		isnan(k->max_error_s) ? DETAIL_DIM : DETAIL_PLAIN);
	out->kv(out->ctx, "Est error", units_format_seconds(k->est_error_s, v, sizeof v),
		isnan(k->est_error_s) ? DETAIL_DIM : DETAIL_PLAIN);
	line[0] = '\0';
	for (size_t i = 0; k->status != INT_UNKNOWN && i < sizeof status_bits / sizeof status_bits[0]; i++) {
		if ((unsigned)k->status & status_bits[i].bit) {
			size_t used = strlen(line);
			snprintf(line + used, sizeof line - used, "%s%s", used ? " " : "", status_bits[i].name);
		}
	}
	out->kv(out->ctx, "Status", k->status == INT_UNKNOWN ? "-" : line[0] ? line : "(none)", DETAIL_PLAIN);
	if (!isnan(k->offset_s) || !synced) {
		return;
	}
	out->text(out->ctx,
		  "The offset is the kernel PLL's pending correction: it says how far the clock is off only "
		  "under ntpd's kernel discipline (STA_PLL); chronyd steers the clock without it.",
		  DETAIL_DIM);
}

/* The kernel's view for the grid, after every daemon's in the registry. */
static bool kernel_time_service(const observation *obs, time_service_view *out)
{
	const kernel_clock_obs *k = &obs->kernel;
	if (k->state != OBS_OK) {
		return false;
	}
	out->daemon = "kernel";
	out->referenced = kernel_clock_synchronised(k);
	out->source[0] = '\0';
	out->stratum = INT_UNKNOWN;
	out->offset_s = k->offset_s;
	/* the correction applied is minus how fast the free clock runs */
	out->frequency_ppm = isnan(k->freq_adjust_ppm) ? NAN : -k->freq_adjust_ppm;
	out->skew_ppm = NAN;
	out->leap = kernel_leap(k);
	return true;
}

const collector kernel_clock_collector = {
	.name = "kernel_clock",
	.title = "kernel clock discipline (adjtimex, from node_exporter's timex series)",
	.command = NULL,
	.cadence = COLLECT_EVERY_POLL,
	.decode = kernel_decode,
	.json_key = "kernel_clock",
	.json = kernel_json,
	.part_state = kernel_part_state,
	.rules = kernel_rules,
	.detail_title = "Kernel clock",
	.detail = kernel_detail,
	.time_service = kernel_time_service,
};
