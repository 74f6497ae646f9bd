/* test_ssh_jump_spec.c - ProxyJump / -J values, read as OpenSSH's
 * readconf.c:parse_jump and misc.c:parse_user_host_port read them. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ssh_jump_spec.h"

static void parse_ok(const char *value, ssh_jump_spec *s)
{
	char err[512] = "";
	int rc = ssh_jump_spec_parse(value, s, err, sizeof err);
	if (rc != 0) {
		fail_msg("'%s': %s", value, err);
	}
}

static void test_single_host(void **state)
{
	ssh_jump_spec s;
	parse_ok("bastion", &s);
	assert_false(s.none);
	assert_int_equal(s.count, 1);
	assert_string_equal(s.hop[0].host, "bastion");
	assert_string_equal(s.hop[0].user, "");
	assert_int_equal(s.hop[0].port, 0);
}

static void test_user_and_port(void **state)
{
	ssh_jump_spec s;
	parse_ok("ops@bastion.example:2222", &s);
	assert_int_equal(s.count, 1);
	assert_string_equal(s.hop[0].user, "ops");
	assert_string_equal(s.hop[0].host, "bastion.example");
	assert_int_equal(s.hop[0].port, 2222);
	/* the user ends at the last '@' (parse_user_host_port uses strrchr) */
	parse_ok("a@b@gw", &s);
	assert_string_equal(s.hop[0].user, "a@b");
	assert_string_equal(s.hop[0].host, "gw");
	/* hpdelim2 also takes '/' before the port */
	parse_ok("gw/2200", &s);
	assert_string_equal(s.hop[0].host, "gw");
	assert_int_equal(s.hop[0].port, 2200);
}

static void test_chain_order(void **state)
{
	ssh_jump_spec s;
	parse_ok("first,u@second:23,ssh://third", &s);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.hop[0].host, "first");
	assert_string_equal(s.hop[1].host, "second");
	assert_string_equal(s.hop[1].user, "u");
	assert_int_equal(s.hop[1].port, 23);
	assert_string_equal(s.hop[2].host, "third");
}

static void test_ipv6_and_uri(void **state)
{
	ssh_jump_spec s;
	parse_ok("root@[fd00::1]:2022", &s);
	assert_string_equal(s.hop[0].user, "root");
	assert_string_equal(s.hop[0].host, "fd00::1");
	assert_int_equal(s.hop[0].port, 2022);
	parse_ok("ssh://ops@gw.example:2200/", &s);
	assert_string_equal(s.hop[0].user, "ops");
	assert_string_equal(s.hop[0].host, "gw.example");
	assert_int_equal(s.hop[0].port, 2200);
	char text[128];
	ssh_jump_hop_format(&(ssh_jump_hop){.user = "root", .host = "fd00::1", .port = 2022}, text, sizeof text);
	assert_string_equal(text, "root@[fd00::1]:2022");
	ssh_jump_hop_format(&(ssh_jump_hop){.host = "gw"}, text, sizeof text);
	assert_string_equal(text, "gw");
	ssh_jump_hop_format(&(ssh_jump_hop){.host = "fd00::1"}, text, sizeof text);
	assert_string_equal(text, "[fd00::1]");
}

static void test_none_and_comment(void **state)
{
	ssh_jump_spec s;
	parse_ok("NONE", &s);
	assert_true(s.none);
	assert_int_equal(s.count, 0);
	parse_ok("  gw:22   # the login node", &s);
	assert_int_equal(s.count, 1);
	assert_string_equal(s.hop[0].host, "gw");
	assert_int_equal(s.hop[0].port, 22);
}

static void test_errors(void **state)
{
	static const char *const bad[] = {
		"",            /* nothing */
		"a,,b",        /* an empty hop */
		"gw:0",        /* port out of range */
		"gw:65536",
		"gw:ssh2",     /* not a number */
		"@gw",         /* empty user */
		"[fd00::1",    /* unclosed bracket */
		"u@",          /* no host */
		"g'w",         /* a quote in a host name */
		"g\x7fw",      /* DEL in a host name (found by fuzzing) */
		"a b@gw",      /* a blank in a user name */
		"ssh://ssh://@gw", /* a user "ssh://" (found by fuzzing) */
		"-oProxyCommand=x", /* an option, not a host */
		"a,b,c,d,e,f,g,h,i", /* more hops than synctop follows */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ssh_jump_spec s;
		char err[512] = "";
		if (ssh_jump_spec_parse(bad[i], &s, err, sizeof err) == 0) {
			fail_msg("'%s' was accepted", bad[i]);
		}
		assert_true(err[0] != '\0');
		assert_int_equal(s.count, 0);
	}
	ssh_jump_spec s;
	char err[512] = "";
	assert_int_equal(ssh_jump_spec_parse("ok,gw:99999", &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "jump host 2"));
	assert_non_null(strstr(err, "99999"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_host),
		cmocka_unit_test(test_user_and_port),
		cmocka_unit_test(test_chain_order),
		cmocka_unit_test(test_ipv6_and_uri),
		cmocka_unit_test(test_none_and_comment),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
