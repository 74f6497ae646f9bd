/* test_collector_period.c - `--period TOOL=SEC`: which tools take one, the
 * numbers accepted, and that an override replaces the descriptor's period
 * for that tool only. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"
#include "collector_period.h"

static size_t index_of(const char *name)
{
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (strcmp(collector_registry[i]->name, name) == 0) {
			return i;
		}
	}
	fail_msg("no collector %s", name);
	return 0;
}

static void test_registry_fits(void **state)
{
	(void)state;
	assert_true(collector_registry_count <= COLLECTOR_PERIOD_MAX);
}

static void test_override(void **state)
{
	(void)state;
	collector_periods p;
	char why[256];
	memset(&p, 0, sizeof p);
	size_t ntpq = index_of("ntpq"), ethtool = index_of("ethtool");
	assert_true(collector_period_s(NULL, ntpq) == 60.0);
	assert_true(collector_period_s(&p, ntpq) == 60.0);
	assert_int_equal(collector_period_parse("ntpq=300", &p, why, sizeof why), 0);
	assert_true(collector_period_s(&p, ntpq) == 300.0);
	assert_true(collector_period_s(&p, ethtool) == 300.0); /* its own */
	assert_int_equal(collector_period_parse("ethtool=30.5", &p, why, sizeof why), 0);
	assert_true(collector_period_s(&p, ethtool) == 30.5);
	/* the last one given wins */
	assert_int_equal(collector_period_parse("ntpq=5", &p, why, sizeof why), 0);
	assert_true(collector_period_s(&p, ntpq) == 5.0);
}

static void test_refused(void **state)
{
	(void)state;
	collector_periods p;
	char why[256];
	memset(&p, 0, sizeof p);
	const char *bad[] = {"ntpq", "=60", "ntpq=", "ntpq=abc", "ntpq=60s", "ntpq=0", "ntpq=0.5", "ntpq=-1",
			     "ntpq=nan", "ntpq=inf", "ntpq=86401", "nosuch=60", "ntp=60"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		assert_int_equal(collector_period_parse(bad[i], &p, why, sizeof why), -1);
		assert_true(why[0] != '\0');
	}
	/* a tool that runs every poll has no period to change */
	assert_int_equal(collector_period_parse("pmc=60", &p, why, sizeof why), -1);
	assert_non_null(strstr(why, "pmc runs every poll"));
	assert_non_null(strstr(why, "ntpq"));
	/* nothing refused changed anything */
	for (size_t i = 0; i < COLLECTOR_PERIOD_MAX; i++) {
		assert_true(p.s[i] == 0.0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_fits),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
