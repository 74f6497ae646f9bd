/* test_prometheus_sink.c - live mode's Prometheus file is written off the
 * loop: a write that hangs (an NFS textfile directory, a disk under load)
 * must not stop the loop, later sweeps are dropped rather than queued, and
 * shutting down does not wait forever for it. */
#include <config.h>

#include <ev.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "prometheus_sink.h"
#include "textfile.h"

typedef struct {
	int writes_ended;
	int failures;
	char last_err[512];
} outcome;

static void on_done(void *ctx, const char *err)
{
	outcome *o = ctx;
	o->writes_ended++;
	if (err) {
		o->failures++;
		snprintf(o->last_err, sizeof o->last_err, "%s", err);
	}
}

static void on_give_up(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

/* Run the loop until `*counter` reaches `want` (or 10 s pass). */
static void run_until(struct ev_loop *loop, const int *counter, int want)
{
	ev_timer give_up;
	ev_timer_init(&give_up, on_give_up, 10.0, 0);
	ev_timer_start(loop, &give_up);
	while (*counter < want && ev_is_active(&give_up)) {
		ev_run(loop, EVRUN_ONCE);
	}
	ev_timer_stop(loop, &give_up);
	assert_int_equal(*counter, want);
}

static node *two_nodes(void)
{
	node *nodes = calloc(2, sizeof *nodes);
	assert_non_null(nodes);
	node_init(&nodes[0], "gpu001");
	node_init(&nodes[1], "gpu002");
	return nodes;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char err[256];
	char *text = textfile_read_fd(fileno(f), path, 1 << 20, len, err, sizeof err);
	fclose(f);
	assert_non_null(text);
	return text;
}

static void test_writes_the_file(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	char dir[] = "/tmp/synctop-sink-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/synctop.prom", dir);
	outcome o = {0};
	prometheus_sink *s = prometheus_sink_new(loop, path, NULL, on_done, &o);
	assert_non_null(s);
	node *nodes = two_nodes();

	assert_true(prometheus_sink_submit(s, nodes, 2, 1796207937.0));
	run_until(loop, &o.writes_ended, 1);
	assert_int_equal(o.failures, 0);
	size_t len;
	char *text = read_file(path, &len);
	assert_non_null(strstr(text, "synctop_node_up{node=\"gpu002\"} 0\n"));
	free(text);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(prometheus_sink_busy_for(s), 0);

	/* the directory gone: the error comes back on the loop, nothing dies */
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	assert_true(prometheus_sink_submit(s, nodes, 2, 1796207938.0));
	run_until(loop, &o.writes_ended, 2);
	assert_int_equal(o.failures, 1);
	assert_non_null(strstr(o.last_err, "cannot create a temporary file"));
	assert_non_null(strstr(o.last_err, path));

	prometheus_sink_free(s, 2.0);
	free(nodes);
	ev_loop_destroy(loop);
}

/* A write that blocks until the test lets it go. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static int gate_writes;

static int gated_write(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
	(void)path;
	(void)data;
	(void)len;
	(void)err;
	(void)err_len;
	pthread_mutex_lock(&gate_lock);
	gate_writes++;
	while (!gate_open) {
		pthread_cond_wait(&gate_cond, &gate_lock);
	}
	pthread_mutex_unlock(&gate_lock);
	return 0;
}

static void set_gate(bool open)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = open;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static int ticks;

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	ticks++;
}

static void test_a_hung_write_does_not_stop_the_loop(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	outcome o = {0};
	set_gate(false);
	gate_writes = 0;
	prometheus_sink *s = prometheus_sink_new(loop, "/nonexistent/never-written.prom", gated_write,
						 on_done, &o);
	assert_non_null(s);
	node *nodes = two_nodes();

	assert_true(prometheus_sink_submit(s, nodes, 2, 1.0));
	/* the loop keeps turning while the write hangs */
	ev_timer tick;
	ev_timer_init(&tick, on_tick, 0.02, 0.02);
	ev_timer_start(loop, &tick);
	ticks = 0;
	run_until(loop, &ticks, 10);
	assert_int_equal(o.writes_ended, 0);
	assert_true(prometheus_sink_busy_for(s) > 0);
	/* later sweeps are dropped, not queued behind it */
	assert_false(prometheus_sink_submit(s, nodes, 2, 2.0));
	assert_false(prometheus_sink_submit(s, nodes, 2, 3.0));
	assert_int_equal(prometheus_sink_dropped(s), 2);

	/* once it returns, the next sweep is written again */
	set_gate(true);
	run_until(loop, &o.writes_ended, 1);
	assert_true(prometheus_sink_submit(s, nodes, 2, 4.0));
	run_until(loop, &o.writes_ended, 2);
	assert_int_equal(o.failures, 0);
	assert_int_equal(gate_writes, 2);
	ev_timer_stop(loop, &tick);
	prometheus_sink_free(s, 2.0);
	free(nodes);
	ev_loop_destroy(loop);
}

/* Quitting while the file system hangs: free waits the grace period, then
 * leaves the write to its thread, which cleans up when it returns. */
static void test_free_does_not_wait_forever(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	outcome o = {0};
	set_gate(false);
	gate_writes = 0;
	prometheus_sink *s = prometheus_sink_new(loop, "/nonexistent/x.prom", gated_write, on_done, &o);
	assert_non_null(s);
	node *nodes = two_nodes();
	assert_true(prometheus_sink_submit(s, nodes, 2, 1.0));
	while (1) { /* until the thread is inside the write */
		pthread_mutex_lock(&gate_lock);
		int in = gate_writes;
		pthread_mutex_unlock(&gate_lock);
		if (in) {
			break;
		}
		usleep(1000);
	}
	ev_tstamp before = ev_time();
	prometheus_sink_free(s, 0.2);
	ev_tstamp took = ev_time() - before;
	assert_true(took >= 0.15);
	assert_true(took < 5.0);
	ev_loop_destroy(loop); /* the thread must not touch it any more */
	set_gate(true);        /* the write returns; the thread frees the sink */
	usleep(200 * 1000);
	assert_int_equal(o.writes_ended, 0);
	free(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_the_file),
		cmocka_unit_test(test_a_hung_write_does_not_stop_the_loop),
		cmocka_unit_test(test_free_does_not_wait_forever),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
