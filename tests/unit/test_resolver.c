/* test_resolver.c - the resolver thread's contract: literal addresses are
 * answered on the next loop iteration, even when the loop is never idle. */
#include <config.h>

#include <ev.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "resolver.h"

typedef struct {
	int calls;
	char err[128];
	int family;
} answer;

static void on_answer(void *ctx, const struct sockaddr *addr, socklen_t addrlen, const char *err)
{
	answer *a = ctx;
	(void)addrlen;
	a->calls++;
	a->family = addr ? addr->sa_family : -1;
	snprintf(a->err, sizeof a->err, "%s", err ? err : "");
}

/* Keeps the loop busy: its fd stays readable because nothing drains it. */
static void on_busy(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

static void on_stop(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

/* Seen in the soak at 256 nodes: with an idle watcher, 127.0.0.1 sat
 * "resolving" until the connect deadline because some fd was always ready. */
static void test_literal_address_on_a_busy_loop(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	ev_io busy;
	ev_io_init(&busy, on_busy, fds[0], EV_READ);
	ev_io_start(loop, &busy);
	assert_int_equal(resolver_init(loop), 0);

	answer a = {0};
	assert_non_null(resolver_lookup("127.0.0.1", 22, on_answer, &a));
	ev_timer stop;
	ev_timer_init(&stop, on_stop, 1.0, 0);
	ev_timer_start(loop, &stop);
	ev_run(loop, EVRUN_NOWAIT);
	ev_run(loop, EVRUN_NOWAIT);
	assert_int_equal(a.calls, 1);
	assert_string_equal(a.err, "");
	assert_int_equal(a.family, AF_INET);

	ev_timer_stop(loop, &stop);
	ev_io_stop(loop, &busy);
	resolver_free();
	close(fds[0]);
	close(fds[1]);
	ev_loop_destroy(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literal_address_on_a_busy_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
