/* chrony_select.c - the selection collector: `chronyc -c -n selectdata`,
 * why chronyd uses each source or not (chrony >= 4.0).
 *
 * Its own chronyc call: with a user who may run monitoring commands but not
 * selectdata (chronyc over UDP gets "501 Not authorised"), the refusal costs
 * this part only, never tracking and sources.  The first collector built by
 * the recipe in docs/collectors.md.
 *
 * Record, 18 fields (chronyc's client.c, process_cmd_selectdata, CSV form):
 *   state,name,auth(Y/N),5 configured option letters,5 effective option
 *   letters,last sample age (s),score,offset interval low,high (s),leap
 * e.g. "x,127.0.0.4,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-3.000017405,-2.999993563,Normal"
 * (tests/fixtures/chronyc-c-n-selectdata-*.txt, captured from real chronyd
 * 4.3).  The interval is node - source, like the sources' offsets. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chrony_parse.h"
#include "chrony_select.h"
#include "collector.h"
#include "json_value.h"
#include "probe.h"
#include "text_span.h"
#include "units.h"

#define SELECT_FIELDS 18
#define SECONDS_MAX 1e10            /* as chrony_parse.c: beyond any real offset */
#define LAST_SAMPLE_MAX 4294967295.0 /* chronyc %I of a 32-bit count */

/* A bad record: the whole listing failed (a part carries no half data). */
static void fail(chrony_selection *dst, const chrony_csv *rec, const char *why, text_span quote)
{
	chrony_selection_init(dst);
	dst->state = chrony_csv_fail(rec, "selectdata", why, quote, dst->error, sizeof dst->error);
}

static bool known_state(char c)
{
	return c == '*' || c == '+' || chrony_select_state_reason(c) != NULL;
}

/* Five option letters in the order N P T R and one always "-". */
static bool parse_options(const text_span *f, unsigned *out)
{
	static const struct {
		char letter;
		unsigned bit;
	} opts[4] = {
		{'N', CHRONY_SELECT_OPT_NOSELECT},
		{'P', CHRONY_SELECT_OPT_PREFER},
		{'T', CHRONY_SELECT_OPT_TRUST},
		{'R', CHRONY_SELECT_OPT_REQUIRE},
	};
	unsigned bits = 0;
	*out = 0;
	for (int i = 0; i < 5; i++) {
		if (f[i].n != 1 || !f[i].p) {
			return false;
		}
		char c = f[i].p[0];
		if (c == '-') {
			continue;
		}
		if (i == 4 || c != opts[i].letter) {
			return false;
		}
		bits |= opts[i].bit;
	}
	*out = bits;
	return true;
}

/* One record into src; NULL, or what is wrong with it. */
static const char *parse_record(const text_span *f, chrony_select_source *src, text_span *bad)
{
	double v;
	*bad = f[0];
	if (f[0].n != 1 || !known_state(f[0].p[0])) {
		return "unknown state";
	}
	src->state = f[0].p[0];
	*bad = f[1];
	if (f[1].n == 0 || f[1].n >= sizeof src->name || text_span_contains(f[1], " ")) {
		return "invalid name";
	}
	text_span_copy_printable(src->name, sizeof src->name, f[1]);
	*bad = f[2];
	if (!text_span_eq(f[2], "Y") && !text_span_eq(f[2], "N")) {
		return "invalid authentication flag";
	}
	src->authenticated = f[2].p[0] == 'Y';
	*bad = f[3];
	if (!parse_options(&f[3], &src->conf_options) || !parse_options(&f[8], &src->eff_options)) {
		return "invalid options";
	}
	*bad = f[13];
	if (!text_span_decimal(f[13], false, 0, LAST_SAMPLE_MAX, &v)) {
		return "invalid last sample age";
	}
	src->last_sample_ago_s = (int64_t)v;
	*bad = f[14];
	if (!text_span_decimal(f[14], true, 0, 1e6, &src->score)) {
		return "invalid score";
	}
	*bad = f[15];
	if (!text_span_decimal(f[15], true, -SECONDS_MAX, SECONDS_MAX, &src->interval_lo_s) ||
	    !text_span_decimal(f[16], true, -SECONDS_MAX, SECONDS_MAX, &src->interval_hi_s)) {
		return "invalid offset interval";
	}
	*bad = f[17];
	if (!chrony_parse_leap(f[17], &src->leap)) {
		return "invalid leap status";
	}
	return NULL;
}

void chrony_select_parse(const tool_output *out, chrony_selection *dst)
{
	chrony_selection_init(dst);
	obs_state failed;
	if (chrony_parse_failure(out, &failed, dst->error, sizeof dst->error)) {
		dst->state = failed;
		return;
	}
	chrony_csv rec;
	chrony_csv_begin(&rec, out);
	text_span f[SELECT_FIELDS];
	int n;
	while (chrony_csv_next(&rec, f, SELECT_FIELDS, &n)) {
		if (n != SELECT_FIELDS) {
			char what[48];
			snprintf(what, sizeof what, "%d field(s), records have %d:", n > SELECT_FIELDS ? n - 1 : n,
				 SELECT_FIELDS);
			fail(dst, &rec, what, rec.text);
			return;
		}
		chrony_select_source src;
		memset(&src, 0, sizeof src);
		text_span bad;
		const char *why = parse_record(f, &src, &bad);
		if (why) {
			fail(dst, &rec, why, bad);
			return;
		}
		if (dst->n_sources < CHRONY_MAX_SOURCES) {
			dst->sources[dst->n_sources++] = src;
		}
		if (dst->n_sources_total < INT32_MAX) {
			dst->n_sources_total++;
		}
	}
	dst->state = OBS_OK; /* no record: a chronyd without sources */
}

/* ------------------------------------------------------------ the unit */

static void select_decode(const tool_output *out, observation *obs)
{
	chrony_select_parse(out, &obs->selection);
}

static void select_carry(observation *now, const observation *before)
{
	if (now->selection.state == OBS_NOT_COLLECTED) {
		now->selection = before->selection;
	}
}

static obs_state select_part_state(const observation *obs)
{
	return obs->selection.state;
}

static json_t *select_json(const observation *obs, bool *ok)
{
	const chrony_selection *sel = &obs->selection;
	if (obs_state_absent(sel->state)) {
		return json_null();
	}
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(sel->state, sel->error, sizeof sel->error), ok);
	json_t *arr = sel->state == OBS_OK ? json_array() : json_null();
	for (int i = 0; sel->state == OBS_OK && i < json_value_clamp(sel->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_select_source *s = &sel->sources[i];
		char state[2] = {s->state, '\0'};
		const char *reason = chrony_select_state_reason(s->state);
		json_t *src = json_object();
		json_value_put(src, "name", json_value_text(s->name, sizeof s->name), ok);
		json_value_put(src, "state", json_string(state), ok);
		json_value_put(src, "reason", reason ? json_string(reason) : json_null(), ok);
		json_value_put(src, "authenticated", json_boolean(s->authenticated), ok);
		json_value_put(src, "noselect", json_boolean(s->eff_options & CHRONY_SELECT_OPT_NOSELECT), ok);
		json_value_put(src, "prefer", json_boolean(s->eff_options & CHRONY_SELECT_OPT_PREFER), ok);
		json_value_put(src, "trust", json_boolean(s->eff_options & CHRONY_SELECT_OPT_TRUST), ok);
		json_value_put(src, "require", json_boolean(s->eff_options & CHRONY_SELECT_OPT_REQUIRE), ok);
		json_value_put(src, "last_sample_ago_s", json_integer((json_int_t)s->last_sample_ago_s), ok);
		json_value_put(src, "score", json_value_number(s->score), ok);
		json_value_put(src, "interval_low_s", json_value_number(s->interval_lo_s), ok);
		json_value_put(src, "interval_high_s", json_value_number(s->interval_hi_s), ok);
		json_value_put(src, "leap_status", s->leap == CHRONY_LEAP_UNKNOWN ? json_null()
									 : json_string(chrony_leap_name(s->leap)),
			       ok);
		json_value_append(arr, src, ok);
	}
	json_value_put(o, "sources", arr, ok);
	return o;
}

/* One series per source, labelled with its state letter: a name cannot be
 * misread, and a source changing state is a series ending and another
 * starting, as ptp port states are. */
static void emit_select_state(prom_writer *w, const observation *obs)
{
	const chrony_selection *sel = &obs->selection;
	if (sel->state != OBS_OK) {
		return;
	}
	for (int i = 0; i < json_value_clamp(sel->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_select_source *s = &sel->sources[i];
		char name[PROM_CLEAN_LEN(sizeof s->name)];
		char state[2] = {s->state, '\0'};
		prom_clean(name, sizeof name, s->name, sizeof s->name);
		prom_label l[] = {{"node", prom_node(w)}, {"source", name}, {"state", state}};
		prom_sample(w, l, 3, 1);
	}
}

static double v_falsetickers(const observation *obs)
{
	const chrony_selection *sel = &obs->selection;
	if (sel->state != OBS_OK) {
		return NAN;
	}
	int n = 0;
	for (int i = 0; i < json_value_clamp(sel->n_sources, CHRONY_MAX_SOURCES); i++) {
		n += sel->sources[i].state == 'x';
	}
	return n;
}

static const prom_family select_prometheus[] = {
	{"synctop_chrony_source_selection", "gauge",
	 "1 per chrony source, labelled with its selectdata state (* selected, + combined, x falseticker, ...).",
	 NULL, emit_select_state},
	{"synctop_chrony_falsetickers", "gauge",
	 "chrony sources chronyd rejects as falsetickers (selectdata state x).", v_falsetickers, NULL},
};

/* chrony.falseticker: a source that disagrees with the majority is one
 * chronyd cannot use; with few sources it may be the good one. */
static void select_rules(const health_context *ctx, finding_list *out)
{
	const chrony_selection *sel = &ctx->obs->selection;
	int total = json_value_clamp(sel->n_sources, CHRONY_MAX_SOURCES);
	for (int i = 0; i < total; i++) {
		const chrony_select_source *s = &sel->sources[i];
		if (s->state != 'x') {
			continue;
		}
		char name[HEALTH_NAME_LEN];
		HEALTH_CLEAN(name, s->name);
		finding f;
		finding_start(&f, SEVERITY_WARN, "chrony.falseticker");
		finding_message(&f, "chronyd rejects %s as a falseticker: its offset interval disagrees with "
				"the majority of %d source%s", name, total, total == 1 ? "" : "s");
		finding_hint(&f, "Compare the sources with `chronyc -n sourcestats` and `chronyc -n selectdata`; "
			     "a server serving a wrong time (or one of two disagreeing servers) needs fixing; "
			     "RFC 8633 recommends at least four sources so a majority can outvote one.");
		health_add_finding(out, &f);
	}
}

bool chrony_select_unanswered_detail(const detail_sink *out, obs_state state, const char *error,
				     const char *how_to_allow)
{
	if (state == OBS_OK) {
		return false;
	}
	if (state == OBS_PERMISSION_DENIED) {
		out->text(out->ctx, error, DETAIL_WARN);
		out->text(out->ctx, how_to_allow, DETAIL_DIM);
		return true;
	}
	char line[OBS_ERROR_LEN + 32];
	snprintf(line, sizeof line, "%s: %s", obs_state_name(state), error);
	out->text(out->ctx, line, state == OBS_COMMAND_FAILED ? DETAIL_DIM : DETAIL_WARN);
	return true;
}

/* Each source with its state in words; a refusal says how to allow it. */
static void select_detail(const observation *obs, const detail_sink *out)
{
	const chrony_selection *sel = &obs->selection;
	if (chrony_select_unanswered_detail(out, sel->state, sel->error,
					    "chronyd answers selectdata only to root or its own user over its Unix "
					    "socket (/run/chrony/chronyd.sock): poll as root, or set `cmdallow` plus a "
					    "command key for UDP. The other chrony values do not need it.")) {
		return;
	}
	if (sel->n_sources == 0) {
		out->text(out->ctx, "chronyd has no sources", DETAIL_WARN);
		return;
	}
	for (int i = 0; i < json_value_clamp(sel->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_select_source *s = &sel->sources[i];
		const char *reason = chrony_select_state_reason(s->state);
		char value[256], lo[UNITS_BUF_LEN], hi[UNITS_BUF_LEN];
		units_format_seconds(s->interval_lo_s, lo, sizeof lo);
		units_format_seconds(s->interval_hi_s, hi, sizeof hi);
		snprintf(value, sizeof value, "%c  %s  [%s, %s]%s%s", s->state, reason ? reason : "?", lo, hi,
			 s->eff_options & CHRONY_SELECT_OPT_PREFER ? "  prefer" : "",
			 s->eff_options & CHRONY_SELECT_OPT_NOSELECT ? "  noselect" : "");
		detail_tone tone = s->state == '*' || s->state == '+' ? DETAIL_GOOD
				   : s->state == 'x'                 ? DETAIL_WARN
								     : DETAIL_PLAIN;
		out->kv(out->ctx, s->name, value, tone);
	}
}

static expectation select_expectation(const thresholds *th)
{
	return th->expect_chrony;
}

/* ------------------------------------------------------------- demo renderer */

/* Option letters as chronyc prints them: N P T R and a fifth always "-". */
static void options_text(unsigned opts, char out[10])
{
	snprintf(out, 10, "%c,%c,%c,%c,-", opts & CHRONY_SELECT_OPT_NOSELECT ? 'N' : '-',
		 opts & CHRONY_SELECT_OPT_PREFER ? 'P' : '-', opts & CHRONY_SELECT_OPT_TRUST ? 'T' : '-',
		 opts & CHRONY_SELECT_OPT_REQUIRE ? 'R' : '-');
}

/* One record per source, as the fixtures show (the header comment). */
static int select_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const chrony_selection *sel = &truth->selection;
	(void)iface;
	if (sel->state != OBS_OK) {
		return chrony_render_failure(sel->state, sel->error, out, err);
	}
	for (int i = 0; i < sel->n_sources && i < CHRONY_MAX_SOURCES; i++) {
		const chrony_select_source *src = &sel->sources[i];
		char conf[10], eff[10];
		options_text(src->conf_options, conf);
		options_text(src->eff_options, eff);
		text_sink_printf(out, "%c,%s,%c,%s,%s,%lld,%.1f,%.9f,%.9f,%s\n", src->state, src->name,
				 src->authenticated ? 'Y' : 'N', conf, eff, (long long)src->last_sample_ago_s,
				 isfinite(src->score) ? src->score : 0.0, isfinite(src->interval_lo_s) ? src->interval_lo_s : 0.0,
				 isfinite(src->interval_hi_s) ? src->interval_hi_s : 0.0, chrony_leap_name(src->leap));
	}
	return 0;
}

const collector chrony_select_collector = {
	.name = "selectdata",
	.title = "chrony source selection (chronyc selectdata)",
	.command = "chronyc -c -n selectdata",
	/* which sources chronyd selects changes over minutes; a chronyc call
	 * every poll would cost each node ~1 ms (bench/run) */
	.cadence = COLLECT_PERIODIC,
	.request_flag = 'L',
	.request_bit = PROBE_FLAG_SELECTDATA,
	.period_s = 60.0,
	.carry = select_carry,
	.json_key = "chrony_selection",
	.json = select_json,
	.part_state = select_part_state,
	.prometheus = select_prometheus,
	.n_prometheus = sizeof select_prometheus / sizeof select_prometheus[0],
	.detail_title = "chrony source selection",
	.detail = select_detail,
	.decode = select_decode,
	.demo_render = select_render,
	.rules = select_rules,
	.expectation = select_expectation,
};
