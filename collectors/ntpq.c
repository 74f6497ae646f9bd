/* ntpq.c - the ntpd collector: `ntpq -n -c rv -c peers` (ntpsec, or classic
 * ntp 4.2.8), parsed by ntpq_parse.c, judged by ntpq_rules.c.
 *
 * One ntpq call gives both reports (the system variables, then the peers)
 * over one mode 6 exchange with ntpd on localhost.  ntpsec's ntpq is a
 * Python program: 106 ms of node CPU per call against chronyc's 1.6 ms
 * (perf stat -r 20, tests/fixtures/ntpq.source.md), so the part is periodic,
 * once a minute: ntpd itself polls its servers every 64 s or more, so its
 * values change no faster.
 *
 * The shell function runs ntpq only where a process called ntpd exists: it
 * looks in the process list the daemons section left in $synctop_ps (that
 * section runs earlier in the same request, registry.c), so a node without
 * ntpd pays nothing and answers "no ntpd process" (part not collected).
 * openntpd's daemon is also called ntpd and has no ntpq interface: where
 * ntpq is missing and ntpctl is installed, or ntpq gets no answer and
 * `ntpctl -s status` answers, the function says so and the part is absent,
 * not failed; the ntpctl collector (ntpctl.c) judges openntpd.  ntpq runs
 * under timeout(1) where it has one, so a hung ntpq costs the node's
 * answer NTPQ_TIMEOUT_S, not its poll deadline. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "json_value.h"
#include "ntpq_parse.h"
#include "ntpq_rules.h"
#include "probe.h"
#include "units.h"

/* POSIX sh, no single quote (probe.h).  $o holds ntpq's answer so an empty
 * one can be told from openntpd before anything is printed.  timeout(1)
 * bounds ntpq (NTPQ_TIMEOUT_S): ntpsec's Python ntpq retries a dead ntpd
 * and would hold the node's answer past its poll deadline; a timeout that
 * does not take "SECONDS COMMAND" (old busybox) is not used.  openntpd is
 * the ntpctl collector's (ntpctl.c): where ntpq is missing and ntpctl is
 * installed, or ntpq gets nothing and ntpctl answers, this part says so and
 * is absent. */
static const char ntpq_shell[] =
	"synctop_ntpq_bounded() {\n"
	"	if [ \"$synctop_to\" = timeout ]; then timeout " NTPQ_TIMEOUT_S " \"$@\"; else \"$@\"; fi\n"
	"}\n"
	"synctop_ntpq() {\n"
	"	case $synctop_ps in *ntpd*) ;; *) echo \"" NTPQ_NO_NTPD_LINE "\" >&2; return 3 ;; esac\n"
	"	if [ -z \"$synctop_to\" ]; then\n"
	"		if timeout 1 true >/dev/null 2>&1; then synctop_to=timeout; else synctop_to=none; fi\n"
	"	fi\n"
	"	if command -v ntpq >/dev/null 2>&1; then\n"
	"		o=$(synctop_ntpq_bounded ntpq -n -c rv -c peers); r=$?\n"
	"		if [ $r -eq 124 ] && [ \"$synctop_to\" = timeout ]; then\n"
	"			echo \"" NTPQ_TIMEOUT_LINE "\" >&2; return " NTPQ_TIMEOUT_RC_TEXT "\n"
	"		fi\n"
	"		if [ -n \"$o\" ]; then printf \"%s\\n\" \"$o\"; return $r; fi\n"
	"	else\n"
	"		r=127\n"
	"	fi\n"
	"	if command -v ntpctl >/dev/null 2>&1 &&\n"
	"	   { [ $r -eq 127 ] || synctop_ntpq_bounded ntpctl -s status >/dev/null 2>&1; }; then\n"
	"		echo \"" NTPQ_OPENNTPD_LINE "\" >&2; return 4\n"
	"	fi\n"
	"	if [ $r -eq 127 ]; then echo \"sh: ntpq: not found\" >&2; fi\n"
	"	return $r\n"
	"}\n";

static void ntpq_decode(const tool_output *out, observation *obs)
{
	ntpq_parse(out, &obs->ntp);
	ntp_obs_settle(&obs->ntp);
}

/* A poll that did not run ntpq (its period, --period ntpq=SEC) keeps the
 * last answer and when it came (before's own poll when before ran it). */
static void ntpq_carry(observation *now, const observation *before)
{
	if (!now->ntp.ran) {
		double at = before->ntp.ran ? before->taken_at : before->ntp.answered_at;
		now->ntp = before->ntp;
		now->ntp.ran = false;
		now->ntp.answered_at = at;
	}
}

/* Seconds since ntpq gave the part's answer: 0 at the poll that ran it,
 * NAN when unknown. */
static double answer_age_s(const observation *obs)
{
	if (obs->ntp.ran) {
		return 0.0;
	}
	if (isfinite(obs->ntp.answered_at) && isfinite(obs->taken_at)) {
		return obs->taken_at - obs->ntp.answered_at;
	}
	return NAN;
}

static obs_state ntpq_part_state(const observation *obs)
{
	return obs->ntp.state;
}

static const ntp_obs *ntp_of(const observation *obs)
{
	return obs->ntp.state == OBS_OK ? &obs->ntp : NULL;
}

/* chrony's words for NTP's leap indicator (chrony_leap_name). */
static const char *leap_status(int leap)
{
	switch (leap) {
	case 0: return chrony_leap_name(CHRONY_LEAP_NORMAL);
	case 1: return chrony_leap_name(CHRONY_LEAP_INSERT);
	case 2: return chrony_leap_name(CHRONY_LEAP_DELETE);
	case NTP_LEAP_UNSYNC: return chrony_leap_name(CHRONY_LEAP_UNSYNC);
	default: break;
	}
	return NULL;
}

/* ntpq(1) / ntpsec docs/includes/peerfmt.adoc: the tally codes. */
static const char *tally_name(char tally)
{
	switch (tally) {
	case '*': return "system_peer";
	case 'o': return "pps_peer";
	case '+': return "candidate";
	case '#': return "backup";
	case '-': return "outlier";
	case '.': return "excess";
	case 'x': return "falseticker";
	case ' ': return "rejected";
	default: break;
	}
	return NULL;
}

/* ------------------------------------------------------------------ JSON */

static json_t *peers_json(const ntp_obs *n, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < ntp_peer_count(n); i++) {
		const ntp_peer *p = &n->peers[i];
		char tally[2] = {p->tally, '\0'}, type[2] = {p->type, '\0'};
		const char *state = tally_name(p->tally);
		json_t *o = json_object();
		json_value_put(o, "tally", json_string(tally), ok);
		json_value_put(o, "state", state ? json_string(state) : json_null(), ok);
		json_value_put(o, "name", json_value_text(p->remote, sizeof p->remote), ok);
		json_value_put(o, "refid", json_value_text(p->refid, sizeof p->refid), ok);
		json_value_put(o, "stratum", json_value_int(p->stratum), ok);
		json_value_put(o, "type", json_value_text(type, sizeof type), ok);
		json_value_put(o, "last_rx_s", json_value_int(p->when_s), ok);
		json_value_put(o, "poll_s", json_value_int(p->poll_s), ok);
		json_value_put(o, "reach", json_integer(p->reach), ok);
		json_value_put(o, "delay_s", json_value_number(p->delay_s), ok);
		json_value_put(o, "offset_s", json_value_number(p->offset_s), ok);
		json_value_put(o, "jitter_s", json_value_number(p->jitter_s), ok);
		json_value_append(arr, o, ok);
	}
	return arr;
}

static json_t *ntpq_json(const observation *obs, bool *ok)
{
	const ntp_obs *got = &obs->ntp;
	if (obs_state_absent(got->state)) {
		return json_null();
	}
	/* A failed part shows none of its half-parsed values: a blank part
	 * through the same code. */
	ntp_obs blank;
	const ntp_obs *n = got;
	if (got->state != OBS_OK) {
		ntp_obs_init(&blank);
		n = &blank;
	}
	bool good = got->state == OBS_OK;
	const char *leap = leap_status(n->leap);
	char status[8] = "";
	if (n->status != INT_UNKNOWN) {
		snprintf(status, sizeof status, "%04x", (unsigned)n->status & 0xffffu);
	}
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(got->state, got->error, sizeof got->error), ok);
	json_value_put(o, "daemon", json_string("ntpd"), ok);
	json_value_put(o, "version", n->version[0] ? json_value_text(n->version, sizeof n->version) : json_null(), ok);
	json_value_put(o, "leap_status", leap ? json_string(leap) : json_null(), ok);
	json_value_put(o, "leap", n->leap == INT_UNKNOWN ? json_null() : json_string(ntp_leap_bits(n->leap)), ok);
	json_value_put(o, "status_word", status[0] ? json_string(status) : json_null(), ok);
	json_value_put(o, "stratum", json_value_int(n->stratum), ok);
	json_value_put(o, "reference_name", n->refid[0] ? json_value_text(n->refid, sizeof n->refid) : json_null(), ok);
	json_value_put(o, "system_time_offset_s", json_value_number(n->offset_s), ok);
	json_value_put(o, "frequency_offset_ppm", json_value_number(n->frequency_ppm), ok);
	json_value_put(o, "sys_jitter_s", json_value_number(n->sys_jitter_s), ok);
	json_value_put(o, "clk_jitter_s", json_value_number(n->clk_jitter_s), ok);
	json_value_put(o, "clk_wander_ppm", json_value_number(n->clk_wander_ppm), ok);
	json_value_put(o, "root_delay_s", json_value_number(n->root_delay_s), ok);
	json_value_put(o, "root_dispersion_s", json_value_number(n->root_dispersion_s), ok);
	json_value_put(o, "time_constant", json_value_int(n->tc), ok);
	json_value_put(o, "peers_total", good ? json_integer(n->n_peers_total < 0 ? 0 : n->n_peers_total) : json_null(), ok);
	json_value_put(o, "peers", good ? peers_json(n, ok) : json_null(), ok);
	/* ntpq runs every --period ntpq=SEC (60): how old this answer is */
	json_value_put(o, "age_s", json_value_number(answer_age_s(obs)), ok);
	return o;
}

/* ------------------------------------------------------------ Prometheus */

/* The series chrony's families also carry, with a daemon label (chrony's
 * own series have none): report_prometheus.c writes same-named families of
 * several collectors as one. */
static void emit_value(prom_writer *w, double v)
{
	prom_label l[] = {{"node", prom_node(w)}, {"daemon", "ntpd"}};
	prom_sample(w, l, 2, v);
}

#define NTP_SERIES(fn, expr) \
	static void fn(prom_writer *w, const observation *obs) \
	{ \
		const ntp_obs *n = ntp_of(obs); \
		if (n) { \
			emit_value(w, (expr)); \
		} \
	}

NTP_SERIES(e_offset, n->offset_s)
NTP_SERIES(e_root_delay, n->root_delay_s)
NTP_SERIES(e_root_dispersion, n->root_dispersion_s)
NTP_SERIES(e_stratum, prom_int(n->stratum))
NTP_SERIES(e_leap, n->leap == INT_UNKNOWN ? NAN : (double)n->leap)
NTP_SERIES(e_frequency, prom_ppm_ratio(n->frequency_ppm))
NTP_SERIES(e_sys_jitter, n->sys_jitter_s)
NTP_SERIES(e_clk_jitter, n->clk_jitter_s)
NTP_SERIES(e_clk_wander, prom_ppm_ratio(n->clk_wander_ppm))

/* One series per peer, labelled with its address and tally code, as
 * chrony's selectdata states are. */
static void e_peer_reach(prom_writer *w, const observation *obs)
{
	const ntp_obs *n = ntp_of(obs);
	for (int i = 0; n && i < ntp_peer_count(n); i++) {
		const ntp_peer *p = &n->peers[i];
		char name[PROM_CLEAN_LEN(sizeof p->remote)];
		char tally[2] = {p->tally, '\0'};
		prom_clean(name, sizeof name, p->remote, sizeof p->remote);
		prom_label l[] = {{"node", prom_node(w)}, {"daemon", "ntpd"}, {"peer", name}, {"tally", tally}};
		prom_sample(w, l, 4, p->reach);
	}
}

static const prom_family ntpq_prometheus[] = {
	{"synctop_chrony_offset_seconds", "gauge",
	 "chronyd System time offset: node clock minus its reference (positive = node ahead).", NULL, e_offset},
	{"synctop_chrony_root_delay_seconds", "gauge",
	 "chronyd Root delay: total network path delay to the stratum-1 clock.", NULL, e_root_delay},
	{"synctop_chrony_root_dispersion_seconds", "gauge",
	 "chronyd Root dispersion: total dispersion accumulated up to the stratum-1 clock.", NULL,
	 e_root_dispersion},
	{"synctop_chrony_stratum", "gauge", "chronyd Stratum.", NULL, e_stratum},
	{"synctop_chrony_leap_status", "gauge",
	 "chronyd Leap status: 0 normal, 1 insert second, 2 delete second, 3 not synchronised.", NULL, e_leap},
	{"synctop_ntpd_frequency_offset_ratio", "gauge",
	 "ntpd frequency offset as a ratio (ntpq rv frequency, ppm / 1e6), with ntpd's sign.", NULL, e_frequency},
	{"synctop_ntpd_sys_jitter_seconds", "gauge", "ntpd sys_jitter: combined jitter of the selected peers.",
	 NULL, e_sys_jitter},
	{"synctop_ntpd_clk_jitter_seconds", "gauge", "ntpd clk_jitter: jitter of the local clock.", NULL,
	 e_clk_jitter},
	{"synctop_ntpd_clk_wander_ratio", "gauge", "ntpd clk_wander as a ratio (ppm / 1e6): frequency stability.",
	 NULL, e_clk_wander},
	{"synctop_ntpd_peer_reach", "gauge",
	 "ntpd's reach register per peer (0..255; 255 = answered the last 8 polls), labelled with the tally code.",
	 NULL, e_peer_reach},
};

/* ------------------------------------------------------------ drill-down */

static void ntpq_detail(const observation *obs, const detail_sink *out)
{
	const ntp_obs *n = &obs->ntp;
	if (n->state != OBS_OK) {
		char line[OBS_ERROR_LEN + 32];
		snprintf(line, sizeof line, "%s: %s", obs_state_name(n->state), n->error);
		out->text(out->ctx, line, n->state == OBS_DAEMON_UNREACHABLE ? DETAIL_CRIT : DETAIL_WARN);
		return;
	}
	char value[160], a[UNITS_BUF_LEN], b[UNITS_BUF_LEN];
	const char *leap = leap_status(n->leap);
	snprintf(value, sizeof value, "%s (leap %s, status %04x)", leap ? leap : "?", ntp_leap_bits(n->leap),
		 n->status == INT_UNKNOWN ? 0u : (unsigned)n->status & 0xffffu);
	out->kv(out->ctx, "Leap", value, n->leap == NTP_LEAP_UNSYNC ? DETAIL_CRIT : n->leap == 0 ? DETAIL_GOOD : DETAIL_WARN);
	if (ntp_has_reference(n)) {
		snprintf(value, sizeof value, "%s, stratum %d", n->refid[0] ? n->refid : "?",
			 n->stratum == INT_UNKNOWN ? 0 : n->stratum);
		out->kv(out->ctx, "Reference", value, DETAIL_PLAIN);
		out->kv(out->ctx, "Offset", units_format_seconds(n->offset_s, a, sizeof a), DETAIL_PLAIN);
		snprintf(value, sizeof value, "%s / %s", units_magnitude_seconds(n->root_delay_s, a, sizeof a),
			 units_magnitude_seconds(n->root_dispersion_s, b, sizeof b));
		out->kv(out->ctx, "Root delay/disp", value, DETAIL_PLAIN);
	} else {
		out->kv(out->ctx, "Reference", "none: ntpd has not set the clock yet", DETAIL_DIM);
	}
	snprintf(value, sizeof value, "%+.3f ppm, wander %.3f ppm, time constant %d", n->frequency_ppm,
		 isfinite(n->clk_wander_ppm) ? n->clk_wander_ppm : 0.0, n->tc == INT_UNKNOWN ? 0 : n->tc);
	out->kv(out->ctx, "Frequency", value, DETAIL_PLAIN);
	if (n->version[0]) {
		out->kv(out->ctx, "Version", n->version, DETAIL_DIM);
	}
	double age = answer_age_s(obs);
	if (isfinite(age) && age > 0) {
		snprintf(value, sizeof value, "%.0f s ago (ntpq runs every --period ntpq=SEC)", age);
		out->kv(out->ctx, "Answered", value, DETAIL_DIM);
	}
	if (ntp_peer_count(n) == 0) {
		out->text(out->ctx, "ntpd has no associations", DETAIL_WARN);
		return;
	}
	for (int i = 0; i < ntp_peer_count(n); i++) {
		const ntp_peer *p = &n->peers[i];
		const char *state = tally_name(p->tally);
		snprintf(value, sizeof value, "%c %s  st %d  reach %03o  offset %s  delay %s", p->tally == ' ' ? '_' : p->tally,
			 state ? state : "?", p->stratum == INT_UNKNOWN ? 0 : p->stratum, p->reach,
			 units_format_seconds(p->offset_s, a, sizeof a), units_magnitude_seconds(p->delay_s, b, sizeof b));
		detail_tone tone = p->tally == '*' || p->tally == 'o' || p->tally == '+' ? DETAIL_GOOD
				   : p->tally == 'x'                                     ? DETAIL_WARN
				   : !ntpq_peer_is_server(p)                              ? DETAIL_DIM
											  : DETAIL_PLAIN;
		out->kv(out->ctx, p->remote, value, tone);
	}
}

/* ------------------------------------------------------------ grid view */

/* ntpd's view of the system clock for the grid's SOURCE, ST, OFFSET and
 * LEAP columns (time_service.h).  FREQ stays unknown: ntpq's frequency is
 * ntpd's correction with ntpd's sign, not yet checked against chrony's
 * "positive = the clock runs fast" (see ntp_obs). */
static bool ntpq_time_service(const observation *obs, time_service_view *out)
{
	const ntp_obs *n = ntp_of(obs);
	if (!n) {
		return false;
	}
	const ntp_peer *peer = ntp_system_peer(n);
	out->daemon = "ntpd";
	out->referenced = ntp_has_reference(n) && peer != NULL;
	snprintf(out->source, sizeof out->source, "%s", peer ? peer->remote : "");
	out->stratum = n->stratum;
	out->offset_s = n->offset_s;
	out->frequency_ppm = NAN;
	out->skew_ppm = NAN;
	switch (n->leap) {
	case 0: out->leap = CHRONY_LEAP_NORMAL; break;
	case 1: out->leap = CHRONY_LEAP_INSERT; break;
	case 2: out->leap = CHRONY_LEAP_DELETE; break;
	case NTP_LEAP_UNSYNC: out->leap = CHRONY_LEAP_UNSYNC; break;
	default: out->leap = CHRONY_LEAP_UNKNOWN; break;
	}
	return true;
}

/* ------------------------------------------------------------- demo renderer */

static double ms_of(double s, bool negate)
{
	if (!isfinite(s) || s == 0) {
		return 0.0;
	}
	return negate ? -s * 1e3 : s * 1e3;
}

static void render_interval(char *buf, size_t len, int s)
{
	if (s == INT_UNKNOWN) {
		snprintf(buf, len, "-");
	} else {
		snprintf(buf, len, "%d", s);
	}
}

/* As ntpsec 1.2.2 prints `ntpq -n -c rv -c peers` (fixtures
 * ntpq-n-rv-peers-*.txt): the system variables, one item per line (ntpq
 * wraps them; the parser takes either), then the peers table with the
 * remote in 15 columns.  Without a reference ntpd reports its startup
 * placeholders (observation.h). */
static int ntpq_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const ntp_obs *n = &truth->ntp;
	(void)iface;
	switch (n->state) {
	case OBS_OK:
		break;
	case OBS_NOT_COLLECTED:
		text_sink_puts(err, NTPQ_NO_NTPD_LINE "\n");
		return NTPQ_NO_NTPD_RC;
	case OBS_DAEMON_UNREACHABLE:
		text_sink_puts(err, "***Socket error; probably ntpd is not running\n");
		return 0;
	case OBS_TOOL_MISSING:
		text_sink_puts(err, "sh: ntpq: not found\n");
		return TOOL_RC_NOT_FOUND;
	default:
		text_sink_printf(err, "%s\n", n->error);
		return 1;
	}
	bool ref = ntp_has_reference(n);
	text_sink_printf(out, "associd=0 status=%04x\n", n->status == INT_UNKNOWN ? 0u : (unsigned)n->status & 0xffffu);
	text_sink_printf(out, "leap=%s,\n", ntp_leap_bits(n->leap));
	text_sink_printf(out, "stratum=%d,\n", ref && n->stratum != INT_UNKNOWN ? n->stratum : 16);
	text_sink_printf(out, "rootdelay=%.6f,\n", ref ? ms_of(n->root_delay_s, false) : 0.0);
	text_sink_printf(out, "rootdisp=%.6f,\n", ref ? ms_of(n->root_dispersion_s, false) : 0.0);
	text_sink_printf(out, "refid=%s,\n", ref && n->refid[0] ? n->refid : "INIT");
	if (n->tc != INT_UNKNOWN) {
		text_sink_printf(out, "tc=%d,\n", n->tc);
	}
	text_sink_printf(out, "offset=%.6f,\n", ref ? ms_of(n->offset_s, true) : 0.0);
	if (isfinite(n->frequency_ppm)) {
		text_sink_printf(out, "frequency=%.6f,\n", n->frequency_ppm);
	}
	text_sink_printf(out, "sys_jitter=%.6f,\n", ref ? ms_of(n->sys_jitter_s, false) : 0.0);
	if (isfinite(n->clk_jitter_s)) {
		text_sink_printf(out, "clk_jitter=%.9f,\n", ms_of(n->clk_jitter_s, false));
	}
	if (n->version[0]) {
		text_sink_printf(out, "version=\"%s\",\n", n->version);
	}
	if (isfinite(n->clk_wander_ppm)) {
		text_sink_printf(out, "clk_wander=%.6f\n", n->clk_wander_ppm);
	}
	if (ntp_peer_count(n) == 0) {
		text_sink_puts(out, "server=localhost No association IDs returned\n");
		return 0;
	}
	text_sink_puts(out, "     remote           refid      st t when poll reach   delay   offset   jitter\n");
	text_sink_puts(out, "===============================================================================\n");
	for (int i = 0; i < ntp_peer_count(n); i++) {
		const ntp_peer *p = &n->peers[i];
		char when[16], poll[16];
		render_interval(when, sizeof when, p->when_s);
		render_interval(poll, sizeof poll, p->poll_s);
		text_sink_printf(out, "%c%-15.15s %-15.15s %2d %c %4s %4s  %3o %8.4f %8.4f %8.4f\n", p->tally, p->remote,
				 p->refid, p->stratum == INT_UNKNOWN ? 16 : p->stratum, p->type ? p->type : 'u', when,
				 poll, p->reach, ms_of(p->delay_s, false), ms_of(p->offset_s, true),
				 ms_of(p->jitter_s, false));
	}
	return 0;
}

const collector ntpq_collector = {
	.name = "ntpq",
	.title = "ntpd system variables and peers (ntpq -n -c rv -c peers)",
	.shell_functions = ntpq_shell,
	.command = "synctop_ntpq",
	/* ntpsec's ntpq costs ~106 ms of node CPU per call (header comment) */
	.cadence = COLLECT_PERIODIC,
	.request_flag = 'N',
	.request_bit = PROBE_FLAG_NTPQ,
	.period_s = 60.0,
	.carry = ntpq_carry,
	.decode = ntpq_decode,
	.json_key = "ntp",
	.json = ntpq_json,
	.part_state = ntpq_part_state,
	.prometheus = ntpq_prometheus,
	.n_prometheus = sizeof ntpq_prometheus / sizeof ntpq_prometheus[0],
	.rules = ntpq_rules,
	.detail_title = "ntpd",
	.detail = ntpq_detail,
	.daemon = DAEMON_NTPD,
	.time_service = ntpq_time_service,
	.demo_render = ntpq_render,
};
