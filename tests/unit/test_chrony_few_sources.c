/* test_chrony_few_sources.c - chrony.few_sources on real chronyc captures:
 * which sources count as usable, the group's min_sources (off by default),
 * and the configuration key. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chrony_parse.h"
#include "conffile.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "node_settings.h"
#include "thresholds.h"

/* A chrony node whose part is the parse of the named captures, joined in
 * order (`chronyc -c -m tracking sources sourcestats` prints them so). */
static node *node_from(const char *first, const char *second)
{
	size_t a_len, b_len = 0;
	char *a = fixture_read(first, &a_len);
	char *b = second ? fixture_read(second, &b_len) : NULL;
	char *text = malloc(a_len + b_len + 1);
	assert_non_null(text);
	memcpy(text, a, a_len);
	if (b) {
		memcpy(text + a_len, b, b_len);
	}
	text[a_len + b_len] = '\0';
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	node_init(n, "node1");
	n->reachable = true;
	n->has_observation = true;
	n->obs.daemons.state = OBS_OK;
	n->obs.daemons.running = DAEMON_CHRONYD;
	tool_output out = {.out = text, .out_len = a_len + b_len, .err = "", .err_len = 0, .rc = 0};
	chrony_parse_csv(&out, &n->obs.chrony);
	assert_int_equal(n->obs.chrony.state, OBS_OK);
	free(a);
	free(b);
	free(text);
	return n;
}

static const finding *few(node *n, int min_sources)
{
	thresholds th;
	thresholds_init_defaults(&th);
	th.min_sources = min_sources;
	health_apply(n, &th);
	for (int i = 0; i < n->findings.count; i++) {
		if (strcmp(n->findings.items[i].code, "chrony.few_sources") == 0) {
			return &n->findings.items[i];
		}
	}
	return NULL;
}

static void test_off_by_default(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	assert_int_equal(th.min_sources, 0);
	/* one unreachable source: no source usable, yet nothing from this rule */
	node *n = node_from("chronyc-c-m-tracking-sources-unsync.txt", NULL);
	assert_null(few(n, 0));
	free(n);
}

/* Lab node3: '*' and '+', both reach 377. */
static void test_selected_and_combined(void **state)
{
	(void)state;
	node *n = node_from("chronyc-c-m-tracking-sources-sourcestats-synced.txt", NULL);
	assert_null(few(n, 2));
	const finding *f = few(n, 4);
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_WARN);
	assert_string_equal(f->message, "2 usable sources of 2 (the group wants at least 4)");
	assert_non_null(strstr(f->hint, "RFC 8633"));
	free(n);
}

/* '-' (not combined) passed the selection: it counts. */
static void test_not_combined_counts(void **state)
{
	(void)state;
	node *n = node_from("chronyc-c-tracking-node3-two-sources.txt", "chronyc-c-sources-node3-two-sources.txt");
	assert_int_equal(n->obs.chrony.sources[1].state, CHRONY_STATE_NOT_COMBINED);
	assert_null(few(n, 2));
	assert_non_null(few(n, 3));
	free(n);
}

/* The falseticker capture: '*', 'x' (+3 s server), '+', '?' (nothing
 * listens): two usable of four.  Its tracking record is another capture's
 * (the rule reads only the sources). */
static void test_falseticker_and_silent_do_not_count(void **state)
{
	(void)state;
	node *n = node_from("chronyc-c-tracking-synced.txt", "chronyc-c-n-sources-falseticker.txt");
	assert_int_equal(n->obs.chrony.n_sources, 4);
	assert_null(few(n, 2));
	const finding *f = few(n, 3);
	assert_non_null(f);
	assert_string_equal(f->message, "2 usable sources of 4 (the group wants at least 3)");
	free(n);
}

/* Unsynchronised, its one source '?' with reach 0: none usable. */
static void test_unsynchronised(void **state)
{
	(void)state;
	node *n = node_from("chronyc-c-m-tracking-sources-unsync.txt", NULL);
	const finding *f = few(n, 1);
	assert_non_null(f);
	assert_string_equal(f->message, "0 usable sources of 1 (the group wants at least 1)");
	free(n);
}

/* A selected source that has not answered in 8 polls does not count, and
 * sources beyond the kept array may be usable: no verdict then. */
static void test_reach_and_overflow(void **state)
{
	(void)state;
	node *n = node_from("chronyc-c-m-tracking-sources-sourcestats-synced.txt", NULL);
	n->obs.chrony.sources[1].reach = 0;
	assert_non_null(strstr(few(n, 2)->message, "1 usable source of 2"));
	n->obs.chrony.n_sources_total = CHRONY_MAX_SOURCES + 1;
	assert_null(few(n, 2));
	free(n);
}

static void test_config_key(void **state)
{
	(void)state;
	const char *text = "{\"defaults\": {\"thresholds\": {\"min_sources\": 2}},"
			   " \"groups\": [{\"name\": \"inet\", \"hosts\": \"edge[1-4]\","
			   " \"thresholds\": {\"min_sources\": 4}}]}";
	conffile *cf = NULL;
	char err[256];
	assert_int_equal(conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err), 0);
	node_settings ns;
	conffile_resolve(cf, "gpu1", &ns);
	assert_int_equal(ns.th.min_sources, 2);
	conffile_resolve(cf, "edge3", &ns);
	assert_int_equal(ns.th.min_sources, 4);
	conffile_free(cf);
	const char *bad = "{\"defaults\": {\"thresholds\": {\"min_sources\": -1}}}";
	assert_int_not_equal(conffile_parse(bad, strlen(bad), "t.json", &cf, err, sizeof err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_by_default),
		cmocka_unit_test(test_selected_and_combined),
		cmocka_unit_test(test_not_combined_counts),
		cmocka_unit_test(test_falseticker_and_silent_do_not_count),
		cmocka_unit_test(test_unsynchronised),
		cmocka_unit_test(test_reach_and_overflow),
		cmocka_unit_test(test_config_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
