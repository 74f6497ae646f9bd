/* known_hosts.c - verify SSH host keys against OpenSSH known_hosts files.
 *
 * Why not libssh2's knownhost API (libssh2_knownhost_readfile/checkp)?
 * In libssh2 1.10 it
 *   - stops reading a file at the first line it cannot parse, so one garbage
 *     line silently hides every key after it (a hidden changed key then
 *     reads as "not found", which accept-new would overwrite);
 *   - falls back to plain "host" entries when checking "[host]:port", so a
 *     key recorded for port 22 is compared against port 2201 (a false
 *     MISMATCH for containers sharing one address, where OpenSSH says
 *     NOT_FOUND);
 *   - knows nothing of "@revoked", "@cert-authority", wildcards or
 *     negation, reads "@revoked" as a host name, and cuts lines at 4 KiB;
 *   - cannot say which file and line held the other key.
 * So lines are parsed here, the way OpenSSH's hostfile.c does.  Hashed names
 * (HMAC-SHA1) and key fingerprints (SHA-256) come from libcrypto, the library
 * libssh2 itself is built on (libssh2 exports no digest functions); both are
 * tested against known vectors and against files that ssh-keygen wrote. */
#include <config.h>

#include "known_hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base64.h"
#include "ssh_unsupported.h"

/* Messages are cut to their buffer on purpose: a path can be longer. */
__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
}

/* ---- digests (libcrypto) ------------------------------------------------ */

#define SHA1_LEN 20
#define SHA256_LEN 32

/* RFC 2104 HMAC-SHA1, as OpenSSH's host_hash() uses it: key = salt, text =
 * name.  False only if libcrypto refuses (e.g. a FIPS policy without SHA-1):
 * the hashed entry then matches nothing. */
static bool hmac_sha1(const unsigned char key[SHA1_LEN], const void *msg, size_t msg_len,
	unsigned char out[SHA1_LEN])
{
	unsigned int out_len = 0;
	if (!HMAC(EVP_sha1(), key, SHA1_LEN, msg, msg_len, out, &out_len)) {
		return false;
	}
	return out_len == SHA1_LEN;
}

int known_hosts_fingerprint(const unsigned char *blob, size_t blob_len, char *out, size_t out_size)
{
	unsigned char digest[SHA256_LEN];
	unsigned int digest_len = 0;
	if (out_size > 0) {
		out[0] = '\0';
	}
	if (out_size < KNOWN_HOSTS_FINGERPRINT_SIZE ||
		EVP_Digest(blob, blob_len, digest, &digest_len, EVP_sha256(), NULL) != 1 ||
		digest_len != SHA256_LEN) {
		return -1;
	}
	memcpy(out, "SHA256:", 7);
	base64_encode(digest, sizeof digest, false, out + 7, out_size - 7);
	return 0;
}

/* ---- key blobs and type names ------------------------------------------- */

/* Largest key blob accepted from a known_hosts line: OpenSSH's 16384-bit RSA
 * limit gives about 2.1 KiB; a longer "key" is garbage and is skipped. */
#define KEY_BLOB_MAX 8192

/* Key type names are short ASCII words; this is also what keeps a hostile
 * type name from adding entries to a comma-separated method list. */
static bool type_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= KNOWN_HOSTS_KEY_TYPE_SIZE) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			(ch >= '0' && ch <= '9') || ch == '-' || ch == '@' || ch == '.' || ch == '_';
		if (!ok) {
			return false;
		}
	}
	return true;
}

static bool same_word(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && memcmp(a, b, an) == 0;
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);
	return n >= p && memcmp(s, prefix, p) == 0;
}

/* OpenSSH host certificates: "ssh-ed25519-cert-v01@openssh.com" etc. */
static bool is_cert_type(const char *type, size_t n)
{
	static const char suffix[] = "-cert-v01@openssh.com";
	size_t sn = sizeof suffix - 1;
	return n > sn && memcmp(type + n - sn, suffix, sn) == 0;
}

/* How many SSH strings/mpints a public key blob of this type holds, type
 * name included (RFC 4253 6.6, RFC 5656 3.1, RFC 8709 4, PROTOCOL.u2f);
 * 0 = unknown type or a certificate: then at least 2. */
static size_t blob_fields(const char *type, size_t n)
{
	if (is_cert_type(type, n)) {
		return 0;
	}
	if (same_word(type, n, "ssh-ed25519", 11)) {
		return 2;
	}
	if (same_word(type, n, "ssh-rsa", 7) || has_prefix(type, n, "ecdsa-sha2-") ||
		same_word(type, n, "sk-ssh-ed25519@openssh.com", 26)) {
		return 3;
	}
	if (has_prefix(type, n, "sk-ecdsa-sha2-")) {
		return 4;
	}
	if (same_word(type, n, "ssh-dss", 7)) {
		return 5;
	}
	return 0;
}

static uint32_t load_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* The SSH wire encoding of a public key: its type name as an SSH string
 * (uint32 length, bytes), then more strings that fill the blob exactly.
 * Checking that shape means a truncated or corrupted known_hosts line is
 * skipped as OpenSSH skips it, instead of reading as a changed key. */
static bool blob_type(const unsigned char *blob, size_t len, const char **name, size_t *name_len)
{
	if (len < 4) {
		return false;
	}
	uint32_t n = load_be32(blob);
	if (n > len - 4 || !type_name_ok((const char *)blob + 4, n)) {
		return false;
	}
	size_t want = blob_fields((const char *)blob + 4, n);
	size_t fields = 0, pos = 0;
	while (pos < len) {
		if (len - pos < 4 || load_be32(blob + pos) > len - pos - 4) {
			return false;
		}
		pos += 4 + load_be32(blob + pos);
		fields++;
	}
	if (want ? fields != want : fields < 2) {
		return false;
	}
	/* an Ed25519 public key is 32 bytes */
	if (same_word((const char *)blob + 4, n, "ssh-ed25519", 11) && len != 4 + 11 + 4 + 32) {
		return false;
	}
	*name = (const char *)blob + 4;
	*name_len = n;
	return true;
}

/* OpenSSH reports a changed key when a key of the same "plain" type is
 * listed (sshkey_type_plain): all ECDSA curves are one type there. */
static bool same_family(const char *a, size_t an, const char *b, size_t bn)
{
	if (has_prefix(a, an, "ecdsa-sha2-") && has_prefix(b, bn, "ecdsa-sha2-")) {
		return true;
	}
	return same_word(a, an, b, bn);
}

/* The word ssh-keygen -l and ssh print for a key type. */
static const char *type_label(const char *type)
{
	static const struct {
		const char *prefix;
		const char *label;
	} labels[] = {
		{"ssh-ed25519", "ED25519"},
		{"ecdsa-sha2-", "ECDSA"},
		{"ssh-rsa", "RSA"},
		{"ssh-dss", "DSA"},
		{"sk-ecdsa-sha2-", "ECDSA-SK"},
		{"sk-ssh-ed25519", "ED25519-SK"},
	};
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		if (has_prefix(type, strlen(type), labels[i].prefix)) {
			return labels[i].label;
		}
	}
	return type;
}

/* ---- known_hosts lines ----------------------------------------------------- */

enum { MARK_NONE, MARK_CA, MARK_REVOKED };

typedef struct {
	int marker;
	const char *hosts;
	size_t hosts_len;
	const char *type;
	size_t type_len;
	const char *key;
	size_t key_len;
	size_t file;
	size_t line;
} kh_entry;

typedef struct {
	const known_hosts_file *files;
	size_t nfiles;
	size_t file;
	size_t pos;
	size_t line;
} kh_iter;

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

static bool next_token(const char **p, const char *end, const char **tok, size_t *tok_len)
{
	const char *s = *p;
	while (s < end && is_blank(*s)) {
		s++;
	}
	const char *t = s;
	while (s < end && !is_blank(*s)) {
		s++;
	}
	*p = s;
	*tok = t;
	*tok_len = (size_t)(s - t);
	return *tok_len > 0;
}

/* One line, without its newline.  False for blank lines, comments, unknown
 * markers and lines missing a field: OpenSSH skips those too. */
static bool parse_line(const char *s, size_t n, kh_entry *e)
{
	const char *end = s + n;
	const char *tok;
	size_t len;
	if (n > 0 && end[-1] == '\r') {
		end--;
	}
	if (!next_token(&s, end, &tok, &len) || tok[0] == '#') {
		return false;
	}
	e->marker = MARK_NONE;
	if (tok[0] == '@') {
		if (same_word(tok, len, "@cert-authority", 15)) {
			e->marker = MARK_CA;
		} else if (same_word(tok, len, "@revoked", 8)) {
			e->marker = MARK_REVOKED;
		} else {
			return false;
		}
		if (!next_token(&s, end, &tok, &len)) {
			return false;
		}
	}
	e->hosts = tok;
	e->hosts_len = len;
	if (!next_token(&s, end, &e->type, &e->type_len) ||
		!next_token(&s, end, &e->key, &e->key_len)) {
		return false;
	}
	return true;
}

static bool iter_next(kh_iter *it, kh_entry *e)
{
	while (it->file < it->nfiles) {
		const known_hosts_file *f = &it->files[it->file];
		const char *text = f->text ? f->text : "";
		size_t len = f->text ? f->len : 0;
		if (it->pos >= len) {
			it->file++;
			it->pos = 0;
			it->line = 0;
			continue;
		}
		const char *start = text + it->pos;
		const char *nl = memchr(start, '\n', len - it->pos);
		size_t line_len = nl ? (size_t)(nl - start) : len - it->pos;
		it->pos += line_len + 1;
		it->line++;
		if (parse_line(start, line_len, e)) {
			e->file = it->file;
			e->line = it->line;
			return true;
		}
	}
	return false;
}

static char ascii_lower(char ch)
{
	return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
}

/* '*' and '?' glob, case-insensitive (name is already lower case).
 * Iterative with one backtrack point, so a line full of '*' costs
 * O(pattern x name), not exponential time. */
static bool glob_match(const char *p, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0;
	size_t star = SIZE_MAX, star_s = 0;
	while (si < slen) {
		if (pi < plen && p[pi] == '*') {
			star = pi++;
			star_s = si;
		} else if (pi < plen && (p[pi] == '?' || ascii_lower(p[pi]) == s[si])) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++star_s;
		} else {
			return false;
		}
	}
	while (pi < plen && p[pi] == '*') {
		pi++;
	}
	return pi == plen;
}

/* OpenSSH match_hostname(): comma list, a matching "!pattern" vetoes. */
static bool pattern_list_match(const char *list, size_t len, const char *name, size_t name_len)
{
	bool got = false;
	size_t i = 0;
	while (i <= len) {
		size_t j = i;
		while (j < len && list[j] != ',') {
			j++;
		}
		const char *pat = list + i;
		size_t plen = j - i;
		bool negated = plen > 0 && pat[0] == '!';
		if (negated) {
			pat++;
			plen--;
		}
		if (glob_match(pat, plen, name, name_len)) {
			if (negated) {
				return false;
			}
			got = true;
		}
		i = j + 1;
	}
	return got;
}

/* "|1|base64(salt)|base64(HMAC-SHA1(salt, name))", one name per field. */
static bool hashed_match(const char *field, size_t len, const char *name, size_t name_len)
{
	if (len < 3 || memcmp(field, "|1|", 3) != 0) {
		return false;
	}
	const char *salt = field + 3;
	const char *end = field + len;
	const char *bar = memchr(salt, '|', (size_t)(end - salt));
	unsigned char salt_raw[SHA1_LEN], hash_raw[SHA1_LEN], mac[SHA1_LEN];
	size_t salt_len, hash_len;
	if (!bar || !base64_decode(salt, (size_t)(bar - salt), salt_raw, sizeof salt_raw, &salt_len) ||
		salt_len != SHA1_LEN ||
		!base64_decode(bar + 1, (size_t)(end - bar - 1), hash_raw, sizeof hash_raw, &hash_len) ||
		hash_len != SHA1_LEN) {
		return false;
	}
	return hmac_sha1(salt_raw, name, name_len, mac) && memcmp(mac, hash_raw, SHA1_LEN) == 0;
}

static bool host_match(const kh_entry *e, const char *name, size_t name_len)
{
	if (e->hosts[0] == '|') {
		return hashed_match(e->hosts, e->hosts_len, name, name_len);
	}
	return pattern_list_match(e->hosts, e->hosts_len, name, name_len);
}

/* Decode an entry's key; valid only if its blob names the same type as the
 * line does (OpenSSH's sshkey_read refuses the line otherwise). */
static bool entry_key(const kh_entry *e, unsigned char *buf, size_t cap, size_t *len)
{
	const char *t;
	size_t tn;
	return base64_decode(e->key, e->key_len, buf, cap, len) && blob_type(buf, *len, &t, &tn) &&
		same_word(t, tn, e->type, e->type_len);
}

/* ---- host names ---------------------------------------------------------- */

#define HOST_MAX 255

typedef struct {
	char host[HOST_MAX + 1];     /* lower case */
	char lookup[HOST_MAX + 10];  /* "host" for port 22, else "[host]:port" */
	char display[HOST_MAX + 10]; /* "host", "host:port", "[v6]:port" */
	size_t lookup_len;
} host_name;

/* The host ends up in known_hosts lines and in a suggested shell command, so
 * only characters of DNS names and IP literals (with a %zone) are allowed. */
static bool host_name_make(const char *host, int port, host_name *h)
{
	size_t n = host ? strnlen(host, HOST_MAX + 1) : 0;
	if (n == 0 || n > HOST_MAX || port < 1 || port > 65535) {
		return false;
	}
	bool colon = false;
	for (size_t i = 0; i < n; i++) {
		char ch = ascii_lower(host[i]);
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
			ch == '.' || ch == '_' || ch == ':' || ch == '%';
		if (!ok) {
			return false;
		}
		colon = colon || ch == ':';
		h->host[i] = ch;
	}
	h->host[n] = '\0';
	if (port == 22) {
		snprintf(h->lookup, sizeof h->lookup, "%s", h->host);
		snprintf(h->display, sizeof h->display, "%s", h->host);
	} else {
		snprintf(h->lookup, sizeof h->lookup, "[%s]:%d", h->host, port);
		snprintf(h->display, sizeof h->display, colon ? "[%s]:%d" : "%s:%d", h->host, port);
	}
	h->lookup_len = strlen(h->lookup);
	return true;
}

/* Single-quote for sh: 'it'\''s'.  Truncates safely. */
static void shell_quote(const char *s, char *out, size_t cap)
{
	size_t o = 0;
	if (cap < 3) {
		if (cap > 0) {
			out[0] = '\0';
		}
		return;
	}
	out[o++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t plen = piece ? 4 : 1;
		if (o + plen + 2 > cap) {
			break;
		}
		if (piece) {
			memcpy(out + o, piece, plen);
		} else {
			out[o] = *s;
		}
		o += plen;
	}
	out[o++] = '\'';
	out[o] = '\0';
}

/* ---- the pure check ----------------------------------------------------------- */

typedef struct {
	size_t file;
	size_t line;
} kh_pos;

static const kh_pos no_pos = {KNOWN_HOSTS_NO_FILE, 0};

static const char *file_path(const known_hosts_file *files, size_t nfiles, size_t i)
{
	if (i >= nfiles || !files[i].path) {
		return "(known_hosts)";
	}
	return files[i].path;
}

static void verdict_reset(known_hosts_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->result = KNOWN_HOSTS_ERROR;
	v->file = KNOWN_HOSTS_NO_FILE;
}

static known_hosts_result verdict_error(known_hosts_verdict *v, const char *what)
{
	v->result = KNOWN_HOSTS_ERROR;
	v->accept = false;
	say(v->message, sizeof v->message, "host key check failed: %s", what);
	return v->result;
}

static bool policy_accepts(known_hosts_result r, known_hosts_policy policy)
{
	if (r == KNOWN_HOSTS_MATCH) {
		return true;
	}
	return r == KNOWN_HOSTS_NOT_FOUND && (policy == KNOWN_HOSTS_STRICT_ACCEPT_NEW ||
		policy == KNOWN_HOSTS_STRICT_NO);
}

static void set_pos(known_hosts_verdict *v, kh_pos p)
{
	v->file = p.file;
	v->line = p.line;
}

known_hosts_result known_hosts_verify_text(const known_hosts_file *files, size_t nfiles,
	const char *host, int port, const unsigned char *blob, size_t blob_len,
	known_hosts_policy policy, known_hosts_verdict *v)
{
	host_name h;
	const char *otype;
	size_t otype_len;
	verdict_reset(v);
	if (!host_name_make(host, port, &h)) {
		return verdict_error(v, "invalid host name or port");
	}
	if (!blob || !blob_type(blob, blob_len, &otype, &otype_len)) {
		return verdict_error(v, "the offered host key is malformed");
	}
	memcpy(v->key_type, otype, otype_len);
	v->key_type[otype_len] = '\0';
	known_hosts_fingerprint(blob, blob_len, v->fingerprint, sizeof v->fingerprint);
	if (is_cert_type(otype, otype_len)) {
		/* Verifying one needs the @cert-authority support we do not have;
		 * the transport avoids this by offering only known key types. */
		char what[KNOWN_HOSTS_MESSAGE_SIZE / 2];
		say(what, sizeof what, "%s offered a host certificate (%s), which synctop does not "
			"support: list its plain host key in known_hosts", h.display, v->key_type);
		return verdict_error(v, what);
	}
	if (policy != KNOWN_HOSTS_STRICT_YES && policy != KNOWN_HOSTS_STRICT_ACCEPT_NEW &&
		policy != KNOWN_HOSTS_STRICT_NO) {
		return verdict_error(v, "invalid StrictHostKeyChecking policy");
	}

	kh_pos revoked = no_pos, match = no_pos, changed = no_pos, other = no_pos, ca = no_pos;
	char other_type[sizeof v->key_type] = "";
	unsigned char *key = malloc(KEY_BLOB_MAX);
	if (!key) {
		return verdict_error(v, "out of memory");
	}
	kh_iter it = {.files = files, .nfiles = files ? nfiles : 0};
	kh_entry e;
	while (iter_next(&it, &e)) {
		size_t key_len;
		if (e.marker == MARK_CA) {
			/* remembered to say why a host vouched for only by a CA is
			 * not known: its key is never compared */
			if (ca.file == KNOWN_HOSTS_NO_FILE && host_match(&e, h.lookup, h.lookup_len)) {
				ca = (kh_pos){e.file, e.line};
			}
			continue;
		}
		if (!host_match(&e, h.lookup, h.lookup_len) || !entry_key(&e, key, KEY_BLOB_MAX, &key_len)) {
			continue;
		}
		kh_pos here = {e.file, e.line};
		bool equal = key_len == blob_len && memcmp(key, blob, blob_len) == 0;
		if (e.marker == MARK_REVOKED) {
			if (equal && revoked.file == KNOWN_HOSTS_NO_FILE) {
				revoked = here;
			}
		} else if (equal) {
			if (match.file == KNOWN_HOSTS_NO_FILE) {
				match = here;
			}
		} else if (same_family(e.type, e.type_len, otype, otype_len)) {
			if (changed.file == KNOWN_HOSTS_NO_FILE) {
				changed = here;
			}
		} else if (other.file == KNOWN_HOSTS_NO_FILE) {
			other = here;
			memcpy(other_type, e.type, e.type_len);
			other_type[e.type_len] = '\0';
		}
	}
	free(key);

	const char *label = type_label(v->key_type);
	if (revoked.file != KNOWN_HOSTS_NO_FILE) {
		v->result = KNOWN_HOSTS_REVOKED;
		set_pos(v, revoked);
		say(v->message, sizeof v->message,
			"host key for %s is REVOKED: offered %s key %s is listed @revoked at %s:%zu. "
			"Refusing to connect.",
			h.display, label, v->fingerprint, file_path(files, nfiles, v->file), v->line);
	} else if (match.file != KNOWN_HOSTS_NO_FILE) {
		v->result = KNOWN_HOSTS_MATCH;
		set_pos(v, match);
		say(v->message, sizeof v->message, "host key for %s verified: %s key %s at %s:%zu",
			h.display, label, v->fingerprint, file_path(files, nfiles, v->file), v->line);
	} else if (changed.file != KNOWN_HOSTS_NO_FILE) {
		char qhost[sizeof h.lookup + 8], qpath[512];
		v->result = KNOWN_HOSTS_MISMATCH;
		set_pos(v, changed);
		shell_quote(h.lookup, qhost, sizeof qhost);
		shell_quote(file_path(files, nfiles, v->file), qpath, sizeof qpath);
		say(v->message, sizeof v->message,
			"host key for %s has CHANGED: offered %s key %s; known_hosts says otherwise at "
			"%s:%zu. Refusing to connect. If the node was reinstalled, remove the old key "
			"with: ssh-keygen -R %s -f %s",
			h.display, label, v->fingerprint, file_path(files, nfiles, v->file), v->line,
			qhost, qpath);
	} else {
		char also[768] = "";
		v->result = KNOWN_HOSTS_NOT_FOUND;
		if (other.file != KNOWN_HOSTS_NO_FILE) {
			/* OpenSSH treats a new key type as a new host, but it is worth
			 * saying: the transport restricts key types to the known ones,
			 * so getting here means the server no longer offers them. */
			set_pos(v, other);
			say(also, sizeof also, " (known_hosts only lists a key of type %s for it, at %s:%zu)",
				type_label(other_type), file_path(files, nfiles, v->file), v->line);
		}
		if (other.file == KNOWN_HOSTS_NO_FILE && ca.file != KNOWN_HOSTS_NO_FILE) {
			/* the only entry for it is a CA line: OpenSSH would check the
			 * host's certificate against it */
			say(also, sizeof also, " (known_hosts lists it only under @cert-authority, at %s:%zu: %s)",
				file_path(files, nfiles, ca.file), ca.line, SSH_UNSUPPORTED_HOSTCERT_FIX);
		}
		if (policy == KNOWN_HOSTS_STRICT_YES) {
			say(v->message, sizeof v->message,
				"host key for %s is not known: offered %s key %s%s. Refusing to connect "
				"(StrictHostKeyChecking=yes): check the fingerprint on the node and add the "
				"key to known_hosts, or use StrictHostKeyChecking=accept-new.",
				h.display, label, v->fingerprint, also);
		} else {
			say(v->message, sizeof v->message,
				"host key for %s is not known: offered %s key %s%s; accepted without "
				"recording it (StrictHostKeyChecking=%s)",
				h.display, label, v->fingerprint, also,
				policy == KNOWN_HOSTS_STRICT_NO ? "no" : "accept-new");
		}
	}
	v->accept = policy_accepts(v->result, policy);
	return v->result;
}

/* ---- key types for LIBSSH2_METHOD_HOSTKEY -------------------------------------- */

static bool list_has(const char *list, size_t used, const char *name, size_t n)
{
	size_t i = 0;
	while (i < used) {
		size_t j = i;
		while (j < used && list[j] != ',') {
			j++;
		}
		if (same_word(list + i, j - i, name, n)) {
			return true;
		}
		i = j + 1;
	}
	return false;
}

/* Appends ",name" unless present.  False when it does not fit. */
static bool list_add(char *list, size_t cap, size_t *used, int *count, const char *name, size_t n)
{
	if (list_has(list, *used, name, n)) {
		return true;
	}
	size_t need = n + (*used > 0 ? 1 : 0);
	if (*used + need + 1 > cap) {
		return false;
	}
	if (*used > 0) {
		list[(*used)++] = ',';
	}
	memcpy(list + *used, name, n);
	*used += n;
	list[*used] = '\0';
	(*count)++;
	return true;
}

static bool supported_has(const char *const *supported, size_t n, const char *name, size_t len)
{
	if (!supported) {
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		if (supported[i] && same_word(supported[i], strlen(supported[i]), name, len)) {
			return true;
		}
	}
	return false;
}

int known_hosts_key_types_text(const known_hosts_file *files, size_t nfiles,
	const char *host, int port, const char *const *supported, size_t n_supported,
	char *method_list, size_t len)
{
	static const char *const rsa_names[] = {"rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"};
	host_name h;
	if (!method_list || len == 0) {
		return -1;
	}
	method_list[0] = '\0';
	if (!host_name_make(host, port, &h)) {
		return -1;
	}
	unsigned char *key = malloc(KEY_BLOB_MAX);
	if (!key) {
		return -1;
	}
	size_t used = 0;
	int count = 0;
	bool fits = true;
	kh_iter it = {.files = files, .nfiles = files ? nfiles : 0};
	kh_entry e;
	while (fits && iter_next(&it, &e)) {
		size_t key_len;
		if (e.marker != MARK_NONE || !host_match(&e, h.lookup, h.lookup_len) ||
			!entry_key(&e, key, KEY_BLOB_MAX, &key_len)) {
			continue;
		}
		/* RSA host keys are named ssh-rsa in known_hosts whatever
		 * signature hash is negotiated. */
		bool rsa = same_word(e.type, e.type_len, "ssh-rsa", 7);
		size_t names = rsa ? 3 : 1;
		for (size_t i = 0; fits && i < names; i++) {
			const char *name = rsa ? rsa_names[i] : e.type;
			size_t name_len = rsa ? strlen(name) : e.type_len;
			if (supported_has(supported, n_supported, name, name_len)) {
				fits = list_add(method_list, len, &used, &count, name, name_len);
			}
		}
	}
	free(key);
	if (!fits) {
		method_list[0] = '\0';
		return -1;
	}
	return count;
}

/* ---- the file-reading wrapper ------------------------------------------------- */

/* A known_hosts file larger than this is refused rather than read. */
#define FILE_MAX (64u << 20)

typedef struct {
	char *path;
	char *text;      /* contents, NULL when the file does not exist */
	size_t len;
	int read_errno;  /* 0, or why an existing file could not be read */
	bool seen;       /* st below describes the file as read */
	struct stat st;
} kh_source;

struct known_hosts {
	kh_source *src;
	size_t n;
	size_t n_user;          /* src[0 .. n_user-1] are user files, in order */
	known_hosts_file *view; /* the pure functions' view of src */
	char **algs;            /* host key algorithms this libssh2 supports */
	size_t n_algs;
};

static const char *const default_user_files[] = {"~/.ssh/known_hosts", "~/.ssh/known_hosts2"};
static const char *const default_global_files[] = {"/etc/ssh/ssh_known_hosts",
	"/etc/ssh/ssh_known_hosts2"};

static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	if (home && home[0]) {
		return home;
	}
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : NULL;
}

/* malloc'd path with a leading "~" or "~/" expanded; NULL when there is no
 * home directory or memory. */
static char *expand_path(const char *p)
{
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
		const char *home = home_dir();
		if (!home) {
			return NULL;
		}
		size_t n = strlen(home) + strlen(p);
		char *out = malloc(n);
		if (out) {
			snprintf(out, n, "%s%s", home, p + 1);
		}
		return out;
	}
	return strdup(p);
}

/* Read the whole file.  Missing -> text NULL, errno 0. */
static void source_read(kh_source *s)
{
	free(s->text);
	s->text = NULL;
	s->len = 0;
	s->read_errno = 0;
	s->seen = false;
	/* O_NONBLOCK: a FIFO planted at this path must not hang the event loop. */
	int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			s->read_errno = errno;
		}
		return;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		s->read_errno = errno;
		close(fd);
		return;
	}
	/* Character devices allowed for UserKnownHostsFile=/dev/null. */
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		s->read_errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		return;
	}
	size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size < FILE_MAX ?
		(size_t)st.st_size + 1 : 4096;
	char *buf = malloc(cap);
	size_t n = 0;
	while (buf) {
		if (n == cap) {
			if (cap >= FILE_MAX) {
				s->read_errno = EFBIG;
				break;
			}
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				break;
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got < 0) {
			s->read_errno = errno;
			break;
		}
		if (got == 0) {
			s->text = buf;
			s->len = n;
			s->st = st;
			s->seen = true;
			buf = NULL;
			break;
		}
		n += (size_t)got;
	}
	if (buf) {
		free(buf);
		if (s->read_errno == 0) {
			s->read_errno = ENOMEM;
		}
	}
	close(fd);
}

/* Re-read a file whose identity, size or mtime changed since it was read. */
static void source_refresh(kh_source *s)
{
	struct stat st;
	if (stat(s->path, &st) != 0) {
		if (s->text || s->read_errno) {
			source_read(s);
		}
		return;
	}
	if (!s->seen || st.st_dev != s->st.st_dev || st.st_ino != s->st.st_ino ||
		st.st_size != s->st.st_size || st.st_mtim.tv_sec != s->st.st_mtim.tv_sec ||
		st.st_mtim.tv_nsec != s->st.st_mtim.tv_nsec) {
		source_read(s);
	}
}

static void view_update(known_hosts *kh)
{
	for (size_t i = 0; i < kh->n; i++) {
		kh->view[i].path = kh->src[i].path;
		kh->view[i].text = kh->src[i].text;
		kh->view[i].len = kh->src[i].len;
	}
}

static void add_sources(known_hosts *kh, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!paths[i] || strcmp(paths[i], "none") == 0 || paths[i][0] == '\0') {
			continue;
		}
		char *p = expand_path(paths[i]);
		if (!p) {
			/* "~/" without a home directory: nothing to read there. */
			continue;
		}
		kh_source *s = &kh->src[kh->n++];
		memset(s, 0, sizeof *s);
		s->path = p;
		source_read(s);
	}
}

/* libssh2_session_supported_algs needs a session, and the transport wants
 * the method list before it has made one, so ask a throwaway session once.
 * False only when memory runs out; a libssh2 that will not say leaves
 * n_algs 0. */
static bool load_supported_algs(known_hosts *kh)
{
	LIBSSH2_SESSION *s = libssh2_session_init();
	if (!s) {
		return true;
	}
	const char **algs = NULL;
	int n = libssh2_session_supported_algs(s, LIBSSH2_METHOD_HOSTKEY, &algs);
	bool ok = true;
	if (n > 0 && algs) {
		kh->algs = calloc((size_t)n, sizeof *kh->algs);
		ok = kh->algs != NULL;
		for (int i = 0; ok && i < n; i++) {
			if (algs[i]) {
				kh->algs[kh->n_algs] = strdup(algs[i]);
				ok = kh->algs[kh->n_algs++] != NULL;
			}
		}
		libssh2_free(s, (void *)algs);
	}
	libssh2_session_free(s);
	return ok;
}

known_hosts *known_hosts_load(const char *const *user_files, size_t n_user,
	const char *const *global_files, size_t n_global)
{
	if (!user_files) {
		user_files = default_user_files;
		n_user = sizeof default_user_files / sizeof default_user_files[0];
	}
	if (!global_files) {
		global_files = default_global_files;
		n_global = sizeof default_global_files / sizeof default_global_files[0];
	}
	known_hosts *kh = calloc(1, sizeof *kh);
	size_t total = n_user + n_global;
	if (!kh) {
		return NULL;
	}
	kh->src = calloc(total ? total : 1, sizeof *kh->src);
	kh->view = calloc(total ? total : 1, sizeof *kh->view);
	if (!kh->src || !kh->view) {
		known_hosts_free(kh);
		return NULL;
	}
	add_sources(kh, user_files, n_user);
	kh->n_user = kh->n;
	add_sources(kh, global_files, n_global);
	view_update(kh);
	if (!load_supported_algs(kh)) {
		known_hosts_free(kh);
		return NULL;
	}
	return kh;
}

void known_hosts_free(known_hosts *kh)
{
	if (!kh) {
		return;
	}
	for (size_t i = 0; i < kh->n; i++) {
		free(kh->src[i].path);
		free(kh->src[i].text);
	}
	for (size_t i = 0; i < kh->n_algs; i++) {
		free(kh->algs[i]);
	}
	free(kh->algs);
	free(kh->src);
	free(kh->view);
	free(kh);
}

size_t known_hosts_file_count(const known_hosts *kh)
{
	return kh ? kh->n : 0;
}

const char *known_hosts_file_path(const known_hosts *kh, size_t i)
{
	return kh && i < kh->n ? kh->src[i].path : NULL;
}

int known_hosts_key_types(const known_hosts *kh, const char *host, int port,
	char *method_list, size_t len)
{
	if (!kh || kh->n_algs == 0) {
		/* With library support unknown, no list is safer than a list
		 * holding a name libssh2 lacks (see known_hosts_key_types_text). */
		if (method_list && len > 0) {
			method_list[0] = '\0';
		}
		return kh ? 0 : -1;
	}
	return known_hosts_key_types_text(kh->view, kh->n, host, port,
		(const char *const *)kh->algs, kh->n_algs, method_list, len);
}

/* mkdir the file's directory (only the last level, as OpenSSH does for
 * ~/.ssh) with 0700 when it is missing. */
static int ensure_parent_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path) {
		return 0;
	}
	size_t n = (size_t)(slash - path);
	char *dir = malloc(n + 1);
	if (!dir) {
		return ENOMEM;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	int err = 0;
	struct stat st;
	if (stat(dir, &st) != 0) {
		err = errno == ENOENT && mkdir(dir, 0700) == 0 ? 0 : errno;
	}
	free(dir);
	return err;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return w < 0 ? errno : EIO;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Append one line, first ending a last line that lacks its newline.
 * Returns 0 or an errno. */
static int append_line(const char *path, const char *line, size_t len)
{
	int err = ensure_parent_dir(path);
	if (err) {
		return err;
	}
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0600);
	if (fd < 0) {
		return errno;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		err = errno;
	} else if (!S_ISREG(st.st_mode)) {
		err = EINVAL;
	} else if (st.st_size > 0) {
		char last;
		ssize_t got = pread(fd, &last, 1, st.st_size - 1);
		if (got != 1) {
			err = got < 0 ? errno : EIO;
		} else if (last != '\n') {
			err = write_all(fd, "\n", 1);
		}
	}
	if (!err) {
		err = write_all(fd, line, len);
	}
	if (close(fd) != 0 && !err) {
		err = errno;
	}
	return err;
}

static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		n += text[i] == '\n';
	}
	return n;
}

/* accept-new: record the key in the first user file that takes it. */
static void record_new_key(known_hosts *kh, const char *host, int port,
	const unsigned char *blob, size_t blob_len, known_hosts_verdict *v)
{
	host_name h;
	char why[256] = "no user known_hosts file is configured";
	size_t b64_cap = (blob_len + 2) / 3 * 4 + 1;
	size_t line_cap = sizeof h.lookup + sizeof v->key_type + b64_cap + 4;
	char *line = malloc(line_cap);
	if (!line || !host_name_make(host, port, &h)) {
		say(why, sizeof why, "out of memory");
		goto fail;
	}
	int n = snprintf(line, line_cap, "%s %s ", h.lookup, v->key_type);
	if (n < 0 || (size_t)n >= line_cap) {
		say(why, sizeof why, "host name too long");
		goto fail;
	}
	size_t used = (size_t)n;
	/* one byte kept back for the newline */
	size_t enc = base64_encode(blob, blob_len, true, line + used, line_cap - used - 1);
	if (enc == 0) {
		say(why, sizeof why, "key too large");
		goto fail;
	}
	used += enc;
	line[used++] = '\n';
	for (size_t i = 0; i < kh->n_user; i++) {
		kh_source *s = &kh->src[i];
		int err = append_line(s->path, line, used);
		if (err) {
			say(why, sizeof why, "%s: %s", s->path, strerror(err));
			continue;
		}
		source_read(s);
		view_update(kh);
		v->added = true;
		v->file = i;
		v->line = count_lines(s->text ? s->text : "", s->len);
		say(v->message, sizeof v->message,
			"host key for %s was not known: added %s key %s to %s:%zu "
			"(StrictHostKeyChecking=accept-new)",
			h.display, type_label(v->key_type), v->fingerprint, s->path, v->line);
		free(line);
		return;
	}
fail:
	free(line);
	say(v->message, sizeof v->message,
		"host key for %s was not known: accepted %s key %s but could not record it (%s)",
		host_name_make(host, port, &h) ? h.display : "?", type_label(v->key_type),
		v->fingerprint, why);
}

known_hosts_result known_hosts_check(known_hosts *kh, const char *host, int port,
	const unsigned char *blob, size_t blob_len, known_hosts_policy policy,
	known_hosts_verdict *v)
{
	if (!kh) {
		verdict_reset(v);
		return verdict_error(v, "no known_hosts loaded");
	}
	for (size_t i = 0; i < kh->n; i++) {
		source_refresh(&kh->src[i]);
	}
	view_update(kh);
	known_hosts_verify_text(kh->view, kh->n, host, port, blob, blob_len, policy, v);
	if (v->result != KNOWN_HOSTS_NOT_FOUND) {
		return v->result;
	}
	/* Fail closed: the unreadable file may hold a changed or revoked key. */
	for (size_t i = 0; i < kh->n; i++) {
		if (kh->src[i].read_errno) {
			char what[KNOWN_HOSTS_MESSAGE_SIZE / 2];
			say(what, sizeof what, "cannot read %s: %s", kh->src[i].path,
				strerror(kh->src[i].read_errno));
			return verdict_error(v, what);
		}
	}
	if (policy == KNOWN_HOSTS_STRICT_ACCEPT_NEW) {
		record_new_key(kh, host, port, blob, blob_len, v);
	}
	return v->result;
}

known_hosts_result known_hosts_check_session(known_hosts *kh, LIBSSH2_SESSION *session,
	const char *host, int port, known_hosts_policy policy, known_hosts_verdict *v)
{
	size_t len = 0;
	int type = 0;
	const char *key = session ? libssh2_session_hostkey(session, &len, &type) : NULL;
	if (!key || len == 0) {
		verdict_reset(v);
		return verdict_error(v, "the SSH session has no host key (handshake not done)");
	}
	return known_hosts_check(kh, host, port, (const unsigned char *)key, len, policy, v);
}

int known_hosts_policy_parse(const char *s, known_hosts_policy *out)
{
	if (!s) {
		return -1;
	}
	/* "ask" has nobody to ask here: it refuses unknown keys, like yes. */
	if (strcmp(s, "yes") == 0 || strcmp(s, "ask") == 0) {
		*out = KNOWN_HOSTS_STRICT_YES;
	} else if (strcmp(s, "accept-new") == 0) {
		*out = KNOWN_HOSTS_STRICT_ACCEPT_NEW;
	} else if (strcmp(s, "no") == 0 || strcmp(s, "off") == 0) {
		*out = KNOWN_HOSTS_STRICT_NO;
	} else {
		return -1;
	}
	return 0;
}

const char *known_hosts_result_name(known_hosts_result r)
{
	switch (r) {
	case KNOWN_HOSTS_MATCH:
		return "match";
	case KNOWN_HOSTS_MISMATCH:
		return "mismatch";
	case KNOWN_HOSTS_NOT_FOUND:
		return "not-found";
	case KNOWN_HOSTS_REVOKED:
		return "revoked";
	case KNOWN_HOSTS_ERROR:
		return "error";
	}
	return "error";
}
