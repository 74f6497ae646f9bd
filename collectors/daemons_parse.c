/* daemons_parse.c - time daemons running on a node, from ps output, and
 * their restarts from one poll to the next.
 *
 * The daemons collector's function prints `ps -C DAEMONS -o pid=,etimes=,comm=`
 * ("PID AGE COMM" a line, "::none" when none runs; `ps -e -o comm=` where ps
 * has no etimes) and, when phc2sys is among them, `ps -C phc2sys -o comm=,args=` (procps pads comm to
 * 15 columns, then the command line): those lines start with phc2sys and go
 * on with its arguments. */
#include <config.h>

#include "daemons_parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "container_parse.h"
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

static unsigned daemon_bit(text_span comm)
{
	for (size_t i = 0; i < sizeof known_daemons / sizeof known_daemons[0]; i++) {
		if (text_span_eq(comm, known_daemons[i].comm)) {
			return known_daemons[i].bit;
		}
	}
	return 0;
}

/* A PID (1..2^22, the kernel's PID_MAX_LIMIT) or an age in seconds (up to
 * ~3000 years): digits only, as ps prints them. */
static bool number(text_span w, double max, double *v)
{
	for (size_t i = 0; i < w.n; i++) {
		if (w.p[i] < '0' || w.p[i] > '9') {
			return false;
		}
	}
	return text_span_decimal(w, false, 0, max, v);
}

/* "PID ETIMES COMM": true with the three parts; COMM may hold blanks. */
static bool split_columns(text_span line, int *pid, int64_t *age, text_span *comm)
{
	text_span rest = line, w1, w2;
	double p, a;
	if (!text_span_word(&rest, &w1) || !number(w1, 4194304.0, &p) || p < 1 ||
	    !text_span_word(&rest, &w2) || !number(w2, 1e11, &a)) {
		return false;
	}
	*comm = text_span_trim_space(rest);
	if (comm->n == 0) {
		return false;
	}
	*pid = (int)p;
	*age = (int64_t)a;
	return true;
}

/* What /proc said about one daemon's process: the "::" lines after its
 * "::proc PID" line, each kind gathered as spans of the output (they are
 * consecutive in it). */
typedef struct {
	daemon_place *place;
	text_span cgroup, uid_map;
	bool cap_read, has_sys_time;
} place_lines;

static void extend(text_span *all, text_span line)
{
	if (all->p == NULL) {
		*all = line;
	} else {
		all->n = (size_t)(line.p + line.n - all->p);
	}
}

/* The cgroup (or uid_map) lines of one process were gathered as one span
 * from the first to the last: copies them into buf without the tags
 * between them (a line that does not fit is left out). */
static void untag(text_span all, const char *tag, char *buf, size_t cap, text_span *outp)
{
	size_t at = 0, tl = strlen(tag);
	text_span rest = all, line;
	bool terminated;
	while (text_span_next_line(&rest, &line, &terminated)) {
		if (text_span_starts(line, tag)) {
			line.p += tl;
			line.n -= tl;
		}
		if (at + line.n + 1 >= cap) {
			break;
		}
		memcpy(buf + at, line.p, line.n);
		at += line.n;
		buf[at++] = '\n';
	}
	*outp = (text_span){buf, at};
}

/* CAP_SYS_TIME counts only in the initial user namespace: a rootless
 * container's root holds every capability over its own namespace, none
 * over the clock (user_namespaces(7)). */
static void settle_place(const place_lines *pl)
{
	daemon_place *p = pl->place;
	if (!p) {
		return;
	}
	char cg[4096], um[512];
	text_span cgroup = {"", 0}, uid_map = {"", 0};
	if (pl->cgroup.p) {
		untag(pl->cgroup, "::cg ", cg, sizeof cg, &cgroup);
	}
	if (pl->uid_map.p) {
		untag(pl->uid_map, "::uid ", um, sizeof um, &uid_map);
	}
	container_classify(cgroup, p);
	bool uid_read = pl->uid_map.p != NULL;
	if ((pl->cap_read && !pl->has_sys_time) || (uid_read && !container_uid_map_initial(uid_map))) {
		p->can_set = CAN_SET_TIME_NO;
	} else if (pl->cap_read && uid_read) {
		p->can_set = CAN_SET_TIME_YES;
	} else {
		p->can_set = CAN_SET_TIME_UNKNOWN;
	}
}

/* A line of the /proc block ("::proc PID", "::cg LINE", "::cap HEX",
 * "::uid LINE"): into pl, which it may start afresh. */
static void proc_line(daemons_obs *dst, text_span line, place_lines *pl)
{
	text_span rest = line, tag;
	if (!text_span_word(&rest, &tag)) {
		return;
	}
	text_span value = rest.n > 0 && (rest.p[0] == ' ') ? (text_span){rest.p + 1, rest.n - 1} : rest;
	if (text_span_eq(tag, "::proc")) {
		settle_place(pl);
		*pl = (place_lines){0};
		double v;
		text_span w = text_span_trim(value);
		if (!number(w, 4194304.0, &v)) {
			return;
		}
		for (int i = 0; i < dst->n_places; i++) {
			if (dst->places[i].pid == (int)v) {
				pl->place = &dst->places[i];
				break;
			}
		}
		return;
	}
	if (!pl->place) {
		return;
	}
	if (text_span_eq(tag, "::cg")) {
		extend(&pl->cgroup, value);
	} else if (text_span_eq(tag, "::uid")) {
		extend(&pl->uid_map, value);
	} else if (text_span_eq(tag, "::cap")) {
		pl->cap_read = container_cap_sys_time(value, &pl->has_sys_time);
	}
}

void daemons_parse(const tool_output *out, daemons_obs *dst)
{
	daemons_obs_init(dst);
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
	text_span rest = {out->out, out->out_len}, raw;
	bool terminated;
	place_lines pl = {0};
	while (text_span_next_line(&rest, &raw, &terminated)) {
		/* the /proc block follows the process list: ps prints no line
		 * that starts with "::" (PID first, right-aligned) */
		if (text_span_starts(raw, "::")) {
			proc_line(dst, raw, &pl);
			continue;
		}
		/* blanks and a CR (a pty, a copy) around the line are not the name */
		text_span line = text_span_trim_space(raw), comm = line;
		int pid = 0;
		int64_t age = -1;
		if (!split_columns(line, &pid, &age, &comm)) {
			text_span after = line, first;
			if (text_span_word(&after, &first) && text_span_eq(first, "phc2sys") &&
			    text_span_trim(after).n > 0) {
				/* a `comm args` line: phc2sys's command line, not a
				 * process; it follows the process list, which must
				 * have shown phc2sys */
				if ((dst->running & DAEMON_PHC2SYS) && dst->n_phc2sys < DAEMONS_MAX_PHC2SYS) {
					text_span args = text_span_trim(after);
					text_span_copy_printable(dst->phc2sys_cmdline[dst->n_phc2sys],
								 sizeof dst->phc2sys_cmdline[0], args);
					daemons_parse_phc2sys_args(args, &dst->phc2sys[dst->n_phc2sys]);
					dst->n_phc2sys++;
				}
				continue;
			}
			comm = line; /* the command name alone */
			pid = 0;
			age = -1;
		}
		unsigned bit = daemon_bit(comm);
		if (bit == 0) {
			continue;
		}
		dst->running |= bit;
		daemon_proc *p = &dst->procs[daemon_index(bit)];
		p->count++;
		if (pid > 0) {
			dst->n_places_total++;
			if (dst->n_places < DAEMONS_MAX_PLACES) {
				daemon_place *pc = &dst->places[dst->n_places++];
				memset(pc, 0, sizeof *pc);
				pc->pid = pid;
				pc->bit = bit;
				pc->age_s = age;
			}
		}
		/* the youngest process speaks for the daemon: a new one is a start */
		if (pid > 0 && (p->pid == 0 || age < p->age_s)) {
			p->pid = pid;
			p->age_s = age;
		}
	}
	settle_place(&pl);
	dst->state = OBS_OK;
}

static bool restarted(const daemon_proc *now, const daemon_proc *before)
{
	if (now->count == 0 || before->count == 0 || now->pid == 0 || before->pid == 0) {
		return false; /* not running at one of the polls, or no PID to compare */
	}
	if (now->age_s >= 0 && before->age_s >= 0 && now->age_s < before->age_s) {
		return true;
	}
	return now->count == 1 && before->count == 1 && now->pid != before->pid;
}

void daemons_track(daemons_obs *now, const daemons_obs *before, double at)
{
	if (now->state != OBS_OK) {
		memcpy(now->procs, before->procs, sizeof now->procs);
		for (int i = 0; i < DAEMON_KINDS; i++) {
			now->procs[i].restarted_now = false;
		}
		return;
	}
	for (int i = 0; i < DAEMON_KINDS; i++) {
		daemon_proc *p = &now->procs[i];
		const daemon_proc *was = &before->procs[i];
		p->restarted_now = restarted(p, was);
		if (p->restarted_now) {
			p->restarted_at = at;
			p->previous_pid = was->pid;
		} else if (p->count > 0) {
			p->restarted_at = was->restarted_at;
		}
	}
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
	case 'z': copy_value(a->uds, sizeof a->uds, value); break;
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
			/* a config option (`--step_threshold=1` or `--step_threshold 1`);
			 * uds_address is -z's (phc2sys.c: config_set_string "uds_address") */
			const char *eq = memchr(word.p, '=', word.n);
			bool uds = text_span_starts(word, "--uds_address") &&
				   (word.n == 13 || (eq && eq == word.p + 13));
			if (word.n > 2 && !eq) {
				text_span name = word;
				if (text_span_word(&args, &word) && uds && name.n == 13) {
					copy_value(dst->uds, sizeof dst->uds, word);
				}
			} else if (uds && eq) {
				copy_value(dst->uds, sizeof dst->uds, (text_span){eq + 1, word.n - 14});
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
