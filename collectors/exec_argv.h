/* exec_argv.h - the pure half of the exec transports (exec_transport.h):
 * the system ssh client's command line for one node, and what a finished
 * transport process means (its exit status and the last of its stderr) as a
 * transport_error and a message a person can act on.  No I/O. */
#ifndef SYNCTOP_EXEC_ARGV_H
#define SYNCTOP_EXEC_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "transport.h"

#define EXEC_SSH_MAX_IDENTITIES 8
#define EXEC_SSH_MAX_KNOWN_HOSTS 4

/* What the command line said, passed on to ssh; unset fields are left to
 * ssh and its configuration. */
typedef struct {
	const char *host;         /* the node as the operator named it (required) */
	const char *user;         /* user@host or -l; NULL/"" = ssh's choice */
	int port;                 /* host:port or -p; 0 = ssh's choice */
	const char *ssh_config;   /* -F; NULL = ssh's defaults */
	const char *identities[EXEC_SSH_MAX_IDENTITIES];
	int n_identities;
	const char *known_hosts[EXEC_SSH_MAX_KNOWN_HOSTS];
	int n_known_hosts;
	const char *strict;       /* "yes", "accept-new", "no"; NULL = unset */
	int connect_timeout_s;    /* 0 = unset */
	const char *jump;         /* -J or a group's "jump" ("none" too); NULL/"" = ssh_config's */
} exec_ssh_args;

/* `ssh -T -o BatchMode=yes [options] -- HOST sh`, NULL-terminated; free
 * with exec_argv_free().  The remote command is a bare `sh`: the probe
 * program is written to its stdin (exec_transport.c). */
char **exec_argv_ssh(const exec_ssh_args *a);
void exec_argv_free(char **argv);

/* How the transport process ended. */
typedef struct {
	bool is_ssh;         /* the system ssh client (exit 255 = its own failure) */
	bool was_ready;      /* the probe shell had started */
	bool timed_out;      /* we ended it: no shell within the connect deadline */
	bool signalled;      /* else exited */
	int code;            /* exit status, or the signal */
	const char *stderr_tail; /* last bytes of its stderr, may be NULL */
	size_t stderr_len;
	const char *program; /* argv[0], for the message */
} exec_outcome;

/* The kind of failure and a one-line message ("ssh exited with status 255:
 * Permission denied (publickey)."); host key and authentication failures are
 * told apart from connection failures by what ssh printed. */
transport_error exec_argv_classify(const exec_outcome *o, char *msg, size_t msg_len);

#endif
