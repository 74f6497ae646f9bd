/* known_hosts.h - SSH host key verification against OpenSSH known_hosts files.
 *
 * The transport asks two things of this module:
 *   1. before the handshake, which key types known_hosts holds for a node
 *      (known_hosts_key_types), so it can restrict LIBSSH2_METHOD_HOSTKEY to
 *      keys we can actually verify;
 *   2. after the handshake, whether the offered key may be trusted
 *      (known_hosts_check / known_hosts_check_session), under a
 *      StrictHostKeyChecking policy.
 *
 * Matching follows OpenSSH (hostfile.c, match.c): port 22 is looked up as
 * "host", any other port as "[host]:port" (a plain "host" entry does not
 * cover port 2201); host fields are comma lists of case-insensitive patterns
 * with '*', '?' and '!' negation, or one hashed "|1|salt|hash" name;
 * "@revoked" lines revoke a key for the hosts they match; "@cert-authority"
 * lines are ignored (certificates are not supported); malformed lines are
 * skipped.  A changed key (MISMATCH) and a revoked key are refused under
 * every policy.
 *
 * The core (known_hosts_verify_text, known_hosts_key_types_text) is pure:
 * file contents in, verdict out, no I/O.  The known_hosts object adds file
 * reading, reloading when a file changes on disk, accept-new writing, and
 * what this libssh2 supports. */
#ifndef SYNCTOP_KNOWN_HOSTS_H
#define SYNCTOP_KNOWN_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include <libssh2.h>

typedef enum {
	KNOWN_HOSTS_STRICT_YES = 0,    /* default: only keys already known */
	KNOWN_HOSTS_STRICT_ACCEPT_NEW, /* unknown hosts are added, changed keys refused */
	KNOWN_HOSTS_STRICT_NO,         /* unknown hosts accepted, not recorded */
} known_hosts_policy;

typedef enum {
	KNOWN_HOSTS_MATCH = 0,  /* the offered key is listed for this host */
	KNOWN_HOSTS_MISMATCH,   /* another key of the same type is listed: refused */
	KNOWN_HOSTS_NOT_FOUND,  /* no key of this type is listed for this host */
	KNOWN_HOSTS_REVOKED,    /* the offered key is listed "@revoked": refused */
	KNOWN_HOSTS_ERROR,      /* bad arguments, bad key blob, unreadable file */
} known_hosts_result;

/* One known_hosts file's contents.  text need not be NUL-terminated and may
 * hold any bytes; path is only used in messages. */
typedef struct {
	const char *path;
	const char *text;
	size_t len;
} known_hosts_file;

#define KNOWN_HOSTS_NO_FILE ((size_t)-1)
/* "SHA256:" + 43 base64 characters + NUL */
#define KNOWN_HOSTS_FINGERPRINT_SIZE 51
#define KNOWN_HOSTS_MESSAGE_SIZE 1024
#define KNOWN_HOSTS_KEY_TYPE_SIZE 64

typedef struct {
	known_hosts_result result;
	bool accept;        /* connect?  result and policy together decide */
	bool added;         /* accept-new appended the key to a user file */
	/* The entry that decided: the matching, other (MISMATCH), revoking, or
	 * added line; for NOT_FOUND a line holding a key of another type for
	 * this host, if any.  file indexes the list given (KNOWN_HOSTS_NO_FILE
	 * when none); line counts from 1. */
	size_t file;
	size_t line;
	char key_type[KNOWN_HOSTS_KEY_TYPE_SIZE]; /* offered key's type as the blob names it, e.g. "ssh-ed25519" */
	char fingerprint[KNOWN_HOSTS_FINGERPRINT_SIZE]; /* as ssh-keygen -l prints it */
	char message[KNOWN_HOSTS_MESSAGE_SIZE];         /* one line a person can act on */
} known_hosts_verdict;

/* "SHA256:<unpadded base64 of SHA-256(blob)>", the way OpenSSH prints
 * fingerprints.  Returns 0, or -1 (out "" if it has room) when out is
 * smaller than KNOWN_HOSTS_FINGERPRINT_SIZE or libcrypto fails. */
int known_hosts_fingerprint(const unsigned char *blob, size_t blob_len, char *out, size_t out_size);

/* Pure lookup of a host key in the given files (user files first, then
 * system files, as OpenSSH loads them).  The key type is read from the blob
 * itself (the SSH wire encoding that libssh2_session_hostkey returns), which
 * is also what known_hosts lines name ("ssh-rsa" for RSA keys whatever
 * signature algorithm was negotiated).  Fills *v with the result, the
 * policy's decision (v->accept; v->added stays false: writing is the
 * known_hosts object's job) and a message, and returns v->result.
 * Precedence: REVOKED > MATCH > MISMATCH > NOT_FOUND. */
known_hosts_result known_hosts_verify_text(const known_hosts_file *files, size_t nfiles,
	const char *host, int port, const unsigned char *blob, size_t blob_len,
	known_hosts_policy policy, known_hosts_verdict *v);

/* Comma-separated LIBSSH2_METHOD_HOSTKEY preference list of the key types
 * the files hold for this host, in the order found, without duplicates,
 * e.g. "ssh-ed25519,ecdsa-sha2-nistp256"; "" when none is known (then leave
 * libssh2's default list alone).  "ssh-rsa" entries are listed as
 * "rsa-sha2-512,rsa-sha2-256,ssh-rsa": the same key, SHA-2 signatures first
 * since OpenSSH >= 8.8 servers refuse SHA-1 ones.  When supported is not
 * NULL, only the n_supported names in it are listed: libssh2 1.10's
 * libssh2_session_method_pref drops unknown names with an overlapping
 * memcpy (undefined behaviour, caught by ASan), so it must only ever be
 * given names it supports (it also skips the name after one it drops, so
 * an unsupported name can survive and fail the handshake).  Revoked and CA
 * lines are not listed.  Returns the number of names listed, or -1 (and ""
 * when len > 0) on a bad host or port or when the list does not fit. */
int known_hosts_key_types_text(const known_hosts_file *files, size_t nfiles,
	const char *host, int port, const char *const *supported, size_t n_supported,
	char *method_list, size_t len);

/* ---- the file-reading wrapper ---------------------------------------- */

typedef struct known_hosts known_hosts;

/* Load known_hosts files.  user_files == NULL means OpenSSH's defaults
 * (~/.ssh/known_hosts, ~/.ssh/known_hosts2); global_files == NULL means
 * /etc/ssh/ssh_known_hosts, /etc/ssh/ssh_known_hosts2.  A leading "~/" is
 * expanded from $HOME (else the password database); "none" is skipped, as
 * in ssh_config.  Missing files are normal.  A file that exists but cannot
 * be read is remembered: a key then not found anywhere is an ERROR, not
 * NOT_FOUND, since the unreadable file might list it as changed or revoked.
 * Also asks libssh2 (call libssh2_init first) which host key algorithms it
 * supports, for known_hosts_key_types.  Returns NULL only when memory runs
 * out.  Free with known_hosts_free. */
known_hosts *known_hosts_load(const char *const *user_files, size_t n_user,
	const char *const *global_files, size_t n_global);
void known_hosts_free(known_hosts *kh);

/* The files in the order they are searched (user files first), for
 * known_hosts_verdict.file. */
size_t known_hosts_file_count(const known_hosts *kh);
const char *known_hosts_file_path(const known_hosts *kh, size_t i);

/* known_hosts_key_types_text over the loaded files, restricted to the host
 * key algorithms this libssh2 supports (asked once, at load time).  Use
 * before the handshake:
 *   if (known_hosts_key_types(kh, host, port, list, sizeof list) > 0)
 *       libssh2_session_method_pref(s, LIBSSH2_METHOD_HOSTKEY, list);
 * 0 and "" when nothing usable is known: keep libssh2's default list. */
int known_hosts_key_types(const known_hosts *kh, const char *host, int port,
	char *method_list, size_t len);

/* Verify an offered key and apply the policy.  Files changed on disk since
 * they were read are read again first (a person who ran ssh-keygen -R after
 * a MISMATCH should not have to restart synctop).  Under accept-new a
 * NOT_FOUND key is appended as "host type base64" ("[host]:port ..." for a
 * port other than 22) to the first user file that can be written, creating
 * it 0600 and its directory 0700 if needed; if none can, the key is still
 * accepted, as OpenSSH does, and the message says it was not recorded.
 * Blocking local file I/O, done once per handshake. */
known_hosts_result known_hosts_check(known_hosts *kh, const char *host, int port,
	const unsigned char *blob, size_t blob_len, known_hosts_policy policy,
	known_hosts_verdict *v);

/* known_hosts_check with the key libssh2 received during the handshake
 * (libssh2_session_hostkey).  ERROR when the session has no host key yet. */
known_hosts_result known_hosts_check_session(known_hosts *kh, LIBSSH2_SESSION *session,
	const char *host, int port, known_hosts_policy policy, known_hosts_verdict *v);

/* StrictHostKeyChecking value as ssh_config spells it: yes, accept-new, no
 * ("off" = no; "ask" = yes, as there is nobody to ask).  0 or -1. */
int known_hosts_policy_parse(const char *s, known_hosts_policy *out);

/* "match", "mismatch", "not-found", "revoked", "error" */
const char *known_hosts_result_name(known_hosts_result r);

#endif
