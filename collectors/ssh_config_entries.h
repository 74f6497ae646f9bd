/* ssh_config_entries.h - the loaded form of an ssh client configuration,
 * private to its reader (ssh_config.c) and its resolver
 * (ssh_config_resolve.c).  Not for other modules: they use ssh_config.h.
 *
 * Loading turns the files into one flat list of entries in reading order:
 * file and include boundaries, Host/Match conditions and options, with
 * Include already spliced in.  Resolving walks that list once per host. */
#ifndef SYNCTOP_SSH_CONFIG_ENTRIES_H
#define SYNCTOP_SSH_CONFIG_ENTRIES_H

#include <stddef.h>

#include "ssh_config.h"

#define SSH_CONFIG_MAX_DEPTH 16 /* OpenSSH's READCONF_MAX_DEPTH */
#define SSH_CONFIG_MAX_WARNINGS 32

typedef enum {
	K_UNKNOWN = 0,
	K_HOST,
	K_MATCH,
	K_INCLUDE,
	/* honoured */
	K_HOSTNAME,
	K_USER,
	K_PORT,
	K_IDENTITY_FILE,
	K_IDENTITIES_ONLY,
	K_KNOWN_HOSTS,
	K_GLOBAL_KNOWN_HOSTS,
	K_HOST_KEY_ALIAS,
	K_STRICT,
	K_CONNECT_TIMEOUT,
	K_SERVER_ALIVE,
	/* change the route, the destination or the host key lookup in a way
	 * synctop cannot follow: an error for a host they apply to */
	K_PROXY_COMMAND,
	K_PROXY_JUMP,
	K_CANONICALIZE,
	K_CANONICAL_CNAMES,
	K_REMOTE_COMMAND,
	K_BIND_ADDRESS,
	K_BIND_INTERFACE,
	K_KNOWN_HOSTS_COMMAND,
	K_REVOKED_HOST_KEYS,
	/* authentication libssh2 cannot do: named if authentication fails */
	K_GSSAPI,
	K_CERTIFICATE_FILE,
	K_PKCS11,
	K_SK_PROVIDER,
	K_IDENTITY_AGENT,
	/* ignored, but said in the log: it may pick another path to the node */
	K_ADDRESS_FAMILY,
	K_COUNT,
} key_id;

/* The key's name as ssh_config(5) spells it, for messages. */
const char *ssh_config_key_name(key_id id);

typedef enum {
	E_FILE,       /* a top-level file starts: the active state resets */
	E_INC_BEGIN,  /* an included file starts */
	E_INC_END,    /* ... and ends: the includer's state comes back */
	E_HOST,       /* argv = patterns */
	E_MATCH,      /* argv = criteria, checked by ssh_match_check() */
	E_OPTION,     /* key, argv and ival */
	E_INCLUDE,    /* argv = paths; only between parse_text() and the splice */
} entry_kind;

/* ival of "none" (UserKnownHostsFile, ProxyCommand, ...): a value that
 * wins like any other and means "nothing" */
#define VALUE_NONE 1

typedef struct {
	entry_kind kind;
	key_id key;
	int ival;         /* the parsed number, flag or enum */
	int argc;
	char **argv;      /* one allocation: the pointers, then the strings */
	const char *file; /* owned by ssh_config.files */
	unsigned line;
	unsigned col;     /* of the first value */
} entry;

typedef struct {
	entry *v;
	size_t n;
	size_t cap;
} entry_vec;

struct ssh_config {
	entry_vec entries;
	char **files; /* names of the files read, for messages */
	size_t nfiles;
	size_t files_cap;
	size_t bytes_read;
	char *warnings[SSH_CONFIG_MAX_WARNINGS];
	size_t nwarnings;
	size_t dropped_warnings;
	char more[64]; /* "... and N more" once warnings overflow */
	char home[SSH_PATH_LEN];       /* $HOME, "" when unset */
	char local_user[SSH_USER_LEN]; /* for %u and the default %r */
	char local_host[SSH_HOSTNAME_LEN];  /* %l: gethostname() */
	char local_short[SSH_HOSTNAME_LEN]; /* %L: up to the first dot */
	char uid[24];                       /* %i */
};

#endif
