/* ethtool_parse.c - pure parser for `ethtool -T IFACE` output.
 *
 * ethtool has no machine format for -T (`--json -T` is rejected by 6.1 and
 * 6.14), so the text is read by field name, line by line:
 *
 *   Time stamping parameters for eth0:
 *   Capabilities:
 *   	hardware-transmit     (SOF_TIMESTAMPING_TX_HARDWARE)   <- ioctl era
 *   	software-receive                                       <- netlink era
 *   PTP Hardware Clock: 0 | none                              <- ethtool <= 6.x
 *   Hardware timestamp provider index: 0                      <- newer kernels
 *   Hardware timestamp provider qualifier: Precise (IEEE 1588 quality)
 *   Hardware Transmit Timestamp Modes: none | (indented list)
 *   Hardware Receive Filter Modes: none | (indented list)
 *   Statistics: (indented "name: value" lines, ignored)
 *
 * Lists are indented with a tab by ethtool; copies in documentation often use
 * spaces or lose the indentation, so a known item name is also accepted at
 * column 0 while its list is open.  Unknown lines and unknown capability
 * names are skipped (ethtool prints "bitN" for names it does not know).
 */
#include <config.h>

#include "ethtool_parse.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "text_span.h"

typedef enum {
	LIST_NONE,
	LIST_CAPS,
	LIST_TX,
	LIST_RX,
	LIST_IGNORED, /* Statistics: or a block we do not know */
} list_kind;

/* Both spellings ethtool has used for each capability bit. */
static const struct {
	const char *label;
	const char *constant;
	unsigned bit;
} caps_table[] = {
	{"hardware-transmit", "SOF_TIMESTAMPING_TX_HARDWARE", NIC_CAP_HW_TX},
	{"hardware-receive", "SOF_TIMESTAMPING_RX_HARDWARE", NIC_CAP_HW_RX},
	{"hardware-raw-clock", "SOF_TIMESTAMPING_RAW_HARDWARE", NIC_CAP_HW_RAW_CLOCK},
	{"software-transmit", "SOF_TIMESTAMPING_TX_SOFTWARE", NIC_CAP_SW_TX},
	{"software-receive", "SOF_TIMESTAMPING_RX_SOFTWARE", NIC_CAP_SW_RX},
	{"software-system-clock", "SOF_TIMESTAMPING_SOFTWARE", NIC_CAP_SW_SYSTEM_CLOCK},
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* If s starts with prefix, return the rest in *rest. */
static bool span_prefix(text_span s, const char *prefix, text_span *rest)
{
	size_t n = strlen(prefix);
	if (!text_span_starts(s, prefix)) {
		return false;
	}
	rest->p = s.p + n;
	rest->n = s.n - n;
	return true;
}

static text_span first_word(text_span s)
{
	text_span w = {s.p, 0};
	while (w.n < s.n && !is_blank(s.p[w.n])) {
		w.n++;
	}
	return w;
}

/* A list item is one word, optionally followed by "(CONSTANT)". */
static bool is_single_item(text_span line)
{
	text_span w = first_word(line);
	text_span rest = text_span_trim_space((text_span){line.p + w.n, line.n - w.n});
	return w.n > 0 && (rest.n == 0 || rest.p[0] == '(');
}

/* Mode names are short tokens ("off", "ptpv2-l4-event", "bit12"); anything
 * else is not something ethtool prints and is left out. */
static bool is_mode_token(text_span w)
{
	if (w.n == 0 || w.n > 40) {
		return false;
	}
	for (size_t i = 0; i < w.n; i++) {
		char c = w.p[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '-' || c == '_';
		if (!ok) {
			return false;
		}
	}
	return true;
}

/* Append a whole word, space separated; a word that does not fit is dropped
 * rather than cut, so the list never shows a half name. */
static void list_append(char *dst, size_t cap, text_span w)
{
	if (!is_mode_token(w)) {
		return;
	}
	size_t used = strlen(dst);
	size_t need = w.n + (used > 0 ? 1 : 0);
	if (used + need + 1 > cap) {
		return;
	}
	if (used > 0) {
		dst[used++] = ' ';
	}
	memcpy(dst + used, w.p, w.n);
	dst[used + w.n] = '\0';
}

/* Parse "N", "-N" or "none".  Returns false for anything else. */
static bool parse_phc(text_span v, int *phc)
{
	v = text_span_trim_space(v);
	if (text_span_eq(v, "none")) {
		*phc = NIC_PHC_NONE;
		return true;
	}
	bool neg = false;
	size_t i = 0;
	if (v.n > 0 && v.p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= v.n) {
		return false;
	}
	long val = 0;
	for (; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9') {
			return false;
		}
		val = val * 10 + (v.p[i] - '0');
		if (val > INT_MAX) {
			return false;
		}
	}
	/* the kernel's "no clock" is -1; ethtool normally turns it into "none" */
	*phc = neg ? NIC_PHC_NONE : (int)val;
	return true;
}

static bool add_capability(nic_obs *dst, text_span w)
{
	for (size_t i = 0; i < sizeof caps_table / sizeof caps_table[0]; i++) {
		if (text_span_eq(w, caps_table[i].label) || text_span_eq(w, caps_table[i].constant)) {
			dst->caps |= caps_table[i].bit;
			return true;
		}
	}
	return false;
}

/* A "Modes:" header: either "none" on the same line or a list below. */
static list_kind mode_header(text_span rest, char *list, size_t cap, list_kind kind)
{
	rest = text_span_trim_space(rest);
	list[0] = '\0';
	if (rest.n == 0) {
		return kind;
	}
	if (!text_span_eq(rest, "none")) {
		list_append(list, cap, first_word(rest));
	}
	return LIST_NONE;
}

/* First line of stderr, for the error message. */
static text_span first_line(const char *p, size_t len)
{
	text_span s = {p, 0};
	while (s.n < len && p[s.n] != '\n') {
		s.n++;
	}
	return text_span_trim_space(s);
}

static bool contains(const char *p, size_t len, const char *needle)
{
	return text_span_contains((text_span){p, p ? len : 0}, needle);
}

static void set_error(nic_obs *dst, obs_state state, const char *what, text_span detail)
{
	/* room is left for `what`, so the detail is what gets shortened */
	char clean[OBS_ERROR_LEN - 48];
	text_span_copy_printable(clean, sizeof clean, detail);
	dst->state = state;
	if (clean[0] != '\0') {
		snprintf(dst->error, sizeof dst->error, "%s: %s", what, clean);
	} else {
		snprintf(dst->error, sizeof dst->error, "%s", what);
	}
}

static bool only_blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!is_blank(p[i]) && p[i] != '\n') {
			return false;
		}
	}
	return true;
}

/* Errors are decided from the exit status and stderr before stdout is read:
 * the ioctl code path prints the "Time stamping parameters" header *before*
 * it fails, so a header alone proves nothing. */
static bool classify_failure(const tool_output *out, nic_obs *dst)
{
	const char *err = out->err ? out->err : "";
	size_t err_len = out->err ? out->err_len : 0;
	text_span line = first_line(err, err_len);
	bool no_stdout = out->out == NULL || only_blank(out->out, out->out_len);

	if (out->rc == TOOL_RC_NOT_FOUND) {
		set_error(dst, OBS_TOOL_MISSING, "ethtool not found", line);
		return true;
	}
	bool failed = out->rc != 0 && out->rc != -1;
	if (failed || no_stdout) {
		if (contains(err, err_len, "no device matches name") ||
		    contains(err, err_len, "No such device")) {
			set_error(dst, OBS_NO_DEVICE, "no such interface", line);
			return true;
		}
		if (contains(err, err_len, "Operation not supported")) {
			set_error(dst, OBS_NOT_SUPPORTED, "time stamping info not supported", line);
			return true;
		}
		if (contains(err, err_len, "Operation not permitted") ||
		    contains(err, err_len, "Permission denied")) {
			set_error(dst, OBS_PERMISSION_DENIED, "permission denied", line);
			return true;
		}
	}
	if (failed) {
		char what[32];
		snprintf(what, sizeof what, "ethtool exited %d", out->rc);
		set_error(dst, OBS_COMMAND_FAILED, what, line);
		return true;
	}
	if (no_stdout) {
		set_error(dst, OBS_EMPTY, "ethtool printed nothing", line);
		return true;
	}
	return false;
}

void ethtool_parse(const tool_output *out, nic_obs *dst)
{
	nic_obs_init(dst);
	if (classify_failure(out, dst)) {
		return;
	}

	bool header = false, phc_seen = false, tx_seen = false, rx_seen = false;
	int recognised = 0;
	list_kind list = LIST_NONE;
	size_t pos = 0;

	while (pos < out->out_len) {
		text_span raw = {out->out + pos, 0};
		while (pos + raw.n < out->out_len && out->out[pos + raw.n] != '\n') {
			raw.n++;
		}
		pos += raw.n + 1;

		bool indented = raw.n > 0 && (raw.p[0] == ' ' || raw.p[0] == '\t');
		text_span line = text_span_trim_space(raw);
		text_span rest;
		if (line.n == 0) {
			continue;
		}

		if (!indented && span_prefix(line, "Time stamping parameters for ", &rest)) {
			if (header) {
				break; /* a second device's block: never mix two NICs */
			}
			if (rest.n > 0 && rest.p[rest.n - 1] == ':') {
				rest.n--;
			}
			text_span_copy_printable(dst->interface, sizeof dst->interface, text_span_trim_space(rest));
			header = true;
			list = LIST_NONE;
		} else if (!indented && span_prefix(line, "Capabilities:", &rest)) {
			list = LIST_CAPS;
			recognised++;
		} else if (!indented &&
			   (span_prefix(line, "PTP Hardware Clock:", &rest) ||
			    span_prefix(line, "Hardware timestamp provider index:", &rest))) {
			(void)parse_phc(rest, &dst->phc_index); /* unparsable stays unknown */
			phc_seen = true;
			list = LIST_NONE;
			recognised++;
		} else if (!indented &&
			   span_prefix(line, "Hardware timestamp provider qualifier:", &rest)) {
			list = LIST_NONE; /* "Precise (IEEE 1588 quality)": no field for it yet */
		} else if (!indented &&
			   span_prefix(line, "Hardware Transmit Timestamp Modes:", &rest)) {
			list = mode_header(rest, dst->tx_modes, sizeof dst->tx_modes, LIST_TX);
			tx_seen = true;
			recognised++;
		} else if (!indented &&
			   span_prefix(line, "Hardware Receive Filter Modes:", &rest)) {
			list = mode_header(rest, dst->rx_filters, sizeof dst->rx_filters, LIST_RX);
			rx_seen = true;
			recognised++;
		} else if (list == LIST_CAPS && (indented || is_single_item(line))) {
			add_capability(dst, first_word(line));
		} else if (list == LIST_TX && (indented || is_single_item(line))) {
			list_append(dst->tx_modes, sizeof dst->tx_modes, first_word(line));
		} else if (list == LIST_RX && (indented || is_single_item(line))) {
			list_append(dst->rx_filters, sizeof dst->rx_filters, first_word(line));
		} else if (!indented) {
			/* "Statistics:" or a block a later ethtool adds: skip its items */
			list = LIST_IGNORED;
		}
	}

	if (!header && recognised == 0) {
		set_error(dst, OBS_GARBAGE, "not ethtool -T output",
			  first_line(out->out, out->out_len));
		return;
	}
	if (!phc_seen || !tx_seen || !rx_seen) {
		dst->state = OBS_TRUNCATED;
		snprintf(dst->error, sizeof dst->error,
			 "ethtool -T output ended early (missing %s)",
			 !phc_seen ? "PTP clock line" : !tx_seen ? "transmit modes" : "receive filters");
		return;
	}
	dst->state = OBS_OK;
}


/* ------------------------------------------- one section, several NICs */

#define FRAME_TAG "@@ethtool "

/* Offset of the next line at or after pos that starts with FRAME_TAG (pos
 * itself must be a line start), or len. */
static size_t next_frame(const char *p, size_t len, size_t pos)
{
	size_t tag = sizeof FRAME_TAG - 1;
	while (pos < len) {
		if (len - pos >= tag && memcmp(p + pos, FRAME_TAG, tag) == 0) {
			return pos;
		}
		const char *nl = memchr(p + pos, '\n', len - pos);
		if (nl == NULL) {
			return len;
		}
		pos = (size_t)(nl - p) + 1;
	}
	return len;
}

/* The frame line at pos: its words after the tag, and the offset of the
 * next line. */
static text_span frame_line(const char *p, size_t len, size_t pos, size_t *next)
{
	text_span rest = {p + pos, len - pos}, line;
	bool terminated;
	text_span_next_line(&rest, &line, &terminated);
	*next = (size_t)(rest.p - p);
	size_t tag = sizeof FRAME_TAG - 1;
	return (text_span){line.p + tag, line.n - tag};
}

/* A body between two frames, without the one "\n" the shell added. */
static text_span frame_body(const char *p, size_t from, size_t to)
{
	text_span body = {p + from, to > from ? to - from : 0};
	if (body.n > 0 && p[to - 1] == '\n') {
		body.n--;
	}
	return body;
}

static int frame_rc(text_span words)
{
	double v;
	text_span w;
	if (text_span_word(&words, &w) && text_span_decimal(w, false, 0, 255, &v)) {
		return (int)v;
	}
	return -1;
}

/* The asked name leads a failure's message: with several interfaces the
 * message must say which one failed. */
static void name_failure(nic_obs *nic)
{
	if (nic->state == OBS_OK || nic->interface[0] == '\0') {
		return;
	}
	char was[OBS_ERROR_LEN];
	memcpy(was, nic->error, sizeof was);
	was[sizeof was - 1] = '\0';
	size_t name = strnlen(nic->interface, sizeof nic->interface);
	size_t room = sizeof nic->error - 1;
	size_t used = name + 2 < room ? name + 2 : room;
	memcpy(nic->error, nic->interface, used < name ? used : name);
	if (used == name + 2) {
		memcpy(nic->error + name, ": ", 2);
	}
	size_t rest = strnlen(was, sizeof was);
	if (rest > room - used) {
		rest = room - used;
	}
	memcpy(nic->error + used, was, rest);
	nic->error[used + rest] = '\0';
}

int ethtool_parse_list(const tool_output *out, nic_obs *dst, int max)
{
	if (max <= 0) {
		return 0;
	}
	const char *p = out->out ? out->out : "";
	size_t len = out->out ? out->out_len : 0;
	size_t pos = next_frame(p, len, 0);
	int n = 0;

	while (pos < len && n < max) {
		size_t after;
		text_span words = frame_line(p, len, pos, &after), w;
		if (!text_span_word(&words, &w) || !text_span_eq(w, "iface") ||
		    !text_span_word(&words, &w)) {
			pos = next_frame(p, len, after); /* a stray frame line: skip it */
			continue;
		}
		text_span name = w;
		size_t at = next_frame(p, len, after);
		tool_output one = {NULL, 0, NULL, 0, -1};
		text_span body = frame_body(p, after, at);
		one.out = body.p;
		one.out_len = body.n;
		size_t next = len;
		text_span kind = at < len ? frame_line(p, len, at, &next) : (text_span){"", 0};
		if (text_span_word(&kind, &w) && text_span_eq(w, "stderr")) {
			size_t end = next_frame(p, len, next);
			text_span err = frame_body(p, next, end);
			one.err = err.p;
			one.err_len = err.n;
			at = end;
			kind = at < len ? frame_line(p, len, at, &next) : (text_span){"", 0};
			if (text_span_word(&kind, &w) && text_span_eq(w, "rc")) {
				one.rc = frame_rc(kind);
				at = next_frame(p, len, next);
			}
		}
		ethtool_parse(&one, &dst[n]);
		text_span_copy_printable(dst[n].interface, sizeof dst[n].interface, name);
		name_failure(&dst[n]);
		n++;
		pos = at;
	}
	if (n == 0) {
		/* no frame: one interface's plain `ethtool -T` output */
		ethtool_parse(out, &dst[0]);
		n = 1;
	}
	return n;
}
