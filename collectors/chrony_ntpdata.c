/* chrony_ntpdata.c - the NTP packet collector: `chronyc -c ntpdata`, how
 * chronyd timestamps each NTP source's packets (daemon, kernel or NIC
 * hardware), whether it runs interleaved mode, and its packet counters.
 *
 * Its own chronyc call, as selectdata's: ntpdata needs chronyd's
 * authorisation (root or chrony over the Unix socket), and a refusal over
 * UDP ("501 Not authorised") must cost this part only.
 *
 * Record (chronyc's client.c, process_cmd_ntpdata, CSV form), 38 fields on
 * chrony >= 4.6, e.g.
 *   10.83.0.1,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,
 *   0.000000030,0.000000,0.000000,7F7F0101,,1796323082.983149785,0.000000106,
 *   0.000002625,0.000000059,0.000087864,0.00,111,111,1111,Yes,No,Kernel,
 *   Kernel,185,185,185,183
 * (tests/fixtures/chronyc-c-ntpdata-*.txt and chronyc-ntpdata.source.md):
 * remote address, its hex, port, local address, its hex, leap, version,
 * mode, stratum, poll (log2, seconds), precision (log2, seconds), root
 * delay, root dispersion, reference ID (hex, text), reference time, offset,
 * peer delay, peer dispersion, response time, jitter asymmetry, three test
 * bit groups, interleaved, authenticated, TX and RX timestamping, then
 * Total TX, RX, valid RX [, good RX (4.0)[, kernel TX, kernel RX, HW TX,
 * HW RX (4.6)]].  Offset is source - node (chrony's NTP offset; the same
 * capture's `sources` says -0.000000106): the model stores node - source. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chrony_ntpdata.h"
#include "chrony_parse.h"
#include "chrony_select.h"
#include "collector.h"
#include "json_value.h"
#include "probe.h"
#include "text_span.h"
#include "units.h"

#define FIELDS_3X 33
#define FIELDS_40 34
#define FIELDS_46 38
#define SECONDS_MAX 1e10       /* as chrony_parse.c: beyond any real offset */
#define COUNT_MAX 4294967295.0 /* chronyc %U of a 32-bit counter */

/* A bad record: the whole listing failed (a part carries no half data). */
static void fail(chrony_ntpdata *dst, const chrony_csv *rec, const char *why, text_span quote)
{
	chrony_ntpdata_init(dst);
	dst->state = chrony_csv_fail(rec, "ntpdata", why, quote, dst->error, sizeof dst->error);
}

static bool parse_ts(text_span s, chrony_ts_source *out)
{
	static const struct {
		const char *word;
		chrony_ts_source ts;
	} words[] = {
		{"Invalid", CHRONY_TS_INVALID},
		{"Daemon", CHRONY_TS_DAEMON},
		{"Kernel", CHRONY_TS_KERNEL},
		{"Hardware", CHRONY_TS_HARDWARE},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (text_span_eq(s, words[i].word)) {
			*out = words[i].ts;
			return true;
		}
	}
	return false;
}

static bool parse_yes_no(text_span s, bool *out)
{
	if (text_span_eq(s, "Yes") || text_span_eq(s, "No")) {
		*out = s.p[0] == 'Y';
		return true;
	}
	return false;
}

static bool parse_mode(text_span s, char *out, size_t cap)
{
	static const char *const modes[] = {"Server", "Symmetric active", "Symmetric passive", "Invalid"};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		if (text_span_eq(s, modes[i])) {
			snprintf(out, cap, "%s", modes[i]);
			return true;
		}
	}
	return false;
}

static bool parse_int(text_span s, double min, double max, int *out)
{
	double v;
	if (!text_span_decimal(s, false, min, max, &v)) {
		return false;
	}
	*out = (int)v;
	return true;
}

static bool parse_count(text_span s, int64_t *out)
{
	double v;
	if (!text_span_decimal(s, false, 0, COUNT_MAX, &v)) {
		return false;
	}
	*out = (int64_t)v;
	return true;
}

/* An address as chronyc prints it ("10.83.0.1", "fd00::1", "[UNSPEC]"):
 * visible ASCII only, so a remote's text cannot carry control sequences. */
static bool parse_address(text_span s, char *out, size_t cap)
{
	if (s.n == 0 || s.n >= cap) {
		return false;
	}
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] <= ' ' || s.p[i] > '~') {
			return false;
		}
	}
	text_span_copy_printable(out, cap, s);
	return true;
}

/* One record of n fields into src; NULL, or what is wrong with it. */
static const char *parse_record(const text_span *f, int n, chrony_ntp_source *src, text_span *bad)
{
	double v;
	*bad = f[0];
	if (!parse_address(f[0], src->remote, sizeof src->remote)) {
		return "invalid remote address";
	}
	*bad = f[2];
	if (!parse_int(f[2], 0, 65535, &src->remote_port)) {
		return "invalid port";
	}
	*bad = f[3];
	if (!parse_address(f[3], src->local, sizeof src->local)) {
		return "invalid local address";
	}
	*bad = f[5];
	if (!chrony_parse_leap(f[5], &src->leap)) {
		return "invalid leap status";
	}
	*bad = f[6];
	if (!parse_int(f[6], 0, 7, &src->version)) {
		return "invalid version";
	}
	*bad = f[7];
	if (!parse_mode(f[7], src->mode, sizeof src->mode)) {
		return "invalid mode";
	}
	*bad = f[8];
	if (!parse_int(f[8], 0, 255, &src->stratum)) {
		return "invalid stratum";
	}
	*bad = f[9];
	if (!parse_int(f[9], -128, 127, &src->poll)) {
		return "invalid poll";
	}
	*bad = f[13];
	if (!text_span_decimal(f[13], true, 0, SECONDS_MAX, &src->root_delay_s) ||
	    !text_span_decimal(f[14], true, 0, SECONDS_MAX, &src->root_dispersion_s)) {
		return "invalid root delay or dispersion";
	}
	*bad = f[18];
	if (!text_span_decimal(f[18], true, -SECONDS_MAX, SECONDS_MAX, &v)) {
		return "invalid offset";
	}
	src->offset_s = v == 0.0 ? 0.0 : -v;
	*bad = f[19];
	if (!text_span_decimal(f[19], true, -SECONDS_MAX, SECONDS_MAX, &src->peer_delay_s) ||
	    !text_span_decimal(f[21], true, -SECONDS_MAX, SECONDS_MAX, &src->response_time_s)) {
		return "invalid delay or response time";
	}
	*bad = f[26];
	if (!parse_yes_no(f[26], &src->interleaved) || !parse_yes_no(f[27], &src->authenticated)) {
		return "invalid interleaved or authenticated flag";
	}
	*bad = f[28];
	if (!parse_ts(f[28], &src->tx_ts) || !parse_ts(f[29], &src->rx_ts)) {
		return "invalid timestamping";
	}
	src->total_good_rx = src->kernel_tx = src->kernel_rx = src->hw_tx = src->hw_rx = CHRONY_COUNT_UNKNOWN;
	int64_t *counts[] = {&src->total_tx, &src->total_rx, &src->total_valid_rx, &src->total_good_rx,
			     &src->kernel_tx, &src->kernel_rx, &src->hw_tx, &src->hw_rx};
	for (int i = 30; i < n; i++) {
		*bad = f[i];
		if (!parse_count(f[i], counts[i - 30])) {
			return "invalid packet count";
		}
	}
	return NULL;
}

void chrony_ntpdata_parse(const tool_output *out, chrony_ntpdata *dst)
{
	chrony_ntpdata_init(dst);
	obs_state failed;
	if (chrony_parse_failure(out, &failed, dst->error, sizeof dst->error)) {
		dst->state = failed;
		return;
	}
	chrony_csv rec;
	chrony_csv_begin(&rec, out);
	text_span f[FIELDS_46];
	int n;
	while (chrony_csv_next(&rec, f, FIELDS_46, &n)) {
		if (n != FIELDS_3X && n != FIELDS_40 && n != FIELDS_46) {
			char what[64];
			snprintf(what, sizeof what, "%d field(s), records have %d, %d or %d:",
				 n > FIELDS_46 ? n - 1 : n, FIELDS_3X, FIELDS_40, FIELDS_46);
			fail(dst, &rec, what, rec.text);
			return;
		}
		chrony_ntp_source src;
		memset(&src, 0, sizeof src);
		text_span bad;
		const char *why = parse_record(f, n, &src, &bad);
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
	dst->state = OBS_OK; /* no record: no NTP source (refclocks only, or none) */
}

/* ------------------------------------------------------------ the unit */

static void ntpdata_decode(const tool_output *out, observation *obs)
{
	chrony_ntpdata_parse(out, &obs->ntpdata);
}

static void ntpdata_carry(observation *now, const observation *before)
{
	if (now->ntpdata.state == OBS_NOT_COLLECTED) {
		now->ntpdata = before->ntpdata;
	}
}

static obs_state ntpdata_part_state(const observation *obs)
{
	return obs->ntpdata.state;
}

static json_t *jcount(int64_t v)
{
	return v == CHRONY_COUNT_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

static json_t *jts(chrony_ts_source ts)
{
	switch (ts) {
	case CHRONY_TS_DAEMON: return json_string("daemon");
	case CHRONY_TS_KERNEL: return json_string("kernel");
	case CHRONY_TS_HARDWARE: return json_string("hardware");
	case CHRONY_TS_INVALID:
	case CHRONY_TS_UNKNOWN: break;
	}
	return json_null(); /* no packet timestamped yet */
}

static json_t *ntpdata_json(const observation *obs, bool *ok)
{
	const chrony_ntpdata *nd = &obs->ntpdata;
	if (obs_state_absent(nd->state)) {
		return json_null();
	}
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(nd->state, nd->error, sizeof nd->error), ok);
	json_t *arr = nd->state == OBS_OK ? json_array() : json_null();
	for (int i = 0; nd->state == OBS_OK && i < json_value_clamp(nd->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_ntp_source *s = &nd->sources[i];
		bool answered = s->version != 0; /* chronyd's record before any answer has version 0 */
		json_t *src = json_object();
		json_value_put(src, "remote", json_value_text(s->remote, sizeof s->remote), ok);
		json_value_put(src, "remote_port", json_integer(s->remote_port), ok);
		json_value_put(src, "local", answered ? json_value_text(s->local, sizeof s->local) : json_null(), ok);
		json_value_put(src, "mode", answered ? json_value_text(s->mode, sizeof s->mode) : json_null(), ok);
		json_value_put(src, "stratum", answered ? json_integer(s->stratum) : json_null(), ok);
		json_value_put(src, "offset_s", answered ? json_value_number(s->offset_s) : json_null(), ok);
		json_value_put(src, "peer_delay_s", answered ? json_value_number(s->peer_delay_s) : json_null(), ok);
		json_value_put(src, "interleaved", json_boolean(s->interleaved), ok);
		json_value_put(src, "authenticated", json_boolean(s->authenticated), ok);
		json_value_put(src, "tx_timestamping", jts(s->tx_ts), ok);
		json_value_put(src, "rx_timestamping", jts(s->rx_ts), ok);
		json_value_put(src, "total_tx", jcount(s->total_tx), ok);
		json_value_put(src, "total_rx", jcount(s->total_rx), ok);
		json_value_put(src, "total_valid_rx", jcount(s->total_valid_rx), ok);
		json_value_put(src, "total_good_rx", jcount(s->total_good_rx), ok);
		json_value_put(src, "kernel_tx", jcount(s->kernel_tx), ok);
		json_value_put(src, "kernel_rx", jcount(s->kernel_rx), ok);
		json_value_put(src, "hw_tx", jcount(s->hw_tx), ok);
		json_value_put(src, "hw_rx", jcount(s->hw_rx), ok);
		json_value_append(arr, src, ok);
	}
	json_value_put(o, "sources", arr, ok);
	return o;
}

/* One series per source and direction, labelled with how chronyd
 * timestamps it: a change (hwtimestamp lost after a driver reload) ends
 * one series and starts another, as selectdata's states do. */
static void emit_timestamping(prom_writer *w, const observation *obs)
{
	const chrony_ntpdata *nd = &obs->ntpdata;
	if (nd->state != OBS_OK) {
		return;
	}
	for (int i = 0; i < json_value_clamp(nd->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_ntp_source *s = &nd->sources[i];
		if (s->rx_ts == CHRONY_TS_INVALID || s->rx_ts == CHRONY_TS_UNKNOWN) {
			continue; /* no packet yet */
		}
		char name[PROM_CLEAN_LEN(sizeof s->remote)];
		prom_clean(name, sizeof name, s->remote, sizeof s->remote);
		prom_label rx[] = {{"node", prom_node(w)}, {"source", name}, {"direction", "rx"},
				   {"timestamping", chrony_ts_name(s->rx_ts)}};
		prom_sample(w, rx, 4, 1);
		if (s->tx_ts != CHRONY_TS_INVALID && s->tx_ts != CHRONY_TS_UNKNOWN) {
			prom_label tx[] = {{"node", prom_node(w)}, {"source", name}, {"direction", "tx"},
					   {"timestamping", chrony_ts_name(s->tx_ts)}};
			prom_sample(w, tx, 4, 1);
		}
	}
}

static const prom_family ntpdata_prometheus[] = {
	{"synctop_chrony_ntp_timestamping", "gauge",
	 "1 per chrony NTP source and direction (rx, tx), labelled with how chronyd timestamps its packets "
	 "(Daemon, Kernel, Hardware; chronyc ntpdata).",
	 NULL, emit_timestamping},
};

static void add_count(char *buf, size_t len, const char *label, int64_t v)
{
	if (v != CHRONY_COUNT_UNKNOWN) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s %lld", used ? ", " : "", label, (long long)v);
	}
}

/* Each source: how its packets are timestamped, interleaved or not, and
 * the packet counts; a refusal says what was refused and how to allow it. */
static void ntpdata_detail(const observation *obs, const detail_sink *out)
{
	const chrony_ntpdata *nd = &obs->ntpdata;
	if (chrony_select_unanswered_detail(out, nd->state, nd->error,
					    "chronyd refused `chronyc ntpdata` (how it timestamps each source's "
					    "packets): it answers it only to root or its own user over its Unix socket "
					    "(/run/chrony/chronyd.sock). Poll as root (--sudo or a root login), or allow "
					    "the command over UDP with `cmdallow` and a command key. Nothing else "
					    "depends on it.")) {
		return;
	}
	if (nd->n_sources == 0) {
		out->text(out->ctx, "chronyd has no NTP sources (refclocks have no NTP packets)", DETAIL_DIM);
		return;
	}
	for (int i = 0; i < json_value_clamp(nd->n_sources, CHRONY_MAX_SOURCES); i++) {
		const chrony_ntp_source *s = &nd->sources[i];
		char value[256];
		if (s->rx_ts == CHRONY_TS_INVALID) {
			snprintf(value, sizeof value, "no answer yet (%lld sent)", (long long)s->total_tx);
			out->kv(out->ctx, s->remote, value, DETAIL_WARN);
			continue;
		}
		snprintf(value, sizeof value, "RX %s, TX %s%s%s", chrony_ts_name(s->rx_ts), chrony_ts_name(s->tx_ts),
			 s->interleaved ? ", interleaved" : "", s->authenticated ? ", authenticated" : "");
		bool hw = s->rx_ts == CHRONY_TS_HARDWARE && s->tx_ts == CHRONY_TS_HARDWARE;
		out->kv(out->ctx, s->remote, value, hw ? DETAIL_GOOD : DETAIL_PLAIN);
		char counts[200] = "";
		add_count(counts, sizeof counts, "TX", s->total_tx);
		add_count(counts, sizeof counts, "RX", s->total_rx);
		add_count(counts, sizeof counts, "valid", s->total_valid_rx);
		add_count(counts, sizeof counts, "good", s->total_good_rx);
		add_count(counts, sizeof counts, "kernel TX", s->kernel_tx);
		add_count(counts, sizeof counts, "kernel RX", s->kernel_rx);
		add_count(counts, sizeof counts, "HW TX", s->hw_tx);
		add_count(counts, sizeof counts, "HW RX", s->hw_rx);
		out->kv(out->ctx, "  packets", counts, DETAIL_DIM);
	}
}

/* ------------------------------------------------------------- demo renderer */

static void render_count(text_sink *out, int64_t v)
{
	text_sink_printf(out, ",%lld", (long long)(v == CHRONY_COUNT_UNKNOWN ? 0 : v));
}

/* One record per source, as chronyc 4.3 prints it (34 fields; 38 when the
 * source has the 4.6 counters). */
static int ntpdata_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const chrony_ntpdata *nd = &truth->ntpdata;
	(void)iface;
	if (nd->state != OBS_OK) {
		return chrony_render_failure(nd->state, nd->error, out, err);
	}
	for (int i = 0; i < nd->n_sources && i < CHRONY_MAX_SOURCES; i++) {
		const chrony_ntp_source *s = &nd->sources[i];
		double offset = isfinite(s->offset_s) && s->offset_s != 0.0 ? -s->offset_s : 0.0;
		text_sink_printf(out, "%s,00000000,%d,%s,00000000,%s,%d,%s,%d,%d,%.0f,-25,0.000000030,%.6f,%.6f,"
				 "00000000,,0.000000000,%.9f,%.9f,0.000000000,0.000000000,0.00,111,111,1111,%s,%s,%s,%s",
				 s->remote, s->remote_port, s->local, chrony_leap_name(s->leap), s->version, s->mode,
				 s->stratum, s->poll, ldexp(1.0, s->poll), isfinite(s->root_delay_s) ? s->root_delay_s : 0.0,
				 isfinite(s->root_dispersion_s) ? s->root_dispersion_s : 0.0, offset,
				 isfinite(s->peer_delay_s) ? s->peer_delay_s : 0.0, s->interleaved ? "Yes" : "No",
				 s->authenticated ? "Yes" : "No", chrony_ts_name(s->tx_ts), chrony_ts_name(s->rx_ts));
		render_count(out, s->total_tx);
		render_count(out, s->total_rx);
		render_count(out, s->total_valid_rx);
		render_count(out, s->total_good_rx);
		if (s->hw_rx != CHRONY_COUNT_UNKNOWN) {
			render_count(out, s->kernel_tx);
			render_count(out, s->kernel_rx);
			render_count(out, s->hw_tx);
			render_count(out, s->hw_rx);
		}
		text_sink_puts(out, "\n");
	}
	return 0;
}

const collector chrony_ntpdata_collector = {
	.name = "ntpdata",
	.title = "chrony NTP packets and timestamping (chronyc ntpdata)",
	.command = "chronyc -c ntpdata",
	/* how packets are timestamped changes with configuration, not from poll
	 * to poll; one chronyc call a minute, as selectdata */
	.cadence = COLLECT_PERIODIC,
	.request_flag = 'D',
	.request_bit = PROBE_FLAG_NTPDATA,
	.period_s = 60.0,
	.carry = ntpdata_carry,
	.json_key = "chrony_ntpdata",
	.json = ntpdata_json,
	.part_state = ntpdata_part_state,
	.prometheus = ntpdata_prometheus,
	.n_prometheus = sizeof ntpdata_prometheus / sizeof ntpdata_prometheus[0],
	.detail_title = "chrony NTP packets",
	.detail = ntpdata_detail,
	.decode = ntpdata_decode,
	.demo_render = ntpdata_render,
};
