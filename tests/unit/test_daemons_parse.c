/* test_daemons_parse.c - which daemons a ps listing shows. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemons_parse.h"

static daemons_obs parse(const char *text, int rc)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = rc};
	daemons_obs d;
	daemons_parse(&out, &d);
	return d;
}

static void test_finds_daemons(void **state)
{
	(void)state;
	daemons_obs d = parse("systemd\nsshd\n  chronyd\nptp4l\nbash\nsystemd-timesyn\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_CHRONYD | DAEMON_PTP4L | DAEMON_TIMESYNCD);
}

static void test_exact_names_only(void **state)
{
	(void)state;
	/* prefixes and longer names must not count */
	daemons_obs d = parse("chrony\nchronyd-helper\nntpdate\nphc2sys\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_PHC2SYS);
}

static void test_last_line_without_newline(void **state)
{
	(void)state;
	daemons_obs d = parse("init\nntpd", 0);
	assert_int_equal(d.running, DAEMON_NTPD);
}

static void test_failures(void **state)
{
	(void)state;
	assert_int_equal(parse("", 127).state, OBS_TOOL_MISSING);
	assert_int_equal(parse("", 1).state, OBS_COMMAND_FAILED);
	assert_int_equal(parse("", 0).state, OBS_EMPTY);
	daemons_obs d = parse("\x1b[2J\xff\xfe\n\n\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_daemons),
		cmocka_unit_test(test_exact_names_only),
		cmocka_unit_test(test_last_line_without_newline),
		cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests_name("daemons_parse", tests, NULL, NULL);
}
