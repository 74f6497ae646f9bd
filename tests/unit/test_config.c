/* test_config.c - the --config file: valid files resolve per node with
 * defaults < first matching group, and every kind of error names the exact
 * file:line:column and leaves nothing behind. */
#include <config.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collector.h"
#include "conffile.h"
#include "node_settings.h"
#include "thresholds.h"

static conffile *parse_ok(const char *text)
{
	conffile *cf = NULL;
	char err[512] = "";
	int rc = conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err);
	if (rc != 0) {
		fail_msg("unexpected error: %s", err);
	}
	assert_non_null(cf);
	return cf;
}

/* The whole message must start with want_prefix ("t.json:L:C: ..."). */
static void parse_fails(const char *text, const char *want_prefix)
{
	conffile *cf = (conffile *)(uintptr_t)1; /* must stay untouched */
	char err[512] = "";
	int rc = conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err);
	assert_int_equal(rc, -1);
	assert_ptr_equal(cf, (conffile *)(uintptr_t)1);
	if (strncmp(err, want_prefix, strlen(want_prefix)) != 0) {
		fail_msg("error \"%s\" does not start with \"%s\"", err, want_prefix);
	}
}

static const char full[] =
	"{\n"
	"  \"defaults\": {\n"
	"    \"thresholds\": { \"chrony_offset_warn_s\": 0.002, \"ptp_offset_warn_ns\": 500 },\n"
	"    \"probe\": { \"pmc_sudo\": true, \"iface\": \"eth0\" },\n"
	"    \"expect\": { \"chrony\": \"yes\", \"ptp\": \"auto\" }\n"
	"  },\n"
	"  \"groups\": [\n"
	"    { \"name\": \"gpu\", \"hosts\": \"gpu[001-128]\",\n"
	"      \"thresholds\": { \"ptp_offset_warn_ns\": 200, \"ptp_path_delay_min_samples\": 20 },\n"
	"      \"probe\": { \"iface\": \"ens1f0\" },\n"
	"      \"expect\": { \"chrony\": \"no\", \"ptp\": \"yes\" },\n"
	"      \"ntp_upstream\": \"10.0.0.1\", \"grandmaster\": \"AABBCC.FFFE.DDEEFF\" },\n"
	"    { \"name\": \"gpu-extra\", \"hosts\": \"gpu[100-200]\", \"probe\": { \"pmc_sudo\": false } },\n"
	"    { \"name\": \"login\", \"hosts\": [\"login[1-2]\", \"head\"],\n"
	"      \"ntp_upstream\": \"ntp1.example.org\" }\n"
	"  ]\n"
	"}\n";

static void test_defaults_without_file(void **state)
{
	(void)state;
	node_settings ns, want;
	node_settings_init(&want);
	assert_int_equal(conffile_resolve(NULL, "any", &ns), -1);
	assert_memory_equal(&ns, &want, sizeof ns);
	assert_int_equal(conffile_group_count(NULL), 0);
}

static void test_defaults_apply_to_unmatched_node(void **state)
{
	(void)state;
	conffile *cf = parse_ok(full);
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "other1", &ns), -1);
	assert_true(ns.th.chrony_offset_warn_s == 0.002);
	assert_true(ns.th.chrony_offset_crit_s == 10e-3); /* built-in, not in the file */
	assert_int_equal(ns.th.ptp_offset_warn_ns, 500);
	assert_int_equal(ns.th.ptp_path_delay_min_samples, 10);
	assert_true(ns.pmc_sudo);
	assert_string_equal(ns.iface, "eth0");
	assert_int_equal(ns.th.expect_chrony, EXPECT_YES);
	assert_int_equal(ns.th.expect_ptp, EXPECT_AUTO);
	assert_string_equal(ns.ntp_upstream, "");
	assert_string_equal(ns.grandmaster, "");
	assert_int_equal(conffile_group_count(cf), 3);
	assert_string_equal(conffile_group_name(cf, 2), "login");
	assert_null(conffile_group_name(cf, 3));
	conffile_free(cf);
}

static void test_group_overrides_key_by_key(void **state)
{
	(void)state;
	conffile *cf = parse_ok(full);
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "gpu007", &ns), 0);
	assert_true(ns.th.chrony_offset_warn_s == 0.002);   /* from defaults */
	assert_int_equal(ns.th.ptp_offset_warn_ns, 200);     /* group */
	assert_int_equal(ns.th.ptp_offset_crit_ns, 100000);  /* built-in */
	assert_int_equal(ns.th.ptp_path_delay_min_samples, 20);
	assert_true(ns.pmc_sudo);                            /* defaults: group left it */
	assert_string_equal(ns.iface, "ens1f0");
	assert_int_equal(ns.th.expect_chrony, EXPECT_NO);
	assert_int_equal(ns.th.expect_ptp, EXPECT_YES);
	assert_string_equal(ns.ntp_upstream, "10.0.0.1");
	assert_string_equal(ns.grandmaster, "aabbcc.fffe.ddeeff"); /* normalised */
	/* case-insensitive like DNS */
	assert_int_equal(conffile_resolve(cf, "GPU007", &ns), 0);
	/* the group that applied, for cluster.upstream_split */
	assert_int_equal(ns.group, 1);
	assert_string_equal(ns.group_name, conffile_group_name(cf, 0));
	assert_int_equal(conffile_resolve(cf, "other1", &ns), -1);
	assert_int_equal(ns.group, 0);
	assert_string_equal(ns.group_name, "");
	conffile_free(cf);
}

/* "sudo" (pmc and phc_ctl through sudo -n); "pmc_sudo" is its old name */
static void test_sudo_and_its_old_name(void **state)
{
	(void)state;
	conffile *cf = parse_ok("{\"defaults\": {\"probe\": {\"sudo\": true}},"
				" \"groups\": [{\"name\": \"g\", \"hosts\": \"g1\", \"probe\": {\"sudo\": false}}]}");
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "other", &ns), -1);
	assert_true(ns.pmc_sudo);
	assert_int_equal(conffile_resolve(cf, "g1", &ns), 0);
	assert_false(ns.pmc_sudo);
	conffile_free(cf);
	parse_fails("{\"defaults\": {\"probe\": {\"sudo\": 1}}}", "t.json:1:33: \"sudo\" must be true or false");
	parse_fails("{\"defaults\": {\"probe\": {\"sudo\": true, \"pmc_sudo\": true}}}",
		    "t.json:1:39: \"sudo\" and \"pmc_sudo\" (its old name) both set");
}

static void test_first_matching_group_wins(void **state)
{
	(void)state;
	conffile *cf = parse_ok(full);
	node_settings ns;
	/* gpu120 is in both "gpu" and "gpu-extra": the first one applies */
	assert_int_equal(conffile_resolve(cf, "gpu120", &ns), 0);
	assert_true(ns.pmc_sudo);
	assert_string_equal(ns.iface, "ens1f0");
	/* gpu150 only in the second */
	assert_int_equal(conffile_resolve(cf, "gpu150", &ns), 1);
	assert_false(ns.pmc_sudo);
	assert_string_equal(ns.iface, "eth0");
	assert_int_equal(ns.th.ptp_offset_warn_ns, 500);
	conffile_free(cf);
}

static void test_array_hosts(void **state)
{
	(void)state;
	conffile *cf = parse_ok(full);
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "login2", &ns), 2);
	assert_string_equal(ns.ntp_upstream, "ntp1.example.org");
	assert_int_equal(conffile_resolve(cf, "head", &ns), 2);
	assert_int_equal(conffile_resolve(cf, "login3", &ns), -1);
	conffile_free(cf);
}

static void test_empty_and_minimal_files(void **state)
{
	(void)state;
	conffile *cf = parse_ok("{}");
	node_settings ns, want;
	node_settings_init(&want);
	assert_int_equal(conffile_resolve(cf, "x", &ns), -1);
	assert_memory_equal(&ns, &want, sizeof ns);
	conffile_free(cf);
	cf = parse_ok("{\"groups\": [], \"defaults\": {}}");
	assert_int_equal(conffile_group_count(cf), 0);
	conffile_free(cf);
	/* zero is allowed; integers are fine for real-valued keys */
	cf = parse_ok("{\"defaults\":{\"thresholds\":{\"chrony_skew_warn_ppm\":0,\"chrony_offset_warn_s\":1,"
		      "\"chrony_offset_crit_s\":1}}}");
	assert_int_equal(conffile_resolve(cf, "x", &ns), -1);
	assert_true(ns.th.chrony_skew_warn_ppm == 0.0);
	assert_true(ns.th.chrony_offset_warn_s == 1.0);
	conffile_free(cf);
}

static void test_every_threshold_key(void **state)
{
	(void)state;
	conffile *cf = parse_ok("{\"defaults\":{\"thresholds\":{"
				"\"chrony_offset_warn_s\":1,\"chrony_offset_crit_s\":2,"
				"\"chrony_error_bound_warn_s\":3,\"chrony_error_bound_crit_s\":4,"
				"\"chrony_frequency_warn_ppm\":5,\"chrony_frequency_crit_ppm\":6,"
				"\"chrony_skew_warn_ppm\":7,\"chrony_drift_warn_ppm_per_hour\":8,"
				"\"chrony_drift_window_s\":9,\"chrony_drift_min_span_s\":10,"
				"\"ptp_offset_warn_ns\":11,\"ptp_offset_crit_ns\":12,"
				"\"ptp_path_delay_jump_warn_ratio\":13.5,\"ptp_path_delay_min_samples\":14}}}");
	node_settings ns;
	conffile_resolve(cf, "x", &ns);
	assert_true(ns.th.chrony_offset_warn_s == 1 && ns.th.chrony_offset_crit_s == 2);
	assert_true(ns.th.chrony_error_bound_warn_s == 3 && ns.th.chrony_error_bound_crit_s == 4);
	assert_true(ns.th.chrony_frequency_warn_ppm == 5 && ns.th.chrony_frequency_crit_ppm == 6);
	assert_true(ns.th.chrony_skew_warn_ppm == 7 && ns.th.chrony_drift_warn_ppm_per_hour == 8);
	assert_true(ns.th.chrony_drift_window_s == 9 && ns.th.chrony_drift_min_span_s == 10);
	assert_int_equal(ns.th.ptp_offset_warn_ns, 11);
	assert_int_equal(ns.th.ptp_offset_crit_ns, 12);
	assert_true(ns.th.ptp_path_delay_jump_warn_ratio == 13.5);
	assert_int_equal(ns.th.ptp_path_delay_min_samples, 14);
	conffile_free(cf);
}

static void test_unknown_keys(void **state)
{
	(void)state;
	parse_fails("{\n  \"defaults\": {\n    \"thresholds\": { \"chrony_ofset_warn_s\": 0.001 }\n  }\n}\n",
		    "t.json:3:21: unknown key \"chrony_ofset_warn_s\"");
	parse_fails("{ \"default\": {} }", "t.json:1:3: unknown key \"default\" in the top level");
	parse_fails("{\"defaults\": {\"probe\": {\"pmc-sudo\": true}}}", "t.json:1:25: unknown key \"pmc-sudo\"");
	parse_fails("{\"defaults\": {\"expect\": {\"ntp\": \"yes\"}}}", "t.json:1:26: unknown key \"ntp\"");
	parse_fails("{\"defaults\": {\"name\": \"x\"}}", "t.json:1:15: unknown key \"name\" in \"defaults\"");
	parse_fails("{\"groups\": [\n {\"name\": \"a\", \"hosts\": \"a1\"},\n {\"name\": \"b\", \"host\": \"b1\"}]}",
		    "t.json:3:16: unknown key \"host\" in a group");
	/* a key after others with nested values: positions follow document order */
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_offset_warn_s\": 0.001}, \"probe\": {\"iface\": \"e\"},"
		    " \"zzz\": 1}}",
		    "t.json:1:87: unknown key \"zzz\"");
	/* non-ASCII keys are columns in characters, and printed safely */
	parse_fails("{\"defaults\": {\"thresholds\": {\"\xc3\xa9\": 1, \"x\\n\": 2}}}",
		    "t.json:1:30: unknown key \"?\"");
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_offset_warn_s\": 1, \"x\\n\": 2}}}",
		    "t.json:1:57: unknown key \"x \"");
}

/* jansson quotes the offending bytes ("near '...'"): a raw control byte is
 * shown as \xNN, not dropped along with the quote after it. */
static void test_syntax_error_shows_control_bytes(void **state)
{
	(void)state;
	conffile *cf = NULL;
	char err[512] = "";
	assert_int_equal(conffile_parse("{\x1b[31m: 1}", 10, "t.json", &cf, err, sizeof err), -1);
	for (const char *p = err; *p; p++) {
		assert_true(*p >= 0x20 && *p < 0x7f);
	}
	if (strncmp(err, "t.json:1:2: ", 12) != 0 || !strstr(err, "near '\\x1b'")) {
		fail_msg("got \"%s\"", err);
	}
}

static void test_bad_values(void **state)
{
	(void)state;
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_offset_warn_s\": \"1ms\"}}}",
		    "t.json:1:54: \"chrony_offset_warn_s\" must be a number");
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_offset_warn_s\": -0.001}}}",
		    "t.json:1:54: \"chrony_offset_warn_s\" must be a finite number >= 0");
	parse_fails("{\"defaults\": {\"thresholds\": {\"ptp_offset_warn_ns\": 10.5}}}",
		    "t.json:1:52: \"ptp_offset_warn_ns\" must be a whole number");
	parse_fails("{\"defaults\": {\"thresholds\": {\"ptp_path_delay_min_samples\": 3000000000}}}",
		    "t.json:1:60: \"ptp_path_delay_min_samples\" must be at most");
	parse_fails("{\"defaults\": {\"thresholds\": []}}", "t.json:1:29: \"thresholds\" must be an object");
	parse_fails("{\"defaults\": {\"probe\": {\"pmc_sudo\": \"yes\"}}}",
		    "t.json:1:37: \"pmc_sudo\" must be true or false");
	parse_fails("{\"defaults\": {\"probe\": {\"iface\": \"eth0; rm\"}}}", "t.json:1:34: \"iface\" must be");
	parse_fails("{\"defaults\": {\"probe\": {\"iface\": \"abcdefghijklmnop\"}}}", "t.json:1:34: \"iface\"");
	parse_fails("{\"defaults\": {\"expect\": {\"ptp\": \"maybe\"}}}",
		    "t.json:1:33: \"ptp\" must be \"auto\", \"yes\" or \"no\"");
	parse_fails("{\"defaults\": 1}", "t.json:1:14: \"defaults\" must be an object");
	parse_fails("{\"groups\": {}}", "t.json:1:12: \"groups\" must be an array");
	parse_fails("{\"groups\": [1]}", "t.json:1:13: a group must be an object");
	parse_fails("[]", "t.json:1:1: the configuration must be a JSON object");
}

static void test_warn_above_crit(void **state)
{
	(void)state;
	/* both in one object */
	parse_fails("{\"defaults\": {\"thresholds\": {\"ptp_offset_warn_ns\": 2000, \"ptp_offset_crit_ns\": 1000}}}",
		    "t.json:1:30: \"ptp_offset_warn_ns\" (2000) is above \"ptp_offset_crit_ns\" (1000)");
	/* against the built-in crit (10 ms) */
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_offset_warn_s\": 0.02}}}",
		    "t.json:1:30: \"chrony_offset_warn_s\" (0.02) is above \"chrony_offset_crit_s\" (0.01)");
	/* a group's crit below the defaults' warn */
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_frequency_warn_ppm\": 200}},\n"
		    " \"groups\": [{\"name\": \"g\", \"hosts\": \"n1\",\n"
		    "   \"thresholds\": {\"chrony_frequency_crit_ppm\": 150}}]}",
		    "t.json:3:19: \"chrony_frequency_warn_ppm\" (200) is above \"chrony_frequency_crit_ppm\" (150) "
		    "once merged");
	/* equal is fine */
	conffile *cf = parse_ok("{\"defaults\": {\"thresholds\": {\"chrony_error_bound_warn_s\": 0.05}}}");
	conffile_free(cf);
}

/* Whole-number limits above 2^53 that differ by one round to the same
 * double: compared as doubles, a warn above its crit passed (found by
 * tests/fuzz/fuzz_config.c). */
static void test_warn_above_crit_beyond_double_precision(void **state)
{
	(void)state;
	parse_fails("{\"defaults\":{\"thresholds\":{\"cluster_ptp_spread_warn_ns\":9007199254740993,"
		    "\"cluster_ptp_spread_crit_ns\":9007199254740992}}}",
		    "t.json:1:28: \"cluster_ptp_spread_warn_ns\" (9007199254740993) is above "
		    "\"cluster_ptp_spread_crit_ns\" (9007199254740992)");
	parse_fails("{\"defaults\": {\"thresholds\": {\"ptp_offset_crit_ns\": 9223372036854775806}},\n"
		    " \"groups\": [{\"name\": \"g\", \"hosts\": \"n1\",\n"
		    "   \"thresholds\": {\"ptp_offset_warn_ns\": 9223372036854775807}}]}",
		    "t.json:3:19: \"ptp_offset_warn_ns\" (9223372036854775807) is above \"ptp_offset_crit_ns\" "
		    "(9223372036854775806) once merged");
	/* equal is still fine */
	conffile *cf = parse_ok("{\"defaults\":{\"thresholds\":{\"ptp_offset_warn_ns\":9007199254740993,"
				"\"ptp_offset_crit_ns\":9007199254740993}}}");
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "x", &ns), -1);
	assert_true(ns.th.ptp_offset_warn_ns == INT64_C(9007199254740993));
	conffile_free(cf);
}

static void test_groups_need_name_and_hosts(void **state)
{
	(void)state;
	parse_fails("{\"groups\": [\n  {\"hosts\": \"n1\"}]}", "t.json:2:3: this group has no \"name\"");
	parse_fails("{\"groups\": [\n  {\"name\": \"g\"}]}", "t.json:2:3: group \"g\" has no \"hosts\"");
	parse_fails("{\"groups\": [{\"name\": \"\", \"hosts\": \"n1\"}]}",
		    "t.json:1:22: \"name\" must be a non-empty string");
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": []}]}", "t.json:1:36: \"hosts\": empty array");
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": \"\"}]}", "t.json:1:36: \"hosts\": empty host list");
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": 5}]}", "t.json:1:36: \"hosts\" must be");
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": [\"a1\", 5]}]}", "t.json:1:43: \"hosts\" must be");
}

static void test_bad_host_list_points_inside_the_string(void **state)
{
	(void)state;
	/* "gpu[001-" : hostlist reports a column inside the expression */
	conffile *cf = NULL;
	char err[512] = "";
	const char *text = "{\"groups\": [{\"name\": \"g\", \"hosts\": \"ok,gpu[9-1]\"}]}";
	assert_int_equal(conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err), -1);
	/* the string starts at column 36; the bad range is inside it, not before */
	int line = 0, col = 0;
	assert_int_equal(sscanf(err, "t.json:%d:%d:", &line, &col), 2);
	assert_int_equal(line, 1);
	assert_in_range(col, 37, 36 + (int)strlen("\"ok,gpu[9-1]")); /* within the quotes */
	assert_non_null(strstr(err, "\"hosts\": "));
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": [\"a1\", \"b[1-\"]}]}", "t.json:1:");
}

static void test_upstream_and_grandmaster_syntax(void **state)
{
	(void)state;
	static const char *const good_hosts[] = {"10.0.0.1", "fe80::1", "ntp.example.org", "ntp.example.org.",
						 "a-b", "x1"};
	static const char *const bad_hosts[] = {"", "10.0.0.256", "-ntp", "ntp-", "a..b", "ntp_1", "a b",
						"300.1.1.1", "1.2.3"};
	char text[512];
	for (size_t i = 0; i < sizeof good_hosts / sizeof good_hosts[0]; i++) {
		snprintf(text, sizeof text, "{\"defaults\": {\"ntp_upstream\": \"%s\"}}", good_hosts[i]);
		conffile *cf = parse_ok(text);
		node_settings ns;
		conffile_resolve(cf, "n", &ns);
		assert_string_equal(ns.ntp_upstream, good_hosts[i]);
		conffile_free(cf);
	}
	for (size_t i = 0; i < sizeof bad_hosts / sizeof bad_hosts[0]; i++) {
		snprintf(text, sizeof text, "{\"defaults\": {\"ntp_upstream\": \"%s\"}}", bad_hosts[i]);
		parse_fails(text, "t.json:1:31: \"ntp_upstream\" must be a host name or an IP address");
	}
	parse_fails("{\"defaults\": {\"ntp_upstream\": 1}}", "t.json:1:31: \"ntp_upstream\"");
	static const char *const bad_ids[] = {"aabbcc.fffe.ddeef", "aabbcc-fffe-ddeeff", "aabbcg.fffe.ddeeff",
					      "aabbccfffeddeeff", "aabbcc.fffe.ddeeff0", ""};
	for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
		snprintf(text, sizeof text, "{\"groups\": [{\"name\": \"g\", \"hosts\": \"n\", \"grandmaster\": \"%s\"}]}",
			 bad_ids[i]);
		parse_fails(text, "t.json:1:56: \"grandmaster\" must be a PTP clock identity");
	}
}

/* gm_traceable: a boolean, in defaults or a group, key by key like the rest. */
static void test_gm_traceable(void **state)
{
	(void)state;
	node_settings ns;
	node_settings_init(&ns);
	assert_false(ns.th.gm_traceable); /* built-in: a free-running grandmaster only warns */
	conffile *cf = parse_ok("{\"defaults\": {\"gm_traceable\": true},\n"
				" \"groups\": [{\"name\": \"lab\", \"hosts\": \"lab[1-3]\", \"gm_traceable\": false},\n"
				"            {\"name\": \"gpu\", \"hosts\": \"gpu1\", \"expect\": {\"ptp\": \"yes\"}}]}");
	assert_int_equal(conffile_resolve(cf, "other", &ns), -1);
	assert_true(ns.th.gm_traceable);
	assert_int_equal(conffile_resolve(cf, "lab2", &ns), 0);
	assert_false(ns.th.gm_traceable);
	assert_int_equal(conffile_resolve(cf, "gpu1", &ns), 1);
	assert_true(ns.th.gm_traceable); /* the group left it: from defaults */
	conffile_free(cf);
	parse_fails("{\"defaults\": {\"gm_traceable\": \"yes\"}}",
		    "t.json:1:31: \"gm_traceable\" must be true or false");
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": \"n\", \"gm_traceable\": 1}]}",
		    "t.json:1:57: \"gm_traceable\" must be true or false");
}

static void test_syntax_errors(void **state)
{
	(void)state;
	/* jansson's own positions */
	parse_fails("{\n  \"defaults\": {\n    \"thresholds\": { \"chrony_offset_warn_s\": 0.001, }\n  }\n}\n",
		    "t.json:3:");
	parse_fails("", "t.json:1:1: ");
	parse_fails("{\"a\": 1", "t.json:1:");
	parse_fails("{\"defaults\": {}, \"defaults\": {}}", "t.json:1:");
	parse_fails("{} {}", "t.json:1:");
	parse_fails("{\"defaults\": {\"thresholds\": {\"chrony_offset_warn_s\": 1e999}}}", "t.json:1:");
	conffile *cf = NULL;
	char err[512];
	/* NUL bytes and garbage never crash and never pass */
	static const char nul_text[] = "{\"defaults\"\0: {}}";
	assert_int_equal(conffile_parse(nul_text, sizeof nul_text - 1, "t.json", &cf, err, sizeof err), -1);
	assert_null(cf);
	static const char *const garbage[] = {"{", "}", "[[[[", "\"", "{\"groups\": [{\"name\": \"g\", \"hosts\":",
					      "\xff\xfe{}", "{\"defaults\": nul}"};
	for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
		assert_int_equal(conffile_parse(garbage[i], strlen(garbage[i]), "t.json", &cf, err, sizeof err), -1);
		assert_null(cf);
		assert_true(strncmp(err, "t.json:", 7) == 0);
	}
	/* a tiny err buffer is truncated, never overrun */
	char small[8];
	assert_int_equal(conffile_parse("{\"x\": 1}", 8, "t.json", &cf, small, sizeof small), -1);
	assert_string_equal(small, "t.json:");
}

static void test_load_file(void **state)
{
	(void)state;
	char path[] = "/tmp/synctop_test_config_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "{\"groups\": [{\"name\": \"g\", \"hosts\": \"n[1-3]\",\n \"probe\": {\"iface\": \"eth9\"}}]}";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	conffile *cf = NULL;
	char err[512] = "";
	assert_int_equal(conffile_load(path, &cf, err, sizeof err), 0);
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "n2", &ns), 0);
	assert_string_equal(ns.iface, "eth9");
	conffile_free(cf);

	/* errors are named after the path */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	text = "{\"groups\": [{\"name\": \"g\", \"hosts\": \"n[1-3]\",\n \"probe\": {\"ifcae\": \"eth9\"}}]}";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(conffile_load(path, &cf, err, sizeof err), -1);
	char want[600];
	snprintf(want, sizeof want, "%s:2:12: unknown key \"ifcae\"", path);
	assert_true(strncmp(err, want, strlen(want)) == 0);
	unlink(path);

	assert_int_equal(conffile_load("/nonexistent/synctop.json", &cf, err, sizeof err), -1);
	assert_string_equal(err, "/nonexistent/synctop.json: No such file or directory");
}

/* The threshold keys come from the collectors and core: each names its own
 * field of thresholds (conffile.c sizes its tables on that), every crit a
 * warn points at exists, and every key is settable from a file. */
static void test_threshold_keys_from_descriptors(void **state)
{
	(void)state;
	const threshold_key *keys[128];
	size_t n = 0;
	for (size_t i = 0; i < collector_registry_count; i++) {
		for (size_t k = 0; k < collector_registry[i]->n_threshold_keys; k++) {
			assert_true(n < 128);
			keys[n++] = &collector_registry[i]->threshold_keys[k];
		}
	}
	for (size_t k = 0; k < thresholds_core_key_count; k++) {
		assert_true(n < 128);
		keys[n++] = &thresholds_core_keys[k];
	}
	assert_true(n <= sizeof(thresholds) / sizeof(int));
	for (size_t a = 0; a < n; a++) {
		assert_true(keys[a]->offset < sizeof(thresholds));
		for (size_t b = a + 1; b < n; b++) {
			if (keys[a]->offset == keys[b]->offset || strcmp(keys[a]->name, keys[b]->name) == 0) {
				fail_msg("keys %s and %s share a field or a name", keys[a]->name, keys[b]->name);
			}
		}
		if (keys[a]->crit) {
			size_t c = 0;
			while (c < n && strcmp(keys[c]->name, keys[a]->crit) != 0) {
				c++;
			}
			if (c == n || keys[c]->kind != keys[a]->kind) {
				fail_msg("%s names crit %s, which is no key of its kind", keys[a]->name, keys[a]->crit);
			}
		}
		/* settable: a file setting it to its default loads */
		char text[256];
		snprintf(text, sizeof text, "{\"defaults\": {\"thresholds\": {\"%s\": %s}}}", keys[a]->name,
			 keys[a]->crit ? "0" : "1000000000");
		conffile *cf = NULL;
		char err[256] = "";
		if (conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err) != 0) {
			fail_msg("%s: %s", keys[a]->name, err);
		}
		conffile_free(cf);
	}
}

/* "transport" and "transport_cmd": checked when read, with line:column;
 * a group's replaces the defaults' (one decides, never both). */
static void test_transport_keys(void **state)
{
	(void)state;
	node_settings ns;
	conffile *cf = parse_ok("{\"defaults\": {\"transport\": \"ssh\"},"
				" \"groups\": [{\"name\": \"k8s\", \"hosts\": \"w[1-3]\","
				" \"transport_cmd\": \"kubectl debug 'node/{host}' -q -i --image=busybox -- chroot /host sh\"},"
				" {\"name\": \"old\", \"hosts\": \"old1\", \"transport\": \"libssh2\"}]}");
	conffile_resolve(cf, "gpu1", &ns);
	assert_int_equal(ns.transport, NODE_TRANSPORT_SSH);
	assert_string_equal(ns.transport_cmd, "");
	conffile_resolve(cf, "w2", &ns);
	assert_int_equal(ns.transport, NODE_TRANSPORT_CMD);
	assert_string_equal(ns.transport_cmd, "kubectl debug 'node/{host}' -q -i --image=busybox -- chroot /host sh");
	conffile_resolve(cf, "old1", &ns);
	assert_int_equal(ns.transport, NODE_TRANSPORT_LIBSSH2);
	conffile_free(cf);
	conffile_resolve(NULL, "x", &ns);
	assert_int_equal(ns.transport, NODE_TRANSPORT_LIBSSH2);

	parse_fails("{\"defaults\": {\"transport\": \"openssh\"}}",
		    "t.json:1:28: \"transport\" must be \"libssh2\" or \"ssh\"");
	parse_fails("{\"defaults\": {\"transport_cmd\": \"kubectl exec 'x {host}\"}}",
		    "t.json:1:32: \"transport_cmd\": unbalanced ' quote starting at column 14");
	parse_fails("{\"defaults\": {\"transport_cmd\": \"docker exec -i node1 sh\"}}",
		    "t.json:1:32: \"transport_cmd\" has no {host}");
	parse_fails("{\"defaults\": {\"transport_cmd\": 3}}", "t.json:1:32: \"transport_cmd\" must be a string");
	parse_fails("{\"defaults\": {\"transport\": \"ssh\", \"transport_cmd\": \"x {host}\"}}",
		    "t.json:1:35: \"transport\" and \"transport_cmd\" both set");
}

/* "jump": what -J takes, checked when read (a bad hop points at its value);
 * a group's replaces the defaults', "none" is kept (it means directly). */
static void test_jump_key(void **state)
{
	(void)state;
	node_settings ns;
	conffile *cf = parse_ok("{\"defaults\": {\"jump\": \"ops@login:2222\"},"
				" \"groups\": [{\"name\": \"lab\", \"hosts\": \"lab[1-4]\", \"jump\": \"gw1,u@gw2\"},"
				" {\"name\": \"direct\", \"hosts\": \"mgmt1\", \"jump\": \"none\"},"
				" {\"name\": \"plain\", \"hosts\": \"plain1\"}]}");
	conffile_resolve(cf, "gpu1", &ns);
	assert_string_equal(ns.jump, "ops@login:2222");
	conffile_resolve(cf, "lab3", &ns);
	assert_string_equal(ns.jump, "gw1,u@gw2");
	conffile_resolve(cf, "mgmt1", &ns);
	assert_string_equal(ns.jump, "none");
	conffile_resolve(cf, "plain1", &ns); /* a group without the key keeps the defaults' */
	assert_string_equal(ns.jump, "ops@login:2222");
	conffile_free(cf);
	conffile_resolve(NULL, "x", &ns);
	assert_string_equal(ns.jump, "");

	parse_fails("{\"defaults\": {\"jump\": \"gw1,,gw2\"}}", "t.json:1:23: \"jump\": ");
	parse_fails("{\"defaults\": {\"jump\": \"\"}}", "t.json:1:23: \"jump\" must be a string");
	parse_fails("{\"defaults\": {\"jump\": [\"gw\"]}}", "t.json:1:23: \"jump\" must be a string");
	parse_fails("{\"groups\": [{\"name\": \"g\", \"hosts\": \"a\", \"jump\": \"@gw\"}]}",
		    "t.json:1:49: \"jump\": jump host 1 (''): empty user name");
}

/* A group's "prometheus": its servers, selector, naming and credential
 * file names; groups without one have none; defaults cannot have one. */
static void test_prometheus_per_group(void **state)
{
	(void)state;
	conffile *cf = parse_ok("{\"groups\": [\n"
				"  {\"name\": \"a\", \"hosts\": \"a[1-9]\",\n"
				"   \"prometheus\": {\"url\": \"https://prom-a:9090\", \"selector\": \"{cluster=\\\"a\\\"}\",\n"
				"                  \"node_label\": \"nodename\", \"ca\": \"/etc/ca.pem\",\n"
				"                  \"token_file\": \"/etc/a.token\"}},\n"
				"  {\"name\": \"b\", \"hosts\": \"b[1-9]\",\n"
				"   \"prometheus\": {\"urls\": [\"http://p1:9090\", \"http://p2:9090/prom/\"],\n"
				"                  \"basic_auth_file\": \"/etc/b.basic\"}},\n"
				"  {\"name\": \"c\", \"hosts\": \"c1\"}]}");
	const conffile_prometheus *a = conffile_group_prometheus(cf, 0);
	assert_non_null(a);
	assert_int_equal(a->n_urls, 1);
	assert_string_equal(a->urls[0], "https://prom-a:9090");
	assert_string_equal(a->selector, "{cluster=\"a\"}");
	assert_string_equal(a->node_label, "nodename");
	assert_string_equal(a->ca, "/etc/ca.pem");
	assert_string_equal(a->token_file, "/etc/a.token");
	assert_null(a->basic_auth_file);
	const conffile_prometheus *b = conffile_group_prometheus(cf, 1);
	assert_non_null(b);
	assert_int_equal(b->n_urls, 2);
	assert_string_equal(b->urls[1], "http://p2:9090/prom/");
	assert_null(b->selector);
	assert_null(b->node_label);
	assert_null(b->ca);
	assert_null(b->token_file);
	assert_string_equal(b->basic_auth_file, "/etc/b.basic");
	assert_null(conffile_group_prometheus(cf, 2));
	assert_null(conffile_group_prometheus(cf, 3));
	assert_null(conffile_group_prometheus(NULL, 0));
	/* the group still resolves as any other */
	node_settings ns;
	assert_int_equal(conffile_resolve(cf, "b3", &ns), 1);
	conffile_free(cf);

	parse_fails("{\"defaults\": {\"prometheus\": {\"url\": \"http://p:9090\"}}}",
		    "t.json:1:15: unknown key \"prometheus\" in \"defaults\"");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": {}}]}",
		    "t.json:1:56: \"prometheus\" needs \"url\" or \"urls\"");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": {\"url\": \"prom:9090\"}}]}",
		    "t.json:1:64: a Prometheus URL must be an http:// or https:// URL");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"url\": \"http://u:pw@prom:9090\"}}]}",
		    "t.json:1:64: a Prometheus URL must be an http:// or https:// URL without user:password@");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"urls\": [\"http://p:1\", 7]}}]}",
		    "t.json:1:80: a Prometheus URL");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"url\": \"http://p:1\", \"selector\": \"job=\\\"x\\\"\"}}]}",
		    "t.json:1:90: \"selector\" must be label matchers in braces");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"url\": \"http://p:1\", \"node_label\": \"no-dash\"}}]}",
		    "t.json:1:92: \"node_label\" must be a label name");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"url\": \"http://p:1\", \"token_file\": \"/t\", \"basic_auth_file\": \"/b\"}}]}",
		    "t.json:1:56: \"prometheus\": \"token_file\" and \"basic_auth_file\": one or the other");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"url\": \"http://p:1\", \"token\": \"s3cret\"}}]}",
		    "t.json:1:78: unknown key \"token\" in \"prometheus\"");
	parse_fails("{\"groups\": [{\"name\": \"a\", \"hosts\": \"a1\", \"prometheus\": "
		    "{\"url\": \"http://p:1\", \"ca\": \"\"}}]}",
		    "t.json:1:84: \"ca\" must be a non-empty string");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_without_file),
		cmocka_unit_test(test_defaults_apply_to_unmatched_node),
		cmocka_unit_test(test_group_overrides_key_by_key),
		cmocka_unit_test(test_sudo_and_its_old_name),
		cmocka_unit_test(test_first_matching_group_wins),
		cmocka_unit_test(test_array_hosts),
		cmocka_unit_test(test_empty_and_minimal_files),
		cmocka_unit_test(test_every_threshold_key),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_syntax_error_shows_control_bytes),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_warn_above_crit),
		cmocka_unit_test(test_warn_above_crit_beyond_double_precision),
		cmocka_unit_test(test_groups_need_name_and_hosts),
		cmocka_unit_test(test_bad_host_list_points_inside_the_string),
		cmocka_unit_test(test_upstream_and_grandmaster_syntax),
		cmocka_unit_test(test_transport_keys),
		cmocka_unit_test(test_jump_key),
		cmocka_unit_test(test_gm_traceable),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_threshold_keys_from_descriptors),
		cmocka_unit_test(test_prometheus_per_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
