/* test_hostlist.c - host list expansion, inventory entries and hosts files.
 *
 * Expected expansions were checked against pdsh 2.34 (`pdsh -R exec -w EXPR
 * echo %h`), e.g. rack[1-2]-n[01-03,20] and c[8-011]. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hostlist.h"
#include "target.h"

/* ------------------------------------------------------------ collecting */

typedef struct {
	char joined[4096]; /* names separated by ' ', as far as they fit */
	size_t count;
	char first[HOSTLIST_NAME_MAX + 1];
	char last[HOSTLIST_NAME_MAX + 1];
	size_t stop_after; /* 0 = never stop */
} names;

static int collect(const char *host, void *ctx)
{
	names *n = ctx;
	size_t used = strlen(n->joined);
	assert_true(strlen(host) <= HOSTLIST_NAME_MAX);
	if (n->count == 0) {
		snprintf(n->first, sizeof n->first, "%s", host);
	}
	snprintf(n->last, sizeof n->last, "%s", host);
	if (used + strlen(host) + 2 < sizeof n->joined) {
		snprintf(n->joined + used, sizeof n->joined - used, "%s%s", used ? " " : "", host);
	}
	n->count++;
	return n->stop_after && n->count >= n->stop_after;
}

static void expect_names(const char *expr, const char *want)
{
	names n = {.count = 0};
	char err[256] = "";
	int rc = hostlist_expand(expr, collect, &n, err, sizeof err);
	if (rc != 0) {
		fail_msg("%s: unexpected error: %s", expr, err);
	}
	assert_string_equal(n.joined, want);
}

static void expect_error(const char *expr, const char *want_prefix, const char *want_part)
{
	names n = {.count = 0};
	char err[256] = "";
	assert_int_equal(hostlist_expand(expr, collect, &n, err, sizeof err), -1);
	if (strncmp(err, want_prefix, strlen(want_prefix)) != 0 || !strstr(err, want_part)) {
		fail_msg("%s: got \"%s\", want \"%s...%s\"", expr, err, want_prefix, want_part);
	}
	/* the whole list is checked first: an invalid one yields nothing */
	assert_int_equal(n.count, 0);
}

/* -------------------------------------------------------------- hostlist */

static void test_plain_lists(void **state)
{
	(void)state;
	expect_names("login1", "login1");
	expect_names("login1,login2,mgmt.example.org", "login1 login2 mgmt.example.org");
	expect_names("login1,gpu[1-2],mgmt", "login1 gpu1 gpu2 mgmt");
}

static void test_padding_from_lower_bound(void **state)
{
	(void)state;
	expect_names("gpu[001-003]", "gpu001 gpu002 gpu003");
	expect_names("n[098-101]", "n098 n099 n100 n101");
	expect_names("g[0008-10]", "g0008 g0009 g0010");
	/* pdsh: an upper bound's zeros do not pad */
	expect_names("c[8-011]", "c8 c9 c10 c11");
	expect_names("n[0-2]", "n0 n1 n2");
}

static void test_single_and_mixed(void **state)
{
	(void)state;
	expect_names("[5]", "5");
	expect_names("x[5]y", "x5y");
	expect_names("n[1,3,5-7]", "n1 n3 n5 n6 n7");
	expect_names("n[1-3,2]", "n1 n2 n3 n2"); /* order kept, no de-duplication (pdsh too) */
	expect_names("gpu[1-2].ib,gpu[1-2].eth", "gpu1.ib gpu2.ib gpu1.eth gpu2.eth");
}

static void test_cartesian_leftmost_slowest(void **state)
{
	(void)state;
	expect_names("rack[1-2]-n[01-03,20]",
		     "rack1-n01 rack1-n02 rack1-n03 rack1-n20 rack2-n01 rack2-n02 rack2-n03 rack2-n20");
	expect_names("r[1-2]c[1-2]s[1-2]",
		     "r1c1s1 r1c1s2 r1c2s1 r1c2s2 r2c1s1 r2c1s2 r2c2s1 r2c2s2");
}

static void test_ipv6_literals_pass_through(void **state)
{
	(void)state;
	expect_names("[fe80::1]:22", "[fe80::1]:22");
	expect_names("[fe80::1]:22,root@[::1],node[1-2]:2222",
		     "[fe80::1]:22 root@[::1] node1:2222 node2:2222");
	expect_names("[fe80::1%eth0]", "[fe80::1%eth0]");
}

static void test_user_and_port_around_ranges(void **state)
{
	(void)state;
	expect_names("root@gpu[01-02]:2222", "root@gpu01:2222 root@gpu02:2222");
}

static void test_syntax_errors_name_the_column(void **state)
{
	(void)state;
	expect_error("a[1-2", "column 2: ", "without a matching ']'");
	expect_error("a1-2]", "column 5: ", "']' without a matching '['");
	expect_error("a[3-1]", "column 3: ", "reversed range 3-1");
	expect_error("gpu[010-001]", "column 5: ", "reversed range 010-001");
	expect_error("a[1-x]", "column 5: ", "expected a digit for the upper bound, found 'x'");
	expect_error("a[x]", "column 3: ", "expected a digit");
	expect_error("a,,b", "column 3: ", "empty host name");
	expect_error(",a", "column 1: ", "empty host name");
	expect_error("a,", "column 3: ", "empty host name");
	expect_error("a[]", "column 2: ", "empty brackets");
	expect_error("a[1,]", "column 5: ", "missing lower bound");
	expect_error("a[,1]", "column 3: ", "missing lower bound");
	expect_error("a[1-]", "column 5: ", "missing upper bound");
	expect_error("a[1-2-3]", "column 6: ", "unexpected '-'");
	expect_error("a[1a]", "column 4: ", "unexpected 'a'");
	expect_error("a[1[2]]", "column 4: ", "'[' inside brackets");
	expect_error("ok,a b", "column 5: ", "whitespace");
	expect_error("a\tb", "column 2: ", "whitespace");
	expect_error("a\001b", "column 2: ", "control character \\x01");
	expect_error("", "column 1: ", "empty host list");
	expect_error("n[1-1000000000000000000]", "column 5: ", "longer than 18 digits");
}

static void test_size_limit(void **state)
{
	(void)state;
	names n = {.count = 0};
	char err[256];

	assert_int_equal(hostlist_expand("n[1-100000]", collect, &n, err, sizeof err), 0);
	assert_int_equal(n.count, HOSTLIST_MAX_HOSTS);
	assert_string_equal(n.first, "n1");
	assert_string_equal(n.last, "n100000");

	expect_error("n[1-100001]", "column 1: ", "more than 100000 names");
	expect_error("x,n[1-1000][1-1000]", "column 3: ", "more than 100000 names");
	/* the sum over elements counts too: the second element crosses it */
	expect_error("n[1-99999],m[1-2]", "column 12: ", "more than 100000 names");
	/* saturating arithmetic: these would overflow 64 bits if multiplied */
	expect_error("n[1-999999999999999999][1-999999999999999999][1-999999999999999999]",
		     "column 1: ", "more than 100000 names");
}

static void test_group_and_length_limits(void **state)
{
	(void)state;
	char expr[HOSTLIST_NAME_MAX + 64];
	size_t n = 0;

	for (int i = 0; i < HOSTLIST_MAX_GROUPS; i++) {
		n += (size_t)snprintf(expr + n, sizeof expr - n, "[1]");
	}
	names got = {.count = 0};
	char err[256];
	assert_int_equal(hostlist_expand(expr, collect, &got, err, sizeof err), 0);
	assert_int_equal(got.count, 1);
	assert_int_equal(strlen(got.first), HOSTLIST_MAX_GROUPS);

	snprintf(expr + n, sizeof expr - n, "[1]");
	expect_error(expr, "column 97: ", "more than 32 bracket groups");

	memset(expr, 'a', HOSTLIST_NAME_MAX);
	expr[HOSTLIST_NAME_MAX] = '\0';
	expect_names("x", "x"); /* sanity for the helper */
	got = (names){.count = 0};
	assert_int_equal(hostlist_expand(expr, collect, &got, err, sizeof err), 0);
	assert_int_equal(got.count, 1);
	/* one more character, via the range's width, is too long */
	snprintf(expr + HOSTLIST_NAME_MAX - 1, 8, "[8-10]");
	expect_error(expr, "column 1: ", "names would be 512 characters long");
}

static void test_callback_can_stop(void **state)
{
	(void)state;
	names n = {.stop_after = 2};
	char err[64] = "untouched";
	assert_int_equal(hostlist_expand("a,b,c", collect, &n, err, sizeof err), -1);
	assert_int_equal(n.count, 2);
	assert_string_equal(err, "untouched");

	/* _n reports where the element that produced the refused name starts */
	size_t col = 0;
	n = (names){.stop_after = 3};
	assert_int_equal(hostlist_expand_n("x,gpu[1-4]", 10, collect, &n, &col, err, sizeof err),
			 -1);
	assert_int_equal(col, 3);
	assert_string_equal(n.last, "gpu2");
}

static void test_length_bounded_input(void **state)
{
	(void)state;
	names n = {.count = 0};
	char err[128];
	size_t col = 0;
	/* only the first 8 bytes are the expression */
	assert_int_equal(hostlist_expand_n("gpu[1-2]XXXX", 8, collect, &n, &col, err, sizeof err),
			 0);
	assert_string_equal(n.joined, "gpu1 gpu2");
	/* a NUL byte inside the given length is a control character */
	n = (names){.count = 0};
	assert_int_equal(hostlist_expand_n("a\0b", 3, collect, &n, &col, err, sizeof err), -1);
	assert_int_equal(col, 2);
	assert_int_equal(n.count, 0);
	/* NULL callback: validation only */
	assert_int_equal(hostlist_expand_n("n[1-3]", 6, NULL, NULL, &col, err, sizeof err), 0);
	assert_int_equal(hostlist_expand_n("n[3-1]", 6, NULL, NULL, &col, err, sizeof err), -1);
	assert_int_equal(col, 3);
}

static void test_garbage_never_breaks_it(void **state)
{
	(void)state;
	static const char alphabet[] = "[]-,0123456789a:@% \t\001\377";
	char buf[48];
	uint32_t seed = 12345;
	names n;
	char err[256];
	size_t col;

	for (int round = 0; round < 20000; round++) {
		size_t len = 0;
		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % sizeof buf;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		n = (names){.count = 0};
		err[0] = '\0';
		col = 0;
		int rc = hostlist_expand_n(buf, len, collect, &n, &col, err, sizeof err);
		if (rc == 0) {
			assert_true(n.count >= 1);
			assert_true(n.count <= HOSTLIST_MAX_HOSTS);
		} else {
			/* every failure points inside (or just past) the text and says why */
			assert_true(col >= 1 && col <= len + 1);
			assert_true(err[0] != '\0');
			assert_int_equal(n.count, 0);
		}
	}
}

/* ---------------------------------------------------------------- target */

static void expect_target(const char *text, const char *user, const char *host, int port)
{
	target t;
	char err[256] = "";
	if (target_parse(text, &t, err, sizeof err) != 0) {
		fail_msg("%s: unexpected error: %s", text, err);
	}
	assert_string_equal(t.user, user);
	assert_string_equal(t.host, host);
	assert_int_equal(t.port, port);
}

static void expect_bad_target(const char *text, const char *want_prefix, const char *want_part)
{
	target t = {.port = 42};
	char err[256] = "";
	assert_int_equal(target_parse(text, &t, err, sizeof err), -1);
	if (strncmp(err, want_prefix, strlen(want_prefix)) != 0 || !strstr(err, want_part)) {
		fail_msg("%s: got \"%s\", want \"%s...%s\"", text, err, want_prefix, want_part);
	}
	assert_int_equal(t.port, 42); /* untouched on failure */
}

static void test_target_forms(void **state)
{
	(void)state;
	expect_target("gpu01", "", "gpu01", 0);
	expect_target("gpu01:2222", "", "gpu01", 2222);
	expect_target("root@gpu01", "root", "gpu01", 0);
	expect_target("root@gpu01:22", "root", "gpu01", 22);
	expect_target("node_1.cluster-a.example.org", "", "node_1.cluster-a.example.org", 0);
	expect_target("10.77.0.2:2202", "", "10.77.0.2", 2202);
	expect_target("u@ad.example@host", "u@ad.example", "host", 0); /* last '@' splits */
	expect_target("host:65535", "", "host", 65535);
	expect_target("host:00022", "", "host", 22);
}

static void test_target_ipv6(void **state)
{
	(void)state;
	expect_target("[fe80::1]", "", "fe80::1", 0);
	expect_target("[fe80::1]:22", "", "fe80::1", 22);
	expect_target("[fe80::1%eth0]:2201", "", "fe80::1%eth0", 2201);
	expect_target("admin@[2001:db8::5]:2222", "admin", "2001:db8::5", 2222);
	expect_target("[::ffff:10.0.0.1]:22", "", "::ffff:10.0.0.1", 22);
	/* without brackets two or more ':' are an address, never address:port */
	expect_target("fe80::1", "", "fe80::1", 0);
	expect_target("root@2001:db8::22", "root", "2001:db8::22", 0);
}

static void test_target_rejects(void **state)
{
	(void)state;
	char longhost[300];
	char longuser[80];

	expect_bad_target("", "column 1: ", "empty entry");
	expect_bad_target("host:", "column 6: ", "missing port");
	expect_bad_target("host:0", "column 6: ", "out of range");
	expect_bad_target("host:65536", "column 6: ", "out of range");
	expect_bad_target("host:99999999999999999999", "column 6: ", "out of range");
	expect_bad_target("host:22x", "column 8: ", "'x' not allowed in a port");
	expect_bad_target("host:-1", "column 6: ", "not allowed in a port");
	expect_bad_target("-oProxyCommand=x", "column 1: ", "starts with '-'");
	expect_bad_target("root@-host", "column 6: ", "starts with '-'");
	expect_bad_target("-l@host", "column 1: ", "user name starts with '-'");
	expect_bad_target("@host", "column 1: ", "empty user name");
	expect_bad_target("root@", "column 6: ", "missing host name");
	expect_bad_target("root@:22", "column 6: ", "missing host name");
	expect_bad_target("ho st", "column 3: ", "space");
	expect_bad_target("host\n", "column 5: ", "control character \\x0a");
	expect_bad_target("ho/st", "column 3: ", "'/' not allowed in a host name");
	expect_bad_target("ho$t", "column 3: ", "'$' not allowed");
	expect_bad_target("us;er@host", "column 3: ", "';' not allowed in a user name");
	expect_bad_target("[fe80::1", "column 1: ", "without a matching ']'");
	expect_bad_target("[fe80::1]x", "column 10: ", "expected ':'");
	expect_bad_target("[fe80::1]:", "column 11: ", "missing port");
	expect_bad_target("[gpu1]:22", "column 2: ", "not an IPv6 address");
	expect_bad_target("[]:22", "column 2: ", "missing IPv6 address");
	expect_bad_target("[fe80::1%]:22", "column 9: ", "empty zone");
	expect_bad_target("[fe80::1%e/0]", "column 11: ", "not allowed in an IPv6 zone");
	expect_bad_target("fe80::zz", "column 1: ", "not an IPv6 address");

	memset(longhost, 'h', 256);
	longhost[256] = '\0';
	expect_bad_target(longhost, "column 1: ", "longer than 255");
	longhost[255] = '\0';
	expect_target(longhost, "", longhost, 0);

	memset(longuser, 'u', 64);
	snprintf(longuser + 64, sizeof longuser - 64, "@h");
	expect_bad_target(longuser, "column 1: ", "longer than 63");
}

/* ------------------------------------------------------------ hosts file */

static void test_hosts_file_with_comments(void **state)
{
	(void)state;
	static const char text[] =
		"# cluster inventory\n"
		"login1          # the head node\n"
		"\n"
		"   \t\n"
		"root@gpu[01-03]:2222\r\n"
		"  [fe80::1%eth0]:22\n"
		"rack[1-2]-n[1-2],mgmt # two racks\n"
		"#gpu99\n"
		"last"; /* no final newline */
	target_list l;
	char err[256] = "";

	target_list_init(&l);
	assert_int_equal(target_list_parse(&l, text, sizeof text - 1, "hosts", err, sizeof err), 0);
	assert_int_equal(l.count, 1 + 3 + 1 + 4 + 1 + 1);
	assert_string_equal(l.items[0].host, "login1");
	assert_string_equal(l.items[1].user, "root");
	assert_string_equal(l.items[1].host, "gpu01");
	assert_int_equal(l.items[1].port, 2222);
	assert_string_equal(l.items[3].host, "gpu03");
	assert_string_equal(l.items[4].host, "fe80::1%eth0");
	assert_int_equal(l.items[4].port, 22);
	assert_string_equal(l.items[5].host, "rack1-n1");
	assert_string_equal(l.items[8].host, "rack2-n2");
	assert_string_equal(l.items[9].host, "mgmt");
	assert_string_equal(l.items[10].host, "last");
	assert_int_equal(l.items[10].port, 0);
	target_list_free(&l);
	assert_null(l.items);
	assert_int_equal(l.count, 0);
}

static void expect_file_error(const char *text, const char *want)
{
	target_list l;
	char err[512] = "";
	target_list_init(&l);
	assert_int_equal(target_list_add_expr(&l, "keep", err, sizeof err), 0);
	assert_int_equal(target_list_parse(&l, text, strlen(text), "hosts", err, sizeof err), -1);
	if (strncmp(err, want, strlen(want)) != 0) {
		fail_msg("got \"%s\", want \"%s...\"", err, want);
	}
	/* a failed file leaves the list as it was */
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].host, "keep");
	target_list_free(&l);
}

static void test_hosts_file_errors_name_line_and_column(void **state)
{
	(void)state;
	expect_file_error("a\n# fine\n  gpu[03-01]\n", "hosts:3:7: reversed range 03-01");
	expect_file_error("a\nb c\n", "hosts:2:2: whitespace");
	/* a literal entry: the column inside it */
	expect_file_error("ok\nnode1,root@-bad\n", "hosts:2:12: root@-bad: host name starts with '-'");
	expect_file_error("x:0\n", "hosts:1:3: x:0: port 0 out of range");
	/* an expanded entry: the column where the element starts, and the name */
	expect_file_error("\n\tok,gpu[1-2]:99999\n", "hosts:2:5: gpu1:99999: port 99999 out of range");
	expect_file_error("ok\nbad\001\n", "hosts:2:4: control character");
}

/* The host names quoted in errors show bidi controls (here U+202E RLO, which
 * would flip the rest of the line) as \xNN. */
static void test_errors_show_hidden_characters(void **state)
{
	(void)state;
	expect_file_error("ok\nnode\xe2\x80\xaex\n",
			  "hosts:2:5: node\\xe2\\x80\\xaex: character \\xe2 not allowed in a host name");
	expect_file_error("ok\n[fe80::1\xe2\x80\xaex]\n",
			  "hosts:2:2: [fe80::1\\xe2\\x80\\xaex]: not an IPv6 address: fe80::1\\xe2\\x80\\xaex");

	target_list l;
	char err[512] = "";
	target_list_init(&l);
	assert_int_equal(target_list_add_expr(&l, "a,n\xe2\x80\xae[1-2]", err, sizeof err), -1);
	for (const char *p = err; *p; p++) {
		assert_true((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
	}
	assert_non_null(strstr(err, "n\\xe2\\x80\\xae1: character \\xe2"));
	target_list_free(&l);
}

static void test_list_limit(void **state)
{
	(void)state;
	target_list l;
	char err[256] = "";
	target_list_init(&l);
	assert_int_equal(target_list_add_expr(&l, "n[1-100000]", err, sizeof err), 0);
	assert_int_equal(l.count, TARGET_LIST_MAX);
	assert_int_equal(target_list_add_expr(&l, "one,more", err, sizeof err), -1);
	assert_string_equal(err, "column 1: more than 100000 targets");
	assert_int_equal(l.count, TARGET_LIST_MAX);
	assert_string_equal(l.items[TARGET_LIST_MAX - 1].host, "n100000");
	target_list_free(&l);
}

static void test_add_expr(void **state)
{
	(void)state;
	target_list l;
	char err[256] = "";
	target_list_init(&l);
	assert_int_equal(target_list_add_expr(&l, "root@gpu[1-2]:22,[::1]:2201", err, sizeof err),
			 0);
	assert_int_equal(l.count, 3);
	assert_string_equal(l.items[1].host, "gpu2");
	assert_string_equal(l.items[1].user, "root");
	assert_string_equal(l.items[2].host, "::1");
	assert_int_equal(l.items[2].port, 2201);
	assert_int_equal(target_list_add_expr(&l, "ok,gpu[1-2]:x", err, sizeof err), -1);
	assert_string_equal(err, "column 4: gpu1:x: character 'x' not allowed in a port");
	assert_int_equal(l.count, 3);
	target_list_free(&l);
}

static void test_read_file(void **state)
{
	(void)state;
	char path[] = "/tmp/synctop-hosts-XXXXXX";
	static const char text[] = "# lab\nnode[1-3]\nroot@127.0.0.1:2301\n";
	target_list l;
	char err[512] = "";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	target_list_init(&l);
	assert_int_equal(target_list_read_file(&l, path, err, sizeof err), 0);
	assert_int_equal(l.count, 4);
	assert_string_equal(l.items[3].host, "127.0.0.1");
	assert_int_equal(l.items[3].port, 2301);
	unlink(path);

	assert_int_equal(target_list_read_file(&l, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(l.count, 4);
	target_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_lists),
		cmocka_unit_test(test_padding_from_lower_bound),
		cmocka_unit_test(test_single_and_mixed),
		cmocka_unit_test(test_cartesian_leftmost_slowest),
		cmocka_unit_test(test_ipv6_literals_pass_through),
		cmocka_unit_test(test_user_and_port_around_ranges),
		cmocka_unit_test(test_syntax_errors_name_the_column),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_group_and_length_limits),
		cmocka_unit_test(test_callback_can_stop),
		cmocka_unit_test(test_length_bounded_input),
		cmocka_unit_test(test_garbage_never_breaks_it),
		cmocka_unit_test(test_target_forms),
		cmocka_unit_test(test_target_ipv6),
		cmocka_unit_test(test_target_rejects),
		cmocka_unit_test(test_hosts_file_with_comments),
		cmocka_unit_test(test_hosts_file_errors_name_line_and_column),
		cmocka_unit_test(test_errors_show_hidden_characters),
		cmocka_unit_test(test_list_limit),
		cmocka_unit_test(test_add_expr),
		cmocka_unit_test(test_read_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
