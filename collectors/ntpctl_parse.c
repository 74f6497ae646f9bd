/* ntpctl_parse.c - openntpd's `ntpctl -s all`: the status line, the peers
 * and the sensors, in the formats of OpenBSD usr.sbin/ntpd/ntpd.c
 * (show_status_msg, show_peer_msg, show_sensor_msg; ntpctl_parse.h). */
#include <config.h>

#include "ntpctl_parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "text_span.h"

#define MS_MAX 1e9 /* beyond any offset, delay or jitter openntpd keeps (ms) */
#define SECONDS_INT_MAX 1000000000

/* ------------------------------------------------------------- failures */

static void fail(openntpd_obs *dst, obs_state state, const char *what, text_span quote)
{
	char q[96];
	text_span_copy_printable(q, sizeof q, quote);
	openntpd_obs_init(dst);
	dst->state = state;
	snprintf(dst->error, sizeof dst->error, "%.60s%s%s", what, q[0] ? ": " : "", q);
}

/* ntpctl's err(3) messages (ntpd.c ctl_main): "ntpctl: connect: SOCKET:
 * STRERROR" when ntpd's control socket is not there or refuses, "pipe
 * closed" when ntpd hung up. */
static void classify_failure(const tool_output *out, openntpd_obs *dst)
{
	text_span err = {out->err, out->err ? out->err_len : 0};
	text_span line = text_span_first_text_line(out->err, out->err_len);
	if (out->rc == TOOL_RC_NOT_FOUND) {
		fail(dst, OBS_TOOL_MISSING, "ntpctl not found", line);
	} else if (out->rc == NTPCTL_TIMEOUT_RC) {
		fail(dst, OBS_DAEMON_UNREACHABLE, "ntpd did not answer ntpctl in time", line);
	} else if (text_span_contains(err, "Permission denied")) {
		fail(dst, OBS_PERMISSION_DENIED, "ntpctl may not use ntpd's control socket", line);
	} else if (text_span_contains(err, "connect:") || text_span_contains(err, "pipe closed") ||
		   text_span_contains(err, "read error")) {
		fail(dst, OBS_DAEMON_UNREACHABLE, "ntpctl cannot reach openntpd", line);
	} else {
		char what[48];
		snprintf(what, sizeof what, "ntpctl exited with status %d", out->rc);
		fail(dst, OBS_COMMAND_FAILED, what, line);
	}
}

/* -------------------------------------------------------------- numbers */

static bool parse_int(text_span s, int min, int max, int *out)
{
	double v;
	if (!text_span_decimal(s, false, min, max, &v)) {
		return false;
	}
	*out = (int)v;
	return true;
}

/* "%4llds": whole seconds with an "s". */
static bool parse_seconds(text_span s, int *out)
{
	if (s.n < 2 || s.p[s.n - 1] != 's') {
		return false;
	}
	s.n--;
	return parse_int(s, -SECONDS_INT_MAX, SECONDS_INT_MAX, out);
}

/* "%.3fms" into seconds. */
static bool parse_ms(text_span s, bool negative_ok, double *out)
{
	double v;
	if (s.n < 3 || s.p[s.n - 2] != 'm' || s.p[s.n - 1] != 's') {
		return false;
	}
	s.n -= 2;
	if (!text_span_decimal(s, true, negative_ok ? -MS_MAX : 0, MS_MAX, &v)) {
		return false;
	}
	*out = v / 1e3;
	return true;
}

/* "V/N" with V <= N. */
static bool parse_ratio(text_span s, int *valid, int *total)
{
	text_span f[2];
	if (text_span_split(s, '/', f, 2) != 2 || !parse_int(f[0], 0, SECONDS_INT_MAX, valid) ||
	    !parse_int(f[1], 0, SECONDS_INT_MAX, total)) {
		return false;
	}
	return *valid <= *total;
}

/* --------------------------------------------------------------- status */

/* One ", "-separated item of the status line; NULL or why not. */
static const char *status_item(text_span item, openntpd_obs *dst)
{
	text_span rest = item, w1, w2;
	if (!text_span_word(&rest, &w1)) {
		return "empty status item";
	}
	if (text_span_eq(text_span_trim(rest), "peers valid")) {
		return parse_ratio(w1, &dst->peers_valid, &dst->peers_configured) ? NULL : "bad peer count";
	}
	if (text_span_eq(text_span_trim(rest), "sensors valid")) {
		return parse_ratio(w1, &dst->sensors_valid, &dst->sensors_configured) ? NULL : "bad sensor count";
	}
	if (text_span_eq(item, "clock synced") || text_span_eq(item, "clock unsynced")) {
		if (dst->synced != INT_UNKNOWN) {
			return "clock state said twice";
		}
		dst->synced = text_span_eq(item, "clock synced");
		return NULL;
	}
	if (text_span_eq(w1, "stratum")) {
		int st;
		if (dst->synced != 1 || !text_span_word(&rest, &w2) || !parse_int(w2, 0, 255, &st) ||
		    text_span_trim(rest).n != 0) {
			return "bad stratum";
		}
		dst->stratum = st;
		return NULL;
	}
	if (text_span_starts(item, "clock offset is ")) {
		text_span v = {item.p + 16, item.n - 16};
		double s;
		if (dst->synced != 0 || !parse_ms(text_span_trim(v), true, &s)) {
			return "bad clock offset";
		}
		dst->unsynced_offset_s = -s;
		return NULL;
	}
	if (text_span_eq(item, "constraints configured but none available")) {
		dst->constraints_configured = true;
		return NULL;
	}
	if (text_span_starts(item, "constraint offset ")) {
		text_span v = {item.p + 18, item.n - 18}, w;
		int off, errors = 0;
		if (!text_span_word(&v, &w) || !parse_seconds(w, &off)) {
			return "bad constraint offset";
		}
		v = text_span_trim(v);
		if (v.n > 0) {
			/* "(E errors)" */
			if (v.n < 10 || v.p[0] != '(' || !text_span_eq((text_span){v.p + v.n - 8, 8}, " errors)") ||
			    !parse_int((text_span){v.p + 1, v.n - 9}, 0, SECONDS_INT_MAX, &errors)) {
				return "bad constraint errors";
			}
		}
		dst->constraints_configured = true;
		dst->constraint_known = true;
		dst->constraint_offset_s = off;
		dst->constraint_errors = errors;
		return NULL;
	}
	return "unknown status item";
}

static const char *status_line(text_span line, openntpd_obs *dst)
{
	if (text_span_eq(line, "no peers and no sensors configured")) {
		return NULL;
	}
	/* items are separated by ", " (show_status_msg); none holds a comma */
	while (line.n > 0) {
		const char *comma = memchr(line.p, ',', line.n);
		size_t n = comma ? (size_t)(comma - line.p) : line.n;
		const char *why = status_item(text_span_trim((text_span){line.p, n}), dst);
		if (why) {
			return why;
		}
		if (!comma) {
			break;
		}
		line.p += n + 1;
		line.n -= n + 1;
		if (line.n == 0) {
			return "status line ends in a comma";
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- peers */

/* The name line: the address, then any description. */
static void peer_name(text_span line, openntpd_peer *p)
{
	text_span rest = text_span_trim(line), word;
	if (text_span_word(&rest, &word)) {
		text_span_copy_printable(p->address, sizeof p->address, word);
	}
	text_span_copy_printable(p->description, sizeof p->description, text_span_trim(rest));
}

/* " %1s %2u %2u %2s %4llds %4llds" and its tail: the '*' stands in the
 * second column (the first is the format's space). */
static const char *peer_values(text_span line, openntpd_peer *p)
{
	if (line.n < 3 || line.p[0] != ' ' || (line.p[1] != '*' && line.p[1] != ' ')) {
		return "not a peer line";
	}
	p->selected = line.p[1] == '*';
	text_span rest = {line.p + 2, line.n - 2}, w[5];
	for (int i = 0; i < 5; i++) {
		if (!text_span_word(&rest, &w[i])) {
			return "short peer line";
		}
	}
	if (!parse_int(w[0], 0, 255, &p->weight) || !parse_int(w[1], 0, 255, &p->trust_level)) {
		return "bad weight or trust level";
	}
	if (text_span_eq(w[2], "-")) {
		p->stratum = INT_UNKNOWN;
	} else if (!parse_int(w[2], 0, 255, &p->stratum)) {
		return "bad stratum";
	}
	if (!parse_seconds(w[3], &p->next_s) || !parse_seconds(w[4], &p->poll_s)) {
		return "bad next or poll";
	}
	rest = text_span_trim(rest);
	if (text_span_eq(rest, "---- peer not valid ----")) {
		p->valid = false;
		return NULL;
	}
	text_span v[3];
	for (int i = 0; i < 3; i++) {
		if (!text_span_word(&rest, &v[i])) {
			return "short peer values";
		}
	}
	double off;
	if (text_span_trim(rest).n != 0 || !parse_ms(v[0], true, &off) || !parse_ms(v[1], false, &p->delay_s) ||
	    !parse_ms(v[2], false, &p->jitter_s)) {
		return "bad offset, delay or jitter";
	}
	p->offset_s = -off;
	p->valid = true;
	return NULL;
}

/* " %1s %2u %2u %2u %4llds %4llds" then the offset and correction or
 * "- sensor not valid -": only the '*' is kept. */
static const char *sensor_values(text_span line, openntpd_obs *dst)
{
	if (line.n < 3 || line.p[0] != ' ' || (line.p[1] != '*' && line.p[1] != ' ')) {
		return "not a sensor line";
	}
	text_span rest = {line.p + 2, line.n - 2}, w;
	int k = 0;
	while (text_span_word(&rest, &w)) {
		k++;
	}
	if (k < 5) {
		return "short sensor line";
	}
	dst->sensor_selected = dst->sensor_selected || line.p[1] == '*';
	return NULL;
}

/* ---------------------------------------------------------------- parse */

typedef enum {
	IN_STATUS,      /* before any block */
	PEER_HEADER,    /* "peer" seen: the column header next */
	PEER_NAME,      /* a peer's name line next (or a blank, or "sensor") */
	PEER_VALUES,    /* its values next */
	SENSOR_HEADER,
	SENSOR_NAME,
	SENSOR_VALUES,
} where;

void ntpctl_parse(const tool_output *out, openntpd_obs *dst)
{
	openntpd_obs_init(dst);
	if (out->rc != 0) {
		classify_failure(out, dst);
		return;
	}
	text_span rest = {out->out, out->out ? out->out_len : 0}, line;
	bool terminated = true, any = false, status = false;
	where at = IN_STATUS;
	openntpd_peer *peer = NULL, spare;
	while (text_span_next_line(&rest, &line, &terminated)) {
		const char *why = NULL;
		text_span l = text_span_trim(line);
		if (l.n == 0 && at != PEER_VALUES && at != SENSOR_VALUES) {
			continue;
		}
		any = true;
		if (at != PEER_VALUES && at != SENSOR_VALUES && at != PEER_HEADER && at != SENSOR_HEADER) {
			if (text_span_eq(l, "peer")) {
				at = PEER_HEADER;
				continue;
			}
			if (text_span_eq(l, "sensor")) {
				at = SENSOR_HEADER;
				continue;
			}
			if (text_span_eq(l, "no peers configured") || text_span_eq(l, "no sensors configured")) {
				continue;
			}
		}
		switch (at) {
		case IN_STATUS:
			why = status_line(l, dst);
			status = status || !why;
			break;
		case PEER_HEADER:
			why = text_span_starts(l, "wt tl st") ? NULL : "not the peer header";
			at = PEER_NAME;
			break;
		case PEER_NAME:
			peer = dst->n_peers < OPENNTPD_MAX_PEERS ? &dst->peers[dst->n_peers] : &spare;
			memset(peer, 0, sizeof *peer);
			peer->stratum = INT_UNKNOWN;
			peer->offset_s = peer->delay_s = peer->jitter_s = NAN;
			peer_name(line, peer);
			at = PEER_VALUES;
			break;
		case PEER_VALUES:
			why = peer_values(line, peer);
			if (!why) {
				dst->n_peers_total++;
				dst->n_peers += peer != &spare;
			}
			at = PEER_NAME;
			break;
		case SENSOR_HEADER:
			why = text_span_starts(l, "wt gd st") ? NULL : "not the sensor header";
			at = SENSOR_NAME;
			break;
		case SENSOR_NAME:
			at = SENSOR_VALUES;
			break;
		case SENSOR_VALUES:
			why = sensor_values(line, dst);
			dst->n_sensors += !why;
			at = SENSOR_NAME;
			break;
		}
		if (why) {
			fail(dst, OBS_GARBAGE, why, l);
			return;
		}
	}
	if (!any) {
		/* the collector's function prints nothing where no ntpd runs or
		 * ntpctl is not installed */
		dst->state = OBS_NOT_COLLECTED;
		snprintf(dst->error, sizeof dst->error, "no openntpd (ntpctl) on the node");
		return;
	}
	if (!terminated || at == PEER_VALUES || at == SENSOR_VALUES || at == PEER_HEADER || at == SENSOR_HEADER) {
		fail(dst, OBS_TRUNCATED, "ntpctl output ends mid-record", line);
		return;
	}
	if (!status && dst->n_peers_total == 0 && dst->n_sensors == 0) {
		fail(dst, OBS_GARBAGE, "no status line and no peers", line);
		return;
	}
	dst->state = OBS_OK;
}
