/* ssh_jump_spec.h - a ProxyJump value ("-J" on the command line, `jump` in
 * --config) read the way OpenSSH reads it (readconf.c:parse_jump,
 * misc.c:parse_user_host_port and parse_ssh_uri).  In core: the
 * configuration checks it when the file is read, the SSH layer uses it.
 *
 * "host1,user@host2:2222,ssh://host3" names the jump hosts in the order the
 * connection goes through them: host1 first.  "none" (any case) means no
 * jump host.  Each hop is [user@]host[:port], [user@][v6addr]:port or
 * ssh://[user@]host[:port]; the user is everything before the last '@'.
 * A '#' ends the value (OpenSSH strips it as a comment).  Pure: no I/O. */
#ifndef SYNCTOP_SSH_JUMP_SPEC_H
#define SYNCTOP_SSH_JUMP_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#define SSH_JUMP_MAX_HOPS 8
#define SSH_JUMP_HOST_LEN 256
#define SSH_JUMP_USER_LEN 64

typedef struct {
	char user[SSH_JUMP_USER_LEN]; /* "" = the jump host's own User, else the local user */
	char host[SSH_JUMP_HOST_LEN]; /* the name as given: its own Host block applies */
	int port;                     /* 0 = its own Port, else 22 */
} ssh_jump_hop;

typedef struct {
	bool none;  /* "ProxyJump none": connect directly */
	int count;  /* hops, first one first; 0 with none */
	ssh_jump_hop hop[SSH_JUMP_MAX_HOPS];
} ssh_jump_spec;

/* Returns 0, or -1 with err saying which hop is wrong and why. */
int ssh_jump_spec_parse(const char *value, ssh_jump_spec *out, char *err, size_t err_len);

/* "user@host:port" (user and port only when given; an IPv6 address in
 * brackets), for messages; it parses back to the same hop. */
void ssh_jump_hop_format(const ssh_jump_hop *hop, char *out, size_t len);

#endif
