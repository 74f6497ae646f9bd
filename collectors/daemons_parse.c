/* daemons_parse.c - time daemons running on a node, from ps output.
 *
 * The daemons collector's function prints `ps -e -o comm=` (one command name
 * a line) and, when phc2sys is among them, `ps -C phc2sys -o comm=,args=`
 * (procps pads comm to 15 columns, then the command line): those lines
 * start with phc2sys and go on with its arguments. */
#include <config.h>

#include "daemons_parse.h"

#include <stdio.h>
#include <string.h>

#include "text_span.h"

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
		text_span line = {out->out + start, end - start}, comm;
		unsigned bit = daemon_bit(line.p, line.n);
		if (bit == 0 && text_span_word(&line, &comm) && text_span_eq(comm, "phc2sys")) {
			/* a `comm args` line: phc2sys's command line */
			bit = DAEMON_PHC2SYS;
			if (dst->n_phc2sys < DAEMONS_MAX_PHC2SYS) {
				text_span args = text_span_trim(line);
				text_span_copy_printable(dst->phc2sys_cmdline[dst->n_phc2sys],
							 sizeof dst->phc2sys_cmdline[0], args);
				daemons_parse_phc2sys_args(args, &dst->phc2sys[dst->n_phc2sys]);
				dst->n_phc2sys++;
			}
		}
		dst->running |= bit;
		i++;
	}
	dst->state = OBS_OK;
}

/* Options of phc2sys that take a value: getopt's string in phc2sys.c main()
 * ("arc:d:f:s:E:...:l:t:mqvh" in 3.1.1; 4.x adds C:). */
static bool takes_value(char opt)
{
	return opt != '\0' && strchr("CcdfsEPISFRNOLMiunzlt", opt) != NULL;
}

static void copy_value(char *dst, size_t cap, text_span v)
{
	text_span_copy_printable(dst, cap, v);
}

static void apply_option(phc2sys_args *a, char opt, text_span value)
{
	switch (opt) {
	case 'a': a->automatic = true; break;
	case 'r': a->realtime++; break;
	case 'i': /* 3.1: "'-i' has been deprecated. please use '-s' instead." */
	case 's': copy_value(a->source, sizeof a->source, value); break;
	case 'c': copy_value(a->sink, sizeof a->sink, value); break;
	case 'E': a->ntpshm = text_span_eq(value, "ntpshm"); break;
	case 'f': a->config_file = true; break;
	default: break;
	}
}

void daemons_parse_phc2sys_args(text_span args, phc2sys_args *dst)
{
	memset(dst, 0, sizeof *dst);
	text_span word;
	if (!text_span_word(&args, &word)) {
		return; /* argv[0] */
	}
	while (text_span_word(&args, &word)) {
		if (text_span_starts(word, "--")) {
			/* a config option (`--step_threshold=1` or `--step_threshold 1`) */
			if (word.n > 2 && !memchr(word.p, '=', word.n)) {
				text_span_word(&args, &word);
			}
			continue;
		}
		if (word.n < 2 || word.p[0] != '-') {
			continue; /* an operand: phc2sys takes none */
		}
		/* getopt: flags may be grouped (-rr, -ar); a value follows its
		 * letter directly (-seth0) or as the next word */
		for (size_t k = 1; k < word.n; k++) {
			char opt = word.p[k];
			if (takes_value(opt)) {
				text_span value = {word.p + k + 1, word.n - k - 1};
				if (value.n == 0 && !text_span_word(&args, &value)) {
					value = (text_span){"", 0};
				}
				apply_option(dst, opt, value);
				break;
			}
			apply_option(dst, opt, (text_span){"", 0});
		}
	}
}
