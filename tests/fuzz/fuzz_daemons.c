/* fuzz_daemons.c - daemons_parse on fuzzed `ps -e -o comm=` output (and
 * the `phc2sys ARGS` lines of `ps -C phc2sys -o comm=,args=`).
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_daemons and, for
 * OBS_OK, the running bits are exactly those of the lines that name a
 * daemon (a reference reading of daemons_parse.h's contract). */
#include <config.h>

#include <string.h>

#include "daemons_parse.h"
#include "fuzz.h"
#include "fuzz_obs.h"

/* One line, leading blanks and trailing spaces / CR trimmed, compared with
 * the exact command names. */
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
	while (n > 0 && (p[0] == ' ' || p[0] == '\t')) {
		p++;
		n--;
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r')) {
		n--;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strlen(names[i].comm) == n && memcmp(names[i].comm, p, n) == 0) {
			return names[i].bit;
		}
	}
	/* "phc2sys ARGS": its first blank-separated word */
	size_t w = 0;
	while (w < n && p[w] != ' ' && p[w] != '\t') {
		w++;
	}
	return w == 7 && memcmp(p, "phc2sys", 7) == 0 ? DAEMON_PHC2SYS : 0;
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

	fuzz_parts_free(&parts);
	return 0;
}
