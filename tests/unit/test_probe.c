/* test_probe.c - the probe protocol: the splitter on hand-built responses
 * (exact bodies, fake markers, every truncation, malformed input), the
 * request line, the nonce, and the real script run end to end by /bin/sh,
 * dash and bash against shim tools in a private PATH. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "collector.h"
#include "daemons_parse.h"
#include "ethtool_parse.h"
#include "fixture.h"
#include "ntpctl_parse.h"
#include "ntpq_parse.h"
#include "phc_ctl_parse.h"
#include "probe.h"
#include "probe_decode.h"

#define N "0123456789abcdef"
#define OTHER "fedcba9876543210"
#define M(kw) "@@synctop " N " " kw "\n"

/* ------------------------------------------------------------ splitter */

/* Four sections covering: body with and without final newline, empty
 * bodies, a body of blank lines, and stderr without final newline. */
static const char exact_response[] =
	"@@synctop ready\n"
	M("begin")
	M("section a") "line1\nline2\n" "\n" M("stderr") "" "\n" M("rc 0")
	M("section b") "no-newline" "\n" M("stderr") "warn: x\n" "\n" M("rc 3")
	M("section c") "" "\n" M("stderr") "partial" "\n" M("rc 127")
	M("section d") "\n\n" "\n" M("stderr") "\n" "\n" M("rc 255")
	M("end");

static void assert_body(const char *p, size_t len, const char *want)
{
	assert_int_equal(len, strlen(want));
	assert_memory_equal(p, want, len);
}

static void test_split_exact_bodies(void **state)
{
	(void)state;
	probe_response r;
	size_t len = sizeof exact_response - 1;
	assert_int_equal(probe_split(exact_response, len, N, &r), PROBE_COMPLETE);
	assert_true(r.begun);
	assert_int_equal(r.end, len);
	assert_int_equal(r.n_sections, 4);
	assert_int_equal(r.n_ignored, 0);

	const probe_section *s = probe_section_find(&r, "a");
	assert_non_null(s);
	assert_body(s->out, s->out_len, "line1\nline2\n");
	assert_body(s->err, s->err_len, "");
	assert_int_equal(s->rc, 0);
	assert_true(s->complete);

	s = probe_section_find(&r, "b");
	assert_body(s->out, s->out_len, "no-newline");
	assert_body(s->err, s->err_len, "warn: x\n");
	assert_int_equal(s->rc, 3);

	s = probe_section_find(&r, "c");
	assert_body(s->out, s->out_len, "");
	assert_body(s->err, s->err_len, "partial");
	assert_int_equal(s->rc, 127);

	s = probe_section_find(&r, "d");
	assert_body(s->out, s->out_len, "\n\n");
	assert_body(s->err, s->err_len, "\n");
	assert_int_equal(s->rc, 255);

	assert_null(probe_section_find(&r, "nope"));

	tool_output t;
	probe_section_tool_output(probe_section_find(&r, "b"), &t);
	assert_int_equal(t.rc, 3);
	assert_body(t.out, t.out_len, "no-newline");
	assert_body(t.err, t.err_len, "warn: x\n");
}

static void test_split_fake_markers_are_body(void **state)
{
	(void)state;
	static const char body[] =
		"@@synctop " OTHER " end\n"
		"@@synctop " OTHER " section evil\n"
		" @@synctop " N " end\n"
		"x@@synctop " N " end\n"
		"@@synctop " N "end-but-no-space\n"
		"@@synctop 0123456789abcde end\n"
		"last";
	static const char resp[] =
		M("begin") M("section daemons") "@@synctop " OTHER " end\n"
		"@@synctop " OTHER " section evil\n"
		" @@synctop " N " end\n"
		"x@@synctop " N " end\n"
		"@@synctop " N "end-but-no-space\n"
		"@@synctop 0123456789abcde end\n"
		"last" "\n" M("stderr") "@@synctop " OTHER " rc 0" "\n" M("rc 0") M("end");
	probe_response r;
	assert_int_equal(probe_split(resp, sizeof resp - 1, N, &r), PROBE_COMPLETE);
	assert_int_equal(r.n_sections, 1);
	assert_body(r.sections[0].out, r.sections[0].out_len, body);
	assert_body(r.sections[0].err, r.sections[0].err_len, "@@synctop " OTHER " rc 0");
	assert_int_equal(probe_find_end(resp, sizeof resp - 1, N), sizeof resp - 1);
	/* under the other nonce this is not a valid response at all */
	assert_int_equal(probe_split(resp, sizeof resp - 1, OTHER, &r), PROBE_MALFORMED);
}

/* Every proper prefix of a valid response needs more bytes, never looks
 * malformed and never looks finished. */
static void test_split_every_prefix_incomplete(void **state)
{
	(void)state;
	size_t len = sizeof exact_response - 1;
	probe_response r;
	for (size_t k = 0; k < len; k++) {
		assert_int_equal(probe_split(exact_response, k, N, &r), PROBE_INCOMPLETE);
		assert_int_equal(probe_find_end(exact_response, k, N), 0);
	}
	assert_int_equal(probe_split(exact_response, len, N, &r), PROBE_COMPLETE);

	/* bytes after the end marker are not ours */
	char *more = malloc(len + 32);
	assert_non_null(more);
	memcpy(more, exact_response, len);
	memcpy(more + len, "trailing junk\n@@synctop x", 25);
	assert_int_equal(probe_split(more, len + 25, N, &r), PROBE_COMPLETE);
	assert_int_equal(r.end, len);
	assert_int_equal(probe_find_end(more, len + 25, N), len);
	free(more);
}

static void test_split_truncated_mid_section(void **state)
{
	(void)state;
	const char *cut = strstr(exact_response, "no-newline");
	assert_non_null(cut);
	size_t len = (size_t)(cut - exact_response) + 5; /* "no-ne" */
	probe_response r;
	assert_int_equal(probe_split(exact_response, len, N, &r), PROBE_INCOMPLETE);
	assert_int_equal(r.n_sections, 2);
	assert_true(r.sections[0].complete);
	assert_false(r.sections[1].complete);
	assert_int_equal(r.sections[1].rc, -1);
	assert_body(r.sections[1].out, r.sections[1].out_len, "no-ne");
	assert_int_equal(r.sections[1].err_len, 0);

	tool_output t;
	probe_section_tool_output(&r.sections[1], &t);
	assert_int_equal(t.rc, -1);

	/* cut inside stderr */
	cut = strstr(exact_response, "warn: x");
	len = (size_t)(cut - exact_response) + 4;
	assert_int_equal(probe_split(exact_response, len, N, &r), PROBE_INCOMPLETE);
	assert_body(r.sections[1].out, r.sections[1].out_len, "no-newline");
	assert_body(r.sections[1].err, r.sections[1].err_len, "warn");
}

static void test_split_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *reason;
	} cases[] = {
		{M("section a") M("end"), "marker before the begin marker"},
		{M("begin") M("rc 0") M("end"), "expected a section or the end marker"},
		{M("begin") M("begin") M("end"), "expected a section or the end marker"},
		{M("begin") M("bogus") M("end"), "expected a section or the end marker"},
		{M("begin") M("section") M("end"), "expected a section or the end marker"},
		{M("begin") M("section Bad!") M("end"), "invalid section name"},
		{M("begin") M("section abcdefghijklmnopqrstuvwxyz0123456") M("end"),
		 "invalid section name"},
		{M("begin") M("section a") "x\n" M("end"), "expected the stderr marker"},
		{M("begin") M("section a") "\n" M("stderr") "\n" M("end"), "expected the rc marker"},
		{M("begin") M("section a") "\n" M("stderr") "\n" M("rc x"), "invalid exit status"},
		{M("begin") M("section a") "\n" M("stderr") "\n" M("rc -1"), "invalid exit status"},
		{M("begin") M("section a") "\n" M("stderr") "\n" M("rc 123456"), "invalid exit status"},
		{M("begin") M("section a") "\n" M("stderr") "\n" M("rc "), "expected the rc marker"},
		/* the script always prints "\n" before these markers */
		{M("begin") M("section a") "out" M("stderr") "\n" M("rc 0") M("end"),
		 "expected the stderr marker"},
		{M("begin") M("section a") "\n" M("stderr") M("rc 0") M("end"),
		 "rc marker not preceded by a newline"},
		{M("begin") M("section a") M("stderr") "\n" M("rc 0") M("end"),
		 "stderr marker not preceded by a newline"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		probe_response r;
		int st = probe_split(cases[i].text, strlen(cases[i].text), N, &r);
		if (st != PROBE_MALFORMED || strcmp(r.reason, cases[i].reason) != 0) {
			fail_msg("case %zu: status %d reason %s", i, st, r.reason ? r.reason : "(none)");
		}
	}

	probe_response r;
	assert_int_equal(probe_split(exact_response, 10, "0123", &r), PROBE_MALFORMED);
	assert_string_equal(r.reason, "invalid nonce");
	assert_int_equal(probe_split(exact_response, 10, "0123456789ABCDEF", &r), PROBE_MALFORMED);
	assert_int_equal(probe_split(exact_response, 10, N "0", &r), PROBE_MALFORMED);
	assert_int_equal(probe_split(NULL, 0, N, &r), PROBE_INCOMPLETE);
	assert_int_equal(probe_find_end(exact_response, sizeof exact_response - 1, "zz"), 0);
}

static void test_split_garbage(void **state)
{
	(void)state;
	size_t len = 1 << 16;
	char *junk = malloc(len + sizeof exact_response);
	assert_non_null(junk);
	uint32_t x = 12345;
	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (char)(x >> 16);
	}
	probe_response r;
	int st = probe_split(junk, len, N, &r);
	assert_true(st == PROBE_INCOMPLETE || st == PROBE_MALFORMED);
	assert_int_equal(probe_find_end(junk, len, N), 0);

	/* noise before the response (a chatty login script) is skipped */
	junk[len - 1] = '\n';
	memcpy(junk + len, exact_response, sizeof exact_response - 1);
	assert_int_equal(probe_split(junk, len + sizeof exact_response - 1, N, &r), PROBE_COMPLETE);
	assert_int_equal(r.n_sections, 4);
	assert_body(r.sections[0].out, r.sections[0].out_len, "line1\nline2\n");
	free(junk);
}

static void test_split_section_limit_and_unknown_names(void **state)
{
	(void)state;
	char buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof buf, "%s", M("begin"));
	for (int i = 0; i < PROBE_MAX_SECTIONS + 2; i++) {
		n += (size_t)snprintf(buf + n, sizeof buf - n,
				      "@@synctop " N " section future-%d\nout%d\n\n"
				      "@@synctop " N " stderr\n\n@@synctop " N " rc %d\n", i, i, i);
	}
	n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", M("end"));
	probe_response r;
	assert_int_equal(probe_split(buf, n, N, &r), PROBE_COMPLETE);
	assert_int_equal(r.n_sections, PROBE_MAX_SECTIONS);
	assert_int_equal(r.n_ignored, 2);
	const probe_section *s = probe_section_find(&r, "future-7");
	assert_non_null(s);
	assert_body(s->out, s->out_len, "out7\n");
	assert_int_equal(s->rc, 7);
	char beyond[32];
	snprintf(beyond, sizeof beyond, "future-%d", PROBE_MAX_SECTIONS);
	assert_null(probe_section_find(&r, beyond));
}

/* ------------------------------------------------------------- request */

static void test_request_format(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(probe_request_format(buf, sizeof buf, N, PROBE_FLAG_ETHTOOL, "eth0"), 24);
	assert_string_equal(buf, N " E eth0\n");
	probe_request_format(buf, sizeof buf, N, PROBE_FLAG_ETHTOOL | PROBE_FLAG_SUDO_PMC, NULL);
	assert_string_equal(buf, N " ES -\n");
	/* letters come from the registry's periodic collectors, and back */
	probe_request_format(buf, sizeof buf, N, PROBE_FLAG_SELECTDATA | PROBE_FLAG_ETHTOOL | PROBE_FLAG_SUDO_PMC, "eth0");
	assert_string_equal(buf, N " LES eth0\n");
	assert_int_equal(probe_request_flags("LES", 3), PROBE_FLAG_SELECTDATA | PROBE_FLAG_ETHTOOL | PROBE_FLAG_SUDO_PMC);
	assert_int_equal(probe_request_flags("T-q", 3), PROBE_FLAG_TIME_ONLY);
	assert_int_equal(probe_request_format(buf, sizeof buf, N, 1u << 20, "eth0"), -1);
	probe_request_format(buf, sizeof buf, N, 0, "-");
	assert_string_equal(buf, N " - -\n");
	probe_request_format(buf, sizeof buf, N, PROBE_FLAG_SUDO_PMC, "");
	assert_string_equal(buf, N " S -\n");
	assert_true(probe_request_format(buf, sizeof buf, N, 0, "enp25s0f0np0") > 0);
	assert_true(probe_request_format(buf, sizeof buf, N, 0, "bond0.100:a-b_c") > 0);

	static const char *bad[] = {
		"eth0 eth1", "eth0;reboot", "$(reboot)", "eth0'", "eth0\"", "eth\n0",
		"-T", "--help", "abcdefghijklmnop", "eth/0", "eth0\t", "ethé",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (probe_request_format(buf, sizeof buf, N, PROBE_FLAG_ETHTOOL, bad[i]) != -1) {
			fail_msg("accepted interface \"%s\"", bad[i]);
		}
		assert_false(probe_iface_valid(bad[i]));
	}
	assert_true(probe_iface_valid("abcdefghijklmno")); /* 15 = IFNAMSIZ - 1 */
	assert_false(probe_iface_valid("-"));

	/* a boundary clock's interfaces: a list, each name as above */
	probe_request_format(buf, sizeof buf, N, PROBE_FLAG_ETHTOOL, "swp1,swp2");
	assert_string_equal(buf, N " E swp1,swp2\n");
	assert_true(probe_iface_list_valid("a,b,c,abcdefghijklmno"));
	assert_false(probe_iface_valid("swp1,swp2"));
	static const char *bad_lists[] = {
		"eth0,", ",eth0", "a,b,c,d,e", "eth0,,eth1", "eth0,-T", "eth0,eth1;reboot",
		"eth0, eth1", "eth0,abcdefghijklmnop", "eth0,$(reboot)", ",",
	};
	for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++) {
		if (probe_request_format(buf, sizeof buf, N, PROBE_FLAG_ETHTOOL, bad_lists[i]) != -1) {
			fail_msg("accepted interface list \"%s\"", bad_lists[i]);
		}
		assert_false(probe_iface_list_valid(bad_lists[i]));
	}
	assert_int_equal(probe_request_format(buf, sizeof buf, "xyz", 0, "eth0"), -1);
	assert_int_equal(probe_request_format(buf, sizeof buf, N, 1u << 6, "eth0"), -1);
	probe_request_format(buf, sizeof buf, N, PROBE_FLAG_TIME_ONLY, NULL);
	assert_string_equal(buf, N " T -\n");
	assert_int_equal(probe_request_format(buf, 24, N, PROBE_FLAG_ETHTOOL, "eth0"), -1);
	assert_int_equal(probe_request_format(buf, 25, N, PROBE_FLAG_ETHTOOL, "eth0"), 24);
}

static void test_nonce_generate(void **state)
{
	(void)state;
	char a[PROBE_NONCE_LEN + 1], b[PROBE_NONCE_LEN + 1];
	assert_int_equal(probe_nonce_generate(a), 0);
	assert_int_equal(probe_nonce_generate(b), 0);
	assert_true(probe_nonce_valid(a));
	assert_true(probe_nonce_valid(b));
	assert_string_not_equal(a, b);
}

static void test_script_quoting(void **state)
{
	(void)state;
	assert_null(strchr(probe_script(), '\''));
	size_t need = strlen(probe_script()) + strlen("exec sh -c ''");
	char *cmd = malloc(need + 1);
	assert_non_null(cmd);
	assert_int_equal(probe_command(cmd, need + 1), (int)need);
	assert_memory_equal(cmd, "exec sh -c '", 12);
	assert_int_equal(cmd[need - 1], '\'');
	assert_int_equal(probe_command(cmd, need), -1);
	free(cmd);
	/* the callers' buffers (main.c, the transports' tests) hold it */
	assert_true(need + 1 <= PROBE_COMMAND_MAX);
}

/* ---------------------------------------------------------- end to end */

static pid_t child_pid;

static int kill_child(void **state)
{
	(void)state;
	if (child_pid > 0) {
		kill(child_pid, SIGKILL);
		waitpid(child_pid, NULL, 0);
		child_pid = 0;
	}
	return 0;
}

static void write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void fixture_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("SYNCTOP_FIXTURES");
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "%s/%s", dir ? dir : "tests/fixtures", name);
	assert_non_null(realpath(rel, buf));
	(void)len;
}

/* Shim tools.  Each checks the arguments the probe must pass (quoting
 * through sh -c included) and exits 64 if they are wrong. */
static void make_shims(const char *dir, bool with_mktemp)
{
	char chrony[PATH_MAX], select[PATH_MAX], pmc[PATH_MAX], igc[PATH_MAX], nodev[PATH_MAX];
	char text[5 * PATH_MAX];
	fixture_path(chrony, sizeof chrony, "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	fixture_path(select, sizeof select, "chronyc-c-n-selectdata-falseticker.txt");
	fixture_path(pmc, sizeof pmc, "pmc-batch-multi-get-slave.txt");
	fixture_path(igc, sizeof igc, "nic-docs/igc-ethtool-T.txt");
	fixture_path(nodev, sizeof nodev, "ethtool-T-no-such-dev.stderr.txt");

	write_file(dir, "date", "#!/bin/sh\nPATH=/usr/bin:/bin exec date \"$@\"\n", 0755);
	write_file(dir, "rm", "#!/bin/sh\nPATH=/usr/bin:/bin exec rm \"$@\"\n", 0755);
	if (with_mktemp) {
		write_file(dir, "mktemp", "#!/bin/sh\nPATH=/usr/bin:/bin exec mktemp \"$@\"\n", 0755);
	}
	snprintf(text, sizeof text,
		 "#!/bin/sh\n"
		 "[ \"$*\" = \"-c -n selectdata\" ] && exec /bin/cat \"%s\"\n"
		 "[ \"$*\" = \"-c -n -m tracking sources sourcestats\" ] || exit 64\n"
		 "exec /bin/cat \"%s\"\n", select, chrony);
	write_file(dir, "chronyc", text, 0755);
	snprintf(text, sizeof text,
		 "#!/bin/sh\n"
		 "[ $# -eq 12 ] && [ \"$4\" = \"GET TIME_STATUS_NP\" ] &&"
		 " [ \"${10}\" = \"GET PORT_PROPERTIES_NP\" ] && [ \"${11}\" = \"GET PORT_STATS_NP\" ] &&"
		 " [ \"${12}\" = \"GET PORT_SERVICE_STATS_NP\" ] || exit 64\n"
		 "echo \"pmc-shim: note\" >&2\n"
		 "exec /bin/cat \"%s\"\n", pmc);
	write_file(dir, "pmc", text, 0755);
	write_file(dir, "ps",
		   "#!/bin/sh\n"
		   "if [ \"$*\" = \"-C phc2sys -o comm=,args=\" ]; then\n"
		   "	echo x >>\"$0.calls\"\n"
		   "	printf \"phc2sys         /usr/sbin/phc2sys -a -r\\n\"; exit 0\n"
		   "fi\n"
		   /* the daemons section's questions: can ps give ages (of this
		    * shell), then the daemons by name */
		   "case $* in \"-o pid=,etimes=,comm= -p \"[1-9]*) echo \"1 1 sh\"; exit 0 ;; esac\n"
		   "[ \"$*\" = \"-C chronyd,ntpd,systemd-timesyn,ptp4l,phc2sys -o pid=,etimes=,comm=\" ] || exit 64\n"
		   "printf \"  812   86400 chronyd\\n 9123      42 ptp4l\\n@@synctop " OTHER " end\\n 9130 41 phc2sys\\n"
		   "   77       5 systemd-timesyn\\n  501    3600 ntpd\"\n"
		   "printf \"ps: partial\" >&2\n", 0755);
	/* openntpd's ntpctl (ps lists ntpd); no ntpq: the ntpq collector
	 * leaves it to the ntpctl one */
	char ntpctl[PATH_MAX];
	fixture_path(ntpctl, sizeof ntpctl, "ntpctl-s-all-synced.txt");
	snprintf(text, sizeof text,
		 "#!/bin/sh\n"
		 "[ \"$*\" = \"-s all\" ] || exit 64\n"
		 "exec /bin/cat \"%s\"\n", ntpctl);
	write_file(dir, "ntpctl", text, 0755);
	/* timedatectl: one line per call, so the test sees all three ran */
	write_file(dir, "timedatectl", "#!/bin/sh\nprintf \"timedatectl %s\\n\" \"$*\"\n", 0755);
	/* phc_ctl 3.1.1's output shape (tests/fixtures/phc_ctl.source.md) */
	write_file(dir, "phc_ctl",
		   "#!/bin/sh\n"
		   "[ \"$*\" = \"-q eth0 get cmp\" ] || exit 64\n"
		   "printf \"phc_ctl[1.5]: clock time is 1796301923.000000120 or Thu Dec  3 12:45:23 2026\\n\\n\"\n"
		   "printf \"phc_ctl[1.5]: offset from CLOCK_REALTIME is -36999999880ns\\n\\n\"\n", 0755);
	snprintf(text, sizeof text,
		 "#!/bin/sh\n"
		 "if [ \"$1\" = -T ] && [ \"$2\" = eth0 ] && [ $# -eq 2 ]; then exec /bin/cat \"%s\"; fi\n"
		 "/bin/cat \"%s\" >&2\n"
		 "exit 1\n", igc, nodev);
	write_file(dir, "ethtool", text, 0755);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
	char *data;
	size_t len, cap;
} growbuf;

/* Read from fd until the response for nonce is complete; 10 s at most so a
 * broken script fails the test instead of hanging it. */
static void read_response(int fd, const char *nonce, growbuf *b)
{
	double deadline = now_s() + 10.0;
	b->len = 0;
	while (probe_find_end(b->data, b->len, nonce) == 0) {
		double left = deadline - now_s();
		if (left <= 0) {
			fail_msg("no complete response for %s after 10 s (%zu bytes)", nonce, b->len);
		}
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		assert_true(r >= 0);
		if (r == 0) {
			continue;
		}
		if (b->cap - b->len < 4096) {
			b->cap = b->cap * 2 + 8192;
			b->data = realloc(b->data, b->cap);
			assert_non_null(b->data);
		}
		ssize_t n = read(fd, b->data + b->len, b->cap - b->len);
		if (n <= 0) {
			fail_msg("probe shell closed its output (%zd) after %zu bytes", n, b->len);
		}
		b->len += (size_t)n;
	}
}

static void send_line(int fd, const char *line)
{
	size_t len = strlen(line);
	assert_int_equal(write(fd, line, len), (ssize_t)len);
}

static void check_fixture_body(const probe_section *s, const char *name)
{
	size_t len;
	char *want = fixture_read(name, &len);
	assert_int_equal(s->out_len, len);
	assert_memory_equal(s->out, want, len);
	free(want);
}

/* The pmc section: the node's CLOCK_REALTIME before and after pmc
 * (collectors/pmc.c), pmc's output verbatim in between: fixture name, or
 * nothing for NULL. */
static void check_pmc_body(const probe_section *s, const char *name)
{
	static const char before[] = "synctop-realtime-ns before ";
	static const char after[] = "synctop-realtime-ns after ";
	assert_true(s->out_len > sizeof before);
	assert_memory_equal(s->out, before, sizeof before - 1);
	const char *nl = memchr(s->out, '\n', s->out_len);
	assert_non_null(nl);
	char *end;
	assert_true(strtod(s->out + sizeof before - 1, &end) > 1.5e18);
	assert_ptr_equal(end, nl);
	const char *last = s->out + s->out_len - 1; /* its final '\n' */
	assert_int_equal(*last, '\n');
	while (last > nl && last[-1] != '\n') {
		last--;
	}
	assert_memory_equal(last, after, sizeof after - 1);
	probe_section pmc = *s;
	pmc.out = nl + 1;
	pmc.out_len = (size_t)(last - pmc.out);
	if (name) {
		check_fixture_body(&pmc, name);
	} else {
		assert_int_equal(pmc.out_len, 0);
	}
}

/* The ethtool section for one interface: its frame (ethtool_parse.h)
 * around the fixture's stdout. */
static void check_framed_body(const probe_section *s, const char *iface, const char *name,
			      const char *err, int rc)
{
	size_t len;
	char *body = fixture_read(name, &len);
	char head[64], tail[256];
	int h = snprintf(head, sizeof head, "@@ethtool iface %s\n", iface);
	int k = snprintf(tail, sizeof tail, "\n@@ethtool stderr\n%s\n@@ethtool rc %d\n", err, rc);
	assert_int_equal(s->out_len, (size_t)h + len + (size_t)k);
	assert_memory_equal(s->out, head, (size_t)h);
	assert_memory_equal(s->out + h, body, len);
	assert_memory_equal(s->out + h + len, tail, (size_t)k);
	free(body);
}

/* time plus every collector that runs each poll, plus the periodic ones
 * the request asked for */
static int expected_sections(unsigned flags)
{
	int n = 1;
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		/* a collector without a command has no section (collector.h) */
		n += c->command && (c->cadence == COLLECT_EVERY_POLL || (flags & c->request_bit));
	}
	return n;
}

static void check_standard_sections(const probe_response *r, bool sudo)
{
	const probe_section *s = probe_section_find(r, "time");
	assert_non_null(s);
	assert_int_equal(s->rc, 0);
	char stamp[64];
	assert_true(s->out_len > 0 && s->out_len < sizeof stamp);
	memcpy(stamp, s->out, s->out_len);
	stamp[s->out_len] = '\0';
	char *end;
	double t = strtod(stamp, &end);
	assert_true(t > 1.5e9);
	assert_string_equal(end, "\n");
	assert_int_equal(s->err_len, 0);

	s = probe_section_find(r, "chrony");
	assert_int_equal(s->rc, 0);
	check_fixture_body(s, "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	assert_int_equal(s->err_len, 0);

	s = probe_section_find(r, "pmc");
	if (sudo) {
		/* sudo is not in the shim PATH: the missing tool case */
		assert_int_equal(s->rc, 127);
		check_pmc_body(s, NULL);
		assert_non_null(memmem(s->err, s->err_len, "not found", 9));
		assert_non_null(memmem(s->err, s->err_len, "sudo", 4));
	} else {
		assert_int_equal(s->rc, 0);
		check_pmc_body(s, "pmc-batch-multi-get-slave.txt");
		assert_body(s->err, s->err_len, "pmc-shim: note\n");
	}

	s = probe_section_find(r, "daemons");
	assert_int_equal(s->rc, 0);
	/* the process list, then phc2sys's command line because it runs */
	static const char listed[] =
		"  812   86400 chronyd\n 9123      42 ptp4l\n@@synctop " OTHER " end\n 9130 41 phc2sys\n"
		"   77       5 systemd-timesyn\n  501    3600 ntpd\n"
		"phc2sys         /usr/sbin/phc2sys -a -r\n";
	assert_true(s->out_len >= sizeof listed - 1);
	assert_memory_equal(s->out, listed, sizeof listed - 1);
	/* then the /proc block: each daemon's PID in list order (the shim's
	 * PIDs are not this machine's daemons: what /proc says of them, if
	 * anything, varies), nothing but "::" lines */
	const char *want[] = {"::proc 812\n", "::proc 9123\n", "::proc 9130\n", "::proc 77\n", "::proc 501\n"};
	size_t at = sizeof listed - 1, w = 0;
	while (at < s->out_len) {
		const char *nl = memchr(s->out + at, '\n', s->out_len - at);
		assert_non_null(nl);
		size_t n = (size_t)(nl + 1 - (s->out + at));
		assert_memory_equal(s->out + at, "::", 2);
		if (n > 7 && memcmp(s->out + at, "::proc ", 7) == 0) {
			assert_true(w < 5);
			assert_int_equal(n, strlen(want[w]));
			assert_memory_equal(s->out + at, want[w], n);
			w++;
		}
		at += n;
	}
	assert_int_equal(w, 5);
	assert_body(s->err, s->err_len, "ps: partial");

	/* openntpd: ntpctl run because $synctop_ps lists ntpd and ntpctl is
	 * there (no timeout in the shim PATH: ntpctl runs bare) */
	s = probe_section_find(r, "ntpctl");
	assert_non_null(s);
	assert_int_equal(s->rc, 0);
	check_fixture_body(s, "ntpctl-s-all-synced.txt");
	assert_int_equal(s->err_len, 0);

	s = probe_section_find(r, "selectdata");
	if (s) {
		assert_int_equal(s->rc, 0);
		check_fixture_body(s, "chronyc-c-n-selectdata-falseticker.txt");
	}

	/* time, then the registry's sections in its order */
	assert_int_equal(r->sections[0].name_len, 4);
	assert_memory_equal(r->sections[0].name, "time", 4);
	int k = 1;
	for (size_t i = 0; i < collector_registry_count && k < r->n_sections; i++) {
		const char *name = collector_registry[i]->name;
		if (r->sections[k].name_len == strlen(name) &&
		    memcmp(r->sections[k].name, name, r->sections[k].name_len) == 0) {
			k++;
		} else {
			assert_int_equal(collector_registry[i]->cadence, COLLECT_PERIODIC);
		}
	}
	assert_int_equal(k, r->n_sections);
	for (int i = 0; i < r->n_sections; i++) {
		assert_true(r->sections[i].complete);
	}
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	assert_non_null(d);
	struct dirent *e;
	bool empty = true;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			empty = false;
		}
	}
	closedir(d);
	return empty;
}

static void run_end_to_end(const char *shell, bool with_mktemp)
{
	char base[] = "/tmp/synctop-probe-XXXXXX";
	assert_non_null(mkdtemp(base));
	char shims[PATH_MAX], tmp[PATH_MAX], cwd[PATH_MAX], errpath[PATH_MAX];
	snprintf(shims, sizeof shims, "%s/bin", base);
	snprintf(tmp, sizeof tmp, "%s/tmp", base);
	snprintf(cwd, sizeof cwd, "%s/cwd", base);
	snprintf(errpath, sizeof errpath, "%s/shell-stderr", base);
	assert_int_equal(mkdir(shims, 0700), 0);
	assert_int_equal(mkdir(tmp, 0700), 0);
	assert_int_equal(mkdir(cwd, 0700), 0);
	make_shims(shims, with_mktemp);

	int in[2], out[2];
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	char pathenv[PATH_MAX + 8], tmpenv[PATH_MAX + 8];
	snprintf(pathenv, sizeof pathenv, "PATH=%s", shims);
	snprintf(tmpenv, sizeof tmpenv, "TMPDIR=%s", tmp);
	char *envp[] = {pathenv, tmpenv, NULL};

	child_pid = fork();
	assert_true(child_pid >= 0);
	if (child_pid == 0) {
		int errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (errfd < 0 || chdir(cwd) != 0 || dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(errfd, 2) < 0) {
			_exit(120);
		}
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		close(errfd);
		execle(shell, "sh", "-c", probe_script(), (char *)NULL, envp);
		_exit(121);
	}
	close(in[0]);
	close(out[1]);

	growbuf b = {NULL, 0, 0};
	probe_response r;
	char req[96];
	char n1[] = "00000000000000a1", n2[] = "00000000000000b2", n3[] = "00000000000000c3";

	/* 1: ethtool on a named interface */
	probe_request_format(req, sizeof req, n1, PROBE_FLAG_ETHTOOL | PROBE_FLAG_SELECTDATA | PROBE_FLAG_NTPQ, "eth0");
	send_line(in[1], req);
	read_response(out[0], n1, &b);
	assert_int_equal(probe_split(b.data, b.len, n1, &r), PROBE_COMPLETE);
	static const char first[] = "@@synctop ready\n@@synctop 00000000000000a1 begin\n";
	assert_true(b.len > sizeof first);
	assert_memory_equal(b.data, first, sizeof first - 1);
	assert_int_equal(r.end, b.len);
	assert_int_equal(r.n_sections, expected_sections(PROBE_FLAG_ETHTOOL | PROBE_FLAG_SELECTDATA | PROBE_FLAG_NTPQ));
	assert_non_null(probe_section_find(&r, "selectdata"));
	check_standard_sections(&r, false);
	const probe_section *s = probe_section_find(&r, "ethtool");
	assert_int_equal(s->rc, 0);
	check_framed_body(s, "eth0", "nic-docs/igc-ethtool-T.txt", "", 0);
	assert_int_equal(s->err_len, 0); /* each interface's stderr is in its frame */
	nic_obs nic, nics[NIC_MAX];
	tool_output t;
	probe_section_tool_output(s, &t);
	assert_int_equal(ethtool_parse_list(&t, nics, NIC_MAX), 1);
	nic = nics[0];
	assert_int_equal(nic.state, OBS_OK);
	assert_int_equal(nic.phc_index, 0);
	assert_string_equal(nic.interface, "eth0");

	/* phc_ctl runs on the named interface because phc2sys runs
	 * ($synctop_ps from the daemons section; no /dev/ptp* needed) */
	s = probe_section_find(&r, "phc_ctl");
	assert_non_null(s);
	assert_int_equal(s->rc, 0);
	assert_body(s->out, s->out_len, "synctop: phc_ctl eth0\n"
		    "phc_ctl[1.5]: clock time is 1796301923.000000120 or Thu Dec  3 12:45:23 2026\n\n"
		    "phc_ctl[1.5]: offset from CLOCK_REALTIME is -36999999880ns\n");
	phc_obs phc;
	probe_section_tool_output(s, &t);
	phc_ctl_parse(&t, &phc);
	assert_int_equal(phc.state, OBS_OK);
	assert_true(phc.realtime_minus_phc_ns == -36999999880LL);

	/* timesyncd: run because the daemons section's list ($synctop_ps) has
	 * systemd-timesyn, with no process of its own to find it */
	s = probe_section_find(&r, "timesyncd");
	assert_non_null(s);
	assert_int_equal(s->rc, 0);
	assert_body(s->out, s->out_len,
		    "timedatectl show\ntimedatectl show-timesync --all\ntimedatectl timesync-status\n");

	/* ntpq: ps lists ntpd, ntpq is missing and ntpctl is there: openntpd,
	 * which the ntpctl collector judges; the ntpq part is absent */
	s = probe_section_find(&r, "ntpq");
	assert_non_null(s);
	assert_int_equal(s->rc, NTPQ_OPENNTPD_RC);
	assert_int_equal(s->out_len, 0);
	assert_body(s->err, s->err_len, NTPQ_OPENNTPD_LINE "\n");

	/* 1b: every interface of a list, each with its own stderr and status
	 * (a boundary clock's ports); the shim knows eth0 only */
	probe_request_format(req, sizeof req, n1, PROBE_FLAG_ETHTOOL, "eth0,eth9");
	send_line(in[1], req);
	read_response(out[0], n1, &b);
	assert_int_equal(probe_split(b.data, b.len, n1, &r), PROBE_COMPLETE);
	check_standard_sections(&r, false);
	s = probe_section_find(&r, "ethtool");
	assert_int_equal(s->rc, 0);
	assert_int_equal(s->err_len, 0);
	probe_section_tool_output(s, &t);
	assert_int_equal(ethtool_parse_list(&t, nics, NIC_MAX), 2);
	assert_string_equal(nics[0].interface, "eth0");
	assert_int_equal(nics[0].state, OBS_OK);
	assert_string_equal(nics[1].interface, "eth9");
	assert_int_equal(nics[1].state, OBS_NO_DEVICE);
	assert_true(strncmp(nics[1].error, "eth9: no such interface", 23) == 0);

	/* 1c: a list the shell does not accept whole is "-" (never a part of
	 * it): five names, or one hostile name among good ones */
	static const char *const lists[] = {
		"00000000000000a1 E a,b,c,d,e\n", "00000000000000a1 E eth0,$(touch${IFS}pwned)\n",
		"00000000000000a1 E eth0,,eth1\n", "00000000000000a1 E eth0,\n",
	};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		send_line(in[1], lists[i]);
		read_response(out[0], n1, &b);
		assert_int_equal(probe_split(b.data, b.len, n1, &r), PROBE_COMPLETE);
		s = probe_section_find(&r, "ethtool");
		/* at most the default route's interface */
		const char *frame = memmem(s->out, s->out_len, "@@ethtool iface ", 16);
		if (frame) {
			size_t after = (size_t)(frame - s->out) + 16;
			assert_null(memmem(frame + 16, s->out_len - after, "@@ethtool iface ", 16));
		}
		assert_null(memmem(s->out, s->out_len, "@@ethtool iface a\n", 18));
		assert_null(memmem(s->out, s->out_len, "iface eth1", 10));
		assert_null(memmem(s->out, s->out_len, "pwned", 5));
	}

	/* lines the shell must ignore without answering */
	send_line(in[1], "not-a-nonce E eth0\n");
	send_line(in[1], "0123456789ABCDEF E eth0\n");
	send_line(in[1], "0123456789abcde E eth0\n");
	send_line(in[1], "\n");

	/* 2: unknown interface: default route from the real /proc/net/route,
	 * or a clear error section, never a hang; pmc via the missing sudo */
	probe_request_format(req, sizeof req, n2, PROBE_FLAG_ETHTOOL | PROBE_FLAG_SUDO_PMC, "-");
	send_line(in[1], req);
	read_response(out[0], n2, &b);
	assert_int_equal(probe_split(b.data, b.len, n2, &r), PROBE_COMPLETE);
	/* nothing at all was printed for the ignored lines */
	assert_memory_equal(b.data, "@@synctop 00000000000000b2 begin\n", 33);
	assert_int_equal(r.n_sections, expected_sections(PROBE_FLAG_ETHTOOL));
	check_standard_sections(&r, true);
	/* no interface known yet: phc_ctl is not run */
	s = probe_section_find(&r, "phc_ctl");
	assert_int_equal(s->rc, 0);
	assert_body(s->out, s->out_len, "synctop: phc_ctl not run: the PTP interface is not known yet\n");
	s = probe_section_find(&r, "ethtool");
	if (s->rc == PROBE_RC_NO_IFACE) {
		assert_int_equal(s->out_len, 0);
		assert_body(s->err, s->err_len,
			    "synctop: no interface given and no default route in /proc/net/route");
	} else {
		/* the shim answers eth0 with the igc output, anything else with
		 * the captured "no such device" error */
		assert_int_equal(s->rc, 0);
		probe_section_tool_output(s, &t);
		assert_int_equal(ethtool_parse_list(&t, nics, NIC_MAX), 1);
		assert_true(nics[0].state == OBS_OK || nics[0].state == OBS_NO_DEVICE);
		assert_true(probe_iface_valid(nics[0].interface));
	}

	/* 3: a hostile interface name is never expanded, and no E: no ethtool */
	send_line(in[1], "00000000000000c3 - $(touch${IFS}pwned)\n");
	read_response(out[0], n3, &b);
	assert_int_equal(probe_split(b.data, b.len, n3, &r), PROBE_COMPLETE);
	assert_int_equal(r.n_sections, expected_sections(0));
	assert_null(probe_section_find(&r, "ethtool"));
	check_standard_sections(&r, false);

	/* 4: a clock exchange: the time section alone, whatever else is asked */
	char n4[] = "00000000000000d4";
	probe_request_format(req, sizeof req, n4, PROBE_FLAG_TIME_ONLY | PROBE_FLAG_ETHTOOL, "eth0");
	send_line(in[1], req);
	read_response(out[0], n4, &b);
	assert_int_equal(probe_split(b.data, b.len, n4, &r), PROBE_COMPLETE);
	assert_int_equal(r.n_sections, 1);
	s = probe_section_find(&r, "time");
	assert_non_null(s);
	assert_int_equal(s->rc, 0);
	assert_true(isfinite(probe_decode_node_time(s->out, s->out_len)));

	/* EOF on stdin ends the shell, which removes its temp file */
	close(in[1]);
	double deadline = now_s() + 5.0;
	int status = 0;
	pid_t w;
	while ((w = waitpid(child_pid, &status, WNOHANG)) == 0 && now_s() < deadline) {
		usleep(10000);
	}
	assert_int_equal(w, child_pid);
	child_pid = 0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(out[0]);

	assert_true(dir_is_empty(tmp));
	assert_true(dir_is_empty(cwd));
	size_t err_len;
	struct stat st;
	/* phc2sys's command line: asked once, then kept by the shell for the
	 * next requests (every one listed phc2sys) */
	char calls[PATH_MAX + 16];
	snprintf(calls, sizeof calls, "%s/ps.calls", shims);
	assert_int_equal(stat(calls, &st), 0);
	assert_int_equal(st.st_size, 2);
	assert_int_equal(stat(errpath, &st), 0);
	err_len = (size_t)st.st_size;
	if (err_len != 0) {
		fail_msg("%s wrote %zu bytes to its own stderr (see %s)", shell, err_len, errpath);
	}

	free(b.data);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

/* The daemons collector's shell function on a ps without etimes (busybox
 * answers "bad -o argument"): the names alone, the refusal in stderr. */
static void test_ps_without_etimes(void **state)
{
	(void)state;
	char dir[] = "/tmp/synctop-ps-XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_file(dir, "ps",
		   "#!/bin/sh\n"
		   "if [ \"$*\" = \"-e -o comm=\" ]; then printf \"init\\nptp4l\\n\"; exit 0; fi\n"
		   "echo \"ps: bad -o argument etimes\" >&2\n"
		   "exit 1\n", 0755);
	const collector *c = collector_find("daemons");
	assert_non_null(c);
	char script[4096], cmd[PATH_MAX + 64];
	snprintf(script, sizeof script, "%s%s 2>%s/err\n", c->shell_functions, c->command, dir);
	write_file(dir, "run.sh", script, 0644);
	snprintf(cmd, sizeof cmd, "PATH=%s:/usr/bin:/bin sh %s/run.sh", dir, dir);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char out[256] = "";
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	assert_string_equal(out, "init\nptp4l\n");
	tool_output t = {out, n, "", 0, 0};
	daemons_obs d;
	daemons_parse(&t, &d);
	assert_int_equal(d.running, DAEMON_PTP4L);
	assert_int_equal(d.procs[daemon_index(DAEMON_PTP4L)].pid, 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The daemons section lists the five daemons and nothing else, with the
 * real ps: a copy of sleep named ptp4l stands in for the daemon, every
 * other process of this machine must be left out. */
static void run_daemons_section(const char *dir, char *out, size_t cap)
{
	const collector *c = collector_find("daemons");
	assert_non_null(c);
	char script[8192], cmd[PATH_MAX + 64];
	snprintf(script, sizeof script, "%s%s 2>%s/err\necho \"@rc $?\"\n", c->shell_functions, c->command, dir);
	write_file(dir, "run.sh", script, 0644);
	snprintf(cmd, sizeof cmd, "PATH=%s/bin /bin/sh %s/run.sh", dir, dir);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
}

static void test_daemons_select_by_name(void **state)
{
	(void)state;
	if (access("/usr/bin/ps", X_OK) != 0) {
		skip();
	}
	char dir[] = "/tmp/synctop-daemons-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "mkdir %s/bin && cp /bin/sleep %s/ptp4l && ln -s /usr/bin/ps %s/bin/ps", dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	pid_t daemon = fork();
	assert_true(daemon >= 0);
	if (daemon == 0) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/ptp4l", dir);
		execl(path, "ptp4l", "60", (char *)NULL);
		_exit(127);
	}
	char mine[32];
	snprintf(mine, sizeof mine, "%d", (int)daemon);
	{
		static char out[65536];
		bool found = false;
		for (int tries = 0; tries < 50 && !found; tries++) { /* until the exec is done */
			run_daemons_section(dir, out, sizeof out);
			found = strstr(out, mine) != NULL;
			if (!found) {
				usleep(20000);
			}
		}
		assert_true(found);
		assert_non_null(strstr(out, "@rc 0"));
		char *save = NULL;
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "::", 2) == 0 || strncmp(line, "@rc ", 4) == 0) {
				continue;
			}
			const char *name = strrchr(line, ' ');
			assert_non_null(name);
			name++;
			bool daemon_name = strcmp(name, "chronyd") == 0 || strcmp(name, "ntpd") == 0 ||
					   strcmp(name, "systemd-timesyn") == 0 || strcmp(name, "ptp4l") == 0 ||
					   strcmp(name, "phc2sys") == 0;
			if (!daemon_name) {
				fail_msg("not a time daemon in the section's answer: \"%s\"", line);
			}
		}
	}
	kill(daemon, SIGTERM);
	waitpid(daemon, NULL, 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* One collector's shell function run by sh with shims in a private PATH
 * (links to the few real tools it needs), $synctop_ps as the daemons
 * section leaves it.  Returns the elapsed seconds. */
static double run_function(const char *dir, const char *collector_name, const char *ps, char *out, size_t out_cap,
			   char *err, size_t err_cap, int *rc)
{
	const collector *c = collector_find(collector_name);
	assert_non_null(c);
	char script[8192], cmd[PATH_MAX + 64], path[PATH_MAX + 16];
	snprintf(script, sizeof script, "synctop_ps=\"%s\"\n%s%s 2>%s/err\necho \"@rc $?\"\n", ps,
		 c->shell_functions, c->command, dir);
	write_file(dir, "run.sh", script, 0644);
	snprintf(cmd, sizeof cmd, "PATH=%s /bin/sh %s/run.sh", dir, dir);
	double t0 = now_s();
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, out_cap - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	double elapsed = now_s() - t0;
	char *mark = strstr(out, "@rc ");
	assert_non_null(mark);
	*rc = atoi(mark + 4);
	*mark = '\0';
	snprintf(path, sizeof path, "%s/err", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	n = fread(err, 1, err_cap - 1, f);
	err[n] = '\0';
	fclose(f);
	return elapsed;
}

static void link_tool(const char *dir, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX];
	snprintf(from, sizeof from, "/usr/bin/%s", name);
	if (access(from, X_OK) != 0) {
		snprintf(from, sizeof from, "/bin/%s", name);
	}
	snprintf(to, sizeof to, "%s/%s", dir, name);
	assert_int_equal(symlink(from, to), 0);
}

/* ntpq and ntpctl never hold a node's answer past their bound: a hung
 * tool (ntpsec's Python ntpq retrying a dead ntpd, a daemon that accepts
 * and never answers) is stopped by timeout(1) after NTPQ_TIMEOUT_S and
 * reported as a daemon that does not answer; without timeout(1) the tools
 * run bare.  And the two agree on openntpd. */
static void test_ntp_functions(void **state)
{
	(void)state;
	if (access("/usr/bin/timeout", X_OK) != 0 || access("/usr/bin/sleep", X_OK) != 0) {
		skip();
	}
	char dir[] = "/tmp/synctop-ntpfn-XXXXXX";
	assert_non_null(mkdtemp(dir));
	static char out[8192], err[1024];
	int rc;
	const char *ps = " 1 10 init\n 501 3600 ntpd";
	link_tool(dir, "timeout");
	link_tool(dir, "sleep");
	link_tool(dir, "true");
	link_tool(dir, "cat");

	/* a hung ntpq: stopped, said so, parsed as unreachable */
	write_file(dir, "ntpq", "#!/bin/sh\nexec sleep 30\n", 0755);
	double t = run_function(dir, "ntpq", ps, out, sizeof out, err, sizeof err, &rc);
	assert_true(t < 8.0);
	assert_int_equal(rc, NTPQ_TIMEOUT_RC);
	assert_string_equal(err, NTPQ_TIMEOUT_LINE "\n");
	tool_output o = {out, strlen(out), err, strlen(err), rc};
	ntp_obs n;
	ntpq_parse(&o, &n);
	assert_int_equal(n.state, OBS_DAEMON_UNREACHABLE);
	assert_non_null(strstr(n.error, "stopped after"));

	/* no ntpd in the process list: ntpq is not run at all */
	t = run_function(dir, "ntpq", " 1 10 init\n 2 10 chronyd", out, sizeof out, err, sizeof err, &rc);
	assert_true(t < 3.0);
	assert_int_equal(rc, NTPQ_NO_NTPD_RC);
	assert_string_equal(err, NTPQ_NO_NTPD_LINE "\n");

	/* a hung ntpctl: the same bound */
	char fix[PATH_MAX], text[PATH_MAX + 64];
	fixture_path(fix, sizeof fix, "ntpctl-s-all-synced.txt");
	write_file(dir, "ntpctl", "#!/bin/sh\nexec sleep 30\n", 0755);
	t = run_function(dir, "ntpctl", ps, out, sizeof out, err, sizeof err, &rc);
	assert_true(t < 8.0);
	assert_int_equal(rc, NTPCTL_TIMEOUT_RC);
	openntpd_obs on;
	tool_output oc = {out, strlen(out), err, strlen(err), rc};
	ntpctl_parse(&oc, &on);
	assert_int_equal(on.state, OBS_DAEMON_UNREACHABLE);

	/* ntpq present but silent, ntpctl answers: openntpd */
	snprintf(text, sizeof text, "#!/bin/sh\nexec cat \"%s\"\n", fix);
	write_file(dir, "ntpctl", text, 0755);
	write_file(dir, "ntpq", "#!/bin/sh\nexit 1\n", 0755);
	run_function(dir, "ntpq", ps, out, sizeof out, err, sizeof err, &rc);
	assert_int_equal(rc, NTPQ_OPENNTPD_RC);
	assert_string_equal(err, NTPQ_OPENNTPD_LINE "\n");
	run_function(dir, "ntpctl", ps, out, sizeof out, err, sizeof err, &rc);
	assert_int_equal(rc, 0);
	size_t len;
	char *want = fixture_read("ntpctl-s-all-synced.txt", &len);
	assert_string_equal(out, want);
	free(want);
	/* no ntpd: ntpctl is not run, nothing printed (part not collected) */
	run_function(dir, "ntpctl", " 1 10 init", out, sizeof out, err, sizeof err, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	assert_string_equal(err, "");

	/* no timeout(1): ntpq runs bare and its answer passes through */
	char path[PATH_MAX + 16];
	snprintf(path, sizeof path, "%s/timeout", dir);
	assert_int_equal(unlink(path), 0);
	write_file(dir, "ntpq", "#!/bin/sh\necho \"associd=0 status=0615\"\n", 0755);
	run_function(dir, "ntpq", ps, out, sizeof out, err, sizeof err, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "associd=0 status=0615\n");
	assert_string_equal(err, "");

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_script_end_to_end(void **state)
{
	(void)state;
	if (access("/usr/sbin/sudo", X_OK) == 0 || access("/sbin/sudo", X_OK) == 0) {
		skip(); /* the missing-tool case needs sudo outside /usr/sbin:/sbin */
	}
	static const char *shells[] = {"/bin/sh", "/bin/dash", "/bin/bash"};
	char seen[3][PATH_MAX];
	int n_seen = 0, runs = 0;
	for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++) {
		char real[PATH_MAX];
		if (access(shells[i], X_OK) != 0 || realpath(shells[i], real) == NULL) {
			continue;
		}
		bool dup = false;
		for (int k = 0; k < n_seen; k++) {
			dup = dup || strcmp(seen[k], real) == 0;
		}
		if (dup) {
			continue;
		}
		snprintf(seen[n_seen++], PATH_MAX, "%s", real);
		run_end_to_end(shells[i], true);  /* temp file from mktemp */
		run_end_to_end(shells[i], false); /* no mktemp: the fallback name */
		runs++;
	}
	assert_true(runs >= 1);
}

/* What makes a registry line hard to get wrong: unique section names the
 * protocol accepts, unique request letters and bits for periodic
 * collectors (none taken by S or T), the hooks that need each other. */
static void test_registry_invariants(void **state)
{
	(void)state;
	unsigned bits = PROBE_FLAG_SUDO_PMC | PROBE_FLAG_TIME_ONLY;
	char letters[32] = "ST";
	/* the time section and one per collector that runs a command (a
	 * collector without one has no section: collector.h) */
	size_t sections = 1;
	for (size_t i = 0; i < collector_registry_count; i++) {
		sections += collector_registry[i]->command != NULL;
	}
	assert_true(sections <= PROBE_MAX_SECTIONS);
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		assert_non_null(c->name);
		assert_true(strlen(c->name) > 0 && strlen(c->name) <= COLLECTOR_NAME_MAX);
		assert_int_equal(strspn(c->name, "abcdefghijklmnopqrstuvwxyz_"), strlen(c->name));
		assert_string_not_equal(c->name, "time");
		assert_ptr_equal(collector_find(c->name), c);
		assert_true(c->command == NULL || strchr(c->command, '\'') == NULL);
		assert_true(c->command != NULL || c->cadence == COLLECT_EVERY_POLL);
		assert_true(c->shell_functions == NULL || strchr(c->shell_functions, '\'') == NULL);
		assert_non_null(c->decode);
		assert_true((c->json_key == NULL) == (c->json == NULL));
		assert_true(c->rules == NULL || c->part_state != NULL);
		assert_true((c->detail == NULL) == (c->detail_title == NULL));
		assert_true(c->n_prometheus == 0 || c->prometheus != NULL);
		for (size_t f = 0; f < c->n_prometheus; f++) {
			assert_true((c->prometheus[f].get == NULL) != (c->prometheus[f].emit == NULL));
			assert_int_equal(strncmp(c->prometheus[f].name, "synctop_", 8), 0);
		}
		if (c->cadence == COLLECT_PERIODIC) {
			assert_true(c->period_s > 0);
			assert_true(c->request_bit != 0 && (c->request_bit & (c->request_bit - 1)) == 0);
			assert_int_equal(bits & c->request_bit, 0);
			assert_null(strchr(letters, c->request_flag));
			assert_true(c->request_flag >= 'A' && c->request_flag <= 'Z');
			bits |= c->request_bit;
			letters[strlen(letters)] = c->request_flag;
			assert_int_equal(probe_request_flags(&c->request_flag, 1), c->request_bit);
		}
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(collector_registry[j]->name, c->name);
			/* a shared JSON key (collector.h) needs both parts' states to
			 * say which one writes it; ntpq and ntpctl are the one pair */
			if (c->json_key && collector_registry[j]->json_key &&
			    strcmp(collector_registry[j]->json_key, c->json_key) == 0) {
				assert_string_equal(c->json_key, "ntp");
				assert_non_null(c->part_state);
				assert_non_null(collector_registry[j]->part_state);
			}
		}
	}
	assert_null(collector_find("nope"));
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_invariants),
		cmocka_unit_test(test_ntp_functions),
		cmocka_unit_test(test_split_exact_bodies),
		cmocka_unit_test(test_split_fake_markers_are_body),
		cmocka_unit_test(test_split_every_prefix_incomplete),
		cmocka_unit_test(test_split_truncated_mid_section),
		cmocka_unit_test(test_split_malformed),
		cmocka_unit_test(test_split_garbage),
		cmocka_unit_test(test_split_section_limit_and_unknown_names),
		cmocka_unit_test(test_request_format),
		cmocka_unit_test(test_nonce_generate),
		cmocka_unit_test(test_script_quoting),
		cmocka_unit_test_teardown(test_script_end_to_end, kill_child),
		cmocka_unit_test(test_ps_without_etimes),
		cmocka_unit_test(test_daemons_select_by_name),
	};
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
