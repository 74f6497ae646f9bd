/* test_progress.c - the --once / --check progress line: which node counts as
 * answered, failed or waiting, and the line's text at every width. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "progress.h"

static bool finished_from_array(const void *ctx, size_t i)
{
	return ((const bool *)ctx)[i];
}

static node *nodes_new(size_t n)
{
	node *nodes = calloc(n, sizeof *nodes);
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "gpu%03zu", i + 1);
		node_init(&nodes[i], name);
	}
	return nodes;
}

static void test_counts_follow_the_scheduler_and_the_model(void **state)
{
	node *nodes = nodes_new(6);
	bool finished[6] = {true, true, false, false, true, false};
	progress_counts c;

	nodes[0].polls_completed = 1;            /* answered */
	nodes[1].polls_failed = 1;               /* timed out */
	snprintf(nodes[1].error, sizeof nodes[1].error, "connect: timed out");
	nodes[2].polls_completed = 1;            /* answered, still in its clock check */
	/* nodes[3]: nothing yet */
	snprintf(nodes[4].error, sizeof nodes[4].error, "host key refused"); /* no poll at all */
	/* nodes[5]: nothing yet */
	progress_count(nodes, 6, finished_from_array, finished, 12.25, &c);
	assert_int_equal(c.total, 6);
	assert_int_equal(c.answered, 1);
	assert_int_equal(c.failed, 2);
	assert_int_equal(c.waiting, 3);
	assert_string_equal(c.waiting_name, "gpu003"); /* the first in inventory order */
	assert_true(c.elapsed_s == 12.25);

	bool all[6] = {true, true, true, true, true, true};
	progress_count(nodes, 6, finished_from_array, all, 0, &c);
	assert_int_equal(c.answered, 2);
	assert_int_equal(c.failed, 4);
	assert_int_equal(c.waiting, 0);
	assert_null(c.waiting_name);

	progress_count(nodes, 0, finished_from_array, all, 0, &c);
	assert_int_equal(c.total, 0);
	assert_int_equal(c.waiting, 0);
	free(nodes);
}

static void expect_line(const progress_counts *c, size_t width, const char *want)
{
	char out[512];
	size_t len = progress_format(c, width, out, sizeof out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
}

static void test_format(void **state)
{
	progress_counts c = {.total = 1000, .answered = 812, .failed = 3, .waiting = 185,
			     .waiting_name = "gpu0123", .elapsed_s = 12.34};
	expect_line(&c, 0, "synctop: 1000 nodes: 812 answered, 3 failed, 185 waiting (gpu0123 and 184 more), 12.3 s");

	c = (progress_counts){.total = 3, .answered = 1, .failed = 1, .waiting = 1, .waiting_name = "node7",
			      .elapsed_s = 0.31};
	expect_line(&c, 0, "synctop: 3 nodes: 1 answered, 1 failed, 1 waiting (node7), 0.3 s");

	c = (progress_counts){.total = 1, .answered = 1, .elapsed_s = 61};
	expect_line(&c, 0, "synctop: 1 node: 1 answered, 0 failed, 0 waiting, 61.0 s");

	/* a clock that stepped back shows no negative time */
	c = (progress_counts){.total = 2, .waiting = 2, .waiting_name = "a", .elapsed_s = -3};
	expect_line(&c, 0, "synctop: 2 nodes: 0 answered, 0 failed, 2 waiting (a and 1 more), 0.0 s");

	/* remote-looking bytes never reach the terminal */
	c = (progress_counts){.total = 1, .waiting = 1, .waiting_name = "no\033[2Jde\n", .elapsed_s = 1};
	expect_line(&c, 0, "synctop: 1 node: 0 answered, 0 failed, 1 waiting (no?[2Jde?), 1.0 s");
}

static void test_narrow_terminal_keeps_counts_and_time(void **state)
{
	progress_counts c = {.total = 1000, .answered = 812, .failed = 3, .waiting = 185,
			     .waiting_name = "gpu-node-with-a-long-name.cluster.example.org", .elapsed_s = 12.34};
	/* the name gives way first */
	expect_line(&c, 88, "synctop: 1000 nodes: 812 answered, 3 failed, 185 waiting (gpu-... and 184 more), 12.3 s");
	/* no room for a name at all: counts and time */
	expect_line(&c, 76, "synctop: 1000 nodes: 812 answered, 3 failed, 185 waiting, 12.3 s");
	/* narrower than that: cut, never wrapped */
	expect_line(&c, 21, "synctop: 1000 nodes:");
	expect_line(&c, 1, "");

	/* at every width the line fits, so \r can rewrite it */
	for (size_t width = 1; width < 200; width++) {
		char out[512];
		size_t len = progress_format(&c, width, out, sizeof out);
		assert_true(len <= width - 1);
		assert_int_equal(len, strlen(out));
		if (len > 0 && width > 68) {
			assert_string_equal(out + len - 6, "12.3 s");
		}
	}
}

static void test_small_buffer(void **state)
{
	progress_counts c = {.total = 10, .waiting = 10, .waiting_name = "gpu001", .elapsed_s = 1};
	char out[16];
	memset(out, 'X', sizeof out);
	assert_int_equal(progress_format(&c, 0, out, sizeof out), 15);
	assert_string_equal(out, "synctop: 10 nod");
	memset(out, 'X', sizeof out);
	assert_int_equal(progress_format(&c, 0, out, 0), 0);
	assert_int_equal(out[0], 'X');
}

/* Not a terminal: nothing is started and nothing is ever written. */
static void test_not_a_terminal(void **state)
{
	int fds[2];
	node *nodes = nodes_new(1);
	bool finished[1] = {false};
	assert_int_equal(pipe(fds), 0);
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	progress *p = progress_start(loop, fds[1], nodes, 1, finished_from_array, finished);
	assert_null(p);
	progress_stop(p);
	close(fds[1]);
	char buf[8];
	assert_int_equal(read(fds[0], buf, sizeof buf), 0);
	close(fds[0]);
	ev_loop_destroy(loop);
	free(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_follow_the_scheduler_and_the_model),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_narrow_terminal_keeps_counts_and_time),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_not_a_terminal),
	};
	return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
