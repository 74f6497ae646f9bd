/* test_pmc_parse.c - pmc_parse on every captured pmc output, plus the
 * failure shapes a remote node can send us (cut, garbage, NUL, huge, odd
 * block orders, several ports, error answers, other clocks). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "pmc_parse.h"

#define SLAVE_CLOCK "1aed80.fffe.1a0b51"
#define MASTER_CLOCK "96bec0.fffe.dfca68"
#define FREERUN_CLOCK "e6b683.fffe.859fc1"

/* ------------------------------------------------------------ helpers */

static void parse_buf(const char *out, size_t out_len, const char *err, int rc, ptp_obs *obs)
{
	tool_output t = {
		.out = out, .out_len = out_len,
		.err = err, .err_len = err ? strlen(err) : 0,
		.rc = rc,
	};
	pmc_parse(&t, obs);
}

static void parse_text(const char *out, const char *err, int rc, ptp_obs *obs)
{
	parse_buf(out, strlen(out), err, rc, obs);
}

/* Parse tests/fixtures/NAME.txt with NAME.stderr.txt when there is one.
 * Every pmc capture exited 0 (INDEX.md). */
static void parse_fixture(const char *name, ptp_obs *obs)
{
	char path[256];
	size_t out_len, err_len;
	snprintf(path, sizeof path, "%s.txt", name);
	char *out = fixture_read(path, &out_len);
	snprintf(path, sizeof path, "%s.stderr.txt", name);
	char *err = fixture_read_optional(path, &err_len);
	tool_output t = {.out = out, .out_len = out_len, .err = err, .err_len = err_len, .rc = 0};
	pmc_parse(&t, obs);
	free(out);
	free(err);
}

static char *read_batch(size_t *len)
{
	return fixture_read("pmc-batch-multi-get-slave.txt", len);
}

/* Growable string for building inputs. */
typedef struct {
	char *p;
	size_t n, cap;
} buf;

static void buf_add(buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_str(buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void assert_clock_fields_unknown(const ptp_obs *o)
{
	assert_int_equal(o->domain_number, INT_UNKNOWN);
	assert_int_equal(o->slave_only, INT_UNKNOWN);
	assert_int_equal(o->number_ports, INT_UNKNOWN);
	assert_int_equal(o->priority1, INT_UNKNOWN);
	assert_true(o->master_offset_ns == PTP_NS_UNKNOWN);
	assert_int_equal(o->gm_present, INT_UNKNOWN);
	assert_string_equal(o->gm_identity, "");
	assert_int_equal(o->steps_removed, INT_UNKNOWN);
	assert_true(o->offset_from_master_ns == PTP_NS_UNKNOWN);
	assert_true(o->mean_path_delay_ns == PTP_NS_UNKNOWN);
	assert_string_equal(o->parent_port_identity, "");
	assert_string_equal(o->grandmaster_identity, "");
	assert_int_equal(o->gm_clock_class, INT_UNKNOWN);
	assert_int_equal(o->gm_clock_accuracy, INT_UNKNOWN);
	assert_int_equal(o->gm_offset_scaled_log_variance, INT_UNKNOWN);
	assert_int_equal(o->current_utc_offset, INT_UNKNOWN);
	assert_int_equal(o->time_source, INT_UNKNOWN);
	assert_true(o->ingress_time_ns == PTP_NS_UNKNOWN);
}

/* A failed parse leaves nothing that could pass for data. */
static void assert_failed(const ptp_obs *o, obs_state state)
{
	assert_int_equal(o->state, state);
	assert_true(o->error[0] != '\0');
	assert_string_equal(o->clock_identity, "");
	assert_clock_fields_unknown(o);
	assert_int_equal(o->n_ports, 0);
	assert_int_equal(o->foreign_responses, 0);
}

/* ---------------------------------------------------- captured fixtures */

static void test_batch_slave_fills_everything(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-batch-multi-get-slave", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_int_equal(o.foreign_responses, 0);

	/* DEFAULT_DATA_SET */
	assert_string_equal(o.clock_identity, SLAVE_CLOCK);
	assert_int_equal(o.domain_number, 0);
	assert_int_equal(o.slave_only, 1);
	assert_int_equal(o.number_ports, 1);
	assert_int_equal(o.priority1, 128);
	assert_int_equal(o.priority2, 128);
	assert_int_equal(o.clock_class, 255);
	/* TIME_STATUS_NP: master_offset -6600 = node 6.6 us behind */
	assert_true(o.master_offset_ns == -6600);
	assert_int_equal(o.gm_present, 1);
	assert_string_equal(o.gm_identity, MASTER_CLOCK);
	/* CURRENT_DATA_SET */
	assert_int_equal(o.steps_removed, 1);
	assert_true(o.offset_from_master_ns == -6600);
	assert_true(o.mean_path_delay_ns == 8737);
	/* PARENT_DATA_SET */
	assert_string_equal(o.parent_port_identity, MASTER_CLOCK "-1");
	assert_string_equal(o.grandmaster_identity, MASTER_CLOCK);
	assert_int_equal(o.gm_priority1, 100);
	assert_int_equal(o.gm_priority2, 128);
	assert_int_equal(o.gm_clock_class, 248);
	assert_int_equal(o.gm_clock_accuracy, 0xfe);                /* unknown */
	assert_int_equal(o.gm_offset_scaled_log_variance, 0xffff);  /* not computed */
	/* TIME_PROPERTIES_DATA_SET */
	assert_int_equal(o.current_utc_offset, 37);
	assert_int_equal(o.current_utc_offset_valid, 0);
	assert_int_equal(o.leap61, 0);
	assert_int_equal(o.leap59, 0);
	assert_int_equal(o.ptp_timescale, 0);
	assert_int_equal(o.time_traceable, 0);
	assert_int_equal(o.frequency_traceable, 0);
	assert_int_equal(o.time_source, 0xa0);
	/* PORT_DATA_SET; no PORT_PROPERTIES_NP in this capture */
	assert_int_equal(o.n_ports, 1);
	const ptp_port *p = &o.ports[0];
	assert_string_equal(p->port_identity, SLAVE_CLOCK "-1");
	assert_int_equal(p->port_number, 1);
	assert_int_equal(p->state, PTP_PORT_SLAVE);
	assert_true(p->peer_mean_path_delay_ns == 0);
	assert_int_equal(p->log_sync_interval, 0);
	assert_int_equal(p->delay_mechanism, 1);
	assert_string_equal(p->interface, "");
	assert_string_equal(p->timestamping, "");
	/* unused slots stay unknown */
	assert_int_equal(o.ports[1].state, PTP_PORT_UNKNOWN);
	assert_int_equal(o.ports[1].port_number, INT_UNKNOWN);
}

static void test_single_data_sets_per_role(void **state)
{
	(void)state;
	static const struct {
		const char *role, *clock;
		int64_t master_offset;
		int gm_present;
		int steps;
		int64_t offset, delay;
		const char *parent;
		int slave_only, priority1, clock_class;
		ptp_port_state port;
	} roles[] = {
		{"slave", SLAVE_CLOCK, -6311, 1, 1, -6311, 8339, MASTER_CLOCK "-1", 1, 128, 255,
		 PTP_PORT_SLAVE},
		{"master", MASTER_CLOCK, 0, 0, 0, 0, 0, MASTER_CLOCK "-0", 0, 100, 248,
		 PTP_PORT_MASTER},
		{"freerun-uncalibrated", FREERUN_CLOCK, -6639, 1, 1, -6639, 8086, MASTER_CLOCK "-1",
		 1, 128, 255, PTP_PORT_UNCALIBRATED},
	};
	for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
		char name[128];
		ptp_obs o;

		snprintf(name, sizeof name, "pmc-time-status-np-%s", roles[i].role);
		parse_fixture(name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_true(o.master_offset_ns == roles[i].master_offset);
		assert_int_equal(o.gm_present, roles[i].gm_present);
		assert_string_equal(o.gm_identity, MASTER_CLOCK);
		/* only TIME_STATUS_NP was asked: the rest stays unknown */
		assert_true(o.offset_from_master_ns == PTP_NS_UNKNOWN);
		assert_int_equal(o.priority1, INT_UNKNOWN);
		assert_int_equal(o.n_ports, 0);
		/* no DEFAULT_DATA_SET: the clock is named by the block header */
		assert_string_equal(o.clock_identity, roles[i].clock);

		snprintf(name, sizeof name, "pmc-current-data-set-%s", roles[i].role);
		parse_fixture(name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_int_equal(o.steps_removed, roles[i].steps);
		assert_true(o.offset_from_master_ns == roles[i].offset);
		assert_true(o.mean_path_delay_ns == roles[i].delay);
		assert_true(o.master_offset_ns == PTP_NS_UNKNOWN);

		snprintf(name, sizeof name, "pmc-parent-data-set-%s", roles[i].role);
		parse_fixture(name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_string_equal(o.parent_port_identity, roles[i].parent);
		assert_string_equal(o.grandmaster_identity, MASTER_CLOCK);
		assert_int_equal(o.gm_priority1, 100);
		assert_int_equal(o.gm_clock_class, 248);
		assert_int_equal(o.gm_clock_accuracy, 0xfe);
		assert_int_equal(o.gm_offset_scaled_log_variance, 0xffff);
		assert_int_equal(o.gm_priority2, 128);

		snprintf(name, sizeof name, "pmc-default-data-set-%s", roles[i].role);
		parse_fixture(name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_string_equal(o.clock_identity, roles[i].clock);
		assert_int_equal(o.slave_only, roles[i].slave_only);
		assert_int_equal(o.priority1, roles[i].priority1);
		assert_int_equal(o.clock_class, roles[i].clock_class);
		assert_int_equal(o.priority2, 128);
		assert_int_equal(o.number_ports, 1);
		assert_int_equal(o.domain_number, 0);

		snprintf(name, sizeof name, "pmc-time-properties-data-set-%s", roles[i].role);
		parse_fixture(name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_int_equal(o.current_utc_offset, 37);
		assert_int_equal(o.time_source, 0xa0);
		assert_int_equal(o.ptp_timescale, 0);
		assert_int_equal(o.time_traceable, 0);
		assert_int_equal(o.frequency_traceable, 0);

		snprintf(name, sizeof name, "pmc-port-data-set-%s", roles[i].role);
		parse_fixture(name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_int_equal(o.n_ports, 1);
		assert_int_equal(o.ports[0].state, roles[i].port);
		assert_int_equal(o.ports[0].port_number, 1);
		assert_int_equal(o.ports[0].delay_mechanism, 1);
		char pid[PTP_ID_LEN];
		snprintf(pid, sizeof pid, "%s-1", roles[i].clock);
		assert_string_equal(o.ports[0].port_identity, pid);
	}
}

static void test_port_listening(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-port-data-set-node2-listening", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 1);
	assert_int_equal(o.ports[0].state, PTP_PORT_LISTENING);
	assert_int_equal(o.ports[0].log_sync_interval, 0);
}

static void test_port_properties(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-port-properties-np-slave", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 1);
	const ptp_port *p = &o.ports[0];
	assert_string_equal(p->port_identity, SLAVE_CLOCK "-1");
	assert_int_equal(p->state, PTP_PORT_SLAVE);
	assert_string_equal(p->interface, "eth0");
	assert_string_equal(p->timestamping, "SOFTWARE");
	/* PORT_DATA_SET fields were not asked for */
	assert_true(p->peer_mean_path_delay_ns == PTP_NS_UNKNOWN);
	assert_int_equal(p->log_sync_interval, INT_UNKNOWN);
	assert_int_equal(p->delay_mechanism, INT_UNKNOWN);
}

/* PORT_STATS_NP alone (a SLAVE port of the shared lab): its counts, and
 * nothing else about the port or the clock. */
static void test_port_stats_np_slave(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-port-stats-np-slave", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 1);
	assert_clock_fields_unknown(&o);
	assert_string_equal(o.clock_identity, SLAVE_CLOCK);
	const ptp_port *p = &o.ports[0];
	assert_string_equal(p->port_identity, SLAVE_CLOCK "-1");
	assert_int_equal(p->state, PTP_PORT_UNKNOWN);
	assert_int_equal(p->sync.rx_sync, 98);
	assert_int_equal(p->sync.rx_follow_up, 98);
	assert_int_equal(p->sync.rx_delay_resp, 192);
	assert_int_equal(p->sync.rx_announce, 99);
	assert_int_equal(p->sync.tx_sync, 0);
	assert_int_equal(p->sync.tx_delay_req, 102);
	assert_int_equal(p->sync.tx_announce, 0);
	/* linuxptp 3.1: no PORT_SERVICE_STATS_NP */
	assert_int_equal(p->sync.announce_timeouts, PTP_COUNT_UNKNOWN);
	assert_int_equal(p->sync.sync_timeouts, PTP_COUNT_UNKNOWN);
	assert_int_equal(p->sync.log_announce_interval, INT_UNKNOWN);
	assert_true(o.ingress_time_ns == PTP_NS_UNKNOWN);
}

static void test_unread_data_set_is_skipped(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET CLOCK_DESCRIPTION\n"
		   "\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT CLOCK_DESCRIPTION \n"
		   "\t\tclockType             0x8000\n"
		   "\t\tphysicalLayerProtocol IEEE 802.3\n",
		   NULL, 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 0);
	assert_clock_fields_unknown(&o);
	assert_string_equal(o.clock_identity, SLAVE_CLOCK);
}

static void test_no_ptp4l(void **state)
{
	(void)state;
	static const char *const names[] = {
		"pmc-no-ptp4l-default-sock", "pmc-no-ptp4l-sock-missing", "pmc-no-ptp4l-stale-sock",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		ptp_obs o;
		parse_fixture(names[i], &o);
		assert_failed(&o, OBS_DAEMON_UNREACHABLE);
		assert_non_null(strstr(o.error, "ptp4l did not answer on its management socket"));
		assert_non_null(strstr(o.error, "uds_address"));
	}
}

static void test_bad_command(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-bad-command", &o);
	assert_failed(&o, OBS_COMMAND_FAILED);
	assert_non_null(strstr(o.error, "bad command: GET NO_SUCH_THING"));
}

static void test_version_output_is_garbage(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-version", &o);
	assert_failed(&o, OBS_GARBAGE);
}

static void test_other_clocks_are_counted_and_ignored(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-b1-current-data-set-all-clocks", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.foreign_responses, 2);
	/* the first block is ours; the master's 0.0 must not overwrite it */
	assert_string_equal(o.clock_identity, SLAVE_CLOCK);
	assert_int_equal(o.steps_removed, 1);
	assert_true(o.offset_from_master_ns == -6941);
	assert_true(o.mean_path_delay_ns == 8737);
}

static void test_combined_probe_pmc_section(void **state)
{
	(void)state;
	size_t len;
	char *all = fixture_read("ssh-node2-combined-probe.txt", &len);
	/* the section as the transport hands it over: after "===pmc", up to
	 * the "rc=" line the probe script appends */
	char *start = strstr(all, "===pmc\n");
	assert_non_null(start);
	start += strlen("===pmc\n");
	char *end = strstr(start, "rc=");
	assert_non_null(end);
	assert_int_equal(end[-1], '\n');

	ptp_obs o;
	parse_buf(start, (size_t)(end - start), "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.master_offset_ns == -8090);
	assert_int_equal(o.gm_present, 1);
	assert_string_equal(o.gm_identity, "e273a6.fffe.706889");
	assert_string_equal(o.clock_identity, "2e4ac0.fffe.5d3332");
	assert_int_equal(o.n_ports, 1);
	assert_string_equal(o.ports[0].port_identity, "2e4ac0.fffe.5d3332-1");
	assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
	assert_true(o.offset_from_master_ns == PTP_NS_UNKNOWN);
	free(all);
}

/* ------------------------------------------------------- error states */

static void test_empty(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("", "", 0, &o);
	assert_failed(&o, OBS_EMPTY);

	tool_output nothing = {.out = NULL, .out_len = 0, .err = NULL, .err_len = 0, .rc = -1};
	pmc_parse(&nothing, &o);
	assert_failed(&o, OBS_EMPTY);

	parse_text("\n  \n", "", 0, &o);
	assert_failed(&o, OBS_EMPTY);
}

static void test_tool_missing(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("", "sh: 1: pmc: not found\n", TOOL_RC_NOT_FOUND, &o);
	assert_failed(&o, OBS_TOOL_MISSING);
	/* exit status lost (rc -1): stderr alone tells */
	parse_text("", "bash: line 1: pmc: command not found\n", -1, &o);
	assert_failed(&o, OBS_TOOL_MISSING);
}

static void test_permission_denied(void **state)
{
	(void)state;
	ptp_obs o;
	/* non-root pmc -u cannot bind /var/run/pmc.<pid> */
	parse_text("", "pmc[1.2]: uds: bind failed: Permission denied\nfailed to create pmc\n", 255, &o);
	assert_failed(&o, OBS_PERMISSION_DENIED);
	assert_non_null(strstr(o.error, "root"));
	assert_non_null(strstr(o.error, "sudo -n"));

	/* it got as far as sending but could not reach the socket */
	parse_text("sending: GET TIME_STATUS_NP\n", "uds: sendto failed: Operation not permitted\n", 0, &o);
	assert_failed(&o, OBS_PERMISSION_DENIED);
	assert_non_null(strstr(o.error, "sudo -n"));
}

static void test_other_failure_keeps_stderr(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("", "failed to create pmc\n", 255, &o);
	assert_failed(&o, OBS_COMMAND_FAILED);
	assert_non_null(strstr(o.error, "failed to create pmc"));
}

static void test_garbage(void **state)
{
	(void)state;
	static const char *const inputs[] = {
		"hello world\n",
		/* a value that is not a number where one is required */
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		"\t\tstepsRemoved     1\n\t\toffsetFromMaster abc\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n\t\tstepsRemoved 1x\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n\t\tstepsRemoved\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n\t\tmeanPathDelay 1.\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n\t\tmeanPathDelay nan\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		"\t\toffsetFromMaster 99999999999999999999.0\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT TIME_STATUS_NP \n\t\tmaster_offset -6600.0\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT TIME_STATUS_NP \n\t\tgmPresent maybe\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT DEFAULT_DATA_SET \n\t\tpriority1 300\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT DEFAULT_DATA_SET \n\t\tslaveOnly 2\n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT TIME_PROPERTIES_DATA_SET \n"
		"\t\ttimeSource 0xZZ\n",
		"\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n\t\tlogSyncInterval -129\n",
		/* structure */
		"\t\tstepsRemoved 1\n",
		"\tnot-an-identity seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n",
		"\t" SLAVE_CLOCK " seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n",
		"\t" SLAVE_CLOCK "-0 sequence 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n",
		"\t" SLAVE_CLOCK "-0 seq x RESPONSE MANAGEMENT CURRENT_DATA_SET \n",
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT \n",
		"\t" SLAVE_CLOCK "-0\n",
		/* a good block, then fields after a line that ended it */
		"\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		"\t\tstepsRemoved 1\nsending: GET X\n\t\tmeanPathDelay 1.0\n",
	};
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		ptp_obs o;
		parse_text(inputs[i], "", 0, &o);
		if (o.state != OBS_GARBAGE) {
			fail_msg("input %zu: state %s, want garbage", i, obs_state_name(o.state));
		}
		assert_failed(&o, OBS_GARBAGE);
	}
}

static void test_nul_bytes(void **state)
{
	(void)state;
	size_t len;
	char *text = read_batch(&len);
	ptp_obs o;
	/* a NUL inside a value, and one between blocks */
	size_t at = (size_t)(strstr(text, "-6600.0") - text) + 2;
	text[at] = '\0';
	parse_buf(text, len, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);
	free(text);

	text = read_batch(&len);
	text[len - 1] = '\0'; /* the final newline */
	parse_buf(text, len, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);
	free(text);

	parse_buf("\0\0\0", 3, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);
}

static void test_ten_megabytes_of_junk(void **state)
{
	(void)state;
	const size_t size = 10u * 1024 * 1024;
	char *junk = malloc(size);
	assert_non_null(junk);
	ptp_obs o;

	/* random bytes (fixed seed: the test must be repeatable) */
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[i] = (char)(x & 0xff);
	}
	parse_buf(junk, size, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);

	/* printable, one endless line */
	memset(junk, 'A', size);
	parse_buf(junk, size, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);

	/* an endless field value inside a real block */
	const char *head = "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
			   "\t\toffsetFromMaster ";
	memset(junk, '7', size);
	memcpy(junk, head, strlen(head));
	junk[size - 1] = '\n';
	parse_buf(junk, size, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);

	/* many short junk lines; then the same with a real answer at the end */
	for (size_t i = 0; i < size; i++) {
		junk[i] = (i % 64 == 63) ? '\n' : (char)('a' + i % 26);
	}
	parse_buf(junk, size, "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);
	const char *tail = "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
			   "\t\toffsetFromMaster -12.0\n";
	memcpy(junk + size - strlen(tail), tail, strlen(tail));
	junk[size - strlen(tail) - 1] = '\n';
	parse_buf(junk, size, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.offset_from_master_ns == -12);

	/* 10 MB of stderr noise after a no-answer run */
	memset(junk, 'e', size);
	junk[size - 1] = '\0';
	parse_text("sending: GET TIME_STATUS_NP\n", junk, 0, &o);
	assert_failed(&o, OBS_DAEMON_UNREACHABLE);
	free(junk);
}

/* ------------------------------------------------------------ truncation */

/* Cut the batch capture at every length.  pmc ends every line with '\n', so
 * a cut right after one is a shorter but well-formed answer; anywhere else
 * the last line may be a cut value and nothing is trusted. */
static void test_truncated_at_every_byte(void **state)
{
	(void)state;
	size_t len;
	char *text = read_batch(&len);
	size_t first_header = (size_t)(strstr(text, "\n\t") - text) + 1;
	for (size_t cut = 1; cut < len; cut++) {
		ptp_obs o;
		parse_buf(text, cut, "", 0, &o);
		if (text[cut - 1] != '\n') {
			if (o.state != OBS_TRUNCATED) {
				fail_msg("cut at %zu: state %s, want truncated", cut, obs_state_name(o.state));
			}
			assert_failed(&o, OBS_TRUNCATED);
		} else if (cut <= first_header) {
			assert_failed(&o, OBS_DAEMON_UNREACHABLE);
		} else {
			assert_int_equal(o.state, OBS_OK);
			assert_string_equal(o.clock_identity, SLAVE_CLOCK);
		}
	}
	free(text);
}

static void test_cut_inside_a_value(void **state)
{
	(void)state;
	size_t len;
	char *text = read_batch(&len);
	size_t cut = (size_t)(strstr(text, "offsetFromMaster -6600.0") - text) +
		     strlen("offsetFromMaster -66");
	ptp_obs o;
	parse_buf(text, cut, "", 0, &o);
	assert_failed(&o, OBS_TRUNCATED);
	assert_true(o.offset_from_master_ns == PTP_NS_UNKNOWN);
	free(text);
}

static void test_short_final_block_is_kept(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET CURRENT_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		   "\t\tstepsRemoved     1\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.steps_removed, 1);
	assert_true(o.offset_from_master_ns == PTP_NS_UNKNOWN);
	assert_true(o.mean_path_delay_ns == PTP_NS_UNKNOWN);
}

/* ----------------------------------------------------------- block order */

/* Split pmc output into its lines, blocks kept whole: a header line with
 * its field lines is one item. */
static size_t split_items(char *text, char *items[], size_t max)
{
	size_t n = 0;
	char *p = text;
	while (*p && n < max) {
		char *start = p;
		do {
			char *nl = strchr(p, '\n');
			assert_non_null(nl);
			p = nl + 1;
		} while (start[0] == '\t' && p[0] == '\t' && p[1] == '\t');
		size_t len = (size_t)(p - start);
		items[n] = malloc(len + 1);
		assert_non_null(items[n]);
		memcpy(items[n], start, len);
		items[n][len] = '\0';
		n++;
	}
	return n;
}

static void test_block_order_does_not_matter(void **state)
{
	(void)state;
	size_t len;
	char *text = read_batch(&len);
	ptp_obs want, got;
	parse_buf(text, len, "", 0, &want);
	assert_int_equal(want.state, OBS_OK);

	char *items[32];
	size_t n = split_items(text, items, 32);
	assert_int_equal(n, 12); /* 6 sending lines, 6 blocks */

	/* reversed: every answer before every "sending:" */
	buf b = {0};
	for (size_t i = n; i-- > 0;) {
		buf_str(&b, items[i]);
	}
	parse_buf(b.p, b.n, "", 0, &got);
	assert_int_equal(got.state, OBS_OK);
	assert_memory_equal(&got, &want, sizeof want);
	free(b.p);

	/* rotated by every amount */
	for (size_t r = 1; r < n; r++) {
		buf c = {0};
		for (size_t i = 0; i < n; i++) {
			buf_str(&c, items[(i + r) % n]);
		}
		parse_buf(c.p, c.n, "", 0, &got);
		assert_memory_equal(&got, &want, sizeof want);
		free(c.p);
	}
	for (size_t i = 0; i < n; i++) {
		free(items[i]);
	}
	free(text);
}

static void test_duplicate_blocks(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		   "\t\tstepsRemoved     1\n"
		   "\t\toffsetFromMaster -6600.0\n"
		   "\t\tmeanPathDelay    8737.0\n"
		   "\t" SLAVE_CLOCK "-0 seq 1 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		   "\t\toffsetFromMaster -100.0\n"
		   "\t" SLAVE_CLOCK "-1 seq 2 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportIdentity            " SLAVE_CLOCK "-1\n"
		   "\t\tportState               UNCALIBRATED\n"
		   "\t\tlogSyncInterval         0\n"
		   "\t" SLAVE_CLOCK "-1 seq 3 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportIdentity            " SLAVE_CLOCK "-1\n"
		   "\t\tportState               SLAVE\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	/* the later block wins for what it carries, the rest is kept */
	assert_true(o.offset_from_master_ns == -100);
	assert_true(o.mean_path_delay_ns == 8737);
	assert_int_equal(o.steps_removed, 1);
	assert_int_equal(o.n_ports, 1);
	assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
	assert_int_equal(o.ports[0].log_sync_interval, 0);
}

/* ------------------------------------------------------------- ports */

static void test_boundary_clock_ports_stay_apart(void **state)
{
	(void)state;
	ptp_obs o;
	/* two PORT_DATA_SETs and two PORT_PROPERTIES_NPs, interleaved */
	parse_text("sending: GET PORT_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-2 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportIdentity            " SLAVE_CLOCK "-2\n"
		   "\t\tportState               MASTER\n"
		   "\t\tpeerMeanPathDelay       0\n"
		   "\t\tlogSyncInterval         -3\n"
		   "\t\tdelayMechanism          2\n"
		   "sending: GET PORT_PROPERTIES_NP\n"
		   "\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportIdentity            " SLAVE_CLOCK "-1\n"
		   "\t\tportState               SLAVE\n"
		   "\t\tpeerMeanPathDelay       412\n"
		   "\t\tlogSyncInterval         0\n"
		   "\t\tdelayMechanism          1\n"
		   "\t" SLAVE_CLOCK "-1 seq 1 RESPONSE MANAGEMENT PORT_PROPERTIES_NP \n"
		   "\t\tportIdentity            " SLAVE_CLOCK "-1\n"
		   "\t\tportState               SLAVE\n"
		   "\t\ttimestamping            HARDWARE\n"
		   "\t\tinterface               ens1f0\n"
		   "\t" SLAVE_CLOCK "-2 seq 1 RESPONSE MANAGEMENT PORT_PROPERTIES_NP \n"
		   "\t\tportIdentity            " SLAVE_CLOCK "-2\n"
		   "\t\tportState               MASTER\n"
		   "\t\ttimestamping            HARDWARE\n"
		   "\t\tinterface               ens1f1\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 2);
	/* entries appear in first-seen order */
	const ptp_port *p2 = &o.ports[0], *p1 = &o.ports[1];
	assert_string_equal(p2->port_identity, SLAVE_CLOCK "-2");
	assert_int_equal(p2->port_number, 2);
	assert_int_equal(p2->state, PTP_PORT_MASTER);
	assert_int_equal(p2->log_sync_interval, -3);
	assert_int_equal(p2->delay_mechanism, 2);
	assert_string_equal(p2->interface, "ens1f1");
	assert_string_equal(p2->timestamping, "HARDWARE");
	assert_string_equal(p1->port_identity, SLAVE_CLOCK "-1");
	assert_int_equal(p1->port_number, 1);
	assert_int_equal(p1->state, PTP_PORT_SLAVE);
	assert_true(p1->peer_mean_path_delay_ns == 412);
	assert_string_equal(p1->interface, "ens1f0");
}

static void test_more_ports_than_slots(void **state)
{
	(void)state;
	buf b = {0};
	for (int i = 1; i <= PTP_MAX_PORTS + 2; i++) {
		char block[256];
		snprintf(block, sizeof block,
			 "\t%s-%d seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
			 "\t\tportIdentity            %s-%d\n"
			 "\t\tportState               MASTER\n",
			 SLAVE_CLOCK, i, SLAVE_CLOCK, i);
		buf_str(&b, block);
	}
	ptp_obs o;
	parse_buf(b.p, b.n, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, PTP_MAX_PORTS);
	assert_int_equal(o.ports[PTP_MAX_PORTS - 1].port_number, PTP_MAX_PORTS);
	assert_non_null(strstr(o.error, "2 more port(s)"));
	free(b.p);
}

static void test_every_port_state(void **state)
{
	(void)state;
	for (int s = PTP_PORT_INITIALIZING; s <= PTP_PORT_GRAND_MASTER; s++) {
		char text[256];
		snprintf(text, sizeof text,
			 "\t%s-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n\t\tportState %s\n", SLAVE_CLOCK,
			 ptp_port_state_name((ptp_port_state)s));
		ptp_obs o;
		parse_text(text, "", 0, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_int_equal(o.n_ports, 1);
		assert_int_equal(o.ports[0].state, s);
	}
	ptp_obs o;
	parse_text("\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportState BOGUS\n\t\tdelayMechanism 1\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.ports[0].state, PTP_PORT_UNKNOWN);
	assert_int_equal(o.ports[0].delay_mechanism, 1);
}

/* ------------------------------------------------------- field values */

static void test_rounding_to_nanoseconds(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int64_t ns;
	} cases[] = {
		{"-6600.0", -6600}, {"-6600.5", -6601}, {"-6600.4", -6600}, {"12.5", 13},
		{"0.4", 0},         {"-0.5", -1},       {"-0.0", 0},        {"8737.49", 8737},
		{"+3.6", 4},        {"42", 42},         {"140737488355327.9", 140737488355328},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[256];
		snprintf(text, sizeof text,
			 "\t%s-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n\t\toffsetFromMaster %s\n",
			 SLAVE_CLOCK, cases[i].text);
		ptp_obs o;
		parse_text(text, "", 0, &o);
		assert_int_equal(o.state, OBS_OK);
		if (o.offset_from_master_ns != cases[i].ns) {
			fail_msg("%s -> %lld, want %lld", cases[i].text, (long long)o.offset_from_master_ns,
				 (long long)cases[i].ns);
		}
	}
}

static void test_bad_identities_are_left_empty(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT TIME_STATUS_NP \n"
		   "\t\tmaster_offset              -7\n"
		   "\t\tgmIdentity                 96bec0.fffe.dfca68;rm\n"
		   "\t" SLAVE_CLOCK "-0 seq 1 RESPONSE MANAGEMENT PARENT_DATA_SET \n"
		   "\t\tparentPortIdentity         96bec0.fffe.dfca68-1-1\n"
		   "\t\tgrandmasterIdentity        0123456789abcdef0123456789abcdef01\n"
		   "\t" SLAVE_CLOCK "-0 seq 2 RESPONSE MANAGEMENT DEFAULT_DATA_SET \n"
		   "\t\tclockIdentity              \x1b[2J\n"
		   "\t" SLAVE_CLOCK "-1 seq 3 RESPONSE MANAGEMENT PORT_PROPERTIES_NP \n"
		   "\t\tportIdentity               " SLAVE_CLOCK "-1\n"
		   "\t\ttimestamping               SOFT\x07WARE\n"
		   "\t\tinterface                  0123456789012345678901234567890123\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.master_offset_ns == -7);
	assert_string_equal(o.gm_identity, "");
	assert_string_equal(o.parent_port_identity, "");
	assert_string_equal(o.grandmaster_identity, "");
	/* the rejected clockIdentity falls back to the header's clock */
	assert_string_equal(o.clock_identity, SLAVE_CLOCK);
	assert_int_equal(o.n_ports, 1);
	assert_string_equal(o.ports[0].timestamping, "");
	assert_string_equal(o.ports[0].interface, "");
}

static void test_crlf_and_hex(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET TIME_PROPERTIES_DATA_SET\r\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT TIME_PROPERTIES_DATA_SET \r\n"
		   "\t\tcurrentUtcOffset      -2\r\n"
		   "\t\ttimeSource            0x20\r\n"
		   "\t\tptpTimescale          1\r\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.current_utc_offset, -2);
	assert_int_equal(o.time_source, 0x20);
	assert_int_equal(o.ptp_timescale, 1);
}

/* The grandmaster's quality as linuxptp pmc.c pmc_show() prints it: class
 * "%hhu", accuracy "0x%02hhx", variance "0x%04hx"; values of a GNSS-locked
 * grandmaster (IEEE 1588-2008 Table 6: 0x21 = within 100 ns). */
static void test_gm_quality_fields(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET PARENT_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT PARENT_DATA_SET \n"
		   "\t\tparentPortIdentity                    " MASTER_CLOCK "-1\n"
		   "\t\tgm.ClockClass                         6\n"
		   "\t\tgm.ClockAccuracy                      0x21\n"
		   "\t\tgm.OffsetScaledLogVariance            0x4e5d\n"
		   "\t\tgrandmasterIdentity                   " MASTER_CLOCK "\n"
		   "sending: GET TIME_PROPERTIES_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-0 seq 1 RESPONSE MANAGEMENT TIME_PROPERTIES_DATA_SET \n"
		   "\t\tptpTimescale          1\n"
		   "\t\ttimeTraceable         1\n"
		   "\t\tfrequencyTraceable    1\n"
		   "\t\ttimeSource            0x20\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.gm_clock_class, 6);
	assert_int_equal(o.gm_clock_accuracy, 0x21);
	assert_int_equal(o.gm_offset_scaled_log_variance, 0x4e5d);
	assert_int_equal(o.ptp_timescale, 1);
	assert_int_equal(o.time_traceable, 1);
	assert_int_equal(o.frequency_traceable, 1);
	assert_int_equal(o.time_source, 0x20);
	assert_string_equal(ptp_clock_accuracy_name(o.gm_clock_accuracy), "within 100 ns");
	assert_string_equal(ptp_time_source_name(o.time_source), "GPS");

	/* beyond the field's width: not a value pmc can print */
	parse_text("sending: GET PARENT_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT PARENT_DATA_SET \n"
		   "\t\tgm.ClockAccuracy                      0x121\n",
		   "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);
	parse_text("sending: GET PARENT_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT PARENT_DATA_SET \n"
		   "\t\tgm.OffsetScaledLogVariance            0x10000\n",
		   "", 0, &o);
	assert_failed(&o, OBS_GARBAGE);
}

/* The words for the codes pmc prints in hex. */
static void test_quality_names(void **state)
{
	(void)state;
	assert_string_equal(ptp_clock_accuracy_name(0x20), "within 25 ns");
	assert_string_equal(ptp_clock_accuracy_name(0x23), "within 1 µs");
	assert_string_equal(ptp_clock_accuracy_name(0x30), "within 10 s");
	assert_string_equal(ptp_clock_accuracy_name(0x31), "worse than 10 s");
	assert_string_equal(ptp_clock_accuracy_name(0xfe), "unknown");
	assert_null(ptp_clock_accuracy_name(0x1f));
	assert_null(ptp_clock_accuracy_name(0x32));
	assert_null(ptp_clock_accuracy_name(INT_UNKNOWN));
	assert_string_equal(ptp_time_source_name(0xa0), "INTERNAL_OSCILLATOR");
	assert_string_equal(ptp_time_source_name(0x50), "NTP");
	assert_string_equal(ptp_time_source_name(0x40), "PTP");
	assert_null(ptp_time_source_name(0x21));
	assert_null(ptp_time_source_name(INT_UNKNOWN));
	assert_int_equal(ptp_clock_class_kind(INT_UNKNOWN), PTP_CLASS_UNKNOWN);
	assert_int_equal(ptp_clock_class_kind(256), PTP_CLASS_UNKNOWN);
	assert_int_equal(ptp_clock_class_kind(-1), PTP_CLASS_UNKNOWN);
	assert_string_equal(ptp_clock_class_meaning(INT_UNKNOWN), "unknown");
	/* every value 0..255 has words, and a kind other than unknown */
	for (int c = 0; c <= 255; c++) {
		assert_true(ptp_clock_class_kind(c) != PTP_CLASS_UNKNOWN);
		assert_true(strlen(ptp_clock_class_meaning(c)) > 0);
		assert_string_not_equal(ptp_clock_class_meaning(c), "unknown");
	}
}

static void test_other_blocks_are_skipped(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("id PORT is too ambiguous\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT empty-tlv \n"
		   "\t" SLAVE_CLOCK "-0 seq 1 RESPONSE unknown-tlv \n"
		   "\t" SLAVE_CLOCK "-1 seq 0 SIGNALING SLAVE_RX_SYNC_TIMING_DATA N 1 \n"
		   "\t\tsourcePortIdentity         " MASTER_CLOCK "-1\n"
		   "\t\tsequenceId                 3\n"
		   "\t" SLAVE_CLOCK "-0 seq 2 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		   "\t\tstepsRemoved     1\n"
		   "\t\tsomeFutureField  whatever\n"
		   "\t\toffsetFromMaster -5.0\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.offset_from_master_ns == -5);
	assert_int_equal(o.steps_removed, 1);
	assert_string_equal(o.error, "");
}

/* -------------------------------------------------------- error answers */

static void test_management_error_status(void **state)
{
	(void)state;
	size_t len;
	char *batch = read_batch(&len);
	buf b = {0};
	buf_str(&b, batch);
	/* an older ptp4l without PORT_PROPERTIES_NP: one refusal per port */
	buf_str(&b, "sending: GET PORT_PROPERTIES_NP\n"
		    "\t" SLAVE_CLOCK "-1 seq 6 RESPONSE MANAGEMENT_ERROR_STATUS \n"
		    "\t" SLAVE_CLOCK "-2 seq 6 RESPONSE MANAGEMENT_ERROR_STATUS \n");
	ptp_obs want, o;
	parse_buf(batch, len, "", 0, &want);
	parse_buf(b.p, b.n, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_non_null(strstr(o.error, "GET PORT_PROPERTIES_NP"));
	assert_non_null(strstr(o.error, "MANAGEMENT_ERROR_STATUS"));
	/* named once, and every other block is intact */
	assert_null(strstr(strstr(o.error, "PROPERTIES_NP") + 1, "PROPERTIES_NP"));
	memcpy(o.error, want.error, sizeof o.error);
	assert_memory_equal(&o, &want, sizeof want);
	free(b.p);
	free(batch);

	/* a pmc that names the error keeps the name */
	parse_text("sending: GET TIME_STATUS_NP\n"
		   "sending: GET PORT_PROPERTIES_NP\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT TIME_STATUS_NP \n"
		   "\t\tmaster_offset -1\n"
		   "\t" SLAVE_CLOCK "-1 seq 1 RESPONSE MANAGEMENT_ERROR_STATUS NOT_SUPPORTED \n"
		   "\t\tdisplayData whatever\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.master_offset_ns == -1);
	assert_non_null(strstr(o.error, "MANAGEMENT_ERROR_STATUS NOT_SUPPORTED"));
}

static void test_only_error_answers(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET TIME_STATUS_NP\n"
		   "\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT_ERROR_STATUS \n"
		   "\t" MASTER_CLOCK "-1 seq 0 RESPONSE MANAGEMENT_ERROR_STATUS \n",
		   "", 0, &o);
	assert_failed(&o, OBS_NOT_SUPPORTED);
	assert_non_null(strstr(o.error, "GET TIME_STATUS_NP"));
	/* a seq with no "sending:" line is still reported */
	parse_text("\t" SLAVE_CLOCK "-0 seq 7 RESPONSE MANAGEMENT_ERROR_STATUS \n", "", 0, &o);
	assert_failed(&o, OBS_NOT_SUPPORTED);
	assert_non_null(strstr(o.error, "seq 7"));
}

static void test_bad_command_next_to_answers(void **state)
{
	(void)state;
	size_t len;
	char *batch = read_batch(&len);
	ptp_obs o;
	/* an older pmc that does not know one ID still answers the others */
	parse_buf(batch, len, "bad command: GET PORT_PROPERTIES_NP\n", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.offset_from_master_ns == -6600);
	assert_non_null(strstr(o.error, "bad command: GET PORT_PROPERTIES_NP"));
	free(batch);
}

/* ---------------------------------------------- answers from other clocks */

#define REMOTE_CLOCK "e89a8f.fffe.74f796"
#define BC_CLOCK "90e2ba.fffe.20c7f8"
#define BC_GM_CLOCK "00a069.fffe.0b552d"

/* What node2's answers in the batch say, whatever else was printed. */
static void assert_node2_batch(const ptp_obs *o)
{
	assert_int_equal(o->state, OBS_OK);
	assert_string_equal(o->clock_identity, SLAVE_CLOCK);
	assert_true(o->master_offset_ns == -6600);
	assert_int_equal(o->gm_present, 1);
	assert_string_equal(o->gm_identity, MASTER_CLOCK);
	assert_int_equal(o->steps_removed, 1);
	assert_true(o->offset_from_master_ns == -6600);
	assert_true(o->mean_path_delay_ns == 8737);
	assert_string_equal(o->grandmaster_identity, MASTER_CLOCK);
	assert_int_equal(o->slave_only, 1);
	assert_int_equal(o->priority1, 128);
	assert_int_equal(o->n_ports, 1);
	assert_string_equal(o->ports[0].port_identity, SLAVE_CLOCK "-1");
	assert_int_equal(o->ports[0].state, PTP_PORT_SLAVE);
	assert_string_equal(o->ports[0].interface, "eth0");
}

static void test_remote_clock_answering_first(void **state)
{
	(void)state;
	ptp_obs o;
	/* a foreign FAULTY port, then its TIME_STATUS_NP, before any of ours */
	parse_fixture("pmc-batch-remote-first-faulty-port", &o);
	assert_node2_batch(&o);
	assert_int_equal(o.foreign_responses, 3);
	assert_string_equal(o.error, "");
}

static void test_remote_clock_answering_after(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-batch-remote-after", &o);
	assert_node2_batch(&o);
	assert_int_equal(o.foreign_responses, 4);
	assert_string_equal(o.error, "");
}

static void test_boundary_clock_with_two_remotes(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-batch-boundary-clock-two-remotes", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_string_equal(o.clock_identity, BC_CLOCK);
	assert_int_equal(o.foreign_responses, 5);
	assert_true(o.master_offset_ns == 310);
	assert_string_equal(o.gm_identity, BC_GM_CLOCK);
	assert_int_equal(o.steps_removed, 1);
	assert_true(o.offset_from_master_ns == -142);
	assert_true(o.mean_path_delay_ns == 9310);
	assert_int_equal(o.number_ports, 2);
	assert_int_equal(o.clock_class, 248);
	assert_int_equal(o.gm_clock_class, 6);
	assert_int_equal(o.gm_clock_accuracy, 0xfe);
	assert_int_equal(o.gm_offset_scaled_log_variance, 0xffff);
	/* both of the node's ports, none of the others' */
	assert_int_equal(o.n_ports, 2);
	assert_string_equal(o.ports[0].port_identity, BC_CLOCK "-1");
	assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
	assert_string_equal(o.ports[0].interface, "swp1");
	assert_string_equal(o.ports[1].port_identity, BC_CLOCK "-2");
	assert_int_equal(o.ports[1].state, PTP_PORT_MASTER);
	assert_string_equal(o.ports[1].interface, "swp2");
}

/* Every order of the blocks gives the same answer: which clock is the
 * node's does not depend on who was printed first. */
static void test_remote_order_does_not_matter(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_read("pmc-batch-boundary-clock-two-remotes.txt", &len);
	ptp_obs want, got;
	parse_buf(text, len, "", 0, &want);
	assert_int_equal(want.state, OBS_OK);

	char *items[64];
	size_t n = split_items(text, items, 64);
	for (size_t r = 1; r < n; r++) {
		buf c = {0};
		for (size_t i = 0; i < n; i++) {
			buf_str(&c, items[(i + r) % n]);
		}
		parse_buf(c.p, c.n, "", 0, &got);
		assert_int_equal(got.state, OBS_OK);
		assert_string_equal(got.clock_identity, BC_CLOCK);
		assert_int_equal(got.foreign_responses, 5);
		assert_true(got.offset_from_master_ns == -142);
		assert_int_equal(got.n_ports, 2);
		free(c.p);
	}
	for (size_t i = 0; i < n; i++) {
		free(items[i]);
	}
	free(text);
}

#define LAB_B0_NODE "1e5ea1.fffe.d295cb"
#define LAB_B0_MASTER "5aa503.fffe.bfc7df"

/* Captured with -b 0 while another client asked with -b 1: the master's
 * answers to that client reached this pmc too. */
static void test_b0_captures_with_foreign_answers(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int foreign;
	} cases[] = {
		{"pmc-b0-batch-foreign-port-between", 1},
		{"pmc-b0-batch-foreign-answers-after", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ptp_obs o;
		parse_fixture(cases[i].name, &o);
		assert_int_equal(o.state, OBS_OK);
		assert_string_equal(o.error, "");
		assert_int_equal(o.foreign_responses, cases[i].foreign);
		assert_string_equal(o.clock_identity, LAB_B0_NODE);
		assert_string_equal(o.gm_identity, LAB_B0_MASTER);
		assert_int_equal(o.gm_present, 1);
		assert_int_equal(o.steps_removed, 1);
		assert_int_equal(o.slave_only, 1);
		assert_int_equal(o.n_ports, 1);
		assert_string_equal(o.ports[0].port_identity, LAB_B0_NODE "-1");
		assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
	}

	/* the captured foreign block moved in front of everything */
	size_t len;
	char *text = fixture_read("pmc-b0-batch-foreign-port-between.txt", &len);
	char *items[32];
	size_t n = split_items(text, items, 32);
	buf b = {0};
	size_t moved = n;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(items[i], "\t" LAB_B0_MASTER, strlen("\t" LAB_B0_MASTER)) == 0) {
			buf_str(&b, items[i]);
			moved = i;
		}
	}
	assert_true(moved < n);
	for (size_t i = 0; i < n; i++) {
		if (i != moved) {
			buf_str(&b, items[i]);
		}
	}
	ptp_obs o;
	parse_buf(b.p, b.n, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.clock_identity, LAB_B0_NODE);
	assert_true(o.offset_from_master_ns == -387);
	assert_int_equal(o.foreign_responses, 1);
	assert_int_equal(o.n_ports, 1);
	assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
	free(b.p);
	for (size_t i = 0; i < n; i++) {
		free(items[i]);
	}
	free(text);
}

/* ptp4l on the node gave nothing of its own: the others' data must not
 * stand in for it. */
static void test_only_remote_answers(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-batch-only-remote-answers", &o);
	assert_failed(&o, OBS_DAEMON_UNREACHABLE);
	assert_non_null(strstr(o.error, "port 0"));
	assert_non_null(strstr(o.error, "4 answer(s) from other clocks"));
	assert_non_null(strstr(o.error, MASTER_CLOCK));

	/* one remote clock-wide answer, even without "sending:" lines */
	parse_text("\t" MASTER_CLOCK "-1 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		   "\t\tstepsRemoved     0\n",
		   "", 0, &o);
	assert_failed(&o, OBS_DAEMON_UNREACHABLE);

	/* a remote's port data set after a request for a clock-wide one */
	parse_text("sending: GET TIME_STATUS_NP\n"
		   "sending: GET PORT_DATA_SET\n"
		   "\t" MASTER_CLOCK "-1 seq 1 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportState               FAULTY\n",
		   "", 0, &o);
	assert_failed(&o, OBS_DAEMON_UNREACHABLE);
}

/* A block whose header is the node's but whose portIdentity field names
 * another clock is filed under the header's identity. */
static void test_port_identity_field_of_another_clock(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("\t" SLAVE_CLOCK "-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET \n"
		   "\t\tstepsRemoved     1\n"
		   "\t" SLAVE_CLOCK "-1 seq 1 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportIdentity            " MASTER_CLOCK "-1\n"
		   "\t\tportState               SLAVE\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 1);
	assert_string_equal(o.ports[0].port_identity, SLAVE_CLOCK "-1");
	assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
}

/* Port data sets alone carry no port-0 answer: the first clock is taken,
 * and when others answered too the error says so. */
static void test_port_only_query_with_several_clocks(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET PORT_DATA_SET\n"
		   "\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportState               SLAVE\n"
		   "\t" MASTER_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_DATA_SET \n"
		   "\t\tportState               MASTER\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.clock_identity, SLAVE_CLOCK);
	assert_int_equal(o.foreign_responses, 1);
	assert_int_equal(o.n_ports, 1);
	assert_int_equal(o.ports[0].state, PTP_PORT_SLAVE);
	assert_non_null(strstr(o.error, "port 0"));
}

/* ------------------------------------------- the collector's command */

#define CAP_CLOCK "ce6329.fffe.dedbae"

/* The pmc collector's own command against a real ptp4l 3.1.1 (see
 * pmc-synctop-command.source.md): CLOCK_REALTIME before and after, pmc's
 * "bad command" for PORT_SERVICE_STATS_NP neither noted nor fatal. */
static void test_collector_command_master(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-synctop-master", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_string_equal(o.clock_identity, CAP_CLOCK);
	assert_true(o.realtime_before_ns == 1796301787343186604LL);
	assert_true(o.realtime_after_ns > o.realtime_before_ns);
	assert_true(o.ingress_time_ns == 0); /* no Sync ever: clock.c keeps ingress_ts zero */
	assert_int_equal(o.n_ports, 1);
	const ptp_port *p = &o.ports[0];
	assert_int_equal(p->state, PTP_PORT_MASTER);
	assert_string_equal(p->timestamping, "SOFTWARE");
	assert_string_equal(p->interface, "hs0");
	assert_int_equal(p->log_sync_interval, 0);
	assert_int_equal(p->sync.log_announce_interval, 1);
	assert_int_equal(p->sync.announce_receipt_timeout, 3);
	assert_int_equal(p->sync.rx_sync, 0);
	assert_int_equal(p->sync.tx_sync, 3);
	assert_int_equal(p->sync.tx_announce, 2);
	assert_int_equal(p->sync.announce_timeouts, PTP_COUNT_UNKNOWN);
	assert_int_equal(p->sync.sync_timeouts, PTP_COUNT_UNKNOWN);
}

static void test_collector_command_listening(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-synctop-listening", &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_true(o.realtime_before_ns == 1796301777379679519LL);
	assert_true(o.realtime_after_ns != PTP_NS_UNKNOWN);
	assert_int_equal(o.ports[0].state, PTP_PORT_LISTENING);
	assert_int_equal(o.ports[0].sync.tx_sync, 0);
}

/* Two real polls of a MASTER port, 3 s apart: the counts move. */
static void test_port_stats_two_polls(void **state)
{
	(void)state;
	ptp_obs a, b;
	parse_fixture("pmc-port-stats-np-master-1", &a);
	parse_fixture("pmc-port-stats-np-master-2", &b);
	assert_int_equal(a.state, OBS_OK);
	assert_int_equal(b.state, OBS_OK);
	assert_int_equal(a.ports[0].sync.tx_sync, 6);
	assert_int_equal(b.ports[0].sync.tx_sync, 9);
	assert_int_equal(a.ports[0].sync.tx_announce, 4);
	assert_int_equal(b.ports[0].sync.tx_announce, 5);
}

/* pmc 3.1 asked for PORT_SERVICE_STATS_NP alone: it rejects the ID (real). */
static void test_port_service_stats_rejected_by_pmc_31(void **state)
{
	(void)state;
	ptp_obs o;
	parse_fixture("pmc-port-service-stats-np-v3.1", &o);
	assert_int_equal(o.state, OBS_COMMAND_FAILED);
	assert_non_null(strstr(o.error, "PORT_SERVICE_STATS_NP"));
}

/* linuxptp >= 4.0 (pmc.c pmc_show() MID_PORT_SERVICE_STATS_NP, master
 * f98cb5d): the timeout counts. */
static void test_port_service_stats_v4(void **state)
{
	(void)state;
	ptp_obs o;
	parse_text("sending: GET PORT_SERVICE_STATS_NP\n"
		   "\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_SERVICE_STATS_NP \n"
		   "\t\tportIdentity              " SLAVE_CLOCK "-1\n"
		   "\t\tannounce_timeout          2\n"
		   "\t\tsync_timeout              5\n"
		   "\t\tdelay_timeout             0\n"
		   "\t\tunicast_service_timeout   0\n"
		   "\t\tunicast_request_timeout   0\n"
		   "\t\tmaster_announce_timeout   0\n"
		   "\t\tmaster_sync_timeout       0\n"
		   "\t\tqualification_timeout     0\n"
		   "\t\tsync_mismatch             0\n"
		   "\t\tfollowup_mismatch         0\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.n_ports, 1);
	assert_int_equal(o.ports[0].sync.announce_timeouts, 2);
	assert_int_equal(o.ports[0].sync.sync_timeouts, 5);
	/* a count is never negative */
	parse_text("sending: GET PORT_SERVICE_STATS_NP\n"
		   "\t" SLAVE_CLOCK "-1 seq 0 RESPONSE MANAGEMENT PORT_SERVICE_STATS_NP \n"
		   "\t\tsync_timeout              -5\n",
		   "", 0, &o);
	assert_int_equal(o.state, OBS_GARBAGE);
}

/* A 3.1 ptp4l asked by a newer pmc: MANAGEMENT_ERROR_STATUS from the port
 * (port.c port_manage(): TLV_NO_SUCH_ID).  Not noted: 3.1 just lacks it. */
static void test_port_service_stats_refused_by_ptp4l_31(void **state)
{
	(void)state;
	size_t len;
	char *batch = read_batch(&len);
	buf b = {0};
	buf_add(&b, batch, len);
	buf_str(&b, "sending: GET PORT_SERVICE_STATS_NP\n"
		    "\t" SLAVE_CLOCK "-1 seq 6 RESPONSE MANAGEMENT_ERROR_STATUS \n");
	ptp_obs o;
	parse_text(b.p, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_int_equal(o.ports[0].sync.sync_timeouts, PTP_COUNT_UNKNOWN);
	/* another refused request still is */
	b.n = 0;
	buf_add(&b, batch, len);
	buf_str(&b, "sending: GET PORT_STATS_NP\n"
		    "\t" SLAVE_CLOCK "-1 seq 6 RESPONSE MANAGEMENT_ERROR_STATUS \n");
	parse_text(b.p, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_non_null(strstr(o.error, "PORT_STATS_NP"));
	free(b.p);
	free(batch);
}

/* The shared lab's SLAVE batch inside the collector's realtime lines
 * (composed: no SLAVE capture carries them, see the .source.md). */
static void test_realtime_lines_around_a_slave_batch(void **state)
{
	(void)state;
	size_t len;
	char *batch = read_batch(&len);
	buf b = {0};
	buf_str(&b, "synctop-realtime-ns before 1796207937545201190\n");
	buf_add(&b, batch, len);
	buf_str(&b, "synctop-realtime-ns after 1796207937655201190\n");
	ptp_obs o;
	parse_text(b.p, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_true(o.ingress_time_ns == 1796207937145201190LL);
	assert_true(o.realtime_before_ns == 1796207937545201190LL);
	assert_true(o.realtime_after_ns == 1796207937655201190LL);
	assert_int_equal(o.ports[0].sync.log_announce_interval, 0);
	assert_int_equal(o.ports[0].sync.announce_receipt_timeout, 3);

	/* the after line cut short: the reading is dropped, pmc's output stands */
	b.n = b.n - 5;
	b.p[b.n] = '\0';
	parse_text(b.p, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.realtime_before_ns == 1796207937545201190LL);
	assert_true(o.realtime_after_ns == PTP_NS_UNKNOWN);

	/* a date(1) without %N */
	b.n = 0;
	buf_str(&b, "synctop-realtime-ns before 1796207937%N\n");
	buf_add(&b, batch, len);
	buf_str(&b, "synctop-realtime-ns after -1\n");
	parse_text(b.p, "", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.realtime_before_ns == PTP_NS_UNKNOWN);
	assert_true(o.realtime_after_ns == PTP_NS_UNKNOWN);
	free(b.p);
	free(batch);
}

/* The realtime lines never change how a failure reads. */
static void test_realtime_lines_around_failures(void **state)
{
	(void)state;
	ptp_obs o;
	static const char rt_b[] = "synctop-realtime-ns before 1796301777379679519\n";
	static const char rt_a[] = "synctop-realtime-ns after 1796301777489679519\n";
	char text[1024];

	/* pmc missing: only our lines on stdout */
	snprintf(text, sizeof text, "%s%s", rt_b, rt_a);
	parse_text(text, "sh: 3: pmc: not found\n", 127, &o);
	assert_int_equal(o.state, OBS_TOOL_MISSING);

	/* no ptp4l, and pmc 3.1 rejecting the optional request */
	snprintf(text, sizeof text, "%ssending: GET TIME_STATUS_NP\nsending: GET PORT_STATS_NP\n%s", rt_b, rt_a);
	parse_text(text, "bad command: GET PORT_SERVICE_STATS_NP\n", 0, &o);
	assert_int_equal(o.state, OBS_DAEMON_UNREACHABLE);

	/* pmc printed nothing, exit 1 */
	snprintf(text, sizeof text, "%s%s", rt_b, rt_a);
	parse_text(text, "", 1, &o);
	assert_int_equal(o.state, OBS_EMPTY);

	/* cut inside our first line */
	parse_text("synctop-realtime-ns bef", "", 0, &o);
	assert_int_equal(o.state, OBS_TRUNCATED);
	/* cut inside pmc's output: the after line never came */
	snprintf(text, sizeof text, "%ssending: GET TIME_STATUS_NP\n\t" SLAVE_CLOCK "-0 seq 0 RESP", rt_b);
	parse_text(text, "", 0, &o);
	assert_int_equal(o.state, OBS_TRUNCATED);
}

/* The grandmaster classes of the lab states no real grandmaster here can
 * reach (the lab master is ptp4l's default 248): holdover within
 * specification (IEEE 1588 default profile 7; ITU-T G.8275.1/.2 boundary
 * clock 135) and degraded (52), as pmc prints PARENT_DATA_SET
 * (synthetic, tests/fixtures/pmc-parent-data-set-classes.source.md), read
 * by the parser and judged as the class tables say (checks.md). */
static void test_gm_class_fixtures(void **state)
{
	(void)state;
	static const struct {
		const char *fixture;
		int cls, accuracy;
		ptp_class_kind kind;
		const char *words;
	} cases[] = {
		{"synthetic-pmc-parent-data-set-gm-class-7", 7, 0x21, PTP_CLASS_HOLDOVER, "holdover"},
		{"synthetic-pmc-parent-data-set-gm-class-52", 52, 0xfe, PTP_CLASS_DEGRADED, "degraded"},
		{"synthetic-pmc-parent-data-set-gm-class-135", 135, 0x21, PTP_CLASS_HOLDOVER, "holdover"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ptp_obs obs;
		parse_fixture(cases[i].fixture, &obs);
		assert_int_equal(obs.state, OBS_OK);
		assert_int_equal(obs.gm_clock_class, cases[i].cls);
		assert_int_equal(obs.gm_clock_accuracy, cases[i].accuracy);
		assert_int_equal(obs.gm_offset_scaled_log_variance, 0x4e5d);
		assert_string_equal(obs.grandmaster_identity, "96bec0.fffe.dfca68");
		assert_int_equal(ptp_clock_class_kind(obs.gm_clock_class), cases[i].kind);
		assert_non_null(strstr(ptp_clock_class_meaning(obs.gm_clock_class), cases[i].words));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gm_class_fixtures),
		cmocka_unit_test(test_batch_slave_fills_everything),
		cmocka_unit_test(test_single_data_sets_per_role),
		cmocka_unit_test(test_port_listening),
		cmocka_unit_test(test_port_properties),
		cmocka_unit_test(test_port_stats_np_slave),
		cmocka_unit_test(test_unread_data_set_is_skipped),
		cmocka_unit_test(test_collector_command_master),
		cmocka_unit_test(test_collector_command_listening),
		cmocka_unit_test(test_port_stats_two_polls),
		cmocka_unit_test(test_port_service_stats_rejected_by_pmc_31),
		cmocka_unit_test(test_port_service_stats_v4),
		cmocka_unit_test(test_port_service_stats_refused_by_ptp4l_31),
		cmocka_unit_test(test_realtime_lines_around_a_slave_batch),
		cmocka_unit_test(test_realtime_lines_around_failures),
		cmocka_unit_test(test_no_ptp4l),
		cmocka_unit_test(test_bad_command),
		cmocka_unit_test(test_version_output_is_garbage),
		cmocka_unit_test(test_other_clocks_are_counted_and_ignored),
		cmocka_unit_test(test_combined_probe_pmc_section),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_tool_missing),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_other_failure_keeps_stderr),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_ten_megabytes_of_junk),
		cmocka_unit_test(test_truncated_at_every_byte),
		cmocka_unit_test(test_cut_inside_a_value),
		cmocka_unit_test(test_short_final_block_is_kept),
		cmocka_unit_test(test_block_order_does_not_matter),
		cmocka_unit_test(test_duplicate_blocks),
		cmocka_unit_test(test_boundary_clock_ports_stay_apart),
		cmocka_unit_test(test_more_ports_than_slots),
		cmocka_unit_test(test_every_port_state),
		cmocka_unit_test(test_rounding_to_nanoseconds),
		cmocka_unit_test(test_bad_identities_are_left_empty),
		cmocka_unit_test(test_crlf_and_hex),
		cmocka_unit_test(test_gm_quality_fields),
		cmocka_unit_test(test_quality_names),
		cmocka_unit_test(test_other_blocks_are_skipped),
		cmocka_unit_test(test_management_error_status),
		cmocka_unit_test(test_only_error_answers),
		cmocka_unit_test(test_bad_command_next_to_answers),
		cmocka_unit_test(test_remote_clock_answering_first),
		cmocka_unit_test(test_remote_clock_answering_after),
		cmocka_unit_test(test_boundary_clock_with_two_remotes),
		cmocka_unit_test(test_remote_order_does_not_matter),
		cmocka_unit_test(test_b0_captures_with_foreign_answers),
		cmocka_unit_test(test_only_remote_answers),
		cmocka_unit_test(test_port_identity_field_of_another_clock),
		cmocka_unit_test(test_port_only_query_with_several_clocks),
	};
	return cmocka_run_group_tests_name("pmc_parse", tests, NULL, NULL);
}
