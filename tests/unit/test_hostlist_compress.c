/* test_hostlist_compress.c - hostlist_compress(), checked against the
 * expander: every expression it writes must expand (hostlist_expand) to the
 * set of names it was given, and be as short as Slurm's
 * `scontrol show hostlist` makes it for the forms the docs show. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hostlist.h"

#define MAX_NAMES 600

typedef struct {
	char *names[HOSTLIST_MAX_HOSTS];
	size_t count;
} name_set;

static int collect(const char *host, void *ctx)
{
	name_set *s = ctx;
	assert_true(s->count < MAX_NAMES * 2);
	s->names[s->count++] = strdup(host);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop duplicates in place; returns the new count. */
static size_t unique(char **v, size_t n)
{
	size_t u = 0;
	qsort(v, n, sizeof *v, cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (u > 0 && strcmp(v[u - 1], v[i]) == 0) {
			continue;
		}
		v[u++] = v[i];
	}
	return u;
}

/* Compress names[0..n), expand the result, compare the sets.  Returns the
 * expression (caller frees). */
static char *round_trip(const char *const *names, size_t n)
{
	char err[256] = "";
	char *expr = hostlist_compress(names, n, err, sizeof err);
	if (!expr) {
		fail_msg("compress refused: %s", err);
	}
	static name_set got;
	got.count = 0;
	if (n == 0) {
		assert_string_equal(expr, "");
		return expr;
	}
	if (hostlist_expand(expr, collect, &got, err, sizeof err) != 0) {
		fail_msg("'%s' does not expand: %s", expr, err);
	}
	char **want = malloc(n * sizeof *want);
	for (size_t i = 0; i < n; i++) {
		want[i] = (char *)names[i];
	}
	size_t nw = unique(want, n);
	/* the expression names every name once */
	size_t ng_raw = got.count;
	size_t ng = unique(got.names, got.count);
	if (ng != ng_raw) {
		fail_msg("'%s' names a host twice", expr);
	}
	if (ng != nw) {
		fail_msg("'%s' expands to %zu names, want %zu", expr, ng, nw);
	}
	for (size_t i = 0; i < nw; i++) {
		if (strcmp(want[i], got.names[i]) != 0) {
			fail_msg("'%s': got %s, want %s", expr, got.names[i], want[i]);
		}
	}
	for (size_t i = 0; i < ng_raw; i++) {
		free(got.names[i]);
	}
	free(want);
	return expr;
}

static void expect_compressed(const char *const *names, size_t n, const char *want)
{
	char *expr = round_trip(names, n);
	assert_string_equal(expr, want);
	free(expr);
}

#define EXPECT(want, ...)                                                                       \
	do {                                                                                    \
		const char *const v_[] = {__VA_ARGS__};                                          \
		expect_compressed(v_, sizeof v_ / sizeof v_[0], want);                           \
	} while (0)

static void test_forms_slurm_writes(void **state)
{
	(void)state;
	EXPECT("gpu[003,017-018]", "gpu017", "gpu003", "gpu018");
	EXPECT("gpu003", "gpu003");
	EXPECT("gpu[003,017-018],login[1-2]", "login2", "gpu018", "login1", "gpu003", "gpu017");
	EXPECT("n[1-3]", "n3", "n1", "n2", "n2", "n1");    /* duplicates once */
	EXPECT("n[8-10]", "n8", "n9", "n10");
	EXPECT("n[08-10]", "n08", "n09", "n10");          /* padding kept */
	EXPECT("n[098-100]", "n098", "n099", "n100");
	EXPECT("n[1,01,2]", "n1", "n01", "n2");            /* two paddings of one number */
	EXPECT("n[09-11]", "n09", "n10", "n11");           /* 10 and 11 print at width 2 */
	EXPECT("[1-3]", "1", "2", "3");                    /* empty prefix */
	EXPECT("a,b,c", "c", "a", "b");
	EXPECT("gpu,gpu[1-2]", "gpu2", "gpu", "gpu1");     /* a name without number first */
}

static void test_suffix_after_digits_written_whole(void **state)
{
	(void)state;
	/* Slurm's host_prefix_end() only reads trailing digits */
	EXPECT("gpu01-ib,gpu02-ib", "gpu02-ib", "gpu01-ib");
	EXPECT("rack1-n[1-2],rack2-n1", "rack1-n1", "rack2-n1", "rack1-n2");
	EXPECT("n01.example.org,n02.example.org", "n01.example.org", "n02.example.org");
}

static void test_long_numbers_do_not_overflow(void **state)
{
	(void)state;
	/* 20 and 25 digits: beyond 64 bits, written as they are */
	EXPECT("n18446744073709551616,n18446744073709551617", "n18446744073709551617",
	       "n18446744073709551616");
	EXPECT("n1234567890123456789012345", "n1234567890123456789012345");
	/* 18 digits still count, and the next number does not wrap */
	EXPECT("n[999999999999999998-999999999999999999]", "n999999999999999999",
	       "n999999999999999998");
	EXPECT("n[000000000000000001-000000000000000002]", "n000000000000000001",
	       "n000000000000000002");
}

static void test_literals_and_users(void **state)
{
	(void)state;
	EXPECT("[fe80::1]:22,root@n[1-2]", "[fe80::1]:22", "root@n2", "root@n1");
}

static void test_refuses_what_a_list_cannot_hold(void **state)
{
	(void)state;
	const char *bad[] = {"", "a,b", "a b", "a\tb", "a]", "a[1]", "x\x01y"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char err[256] = "";
		const char *one[] = {"ok1", bad[i]};
		assert_null(hostlist_compress(one, 2, err, sizeof err));
		assert_true(err[0] != '\0');
	}
	char longname[HOSTLIST_NAME_MAX + 2];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	const char *one[] = {longname};
	assert_null(hostlist_compress(one, 1, NULL, 0));
	const char *none[] = {NULL};
	char *empty = hostlist_compress(none, 0, NULL, 0);
	assert_string_equal(empty, "");
	free(empty);
}

/* Random sets: prefixes (some ending in '-', some empty), numbers near
 * powers of ten, random zero padding, suffixes after the digits, numbers
 * past 64 bits, duplicates. */
static void test_random_round_trips(void **state)
{
	(void)state;
	static const char *const prefixes[] = {"gpu", "n", "", "rack1-n", "login", "gpu-", "a.b"};
	static const char *const suffixes[] = {"", "", "", "-ib", ".example.org"};
	static char buf[MAX_NAMES][64];
	const char *names[MAX_NAMES];
	unsigned seed = 20261203;

	for (int round = 0; round < 400; round++) {
		srand(seed + (unsigned)round);
		size_t n = (size_t)(rand() % MAX_NAMES);
		int base = rand() % 3 == 0 ? 95 : rand() % 3 == 0 ? 995 : 0;
		for (size_t i = 0; i < n; i++) {
			const char *p = prefixes[rand() % 7];
			const char *sfx = suffixes[rand() % 5];
			int pad = rand() % 4 == 0 ? 1 + rand() % 5 : 0;
			if (rand() % 50 == 0) {
				snprintf(buf[i], sizeof buf[i], "%s%d%018d%s", p, 1 + rand() % 9, rand(), sfx);
			} else {
				snprintf(buf[i], sizeof buf[i], "%s%0*d%s", p, pad, base + rand() % 40, sfx);
			}
			names[i] = buf[i];
		}
		free(round_trip(names, n));
	}
}

/* A compressed run of many consecutive hosts stays one range. */
static void test_large_run(void **state)
{
	(void)state;
	static char buf[MAX_NAMES][16];
	const char *names[MAX_NAMES];
	for (size_t i = 0; i < MAX_NAMES; i++) {
		snprintf(buf[i], sizeof buf[i], "gpu%04zu", MAX_NAMES - i);
		names[i] = buf[i];
	}
	char *expr = round_trip(names, MAX_NAMES);
	assert_string_equal(expr, "gpu[0001-0600]");
	free(expr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_slurm_writes),
		cmocka_unit_test(test_suffix_after_digits_written_whole),
		cmocka_unit_test(test_long_numbers_do_not_overflow),
		cmocka_unit_test(test_literals_and_users),
		cmocka_unit_test(test_refuses_what_a_list_cannot_hold),
		cmocka_unit_test(test_random_round_trips),
		cmocka_unit_test(test_large_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
