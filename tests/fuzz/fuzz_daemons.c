/* fuzz_daemons.c - daemons_parse on fuzzed `ps -e -o pid=,etimes=,comm=`
 * (or `ps -e -o comm=`) output with the `phc2sys ARGS` lines of `ps -C
 * phc2sys -o comm=,args=`, and daemons_track on two such answers.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_daemons and, for
 * OBS_OK, the running bits are exactly those of the lines that name a
 * daemon (a reference reading of daemons_parse.h's contract); tracking the
 * answer against itself finds no restart, against a copy with every age
 * grown none either. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemons_parse.h"
#include "fuzz.h"
#include "fuzz_obs.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A word of digits only, within [min, max]. */
static bool digits(const char *p, size_t n, double min, double max)
{
	if (n == 0 || n > 40) {
		return false;
	}
	char buf[48];
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9') {
			return false;
		}
		buf[i] = p[i];
	}
	buf[n] = '\0';
	double v = strtod(buf, NULL);
	return v >= min && v <= max;
}

/* One line, spaces and CRs around it trimmed; "PID ETIMES COMM" (two
 * digit words then a name) or a name alone; the name compared with the
 * exact command names.  Lines of the /proc block ("::...") name none. */
static unsigned line_bit(const char *p, size_t n)
{
	static const struct {
		const char *comm;
		unsigned bit;
	} names[] = {
		{"chronyd", DAEMON_CHRONYD},
		{"ntpd", DAEMON_NTPD},
		{"systemd-timesyncd", DAEMON_TIMESYNCD},
		{"systemd-timesyn", DAEMON_TIMESYNCD},
		{"ptp4l", DAEMON_PTP4L},
		{"phc2sys", DAEMON_PHC2SYS},
	};
	while (n > 0 && is_space(p[0])) {
		p++;
		n--;
	}
	while (n > 0 && is_space(p[n - 1])) {
		n--;
	}
	/* the columns form */
	size_t i = 0, w1 = 0, w2, e1, e2;
	while (i < n && !is_blank(p[i])) {
		i++;
	}
	e1 = i;
	while (i < n && is_blank(p[i])) {
		i++;
	}
	w2 = i;
	while (i < n && !is_blank(p[i])) {
		i++;
	}
	e2 = i;
	if (digits(p + w1, e1 - w1, 1, 4194304.0) && e2 > w2 && digits(p + w2, e2 - w2, 0, 1e11)) {
		const char *c = p + e2;
		size_t cn = n - e2;
		while (cn > 0 && is_space(c[0])) {
			c++;
			cn--;
		}
		if (cn > 0) {
			p = c;
			n = cn;
		}
	}
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		if (strlen(names[k].comm) == n && memcmp(names[k].comm, p, n) == 0) {
			return names[k].bit;
		}
	}
	/* "phc2sys ARGS" is phc2sys's command line, kept and not counted
	 * (daemons_parse.h): it names no process, whatever came before it */
	return 0;
}

static unsigned expected_bits(const char *p, size_t len)
{
	unsigned bits = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || p[i] == '\n') {
			bits |= line_bit(p + start, i - start);
			start = i + 1;
		}
	}
	return bits;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static daemons_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0, sizeof a);
	daemons_parse(&out, &a);
	fuzz_check_daemons(&a);
	if (out.rc == 0 || out.rc == -1) {
		FUZZ_CHECK(a.state == (out.out_len > 0 ? OBS_OK : OBS_EMPTY));
	} else {
		FUZZ_CHECK(a.state != OBS_OK);
	}
	if (a.state == OBS_OK) {
		FUZZ_CHECK(a.running == expected_bits(out.out, out.out_len));
	}

	memset(&b, 0xa5, sizeof b);
	daemons_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	/* the same processes, later: no restart, whatever the clock says */
	b = a;
	for (int i = 0; i < DAEMON_KINDS; i++) {
		if (b.procs[i].age_s >= 0) {
			b.procs[i].age_s += 7;
		}
	}
	daemons_track(&b, &a, 1e9);
	for (int i = 0; i < DAEMON_KINDS; i++) {
		FUZZ_CHECK(!b.procs[i].restarted_now && isnan(b.procs[i].restarted_at));
		FUZZ_CHECK(b.procs[i].count == a.procs[i].count && b.procs[i].pid == a.procs[i].pid);
	}

	fuzz_parts_free(&parts);
	return 0;
}
