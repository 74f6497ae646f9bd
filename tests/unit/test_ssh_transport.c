/* test_ssh_transport.c - the SSH transport against servers that misbehave in
 * ways a real sshd cannot be made to on cue.
 *
 * A forked child plays the server: it sends a version line and a KEXINIT,
 * reads the client's key-exchange init and then goes silent.  The client's
 * connect deadline aborts the half-done key exchange.  libssh2 1.10 forgets
 * the ephemeral curve25519 keys of such an exchange (libssh2 issues #282,
 * #660): 64 bytes per abort, seen by LeakSanitizer in the 256-node soak.
 * Under the sanitizer build this test fails at exit if any of it leaks. */
#include <config.h>

#include <arpa/inet.h>
#include <ev.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <libssh2.h>

#include "log.h"
#include "resolver.h"
#include "ssh_session_memory.h"
#include "ssh_transport.h"
#include "ssh_unsupported.h"

/* ------------------------------------------------------ the silent server */

static size_t put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
	return 4;
}

static size_t put_string(unsigned char *p, const char *s)
{
	size_t n = strlen(s);
	put_u32(p, (uint32_t)n);
	memcpy(p + 4, s, n);
	return 4 + n;
}

/* An unencrypted SSH binary packet holding a KEXINIT (RFC 4253 7.1) that
 * offers only what libssh2 1.10 supports, curve25519 first. */
static size_t kexinit_packet(unsigned char *buf)
{
	unsigned char payload[1024];
	size_t n = 0;
	payload[n++] = 20; /* SSH_MSG_KEXINIT */
	memset(payload + n, 0x5a, 16); /* cookie */
	n += 16;
	static const char *const lists[10] = {
		"curve25519-sha256,curve25519-sha256@libssh.org",
		"ssh-ed25519,rsa-sha2-256",
		"aes128-ctr", "aes128-ctr",
		"hmac-sha2-256", "hmac-sha2-256",
		"none", "none",
		"", "",
	};
	for (int i = 0; i < 10; i++) {
		n += put_string(payload + n, lists[i]);
	}
	payload[n++] = 0; /* first_kex_packet_follows */
	n += put_u32(payload + n, 0);

	size_t padding = 8 - ((5 + n) % 8);
	if (padding < 4) {
		padding += 8;
	}
	size_t len = 0;
	len += put_u32(buf, (uint32_t)(1 + n + padding));
	buf[len++] = (unsigned char)padding;
	memcpy(buf + len, payload, n);
	len += n;
	memset(buf + len, 0, padding);
	return len + padding;
}

/* What a forked server does with the one client it accepts; then it exits. */
typedef void (*serve_fn)(int fd);

static void drain(int fd)
{
	char sink[4096];
	while (read(fd, sink, sizeof sink) > 0) {
	}
}

/* Starts the key exchange, then only reads. */
static void serve_kexinit_then_silence(int fd)
{
	static const char banner[] = "SSH-2.0-silent_test_server\r\n";
	unsigned char packet[1100];
	size_t len = kexinit_packet(packet);
	if (write(fd, banner, sizeof banner - 1) < 0 || write(fd, packet, len) < 0) {
		return;
	}
	drain(fd);
}

/* Not an SSH server at all (a web server on port 22). */
static void serve_http(int fd)
{
	static const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
	if (write(fd, reply, sizeof reply - 1) < 0) {
		return;
	}
}

/* Accepts and hangs up (sshd refusing at MaxStartups, a tarpit). */
static void serve_hang_up(int fd)
{
	(void)fd;
}

/* A version line, then a KEXINIT whose length field claims 1 GiB. */
static void serve_huge_packet(int fd)
{
	static const char banner[] = "SSH-2.0-hostile_test_server\r\n";
	unsigned char packet[16] = {0x40, 0, 0, 0, 4, 20};
	if (write(fd, banner, sizeof banner - 1) < 0 || write(fd, packet, sizeof packet) < 0) {
		return;
	}
	drain(fd);
}

static void run_server(int listener, serve_fn serve)
{
	int fd = accept(listener, NULL, NULL);
	if (fd < 0) {
		_exit(1);
	}
	serve(fd);
	close(fd);
	_exit(0);
}

/* ------------------------------------------------------------- the client */

typedef struct {
	int failures;
	transport_error kind;
	char message[512];
} outcome;

static void on_ready(void *owner)
{
	(void)owner;
	fail_msg("a server that never answers the key exchange cannot start a shell");
}

static void on_data(void *owner, const char *buf, size_t len)
{
	(void)owner;
	(void)buf;
	(void)len;
}

static void on_failed(void *owner, transport_error kind, const char *message)
{
	outcome *o = owner;
	o->failures++;
	o->kind = kind;
	snprintf(o->message, sizeof o->message, "%s", message);
}

static int never_verify(void *ctx, const char *host, int port, const unsigned char *key,
			size_t key_len, char *msg, size_t msg_len)
{
	(void)ctx;
	(void)host;
	(void)port;
	(void)key;
	(void)key_len;
	snprintf(msg, msg_len, "unexpected");
	return -1;
}

static void on_give_up(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static int listen_on_loopback(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(fd, 4), 0);
	socklen_t len = sizeof sa;
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

typedef struct {
	struct ev_loop *loop;
	int listener;
	int port;
	ssh_options opt;
	transport *t;
	outcome o;
	char log_path[64];
} harness;

static const transport_events events = {on_ready, on_data, on_failed};

static void harness_start_with_slots(harness *h, double connect_timeout_s, int max_handshakes)
{
	memset(h, 0, sizeof *h);
	h->loop = ev_loop_new(EVFLAG_AUTO);
	assert_int_equal(resolver_init(h->loop), 0);
	assert_int_equal(ssh_transport_global_init(h->loop, max_handshakes), 0);
	snprintf(h->log_path, sizeof h->log_path, "/tmp/synctop-test-ssh-XXXXXX");
	int log_fd = mkstemp(h->log_path);
	assert_true(log_fd >= 0);
	close(log_fd);
	assert_int_equal(log_open(h->log_path), 0);

	h->listener = listen_on_loopback(&h->port);
	ssh_options *opt = &h->opt;
	ssh_options_init(opt);
	snprintf(opt->host, sizeof opt->host, "127.0.0.1");
	opt->port = h->port;
	snprintf(opt->user, sizeof opt->user, "nobody");
	opt->connect_timeout_s = connect_timeout_s;
	opt->keepalive_interval_s = 0;
	opt->identities_only = true;
	opt->verify_host_key = never_verify;
	h->t = ssh_transport_new(h->loop, opt, "true", &events, &h->o);
	assert_non_null(h->t);
}

static void harness_start(harness *h, double connect_timeout_s)
{
	harness_start_with_slots(h, connect_timeout_s, 4);
}

static pid_t fork_server(harness *h, serve_fn serve)
{
	pid_t server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		run_server(h->listener, serve);
	}
	return server;
}

/* One connection against a fresh server child; returns when it failed. */
static void harness_round(harness *h, serve_fn serve)
{
	int before = h->o.failures;
	pid_t server = fork_server(h, serve);
	ev_timer give_up;
	ev_timer_init(&give_up, on_give_up, 20.0, 0);
	ev_timer_start(h->loop, &give_up);
	transport_start(h->t);
	while (h->o.failures == before && ev_is_active(&give_up)) {
		ev_run(h->loop, EVRUN_ONCE);
	}
	ev_timer_stop(h->loop, &give_up);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	assert_int_equal(h->o.failures, before + 1);
}

/* Ends the transport; returns what --log got (caller frees). */
static char *harness_stop(harness *h)
{
	transport_destroy(h->t);
	close(h->listener);
	log_close();
	char *logged = calloc(1, 16384);
	assert_non_null(logged);
	FILE *f = fopen(h->log_path, "r");
	assert_non_null(f);
	size_t got = fread(logged, 1, 16383, f);
	logged[got] = '\0';
	fclose(f);
	unlink(h->log_path);
	ssh_transport_global_free();
	resolver_free();
	ev_loop_destroy(h->loop);
	return logged;
}

/* Each round is one aborted key exchange; several make a leak of any size
 * per abort visible, and show the transport can be started again. */
static void test_key_exchange_abandoned_by_the_server(void **state)
{
	(void)state;
	harness h;
	harness_start(&h, 0.5);
	for (int round = 1; round <= 3; round++) {
		harness_round(&h, serve_kexinit_then_silence);
		assert_int_equal(h.o.kind, TRANSPORT_ERR_HANDSHAKE);
		assert_non_null(strstr(h.o.message, "key exchange"));
	}
	char *logged = harness_stop(&h);
#if LIBSSH2_VERSION_NUM < 0x010b00
	/* 1.10 does leave the keys behind: the transport must have freed them
	 * (without a sanitizer this is what fails if it stops doing so). */
	assert_non_null(strstr(logged, "libssh2 left behind"));
#endif
	free(logged);
}

/* Servers that are not SSH, or break the protocol: a prompt handshake
 * error, never a wait for the 10 s connect deadline, and the transport can
 * be started again after each. */
static void test_hostile_or_broken_servers(void **state)
{
	(void)state;
	static const struct {
		serve_fn serve;
		const char *name;
		const char *says;
	} cases[] = {
		{serve_http, "HTTP server", "not an SSH server"},
		{serve_hang_up, "hang-up after accept", "hung up before its version line"},
		{serve_huge_packet, "1 GiB packet length", "failed"},
	};
	harness h;
	harness_start(&h, 10.0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		harness_round(&h, cases[i].serve);
		if (h.o.kind != TRANSPORT_ERR_HANDSHAKE || strstr(h.o.message, "timed out") ||
		    !strstr(h.o.message, "127.0.0.1") || !strstr(h.o.message, cases[i].says)) {
			fail_msg("%s: kind %d, \"%s\"", cases[i].name, (int)h.o.kind, h.o.message);
		}
		print_message("%s: %s\n", cases[i].name, h.o.message);
	}
	free(harness_stop(&h));
}

/* A session libssh2 frees completely leaves nothing on the list, and a block
 * grown by realloc is tracked at its new size. */
static void test_session_memory_accounts_for_every_block(void **state)
{
	(void)state;
	assert_int_equal(libssh2_init(0), 0);
	ssh_session_memory m;
	LIBSSH2_SESSION *s = ssh_session_memory_open(&m);
	assert_non_null(s);
	assert_true(m.live_blocks >= 1); /* the session itself */
	size_t before = m.live_bytes;
	assert_int_equal(libssh2_session_method_pref(s, LIBSSH2_METHOD_KEX, "curve25519-sha256"), 0);
	assert_true(m.live_bytes > before);
	assert_int_equal(libssh2_session_free(s), 0);
	size_t bytes = 99;
	assert_int_equal(ssh_session_memory_release(&m, &bytes), 0);
	assert_int_equal(bytes, 0);
	assert_null(m.blocks);
	libssh2_exit();
}

/* How many lines of the log hold this transition of the harness's node. */
static int transitions(const harness *h, const char *logged, const char *what)
{
	char line[256];
	snprintf(line, sizeof line, "ssh 127.0.0.1 port %d: %s\n", h->port, what);
	int n = 0;
	for (const char *p = strstr(logged, line); p; p = strstr(p + 1, line)) {
		n++;
	}
	return n;
}

/* All transition lines of the harness's node ("from -> to (reason)"). */
static int all_transitions(const harness *h, const char *logged)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "ssh 127.0.0.1 port %d: ", h->port);
	int n = 0;
	for (const char *p = strstr(logged, prefix); p; p = strstr(p + 1, prefix)) {
		const char *eol = strchr(p, '\n');
		const char *arrow = strstr(p, " -> ");
		n += arrow && (!eol || arrow < eol);
	}
	return n;
}

/* --log tells each connection's story: one line per real transition, with
 * the node, both states and the reason; waiting on EAGAIN through a key
 * exchange that never finishes logs nothing more. */
static void test_transitions_are_logged(void **state)
{
	(void)state;
	harness h;
	/* 2 s: the deadline also covers the name lookup, which a loaded
	 * machine (load 50) took past 0.5 s once in five runs */
	harness_start(&h, 2.0);
	harness_round(&h, serve_kexinit_then_silence);
	harness_round(&h, serve_http);
	transport_start(h.t);
	transport_stop(h.t); /* stopped while the lookup runs */
	char *logged = harness_stop(&h); /* h.port stays readable */
	print_message("%s", logged);
	assert_int_equal(transitions(&h, logged, "idle -> resolving (start)"), 3);
	assert_int_equal(transitions(&h, logged, "resolving -> connecting (resolved)"), 2);
	assert_int_equal(transitions(&h, logged, "connecting -> key exchange (TCP connected)"), 2);
	assert_int_equal(transitions(&h, logged, "key exchange -> idle (deadline)"), 1);
	assert_int_equal(transitions(&h, logged, "key exchange -> idle (handshake failed)"), 1);
	assert_int_equal(transitions(&h, logged, "resolving -> idle (stopped)"), 1);
	assert_int_equal(all_transitions(&h, logged), 10);
	free(logged);
}

/* With one handshake slot, the second connection queues without its deadline
 * running, and is let in (logged as such) when the first one gives up. */
static void test_queued_connection_waits_without_a_deadline(void **state)
{
	(void)state;
	harness h;
	harness_start_with_slots(&h, 0.5, 1);
	outcome second = {0};
	transport *t2 = ssh_transport_new(h.loop, &h.opt, "true", &events, &second);
	pid_t servers[2] = {fork_server(&h, serve_kexinit_then_silence),
			    fork_server(&h, serve_kexinit_then_silence)};
	ev_timer give_up;
	ev_timer_init(&give_up, on_give_up, 20.0, 0);
	ev_timer_start(h.loop, &give_up);
	transport_start(h.t);
	transport_start(t2);
	while ((h.o.failures == 0 || second.failures == 0) && ev_is_active(&give_up)) {
		ev_run(h.loop, EVRUN_ONCE);
	}
	ev_timer_stop(h.loop, &give_up);
	for (int i = 0; i < 2; i++) {
		kill(servers[i], SIGKILL);
		waitpid(servers[i], NULL, 0);
	}
	assert_int_equal(h.o.failures, 1);
	assert_int_equal(second.failures, 1);
	/* Neither ran out of time while queued: both got as far as the key exchange. */
	assert_non_null(strstr(h.o.message, "during key exchange"));
	assert_non_null(strstr(second.message, "during key exchange"));
	transport_destroy(t2);
	char *logged = harness_stop(&h); /* h.port stays readable */
	assert_int_equal(transitions(&h, logged, "resolving -> connecting (resolved)"), 1);
	assert_int_equal(transitions(&h, logged,
				     "resolving -> waiting for a handshake slot (resolved, all handshake slots busy)"),
			 1);
	assert_int_equal(transitions(&h, logged, "waiting for a handshake slot -> connecting (handshake slot free)"),
			 1);
	assert_int_equal(transitions(&h, logged, "key exchange -> idle (deadline)"), 2);
	free(logged);
}

/* ------------------------------------------------ a real sshd, run by inetd */

/* `sshd -i` on the accepted socket, as OpenSSH's own regression tests run it:
 * no root needed, no port to pick, and it exits with the connection. */
static char sshd_config_path[128];

static void serve_sshd(int fd)
{
	char errlog[160];
	snprintf(errlog, sizeof errlog, "%.120s.err", sshd_config_path);
	int err = open(errlog, O_WRONLY | O_CREAT | O_APPEND, 0600);
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (err >= 0) {
		dup2(err, STDERR_FILENO);
	}
	execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-i", "-e", "-f", sshd_config_path, (char *)NULL);
	_exit(127);
}

typedef struct {
	char dir[64];
	char key[128];      /* authorized */
	char stranger[128]; /* a key the server does not know */
	pid_t agents[2];
	char agent_socks[2][128];
} sshd_lab;

static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		fail_msg("failed: %s", cmd);
	}
}

/* Host key, two user keys (one authorized), an sshd_config; false when this
 * machine has no sshd, ssh-keygen or ssh-agent, or sshd will not run. */
static bool sshd_lab_start(sshd_lab *lab)
{
	memset(lab, 0, sizeof *lab);
	if (access("/usr/sbin/sshd", X_OK) != 0 || system("command -v ssh-keygen >/dev/null") != 0 ||
	    system("command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null") != 0) {
		return false;
	}
	snprintf(lab->dir, sizeof lab->dir, "/tmp/synctop-test-sshd-XXXXXX");
	assert_non_null(mkdtemp(lab->dir));
	snprintf(lab->key, sizeof lab->key, "%s/id_key", lab->dir);
	snprintf(lab->stranger, sizeof lab->stranger, "%s/id_stranger", lab->dir);
	run("ssh-keygen -q -t ecdsa -N '' -C host -f %s/host_key", lab->dir);
	/* ed25519 user keys: libssh2 1.10 with OpenSSL 3 leaks a BIGNUM (24 B)
	 * each time it signs with an ECDSA key file, which LeakSanitizer sees. */
	run("ssh-keygen -q -t ed25519 -N '' -C key -f %s", lab->key);
	run("ssh-keygen -q -t ed25519 -N '' -C stranger -f %s", lab->stranger);
	run("cp %s.pub %s/authorized_keys", lab->key, lab->dir);
	snprintf(sshd_config_path, sizeof sshd_config_path, "%s/sshd_config", lab->dir);
	FILE *f = fopen(sshd_config_path, "w");
	assert_non_null(f);
	fprintf(f,
		"HostKey %s/host_key\n"
		"AuthorizedKeysFile %s/authorized_keys\n"
		"PubkeyAuthentication yes\n"
		"PasswordAuthentication no\n"
		"KbdInteractiveAuthentication no\n"
		"UsePAM no\n"
		"StrictModes no\n"
		"PidFile none\n"
		"LogLevel ERROR\n",
		lab->dir, lab->dir);
	fclose(f);
	/* sshd may still refuse to run here (no privilege separation directory) */
	char check[256];
	snprintf(check, sizeof check, "/usr/sbin/sshd -t -f %s 2>/dev/null", sshd_config_path);
	if (system(check) != 0) {
		run("rm -rf '%s'", lab->dir);
		return false;
	}
	return true;
}

/* An ssh-agent of our own on dir/NAME.sock holding `key`. */
static const char *sshd_lab_agent(sshd_lab *lab, int which, const char *name, const char *key)
{
	char *sock = lab->agent_socks[which];
	char dir[sizeof lab->dir];
	memcpy(dir, lab->dir, sizeof dir);
	snprintf(sock, sizeof lab->agent_socks[which], "%s/%s.sock", dir, name);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execlp("ssh-agent", "ssh-agent", "-D", "-a", sock, (char *)NULL);
		_exit(127);
	}
	lab->agents[which] = pid;
	for (int i = 0; i < 200 && access(sock, F_OK) != 0; i++) {
		usleep(10000);
	}
	run("SSH_AUTH_SOCK='%s' ssh-add -q '%s' 2>/dev/null", sock, key);
	return sock;
}

static void sshd_lab_stop(sshd_lab *lab)
{
	for (int i = 0; i < 2; i++) {
		if (lab->agents[i] > 0) {
			kill(lab->agents[i], SIGTERM);
			waitpid(lab->agents[i], NULL, 0);
		}
	}
	run("rm -rf '%s'", lab->dir);
}

typedef struct {
	int ready, failures;
	transport_error kind;
	char message[1024];
} live_outcome;

static void live_ready(void *owner)
{
	((live_outcome *)owner)->ready++;
}

static void live_failed(void *owner, transport_error kind, const char *message)
{
	live_outcome *o = owner;
	o->failures++;
	o->kind = kind;
	snprintf(o->message, sizeof o->message, "%s", message);
}

static int accept_any(void *ctx, const char *host, int port, const unsigned char *key, size_t key_len, char *msg,
		      size_t msg_len)
{
	(void)ctx;
	(void)host;
	(void)port;
	(void)key;
	(void)key_len;
	(void)msg;
	(void)msg_len;
	return 0;
}

/* Runs the loop until the transport is ready `ready` times in all, or failed. */
static void live_wait(harness *h, const live_outcome *o, int ready)
{
	ev_timer give_up;
	ev_timer_init(&give_up, on_give_up, 20.0, 0);
	ev_timer_start(h->loop, &give_up);
	while (o->ready < ready && o->failures == 0 && ev_is_active(&give_up)) {
		ev_run(h->loop, EVRUN_ONCE);
	}
	ev_timer_stop(h->loop, &give_up);
}

/* One connection to sshd with these options; restart_shell once when
 * `restart`.  Returns what happened. */
static live_outcome live_connection(harness *h, const ssh_options *opt, bool restart)
{
	static const transport_events live_events = {live_ready, on_data, live_failed};
	live_outcome o = {0};
	transport *t = ssh_transport_new(h->loop, opt, "cat", &live_events, &o);
	pid_t server = fork_server(h, serve_sshd);
	transport_start(t);
	live_wait(h, &o, 1);
	if (restart && o.ready == 1) {
		transport_restart_shell(t);
		live_wait(h, &o, 2);
	}
	transport_destroy(t);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	return o;
}

/* h's options for the lab's sshd: this user, the lab's key, any host key. */
static ssh_options sshd_lab_options(const harness *h, const sshd_lab *lab)
{
	ssh_options opt = h->opt;
	struct passwd *pw = getpwuid(getuid());
	assert_non_null(pw);
	snprintf(opt.user, sizeof opt.user, "%s", pw->pw_name);
	opt.verify_host_key = accept_any;
	opt.n_identity_files = 1;
	snprintf(opt.identity_files[0], sizeof opt.identity_files[0], "%s", lab->key);
	return opt;
}

/* Against a real sshd, every state on the way to a running shell and back is
 * logged with its cause: key file, ssh-agent and synctop's private agent
 * authentication, a refused key, and a shell restart on the same session. */
static void test_real_sshd_transitions_are_logged(void **state)
{
	(void)state;
	sshd_lab lab;
	if (!sshd_lab_start(&lab)) {
		skip();
	}
	harness h;
	harness_start(&h, 10.0);
	/* a key file, then a new shell on the same session */
	ssh_options opt = sshd_lab_options(&h, &lab);
	live_outcome o = live_connection(&h, &opt, true);
	if (o.failures) {
		fail_msg("key file: %s", o.message);
	}
	assert_int_equal(o.ready, 2);

	/* a key the server does not know: the error names the ssh_config keys
	 * only OpenSSH could have used, GSSAPIAuthentication only if the server
	 * offers Kerberos (this sshd does not) */
	snprintf(opt.identity_files[0], sizeof opt.identity_files[0], "%s", lab.stranger);
	snprintf(opt.auth_unsupported, sizeof opt.auth_unsupported, "CertificateFile (cfg:3)");
	snprintf(opt.auth_gssapi, sizeof opt.auth_gssapi, "GSSAPIAuthentication yes (cfg:5)");
	o = live_connection(&h, &opt, false);
	assert_int_equal(o.failures, 1);
	assert_int_equal(o.kind, TRANSPORT_ERR_AUTH);
	assert_non_null(strstr(o.message, "(ssh_config gives it CertificateFile (cfg:3), which only "
					  "OpenSSH can use: " SSH_UNSUPPORTED_AUTH_FIX ")"));
	assert_null(strstr(o.message, "GSSAPI"));
	opt.auth_unsupported[0] = opt.auth_gssapi[0] = '\0';

	/* the user's agent holds only the stranger; synctop's agent the key */
	char *saved_sock = getenv("SSH_AUTH_SOCK") ? strdup(getenv("SSH_AUTH_SOCK")) : NULL;
	setenv("SSH_AUTH_SOCK", sshd_lab_agent(&lab, 0, "user", lab.stranger), 1);
	snprintf(opt.private_agent_socket, sizeof opt.private_agent_socket, "%s",
		 sshd_lab_agent(&lab, 1, "private", lab.key));
	snprintf(opt.identity_files[0], sizeof opt.identity_files[0], "%s", lab.key);
	opt.identity_states[0] = IDENTITY_IN_PRIVATE_AGENT;
	opt.identities_only = false;
	o = live_connection(&h, &opt, false);
	if (saved_sock) {
		setenv("SSH_AUTH_SOCK", saved_sock, 1);
		free(saved_sock);
	} else {
		unsetenv("SSH_AUTH_SOCK");
	}
	if (o.failures) {
		fail_msg("agents: %s", o.message);
	}
	assert_int_equal(o.ready, 1);

	char *logged = harness_stop(&h);
	sshd_lab_stop(&lab);
	static const struct {
		const char *what;
		int times;
	} want[] = {
		{"idle -> resolving (start)", 3},
		{"connecting -> key exchange (TCP connected)", 3},
		{"key exchange -> host key check (key exchange done)", 3},
		{"host key check -> authentication (host key accepted)", 3},
		{"authentication -> key file authentication (server takes public keys)", 2},
		{"key file authentication -> opening channel (key file accepted)", 1},
		{"opening channel -> starting remote shell (channel open)", 3},
		{"starting remote shell -> running (shell started)", 3},
		{"running -> closing channel (shell restart)", 1},
		{"closing channel -> opening channel (old channel closed)", 1},
		{"running -> idle (destroyed)", 2},
		{"key file authentication -> idle (auth refused)", 1},
		{"authentication -> agent authentication (server takes public keys)", 1},
		{"agent authentication -> private agent authentication (no agent key accepted)", 1},
		{"private agent authentication -> opening channel (agent key accepted)", 1},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int n = transitions(&h, logged, want[i].what);
		if (n != want[i].times) {
			fail_msg("\"%s\" logged %d times, not %d, in:\n%s", want[i].what, n, want[i].times, logged);
		}
	}
	free(logged);
}

/* The connection log names a node's route (issue 16: the drill-down of a
 * node behind a bastion says so while it is fine, not only in errors):
 * direct, one jump host, and a chain given first hop first. */
static void test_describe_names_the_route(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	assert_int_equal(ssh_transport_global_init(loop, 4), 0);
	ssh_options gw1, gw2, node;
	ssh_options_init(&gw1);
	snprintf(gw1.host, sizeof gw1.host, "192.0.2.1");
	gw1.port = 22;
	snprintf(gw1.jump_label, sizeof gw1.jump_label, "ops@login.example.org");
	ssh_options_init(&gw2);
	snprintf(gw2.host, sizeof gw2.host, "10.1.0.1");
	gw2.port = 2222;
	gw2.via = &gw1;
	snprintf(gw2.jump_label, sizeof gw2.jump_label, "inner:2222");
	ssh_options_init(&node);
	snprintf(node.host, sizeof node.host, "10.2.0.7");
	node.port = 22;
	char buf[256];

	transport *t = ssh_transport_new(loop, &node, "true", &events, NULL);
	transport_describe(t, buf, sizeof buf);
	assert_string_equal(buf, "to 10.2.0.7 port 22");
	transport_destroy(t);

	node.via = &gw1;
	t = ssh_transport_new(loop, &node, "true", &events, NULL);
	transport_describe(t, buf, sizeof buf);
	assert_string_equal(buf, "to 10.2.0.7 port 22 through jump host ops@login.example.org");
	transport_destroy(t);

	node.via = &gw2;
	t = ssh_transport_new(loop, &node, "true", &events, NULL);
	transport_describe(t, buf, sizeof buf);
	assert_string_equal(buf, "to 10.2.0.7 port 22 through jump hosts ops@login.example.org, inner:2222");
	/* cut to the buffer, still a string */
	transport_describe(t, buf, 30);
	assert_string_equal(buf, "to 10.2.0.7 port 22 through j");
	transport_destroy(t);

	ssh_transport_global_free();
	ev_loop_destroy(loop);
}

/* Keepalives for a session's whole life leave nothing behind: sshd answers
 * libssh2's keepalive request, when asked to, with a one-byte
 * SSH_MSG_REQUEST_FAILURE that libssh2 1.10 queues and never frees
 * (libssh2 #623): a block more each interval, and on a jump connection
 * every channel's poll for data saw it and read the socket. */
static void test_keepalives_leave_nothing_behind(void **state)
{
	(void)state;
	sshd_lab lab;
	if (!sshd_lab_start(&lab)) {
		skip();
	}
	harness h;
	harness_start(&h, 10.0);
	ssh_options opt = sshd_lab_options(&h, &lab);
	opt.keepalive_interval_s = 1;
	static const transport_events live_events = {live_ready, on_data, live_failed};
	live_outcome o = {0};
	transport *t = ssh_transport_new(h.loop, &opt, "cat", &live_events, &o);
	pid_t server = fork_server(&h, serve_sshd);
	transport_start(t);
	live_wait(&h, &o, 1);
	if (o.ready != 1) {
		fail_msg("not ready: %s", o.message);
	}
	ev_timer pause;
	ev_timer_init(&pause, on_give_up, 1.5, 0);
	ev_timer_start(h.loop, &pause);
	ev_run(h.loop, 0);
	size_t before = ssh_transport_session_blocks(t);
	ev_timer_set(&pause, 5.0, 0);
	ev_timer_start(h.loop, &pause);
	ev_run(h.loop, 0); /* 4 or 5 keepalives */
	size_t after = ssh_transport_session_blocks(t);
	assert_int_equal(o.failures, 0);
	if (after > before) {
		fail_msg("libssh2 holds %zu blocks after 5 s of keepalives, %zu before", after, before);
	}
	transport_destroy(t);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	free(harness_stop(&h));
	sshd_lab_stop(&lab);
}

/* ------------------------------------------------------ through a jump host */

typedef struct {
	int ready, failures;
	transport_error kind;
	char message[1024];
	size_t got;   /* bytes the node's `cat` sent back */
	bool corrupt; /* one of them not what was sent */
} echo_outcome;

static unsigned char pattern_at(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 13));
}

static void echo_ready(void *owner)
{
	((echo_outcome *)owner)->ready++;
}

static void echo_data(void *owner, const char *buf, size_t len)
{
	echo_outcome *o = owner;
	for (size_t k = 0; k < len; k++) {
		o->corrupt |= (unsigned char)buf[k] != pattern_at(o->got + k);
	}
	o->got += len;
}

static void echo_failed(void *owner, transport_error kind, const char *message)
{
	echo_outcome *o = owner;
	o->failures++;
	o->kind = kind;
	snprintf(o->message, sizeof o->message, "%s", message);
}

/* A server child in a process group of its own: sshd -i forks, and killing
 * the group ends every process that holds the connection. */
static pid_t fork_group_server(int listener, serve_fn serve)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		run_server(listener, serve);
	}
	setpgid(pid, pid);
	return pid;
}

static void end_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int open_descriptors(void)
{
	int n = 0;
	for (int fd = 0; fd < 4096; fd++) {
		n += fcntl(fd, F_GETFD) >= 0;
	}
	return n;
}

#define JUMP_NODES 3

/* Runs the loop until done(o) holds for every node, one fails, or 60 s pass. */
static void jump_wait(harness *h, echo_outcome *o, bool (*done)(const echo_outcome *, size_t), size_t arg,
		      bool until_failed)
{
	ev_timer give_up;
	ev_timer_init(&give_up, on_give_up, 60.0, 0);
	ev_timer_start(h->loop, &give_up);
	for (;;) {
		int all = 0, failed = 0;
		for (int i = 0; i < JUMP_NODES; i++) {
			all += done(&o[i], arg);
			failed += o[i].failures > 0;
		}
		if (all == JUMP_NODES || (!until_failed && failed) || !ev_is_active(&give_up)) {
			break;
		}
		ev_run(h->loop, EVRUN_ONCE);
	}
	ev_timer_stop(h->loop, &give_up);
}

static bool is_ready(const echo_outcome *o, size_t arg)
{
	(void)arg;
	return o->ready > 0;
}

static bool got_at_least(const echo_outcome *o, size_t n)
{
	return o->got >= n;
}

static bool has_failed(const echo_outcome *o, size_t arg)
{
	(void)arg;
	return o->failures > 0;
}

/* Nodes behind a jump host (real sshds: the jump host's forwards to the
 * nodes' on another port) run their sessions through libssh2's send/recv
 * callbacks on the jump connection's channels: no descriptor per node; a
 * megabyte each way through `cat` fills both of each pipe's buffers (the
 * inner session's sends refused, the channel's reads stalled) and arrives
 * whole and in order; the jump connection killed mid-transfer fails each
 * node once, naming the jump host. */
static void test_nodes_behind_a_jump_host(void **state)
{
	(void)state;
	sshd_lab lab;
	if (!sshd_lab_start(&lab)) {
		skip();
	}
	harness h;
	harness_start(&h, 30.0);
	ssh_options gw = sshd_lab_options(&h, &lab);
	snprintf(gw.jump_label, sizeof gw.jump_label, "gw");
	int node_port = 0;
	int node_listener = listen_on_loopback(&node_port);
	ssh_options node = gw;
	node.port = node_port;
	node.via = &gw;
	node.jump_label[0] = '\0';

	pid_t jump_server = fork_group_server(h.listener, serve_sshd);
	pid_t node_servers[JUMP_NODES];
	for (int i = 0; i < JUMP_NODES; i++) {
		node_servers[i] = fork_group_server(node_listener, serve_sshd);
	}
	static const transport_events echo_events = {echo_ready, echo_data, echo_failed};
	echo_outcome o[JUMP_NODES];
	transport *t[JUMP_NODES];
	memset(o, 0, sizeof o);
	int fds_before = open_descriptors();
	for (int i = 0; i < JUMP_NODES; i++) {
		t[i] = ssh_transport_new(h.loop, &node, "cat", &echo_events, &o[i]);
		transport_start(t[i]);
	}
	jump_wait(&h, o, is_ready, 0, false);
	for (int i = 0; i < JUMP_NODES; i++) {
		if (o[i].ready != 1) {
			fail_msg("node %d: not ready (%s)", i, o[i].message);
		}
	}
	/* one TCP connection, to the jump host; a socketpair per node before */
	assert_int_equal(open_descriptors() - fds_before, 1);

	const size_t first = 1 << 20;
	char *payload = malloc(4 * first);
	assert_non_null(payload);
	for (size_t k = 0; k < 4 * first; k++) {
		payload[k] = (char)pattern_at(k);
	}
	for (int i = 0; i < JUMP_NODES; i++) {
		assert_int_equal(transport_send(t[i], payload, first), 0);
	}
	jump_wait(&h, o, got_at_least, first, false);
	for (int i = 0; i < JUMP_NODES; i++) {
		if (o[i].failures || o[i].got != first || o[i].corrupt) {
			fail_msg("node %d: %zu of %zu bytes back%s (%s)", i, o[i].got, first,
				 o[i].corrupt ? ", not as sent" : "", o[i].message);
		}
	}

	/* more, and the jump connection dies under it */
	for (int i = 0; i < JUMP_NODES; i++) {
		assert_int_equal(transport_send(t[i], payload + first, 3 * first), 0);
	}
	jump_wait(&h, o, got_at_least, first + 65536, false);
	end_group(jump_server);
	jump_wait(&h, o, has_failed, 0, true);
	/* a little longer: nothing fails twice */
	ev_timer settle;
	ev_timer_init(&settle, on_give_up, 0.5, 0);
	ev_timer_start(h.loop, &settle);
	ev_run(h.loop, 0);
	for (int i = 0; i < JUMP_NODES; i++) {
		if (o[i].failures != 1 || o[i].kind != TRANSPORT_ERR_LOST || !strstr(o[i].message, "jump host gw")) {
			fail_msg("node %d: %d failures, kind %d: %s", i, o[i].failures, (int)o[i].kind, o[i].message);
		}
		assert_true(o[i].got < 4 * first);
		assert_false(o[i].corrupt);
		transport_destroy(t[i]);
		end_group(node_servers[i]);
	}
	free(payload);
	close(node_listener);
	free(harness_stop(&h));
	sshd_lab_stop(&lab);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_memory_accounts_for_every_block),
		cmocka_unit_test(test_key_exchange_abandoned_by_the_server),
		cmocka_unit_test(test_hostile_or_broken_servers),
		cmocka_unit_test(test_transitions_are_logged),
		cmocka_unit_test(test_queued_connection_waits_without_a_deadline),
		cmocka_unit_test(test_real_sshd_transitions_are_logged),
		cmocka_unit_test(test_keepalives_leave_nothing_behind),
		cmocka_unit_test(test_nodes_behind_a_jump_host),
		cmocka_unit_test(test_describe_names_the_route),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
