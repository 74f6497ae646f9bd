/* test_report_prometheus.c - the --prometheus textfile over hand-built nodes:
 * exact lines for known values, unknowns left out, hostile host names
 * escaped, every output checked against the text format 0.0.4 by a small
 * parser (promtool is not installed here), and the atomic write: complete
 * file or the old one, nothing left behind on failure. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster.h"
#include "node.h"
#include "report_prometheus.h"

#define NOW 1796207940.0

/* ------------------------------------------------------------- builders */

/* Nodes are large (their history), so tests keep them on the heap. */
static node *make_nodes(size_t n, const char *const *hosts)
{
	node *nodes = calloc(n ? n : 1, sizeof *nodes);
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "node%zu", i + 1);
		node_init(&nodes[i], hosts ? hosts[i] : name);
	}
	return nodes;
}

static void answer(node *nd)
{
	nd->reachable = true;
	nd->has_observation = true;
	nd->status = NODE_STATUS_OK;
	nd->obs.taken_at = 1796207937.25;
	nd->obs.rtt_s = 0.0021;
}

static void set_chrony(node *nd, double offset_s)
{
	answer(nd);
	chrony_obs *c = &nd->obs.chrony;
	chrony_obs_init(c);
	c->state = OBS_OK;
	c->tracking.stratum = 3;
	c->tracking.system_time_offset_s = offset_s;
	c->tracking.last_offset_s = -2.5e-06;
	c->tracking.rms_offset_s = 2e-05;
	c->tracking.frequency_ppm = -12.5;
	c->tracking.skew_ppm = 0.02;
	c->tracking.root_delay_s = 0.0004;
	c->tracking.root_dispersion_s = 0.0002;
	c->tracking.update_interval_s = 64.5;
	c->tracking.leap = CHRONY_LEAP_NORMAL;
}

static void set_ptp(node *nd, ptp_port_state state, int64_t offset_ns, const char *gm)
{
	answer(nd);
	ptp_obs *p = &nd->obs.ptp;
	ptp_obs_init(p);
	p->state = OBS_OK;
	p->gm_present = 1;
	snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "%s", gm);
	p->steps_removed = 1;
	p->offset_from_master_ns = offset_ns;
	p->mean_path_delay_ns = 8737;
	p->n_ports = 1;
	snprintf(p->ports[0].port_identity, sizeof p->ports[0].port_identity, "1aed80.fffe.1a0b51-1");
	p->ports[0].port_number = 1;
	p->ports[0].state = state;
}

static void add_finding(node *nd, severity sev, const char *code)
{
	assert_true(nd->findings.count < MAX_FINDINGS);
	finding *f = &nd->findings.items[nd->findings.count++];
	f->sev = sev;
	f->code = code;
	snprintf(f->message, sizeof f->message, "message of %s", code ? code : "no code");
	f->hint[0] = '\0';
	if (sev == SEVERITY_CRIT || (sev == SEVERITY_WARN && nd->status != NODE_STATUS_CRIT)) {
		nd->status = sev == SEVERITY_CRIT ? NODE_STATUS_CRIT : NODE_STATUS_WARN;
	}
}

/* ---------------------------------------------- a text format 0.0.4 check */

#define MAX_FAMILIES 128
#define NAME_MAX_LEN 128

typedef struct {
	char name[NAME_MAX_LEN];
	bool help, type;
	bool done; /* its samples ended: another family came after them */
} family_seen;

typedef struct {
	family_seen fam[MAX_FAMILIES];
	int n_fam;
	int current; /* family of the previous line, -1 none */
	char **series;
	size_t n_series, cap_series;
	char why[256];
} checker;

static bool bad(checker *c, int line, const char *what)
{
	snprintf(c->why, sizeof c->why, "line %d: %s", line, what);
	return false;
}

static family_seen *find_family(checker *c, const char *name, size_t len, bool add)
{
	for (int i = 0; i < c->n_fam; i++) {
		if (strlen(c->fam[i].name) == len && memcmp(c->fam[i].name, name, len) == 0) {
			return &c->fam[i];
		}
	}
	if (!add || c->n_fam == MAX_FAMILIES || len >= NAME_MAX_LEN) {
		return NULL;
	}
	family_seen *f = &c->fam[c->n_fam++];
	memset(f, 0, sizeof *f);
	memcpy(f->name, name, len);
	return f;
}

static bool name_start(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == ':';
}

static bool name_char(char ch)
{
	return name_start(ch) || (ch >= '0' && ch <= '9');
}

static size_t metric_name_len(const char *s)
{
	size_t i = 0;
	if (!name_start(s[0])) {
		return 0;
	}
	while (name_char(s[i])) {
		i++;
	}
	return i;
}

/* Strict UTF-8: no overlongs, surrogates or code points past U+10FFFF. */
static bool valid_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned char b = s[i];
		size_t n;
		uint32_t cp, min;
		if (b < 0x80) {
			i++;
			continue;
		} else if ((b & 0xE0) == 0xC0) {
			n = 1, cp = b & 0x1F, min = 0x80;
		} else if ((b & 0xF0) == 0xE0) {
			n = 2, cp = b & 0x0F, min = 0x800;
		} else if ((b & 0xF8) == 0xF0) {
			n = 3, cp = b & 0x07, min = 0x10000;
		} else {
			return false;
		}
		for (size_t k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80) {
				return false;
			}
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
			return false;
		}
		i += n + 1;
	}
	return true;
}

static bool check_comment(checker *c, int ln, const char *line)
{
	bool help = strncmp(line, "# HELP ", 7) == 0;
	bool type = strncmp(line, "# TYPE ", 7) == 0;
	if (!help && !type) {
		return bad(c, ln, "comment that is neither HELP nor TYPE");
	}
	const char *name = line + 7;
	size_t len = metric_name_len(name);
	if (len == 0 || name[len] != ' ' || name[len + 1] == '\0') {
		return bad(c, ln, "HELP/TYPE without a name and text");
	}
	family_seen *f = find_family(c, name, len, true);
	if (!f) {
		return bad(c, ln, "too many families");
	}
	if (f->done || (c->current >= 0 && &c->fam[c->current] != f && (f->help || f->type))) {
		return bad(c, ln, "HELP/TYPE of a family away from its samples");
	}
	if (help) {
		if (f->help) {
			return bad(c, ln, "second HELP");
		}
		if (f->type) {
			return bad(c, ln, "HELP after TYPE");
		}
		f->help = true;
	} else {
		const char *t = name + len + 1;
		if (f->type) {
			return bad(c, ln, "second TYPE");
		}
		if (strcmp(t, "gauge") != 0 && strcmp(t, "counter") != 0) {
			return bad(c, ln, "TYPE other than gauge or counter");
		}
		if (strcmp(t, "counter") == 0 && (len < 6 || strncmp(name + len - 6, "_total", 6) != 0)) {
			return bad(c, ln, "counter without _total");
		}
		if (strcmp(t, "counter") != 0 && len >= 6 && strncmp(name + len - 6, "_total", 6) == 0) {
			return bad(c, ln, "_total on a gauge");
		}
		f->type = true;
	}
	for (int i = 0; i < c->n_fam; i++) {
		if (i != (int)(f - c->fam) && c->current == i) {
			c->fam[i].done = true;
		}
	}
	c->current = (int)(f - c->fam);
	return true;
}

static bool check_sample(checker *c, int ln, const char *line)
{
	size_t len = metric_name_len(line);
	if (len == 0) {
		return bad(c, ln, "sample without a metric name");
	}
	family_seen *f = find_family(c, line, len, false);
	if (!f || !f->help || !f->type) {
		return bad(c, ln, "sample before its HELP and TYPE");
	}
	if (f->done || c->current != (int)(f - c->fam)) {
		return bad(c, ln, "samples of a family not together");
	}
	const char *p = line + len;
	if (*p == '{') {
		p++;
		for (;;) {
			size_t ll = 0;
			if (!((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z') || p[0] == '_')) {
				return bad(c, ln, "bad label name");
			}
			while (name_char(p[ll]) && p[ll] != ':') {
				ll++;
			}
			p += ll;
			if (p[0] != '=' || p[1] != '"') {
				return bad(c, ln, "label without =\"");
			}
			p += 2;
			while (*p != '"') {
				if (*p == '\0') {
					return bad(c, ln, "unterminated label value");
				}
				if (*p == '\\') {
					if (p[1] != '\\' && p[1] != '"' && p[1] != 'n') {
						return bad(c, ln, "bad escape in label value");
					}
					p++;
				}
				p++;
			}
			p++;
			if (*p == '}') {
				p++;
				break;
			}
			if (*p != ',') {
				return bad(c, ln, "labels not separated by ,");
			}
			p++;
		}
	}
	if (*p != ' ') {
		return bad(c, ln, "no space before the value");
	}
	p++;
	char *end;
	double v = strtod(p, &end);
	if (end == p || *end != '\0' || !isfinite(v)) {
		return bad(c, ln, "value is not a finite number alone (no timestamps)");
	}
	size_t key_len = (size_t)(p - 1 - line);
	if (c->n_series == c->cap_series) {
		c->cap_series = c->cap_series ? 2 * c->cap_series : 64;
		char **bigger = realloc(c->series, c->cap_series * sizeof *c->series);
		assert_non_null(bigger);
		c->series = bigger;
	}
	c->series[c->n_series] = strndup(line, key_len);
	assert_non_null(c->series[c->n_series]);
	c->n_series++;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* true if text is a valid exposition; else why says where and what. */
static bool exposition_valid(const char *text, size_t len, char *why, size_t why_len)
{
	checker *c = calloc(1, sizeof *c);
	assert_non_null(c);
	c->current = -1;
	bool ok = true;

	if (!valid_utf8((const unsigned char *)text, len)) {
		ok = bad(c, 0, "not valid UTF-8");
	}
	for (size_t i = 0; ok && i < len; i++) {
		unsigned char ch = (unsigned char)text[i];
		if ((ch < 0x20 && ch != '\n') || ch == 0x7F) {
			ok = bad(c, 0, "control byte");
		}
	}
	if (ok && len > 0 && text[len - 1] != '\n') {
		ok = bad(c, 0, "no final newline");
	}
	int ln = 0;
	for (size_t pos = 0; ok && pos < len; ln++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = (size_t)(nl - (text + pos));
		char *line = strndup(text + pos, l);
		assert_non_null(line);
		if (l == 0) {
			ok = bad(c, ln + 1, "empty line");
		} else if (line[0] == '#') {
			ok = check_comment(c, ln + 1, line);
		} else {
			ok = check_sample(c, ln + 1, line);
		}
		free(line);
		pos += l + 1;
	}
	if (ok) {
		for (int i = 0; i < c->n_fam; i++) {
			if (!c->fam[i].help || !c->fam[i].type) {
				ok = bad(c, 0, "family without HELP or TYPE");
			}
		}
	}
	if (ok && c->n_series > 1) {
		qsort(c->series, c->n_series, sizeof *c->series, cmp_str);
		for (size_t i = 1; i < c->n_series; i++) {
			if (strcmp(c->series[i], c->series[i - 1]) == 0) {
				ok = bad(c, 0, "the same series twice");
				break;
			}
		}
	}
	snprintf(why, why_len, "%s", c->why);
	for (size_t i = 0; i < c->n_series; i++) {
		free(c->series[i]);
	}
	free(c->series);
	free(c);
	return ok;
}

static void assert_valid(const char *text)
{
	char why[256];
	if (!exposition_valid(text, strlen(text), why, sizeof why)) {
		fail_msg("invalid exposition: %s\n%s", why, text);
	}
}

/* ------------------------------------------------------------- helpers */

/* Format to memory and check the result is a valid exposition. */
static char *format(const node *nodes, size_t n, const cluster_summary *s, double now)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_prometheus_format(f, nodes, n, s, now), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	assert_valid(buf);
	return buf;
}

/* How many whole lines of text equal line. */
static int count_line(const char *text, const char *line)
{
	size_t ll = strlen(line);
	int k = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l == ll && memcmp(p, line, l) == 0) {
			k++;
		}
		p += l + (nl ? 1 : 0);
	}
	return k;
}

static void want_line(const char *text, const char *line)
{
	if (count_line(text, line) != 1) {
		fail_msg("want exactly one line \"%s\" in:\n%s", line, text);
	}
}

static void no_line_starting(const char *text, const char *prefix)
{
	size_t pl = strlen(prefix);
	for (const char *p = text; *p;) {
		if (strncmp(p, prefix, pl) == 0) {
			fail_msg("unexpected line starting \"%s\" in:\n%s", prefix, text);
		}
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/* ------------------------------------------------------------- the tests */

static void test_checker_rejects(void **state)
{
	(void)state;
	/* the format check must be able to fail, or it proves nothing */
	static const char *const bad_texts[] = {
		"m 1\n",                                                   /* no HELP/TYPE */
		"# HELP m h\n# TYPE m gauge\nm 1",                         /* no final newline */
		"# HELP m h\n# TYPE m gauge\nm{a=\"x\"} 1\nm{a=\"x\"} 2\n", /* duplicate series */
		"# HELP m h\n# TYPE m gauge\nm{a=\"x\\t\"} 1\n",            /* bad escape */
		"# HELP m h\n# TYPE m gauge\nm{a=\"x} 1\n",                 /* unterminated */
		"# HELP m h\n# TYPE m gauge\nm NaN\n",                      /* unknown written */
		"# HELP m h\n# TYPE m gauge\nm 1 1796207940000\n",          /* timestamp */
		"# HELP m h\n# TYPE m counter\nm 1\n",                      /* counter w/o _total */
		"# HELP m h\n# TYPE m gauge\n# HELP m h\nm 1\n",            /* HELP twice */
		"# HELP m h\n# TYPE m gauge\nm 1\n# HELP n h\n# TYPE n gauge\nn 1\nm 2\n", /* split */
		"# HELP m h\n# TYPE m gauge\nm{a=\"\xff\"} 1\n",            /* not UTF-8 */
		"# HELP m h\n# TYPE m gauge\nm{a=\"\x1b[0m\"} 1\n",         /* control byte */
		"# HELP m h\n# TYPE m gauge\n\nm 1\n",                      /* empty line */
		"# HELP 1m h\n# TYPE 1m gauge\n1m 1\n",                     /* bad name */
	};
	char why[256];
	for (size_t i = 0; i < sizeof bad_texts / sizeof bad_texts[0]; i++) {
		if (exposition_valid(bad_texts[i], strlen(bad_texts[i]), why, sizeof why)) {
			fail_msg("bad text %zu accepted", i);
		}
	}
	const char *good = "# HELP m_total h\n# TYPE m_total counter\nm_total{a=\"x\\\"y\\\\z\\n\",b=\"\"} 3\n"
			   "# HELP n h\n# TYPE n gauge\nn -1.25e-05\n";
	assert_true(exposition_valid(good, strlen(good), why, sizeof why));
}

static void test_known_values(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	node *nd = &nodes[0];
	set_chrony(nd, 0.001);
	set_ptp(nd, PTP_PORT_SLAVE, -6600, "96bec0.fffe.dfca68");
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_CHRONYD | DAEMON_PTP4L;
	nd->obs.nic.state = OBS_OK;
	snprintf(nd->obs.nic.interface, sizeof nd->obs.nic.interface, "eth0");
	nd->obs.nic.caps = NIC_CAP_HW_TX | NIC_CAP_HW_RX | NIC_CAP_HW_RAW_CLOCK;
	nd->obs.clock.state = OBS_OK;
	nd->obs.clock.exchanges = 4;
	nd->obs.clock.offset_s = -0.0005;
	nd->obs.clock.uncertainty_s = 0.0001;
	nd->obs.clock.measured_at = 1796207937.5;
	nd->polls_completed = 42;
	nd->polls_failed = 3;
	add_finding(nd, SEVERITY_CRIT, "collector.daemon_unreachable");
	add_finding(nd, SEVERITY_CRIT, "collector.daemon_unreachable");
	add_finding(nd, SEVERITY_WARN, "chrony.skew");
	/* node2: a master with software timestamping only, chrony leap pending */
	set_chrony(&nodes[1], -0.002);
	nodes[1].obs.chrony.tracking.leap = CHRONY_LEAP_INSERT;
	set_ptp(&nodes[1], PTP_PORT_MASTER, 0, "96bec0.fffe.dfca68");
	nodes[1].obs.nic.state = OBS_OK;
	snprintf(nodes[1].obs.nic.interface, sizeof nodes[1].obs.nic.interface, "eno1");
	nodes[1].obs.nic.caps = NIC_CAP_SW_TX | NIC_CAP_SW_RX | NIC_CAP_HW_RX;

	/* node1's last Sync: 0.25 s before the read ahead of pmc (software
	 * timestamping); node2 is a master, whose ingress_time means nothing */
	snprintf(nd->obs.ptp.ports[0].timestamping, sizeof nd->obs.ptp.ports[0].timestamping, "SOFTWARE");
	nd->obs.ptp.ingress_time_ns = 1796207937000000000LL;
	nd->obs.ptp.realtime_before_ns = 1796207937250000000LL;
	nd->obs.ptp.realtime_after_ns = 1796207937360000000LL;
	nodes[1].obs.ptp.ingress_time_ns = 1796207937000000000LL;
	nodes[1].obs.ptp.realtime_before_ns = 1796207937250000000LL;

	char *t = format(nodes, 2, NULL, NOW);
	want_line(t, "# HELP synctop_node_up 1 if the node's last poll completed, else 0.");
	want_line(t, "# TYPE synctop_node_up gauge");
	want_line(t, "synctop_node_up{node=\"node1\"} 1");
	want_line(t, "synctop_node_status{node=\"node1\"} 2");
	want_line(t, "synctop_node_status{node=\"node2\"} 0");
	want_line(t, "# TYPE synctop_node_polls_completed_total counter");
	want_line(t, "synctop_node_polls_completed_total{node=\"node1\"} 42");
	want_line(t, "synctop_node_polls_failed_total{node=\"node1\"} 3");
	want_line(t, "synctop_node_polls_failed_total{node=\"node2\"} 0");
	want_line(t, "synctop_node_observation_timestamp_seconds{node=\"node1\"} 1796207937.25");
	want_line(t, "synctop_node_poll_rtt_seconds{node=\"node1\"} 0.0021");
	want_line(t, "synctop_part_up{node=\"node1\",part=\"chrony\"} 1");
	want_line(t, "synctop_part_up{node=\"node1\",part=\"ptp\"} 1");
	want_line(t, "synctop_part_up{node=\"node1\",part=\"nic\"} 1");
	want_line(t, "synctop_part_up{node=\"node1\",part=\"clock_check\"} 1");

	want_line(t, "synctop_chrony_offset_seconds{node=\"node1\"} 0.001");
	want_line(t, "synctop_chrony_offset_seconds{node=\"node2\"} -0.002");
	want_line(t, "synctop_chrony_last_offset_seconds{node=\"node1\"} -2.5e-06");
	want_line(t, "synctop_chrony_rms_offset_seconds{node=\"node1\"} 2e-05");
	want_line(t, "synctop_chrony_frequency_ratio{node=\"node1\"} -1.25e-05");
	want_line(t, "synctop_chrony_skew_ratio{node=\"node1\"} 2e-08");
	want_line(t, "synctop_chrony_root_delay_seconds{node=\"node1\"} 0.0004");
	want_line(t, "synctop_chrony_root_dispersion_seconds{node=\"node1\"} 0.0002");
	want_line(t, "synctop_chrony_update_interval_seconds{node=\"node1\"} 64.5");
	want_line(t, "synctop_chrony_stratum{node=\"node1\"} 3");
	want_line(t, "synctop_chrony_leap_status{node=\"node1\"} 0");
	want_line(t, "synctop_chrony_leap_status{node=\"node2\"} 1");

	want_line(t, "synctop_ptp_offset_seconds{node=\"node1\"} -6.6e-06");
	/* a master follows nobody: no offset (ptp4l says 0) */
	no_line_starting(t, "synctop_ptp_offset_seconds{node=\"node2\"}");
	want_line(t, "synctop_ptp_mean_path_delay_seconds{node=\"node1\"} 8.737e-06");
	want_line(t, "synctop_ptp_steps_removed{node=\"node1\"} 1");
	want_line(t, "synctop_ptp_gm_present{node=\"node1\"} 1");
	want_line(t, "synctop_ptp_port_state{node=\"node1\",port=\"1\",state=\"SLAVE\"} 1");
	want_line(t, "synctop_ptp_port_state{node=\"node2\",port=\"1\",state=\"MASTER\"} 1");
	want_line(t, "synctop_ptp_grandmaster_info{node=\"node1\",grandmaster=\"96bec0.fffe.dfca68\"} 1");
	want_line(t, "# TYPE synctop_ptp_sync_age_seconds gauge");
	want_line(t, "synctop_ptp_sync_age_seconds{node=\"node1\"} 0.25");
	no_line_starting(t, "synctop_ptp_sync_age_seconds{node=\"node2\"}");
	want_line(t, "synctop_nic_hardware_timestamping{node=\"node1\",interface=\"eth0\"} 1");
	want_line(t, "synctop_nic_hardware_timestamping{node=\"node2\",interface=\"eno1\"} 0");

	want_line(t, "synctop_clock_check_offset_seconds{node=\"node1\"} -0.0005");
	want_line(t, "synctop_clock_check_uncertainty_seconds{node=\"node1\"} 0.0001");
	want_line(t, "synctop_clock_check_timestamp_seconds{node=\"node1\"} 1796207937.5");

	want_line(t, "synctop_findings{node=\"node1\",severity=\"warn\"} 1");
	want_line(t, "synctop_findings{node=\"node1\",severity=\"crit\"} 2");
	want_line(t, "synctop_findings{node=\"node2\",severity=\"crit\"} 0");
	/* two findings with one code and severity: one series, valued 2 */
	want_line(t, "synctop_finding{node=\"node1\",code=\"collector.daemon_unreachable\",severity=\"crit\"} 2");
	want_line(t, "synctop_finding{node=\"node1\",code=\"chrony.skew\",severity=\"warn\"} 1");
	no_line_starting(t, "synctop_finding{node=\"node2\"");

	want_line(t, "synctop_cluster_nodes{status=\"ok\"} 1");
	want_line(t, "synctop_cluster_nodes{status=\"warn\"} 0");
	want_line(t, "synctop_cluster_nodes{status=\"crit\"} 1");
	want_line(t, "synctop_cluster_nodes{status=\"unknown\"} 0");
	want_line(t, "synctop_cluster_chrony_nodes 2");
	want_line(t, "synctop_cluster_max_abs_offset_seconds 0.002");
	want_line(t, "synctop_cluster_offset_spread_seconds 0.003");
	/* only node1 has a SLAVE port */
	want_line(t, "synctop_cluster_ptp_nodes 1");
	want_line(t, "synctop_cluster_ptp_max_abs_offset_seconds 6.6e-06");
	want_line(t, "synctop_cluster_ptp_offset_spread_seconds 0");
	want_line(t, "synctop_cluster_grandmasters 1");
	want_line(t, "synctop_cluster_grandmaster_nodes{grandmaster=\"96bec0.fffe.dfca68\"} 2");
	want_line(t, "synctop_export_duplicate_nodes 0");
	want_line(t, "synctop_last_sweep_timestamp_seconds 1796207940");
	free(t);

	/* the caller's summary is the one written (the screen shows the same) */
	cluster_summary s;
	cluster_summarise(nodes, 2, &s);
	s.ok = 7;
	t = format(nodes, 2, &s, NOW);
	want_line(t, "synctop_cluster_nodes{status=\"ok\"} 7");
	free(t);
	free(nodes);
}

static void test_unknowns_left_out(void **state)
{
	(void)state;
	node *nodes = make_nodes(5, NULL);
	/* node1: never polled (node_init only) */
	/* node2: answered, but every value unknown */
	set_chrony(&nodes[1], NAN);
	chrony_tracking *tr = &nodes[1].obs.chrony.tracking;
	tr->last_offset_s = tr->rms_offset_s = tr->frequency_ppm = tr->skew_ppm = NAN;
	tr->root_delay_s = tr->root_dispersion_s = tr->update_interval_s = NAN;
	tr->stratum = INT_UNKNOWN;
	tr->leap = CHRONY_LEAP_UNKNOWN;
	set_ptp(&nodes[1], PTP_PORT_UNKNOWN, PTP_NS_UNKNOWN, "");
	nodes[1].obs.ptp.mean_path_delay_ns = PTP_NS_UNKNOWN;
	nodes[1].obs.ptp.steps_removed = INT_UNKNOWN;
	nodes[1].obs.ptp.gm_present = INT_UNKNOWN;
	nodes[1].obs.rtt_s = NAN;
	nodes[1].obs.taken_at = NAN;
	/* node3: lost; its last answer is stale and must not be written */
	set_chrony(&nodes[2], 0.5);
	set_ptp(&nodes[2], PTP_PORT_SLAVE, 123, "aaaaaa.fffe.aaaaaa");
	nodes[2].obs.clock.state = OBS_OK;
	nodes[2].obs.clock.offset_s = 0.25;
	nodes[2].reachable = false;
	nodes[2].status = NODE_STATUS_UNKNOWN;
	/* node4: chronyd and ptp4l failed: half-parsed values stay unwritten */
	set_chrony(&nodes[3], 0.75);
	nodes[3].obs.chrony.state = OBS_DAEMON_UNREACHABLE;
	set_ptp(&nodes[3], PTP_PORT_SLAVE, 456, "bbbbbb.fffe.bbbbbb");
	nodes[3].obs.ptp.state = OBS_GARBAGE;
	/* node5: no ptp4l installed or running, no chronyc: not a failure */
	answer(&nodes[4]);
	nodes[4].obs.chrony.state = OBS_TOOL_MISSING;
	nodes[4].obs.ptp.state = OBS_DAEMON_UNREACHABLE;
	nodes[4].obs.daemons.state = OBS_OK;
	nodes[4].obs.daemons.running = DAEMON_CHRONYD;
	nodes[4].obs.clock.state = OBS_COMMAND_FAILED;

	char *t = format(nodes, 5, NULL, NAN);
	assert_null(strstr(t, "NaN"));
	assert_null(strstr(t, "nan"));
	assert_null(strstr(t, "Inf"));
	assert_null(strstr(t, "inf "));

	/* known for everyone, unknown nodes included */
	want_line(t, "synctop_node_up{node=\"node1\"} 0");
	want_line(t, "synctop_node_status{node=\"node1\"} 3");
	want_line(t, "synctop_node_polls_completed_total{node=\"node1\"} 0");
	want_line(t, "synctop_node_up{node=\"node3\"} 0");
	want_line(t, "synctop_node_status{node=\"node3\"} 3");
	/* node3's answer time says how stale it is; its values are gone */
	want_line(t, "synctop_node_observation_timestamp_seconds{node=\"node3\"} 1796207937.25");
	no_line_starting(t, "synctop_node_observation_timestamp_seconds{node=\"node1\"}");
	no_line_starting(t, "synctop_node_observation_timestamp_seconds{node=\"node2\"}");
	no_line_starting(t, "synctop_node_poll_rtt_seconds{node=\"node3\"}");
	no_line_starting(t, "synctop_part_up{node=\"node3\"");
	no_line_starting(t, "synctop_findings{node=\"node1\"");
	no_line_starting(t, "synctop_findings{node=\"node3\"");
	want_line(t, "synctop_findings{node=\"node2\",severity=\"crit\"} 0");

	no_line_starting(t, "synctop_node_poll_rtt_seconds{node=\"node2\"}");

	/* nobody has a value: the whole family is left out, HELP and all */
	static const char *const absent[] = {
		"synctop_chrony_offset_seconds", "synctop_chrony_last_offset_seconds",
		"synctop_chrony_rms_offset_seconds", "synctop_chrony_frequency_ratio",
		"synctop_chrony_skew_ratio", "synctop_chrony_root_delay_seconds",
		"synctop_chrony_root_dispersion_seconds", "synctop_chrony_update_interval_seconds",
		"synctop_chrony_stratum", "synctop_ptp_offset_seconds",
		"synctop_ptp_mean_path_delay_seconds", "synctop_ptp_steps_removed", "synctop_ptp_gm_present",
		"synctop_ptp_port_state", "synctop_ptp_grandmaster_info", "synctop_nic_hardware_timestamping",
		"synctop_clock_check_offset_seconds", "synctop_clock_check_uncertainty_seconds",
		"synctop_clock_check_timestamp_seconds", "synctop_cluster_max_abs_offset_seconds",
		"synctop_cluster_offset_spread_seconds", "synctop_cluster_ptp_max_abs_offset_seconds",
		"synctop_cluster_ptp_offset_spread_seconds", "synctop_cluster_grandmaster_nodes",
		"synctop_last_sweep_timestamp_seconds", "synctop_finding{",
	};
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
		char help[160];
		snprintf(help, sizeof help, "# HELP %s ", absent[i]);
		no_line_starting(t, absent[i]);
		no_line_starting(t, help);
	}

	no_line_starting(t, "synctop_chrony_leap_status");
	/* a part that failed is down; one that is not installed is not there */
	want_line(t, "synctop_part_up{node=\"node2\",part=\"chrony\"} 1");
	want_line(t, "synctop_part_up{node=\"node4\",part=\"chrony\"} 0");
	want_line(t, "synctop_part_up{node=\"node4\",part=\"ptp\"} 0");
	no_line_starting(t, "synctop_part_up{node=\"node4\",part=\"nic\"}");
	no_line_starting(t, "synctop_part_up{node=\"node5\",part=\"chrony\"}");
	no_line_starting(t, "synctop_part_up{node=\"node5\",part=\"ptp\"}");
	want_line(t, "synctop_part_up{node=\"node5\",part=\"clock_check\"} 0");

	/* counts stay: 0 nodes and 0 grandmasters are true */
	want_line(t, "synctop_cluster_chrony_nodes 0");
	want_line(t, "synctop_cluster_ptp_nodes 0");
	want_line(t, "synctop_cluster_grandmasters 0");
	free(t);

	/* chronyd not synchronised: its reference values are placeholders
	 * (fixture chronyc-c-tracking-unsync.txt) that the chrony collector
	 * makes unknown (observation.h, chrony_tracking_has_reference); what
	 * chrony still knows (frequency, last and RMS offset, update interval)
	 * is written, as in the JSON snapshot. */
	set_chrony(&nodes[0], 0.0);
	tr = &nodes[0].obs.chrony.tracking;
	tr->leap = CHRONY_LEAP_UNSYNC;
	tr->stratum = 0;
	tr->root_delay_s = tr->root_dispersion_s = 1.0;
	tr->frequency_ppm = tr->skew_ppm = tr->last_offset_s = tr->rms_offset_s = tr->update_interval_s = 0.0;
	chrony_tracking_settle(tr);
	t = format(nodes, 1, NULL, NOW);
	want_line(t, "synctop_chrony_leap_status{node=\"node1\"} 3");
	want_line(t, "synctop_part_up{node=\"node1\",part=\"chrony\"} 1");
	want_line(t, "synctop_chrony_frequency_ratio{node=\"node1\"} 0");
	want_line(t, "synctop_chrony_last_offset_seconds{node=\"node1\"} 0");
	want_line(t, "synctop_chrony_rms_offset_seconds{node=\"node1\"} 0");
	static const char *const placeholders[] = {
		"synctop_chrony_offset_seconds", "synctop_chrony_skew_ratio", "synctop_chrony_root_delay_seconds",
		"synctop_chrony_root_dispersion_seconds", "synctop_chrony_stratum",
	};
	for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++) {
		no_line_starting(t, placeholders[i]);
	}
	free(t);

	/* no nodes at all: still a valid file */
	t = format(NULL, 0, NULL, NOW);
	want_line(t, "synctop_cluster_nodes{status=\"ok\"} 0");
	want_line(t, "synctop_last_sweep_timestamp_seconds 1796207940");
	no_line_starting(t, "synctop_node_up");
	free(t);
	free(nodes);
}

/* After its master goes away a port turns LISTENING and ptp4l keeps the last
 * offset and delay (seen in the lab, engine_faults.sh g): an alert on the
 * offset must not see them as current. */
static void test_stale_ptp_values_left_out(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	set_ptp(&nodes[0], PTP_PORT_LISTENING, -6600, "96bec0.fffe.dfca68");
	set_ptp(&nodes[1], PTP_PORT_UNCALIBRATED, 250000, "96bec0.fffe.dfca68");
	char *t = format(nodes, 2, NULL, NOW);
	no_line_starting(t, "synctop_ptp_offset_seconds{node=\"node1\"}");
	no_line_starting(t, "synctop_ptp_mean_path_delay_seconds{node=\"node1\"}");
	want_line(t, "synctop_ptp_port_state{node=\"node1\",port=\"1\",state=\"LISTENING\"} 1");
	/* the servo still locking: its offset is current, if large */
	want_line(t, "synctop_ptp_offset_seconds{node=\"node2\"} 0.00025");
	free(t);
	free(nodes);
}

static void test_hostile_names(void **state)
{
	(void)state;
	static const char *const hosts[] = {
		"a\"b",              /* quote */
		"c\\d",              /* backslash */
		"e\nf",              /* newline: one line, as the JSON names it */
		"g\x1b[31mh",        /* escape sequence: dropped whole */
		"\xff\xfeutf",       /* not UTF-8 */
		"gh",                /* the same name as node 4, once cleaned */
		"node1",
		"node1",             /* listed twice */
		"t\tab\x7f\x01",     /* tab, DEL, C0 */
		"\xc3\xa9t\xc3\xa9", /* valid UTF-8 stays */
	};
	size_t n = sizeof hosts / sizeof hosts[0];
	node *nodes = make_nodes(n, hosts);
	for (size_t i = 0; i < n; i++) {
		set_chrony(&nodes[i], 0.001 * (double)(i + 1));
		nodes[i].polls_completed = i;
	}
	set_ptp(&nodes[0], PTP_PORT_SLAVE, 5, "x\"y\\z\x1b]0;t\x07");
	add_finding(&nodes[0], SEVERITY_WARN, "odd\"code\\");

	char *t = format(nodes, n, NULL, NOW);
	assert_null(strchr(t, 0x1B));
	assert_null(strchr(t, '\t'));
	assert_null(strchr(t, 0x7F));
	want_line(t, "synctop_node_up{node=\"a\\\"b\"} 1");
	want_line(t, "synctop_node_up{node=\"c\\\\d\"} 1");
	want_line(t, "synctop_node_up{node=\"e f\"} 1");
	want_line(t, "synctop_node_up{node=\"\xEF\xBF\xBD\xEF\xBF\xBDutf\"} 1");
	want_line(t, "synctop_node_up{node=\"t ab\"} 1");
	want_line(t, "synctop_node_up{node=\"\xc3\xa9t\xc3\xa9\"} 1");
	/* the first of each name is written, the others counted */
	want_line(t, "synctop_node_polls_completed_total{node=\"gh\"} 3");
	want_line(t, "synctop_node_polls_completed_total{node=\"node1\"} 6");
	want_line(t, "synctop_export_duplicate_nodes 2");
	want_line(t, "synctop_cluster_nodes{status=\"ok\"} 9");
	want_line(t, "synctop_cluster_nodes{status=\"warn\"} 1");
	want_line(t, "synctop_ptp_grandmaster_info{node=\"a\\\"b\",grandmaster=\"x\\\"y\\\\z\"} 1");
	want_line(t, "synctop_finding{node=\"a\\\"b\",code=\"odd\\\"code\\\\\",severity=\"warn\"} 1");
	free(t);
	free(nodes);
}

static void test_fleet_is_valid(void **state)
{
	(void)state;
	/* a mixed fleet: every combination the model allows, checked as a whole */
	size_t n = 60;
	node *nodes = make_nodes(n, NULL);
	for (size_t i = 0; i < n; i++) {
		node *nd = &nodes[i];
		switch (i % 6) {
		case 0:
			break; /* never polled */
		case 1:
			set_chrony(nd, 1e-3 * (double)i);
			break;
		case 2:
			set_ptp(nd, (i % 4) ? PTP_PORT_SLAVE : PTP_PORT_LISTENING, (int64_t)i * -37,
				(i % 5) ? "96bec0.fffe.dfca68" : "000001.fffe.000002");
			nd->obs.ptp.n_ports = 2;
			nd->obs.ptp.ports[1] = nd->obs.ptp.ports[0];
			nd->obs.ptp.ports[1].port_number = 2;
			nd->obs.ptp.ports[1].state = PTP_PORT_PASSIVE;
			break;
		case 3:
			set_chrony(nd, -1e-6 * (double)i);
			add_finding(nd, SEVERITY_WARN, "chrony.offset");
			add_finding(nd, SEVERITY_CRIT, "time.no_service");
			add_finding(nd, SEVERITY_WARN, NULL);
			break;
		case 4:
			set_chrony(nd, 0);
			nd->reachable = false;
			nd->polls_failed = i;
			break;
		default:
			answer(nd);
			nd->obs.clock.state = OBS_OK;
			nd->obs.clock.offset_s = 1e300;
			nd->obs.clock.uncertainty_s = 5e-324;
			nd->obs.clock.measured_at = INFINITY;
			break;
		}
	}
	char *t = format(nodes, n, NULL, NOW);
	want_line(t, "synctop_cluster_grandmasters 2");
	want_line(t, "synctop_clock_check_offset_seconds{node=\"node6\"} 1e+300");
	want_line(t, "synctop_clock_check_uncertainty_seconds{node=\"node6\"} 4.94065645841247e-324");
	no_line_starting(t, "synctop_clock_check_timestamp_seconds");
	want_line(t, "synctop_finding{node=\"node4\",code=\"\",severity=\"warn\"} 1");
	free(t);
	free(nodes);
}

/* ------------------------------------------------------------- the file */

static char *make_dir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/synctop-prom-XXXXXX", base && base[0] ? base : "/tmp");
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *copy = strdup(dir);
	assert_non_null(copy);
	return copy;
}

/* The names in dir, sorted and joined with '/', e.g. "a.prom/b". */
static void list_dir(const char *dir, char *out, size_t len)
{
	char *names[64] = {NULL};
	size_t n = 0;
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			continue;
		}
		assert_true(n < 64);
		names[n] = strdup(de->d_name);
		assert_non_null(names[n]);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(out);
		snprintf(out + used, len - used, "%s%s", i ? "/" : "", names[i]);
		free(names[i]);
	}
}

static char *slurp_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			char *bigger = realloc(buf, cap);
			assert_non_null(bigger);
			buf = bigger;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		assert_true(r >= 0);
		if (r == 0) {
			break;
		}
		len += (size_t)r;
	}
	buf[len] = '\0';
	return buf;
}

static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	char *text = slurp_fd(fd);
	close(fd);
	return text;
}

static void remove_dir(const char *dir, const char *const *names)
{
	char path[4200];
	for (size_t i = 0; names[i]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (unlink(path) != 0) {
			assert_int_equal(rmdir(path), 0);
		}
	}
	assert_int_equal(rmdir(dir), 0);
}

static void test_write_atomic(void **state)
{
	(void)state;
	char *dir = make_dir();
	char path[4200], listing[1024], err[512];
	snprintf(path, sizeof path, "%s/synctop.prom", dir);
	node *nodes = make_nodes(2, NULL);
	set_chrony(&nodes[0], 0.001);

	mode_t old_mask = umask(077); /* the file is readable by node_exporter anyway */
	int rc = report_prometheus_write(path, nodes, 2, NULL, NOW, err, sizeof err);
	umask(old_mask);
	if (rc != 0) {
		fail_msg("write failed: %s", err);
	}
	char *want = format(nodes, 2, NULL, NOW);
	char *got = slurp(path);
	assert_string_equal(got, want);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	list_dir(dir, listing, sizeof listing);
	assert_string_equal(listing, "synctop.prom");
	free(got);

	/* a reader holding the old file keeps reading the whole old file: the
	 * new one is a new inode renamed over it, never a rewrite in place */
	int old_fd = open(path, O_RDONLY);
	assert_true(old_fd >= 0);
	set_chrony(&nodes[1], -0.25);
	assert_int_equal(report_prometheus_write(path, nodes, 2, NULL, NOW + 1, err, sizeof err), 0);
	char *old = slurp_fd(old_fd);
	close(old_fd);
	assert_string_equal(old, want);
	char *want2 = format(nodes, 2, NULL, NOW + 1);
	got = slurp(path);
	assert_string_equal(got, want2);
	assert_true(strcmp(want, want2) != 0);
	want_line(got, "synctop_chrony_offset_seconds{node=\"node2\"} -0.25");
	struct stat st2;
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st2.st_ino != st.st_ino);
	list_dir(dir, listing, sizeof listing);
	assert_string_equal(listing, "synctop.prom");

	free(got);
	free(old);
	free(want);
	free(want2);
	free(nodes);
	static const char *const names[] = {"synctop.prom", NULL};
	remove_dir(dir, names);
	free(dir);
}

static void test_write_failures(void **state)
{
	(void)state;
	char *dir = make_dir();
	char path[4200], listing[1024], err[512];
	node *nodes = make_nodes(1, NULL);
	set_chrony(&nodes[0], 0.001);

	/* the directory does not exist */
	snprintf(path, sizeof path, "%s/missing/synctop.prom", dir);
	memset(err, 0, sizeof err);
	assert_int_equal(report_prometheus_write(path, nodes, 1, NULL, NOW, err, sizeof err), -1);
	assert_true(strncmp(err, path, strlen(path)) == 0);
	assert_non_null(strstr(err, strerror(ENOENT)));
	list_dir(dir, listing, sizeof listing);
	assert_string_equal(listing, "");

	/* the name is a directory: everything works up to the rename, and the
	 * temporary file is removed after it fails */
	snprintf(path, sizeof path, "%s/isdir.prom", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(report_prometheus_write(path, nodes, 1, NULL, NOW, err, sizeof err), -1);
	assert_true(strncmp(err, path, strlen(path)) == 0);
	assert_non_null(strstr(err, "cannot replace it"));
	list_dir(dir, listing, sizeof listing);
	assert_string_equal(listing, "isdir.prom");
	assert_int_equal(rmdir(path), 0);

	/* a write that fails half way (the file size limit stands in for a full
	 * disk): the previous file stays whole, no temporary file is left */
	snprintf(path, sizeof path, "%s/synctop.prom", dir);
	assert_int_equal(report_prometheus_write(path, nodes, 1, NULL, NOW, err, sizeof err), 0);
	char *before = slurp(path);
	struct rlimit saved, small;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small = saved;
	small.rlim_cur = 100;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	set_chrony(&nodes[0], 0.5);
	int rc = report_prometheus_write(path, nodes, 1, NULL, NOW, err, sizeof err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(rc, -1);
	assert_true(strncmp(err, path, strlen(path)) == 0);
	assert_non_null(strstr(err, strerror(EFBIG)));
	char *after = slurp(path);
	assert_string_equal(after, before);
	list_dir(dir, listing, sizeof listing);
	assert_string_equal(listing, "synctop.prom");
	free(before);
	free(after);

	/* a directory we may not write to (root may write anywhere) */
	if (geteuid() != 0) {
		char ro[4100];
		snprintf(ro, sizeof ro, "%s/ro", dir);
		assert_int_equal(mkdir(ro, 0555), 0);
		snprintf(path, sizeof path, "%s/synctop.prom", ro);
		assert_int_equal(report_prometheus_write(path, nodes, 1, NULL, NOW, err, sizeof err), -1);
		assert_true(strncmp(err, path, strlen(path)) == 0);
		assert_non_null(strstr(err, strerror(EACCES)));
		list_dir(ro, listing, sizeof listing);
		assert_string_equal(listing, "");
		assert_int_equal(rmdir(ro), 0);
	}

	free(nodes);
	static const char *const names[] = {"synctop.prom", NULL};
	remove_dir(dir, names);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_rejects),
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_unknowns_left_out),
		cmocka_unit_test(test_stale_ptp_values_left_out),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_fleet_is_valid),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_write_failures),
	};
	return cmocka_run_group_tests_name("report_prometheus", tests, NULL, NULL);
}
