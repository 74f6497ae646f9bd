/* daemons_parse.c - time daemons running on a node, from ps output. */
#include <config.h>

#include "daemons_parse.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *comm;
	unsigned bit;
} known_daemons[] = {
	{"chronyd", DAEMON_CHRONYD},
	{"ntpd", DAEMON_NTPD},
	{"systemd-timesyncd", DAEMON_TIMESYNCD},
	{"systemd-timesyn", DAEMON_TIMESYNCD}, /* comm is cut at 15 characters */
	{"ptp4l", DAEMON_PTP4L},
	{"phc2sys", DAEMON_PHC2SYS},
};

static unsigned daemon_bit(const char *word, size_t len)
{
	for (size_t i = 0; i < sizeof known_daemons / sizeof known_daemons[0]; i++) {
		if (strlen(known_daemons[i].comm) == len && memcmp(known_daemons[i].comm, word, len) == 0) {
			return known_daemons[i].bit;
		}
	}
	return 0;
}

void daemons_parse(const tool_output *out, daemons_obs *dst)
{
	memset(dst, 0, sizeof *dst);
	if (out->rc == TOOL_RC_NOT_FOUND) {
		dst->state = OBS_TOOL_MISSING;
		snprintf(dst->error, sizeof dst->error, "ps is not installed: running daemons unknown");
		return;
	}
	if (out->rc != 0 && out->rc != -1) {
		dst->state = OBS_COMMAND_FAILED;
		snprintf(dst->error, sizeof dst->error, "ps exited with status %d", out->rc);
		return;
	}
	if (out->out_len == 0) {
		dst->state = OBS_EMPTY;
		snprintf(dst->error, sizeof dst->error, "ps printed nothing");
		return;
	}
	size_t i = 0;
	while (i < out->out_len) {
		/* one command name per line, possibly indented */
		while (i < out->out_len && (out->out[i] == ' ' || out->out[i] == '\t')) {
			i++;
		}
		size_t start = i;
		while (i < out->out_len && out->out[i] != '\n') {
			i++;
		}
		size_t end = i;
		while (end > start && (out->out[end - 1] == ' ' || out->out[end - 1] == '\r')) {
			end--;
		}
		dst->running |= daemon_bit(out->out + start, end - start);
		i++;
	}
	dst->state = OBS_OK;
}
