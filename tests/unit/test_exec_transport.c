/* test_exec_transport.c - the exec transports: the command template split
 * and filled in, the ssh command line, what a finished child means, and real
 * children (sh, and an `ssh` stand-in on PATH for the words ssh prints) under
 * the real scheduler: the first poll, the 256 KiB cap, deadlines, the
 * connect timeout, backoff, and a refused host key never retried. */
#include <config.h>

#include <ev.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "command_template.h"
#include "exec_argv.h"
#include "exec_transport.h"
#include "local_transport.h"
#include "probe.h"
#include "scheduler.h"
#include "thresholds.h"

/* ------------------------------------------------------ command template */

static void expect_words(const char *text, size_t n, const char *const *want)
{
	command_template t;
	char err[160] = "";
	assert_int_equal(command_template_split(text, &t, err, sizeof err), 0);
	assert_int_equal(t.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(t.words[i], want[i]);
	}
	assert_null(t.words[n]);
	command_template_free(&t);
}

static void expect_error(const char *text, const char *want)
{
	command_template t;
	char err[160] = "";
	assert_int_equal(command_template_split(text, &t, err, sizeof err), -1);
	assert_non_null(strstr(err, want));
	assert_int_equal(t.n, 0);
	assert_null(t.words);
}

static void test_split_words(void **state)
{
	(void)state;
	expect_words("docker exec -i {host} sh", 5, (const char *const[]){"docker", "exec", "-i", "{host}", "sh"});
	expect_words("  kubectl\tdebug node/{host}  -q -i --image=busybox -- chroot /host sh\n", 10,
		     (const char *const[]){"kubectl", "debug", "node/{host}", "-q", "-i", "--image=busybox", "--",
					   "chroot", "/host", "sh"});
}

static void test_split_quotes(void **state)
{
	(void)state;
	/* quotes keep whitespace and join with what touches them */
	expect_words("sh -c 'exec sh' {host}", 4, (const char *const[]){"sh", "-c", "exec sh", "{host}"});
	expect_words("a\"b c\"d 'e f'g", 2, (const char *const[]){"ab cd", "e fg"});
	/* in double quotes a backslash escapes " and \ only; in single quotes nothing */
	expect_words("x \"a\\\"b\\\\c\\d\" 'p\\q'", 3, (const char *const[]){"x", "a\"b\\c\\d", "p\\q"});
	/* an empty quoted word is a word */
	expect_words("cmd '' {host}", 3, (const char *const[]){"cmd", "", "{host}"});
	/* nothing else is special: no variables, globs, ; or | */
	expect_words("cmd $HOME *;| `id` {host}", 5, (const char *const[]){"cmd", "$HOME", "*;|", "`id`", "{host}"});
}

static void test_split_errors(void **state)
{
	(void)state;
	expect_error("sh -c 'exec sh {host}", "unbalanced ' quote starting at column 7");
	expect_error("kubectl \"node/{host}", "unbalanced \" quote starting at column 9");
	expect_error("", "empty command");
	expect_error("   \t ", "empty command");
	expect_error("'' {host}", "the command name is empty");
	char many[512] = "";
	for (int i = 0; i < COMMAND_TEMPLATE_MAX_WORDS + 1; i++) {
		strcat(many, "w ");
	}
	expect_error(many, "more than 64 words");
}

static void test_host_filled_in_one_word(void **state)
{
	(void)state;
	command_template t;
	char err[160];
	const char *host = "a;touch /tmp/PWNED-1 $(id) 'q\" {host}";
	assert_int_equal(command_template_split("kubectl debug node/{host} -i --x={host}{host} -- sh", &t, err,
						sizeof err), 0);
	assert_int_equal(command_template_host_count(&t), 3);
	char **argv = command_template_argv(&t, host);
	/* as many words as the template: the name is never split again */
	size_t n = 0;
	while (argv[n]) {
		n++;
	}
	assert_int_equal(n, t.n);
	char want[256];
	snprintf(want, sizeof want, "node/%s", host);
	assert_string_equal(argv[2], want);
	snprintf(want, sizeof want, "--x=%s%s", host, host);
	assert_string_equal(argv[4], want);
	assert_string_equal(argv[0], "kubectl");
	assert_string_equal(argv[6], "sh");
	command_template_argv_free(argv);
	/* a name that is {host} itself is not expanded again */
	argv = command_template_argv(&t, "{host}");
	assert_string_equal(argv[2], "node/{host}");
	command_template_argv_free(argv);
	command_template_free(&t);
}

/* ------------------------------------------------------------ ssh argv */

static size_t argc_of(char **argv)
{
	size_t n = 0;
	while (argv[n]) {
		n++;
	}
	return n;
}

static void test_ssh_argv_minimal(void **state)
{
	(void)state;
	exec_ssh_args a = {.host = "gpu001"};
	char **argv = exec_argv_ssh(&a);
	const char *want[] = {"ssh", "-T", "-o", "BatchMode=yes", "--", "gpu001", "sh"};
	assert_int_equal(argc_of(argv), 7);
	for (size_t i = 0; i < 7; i++) {
		assert_string_equal(argv[i], want[i]);
	}
	exec_argv_free(argv);
}

static void test_ssh_argv_options(void **state)
{
	(void)state;
	exec_ssh_args a = {
		.host = "-oProxyCommand=touch /tmp/x",
		.user = "ops",
		.port = 2222,
		.ssh_config = "/etc/synctop/ssh_config",
		.identities = {"/k/id1", "/k/id 2"},
		.n_identities = 2,
		.known_hosts = {"/kh/a", "/kh/with space"},
		.n_known_hosts = 2,
		.strict = "accept-new",
		.connect_timeout_s = 7,
		.jump = "ops@gw1:2201,gw2",
	};
	char **argv = exec_argv_ssh(&a);
	const char *want[] = {"ssh", "-T", "-o", "BatchMode=yes", "-F", "/etc/synctop/ssh_config", "-l", "ops", "-p",
			      "2222", "-i", "/k/id1", "-i", "/k/id 2", "-o",
			      "UserKnownHostsFile=/kh/a \"/kh/with space\"", "-o", "StrictHostKeyChecking=accept-new",
			      "-o", "ConnectTimeout=7", "-J", "ops@gw1:2201,gw2", "--", "-oProxyCommand=touch /tmp/x", "sh"};
	size_t n = sizeof want / sizeof want[0];
	assert_int_equal(argc_of(argv), n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(argv[i], want[i]);
	}
	exec_argv_free(argv);
}

/* ------------------------------------------------------------- classify */

static transport_error classify(bool is_ssh, bool ready, int code, const char *err, char *msg, size_t len)
{
	exec_outcome o = {
		.is_ssh = is_ssh,
		.was_ready = ready,
		.code = code,
		.stderr_tail = err,
		.stderr_len = err ? strlen(err) : 0,
		.program = is_ssh ? "ssh" : "kubectl",
	};
	return exec_argv_classify(&o, msg, len);
}

static void test_classify_ssh_words(void **state)
{
	(void)state;
	char msg[768];
	/* OpenSSH 9.2's own words */
	assert_int_equal(classify(true, false, 255,
				  "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
				  "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
				  "Host key for 10.65.1.2 has changed and you have requested strict checking.\n"
				  "Host key verification failed.\n", msg, sizeof msg),
			 TRANSPORT_ERR_HOSTKEY);
	/* the last lines, not the warning block */
	assert_string_equal(msg, "ssh exited with status 255: @    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @ | "
				 "Host key for 10.65.1.2 has changed and you have requested strict checking. | "
				 "Host key verification failed.");
	assert_null(strchr(msg, '\n'));
	/* indented hint lines are joined without their indent */
	classify(true, false, 255, "Offending key in /k:1\n  remove with:\n  ssh-keygen -R x\n", msg, sizeof msg);
	assert_string_equal(msg, "ssh exited with status 255: Offending key in /k:1 | remove with: | ssh-keygen -R x");
	assert_int_equal(classify(true, false, 255, "root@10.65.1.2: Permission denied (publickey).\n", msg,
				  sizeof msg),
			 TRANSPORT_ERR_AUTH);
	assert_string_equal(msg, "ssh exited with status 255: root@10.65.1.2: Permission denied (publickey).");
	assert_int_equal(classify(true, false, 255, "ssh: connect to host 127.0.0.1 port 1: Connection refused\n",
				  msg, sizeof msg),
			 TRANSPORT_ERR_CONNECT);
	assert_int_equal(classify(true, false, 255, "ssh: connect to host 10.65.9.9 port 22: Connection timed out\n",
				  msg, sizeof msg),
			 TRANSPORT_ERR_CONNECT);
	assert_int_equal(classify(true, false, 255,
				  "ssh: Could not resolve hostname nosuch: Name or service not known\n", msg, sizeof msg),
			 TRANSPORT_ERR_RESOLVE);
	/* a ProxyCommand that exits at once: ssh reads its EOF first, or writes
	 * its banner into the closed pipe first (OpenSSH 9.2 kex.c, both seen
	 * with `ProxyCommand false`): either way no connection, not a handshake */
	assert_int_equal(classify(true, false, 255,
				  "kex_exchange_identification: Connection closed by remote host\n"
				  "Connection closed by UNKNOWN port 65535\n", msg, sizeof msg),
			 TRANSPORT_ERR_CONNECT);
	assert_int_equal(classify(true, false, 255,
				  "banner exchange: Connection to UNKNOWN port 65535: Broken pipe\n", msg, sizeof msg),
			 TRANSPORT_ERR_CONNECT);
	assert_int_equal(classify(true, false, 255, "something new\n", msg, sizeof msg), TRANSPORT_ERR_HANDSHAKE);
	/* after the shell ran: the connection went */
	assert_int_equal(classify(true, true, 255, "Connection to x closed by remote host.\n", msg, sizeof msg),
			 TRANSPORT_ERR_LOST);
	/* a remote shell that exits on its own: not ssh's failure */
	assert_int_equal(classify(true, false, 127, "sh: 1: exec: sh: not found\n", msg, sizeof msg),
			 TRANSPORT_ERR_CHANNEL);
	/* "Permission denied" from a command is not an SSH login failure */
	assert_int_equal(classify(false, false, 1, "Error from server (Forbidden): Permission denied\n", msg,
				  sizeof msg),
			 TRANSPORT_ERR_CHANNEL);
	assert_non_null(strstr(msg, "kubectl exited with status 1: Error from server"));
}

static void test_classify_tail_is_sanitised(void **state)
{
	(void)state;
	char msg[768];
	char big[3000];
	/* many lines: the last ones are kept, joined, control bytes made safe */
	size_t n = 0;
	for (int i = 0; n + 40 < sizeof big - 64; i++) {
		n += (size_t)snprintf(big + n, sizeof big - n, "line %d of noise\n", i);
	}
	snprintf(big + n, sizeof big - n, "\x1b[31mlast\x07 words\r\n\n");
	classify(false, true, 1, big, msg, sizeof msg);
	assert_non_null(strstr(msg, "last"));
	assert_null(strchr(msg, '\x1b'));
	assert_null(strchr(msg, '\x07'));
	assert_null(strchr(msg, '\n'));
	assert_null(strstr(msg, "line 0 of noise"));
	exec_outcome o = {.timed_out = true, .program = "ssh", .is_ssh = true, .code = -1};
	assert_int_equal(exec_argv_classify(&o, msg, sizeof msg), TRANSPORT_ERR_CONNECT);
	assert_string_equal(msg, "ssh gave no shell within the connect timeout");
}

/* --------------------------------------------- real children, real scheduler */

typedef struct {
	struct ev_loop *loop;
	scheduler *s;
	node n;
	thresholds th;
	int all_done;
	char dir[64];
	char command[PROBE_COMMAND_MAX];
} fixture;

static void on_all_done(void *ctx)
{
	fixture *fx = ctx;
	fx->all_done++;
	ev_break(fx->loop, EVBREAK_ALL);
}

static void on_stop(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static fixture *setup(bool once, double poll_timeout)
{
	fixture *fx = calloc(1, sizeof *fx);
	scheduler_config cfg;
	assert_non_null(fx);
	fx->loop = EV_DEFAULT; /* ev_child watchers live in the default loop */
	thresholds_init_defaults(&fx->th);
	scheduler_config_init(&cfg);
	cfg.once = once;
	cfg.interval_s = 0.05;
	cfg.poll_timeout_s = poll_timeout;
	cfg.backoff_min_s = 0.01;
	cfg.backoff_max_s = 0.05;
	cfg.clock_check_every_s = 0;
	cfg.thresholds = &fx->th;
	cfg.on_all_done = on_all_done;
	cfg.ctx = fx;
	fx->s = scheduler_new(fx->loop, &cfg);
	node_init(&fx->n, "n1");
	snprintf(fx->dir, sizeof fx->dir, "/tmp/synctop-exec-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	assert_true(probe_command(fx->command, sizeof fx->command) > 0);
	return fx;
}

static void attach_cmd(fixture *fx, const char *tmpl_text, double start_timeout)
{
	command_template t;
	char err[160];
	assert_int_equal(command_template_split(tmpl_text, &t, err, sizeof err), 0);
	sched_node *sn = scheduler_add(fx->s, &fx->n, NULL);
	scheduler_attach(sn, exec_transport_new_cmd(fx->loop, &t, "n1", start_timeout, fx->command,
						    scheduler_transport_events(), sn));
	command_template_free(&t);
}

static void run_for(fixture *fx, double seconds)
{
	ev_timer stop;
	ev_timer_init(&stop, on_stop, seconds, 0);
	ev_timer_start(fx->loop, &stop);
	ev_run(fx->loop, 0);
	ev_timer_stop(fx->loop, &stop);
}

/* Run until DONE says so, at most MAX_S seconds: a loaded machine (the
 * parallel suite, ASan, other labs) can take a second to start a shell, so
 * a test waits for what it expects instead of a fixed window. */
static void run_until(fixture *fx, bool (*done)(fixture *), double max_s)
{
	for (double t = 0; t < max_s && !done(fx); t += 0.1) {
		run_for(fx, 0.1);
	}
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0;
	if (!f) {
		return 0;
	}
	for (int c; (c = fgetc(f)) != EOF;) {
		n += c == '\n';
	}
	fclose(f);
	return n;
}

static void teardown_fx(fixture *fx)
{
	char cmd[160];
	scheduler_free(fx->s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
}

/* The real probe through `sh -c 'exec sh' NODE`: one answered poll. */
static void test_real_shell_answers(void **state)
{
	(void)state;
	fixture *fx = setup(true, 5.0);
	attach_cmd(fx, "sh -c 'exec sh' {host}", 5.0);
	scheduler_start(fx->s);
	run_for(fx, 8.0);
	assert_int_equal(fx->all_done, 1);
	assert_true(fx->n.reachable);
	assert_int_equal(fx->n.polls_completed, 1);
	assert_true(fx->n.has_observation);
	teardown_fx(fx);
}

/* A node that floods after its banner: cut at 256 KiB, the child ended,
 * reconnected after a backoff (and cut again). */
static void test_real_flood_cut_and_reconnected(void **state)
{
	(void)state;
	fixture *fx = setup(false, 5.0);
	char tmpl[256];
	snprintf(tmpl, sizeof tmpl, "sh -c 'echo x >>%s/starts; echo \"@@synctop ready\"; exec yes flood' {host}",
		 fx->dir);
	attach_cmd(fx, tmpl, 5.0);
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	char path[128];
	snprintf(path, sizeof path, "%s/starts", fx->dir);
	assert_non_null(strstr(fx->n.error, "more than 256 KiB"));
	assert_true(count_lines(path) >= 2);
	assert_true(fx->n.polls_failed >= 2);
	teardown_fx(fx);
}

static bool restarted_after_deadline(fixture *fx)
{
	char path[128];
	snprintf(path, sizeof path, "%s/starts", fx->dir);
	return strstr(fx->n.error, "no answer to the probe") && count_lines(path) >= 2;
}

/* A shell that never answers: the poll deadline restarts it (a new child). */
static void test_real_deadline_restarts(void **state)
{
	(void)state;
	fixture *fx = setup(false, 0.2);
	char tmpl[256];
	snprintf(tmpl, sizeof tmpl, "sh -c 'echo x >>%s/starts; echo \"@@synctop ready\"; exec sleep 30' {host}",
		 fx->dir);
	attach_cmd(fx, tmpl, 5.0);
	scheduler_start(fx->s);
	run_until(fx, restarted_after_deadline, 20.0);
	char path[128];
	snprintf(path, sizeof path, "%s/starts", fx->dir);
	assert_non_null(strstr(fx->n.error, "no answer to the probe within 0.2 s"));
	assert_true(count_lines(path) >= 2);
	teardown_fx(fx);
}

/* No banner within the connect timeout: a connect error, the child ended. */
static void test_real_start_timeout(void **state)
{
	(void)state;
	fixture *fx = setup(true, 5.0);
	/* 2 s: room for a loaded machine to start sh and hear its stderr line
	 * before the timeout; the run ends as soon as the node is done */
	attach_cmd(fx, "sh -c 'echo waiting for the pod >&2; exec sleep 30' {host}", 2.0);
	scheduler_start(fx->s);
	run_for(fx, 30.0);
	assert_int_equal(fx->all_done, 1);
	assert_false(fx->n.reachable);
	assert_string_equal(fx->n.error, "connect: sh gave no shell within the connect timeout: waiting for the pod");
	teardown_fx(fx);
}

/* An `ssh` on PATH that says what OpenSSH says and exits 255, counting its
 * runs: the words decide retried or not. */
static void with_fake_ssh(fixture *fx, const char *words)
{
	char path[128], script[512];
	snprintf(path, sizeof path, "%s/ssh", fx->dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	snprintf(script, sizeof script, "#!/bin/sh\necho run >>%s/runs\nprintf '%%s\\n' '%s' >&2\nexit 255\n",
		 fx->dir, words);
	fputs(script, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	char newpath[4096];
	snprintf(newpath, sizeof newpath, "%s:%s", fx->dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	exec_ssh_args a = {.host = "n1"};
	sched_node *sn = scheduler_add(fx->s, &fx->n, NULL);
	scheduler_attach(sn, exec_transport_new_ssh(fx->loop, &a, 5.0, fx->command, scheduler_transport_events(),
						    sn));
}

static bool has_error(fixture *fx)
{
	return fx->n.error[0] != '\0';
}

static void test_fake_ssh_hostkey_not_retried(void **state)
{
	(void)state;
	char *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	fixture *fx = setup(false, 5.0);
	with_fake_ssh(fx, "Host key verification failed.");
	scheduler_start(fx->s);
	run_until(fx, has_error, 20.0);
	run_for(fx, 0.5); /* time for a retry, if one were made */
	char path[128];
	snprintf(path, sizeof path, "%s/runs", fx->dir);
	assert_int_equal(count_lines(path), 1);
	assert_string_equal(fx->n.error, "host key: ssh exited with status 255: Host key verification failed.");
	teardown_fx(fx);
	setenv("PATH", old, 1);
	free(old);
}

static void test_fake_ssh_refused_backs_off(void **state)
{
	(void)state;
	char *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	fixture *fx = setup(false, 5.0);
	with_fake_ssh(fx, "ssh: connect to host n1 port 22: Connection refused");
	scheduler_start(fx->s);
	char path[128];
	snprintf(path, sizeof path, "%s/runs", fx->dir);
	/* retried, not given up (0.6 s on an idle machine; a loaded one starts
	 * the fake ssh slower, so wait for the third run, up to 20 s) */
	for (int i = 0; i < 200 && count_lines(path) < 3; i++) {
		run_for(fx, 0.1);
	}
	assert_true(count_lines(path) >= 3);
	assert_non_null(strstr(fx->n.error, "connect: ssh exited with status 255: ssh: connect to host n1 port 22: "
					    "Connection refused"));
	teardown_fx(fx);
	setenv("PATH", old, 1);
	free(old);
}

/* --max-handshakes for the exec transports: with a limit of 2, three
 * children never start at once (each records its start and its banner), and
 * every node still gets polled. */
static void test_start_limit(void **state)
{
	(void)state;
	/* generous deadlines: a loaded CI machine (the parallel suite, ASan) can
	 * take seconds to start a shell; the test ends when the three are done */
	fixture *fx = setup(true, 30.0);
	node more[2];
	char tmpl[256];
	command_template t;
	char err[160];
	snprintf(tmpl, sizeof tmpl,
		 "sh -c 'echo s >>%s/log; sleep 0.2; echo e >>%s/log; exec sh' {host}", fx->dir, fx->dir);
	assert_int_equal(command_template_split(tmpl, &t, err, sizeof err), 0);
	local_transport_set_start_limit(2);
	for (int i = 0; i < 3; i++) {
		node *n = i == 0 ? &fx->n : &more[i - 1];
		if (i > 0) {
			node_init(n, i == 1 ? "n2" : "n3");
		}
		sched_node *sn = scheduler_add(fx->s, n, NULL);
		scheduler_attach(sn, exec_transport_new_cmd(fx->loop, &t, n->host, 30.0, fx->command,
							    scheduler_transport_events(), sn));
	}
	command_template_free(&t);
	scheduler_start(fx->s);
	assert_int_equal(local_transport_starting(), 2);
	run_for(fx, 60.0);
	local_transport_set_start_limit(0);
	assert_int_equal(fx->all_done, 1);
	assert_int_equal(local_transport_starting(), 0);
	assert_int_equal(fx->n.polls_completed + more[0].polls_completed + more[1].polls_completed, 3);
	/* never more than two between "s" and "e" */
	char path[128], line[16];
	int open_now = 0, most = 0, starts = 0;
	snprintf(path, sizeof path, "%s/log", fx->dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		open_now += line[0] == 's' ? 1 : -1;
		starts += line[0] == 's';
		most = open_now > most ? open_now : most;
	}
	fclose(f);
	assert_int_equal(starts, 3);
	assert_int_equal(most, 2);
	teardown_fx(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_words),
		cmocka_unit_test(test_split_quotes),
		cmocka_unit_test(test_split_errors),
		cmocka_unit_test(test_host_filled_in_one_word),
		cmocka_unit_test(test_ssh_argv_minimal),
		cmocka_unit_test(test_ssh_argv_options),
		cmocka_unit_test(test_classify_ssh_words),
		cmocka_unit_test(test_classify_tail_is_sanitised),
		cmocka_unit_test(test_real_shell_answers),
		cmocka_unit_test(test_real_flood_cut_and_reconnected),
		cmocka_unit_test(test_real_deadline_restarts),
		cmocka_unit_test(test_real_start_timeout),
		cmocka_unit_test(test_fake_ssh_hostkey_not_retried),
		cmocka_unit_test(test_fake_ssh_refused_backs_off),
		cmocka_unit_test(test_start_limit),
	};
	/* a child that dies before reading its probe would kill the test, as
	 * synctop itself ignores it (src/main.c) */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
