/* ntpq_parse.c - `ntpq -n -c rv -c peers` into ntp_obs.
 *
 * The output is the system variables, then the peers table (fixtures
 * tests/fixtures/ntpq-*.txt, ntpq.source.md):
 *
 *   associd=0 status=0014 leap_none, sync_unspec, 1 event, freq_mode,
 *   leap=00, stratum=9, precision=-24, rootdelay=0.057, rootdisp=1.105,
 *   refid=10.217.17.1, reftime=eebbe4d7.e3561425 2026-12-03T12:53:43.888Z, tc=3,
 *   ...
 *        remote           refid      st t when poll reach   delay   offset   jitter
 *   ===============================================================================
 *   *10.217.17.1     127.127.1.1      8 u    7    8  377   0.0565   0.0132   0.0046
 *
 * The variables are "name=value" items separated by ", " and wrapped at
 * about 72 columns; classic ntpq prints timestamps as "reftime=HEX  Tue,
 * Feb 10 2015  9:26:17.734", so an item without "name=" continues the one
 * before it.  ntpsec prints small numbers with an exponent (clk_jitter=6e-05),
 * classic ntp 4.2.8p15 with a "+" (offset=+0.156207).  A peer row is the
 * tally code in column 0, the remote (15 columns, may hold a space in
 * classic ntpq: "198.110.48.12 ("), then nine blank-separated fields. */
#include <config.h>

#include "ntpq_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_span.h"

#define QUOTE_LEN 48
#define SECONDS_MAX 1e6        /* seconds: beyond any real offset or delay */
#define PPM_MAX 1e6
#define EXPONENT_MAX 30
#define PEER_FIELDS 9     /* refid st t when poll reach delay offset jitter */
#define WHEN_MAX 1e9      /* seconds */

/* The part fails whole: what went wrong, and the text it is about (none
 * when quote is empty). */
static void fail(ntp_obs *dst, obs_state state, const char *what, text_span quote)
{
	char q[QUOTE_LEN];
	text_span_copy_printable(q, sizeof q, quote);
	ntp_obs_init(dst);
	dst->ran = true;
	dst->state = state;
	if (q[0]) {
		snprintf(dst->error, sizeof dst->error, "%.100s: \"%s\"", what, q);
	} else {
		snprintf(dst->error, sizeof dst->error, "%.100s", what);
	}
}

/* A decimal with an optional exponent ("0.0508", "+0.156207", "-13.457",
 * "6e-05"), times 10^shift: ntpq's milliseconds become seconds with
 * shift -3 in one conversion, so 0.010088 ms is the double nearest
 * 1.0088e-05 s, not a rounded quotient. */
static bool parse_real(text_span s, int shift, double min, double max, double *out)
{
	text_span mant = s, exp = {NULL, 0};
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == 'e' || s.p[i] == 'E') {
			mant.n = i;
			exp.p = s.p + i + 1;
			exp.n = s.n - i - 1;
			break;
		}
	}
	double m, e = 0;
	if (!text_span_decimal(mant, true, -1e15, 1e15, &m)) {
		return false;
	}
	if (exp.p && !text_span_decimal(exp, false, -EXPONENT_MAX, EXPONENT_MAX, &e)) {
		return false;
	}
	/* the syntax is checked: strtod only converts (C locale, as text_span) */
	char buf[TEXT_SPAN_NUM_LEN + 8];
	snprintf(buf, sizeof buf, "%.*se%d", (int)mant.n, mant.p, (int)e + shift);
	double v = strtod(buf, NULL);
	if (!isfinite(v) || v < min || v > max) {
		return false;
	}
	*out = v == 0 ? 0.0 : v; /* no -0 */
	return true;
}

static bool parse_int(text_span s, int min, int max, int *out)
{
	double v;
	if (!text_span_decimal(s, false, min, max, &v)) {
		return false;
	}
	*out = (int)v;
	return true;
}

/* "-" (never), "59", "17m", "2h", "3d": ntpq's prettyinterval. */
static bool parse_interval(text_span s, int *out)
{
	if (text_span_eq(s, "-")) {
		*out = INT_UNKNOWN;
		return true;
	}
	double scale = 1;
	if (s.n > 1) {
		switch (s.p[s.n - 1]) {
		case 'm': scale = 60; break;
		case 'h': scale = 3600; break;
		case 'd': scale = 86400; break;
		default: break;
		}
	}
	if (scale != 1) {
		s.n--;
	}
	double v;
	if (!text_span_decimal(s, false, 0, WHEN_MAX, &v)) {
		return false;
	}
	*out = (int)(v * scale > WHEN_MAX ? WHEN_MAX : v * scale);
	return true;
}

static bool parse_octal(text_span s, unsigned *out)
{
	if (s.n == 0 || s.n > 3) {
		return false;
	}
	unsigned v = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '7') {
			return false;
		}
		v = v * 8 + (unsigned)(s.p[i] - '0');
	}
	if (v > 0377) {
		return false;
	}
	*out = v;
	return true;
}

static void copy_text(char *dst, size_t cap, text_span s)
{
	if (s.n >= 2 && s.p[0] == '"' && s.p[s.n - 1] == '"') {
		s.p++;
		s.n -= 2;
	}
	text_span_copy_printable(dst, cap, s);
}

const char *ntp_leap_bits(int leap)
{
	switch (leap) {
	case 0: return "00";
	case 1: return "01";
	case 2: return "10";
	case NTP_LEAP_UNSYNC: return "11";
	default: break;
	}
	return "??";
}

/* ------------------------------------------------------- system variables */

typedef struct {
	bool leap, status;
} rv_seen;

/* One "name=value" item; NULL, or what is wrong with the value. */
static const char *rv_item(text_span name, text_span value, ntp_obs *dst, rv_seen *seen)
{
	double v;
	if (text_span_eq(name, "leap")) {
		if (value.n != 2 || (value.p[0] != '0' && value.p[0] != '1') ||
		    (value.p[1] != '0' && value.p[1] != '1')) {
			return "invalid leap";
		}
		dst->leap = (value.p[0] - '0') * 2 + (value.p[1] - '0');
		seen->leap = true;
	} else if (text_span_eq(name, "stratum")) {
		if (!parse_int(value, 0, 255, &dst->stratum)) {
			return "invalid stratum";
		}
	} else if (text_span_eq(name, "refid")) {
		copy_text(dst->refid, sizeof dst->refid, value);
	} else if (text_span_eq(name, "version")) {
		copy_text(dst->version, sizeof dst->version, value);
	} else if (text_span_eq(name, "tc")) {
		if (!parse_int(value, -64, 64, &dst->tc)) {
			return "invalid tc";
		}
	} else if (text_span_eq(name, "offset")) {
		if (!parse_real(value, -3, -SECONDS_MAX, SECONDS_MAX, &v)) {
			return "invalid offset";
		}
		dst->offset_s = v == 0 ? 0.0 : -v; /* server - local */
	} else if (text_span_eq(name, "frequency")) {
		if (!parse_real(value, 0, -PPM_MAX, PPM_MAX, &dst->frequency_ppm)) {
			return "invalid frequency";
		}
	} else if (text_span_eq(name, "clk_wander")) {
		if (!parse_real(value, 0, 0, PPM_MAX, &dst->clk_wander_ppm)) {
			return "invalid clk_wander";
		}
	} else {
		const struct {
			const char *name;
			double *field;
		} ms[] = {
			{"sys_jitter", &dst->sys_jitter_s},
			{"clk_jitter", &dst->clk_jitter_s},
			{"rootdelay", &dst->root_delay_s},
			{"rootdisp", &dst->root_dispersion_s},
		};
		for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
			if (text_span_eq(name, ms[i].name)) {
				if (!parse_real(value, -3, 0, SECONDS_MAX, &v)) {
					return "invalid milliseconds";
				}
				*ms[i].field = v;
			}
		}
	}
	return NULL;
}

/* "associd=0 status=c016 leap_alarm, sync_unspec, 1 event, restart,": the
 * status word in hex. */
static bool rv_header(text_span line, ntp_obs *dst, rv_seen *seen)
{
	text_span rest = line, word;
	while (text_span_word(&rest, &word)) {
		if (!text_span_starts(word, "status=")) {
			continue;
		}
		unsigned v = 0;
		size_t n = 0;
		for (size_t i = 7; i < word.n && n < 5; i++, n++) {
			char c = word.p[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
			if (d < 0) {
				return false;
			}
			v = v * 16 + (unsigned)d;
		}
		if (n != 4) {
			return false;
		}
		dst->status = (int)v;
		seen->status = true;
		return true;
	}
	return false;
}

/* Splits a line into items on commas outside double quotes. */
static const char *rv_line(text_span line, ntp_obs *dst, rv_seen *seen, text_span *bad)
{
	size_t start = 0;
	bool quoted = false;
	for (size_t i = 0; i <= line.n; i++) {
		if (i < line.n && line.p[i] == '"') {
			quoted = !quoted;
		}
		if (i < line.n && (line.p[i] != ',' || quoted)) {
			continue;
		}
		text_span item = text_span_trim((text_span){line.p + start, i - start});
		start = i + 1;
		size_t eq = 0;
		while (eq < item.n && ((item.p[eq] >= 'a' && item.p[eq] <= 'z') ||
				       (item.p[eq] >= '0' && item.p[eq] <= '9') || item.p[eq] == '_')) {
			eq++;
		}
		if (eq == 0 || eq >= item.n || item.p[eq] != '=') {
			continue; /* the rest of a timestamp ("Feb 10 2015  9:26:17.734") */
		}
		text_span name = {item.p, eq}, value = {item.p + eq + 1, item.n - eq - 1};
		const char *why = rv_item(name, value, dst, seen);
		if (why) {
			*bad = item;
			return why;
		}
	}
	return NULL;
}

/* --------------------------------------------------------------- peers */

static bool is_tally(char c)
{
	return c != '\0' && strchr(" x.-+#*o", c) != NULL;
}

static const char *peer_row(text_span line, ntp_peer *p, text_span *bad)
{
	*bad = line;
	if (line.n < 2 || !is_tally(line.p[0])) {
		return "unknown tally code";
	}
	p->tally = line.p[0];
	/* the last nine words; what comes before them is the remote */
	text_span words[PEER_FIELDS + 1];
	text_span body = {line.p + 1, line.n - 1}, rest = body, w;
	int n = 0;
	while (text_span_word(&rest, &w)) {
		if (n == PEER_FIELDS + 1) {
			memmove(words, words + 1, sizeof words[0] * PEER_FIELDS);
			n--;
		}
		words[n++] = w;
	}
	if (n != PEER_FIELDS + 1) {
		return "too few fields";
	}
	const text_span *f = words + 1;
	text_span remote = text_span_trim((text_span){body.p, (size_t)(f[0].p - body.p)});
	if (remote.n == 0) {
		return "no remote";
	}
	text_span_copy_printable(p->remote, sizeof p->remote, remote);
	text_span_copy_printable(p->refid, sizeof p->refid, f[0]);
	*bad = f[1];
	if (!parse_int(f[1], 0, 255, &p->stratum)) {
		return "invalid stratum";
	}
	*bad = f[2];
	if (f[2].n != 1) {
		return "invalid type";
	}
	p->type = f[2].p[0];
	*bad = f[3];
	if (!parse_interval(f[3], &p->when_s)) {
		return "invalid when";
	}
	*bad = f[4];
	if (!parse_interval(f[4], &p->poll_s) || p->poll_s == INT_UNKNOWN) {
		return "invalid poll";
	}
	*bad = f[5];
	if (!parse_octal(f[5], &p->reach)) {
		return "invalid reach";
	}
	double v;
	*bad = f[6];
	if (!parse_real(f[6], -3, 0, SECONDS_MAX, &v)) {
		return "invalid delay";
	}
	p->delay_s = v;
	*bad = f[7];
	if (!parse_real(f[7], -3, -SECONDS_MAX, SECONDS_MAX, &v)) {
		return "invalid offset";
	}
	p->offset_s = v == 0 ? 0.0 : -v; /* server - local */
	*bad = f[8];
	if (!parse_real(f[8], -3, 0, SECONDS_MAX, &v)) {
		return "invalid jitter";
	}
	p->jitter_s = v;
	return NULL;
}

static bool is_peers_header(text_span line)
{
	text_span rest = line, w;
	return text_span_word(&rest, &w) && text_span_eq(w, "remote") && text_span_contains(rest, "refid");
}

/* "associd=0 status=...": the first line of the system variables. */
static bool is_rv_header(text_span line)
{
	return text_span_starts(text_span_trim(line), "associd=");
}

static bool is_rule(text_span line)
{
	line = text_span_trim(line);
	if (line.n < 10) {
		return false;
	}
	for (size_t i = 0; i < line.n; i++) {
		if (line.p[i] != '=') {
			return false;
		}
	}
	return true;
}

/* ---------------------------------------------------------------- failures */

static bool any_line_contains(const char *buf, size_t len, const char *needle, text_span *found)
{
	text_span rest = {buf, buf ? len : 0}, line;
	bool terminated;
	while (text_span_next_line(&rest, &line, &terminated)) {
		if (text_span_contains(line, needle)) {
			*found = text_span_trim(line);
			return true;
		}
	}
	return false;
}

/* The ways the call fails before any output; true when it did. */
static bool parse_failure(const tool_output *out, ntp_obs *dst)
{
	text_span err = text_span_first_text_line(out->err, out->err_len);
	text_span hit = text_span_first_text_line(out->out, out->out_len);
	bool have_err = err.n > 0, have_out = hit.n > 0;
	if (!have_err) {
		err = (text_span){"", 0};
	}
	if (have_err && text_span_eq(err, NTPQ_NO_NTPD_LINE)) {
		fail(dst, OBS_NOT_COLLECTED, "no ntpd process on the node", (text_span){"", 0});
		return true;
	}
	if (have_err && text_span_eq(err, NTPQ_OPENNTPD_LINE)) {
		fail(dst, OBS_TOOL_MISSING, "ntpd here is openntpd (ntpctl answers): ntpq cannot query it",
		     (text_span){"", 0});
		return true;
	}
	if (out->rc == NTPQ_TIMEOUT_RC && have_err && text_span_eq(err, NTPQ_TIMEOUT_LINE)) {
		fail(dst, OBS_DAEMON_UNREACHABLE, "ntpd does not answer ntpq (stopped after " NTPQ_TIMEOUT_S " s)",
		     (text_span){"", 0});
		return true;
	}
	if (out->rc == TOOL_RC_NOT_FOUND || any_line_contains(out->err, out->err_len, "ntpq: not found", &hit) ||
	    any_line_contains(out->err, out->err_len, "ntpq: command not found", &hit)) {
		fail(dst, OBS_TOOL_MISSING, "ntpq not found (ntpd runs); install ntpsec or ntp",
		     have_err ? err : (text_span){"", 0});
		return true;
	}
	/* ntpsec: "***Socket error; probably ntpd is not running" (exit 0);
	 * classic: "localhost: timed out, nothing received", "***Request timed out" */
	static const char *const unreachable[] = {"Socket error", "timed out", "Connection refused", "nothing received"};
	for (size_t i = 0; !have_out && i < sizeof unreachable / sizeof unreachable[0]; i++) {
		if (any_line_contains(out->err, out->err_len, unreachable[i], &hit) ||
		    any_line_contains(out->out, out->out_len, unreachable[i], &hit)) {
			fail(dst, OBS_DAEMON_UNREACHABLE, "ntpd does not answer ntpq (UDP 123 on localhost)", hit);
			return true;
		}
	}
	if (!have_out) {
		if (out->rc != 0 && out->rc != -1) {
			char what[64];
			snprintf(what, sizeof what, "ntpq failed with exit status %d", out->rc);
			fail(dst, OBS_COMMAND_FAILED, what, err);
		} else {
			fail(dst, OBS_EMPTY, "ntpq printed nothing", err);
		}
		return true;
	}
	return false;
}

void ntpq_parse(const tool_output *out, ntp_obs *dst)
{
	ntp_obs_init(dst);
	dst->ran = true;
	if (parse_failure(out, dst)) {
		return;
	}
	enum { RV, HEADER, PEERS } phase = RV;
	bool peers_seen = false;
	rv_seen seen = {false, false};
	text_span rest = {out->out, out->out_len}, line;
	bool terminated;
	int number = 0;
	while (text_span_next_line(&rest, &line, &terminated)) {
		number++;
		char where[48];
		snprintf(where, sizeof where, "ntpq line %d: ", number);
		if (text_span_trim(line).n == 0) {
			continue;
		}
		obs_state bad_state = terminated ? OBS_GARBAGE : OBS_TRUNCATED;
		text_span bad;
		const char *why = NULL;
		if (phase != RV && is_rv_header(line)) {
			phase = RV; /* `ntpq -p -c rv` prints the peers first */
		}
		if (text_span_contains(line, "No association ID")) {
			/* ntpsec "server=localhost No association IDs returned", classic
			 * "No association ID's returned": ntpd has no peers */
			phase = PEERS;
			peers_seen = true;
			continue;
		}
		switch (phase) {
		case RV:
			if (is_peers_header(line)) {
				phase = HEADER;
				peers_seen = true;
			} else if (is_rv_header(line)) {
				if (!rv_header(line, dst, &seen)) {
					bad = line;
					why = "invalid status word";
				}
			} else {
				why = rv_line(line, dst, &seen, &bad);
			}
			break;
		case HEADER:
			if (!is_rule(line)) {
				bad = line;
				why = "no rule under the peers heading";
			}
			phase = PEERS;
			break;
		case PEERS: {
			ntp_peer p;
			memset(&p, 0, sizeof p);
			why = peer_row(line, &p, &bad);
			if (!why) {
				if (dst->n_peers < NTP_MAX_PEERS) {
					dst->peers[dst->n_peers++] = p;
				}
				if (dst->n_peers_total < INT32_MAX) {
					dst->n_peers_total++;
				}
			}
			break;
		}
		}
		if (why) {
			char msg[96];
			snprintf(msg, sizeof msg, "%s%s", where, why);
			fail(dst, bad_state, msg, bad);
			return;
		}
	}
	if (!seen.leap) {
		fail(dst, OBS_GARBAGE, "ntpq printed no leap= system variable", (text_span){"", 0});
		return;
	}
	if (!peers_seen) {
		fail(dst, OBS_TRUNCATED, "ntpq output ends before the peers table", (text_span){"", 0});
		return;
	}
	dst->state = OBS_OK;
}
