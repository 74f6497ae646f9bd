/* phc_ctl_parse.c - the PHC against the system clock, from linuxptp's
 * phc_ctl (phc_ctl_parse.h).
 *
 * What phc_ctl prints, from linuxptp's source (print.c prefixes every
 * message with "phc_ctl[MONOTONIC]: "; notices go to stdout, errors to
 * stderr; the "\n" in the formats adds a blank line):
 *   phc_ctl.c do_get:  "clock time is %lld.%09lu or %s"  (%s is ctime())
 *   phc_ctl.c do_cmp:  "offset from CLOCK_REALTIME is %"PRId64"ns\n"
 *                      (PTP_SYS_OFFSET* ioctls, sysoff.c: CLOCK_REALTIME - PHC)
 *                      "offset from CLOCK_REALTIME is approximately %"PRId64"ns\n"
 *                      (no such ioctl: clock_gettime around a PHC read).  Up
 *                      to 3.1.1 that fallback, calculate_offset(), printed
 *                      PHC - CLOCK_REALTIME, the opposite sign; commit af8d4ed
 *                      ("phc_ctl: replace calculate_offset with
 *                      clockadj_compare"), first in v4.0, made it
 *                      CLOCK_REALTIME - PHC like the ioctls.  The collector
 *                      asks `phc_ctl -v` only in that case.
 *   util.c posix_clock_open: "unknown clock %s: %m", "interface %s does not
 *                      have a PHC", "cannot open %s for %s: %m" (open of
 *                      /dev/ptpN O_RDWR: EACCES without root or write access)
 * Captured from phc_ctl 3.1.1 on this lab VM (no PHC): tests/fixtures/
 * phc_ctl-*.txt, each with a *.source.md. */
#include <config.h>

#include "phc_ctl_parse.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text_span.h"

#define OFFSET_LINE "offset from CLOCK_REALTIME is "
#define APPROX_WORD "approximately "
#define TIME_LINE "clock time is "
#define OWN_PREFIX "synctop: phc_ctl "
#define NOT_RUN "not run: "
#define VERSION_WORD "version "
#define NS_PER_S 1000000000LL
#define OFFSET_MAX_NS 4000000000000000000LL /* beyond it: garbage, and |x| + 37 s cannot overflow */

static void copy_span(char *dst, size_t cap, text_span s)
{
	text_span_copy_printable(dst, cap, s);
}

/* Fails dst with "what" and, when given, "(detail)" after it. */
static void finish(phc_obs *dst, obs_state state, const char *what, const char *detail)
{
	char iface[sizeof dst->interface];
	memcpy(iface, dst->interface, sizeof iface);
	phc_obs_init(dst);
	memcpy(dst->interface, iface, sizeof iface);
	dst->state = state;
	if (detail) {
		snprintf(dst->error, sizeof dst->error, "%s%s%s", what, what[0] ? ": " : "", detail);
	} else {
		snprintf(dst->error, sizeof dst->error, "%s", what);
	}
}

/* "phc_ctl[15788.973]: text" -> "text"; a line without the prefix as it is. */
static text_span strip_prefix(text_span line)
{
	for (size_t i = 0; i + 2 < line.n && line.p[i] != ' '; i++) {
		if (line.p[i] == ']' && line.p[i + 1] == ':' && line.p[i + 2] == ' ') {
			return text_span_trim((text_span){line.p + i + 3, line.n - i - 3});
		}
	}
	return text_span_trim(line);
}

/* Strict integer: optional '-', 1..19 digits, within +-limit. */
static bool parse_int64(text_span s, bool sign, int64_t limit, int64_t *out)
{
	bool neg = false;
	size_t i = 0;
	if (sign && s.n > 0 && s.p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == s.n || s.n - i > 19) {
		return false;
	}
	uint64_t v = 0;
	for (; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9') {
			return false;
		}
		v = v * 10 + (uint64_t)(s.p[i] - '0');
	}
	if (v > (uint64_t)limit) {
		return false;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* "-37000000008ns" */
static bool parse_offset(text_span s, int64_t *out)
{
	if (s.n < 3 || s.p[s.n - 2] != 'n' || s.p[s.n - 1] != 's') {
		return false;
	}
	return parse_int64((text_span){s.p, s.n - 2}, true, OFFSET_MAX_NS, out);
}

/* "1796301454.867659042 or Thu Dec  3 12:37:34 2026" */
static bool parse_time(text_span s, int64_t *out)
{
	text_span word;
	text_span rest = s;
	if (!text_span_word(&rest, &word)) {
		return false;
	}
	const char *dot = memchr(word.p, '.', word.n);
	if (!dot) {
		return false;
	}
	text_span sec = {word.p, (size_t)(dot - word.p)};
	text_span frac = {dot + 1, word.n - sec.n - 1};
	int64_t secs, ns;
	if (frac.n != 9 || !parse_int64(sec, true, INT64_MAX / NS_PER_S - 1, &secs) ||
	    !parse_int64(frac, false, NS_PER_S - 1, &ns)) {
		return false;
	}
	*out = secs < 0 ? secs * NS_PER_S - ns : secs * NS_PER_S + ns;
	return true;
}

int phc_ctl_version_major(const char *version)
{
	const char *p = version;
	if (*p == 'v') {
		p++;
	}
	int major = 0, digits = 0;
	while (*p >= '0' && *p <= '9' && digits < 4) {
		major = major * 10 + (*p - '0');
		p++;
		digits++;
	}
	return digits > 0 && (*p == '\0' || *p == '.' || *p == '-') ? major : -1;
}

/* The first line of err holding needle, without phc_ctl's prefix. */
static bool err_line(const tool_output *out, const char *needle, text_span *found)
{
	text_span rest = {out->err ? out->err : "", out->err ? out->err_len : 0}, line;
	bool terminated;
	while (text_span_next_line(&rest, &line, &terminated)) {
		text_span l = strip_prefix(line);
		if (l.n > 0 && (!needle || text_span_contains(l, needle))) {
			*found = l;
			return true;
		}
	}
	return false;
}

/* phc_ctl gave no offset: say why, from stderr. */
static void explain_failure(const tool_output *out, phc_obs *dst, bool got_time)
{
	char text[112];
	text_span line;
	if (err_line(out, "sudo:", &line)) {
		copy_span(text, sizeof text, line);
		if (text_span_contains(line, "command not found")) {
			finish(dst, OBS_TOOL_MISSING, "phc_ctl not found through sudo", text);
		} else {
			finish(dst, OBS_PERMISSION_DENIED, "sudo -n refused to run phc_ctl", text);
		}
		return;
	}
	if (err_line(out, "Permission denied", &line) || err_line(out, "Operation not permitted", &line)) {
		copy_span(text, sizeof text, line);
		finish(dst, OBS_PERMISSION_DENIED, "phc_ctl needs write access to the PHC", text);
		return;
	}
	if (err_line(out, "does not have a PHC", &line)) {
		copy_span(text, sizeof text, line);
		finish(dst, OBS_NOT_SUPPORTED, "", text);
		return;
	}
	/* "ioctl SIOCETHTOOL failed: No such device" comes first; "unknown
	 * clock IFACE: No such device" names what is missing */
	if ((err_line(out, "unknown clock", &line) && text_span_contains(line, "No such device")) ||
	    err_line(out, "No such device", &line)) {
		copy_span(text, sizeof text, line);
		finish(dst, OBS_NO_DEVICE, "", text);
		return;
	}
	/* the last stderr line is phc_ctl's own reason ("cmp: failed to compare clocks: ...") */
	text_span last = {NULL, 0};
	text_span rest = {out->err ? out->err : "", out->err ? out->err_len : 0};
	bool terminated;
	while (text_span_next_line(&rest, &line, &terminated)) {
		if (strip_prefix(line).n > 0) {
			last = strip_prefix(line);
		}
	}
	if (last.n > 0) {
		copy_span(text, sizeof text, last);
		finish(dst, OBS_COMMAND_FAILED, "phc_ctl failed", text);
		return;
	}
	if (out->rc > 0) {
		snprintf(text, sizeof text, "phc_ctl exited with status %d and said nothing", out->rc);
		finish(dst, OBS_COMMAND_FAILED, text, NULL);
		return;
	}
	finish(dst, got_time ? OBS_GARBAGE : OBS_EMPTY,
	       got_time ? "phc_ctl printed the PHC time but no offset" : "phc_ctl printed no offset", NULL);
}

void phc_ctl_parse(const tool_output *out, phc_obs *dst)
{
	phc_obs_init(dst);
	if (out->rc == TOOL_RC_NOT_FOUND) {
		finish(dst, OBS_TOOL_MISSING, "phc_ctl not found (exit 127): install linuxptp", NULL);
		return;
	}
	text_span rest = {out->out ? out->out : "", out->out ? out->out_len : 0}, line;
	if (rest.n > 0 && memchr(rest.p, '\0', rest.n)) {
		finish(dst, OBS_GARBAGE, "unparseable phc_ctl output: it contains NUL bytes", NULL);
		return;
	}
	bool terminated, have_offset = false, have_time = false;
	int64_t printed = 0;
	while (text_span_next_line(&rest, &line, &terminated)) {
		text_span l = text_span_trim(line);
		if (l.n == 0) {
			continue;
		}
		if (!terminated) {
			char text[48];
			copy_span(text, sizeof text, l);
			finish(dst, OBS_TRUNCATED, "phc_ctl output cut off", text);
			return;
		}
		if (text_span_starts(l, OWN_PREFIX)) {
			text_span what = {l.p + strlen(OWN_PREFIX), l.n - strlen(OWN_PREFIX)};
			if (text_span_starts(what, NOT_RUN)) {
				char why[OBS_ERROR_LEN - 24];
				copy_span(why, sizeof why, (text_span){what.p + strlen(NOT_RUN), what.n - strlen(NOT_RUN)});
				finish(dst, OBS_NOT_COLLECTED, "phc_ctl not run", why);
				return;
			}
			if (text_span_starts(what, VERSION_WORD)) {
				copy_span(dst->version, sizeof dst->version,
					  text_span_trim((text_span){what.p + strlen(VERSION_WORD),
								     what.n - strlen(VERSION_WORD)}));
			} else if (what.n < sizeof dst->interface && !text_span_contains(what, " ")) {
				copy_span(dst->interface, sizeof dst->interface, what);
			}
			continue;
		}
		text_span msg = strip_prefix(l);
		if (text_span_starts(msg, OFFSET_LINE)) {
			text_span v = {msg.p + strlen(OFFSET_LINE), msg.n - strlen(OFFSET_LINE)};
			dst->approximate = text_span_starts(v, APPROX_WORD);
			if (dst->approximate) {
				v.p += strlen(APPROX_WORD);
				v.n -= strlen(APPROX_WORD);
			}
			if (!parse_offset(v, &printed)) {
				char text[48];
				copy_span(text, sizeof text, v);
				finish(dst, OBS_GARBAGE, "unparseable phc_ctl offset", text);
				return;
			}
			have_offset = true;
		} else if (text_span_starts(msg, TIME_LINE)) {
			text_span v = {msg.p + strlen(TIME_LINE), msg.n - strlen(TIME_LINE)};
			if (!parse_time(v, &dst->phc_time_ns)) {
				char text[48];
				copy_span(text, sizeof text, v);
				finish(dst, OBS_GARBAGE, "unparseable phc_ctl clock time", text);
				return;
			}
			have_time = true;
		}
		/* other notices (a newer phc_ctl's) carry nothing we use */
	}
	if (!have_offset) {
		explain_failure(out, dst, have_time);
		return;
	}
	if (dst->approximate) {
		int major = phc_ctl_version_major(dst->version);
		if (major < 0) {
			finish(dst, OBS_NOT_SUPPORTED,
			       "phc_ctl printed only an approximate offset and its version is unknown: "
			       "linuxptp < 4.0 inverts its sign", NULL);
			return;
		}
		/* < 4.0: calculate_offset() printed PHC - CLOCK_REALTIME (see the top) */
		dst->realtime_minus_phc_ns = major < 4 ? -printed : printed;
	} else {
		dst->realtime_minus_phc_ns = printed;
	}
	dst->state = OBS_OK;
}
