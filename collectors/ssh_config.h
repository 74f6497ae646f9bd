/* ssh_config.h - the part of OpenSSH's client configuration (ssh_config(5))
 * that synctop honours, read the way ssh reads it.
 *
 * Resolution order for one host, highest first:
 *   1. command-line options (user@host, :port, -i, ...).  The caller applies
 *      these on top of ssh_config_resolve()'s result: a set CLI value replaces
 *      the field, CLI identity files go before the config's ones.
 *   2. the configuration: files are read top to bottom (the user file, then
 *      the system file), and for each key the first value obtained in a
 *      matching Host block wins.  IdentityFile is the exception: every
 *      matching line adds a file.
 *   3. synctop's built-in defaults for whatever is still unset.
 *
 * Supported: Host (patterns with '*', '?', negation '!', several per line;
 * matched case-sensitively against the name as given, like ssh), Match
 * (ssh_match.h: all, host, originalhost, user, localuser, canonical, final,
 * with '!' and comma lists; "Match final" makes a second pass as ssh does),
 * Include (globs; relative paths are under ~/.ssh for user files, /etc/ssh
 * for the system file; nesting at most 16 deep), "Key Value" and
 * "Key=Value", quotes, keys in any case.
 *
 * Keys, by what synctop does with them (README.md has the same table):
 *   honoured: HostName User Port IdentityFile IdentitiesOnly
 *     UserKnownHostsFile GlobalKnownHostsFile HostKeyAlias
 *     StrictHostKeyChecking ConnectTimeout ServerAliveInterval ProxyJump
 *     (the value in proxy_jump; a bad value is the host's error);
 *   an error for a host they apply to (they change the route, the
 *     destination, what runs or the host key lookup, and synctop cannot
 *     follow): ProxyCommand (not "none"), CanonicalizeHostname
 *     yes/always, CanonicalizePermittedCNAMEs, RemoteCommand, BindAddress,
 *     BindInterface, KnownHostsCommand, RevokedHostKeys;
 *   named if the host's authentication fails (libssh2 cannot do them):
 *     GSSAPIAuthentication yes, CertificateFile, PKCS11Provider,
 *     SecurityKeyProvider, IdentityAgent;
 *   every other key is ignored: valid OpenSSH that does not change where
 *     synctop connects (README.md lists the notable ones); AddressFamily
 *     inet/inet6 is ignored but reported (ssh_host_options.ignored), as
 *     synctop connects to the first address the resolver gives.
 * Lines below a Match synctop does not evaluate (exec, localnetwork,
 * tagged, version, command, sessiontype) may or may not apply: one that
 * would decide the route, destination, user or host key lookup is an error
 * for the host, any other is left out with a warning.
 *
 * Tokens: HostName takes %h and %% (as ssh).  IdentityFile and the
 * KnownHostsFile keys take %% %d (home) %u (local user) %h (HostName, else
 * the name, lowercased unless an address, as ssh does) %n (the name as given) %r (remote user) %p (port) %i (uid) %k
 * (HostKeyAlias, else the name) %l %L (local host name, long and short).
 * Differences from ssh: ~ is $HOME (ssh uses the password database), %C and
 * %j make a path unusable (a warning names it and the path is ignored), and
 * a User with tokens is an error for the host. */
#ifndef SYNCTOP_SSH_CONFIG_H
#define SYNCTOP_SSH_CONFIG_H

#include <stddef.h>

#define SSH_CONFIG_SYSTEM_PATH "/etc/ssh/ssh_config"

#define SSH_OPTION_UNSET (-1)
#define SSH_IDENTITY_MAX 8
#define SSH_KNOWN_HOSTS_MAX 8
#define SSH_PATH_LEN 1024
#define SSH_HOSTNAME_LEN 256
#define SSH_USER_LEN 64
#define SSH_WARNING_LEN 256
#define SSH_ERROR_LEN 768
#define SSH_NOTE_LEN 512

typedef enum {
	SSH_STRICT_UNSET = 0,
	SSH_STRICT_YES,        /* "yes", "true", and "ask" (there is nobody to ask) */
	SSH_STRICT_NO,         /* "no", "false", "off" */
	SSH_STRICT_ACCEPT_NEW, /* "accept-new" */
} ssh_strict;

/* What the configuration says about one host.  Every field may be unset. */
typedef struct {
	char hostname[SSH_HOSTNAME_LEN]; /* HostName with %h expanded, lowercased
					  * unless an address (ssh.c:main); "" = unset */
	char user[SSH_USER_LEN];         /* "" = unset */
	int port;                        /* SSH_OPTION_UNSET or 1..65535 */
	char identity_file[SSH_IDENTITY_MAX][SSH_PATH_LEN]; /* expanded, in order */
	int identity_count;
	int identities_only;             /* SSH_OPTION_UNSET, 0 or 1 */
	char known_hosts_file[SSH_KNOWN_HOSTS_MAX][SSH_PATH_LEN];
	int known_hosts_count;           /* SSH_OPTION_UNSET, 0 for "none", or n */
	char global_known_hosts_file[SSH_KNOWN_HOSTS_MAX][SSH_PATH_LEN];
	int global_known_hosts_count;    /* SSH_OPTION_UNSET, 0 for "none", or n */
	char host_key_alias[SSH_HOSTNAME_LEN]; /* lowercased; "" = unset */
	ssh_strict strict_host_key_checking;
	int connect_timeout;             /* seconds; SSH_OPTION_UNSET */
	int server_alive_interval;       /* seconds, 0 = off; SSH_OPTION_UNSET */
	char warning[SSH_WARNING_LEN];   /* first problem met resolving, "" if none */
	/* A line that applies and that synctop cannot honour: "file:line: what
	 * and what to do".  Do not connect to the host.  "" if none. */
	char error[SSH_ERROR_LEN];
	char error_at[SSH_PATH_LEN + 16]; /* that line's "file:line", to group hosts */
	/* Authentication keys libssh2 cannot honour, for the log and for the
	 * host's error if authentication fails: "CertificateFile (file:line),
	 * PKCS11Provider (file:line)"; GSSAPIAuthentication apart, as it only
	 * matters when the server offers Kerberos.  "" if none. */
	char auth_unsupported[SSH_NOTE_LEN];
	char auth_gssapi[SSH_NOTE_LEN];
	/* A key synctop ignores though it may change the path to the host, for
	 * the log: "AddressFamily inet (file:line)"; "" if none. */
	char ignored[SSH_NOTE_LEN];
	/* The jump hosts to go through (ProxyJump, or -J which beats it), as
	 * written (ssh_jump_spec_parse() reads it; checked here, so a bad value
	 * is the host's error); "" = direct ("none" too).  proxy_jump_at is
	 * the line's "file:line", or "-J". */
	char proxy_jump[SSH_ERROR_LEN];
	char proxy_jump_at[SSH_PATH_LEN + 16];
} ssh_host_options;

/* What the command line says about one host, which ssh knows before it
 * reads the files ("Match user" and %r see the user, %p the port). */
typedef struct {
	const char *host; /* the name as given: no user@, no :port */
	const char *user; /* from user@host or -l; NULL or "" = none */
	int port;         /* from host:port or -p; 0 = none */
	const char *jump; /* -J: beats ProxyJump and ProxyCommand lines; NULL or "" = none */
	const char *jump_from; /* where jump was set, for messages; NULL = "-J" */
} ssh_config_query;

typedef struct ssh_config ssh_config;

/* Read the configuration ssh itself would read.
 *   path == NULL:   ~/.ssh/config (missing = nothing) then SSH_CONFIG_SYSTEM_PATH
 *                   (missing = nothing), like plain `ssh`;
 *   path == "none": nothing, like `ssh -F none`;
 *   otherwise:      only that file, which must exist, like `ssh -F path`.
 * Returns a config to free with ssh_config_free(), or NULL with err holding
 * "file:line:column: what is wrong" (or "file: why it cannot be read"). */
ssh_config *ssh_config_load(const char *path, char *err, size_t err_len);

/* The same with both files named: user_path as for ssh_config_load() (NULL =
 * ~/.ssh/config), system_path read if it exists (NULL = none). */
ssh_config *ssh_config_load_files(const char *user_path, const char *system_path, char *err,
				  size_t err_len);

void ssh_config_free(ssh_config *cfg);

/* Things in the files synctop skipped (unusable paths), as
 * "file:line: message".  Index 0 .. count-1; valid until ssh_config_free(). */
size_t ssh_config_warning_count(const ssh_config *cfg);
const char *ssh_config_warning(const ssh_config *cfg, size_t i);

/* Options for `host`, the name as given in the inventory (no user@ or
 * :port).  Always fills out completely; cfg may be NULL (nothing set). */
void ssh_config_resolve(const ssh_config *cfg, const char *host, ssh_host_options *out);

/* The same knowing what the command line says (q->host may be NULL: ""). */
void ssh_config_resolve_query(const ssh_config *cfg, const ssh_config_query *q,
			      ssh_host_options *out);

#endif
