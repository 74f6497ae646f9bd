/* timesyncd_parse.c - timedatectl's reports on systemd-timesyncd.
 *
 * Sign: timesync-status prints the offset of the last answer as
 * ((T2 - T1) + (T3 - T4)) / 2 with its sign in front (timedatectl.c
 * print_ntp_status_info: "+" when T2 + T3 > T1 + T4), which is the server
 * minus this node; the model's offset is node minus reference, so it is the
 * printed value negated.  show-timesync's Frequency is the kernel's
 * struct timex freq (ppm in units of 2^-16), timesync-status prints it as
 * "%+.3fppm". */
#include <config.h>

#include "timesyncd_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SECONDS_MAX 1e10 /* beyond any real span or offset */
#define FREQ_SCALE 65536.0

/* ---------------------------------------------------------------- spans */

static const struct {
	const char *unit;
	double seconds;
} span_units[] = {
	/* longest first where one unit is a prefix of another (ms, min, month) */
	{"month", 2629800.0}, {"min", 60.0}, {"ms", 1e-3}, {"us", 1e-6}, {"y", 31557600.0},
	{"w", 604800.0},      {"d", 86400.0}, {"h", 3600.0}, {"s", 1.0},
};

/* One component: digits, optionally '.' and digits, then a unit. */
static bool span_component(text_span c, double *out)
{
	size_t n = 0;
	while (n < c.n && ((c.p[n] >= '0' && c.p[n] <= '9') || c.p[n] == '.')) {
		n++;
	}
	if (n == 0 || n == c.n) {
		return false;
	}
	double v;
	text_span number = {c.p, n};
	if (!text_span_decimal(number, true, 0, SECONDS_MAX, &v)) {
		return false;
	}
	text_span unit = {c.p + n, c.n - n};
	for (size_t i = 0; i < sizeof span_units / sizeof span_units[0]; i++) {
		if (text_span_eq(unit, span_units[i].unit)) {
			*out = v * span_units[i].seconds;
			return true;
		}
	}
	return false;
}

bool timesyncd_parse_span(text_span s, double *out)
{
	s = text_span_trim(s);
	if (text_span_eq(s, "0")) {
		*out = 0;
		return true;
	}
	if (text_span_eq(s, "infinity")) {
		*out = INFINITY;
		return true;
	}
	double total = 0;
	text_span word;
	int parts = 0;
	while (text_span_word(&s, &word)) {
		double v;
		if (!span_component(word, &v)) {
			return false;
		}
		total += v;
		parts++;
	}
	if (parts == 0 || total > SECONDS_MAX) {
		return false;
	}
	*out = total;
	return true;
}

/* ------------------------------------------------------------- helpers */

static bool parse_int(text_span s, double min, double max, int *out)
{
	double v;
	if (!text_span_decimal(text_span_trim(s), false, min, max, &v)) {
		return false;
	}
	*out = (int)v;
	return true;
}

static bool parse_yes_no(text_span s, int *out)
{
	s = text_span_trim(s);
	if (text_span_eq(s, "yes")) {
		*out = 1;
	} else if (text_span_eq(s, "no")) {
		*out = 0;
	} else {
		return false;
	}
	return true;
}

static void copy_text(char *dst, size_t cap, text_span s)
{
	s = text_span_trim(s);
	if (text_span_eq(s, "n/a")) {
		dst[0] = '\0';
		return;
	}
	text_span_copy_printable(dst, cap, s);
}

/* The part of s before `sep`, or all of s. */
static text_span before(text_span s, const char *sep)
{
	size_t k = strlen(sep);
	for (size_t i = 0; i + k <= s.n; i++) {
		if (memcmp(s.p + i, sep, k) == 0) {
			return (text_span){s.p, i};
		}
	}
	return s;
}

/* The text between the first '(' and the last ')' of s, or an empty span. */
static text_span in_parens(text_span s)
{
	const char *open = memchr(s.p, '(', s.n);
	if (!open) {
		return (text_span){s.p, 0};
	}
	size_t from = (size_t)(open - s.p) + 1;
	size_t to = s.n;
	while (to > from && s.p[to - 1] != ')') {
		to--;
	}
	return to > from ? (text_span){s.p + from, to - from - 1} : (text_span){s.p, 0};
}

/* ---------------------------------------------------------- NTPMessage */

static const char *ntp_message(text_span v, timesyncd_obs *t)
{
	v = text_span_trim(v);
	if (v.n < 2 || v.p[0] != '{' || v.p[v.n - 1] != '}') {
		return "NTPMessage is not { ... }";
	}
	v.p++;
	v.n -= 2;
	text_span fields[24];
	int n = text_span_split(v, ',', fields, 24);
	if (n > 24) {
		return "NTPMessage has too many fields";
	}
	for (int i = 0; i < n; i++) {
		text_span f = text_span_trim(fields[i]);
		const char *eq = memchr(f.p, '=', f.n);
		if (!eq) {
			continue;
		}
		text_span key = {f.p, (size_t)(eq - f.p)};
		text_span val = {eq + 1, f.n - key.n - 1};
		bool ok = true;
		if (text_span_eq(key, "Leap")) {
			ok = parse_int(val, 0, 3, &t->leap);
		} else if (text_span_eq(key, "Stratum")) {
			ok = parse_int(val, 0, 255, &t->stratum);
		} else if (text_span_eq(key, "Precision")) {
			ok = parse_int(val, -128, 127, &t->precision);
		} else if (text_span_eq(key, "RootDelay")) {
			ok = timesyncd_parse_span(val, &t->root_delay_s);
		} else if (text_span_eq(key, "RootDispersion")) {
			ok = timesyncd_parse_span(val, &t->root_dispersion_s);
		} else if (text_span_eq(key, "Reference")) {
			copy_text(t->reference, sizeof t->reference, val);
		} else if (text_span_eq(key, "Ignored")) {
			int ignored;
			ok = parse_yes_no(val, &ignored);
			t->ignored = ok && ignored;
		} else if (text_span_eq(key, "PacketCount")) {
			double count;
			ok = text_span_decimal(text_span_trim(val), false, 0, 1e15, &count);
			t->packet_count = ok ? (int64_t)count : t->packet_count;
		} else if (text_span_eq(key, "Jitter")) {
			ok = timesyncd_parse_span(val, &t->jitter_s);
		}
		if (!ok) {
			return "invalid NTPMessage field";
		}
	}
	return NULL;
}

/* ------------------------------------------------------ Key=Value lines */

static const char *property(text_span key, text_span val, timesyncd_obs *t, bool *raw_frequency)
{
	if (text_span_eq(key, "NTP")) {
		return parse_yes_no(val, &t->ntp_enabled) ? NULL : "invalid NTP";
	}
	if (text_span_eq(key, "NTPSynchronized")) {
		return parse_yes_no(val, &t->kernel_synchronised) ? NULL : "invalid NTPSynchronized";
	}
	if (text_span_eq(key, "ServerName")) {
		copy_text(t->server_name, sizeof t->server_name, val);
		return NULL;
	}
	if (text_span_eq(key, "ServerAddress")) {
		copy_text(t->server_address, sizeof t->server_address, val);
		return NULL;
	}
	if (text_span_eq(key, "PollIntervalUSec")) {
		return timesyncd_parse_span(val, &t->poll_interval_s) ? NULL : "invalid PollIntervalUSec";
	}
	if (text_span_eq(key, "Frequency")) {
		double f;
		if (!text_span_decimal(text_span_trim(val), false, -1e12, 1e12, &f)) {
			return "invalid Frequency";
		}
		t->frequency_ppm = f / FREQ_SCALE;
		*raw_frequency = true;
		return NULL;
	}
	if (text_span_eq(key, "NTPMessage")) {
		return ntp_message(val, t);
	}
	return NULL; /* Timezone, LocalRTC, TimeUSec, the server lists, ... */
}

/* ------------------------------------------------- timesync-status table */

static const char *const leap_words[4] = {
	"normal",
	"last minute of the day has 61 seconds",
	"last minute of the day has 59 seconds",
	"not synchronized",
};

static const char *status_field(text_span field, text_span val, timesyncd_obs *t, bool raw_frequency,
				bool *saw_offset)
{
	val = text_span_trim(val);
	if (text_span_eq(field, "Server")) {
		/* "ADDRESS (NAME)"; show-timesync's values win when present */
		if (!t->server_address[0]) {
			copy_text(t->server_address, sizeof t->server_address, before(val, " ("));
		}
		if (!t->server_name[0]) {
			copy_text(t->server_name, sizeof t->server_name, in_parens(val));
		}
		return NULL;
	}
	if (text_span_eq(field, "Poll interval")) {
		if (isnan(t->poll_interval_s) && !timesyncd_parse_span(before(val, " ("), &t->poll_interval_s)) {
			return "invalid poll interval";
		}
		return NULL;
	}
	if (text_span_eq(field, "Leap")) {
		for (int i = 0; i < 4; i++) {
			if (text_span_eq(val, leap_words[i])) {
				if (t->leap == INT_UNKNOWN) {
					t->leap = i;
				}
				return NULL;
			}
		}
		return "unknown leap status";
	}
	if (text_span_eq(field, "Stratum")) {
		int s;
		if (!parse_int(val, 0, 255, &s)) {
			return "invalid stratum";
		}
		if (t->stratum == INT_UNKNOWN) {
			t->stratum = s;
		}
		return NULL;
	}
	if (text_span_eq(field, "Offset")) {
		/* a sign, then a span: server minus node (the header comment) */
		if (val.n < 2 || (val.p[0] != '+' && val.p[0] != '-')) {
			return "invalid offset";
		}
		double v;
		if (!timesyncd_parse_span((text_span){val.p + 1, val.n - 1}, &v) || isinf(v)) {
			return "invalid offset";
		}
		t->offset_s = val.p[0] == '+' ? -v : v;
		*saw_offset = true;
		return NULL;
	}
	if (text_span_eq(field, "Delay")) {
		return timesyncd_parse_span(val, &t->delay_s) ? NULL : "invalid delay";
	}
	if (text_span_eq(field, "Jitter")) {
		double j;
		if (!timesyncd_parse_span(val, &j)) {
			return "invalid jitter";
		}
		if (isnan(t->jitter_s)) {
			t->jitter_s = j;
		}
		return NULL;
	}
	if (text_span_eq(field, "Packet count")) {
		double count;
		if (!text_span_decimal(val, false, 0, 1e15, &count)) {
			return "invalid packet count";
		}
		t->packet_count = (int64_t)count;
		return NULL;
	}
	if (text_span_eq(field, "Frequency")) {
		/* "%+.3fppm"; show-timesync's raw value is more precise */
		if (val.n < 4 || memcmp(val.p + val.n - 3, "ppm", 3) != 0) {
			return "invalid frequency";
		}
		double f;
		if (!text_span_decimal((text_span){val.p, val.n - 3}, true, -1e6, 1e6, &f)) {
			return "invalid frequency";
		}
		if (!raw_frequency) {
			t->frequency_ppm = f;
		}
		return NULL;
	}
	if (text_span_eq(field, "Reference")) {
		if (!t->reference[0]) {
			copy_text(t->reference, sizeof t->reference, val);
		}
		return NULL;
	}
	if (text_span_eq(field, "Precision")) {
		int p;
		if (t->precision == INT_UNKNOWN && parse_int(in_parens(val), -128, 127, &p)) {
			t->precision = p;
		}
		return NULL;
	}
	return NULL; /* Version, Root distance */
}

/* ------------------------------------------------------------- failures */

static void fail(timesyncd_obs *dst, obs_state state, const char *what, text_span quote)
{
	char q[96];
	text_span_copy_printable(q, sizeof q, quote);
	timesyncd_obs_init(dst);
	dst->state = state;
	snprintf(dst->error, sizeof dst->error, "%.60s%s%s", what, q[0] ? ": " : "", q);
}

/* Why timedatectl failed.  Without systemd as PID 1 (a container, this
 * project's lab) or without D-Bus it cannot ask anyone. */
static void classify_failure(const tool_output *out, timesyncd_obs *dst)
{
	text_span err = {out->err, out->err ? out->err_len : 0};
	text_span line = text_span_first_text_line(out->err, out->err_len);
	if (out->rc == TOOL_RC_NOT_FOUND) {
		fail(dst, OBS_TOOL_MISSING, "timedatectl not found", line);
	} else if (text_span_contains(err, "Failed to connect to bus") ||
		   text_span_contains(err, "has not been booted with systemd")) {
		fail(dst, OBS_DAEMON_UNREACHABLE, "timedatectl cannot reach systemd over D-Bus", line);
	} else if (text_span_contains(err, "requires systemd-timesyncd.service") ||
		   text_span_contains(err, "org.freedesktop.timesync1")) {
		fail(dst, OBS_DAEMON_UNREACHABLE, "systemd-timesyncd does not answer on D-Bus", line);
	} else if (text_span_contains(err, "Access denied") || text_span_contains(err, "Permission denied")) {
		fail(dst, OBS_PERMISSION_DENIED, "timedatectl was refused", line);
	} else {
		char what[48];
		snprintf(what, sizeof what, "timedatectl exited with status %d", out->rc);
		fail(dst, OBS_COMMAND_FAILED, what, line);
	}
}

/* --------------------------------------------------------------- parse */

void timesyncd_parse(const tool_output *out, timesyncd_obs *dst)
{
	timesyncd_obs_init(dst);
	if (out->rc != 0) {
		classify_failure(out, dst);
		return;
	}
	text_span rest = {out->out, out->out ? out->out_len : 0}, line;
	bool terminated = true, any = false, raw_frequency = false, saw_offset = false;
	while (text_span_next_line(&rest, &line, &terminated)) {
		text_span l = text_span_trim(line);
		if (l.n == 0) {
			continue;
		}
		const char *eq = memchr(l.p, '=', l.n);
		const char *colon = memchr(l.p, ':', l.n);
		const char *why = NULL;
		/* "Key=Value" from show / show-timesync: the key is one word */
		if (eq && (!colon || eq < colon) && before(l, " ").n > (size_t)(eq - l.p)) {
			text_span key = {l.p, (size_t)(eq - l.p)};
			text_span val = {eq + 1, l.n - key.n - 1};
			why = property(key, val, dst, &raw_frequency);
		} else if (colon && colon + 1 < l.p + l.n && colon[1] == ' ') {
			text_span field = {l.p, (size_t)(colon - l.p)};
			text_span val = {colon + 1, l.n - field.n - 1};
			why = status_field(text_span_trim(field), val, dst, raw_frequency, &saw_offset);
		} else {
			why = "not a timedatectl line";
		}
		if (why) {
			fail(dst, OBS_GARBAGE, why, l);
			return;
		}
		any = true;
	}
	if (!any) {
		/* the collector's command prints nothing when no timesyncd runs */
		dst->state = OBS_NOT_COLLECTED;
		snprintf(dst->error, sizeof dst->error, "systemd-timesyncd is not running");
		return;
	}
	if (!terminated) {
		fail(dst, OBS_TRUNCATED, "timedatectl output ends mid-line", line);
		return;
	}
	if (dst->packet_count > 0 && !saw_offset) {
		/* an answer was received but timesync-status gave no offset */
		dst->offset_s = NAN;
	}
	dst->state = OBS_OK;
	timesyncd_settle(dst);
}
