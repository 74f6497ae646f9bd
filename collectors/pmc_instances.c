/* pmc_instances.c - split the pmc section into its ptp4l instances
 * (framing in pmc_instances.h) and choose the one that speaks for the node.
 *
 * Rules: the section is framed only when it starts with the instance line;
 * then every byte belongs to a frame.  Header lines come right after the
 * instance line, in any order; an unknown "synctop-ptp4l" line there ends
 * the header (and is taken as pmc output, which it cannot be: pmc prints
 * "sending:" lines and tab-led blocks only, so pmc_parse rejects it).  A
 * path too long for PTP_PATH_LEN is left "" and said in the error, never
 * cut into another path.  A frame without its stderr or rc line, or whose
 * last line lacks its newline, was cut off: OBS_TRUNCATED. */
#include <config.h>

#include "pmc_instances.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "health_rule.h"
#include "pmc_parse.h"

#define TAG PMC_INSTANCE_TAG
#define TAG_LEN (sizeof TAG - 1)

typedef struct {
	const char *p;
	size_t n;
} span;

/* The line at *pos (without its '\n'); false at the end.  *cut is set
 * when the line has no '\n'. */
static bool next_line(const char *text, size_t len, size_t *pos, span *line, bool *cut)
{
	if (*pos >= len) {
		return false;
	}
	const char *start = text + *pos;
	const char *nl = memchr(start, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - start) : len - *pos;
	*line = (span){start, n};
	*cut = nl == NULL;
	*pos += n + (nl ? 1 : 0);
	return true;
}

/* The value of "synctop-ptp4l <key> <value>", or false. */
static bool tagged(span line, const char *key, span *value)
{
	size_t k = strlen(key);
	if (line.n < TAG_LEN + k || memcmp(line.p, TAG, TAG_LEN) != 0 || memcmp(line.p + TAG_LEN, key, k) != 0) {
		return false;
	}
	span rest = {line.p + TAG_LEN + k, line.n - TAG_LEN - k};
	if (rest.n == 0) {
		*value = rest;
		return true;
	}
	if (rest.p[0] != ' ') {
		return false;
	}
	*value = (span){rest.p + 1, rest.n - 1};
	return true;
}

static bool is_line(span line, const char *text)
{
	return line.n == strlen(text) && memcmp(line.p, text, line.n) == 0;
}

/* A path into dst when it fits with its NUL and holds no NUL; else "". */
static bool copy_path(char *dst, size_t cap, span v)
{
	dst[0] = '\0';
	if (v.n == 0 || v.n >= cap || memchr(v.p, '\0', v.n)) {
		return false;
	}
	memcpy(dst, v.p, v.n);
	dst[v.n] = '\0';
	return true;
}

static void instance_init(ptp_instance *inst)
{
	memset(inst, 0, sizeof *inst);
	ptp_obs_init(&inst->ptp);
}

/* Nothing of the frame is trusted, its config error neither. */
static void fail(ptp_instance *inst, obs_state state, const char *why)
{
	inst->config_error[0] = '\0';
	ptp_obs_init(&inst->ptp);
	inst->ptp.state = state;
	snprintf(inst->ptp.error, sizeof inst->ptp.error, "%s", why);
}

/* The first line at or after from that is "synctop-ptp4l <key>..." and
 * starts a line; its offset, or len. */
static size_t find_tag_line(const char *text, size_t len, size_t from, const char *key)
{
	char needle[64];
	int k = snprintf(needle, sizeof needle, "\n%s%s", TAG, key);
	size_t n = (size_t)k;
	if (from < len && (from == 0 || text[from - 1] == '\n') && len - from >= n - 1 &&
	    memcmp(text + from, needle + 1, n - 1) == 0) {
		return from;
	}
	for (size_t i = from; i + n <= len; i++) {
		if (text[i] == '\n' && memcmp(text + i, needle, n) == 0) {
			return i + 1;
		}
	}
	return len;
}

/* Reads "<digits>" (an exit status) into *rc; false otherwise. */
static bool parse_rc(span v, int *rc)
{
	if (v.n == 0 || v.n > 3) {
		return false;
	}
	int r = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9') {
			return false;
		}
		r = r * 10 + (v.p[i] - '0');
	}
	*rc = r;
	return r <= 255;
}

/* src with every byte outside printable ASCII as '?', cut to fit. */
static void printable(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] != '\0' && i + 1 < cap; i++) {
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	}
	dst[i] = '\0';
}

/* One frame from *pos (just after its instance line) into inst; *pos ends
 * after it. */
static void parse_frame(const char *text, size_t len, size_t *pos, ptp_instance *inst)
{
	bool bad_path = false, config_failed = false;
	span line, v;
	bool cut = false;
	size_t at = *pos;
	while (next_line(text, len, &at, &line, &cut)) {
		if (cut) {
			*pos = len;
			fail(inst, OBS_TRUNCATED, "pmc output ends in the middle of a line: the answer was cut off");
			return;
		}
		if (tagged(line, "config-error", &v)) {
			config_failed = true;
			snprintf(inst->config_error, sizeof inst->config_error, "%.*s", (int)v.n, v.p);
			if (!inst->config_error[0]) {
				snprintf(inst->config_error, sizeof inst->config_error, "cannot be read");
			}
		} else if (tagged(line, "config", &v)) {
			bad_path |= !copy_path(inst->config, sizeof inst->config, v);
		} else if (tagged(line, "socket", &v)) {
			bad_path |= !copy_path(inst->socket, sizeof inst->socket, v);
		} else {
			break;
		}
		*pos = at;
	}
	if (config_failed) {
		/* pmc did not run: nothing of this instance follows */
		ptp_obs_init(&inst->ptp);
		inst->ptp.state = OBS_NOT_COLLECTED;
		/* error is shown as it is: remote text in printable ASCII only */
		char cfg[HEALTH_NAME_LEN], why[HEALTH_NAME_LEN];
		printable(cfg, sizeof cfg, inst->config);
		printable(why, sizeof why, inst->config_error);
		snprintf(inst->ptp.error, sizeof inst->ptp.error, "ptp4l's config %.63s cannot be read: %.60s",
			 cfg[0] ? cfg : "(unnamed)", why);
		return;
	}
	size_t body = *pos;
	size_t err_line = find_tag_line(text, len, body, "stderr\n");
	if (err_line >= len) {
		*pos = len;
		fail(inst, OBS_TRUNCATED, "the answer of this ptp4l was cut off (no end of its pmc output)");
		return;
	}
	size_t err_start = err_line + TAG_LEN + strlen("stderr\n");
	/* the rc line starts with the newline after stderr's last line */
	size_t rc_line = len;
	if (err_start > 0) {
		rc_line = find_tag_line(text, len, err_start, "rc ");
		if (rc_line < len && rc_line == err_start) {
			rc_line = len; /* stderr cannot be empty and unterminated at once */
		}
	}
	size_t after = rc_line;
	int rc = -1;
	bool rc_ok = false;
	if (rc_line < len) {
		bool rc_cut = false;
		span rl;
		next_line(text, len, &after, &rl, &rc_cut);
		rc_ok = !rc_cut && tagged(rl, "rc", &v) && parse_rc(v, &rc);
	}
	if (!rc_ok) {
		*pos = rc_line < len ? after : len;
		fail(inst, OBS_TRUNCATED, "the answer of this ptp4l was cut off (no exit status of its pmc)");
		return;
	}
	*pos = after;
	tool_output one = {
		.out = text + body,
		.out_len = err_line - body,
		.err = text + err_start,
		.err_len = rc_line - 1 - err_start,
		.rc = rc,
	};
	pmc_parse(&one, &inst->ptp);
	if (bad_path) {
		fail(inst, OBS_GARBAGE, "a ptp4l config or socket path that is empty or too long");
	}
}

int pmc_instances_parse(const tool_output *out, ptp_instance *list, int max, int *more)
{
	*more = 0;
	const char *text = out->out ? out->out : "";
	size_t len = out->out ? out->out_len : 0;
	static const char start[] = TAG "instance\n";
	if (len < sizeof start - 1 || memcmp(text, start, sizeof start - 1) != 0) {
		return 0;
	}
	int n = 0;
	size_t pos = 0;
	ptp_instance spare; /* frames past max are parsed into it and counted */
	instance_init(&spare);
	while (pos < len) {
		span line;
		bool cut = false;
		size_t at = pos;
		next_line(text, len, &at, &line, &cut);
		if (cut || !is_line(line, TAG "instance")) {
			/* bytes between frames: none are ever printed there */
			if (n > 0) {
				fail(&list[n - 1], OBS_GARBAGE, "unexpected text after a ptp4l's answer");
			}
			break;
		}
		pos = at;
		ptp_instance *inst = n < max ? &list[n] : &spare;
		instance_init(inst);
		parse_frame(text, len, &pos, inst);
		if (n < max) {
			n++;
		} else {
			(*more)++;
		}
	}
	return n;
}

int pmc_instances_primary(const ptp_instance *list, int n)
{
	for (int i = 0; i < n; i++) {
		if (ptp_locked_port(&list[i].ptp)) {
			return i;
		}
	}
	for (int i = 0; i < n; i++) {
		if (ptp_following_port(&list[i].ptp)) {
			return i;
		}
	}
	for (int i = 0; i < n; i++) {
		if (list[i].ptp.state == OBS_OK) {
			return i;
		}
	}
	return 0;
}

const char *pmc_instance_label(const ptp_instance *inst, char *buf, size_t len)
{
	char path[HEALTH_NAME_LEN];
	if (inst->socket[0]) {
		health_clean(path, sizeof path, inst->socket, sizeof inst->socket);
		snprintf(buf, len, "socket %s", path);
	} else if (inst->config[0] && inst->config_error[0]) {
		health_clean(path, sizeof path, inst->config, sizeof inst->config);
		snprintf(buf, len, "config %s", path);
	} else {
		snprintf(buf, len, "pmc's default socket");
	}
	return buf;
}
