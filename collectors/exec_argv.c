/* exec_argv.c - build the ssh command line and read a transport process's
 * end (exec_argv.h). */
#include <config.h>

#include "exec_argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"
#include "xalloc.h"

#define EXEC_SSH_MAX_ARGS 48

static void push(char **argv, int *n, const char *s)
{
	if (*n < EXEC_SSH_MAX_ARGS) {
		argv[(*n)++] = xstrdup(s);
	}
}

static void push_option(char **argv, int *n, const char *key, const char *value)
{
	char buf[4200];
	snprintf(buf, sizeof buf, "%s=%s", key, value);
	push(argv, n, "-o");
	push(argv, n, buf);
}

/* ssh splits a file list at whitespace but honours double quotes in it. */
static void known_hosts_value(const exec_ssh_args *a, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < a->n_known_hosts && used < len; i++) {
		const char *f = a->known_hosts[i];
		bool quote = strpbrk(f, " \t") != NULL;
		int w = snprintf(out + used, len - used, "%s%s%s%s", i ? " " : "", quote ? "\"" : "", f,
				 quote ? "\"" : "");
		used += w > 0 ? (size_t)w : 0;
	}
}

char **exec_argv_ssh(const exec_ssh_args *a)
{
	char **argv = xcalloc(EXEC_SSH_MAX_ARGS + 1, sizeof *argv);
	int n = 0;
	char num[16];

	push(argv, &n, "ssh");
	push(argv, &n, "-T"); /* no terminal: the probe speaks a byte protocol */
	push_option(argv, &n, "BatchMode", "yes"); /* nobody to type a password */
	if (a->ssh_config && a->ssh_config[0]) {
		push(argv, &n, "-F");
		push(argv, &n, a->ssh_config);
	}
	if (a->user && a->user[0]) {
		push(argv, &n, "-l");
		push(argv, &n, a->user);
	}
	if (a->port > 0) {
		snprintf(num, sizeof num, "%d", a->port);
		push(argv, &n, "-p");
		push(argv, &n, num);
	}
	for (int i = 0; i < a->n_identities && i < EXEC_SSH_MAX_IDENTITIES; i++) {
		push(argv, &n, "-i");
		push(argv, &n, a->identities[i]);
	}
	if (a->n_known_hosts > 0) {
		char files[4096];
		known_hosts_value(a, files, sizeof files);
		push_option(argv, &n, "UserKnownHostsFile", files);
	}
	if (a->strict && a->strict[0]) {
		push_option(argv, &n, "StrictHostKeyChecking", a->strict);
	}
	if (a->connect_timeout_s > 0) {
		snprintf(num, sizeof num, "%d", a->connect_timeout_s);
		push_option(argv, &n, "ConnectTimeout", num);
	}
	if (a->jump && a->jump[0]) {
		/* ssh's own -J, so it beats ProxyJump and ProxyCommand lines
		 * exactly as it does for the built-in client */
		push(argv, &n, "-J");
		push(argv, &n, a->jump);
	}
	/* "--": a node named "-oProxyCommand=..." is a host name, not an option */
	push(argv, &n, "--");
	push(argv, &n, a->host);
	push(argv, &n, "sh");
	return argv;
}

void exec_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		free(argv[i]);
	}
	free(argv);
}

#define TAIL_LINES 3

/* The last TAIL_LINES non-empty lines of stderr, made one printable line
 * ("a | b | c"): ssh says what went wrong last, after any banner or
 * warning block. */
static void tail_lines(const char *s, size_t len, char *out, size_t out_len)
{
	char flat[1024];
	size_t n = 0, start = len;
	int lines = 0;
	/* walk back over TAIL_LINES non-empty lines */
	while (start > 0 && lines < TAIL_LINES) {
		size_t end = start;
		while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r')) {
			end--;
		}
		if (end == 0) {
			start = 0;
			break;
		}
		size_t b = end;
		while (b > 0 && s[b - 1] != '\n') {
			b--;
		}
		start = b;
		lines++;
	}
	bool line_start = true;
	for (size_t i = start; i < len && n + 4 < sizeof flat; i++) {
		if (s[i] == '\r' || (line_start && (s[i] == ' ' || s[i] == '\t'))) {
			continue; /* ssh indents its hints: the joined line need not */
		}
		line_start = s[i] == '\n';
		if (s[i] == '\n') {
			while (i + 1 < len && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
				i++;
			}
			if (n > 0 && i + 1 < len) {
				flat[n++] = ' ';
				flat[n++] = '|';
				flat[n++] = ' ';
			}
			continue;
		}
		flat[n++] = s[i];
	}
	sanitize_text(flat, n, out, out_len, SANITIZE_SINGLE_LINE | SANITIZE_ASCII);
}

static bool has(const exec_outcome *o, const char *needle)
{
	size_t nl = strlen(needle);
	if (!o->stderr_tail || o->stderr_len < nl) {
		return false;
	}
	for (size_t i = 0; i + nl <= o->stderr_len; i++) {
		if (memcmp(o->stderr_tail + i, needle, nl) == 0) {
			return true;
		}
	}
	return false;
}

/* What ssh's own failure (exit 255) was, from its words (sshconnect.c,
 * sshconnect2.c, ssh.c).  -1: not recognised. */
static int ssh_failure_kind(const exec_outcome *o)
{
	if (has(o, "Host key verification failed") || has(o, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
	    has(o, "No ED25519 host key is known") || has(o, "host key is known for") ||
	    has(o, "Host key for") || has(o, "POSSIBLE DNS SPOOFING")) {
		return TRANSPORT_ERR_HOSTKEY;
	}
	if (has(o, "Permission denied") || has(o, "Too many authentication failures")) {
		return TRANSPORT_ERR_AUTH;
	}
	if (has(o, "Could not resolve hostname") || has(o, "Name or service not known")) {
		return TRANSPORT_ERR_RESOLVE;
	}
	if (has(o, "Connection refused") || has(o, "timed out") || has(o, "No route to host") ||
	    has(o, "Network is unreachable") || has(o, "Connection closed by") ||
	    has(o, "Connection reset") || has(o, "kex_exchange_identification") ||
	    /* the banner written into a proxy or socket already gone (kex.c) */
	    has(o, "banner exchange: Connection to")) {
		return TRANSPORT_ERR_CONNECT;
	}
	return -1;
}

transport_error exec_argv_classify(const exec_outcome *o, char *msg, size_t msg_len)
{
	char said[700] = "";
	char how[64];
	const char *prog = o->program && o->program[0] ? o->program : "the transport command";
	transport_error kind;

	if (o->stderr_tail && o->stderr_len) {
		tail_lines(o->stderr_tail, o->stderr_len, said, sizeof said);
	}
	if (o->timed_out) {
		snprintf(how, sizeof how, "gave no shell within the connect timeout");
	} else if (o->signalled) {
		snprintf(how, sizeof how, "was killed by signal %d", o->code);
	} else {
		snprintf(how, sizeof how, "exited with status %d", o->code);
	}
	if (o->was_ready) {
		kind = TRANSPORT_ERR_LOST; /* it ran: the connection (or the pod) went */
	} else if (o->timed_out) {
		kind = TRANSPORT_ERR_CONNECT;
	} else if (o->is_ssh && !o->signalled && o->code == 255) {
		int k = ssh_failure_kind(o); /* ssh's own failure, not the remote shell's */
		kind = k >= 0 ? (transport_error)k : TRANSPORT_ERR_HANDSHAKE;
	} else {
		kind = TRANSPORT_ERR_CHANNEL; /* no shell: exec failed, the command refused */
	}
	snprintf(msg, msg_len, "%s %s%s%s", prog, how, said[0] ? ": " : "", said);
	return kind;
}
