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

typedef struct {
	const char *p;
	size_t len;
} span;

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

static span trim(span s)
{
	while (s.len > 0 && is_blank(s.p[0])) {
		s.p++;
		s.len--;
	}
	while (s.len > 0 && is_blank(s.p[s.len - 1])) {
		s.len--;
	}
	return s;
}

static bool span_eq(span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len == n && memcmp(s.p, lit, n) == 0;
}

/* If s starts with prefix, return the rest in *rest. */
static bool span_prefix(span s, const char *prefix, span *rest)
{
	size_t n = strlen(prefix);
	if (s.len < n || memcmp(s.p, prefix, n) != 0) {
		return false;
	}
	rest->p = s.p + n;
	rest->len = s.len - n;
	return true;
}

static span first_word(span s)
{
	span w = {s.p, 0};
	while (w.len < s.len && !is_blank(s.p[w.len])) {
		w.len++;
	}
	return w;
}

/* A list item is one word, optionally followed by "(CONSTANT)". */
static bool is_single_item(span line)
{
	span w = first_word(line);
	span rest = trim((span){line.p + w.len, line.len - w.len});
	return w.len > 0 && (rest.len == 0 || rest.p[0] == '(');
}

/* Copy remote text for display: bounded, NUL-terminated, control and
 * non-ASCII bytes replaced so nothing odd ever reaches a terminal. */
static void copy_clean(char *dst, size_t cap, span s)
{
	size_t n = s.len < cap - 1 ? s.len : cap - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[n] = '\0';
}

/* Mode names are short tokens ("off", "ptpv2-l4-event", "bit12"); anything
 * else is not something ethtool prints and is left out. */
static bool is_mode_token(span w)
{
	if (w.len == 0 || w.len > 40) {
		return false;
	}
	for (size_t i = 0; i < w.len; i++) {
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
static void list_append(char *dst, size_t cap, span w)
{
	if (!is_mode_token(w)) {
		return;
	}
	size_t used = strlen(dst);
	size_t need = w.len + (used > 0 ? 1 : 0);
	if (used + need + 1 > cap) {
		return;
	}
	if (used > 0) {
		dst[used++] = ' ';
	}
	memcpy(dst + used, w.p, w.len);
	dst[used + w.len] = '\0';
}

/* Parse "N", "-N" or "none".  Returns false for anything else. */
static bool parse_phc(span v, int *phc)
{
	v = trim(v);
	if (span_eq(v, "none")) {
		*phc = NIC_PHC_NONE;
		return true;
	}
	bool neg = false;
	size_t i = 0;
	if (v.len > 0 && v.p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= v.len) {
		return false;
	}
	long val = 0;
	for (; i < v.len; i++) {
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

static bool add_capability(nic_obs *dst, span w)
{
	for (size_t i = 0; i < sizeof caps_table / sizeof caps_table[0]; i++) {
		if (span_eq(w, caps_table[i].label) || span_eq(w, caps_table[i].constant)) {
			dst->caps |= caps_table[i].bit;
			return true;
		}
	}
	return false;
}

/* A "Modes:" header: either "none" on the same line or a list below. */
static list_kind mode_header(span rest, char *list, size_t cap, list_kind kind)
{
	rest = trim(rest);
	list[0] = '\0';
	if (rest.len == 0) {
		return kind;
	}
	if (!span_eq(rest, "none")) {
		list_append(list, cap, first_word(rest));
	}
	return LIST_NONE;
}

/* First line of stderr, for the error message. */
static span first_line(const char *p, size_t len)
{
	span s = {p, 0};
	while (s.len < len && p[s.len] != '\n') {
		s.len++;
	}
	return trim(s);
}

static bool contains(const char *p, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0 || n > len) {
		return n == 0;
	}
	for (size_t i = 0; i + n <= len; i++) {
		if (p[i] == needle[0] && memcmp(p + i, needle, n) == 0) {
			return true;
		}
	}
	return false;
}

static void set_error(nic_obs *dst, obs_state state, const char *what, span detail)
{
	/* room is left for `what`, so the detail is what gets shortened */
	char clean[OBS_ERROR_LEN - 48];
	copy_clean(clean, sizeof clean, detail);
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
	span line = first_line(err, err_len);
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
		span raw = {out->out + pos, 0};
		while (pos + raw.len < out->out_len && out->out[pos + raw.len] != '\n') {
			raw.len++;
		}
		pos += raw.len + 1;

		bool indented = raw.len > 0 && (raw.p[0] == ' ' || raw.p[0] == '\t');
		span line = trim(raw);
		span rest;
		if (line.len == 0) {
			continue;
		}

		if (!indented && span_prefix(line, "Time stamping parameters for ", &rest)) {
			if (header) {
				break; /* a second device's block: never mix two NICs */
			}
			if (rest.len > 0 && rest.p[rest.len - 1] == ':') {
				rest.len--;
			}
			copy_clean(dst->interface, sizeof dst->interface, trim(rest));
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
