/* chrony.c - the chrony collector: `chronyc -c -n -m tracking sources
 * sourcestats`, parsed by chrony_parse.c.
 *
 * The three reports travel in one chronyc call: they need the same access
 * (monitoring commands, allowed to any local user) and fail together when
 * chronyd does not answer, so `-m` stopping at the first failure loses
 * nothing.  Reports that need chronyd's authorisation belong in a collector
 * of their own, so a refusal drops nothing else. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chrony_parse.h"
#include "chrony_rules.h"
#include "collector.h"
#include "json_value.h"
#include "units.h"

static void chrony_decode(const tool_output *out, observation *obs)
{
	chrony_parse_csv(out, &obs->chrony);
	chrony_tracking_settle(&obs->chrony.tracking);
}

static expectation chrony_expectation(const thresholds *th)
{
	return th->expect_chrony;
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
	THRESHOLD_KEY(min_sources, THRESHOLD_INT, NULL),
};

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

static json_t *chrony_sources_json(const chrony_obs *c, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < json_value_clamp(c->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_source *s = &c->sources[i];
		json_t *o = json_object();
		json_value_put(o, "mode", jsource_mode(s->mode), ok);
		json_value_put(o, "state", jsource_state(s->state), ok);
		json_value_put(o, "name", json_value_text(s->name, sizeof s->name), ok);
		json_value_put(o, "stratum", json_value_int(s->stratum), ok);
		json_value_put(o, "poll", json_value_int(s->poll), ok);
		json_value_put(o, "reach", json_integer(s->reach), ok);
		/* -1 means chrony never got a sample from it */
		json_value_put(o, "last_rx_s", s->last_rx_s < 0 ? json_null() : json_integer((json_int_t)s->last_rx_s), ok);
		json_value_put(o, "adjusted_offset_s", json_value_number(s->adjusted_offset_s), ok);
		json_value_put(o, "measured_offset_s", json_value_number(s->measured_offset_s), ok);
		json_value_put(o, "error_s", json_value_number(s->error_s), ok);
		json_value_append(arr, o, ok);
	}
	return arr;
}

static json_t *chrony_sourcestats_json(const chrony_obs *c, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < json_value_clamp(c->n_sourcestats, CHRONY_MAX_SOURCES); i++) {
		const chrony_sourcestat *s = &c->sourcestats[i];
		json_t *o = json_object();
		json_value_put(o, "name", json_value_text(s->name, sizeof s->name), ok);
		json_value_put(o, "samples", json_value_int(s->samples), ok);
		json_value_put(o, "runs", json_value_int(s->runs), ok);
		json_value_put(o, "span_s", json_value_int(s->span_s), ok);
		json_value_put(o, "frequency_ppm", json_value_number(s->frequency_ppm), ok);
		json_value_put(o, "skew_ppm", json_value_number(s->skew_ppm), ok);
		json_value_put(o, "offset_s", json_value_number(s->offset_s), ok);
		json_value_put(o, "std_dev_s", json_value_number(s->std_dev_s), ok);
		json_value_append(arr, o, ok);
	}
	return arr;
}

static json_t *chrony_json(const observation *obs, bool *ok)
{
	const chrony_obs *c = &obs->chrony;
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
	json_value_put(o, "error", json_value_part_error(c->state, c->error, sizeof c->error), ok);
	json_value_put(o, "leap_status",
	    t->leap == CHRONY_LEAP_UNKNOWN ? json_null() : json_string(chrony_leap_name(t->leap)), ok);
	json_value_put(o, "stratum", json_value_int(t->stratum), ok);
	if (t->has_reference_id) {
		char id[16];
		snprintf(id, sizeof id, "%08X", (unsigned)t->reference_id);
		json_value_put(o, "reference_id", json_string(id), ok);
	} else {
		json_value_put(o, "reference_id", json_null(), ok);
	}
	json_value_put(o, "reference_name", json_value_text(t->reference_name, sizeof t->reference_name), ok);
	json_value_put(o, "system_time_offset_s", json_value_number(t->system_time_offset_s), ok);
	json_value_put(o, "last_offset_s", json_value_number(t->last_offset_s), ok);
	json_value_put(o, "rms_offset_s", json_value_number(t->rms_offset_s), ok);
	json_value_put(o, "frequency_ppm", json_value_number(t->frequency_ppm), ok);
	json_value_put(o, "residual_frequency_ppm", json_value_number(t->residual_frequency_ppm), ok);
	json_value_put(o, "skew_ppm", json_value_number(t->skew_ppm), ok);
	json_value_put(o, "root_delay_s", json_value_number(t->root_delay_s), ok);
	json_value_put(o, "root_dispersion_s", json_value_number(t->root_dispersion_s), ok);
	json_value_put(o, "update_interval_s", json_value_number(t->update_interval_s), ok);
	json_value_put(o, "sources_total", good ? json_integer(c->n_sources_total < 0 ? 0 : c->n_sources_total) : json_null(), ok);
	json_value_put(o, "sources", good ? chrony_sources_json(c, ok) : json_null(), ok);
	json_value_put(o, "sourcestats", good ? chrony_sourcestats_json(c, ok) : json_null(), ok);
	return o;
}

static obs_state chrony_part_state(const observation *obs)
{
	return obs->chrony.state;
}

static const chrony_tracking *tracking_of(const observation *obs)
{
	return obs->chrony.state == OBS_OK ? &obs->chrony.tracking : NULL;
}

#define TRACKING_VALUE(fn, expr) \
	static double fn(const observation *obs) \
	{ \
		const chrony_tracking *t = tracking_of(obs); \
		return t ? (expr) : NAN; \
	}

TRACKING_VALUE(v_chrony_offset, t->system_time_offset_s)
TRACKING_VALUE(v_chrony_last_offset, t->last_offset_s)
TRACKING_VALUE(v_chrony_rms_offset, t->rms_offset_s)
TRACKING_VALUE(v_chrony_frequency, prom_ppm_ratio(t->frequency_ppm))
TRACKING_VALUE(v_chrony_skew, prom_ppm_ratio(t->skew_ppm))
TRACKING_VALUE(v_chrony_root_delay, t->root_delay_s)
TRACKING_VALUE(v_chrony_root_dispersion, t->root_dispersion_s)
TRACKING_VALUE(v_chrony_update_interval, t->update_interval_s)
TRACKING_VALUE(v_chrony_stratum, prom_int(t->stratum))

/* chrony's own numbering (LEAP_Normal .. LEAP_Unsynchronised), which is
 * also NTP's leap indicator. */
static double v_chrony_leap(const observation *obs)
{
	const chrony_tracking *t = tracking_of(obs);
	if (!t) {
		return NAN;
	}
	switch (t->leap) {
	case CHRONY_LEAP_NORMAL: return 0;
	case CHRONY_LEAP_INSERT: return 1;
	case CHRONY_LEAP_DELETE: return 2;
	case CHRONY_LEAP_UNSYNC: return 3;
	case CHRONY_LEAP_UNKNOWN: break;
	}
	return NAN;
}


static const prom_family chrony_prometheus[] = {
	{"synctop_chrony_offset_seconds", "gauge",
	 "chronyd System time offset: node clock minus its reference (positive = node ahead).",
	 v_chrony_offset, NULL},
	{"synctop_chrony_last_offset_seconds", "gauge",
	 "chronyd Last offset, at the last clock update: node minus reference.", v_chrony_last_offset, NULL},
	{"synctop_chrony_rms_offset_seconds", "gauge",
	 "chronyd RMS offset: long-term average of the offset.", v_chrony_rms_offset, NULL},
	{"synctop_chrony_frequency_ratio", "gauge",
	 "chronyd Frequency as a ratio (ppm / 1e6): how fast the uncorrected clock runs (positive = fast).",
	 v_chrony_frequency, NULL},
	{"synctop_chrony_skew_ratio", "gauge",
	 "chronyd Skew as a ratio (ppm / 1e6): estimated error bound on the frequency.", v_chrony_skew, NULL},
	{"synctop_chrony_root_delay_seconds", "gauge",
	 "chronyd Root delay: total network path delay to the stratum-1 clock.", v_chrony_root_delay, NULL},
	{"synctop_chrony_root_dispersion_seconds", "gauge",
	 "chronyd Root dispersion: total dispersion accumulated up to the stratum-1 clock.",
	 v_chrony_root_dispersion, NULL},
	{"synctop_chrony_update_interval_seconds", "gauge",
	 "chronyd Update interval: time between the last two clock updates.", v_chrony_update_interval, NULL},
	{"synctop_chrony_stratum", "gauge", "chronyd Stratum.", v_chrony_stratum, NULL},
	{"synctop_chrony_leap_status", "gauge",
	 "chronyd Leap status: 0 normal, 1 insert second, 2 delete second, 3 not synchronised.",
	 v_chrony_leap, NULL},
};

/* chronyd's view of the system clock for the grid (time_service.h): the
 * tracking record, through its validity rule (the decode applied it). */
static bool chrony_time_service(const observation *obs, time_service_view *out)
{
	const chrony_obs *c = &obs->chrony;
	if (c->state != OBS_OK) {
		return false;
	}
	const chrony_tracking *t = &c->tracking;
	out->daemon = "chronyd";
	out->referenced = chrony_tracking_has_reference(t);
	out->source[0] = '\0';
	if (t->reference_name[0]) {
		snprintf(out->source, sizeof out->source, "%.*s", (int)strnlen(t->reference_name, sizeof t->reference_name),
			 t->reference_name);
	} else if (t->has_reference_id) {
		snprintf(out->source, sizeof out->source, "%08X", (unsigned)t->reference_id);
	}
	out->stratum = t->stratum;
	out->offset_s = t->system_time_offset_s;
	out->frequency_ppm = t->frequency_ppm;
	out->skew_ppm = t->skew_ppm;
	out->leap = t->leap;
	return true;
}

/* The mode and state letters as chronyc prints them. */
static char mode_char(chrony_source_mode m)
{
	switch (m) {
	case CHRONY_MODE_SERVER: return '^';
	case CHRONY_MODE_PEER: return '=';
	case CHRONY_MODE_REFCLOCK: return '#';
	case CHRONY_MODE_UNKNOWN: break;
	}
	return '?';
}

static char state_char(chrony_source_state st)
{
	switch (st) {
	case CHRONY_STATE_SELECTED: return '*';
	case CHRONY_STATE_COMBINED: return '+';
	case CHRONY_STATE_NOT_COMBINED: return '-';
	case CHRONY_STATE_FALSETICKER: return 'x';
	case CHRONY_STATE_JITTERY: return '~';
	case CHRONY_STATE_UNUSABLE:
	case CHRONY_STATE_UNKNOWN: break;
	}
	return '?';
}

/* --------------------------------------------------------------- drill-down */

/* Finding codes about each value (they colour it). */
static const char *const reference_codes[] = {"chrony.no_selected_source", "chrony.reach",
					      "chrony.local_reference", "time.no_service", "cluster.reference",
					      NULL};
static const char *const offset_codes[] = {"chrony.offset", "chrony.error_bound", "cluster.offset_spread", NULL};
static const char *const frequency_codes[] = {"chrony.frequency", "chrony.drift", "chrony.drift_daily", NULL};
static const char *const skew_codes[] = {"chrony.skew", NULL};
static const char *const leap_codes[] = {"chrony.leap", "cluster.leap", NULL};

static void format_int(int v, char *buf, size_t len)
{
	if (v == INT_UNKNOWN) {
		snprintf(buf, len, "unknown");
	} else {
		snprintf(buf, len, "%d", v);
	}
}

static void format_ppm(double v, bool sign, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "unknown");
	} else {
		snprintf(buf, len, sign ? "%+.3f ppm" : "%.3f ppm", v);
	}
}

static void format_utc(double t, char *buf, size_t len)
{
	time_t tt;
	struct tm tm;
	if (!isfinite(t) || t < 0 || t > 4e12) {
		snprintf(buf, len, "unknown");
		return;
	}
	tt = (time_t)t;
	if (!gmtime_r(&tt, &tm) || strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0) {
		snprintf(buf, len, "unknown");
	}
}

/* A magnitude (delay, dispersion, RMS, interval): no sign. */
static void format_magnitude(double s, char *buf, size_t len)
{
	char signed_buf[UNITS_BUF_LEN];
	units_format_seconds(s, signed_buf, sizeof signed_buf);
	snprintf(buf, len, "%s", units_unsigned(signed_buf));
}

static void tracking_detail(const chrony_tracking *t, const detail_sink *out)
{
	char buf[256];
	/* Without a reference chrony's reference values are placeholders: the
	 * decode made them unknown (chrony_tracking_has_reference). */
	bool ref = chrony_tracking_has_reference(t);
	const char *unsynced = "not synchronised";
	if (!ref) {
		snprintf(buf, sizeof buf, "%s", unsynced);
	} else if (t->has_reference_id) {
		snprintf(buf, sizeof buf, "%08X (%.*s)", (unsigned)t->reference_id,
			 (int)strnlen(t->reference_name, sizeof t->reference_name),
			 t->reference_name[0] ? t->reference_name : "no name");
	} else {
		snprintf(buf, sizeof buf, "%.*s", (int)strnlen(t->reference_name, sizeof t->reference_name),
			 t->reference_name[0] ? t->reference_name : "unknown");
	}
	out->kv(out->ctx, "Reference", buf, out->finding_tone(out->ctx, reference_codes));
	format_int(t->stratum, buf, sizeof buf);
	out->kv(out->ctx, "Stratum", ref ? buf : unsynced, DETAIL_PLAIN);
	format_utc(t->ref_time, buf, sizeof buf);
	out->kv(out->ctx, "Ref time", buf, DETAIL_PLAIN);
	units_format_seconds(t->system_time_offset_s, buf, sizeof buf);
	out->kv(out->ctx, "System time", ref ? buf : unsynced, out->finding_tone(out->ctx, offset_codes));
	units_format_seconds(t->last_offset_s, buf, sizeof buf);
	out->kv(out->ctx, "Last offset", buf, DETAIL_PLAIN);
	format_magnitude(t->rms_offset_s, buf, sizeof buf);
	out->kv(out->ctx, "RMS offset", buf, DETAIL_PLAIN);
	format_ppm(t->frequency_ppm, true, buf, sizeof buf);
	out->kv(out->ctx, "Frequency", buf, out->finding_tone(out->ctx, frequency_codes));
	format_ppm(t->residual_frequency_ppm, true, buf, sizeof buf);
	out->kv(out->ctx, "Residual freq", ref ? buf : unsynced, DETAIL_PLAIN);
	format_ppm(t->skew_ppm, false, buf, sizeof buf);
	out->kv(out->ctx, "Skew", ref ? buf : unsynced, out->finding_tone(out->ctx, skew_codes));
	format_magnitude(t->root_delay_s, buf, sizeof buf);
	out->kv(out->ctx, "Root delay", ref ? buf : unsynced, DETAIL_PLAIN);
	format_magnitude(t->root_dispersion_s, buf, sizeof buf);
	out->kv(out->ctx, "Root dispersion", ref ? buf : unsynced, DETAIL_PLAIN);
	format_magnitude(t->update_interval_s, buf, sizeof buf);
	out->kv(out->ctx, "Update interval", buf, DETAIL_PLAIN);
	out->kv(out->ctx, "Leap status", chrony_leap_name(t->leap), out->finding_tone(out->ctx, leap_codes));
}

static detail_tone source_tone(chrony_source_state s)
{
	switch (s) {
	case CHRONY_STATE_SELECTED: return DETAIL_GOOD;
	case CHRONY_STATE_FALSETICKER: return DETAIL_CRIT;
	case CHRONY_STATE_JITTERY:
	case CHRONY_STATE_UNUSABLE: return DETAIL_WARN;
	default: return DETAIL_PLAIN;
	}
}

static void sources_detail(const chrony_obs *ch, const detail_sink *out)
{
	static const detail_column cols[] = {
		{"MS", false}, {"Name", false}, {"Stratum", true}, {"Poll", true}, {"Reach", true},
		{"LastRx", true}, {"Offset", true}, {"Measured", true}, {"Error", true},
	};
	int n = json_value_clamp(ch->n_sources, CHRONY_MAX_SOURCES);
	char buf[UNITS_BUF_LEN * 2];

	out->section(out->ctx, "chrony sources");
	if (n == 0) {
		out->text(out->ctx, "none", DETAIL_DIM);
		return;
	}
	out->table_begin(out->ctx, (int)(sizeof cols / sizeof cols[0]), cols);
	for (int i = 0; i < n; i++) {
		const chrony_source *src = &ch->sources[i];
		detail_tone tone = source_tone(src->state);
		out->table_row(out->ctx);
		/* the state column as chronyc prints it; ' ' for a state it has no letter for */
		char state = src->state == CHRONY_STATE_UNKNOWN ? ' ' : state_char(src->state);
		snprintf(buf, sizeof buf, "%c%c", mode_char(src->mode), state);
		out->table_cell(out->ctx, buf, tone);
		out->table_cell(out->ctx, src->name, tone);
		format_int(src->stratum, buf, sizeof buf);
		out->table_cell(out->ctx, src->stratum == INT_UNKNOWN ? "?" : buf, DETAIL_PLAIN);
		format_int(src->poll, buf, sizeof buf);
		out->table_cell(out->ctx, src->poll == INT_UNKNOWN ? "?" : buf, DETAIL_PLAIN);
		snprintf(buf, sizeof buf, "%03o", src->reach & 0377u);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		if (src->last_rx_s < 0) {
			snprintf(buf, sizeof buf, "never");
		} else {
			snprintf(buf, sizeof buf, "%lld s", (long long)src->last_rx_s);
		}
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		units_format_seconds(src->adjusted_offset_s, buf, sizeof buf);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		units_format_seconds(src->measured_offset_s, buf, sizeof buf);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		format_magnitude(src->error_s, buf, sizeof buf);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
	}
	out->table_end(out->ctx);
	if (ch->n_sources_total > n) {
		snprintf(buf, sizeof buf, "(%d more sources not kept)", ch->n_sources_total - n);
		out->text(out->ctx, buf, DETAIL_DIM);
	}
	out->text(out->ctx,
		  "M: ^ server, = peer, # reference clock.  S: * selected, + combined, - not combined, "
		  "x falseticker, ~ too variable, ? unusable",
		  DETAIL_DIM);
}

static void sourcestats_detail(const chrony_obs *ch, const detail_sink *out)
{
	static const detail_column cols[] = {
		{"Name", false}, {"NP", true}, {"NR", true}, {"Span", true}, {"Frequency", true},
		{"Freq skew", true}, {"Offset", true}, {"Std dev", true},
	};
	int n = json_value_clamp(ch->n_sourcestats, CHRONY_MAX_SOURCES);
	char buf[UNITS_BUF_LEN * 2];

	if (n == 0) {
		return;
	}
	out->section(out->ctx, "chrony sourcestats");
	out->table_begin(out->ctx, (int)(sizeof cols / sizeof cols[0]), cols);
	for (int i = 0; i < n; i++) {
		const chrony_sourcestat *st = &ch->sourcestats[i];
		out->table_row(out->ctx);
		out->table_cell(out->ctx, st->name, DETAIL_PLAIN);
		snprintf(buf, sizeof buf, "%d", st->samples);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		snprintf(buf, sizeof buf, "%d", st->runs);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		snprintf(buf, sizeof buf, "%d s", st->span_s);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		format_ppm(st->frequency_ppm, true, buf, sizeof buf);
		out->table_cell(out->ctx, isfinite(st->frequency_ppm) ? buf : "?", DETAIL_PLAIN);
		format_ppm(st->skew_ppm, false, buf, sizeof buf);
		out->table_cell(out->ctx, isfinite(st->skew_ppm) ? buf : "?", DETAIL_PLAIN);
		units_format_seconds(st->offset_s, buf, sizeof buf);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		format_magnitude(st->std_dev_s, buf, sizeof buf);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
	}
	out->table_end(out->ctx);
}

/* Its sections: tracking (headed by detail_title), sources, sourcestats. */
static void chrony_detail(const observation *obs, const detail_sink *out)
{
	const chrony_obs *ch = &obs->chrony;
	if (ch->state != OBS_OK) {
		char line[OBS_ERROR_LEN + 32];
		snprintf(line, sizeof line, "%s%s%.*s", obs_state_name(ch->state), ch->error[0] ? ": " : "",
			 (int)strnlen(ch->error, sizeof ch->error), ch->error);
		out->text(out->ctx, line, DETAIL_WARN);
		return;
	}
	tracking_detail(&ch->tracking, out);
	sources_detail(ch, out);
	sourcestats_detail(ch, out);
}

/* ------------------------------------------------------------- demo renderer */

/* chronyc -c prints unknown numbers as chronyd's placeholders: 0. */
static double placeholder(double v)
{
	return isfinite(v) ? v : 0.0;
}

/* `chronyc -c -n -m tracking sources sourcestats` as chronyc 4.3 prints it
 * (fixtures chronyc-c-m-tracking-sources*.txt): the tracking record, one
 * record per source, one per sourcestats entry.  Without a reference the
 * tracking record carries REF_GetTrackingReport's placeholders (reference
 * ID 0, stratum 0, 1 s root delay and dispersion: observation.h). */
static int chrony_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const chrony_obs *c = &truth->chrony;
	(void)iface;
	if (c->state != OBS_OK) {
		return chrony_render_failure(c->state, c->error, out, err);
	}
	const chrony_tracking *t = &c->tracking;
	bool ref = chrony_tracking_has_reference(t);
	/* "System time" is chronyd's pending correction: positive = the clock
	 * is slow, minus the node's offset. */
	text_sink_printf(out, "%08X,%s,%d,%.9f,%.9f,%.9f,%.9f,%.3f,%.3f,%.3f,%.9f,%.9f,%.1f,%s\n",
			 ref && t->has_reference_id ? (unsigned)t->reference_id : 0u, ref ? t->reference_name : "",
			 ref && t->stratum != INT_UNKNOWN ? t->stratum : 0, placeholder(t->ref_time),
			 -placeholder(t->system_time_offset_s), placeholder(t->last_offset_s),
			 placeholder(t->rms_offset_s), placeholder(t->frequency_ppm),
			 placeholder(t->residual_frequency_ppm), placeholder(t->skew_ppm),
			 ref ? placeholder(t->root_delay_s) : 1.0, ref ? placeholder(t->root_dispersion_s) : 1.0,
			 placeholder(t->update_interval_s), chrony_leap_name(t->leap));
	for (int i = 0; i < c->n_sources && i < CHRONY_MAX_SOURCES; i++) {
		const chrony_source *src = &c->sources[i];
		text_sink_printf(out, "%c,%c,%s,%d,%d,%o,%lld,%.9f,%.9f,%.9f\n", mode_char(src->mode),
				 state_char(src->state), src->name, src->stratum, src->poll, src->reach,
				 src->last_rx_s < 0 ? 4294967295LL : (long long)src->last_rx_s,
				 placeholder(src->adjusted_offset_s), placeholder(src->measured_offset_s),
				 placeholder(src->error_s));
	}
	for (int i = 0; i < c->n_sourcestats && i < CHRONY_MAX_SOURCES; i++) {
		const chrony_sourcestat *st = &c->sourcestats[i];
		text_sink_printf(out, "%s,%d,%d,%d,%.3f,%.3f,%.9f,%.9f\n", st->name, st->samples, st->runs,
				 st->span_s, placeholder(st->frequency_ppm), placeholder(st->skew_ppm),
				 placeholder(st->offset_s), placeholder(st->std_dev_s));
	}
	return 0;
}

const collector chrony_collector = {
	.name = "chrony",
	.title = "chrony tracking, sources and sourcestats",
	.command = "chronyc -c -n -m tracking sources sourcestats",
	.cadence = COLLECT_EVERY_POLL,
	.json_key = "chrony",
	.json = chrony_json,
	.part_state = chrony_part_state,
	.prometheus = chrony_prometheus,
	.n_prometheus = sizeof chrony_prometheus / sizeof chrony_prometheus[0],
	.decode = chrony_decode,
	.history = chrony_history,
	.rules = chrony_rules,
	.expectation = chrony_expectation,
	.detail_title = "chrony tracking",
	.detail = chrony_detail,
	.demo_render = chrony_render,
	.time_service = chrony_time_service,
	.threshold_keys = chrony_keys,
	.n_threshold_keys = sizeof chrony_keys / sizeof chrony_keys[0],
};
