/* ssh_config.c - read OpenSSH client configuration files and resolve the
 * options for one host (see ssh_config.h for what is supported).
 *
 * Loading turns the files into one flat list of entries in reading order:
 * file and include boundaries, Host/Match conditions and options, with
 * Include already spliced in.  parse_text() is pure (text in, entries out);
 * load_file() is the thin layer that opens, checks, globs and reads.
 * Resolving walks that list with ssh's "active" flag, so a config is loaded
 * once and resolved for thousands of hosts without touching the disk. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sanitize.h"
#include "ssh_config.h"
#include "ssh_match.h"
#include "ssh_unsupported.h"
#include "textfile.h"

#define MAX_DEPTH 16                     /* OpenSSH's READCONF_MAX_DEPTH */
#define MAX_FILES 256                    /* per load: bounds glob include loops */
#define FILE_MAX (4u << 20)              /* bytes per file */
#define TOTAL_MAX (64u << 20)            /* bytes per load */
#define MAX_WARNINGS 32

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

/* Keys are listed with the spelling ssh_config(5) gives them, which is also
 * how messages name them. */
static const struct {
	const char *name;
	key_id id;
} keys[] = {
	{"Host", K_HOST},
	{"Match", K_MATCH},
	{"Include", K_INCLUDE},
	{"HostName", K_HOSTNAME},
	{"User", K_USER},
	{"Port", K_PORT},
	{"IdentityFile", K_IDENTITY_FILE},
	{"IdentitiesOnly", K_IDENTITIES_ONLY},
	{"UserKnownHostsFile", K_KNOWN_HOSTS},
	{"GlobalKnownHostsFile", K_GLOBAL_KNOWN_HOSTS},
	{"HostKeyAlias", K_HOST_KEY_ALIAS},
	{"StrictHostKeyChecking", K_STRICT},
	{"ConnectTimeout", K_CONNECT_TIMEOUT},
	{"ServerAliveInterval", K_SERVER_ALIVE},
	{"ProxyCommand", K_PROXY_COMMAND},
	{"ProxyJump", K_PROXY_JUMP},
	{"CanonicalizeHostname", K_CANONICALIZE},
	{"CanonicalizePermittedCNAMEs", K_CANONICAL_CNAMES},
	{"RemoteCommand", K_REMOTE_COMMAND},
	{"BindAddress", K_BIND_ADDRESS},
	{"BindInterface", K_BIND_INTERFACE},
	{"KnownHostsCommand", K_KNOWN_HOSTS_COMMAND},
	{"RevokedHostKeys", K_REVOKED_HOST_KEYS},
	{"GSSAPIAuthentication", K_GSSAPI},
	{"CertificateFile", K_CERTIFICATE_FILE},
	{"PKCS11Provider", K_PKCS11},
	{"SecurityKeyProvider", K_SK_PROVIDER},
	{"IdentityAgent", K_IDENTITY_AGENT},
	{"AddressFamily", K_ADDRESS_FAMILY},
};

static const char *key_name(key_id id)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i].id == id) {
			return keys[i].name;
		}
	}
	return "?";
}

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
	char *warnings[MAX_WARNINGS];
	size_t nwarnings;
	size_t dropped_warnings;
	char more[64]; /* "... and N more" once warnings overflow */
	char home[SSH_PATH_LEN];       /* $HOME, "" when unset */
	char local_user[SSH_USER_LEN]; /* for %u and the default %r */
	char local_host[SSH_HOSTNAME_LEN];  /* %l: gethostname() */
	char local_short[SSH_HOSTNAME_LEN]; /* %L: up to the first dot */
	char uid[24];                       /* %i */
};

/* ------------------------------------------------------------------ helpers */

static void set_err(char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Errors and warnings quote values from the file: whatever bytes they hold
 * (bidi controls, invalid UTF-8) are shown as \xNN (sanitize_show). */
static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (!err || err_len == 0) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sanitize_show(buf, strlen(buf), err, err_len);
}

static void add_warning(ssh_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning(ssh_config *cfg, const char *fmt, ...)
{
	char raw[512], buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	sanitize_show(raw, strlen(raw), buf, sizeof buf);
	if (cfg->nwarnings < MAX_WARNINGS) {
		cfg->warnings[cfg->nwarnings] = strdup(buf);
		if (cfg->warnings[cfg->nwarnings]) {
			cfg->nwarnings++;
			return;
		}
	}
	cfg->dropped_warnings++;
	snprintf(cfg->more, sizeof cfg->more, "... and %zu more warnings", cfg->dropped_warnings);
}

static void entry_free(entry *e)
{
	free(e->argv);
	e->argv = NULL;
	e->argc = 0;
}

static void vec_free(entry_vec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		entry_free(&v->v[i]);
	}
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/* Append e (taking its argv).  On failure e's argv is freed. */
static int vec_push(entry_vec *v, entry *e)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		entry *bigger = realloc(v->v, cap * sizeof *bigger);
		if (!bigger) {
			entry_free(e);
			return -1;
		}
		v->v = bigger;
		v->cap = cap;
	}
	v->v[v->n++] = *e;
	e->argv = NULL;
	return 0;
}

static int push_marker(ssh_config *cfg, entry_kind kind, char *err, size_t err_len)
{
	entry e = {.kind = kind};
	if (vec_push(&cfg->entries, &e) != 0) {
		set_err(err, err_len, "out of memory");
		return -1;
	}
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f';
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ----------------------------------------------------------- value parsing */

static int parse_port(const char *s, int *port)
{
	long v = 0;
	if (!*s) {
		return -1;
	}
	for (; *s; s++) {
		if (*s < '0' || *s > '9') {
			return -1;
		}
		v = v * 10 + (*s - '0');
		if (v > 65535) {
			return -1;
		}
	}
	if (v < 1) {
		return -1;
	}
	*port = (int)v;
	return 0;
}

/* OpenSSH's convtime: "30", "30s", "1m30s", "2h", units s m h d w. */
static int parse_time(const char *s, int *out)
{
	long long total = 0;
	if (!*s) {
		return -1;
	}
	while (*s) {
		long long v = 0, mult = 1;
		if (*s < '0' || *s > '9') {
			return -1;
		}
		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (*s - '0');
			if (v > INT_MAX) {
				return -1;
			}
			s++;
		}
		switch (*s) {
		case '\0':
			break;
		case 's': case 'S':
			s++;
			break;
		case 'm': case 'M':
			mult = 60;
			s++;
			break;
		case 'h': case 'H':
			mult = 3600;
			s++;
			break;
		case 'd': case 'D':
			mult = 86400;
			s++;
			break;
		case 'w': case 'W':
			mult = 604800;
			s++;
			break;
		default:
			return -1;
		}
		total += v * mult;
		if (total > INT_MAX) {
			return -1;
		}
	}
	*out = (int)total;
	return 0;
}

static int parse_yes_no(const char *s, int *out)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "true")) {
		*out = 1;
	} else if (!strcasecmp(s, "no") || !strcasecmp(s, "false")) {
		*out = 0;
	} else {
		return -1;
	}
	return 0;
}

static int parse_strict(const char *s, int *out)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "ask")) {
		*out = SSH_STRICT_YES;
	} else if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off")) {
		*out = SSH_STRICT_NO;
	} else if (!strcasecmp(s, "accept-new")) {
		*out = SSH_STRICT_ACCEPT_NEW;
	} else {
		return -1;
	}
	return 0;
}

/* Why a path value cannot be used, or NULL when it can.  Checked once at
 * load time so resolving never meets a token it cannot expand. */
static const char *path_problem(const ssh_config *cfg, const char *raw, char *buf, size_t len)
{
	bool needs_home = false;
	if (raw[0] == '~') {
		if (raw[1] != '/' && raw[1] != '\0') {
			return "~user paths are not supported";
		}
		needs_home = true;
	}
	if (strstr(raw, "${")) {
		return "${VAR} expansion is not supported";
	}
	for (const char *p = raw; *p; p++) {
		if (*p != '%') {
			continue;
		}
		p++;
		switch (*p) {
		case '%': case 'u': case 'h': case 'r': case 'n': case 'p': case 'i': case 'k':
		case 'l': case 'L':
			break;
		case 'd':
			needs_home = true;
			break;
		case '\0':
			return "it ends with a lone '%'";
		default:
			snprintf(buf, len, "token %%%c is not supported", *p);
			return buf;
		}
	}
	if (needs_home && cfg->home[0] == '\0') {
		return "it needs the home directory and HOME is not set";
	}
	return NULL;
}

/* ------------------------------------------------------------- tokenizing */

typedef struct {
	ssh_config *cfg;
	const char *file;
	bool user_conf; /* a user file: Include may use ~ and is relative to ~/.ssh */
	entry_vec *out;
	char *err;
	size_t err_len;
	unsigned line;
	/* the current line's values, unquoted */
	int argc;
	char **argv;
	unsigned *cols;
} parser;

static int syntax(parser *p, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int syntax(parser *p, unsigned col, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	set_err(p->err, p->err_len, "%s:%u:%u: %s", p->file, p->line, col, msg);
	return -1;
}

/* Split s[pos, n) into values with ssh's rules (argv_split): blanks separate,
 * '"' and '\'' quote, backslash escapes a quote, a backslash or (outside
 * quotes) a space, and '#' at the start of a value ends the line.  The
 * strings go into one allocation held by p->argv. */
static int split_values(parser *p, const char *s, size_t pos, size_t n)
{
	size_t rest = n - pos;
	size_t max_args = rest / 2 + 2;
	/* pointers, then columns, then the unquoted text (never longer than the
	 * input, plus a NUL per value) */
	size_t bytes = max_args * (sizeof(char *) + sizeof(unsigned)) + rest + max_args;
	void *block = malloc(bytes);
	if (!block) {
		set_err(p->err, p->err_len, "out of memory");
		return -1;
	}
	p->argv = block;
	p->cols = (void *)(p->argv + max_args);
	char *text = (char *)(p->cols + max_args);
	p->argc = 0;

	while (pos < n) {
		while (pos < n && is_space(s[pos])) {
			pos++;
		}
		if (pos >= n || s[pos] == '#') {
			break;
		}
		char quote = 0;
		size_t quote_at = 0;
		p->argv[p->argc] = text;
		p->cols[p->argc] = (unsigned)pos + 1;
		while (pos < n) {
			char c = s[pos];
			if (c == '\\' && pos + 1 < n &&
			    (s[pos + 1] == '\'' || s[pos + 1] == '"' || s[pos + 1] == '\\' ||
			     (quote == 0 && s[pos + 1] == ' '))) {
				*text++ = s[pos + 1];
				pos += 2;
			} else if (quote == 0 && is_space(c)) {
				break;
			} else if (quote == 0 && (c == '"' || c == '\'')) {
				quote = c;
				quote_at = pos;
				pos++;
			} else if (quote != 0 && c == quote) {
				quote = 0;
				pos++;
			} else {
				*text++ = c;
				pos++;
			}
		}
		if (quote != 0) {
			return syntax(p, (unsigned)quote_at + 1, "unterminated %s quote",
				      quote == '"' ? "double" : "single");
		}
		*text++ = '\0';
		p->argc++;
	}
	return 0;
}

/* The rest of the line as one value, for the keys ssh reads that way. */
static int raw_value(parser *p, const char *s, size_t pos, size_t n)
{
	size_t len = n - pos;
	void *block = malloc(sizeof(char *) + sizeof(unsigned) + len + 1);
	if (!block) {
		set_err(p->err, p->err_len, "out of memory");
		return -1;
	}
	p->argv = block;
	p->cols = (void *)(p->argv + 1);
	char *text = (char *)(p->cols + 1);
	memcpy(text, s + pos, len);
	text[len] = '\0';
	p->argv[0] = text;
	p->cols[0] = (unsigned)pos + 1;
	p->argc = len > 0 ? 1 : 0;
	return 0;
}

/* Copy values [first, first+count) into an entry's own argv. */
static int take_values(parser *p, entry *e, int first, int count)
{
	size_t bytes = (size_t)count * sizeof(char *);
	for (int i = 0; i < count; i++) {
		bytes += strlen(p->argv[first + i]) + 1;
	}
	void *block = malloc(bytes ? bytes : 1);
	if (!block) {
		set_err(p->err, p->err_len, "out of memory");
		return -1;
	}
	e->argv = block;
	e->argc = count;
	char *text = (char *)(e->argv + count);
	for (int i = 0; i < count; i++) {
		size_t len = strlen(p->argv[first + i]) + 1;
		memcpy(text, p->argv[first + i], len);
		e->argv[i] = text;
		text += len;
	}
	return 0;
}

static int emit(parser *p, entry_kind kind, key_id key, int ival, int first, int count)
{
	entry e = {
		.kind = kind,
		.key = key,
		.ival = ival,
		.file = p->file,
		.line = p->line,
		.col = p->argc > 0 ? p->cols[first < p->argc ? first : 0] : 0,
	};
	if (take_values(p, &e, first, count) != 0) {
		return -1;
	}
	if (vec_push(p->out, &e) != 0) {
		set_err(p->err, p->err_len, "out of memory");
		return -1;
	}
	return 0;
}

static int only_one(parser *p, const char *key)
{
	if (p->argc > 1) {
		return syntax(p, p->cols[1], "%s takes one value; unexpected '%s'", key, p->argv[1]);
	}
	if (p->argv[0][0] == '\0') {
		return syntax(p, p->cols[0], "empty value for %s", key);
	}
	return 0;
}

static int check_hostname(parser *p)
{
	const char *v = p->argv[0];
	if (strlen(v) >= SSH_HOSTNAME_LEN) {
		return syntax(p, p->cols[0], "HostName longer than %d characters",
			      SSH_HOSTNAME_LEN - 1);
	}
	if (v[0] == '-') {
		return syntax(p, p->cols[0], "HostName starts with '-'");
	}
	for (const char *c = v; *c; c++) {
		if (*c == '%') {
			if (c[1] != 'h' && c[1] != '%') {
				return syntax(p, p->cols[0],
					      "HostName accepts only the tokens %%h and %%%%");
			}
			c++;
		} else if (!is_alnum(*c) && *c != '.' && *c != '-' && *c != '_' && *c != ':') {
			return syntax(p, p->cols[0], "character '%c' not allowed in HostName",
				      *c);
		}
	}
	return 0;
}

/* Keep the paths of an IdentityFile / UserKnownHostsFile line that synctop
 * can expand; warn about the others. */
static int emit_paths(parser *p, key_id key, const char *name, int max)
{
	char why_buf[64];
	int kept = 0;
	/* the usable ones are moved to the front of argv/cols */
	for (int i = 0; i < p->argc; i++) {
		const char *why = path_problem(p->cfg, p->argv[i], why_buf, sizeof why_buf);
		if (why) {
			add_warning(p->cfg, "%s:%u: %s %s ignored: %s", p->file, p->line, name,
				    p->argv[i], why);
			continue;
		}
		if (kept == max) {
			add_warning(p->cfg, "%s:%u: %s: more than %d files, %s ignored", p->file,
				    p->line, name, max, p->argv[i]);
			continue;
		}
		p->argv[kept] = p->argv[i];
		p->cols[kept] = p->cols[i];
		kept++;
	}
	if (kept == 0) {
		return 0;
	}
	return emit(p, E_OPTION, key, 0, 0, kept);
}

static int check_include(parser *p)
{
	for (int i = 0; i < p->argc; i++) {
		const char *v = p->argv[i];
		if (v[0] == '\0') {
			return syntax(p, p->cols[i], "empty Include path");
		}
		if (v[0] == '~') {
			if (!p->user_conf) {
				return syntax(p, p->cols[i],
					      "Include path %s: ~ is not allowed in the system file", v);
			}
			if (v[1] != '/' && v[1] != '\0') {
				return syntax(p, p->cols[i], "Include path %s: ~user is not supported",
					      v);
			}
		}
		if (p->user_conf && v[0] != '/' && p->cfg->home[0] == '\0') {
			return syntax(p, p->cols[i], "Include path %s needs HOME, which is not set",
				      v);
		}
	}
	return 0;
}

/* One line with its keyword known and its values split. */
static int handle(parser *p, key_id key, const char *keyword)
{
	int v = 0;
	switch (key) {
	case K_UNKNOWN:
	case K_COUNT:
		return 0;
	case K_HOST:
		for (int i = 0; i < p->argc; i++) {
			if (p->argv[i][0] == '\0' || !strcmp(p->argv[i], "!")) {
				return syntax(p, p->cols[i], "empty Host pattern");
			}
		}
		return emit(p, E_HOST, key, 0, 0, p->argc);
	case K_MATCH: {
		char why[128];
		int bad = 0;
		if (ssh_match_check(p->argc, p->argv, &bad, why, sizeof why) != 0) {
			return syntax(p, p->cols[bad], "%s", why);
		}
		return emit(p, E_MATCH, key, 0, 0, p->argc);
	}
	case K_INCLUDE:
		if (check_include(p) != 0) {
			return -1;
		}
		return emit(p, E_INCLUDE, key, 0, 0, p->argc);
	case K_HOSTNAME:
		if (only_one(p, keyword) != 0 || check_hostname(p) != 0) {
			return -1;
		}
		return emit(p, E_OPTION, key, 0, 0, 1);
	case K_USER:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (strlen(p->argv[0]) >= SSH_USER_LEN) {
			return syntax(p, p->cols[0], "User longer than %d characters",
				      SSH_USER_LEN - 1);
		}
		return emit(p, E_OPTION, key, 0, 0, 1);
	case K_PORT:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (parse_port(p->argv[0], &v) != 0) {
			return syntax(p, p->cols[0], "bad port '%s' (1-65535)", p->argv[0]);
		}
		return emit(p, E_OPTION, key, v, 0, 0);
	case K_IDENTITY_FILE:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		return emit_paths(p, key, "IdentityFile", 1);
	case K_IDENTITIES_ONLY:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (parse_yes_no(p->argv[0], &v) != 0) {
			return syntax(p, p->cols[0], "bad value '%s' for %s (yes or no)", p->argv[0],
				      keyword);
		}
		return emit(p, E_OPTION, key, v, 0, 0);
	case K_KNOWN_HOSTS:
		for (int i = 0; i < p->argc; i++) {
			if (p->argv[i][0] == '\0') {
				return syntax(p, p->cols[i], "empty file name");
			}
		}
		if (p->argc == 1 && !strcmp(p->argv[0], "none")) {
			return emit(p, E_OPTION, key, VALUE_NONE, 0, 0);
		}
		return emit_paths(p, key, "UserKnownHostsFile", SSH_KNOWN_HOSTS_MAX);
	case K_STRICT:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (parse_strict(p->argv[0], &v) != 0) {
			return syntax(p, p->cols[0],
				      "bad value '%s' for %s (yes, no, accept-new, ask or off)",
				      p->argv[0], keyword);
		}
		return emit(p, E_OPTION, key, v, 0, 0);
	case K_GLOBAL_KNOWN_HOSTS:
		for (int i = 0; i < p->argc; i++) {
			if (p->argv[i][0] == '\0') {
				return syntax(p, p->cols[i], "empty file name");
			}
		}
		if (p->argc == 1 && !strcmp(p->argv[0], "none")) {
			return emit(p, E_OPTION, key, VALUE_NONE, 0, 0);
		}
		return emit_paths(p, key, "GlobalKnownHostsFile", SSH_KNOWN_HOSTS_MAX);
	case K_HOST_KEY_ALIAS:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (strlen(p->argv[0]) >= SSH_HOSTNAME_LEN) {
			return syntax(p, p->cols[0], "HostKeyAlias longer than %d characters",
				      SSH_HOSTNAME_LEN - 1);
		}
		return emit(p, E_OPTION, key, 0, 0, 1);
	case K_PROXY_COMMAND:
	case K_PROXY_JUMP:
	case K_REMOTE_COMMAND:
	case K_KNOWN_HOSTS_COMMAND:
	case K_CANONICAL_CNAMES:
	case K_REVOKED_HOST_KEYS:
	case K_PKCS11:
	case K_SK_PROVIDER:
	case K_IDENTITY_AGENT:
		/* only whether it is set, and to "none" (or the default), matters */
		v = !strcasecmp(p->argv[0], "none") ||
		    (key == K_SK_PROVIDER && !strcasecmp(p->argv[0], "internal")) ||
		    (key == K_IDENTITY_AGENT && !strcmp(p->argv[0], "SSH_AUTH_SOCK"));
		return emit(p, E_OPTION, key, v ? VALUE_NONE : 0, 0, 1);
	case K_ADDRESS_FAMILY:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (strcasecmp(p->argv[0], "any") != 0 && strcasecmp(p->argv[0], "inet") != 0 &&
		    strcasecmp(p->argv[0], "inet6") != 0) {
			return syntax(p, p->cols[0], "bad value '%s' for %s (any, inet or inet6)",
				      p->argv[0], keyword);
		}
		return emit(p, E_OPTION, key, strcasecmp(p->argv[0], "any") != 0 ? 0 : VALUE_NONE, 0, 1);
	case K_BIND_ADDRESS:
	case K_BIND_INTERFACE:
	case K_CERTIFICATE_FILE:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		return emit(p, E_OPTION, key, 0, 0, 1);
	case K_CANONICALIZE:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		/* readconf.c multistate_canonicalizehostname */
		if (!strcasecmp(p->argv[0], "always")) {
			v = 2;
		} else if (parse_yes_no(p->argv[0], &v) != 0) {
			return syntax(p, p->cols[0], "bad value '%s' for %s (yes, no or always)",
				      p->argv[0], keyword);
		}
		return emit(p, E_OPTION, key, v, 0, 1);
	case K_GSSAPI:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (parse_yes_no(p->argv[0], &v) != 0) {
			return syntax(p, p->cols[0], "bad value '%s' for %s (yes or no)", p->argv[0],
				      keyword);
		}
		return emit(p, E_OPTION, key, v, 0, 0);
	case K_CONNECT_TIMEOUT:
	case K_SERVER_ALIVE:
		if (only_one(p, keyword) != 0) {
			return -1;
		}
		if (!strcasecmp(p->argv[0], "none")) {
			return 0; /* ssh stores "unset": a later line may still set it */
		}
		if (parse_time(p->argv[0], &v) != 0) {
			return syntax(p, p->cols[0], "bad time '%s' for %s (e.g. 10, 30s, 1m)",
				      p->argv[0], keyword);
		}
		return emit(p, E_OPTION, key, v, 0, 0);
	}
	return 0;
}

static key_id lookup(const char *kw, size_t len)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strlen(keys[i].name) == len && !strncasecmp(keys[i].name, kw, len)) {
			return keys[i].id;
		}
	}
	return K_UNKNOWN;
}

static int parse_line(parser *p, const char *s, size_t n)
{
	char keyword[64];
	size_t pos = 0, kw_start, kw_len;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\f') || c == 0x7f) {
			return syntax(p, (unsigned)i + 1, "control character \\x%02x", c);
		}
	}
	while (n > 0 && is_space(s[n - 1])) {
		n--;
	}
	while (pos < n && is_space(s[pos])) {
		pos++;
	}
	if (pos == n || s[pos] == '#') {
		return 0;
	}
	kw_start = pos;
	while (pos < n && !is_space(s[pos]) && s[pos] != '=') {
		pos++;
	}
	kw_len = pos - kw_start;
	snprintf(keyword, sizeof keyword, "%.*s", (int)kw_len, s + kw_start);
	/* "Key Value", "Key=Value", "Key = Value": one '=' may separate */
	while (pos < n && is_space(s[pos])) {
		pos++;
	}
	if (pos < n && s[pos] == '=') {
		pos++;
		while (pos < n && is_space(s[pos])) {
			pos++;
		}
	}
	if (kw_len == 0) {
		return syntax(p, (unsigned)kw_start + 1, "missing keyword before '='");
	}
	unsigned value_col = (unsigned)pos + 1;
	key_id key = lookup(s + kw_start, kw_len);
	/* ssh takes a command as the rest of the line, quotes and all
	 * (readconf.c:process_config_line, parse_command) */
	bool raw = key == K_PROXY_COMMAND || key == K_REMOTE_COMMAND ||
		   key == K_KNOWN_HOSTS_COMMAND || key == K_PROXY_JUMP;
	if ((raw ? raw_value(p, s, pos, n) : split_values(p, s, pos, n)) != 0) {
		return -1;
	}
	if (p->argc == 0) {
		return syntax(p, value_col, "missing value for %s", keyword);
	}
	return handle(p, key, keyword);
}

/* Parse a whole file's text into entries appended to out.  Pure apart from
 * recording warnings in cfg. */
static int parse_text(ssh_config *cfg, const char *file, bool user_conf, const char *text,
		      size_t len, entry_vec *out, char *err, size_t err_len)
{
	parser p = {
		.cfg = cfg,
		.file = file,
		.user_conf = user_conf,
		.out = out,
		.err = err,
		.err_len = err_len,
	};
	size_t pos = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int rc;
		p.line++;
		p.argv = NULL;
		rc = parse_line(&p, text + pos, n);
		free(p.argv);
		if (rc != 0) {
			return -1;
		}
		pos += n + (nl ? 1 : 0);
	}
	return 0;
}

/* ---------------------------------------------------------------- loading */

static int load_file(ssh_config *cfg, const char *path, bool user_conf, bool check_perm,
		     bool required, int depth, char *err, size_t err_len);

/* Expand one Include value to a glob pattern: ~ is $HOME, a relative path
 * lives in ~/.ssh (user files) or /etc/ssh (the system file), as in ssh.
 * check_include() already refused ~ in the system file and ~user. */
static int include_pattern(const ssh_config *cfg, const char *v, bool user_conf, char *out,
			   size_t len)
{
	int n;
	if (v[0] == '~') {
		n = snprintf(out, len, "%s%s", cfg->home, v + 1);
	} else if (v[0] == '/') {
		n = snprintf(out, len, "%s", v);
	} else if (user_conf) {
		n = snprintf(out, len, "%s/.ssh/%s", cfg->home, v);
	} else {
		n = snprintf(out, len, "/etc/ssh/%s", v);
	}
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

static int splice_include(ssh_config *cfg, const entry *inc, bool user_conf, int depth,
			  char *err, size_t err_len)
{
	for (int i = 0; i < inc->argc; i++) {
		char pattern[PATH_MAX];
		glob_t g;
		int rc;
		if (include_pattern(cfg, inc->argv[i], user_conf, pattern, sizeof pattern) != 0) {
			set_err(err, err_len, "%s:%u:%u: Include path too long", inc->file, inc->line,
				inc->col);
			return -1;
		}
		memset(&g, 0, sizeof g);
		rc = glob(pattern, 0, NULL, &g);
		if (rc == GLOB_NOMATCH) {
			globfree(&g);
			continue; /* like ssh: an Include matching nothing is fine */
		}
		if (rc != 0) {
			globfree(&g);
			set_err(err, err_len, "%s:%u:%u: cannot expand Include %s", inc->file,
				inc->line, inc->col, pattern);
			return -1;
		}
		for (size_t k = 0; k < g.gl_pathc; k++) {
			if (depth + 1 > MAX_DEPTH) {
				globfree(&g);
				set_err(err, err_len,
					"%s:%u:%u: Include nested more than %d deep (a loop?)",
					inc->file, inc->line, inc->col, MAX_DEPTH);
				return -1;
			}
			if (push_marker(cfg, E_INC_BEGIN, err, err_len) != 0 ||
			    load_file(cfg, g.gl_pathv[k], user_conf, true, false, depth + 1, err,
				      err_len) != 0 ||
			    push_marker(cfg, E_INC_END, err, err_len) != 0) {
				globfree(&g);
				return -1;
			}
		}
		globfree(&g);
	}
	return 0;
}

static const char *remember_file(ssh_config *cfg, const char *path)
{
	if (cfg->nfiles == cfg->files_cap) {
		size_t cap = cfg->files_cap ? cfg->files_cap * 2 : 8;
		char **bigger = realloc(cfg->files, cap * sizeof *bigger);
		if (!bigger) {
			return NULL;
		}
		cfg->files = bigger;
		cfg->files_cap = cap;
	}
	char *copy = strdup(path);
	if (copy) {
		cfg->files[cfg->nfiles++] = copy;
	}
	return copy;
}

static int load_file(ssh_config *cfg, const char *path, bool user_conf, bool check_perm,
		     bool required, int depth, char *err, size_t err_len)
{
	struct stat st;
	entry_vec local = {0};
	const char *name;
	size_t len = 0;
	char *text;
	int fd, rc = -1;

	if (cfg->nfiles >= MAX_FILES) {
		set_err(err, err_len, "%s: more than %d configuration files read (an Include loop?)",
			path, MAX_FILES);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (!required && errno == ENOENT) {
			return 0;
		}
		set_err(err, err_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		set_err(err, err_len, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		if (!required) {
			return 0; /* ssh reads a directory an Include matched as empty */
		}
		set_err(err, err_len, "%s: is a directory", path);
		return -1;
	}
	/* ssh refuses a config others could have written: it can turn host key
	 * checking off. */
	if (check_perm && ((st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & 022) != 0)) {
		set_err(err, err_len, "%s: bad owner or permissions (must be yours or root's and "
			"not writable by group or others)", path);
		close(fd);
		return -1;
	}
	text = textfile_read_fd(fd, path, FILE_MAX, &len, err, err_len);
	close(fd);
	if (!text) {
		return -1;
	}
	cfg->bytes_read += len;
	if (cfg->bytes_read > TOTAL_MAX) {
		set_err(err, err_len, "%s: more than %u bytes of configuration in all", path,
			TOTAL_MAX);
		free(text);
		return -1;
	}
	name = remember_file(cfg, path);
	if (!name) {
		set_err(err, err_len, "out of memory");
		free(text);
		return -1;
	}
	if (parse_text(cfg, name, user_conf, text, len, &local, err, err_len) != 0) {
		goto out;
	}
	for (size_t i = 0; i < local.n; i++) {
		entry *e = &local.v[i];
		if (e->kind == E_INCLUDE) {
			if (splice_include(cfg, e, user_conf, depth, err, err_len) != 0) {
				goto out;
			}
			continue;
		}
		if (vec_push(&cfg->entries, e) != 0) {
			set_err(err, err_len, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	vec_free(&local); /* what was moved out has argv == NULL */
	free(text);
	return rc;
}

static ssh_config *config_new(void)
{
	ssh_config *cfg = calloc(1, sizeof *cfg);
	const char *home, *user;
	if (!cfg) {
		return NULL;
	}
	home = getenv("HOME");
	if (home && home[0] && strlen(home) < sizeof cfg->home) {
		snprintf(cfg->home, sizeof cfg->home, "%s", home);
		/* "/home/x/" + "/.ssh" must not double the slash in messages */
		size_t n = strlen(cfg->home);
		while (n > 1 && cfg->home[n - 1] == '/') {
			cfg->home[--n] = '\0';
		}
	}
	user = getenv("USER");
	if (!user || !user[0]) {
		user = getenv("LOGNAME");
	}
	if (!user || !user[0]) {
		struct passwd *pw = getpwuid(getuid());
		user = pw ? pw->pw_name : "";
	}
	snprintf(cfg->local_user, sizeof cfg->local_user, "%s", user);
	if (gethostname(cfg->local_host, sizeof cfg->local_host) != 0) {
		cfg->local_host[0] = '\0';
	}
	cfg->local_host[sizeof cfg->local_host - 1] = '\0';
	snprintf(cfg->local_short, sizeof cfg->local_short, "%.*s",
		 (int)strcspn(cfg->local_host, "."), cfg->local_host);
	snprintf(cfg->uid, sizeof cfg->uid, "%lu", (unsigned long)getuid());
	return cfg;
}

ssh_config *ssh_config_load_files(const char *user_path, const char *system_path, char *err,
				  size_t err_len)
{
	ssh_config *cfg = config_new();
	if (!cfg) {
		set_err(err, err_len, "out of memory");
		return NULL;
	}
	if (user_path) {
		if (strcmp(user_path, "none") != 0 &&
		    (push_marker(cfg, E_FILE, err, err_len) != 0 ||
		     load_file(cfg, user_path, true, false, true, 0, err, err_len) != 0)) {
			goto fail;
		}
	} else if (cfg->home[0]) {
		char path[SSH_PATH_LEN + 16];
		snprintf(path, sizeof path, "%s/.ssh/config", cfg->home);
		if (push_marker(cfg, E_FILE, err, err_len) != 0 ||
		    load_file(cfg, path, true, true, false, 0, err, err_len) != 0) {
			goto fail;
		}
	} else {
		add_warning(cfg, "HOME is not set: ~/.ssh/config not read");
	}
	if (system_path) {
		if (push_marker(cfg, E_FILE, err, err_len) != 0 ||
		    load_file(cfg, system_path, false, false, false, 0, err, err_len) != 0) {
			goto fail;
		}
	}
	return cfg;
fail:
	ssh_config_free(cfg);
	return NULL;
}

ssh_config *ssh_config_load(const char *path, char *err, size_t err_len)
{
	return ssh_config_load_files(path, path ? NULL : SSH_CONFIG_SYSTEM_PATH, err, err_len);
}

void ssh_config_free(ssh_config *cfg)
{
	if (!cfg) {
		return;
	}
	vec_free(&cfg->entries);
	for (size_t i = 0; i < cfg->nfiles; i++) {
		free(cfg->files[i]);
	}
	free(cfg->files);
	for (size_t i = 0; i < cfg->nwarnings; i++) {
		free(cfg->warnings[i]);
	}
	free(cfg);
}

size_t ssh_config_warning_count(const ssh_config *cfg)
{
	if (!cfg) {
		return 0;
	}
	return cfg->nwarnings + (cfg->dropped_warnings > 0 ? 1 : 0);
}

const char *ssh_config_warning(const ssh_config *cfg, size_t i)
{
	if (!cfg || i >= ssh_config_warning_count(cfg)) {
		return NULL;
	}
	return i < cfg->nwarnings ? cfg->warnings[i] : cfg->more;
}

/* -------------------------------------------------------------- resolving */

/* How sure synctop is that the lines being read apply to the host.  ssh
 * always knows; synctop does not below a Match criterion it does not
 * evaluate (exec, localnetwork, ...: ssh_match.h). */
typedef enum { LEVEL_NO = 0, LEVEL_MAYBE, LEVEL_YES } level;

#define MAX_IDENTITY_LINES 64

typedef struct {
	ssh_host_options *out;
	const ssh_config *cfg;
	const char *host;     /* as given: %n, originalhost, Host lines (first pass) */
	const char *cli_user; /* "" = none */
	int cli_port;         /* 0 = none */
	bool final_pass;
	bool wants_final;
	char final_host[SSH_HOSTNAME_LEN]; /* Host and Match host in the final pass */
	/* the first line obtained for each key: ssh keeps the first value */
	const entry *first[K_COUNT];
	/* every IdentityFile line that applied, in order (they add up) */
	const entry *identity[MAX_IDENTITY_LINES];
	size_t n_identity;
	const entry *certificate; /* the first CertificateFile that applied */
	/* token values, known once the passes are done */
	const char *remote_host; /* %h */
	const char *remote_user; /* %r */
	char port[8];            /* %p */
	const char *key_alias;   /* %k */
} resolver;

static void say(char *dst, size_t len, const char *fmt, va_list ap)
{
	char raw[SSH_ERROR_LEN];
	vsnprintf(raw, sizeof raw, fmt, ap);
	sanitize_show(raw, strlen(raw), dst, len); /* see set_err() */
}

static void warn(ssh_host_options *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(ssh_host_options *out, const char *fmt, ...)
{
	va_list ap;
	if (out->warning[0] != '\0') {
		return; /* keep the first */
	}
	va_start(ap, fmt);
	say(out->warning, sizeof out->warning, fmt, ap);
	va_end(ap);
}

static void refuse(resolver *r, const entry *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A line synctop cannot honour applies: the host gets an error, which
 * starts with the place of e. */
static void refuse(resolver *r, const entry *e, const char *fmt, ...)
{
	char where[SSH_PATH_LEN + 16];
	va_list ap;
	if (r->out->error[0] != '\0') {
		return; /* keep the first */
	}
	snprintf(where, sizeof where, "%s:%u", e->file, e->line);
	sanitize_show(where, strlen(where), r->out->error_at, sizeof r->out->error_at);
	va_start(ap, fmt);
	say(r->out->error, sizeof r->out->error, fmt, ap);
	va_end(ap);
}

/* Append src to dst[*n], failing rather than truncating: a cut path would
 * name a different file. */
static bool put(char *dst, size_t len, size_t *n, const char *src)
{
	size_t k = strlen(src);
	if (*n + k >= len) {
		return false;
	}
	memcpy(dst + *n, src, k);
	*n += k;
	dst[*n] = '\0';
	return true;
}

/* HostName takes %h and %% only (ssh.c:main, "keep in sync with
 * readconf.c:match_cfg_line"; check_hostname() refused the others). */
static bool expand_hostname(const char *raw, const char *host, char *dst, size_t len)
{
	size_t n = 0;
	dst[0] = '\0';
	for (const char *p = raw; *p; p++) {
		char one[2] = {*p, 0};
		bool ok;
		if (p[0] == '%' && p[1] == 'h') {
			ok = put(dst, len, &n, host);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			ok = put(dst, len, &n, "%");
			p++;
		} else {
			ok = put(dst, len, &n, one);
		}
		if (!ok) {
			return false;
		}
	}
	return true;
}

/* The host "Match host" looks at: in the first pass ssh expands the
 * HostName obtained so far (readconf.c:match_cfg_line), in the final pass
 * it is the final host name. */
static const char *match_host(const resolver *r, char *buf, size_t len)
{
	const entry *hn = r->first[K_HOSTNAME];
	if (r->final_pass) {
		return r->final_host;
	}
	if (hn && expand_hostname(hn->argv[0], r->host, buf, len)) {
		return buf;
	}
	return r->host;
}

/* ssh's Host rule: some positive pattern matches and no negated one does
 * (readconf.c:process_config_line, oHost; match.c:match_pattern). */
static bool host_matches(const entry *e, const char *host)
{
	bool any = false;
	for (int i = 0; i < e->argc; i++) {
		const char *pat = e->argv[i];
		bool negated = pat[0] == '!';
		if (ssh_match_pattern(host, negated ? pat + 1 : pat)) {
			if (negated) {
				return false;
			}
			any = true;
		}
	}
	return any;
}

/* A line in a block that applies. */
static void apply(resolver *r, const entry *e)
{
	switch (e->key) {
	case K_IDENTITY_FILE:
		if (r->n_identity < MAX_IDENTITY_LINES) {
			r->identity[r->n_identity++] = e;
		} else {
			warn(r->out, "%s:%u: more than %d IdentityFile lines apply; ignored", e->file,
			     e->line, MAX_IDENTITY_LINES);
		}
		return;
	case K_CERTIFICATE_FILE:
		if (!r->certificate) {
			r->certificate = e;
		}
		return;
	case K_PROXY_JUMP:
		/* readconf.c:parse_jump: a host is taken only while neither
		 * ProxyCommand nor ProxyJump is set ("none" is always kept) */
		if (e->ival != VALUE_NONE && r->first[K_PROXY_COMMAND]) {
			return;
		}
		break;
	default:
		break;
	}
	if (!r->first[e->key]) {
		r->first[e->key] = e;
	}
}

/* A line in a block that may or may not apply (an unevaluated Match).  If
 * it would decide where or how synctop connects, the host gets an error;
 * any other line is left out with a warning. */
static void uncertain(resolver *r, const entry *e, const entry *match, const char *what)
{
	/* the command line's user and port beat any line */
	bool set = r->first[e->key] != NULL || (e->key == K_USER && r->cli_user[0]) ||
		   (e->key == K_PORT && r->cli_port > 0);
	bool matters;
	switch (e->key) {
	case K_HOSTNAME:
	case K_USER:
	case K_PORT:
	case K_KNOWN_HOSTS:
	case K_GLOBAL_KNOWN_HOSTS:
	case K_HOST_KEY_ALIAS:
	case K_STRICT:
	case K_BIND_ADDRESS:
	case K_BIND_INTERFACE:
		matters = !set;
		break;
	case K_PROXY_COMMAND:
	case K_PROXY_JUMP:
		matters = e->ival != VALUE_NONE && !r->first[K_PROXY_COMMAND] &&
			  !r->first[K_PROXY_JUMP];
		break;
	case K_CANONICALIZE:
		matters = e->ival != 0 && !set;
		break;
	case K_REMOTE_COMMAND:
	case K_KNOWN_HOSTS_COMMAND:
	case K_CANONICAL_CNAMES:
	case K_REVOKED_HOST_KEYS:
		matters = e->ival != VALUE_NONE && !set;
		break;
	default:
		warn(r->out, "%s:%u: synctop does not evaluate 'Match %s': the %s line at %s:%u "
		     "is not used", match->file, match->line, what, key_name(e->key), e->file,
		     e->line);
		return;
	}
	if (matters) {
		refuse(r, match, "%s:%u: synctop does not evaluate 'Match %s', and that block sets %s "
		       "(%s:%u), which decides how %s is reached: move the %s line to a Host block "
		       "for the hosts it is meant for", match->file, match->line, what,
		       key_name(e->key), e->file, e->line, r->host, key_name(e->key));
	}
}

/* One pass over the entries with ssh's "active" state: each file starts
 * active, Host/Match lines switch it, and nothing in a file included from
 * an inactive block ever applies (SSHCONF_NEVERMATCH).  Levels take the
 * lower of the block's and the includer's. */
static void walk(resolver *r)
{
	struct {
		level active, cap;
		const entry *match, *cap_match;
		const char *what, *cap_what;
	} stack[MAX_DEPTH + 2], st = {LEVEL_YES, LEVEL_YES, NULL, NULL, NULL, NULL};
	int sp = 0;
	const char *host_lines = r->final_pass ? r->final_host : r->host;

	for (size_t i = 0; i < r->cfg->entries.n && r->out->error[0] == '\0'; i++) {
		const entry *e = &r->cfg->entries.v[i];
		level lv;
		switch (e->kind) {
		case E_FILE:
			st.active = st.cap = LEVEL_YES;
			st.match = st.cap_match = NULL;
			sp = 0;
			break;
		case E_INC_BEGIN:
			if (sp < (int)(sizeof stack / sizeof stack[0])) {
				stack[sp++] = st;
			}
			if (st.active < st.cap) {
				st.cap = st.active;
				st.cap_match = st.match;
				st.cap_what = st.what;
			}
			st.active = st.cap;
			st.match = st.cap_match;
			st.what = st.cap_what;
			break;
		case E_INC_END:
			if (sp > 0) {
				st = stack[--sp];
			}
			break;
		case E_HOST:
			lv = host_matches(e, host_lines) ? LEVEL_YES : LEVEL_NO;
			st.active = lv < st.cap ? lv : st.cap;
			st.match = st.cap_match;
			st.what = st.cap_what;
			break;
		case E_MATCH: {
			char buf[SSH_HOSTNAME_LEN];
			const char *user = r->cli_user[0] ? r->cli_user
					   : r->first[K_USER] ? r->first[K_USER]->argv[0]
							      : r->cfg->local_user;
			ssh_match_context ctx = {
				.host = match_host(r, buf, sizeof buf),
				.original_host = r->host,
				.user = user,
				.local_user = r->cfg->local_user,
				.final_pass = r->final_pass,
			};
			const char *what = NULL;
			ssh_match_result m = ssh_match_eval(e->argc, e->argv, &ctx, &r->wants_final,
							    &what);
			lv = m == SSH_MATCH_YES ? LEVEL_YES : m == SSH_MATCH_NO ? LEVEL_NO : LEVEL_MAYBE;
			st.active = lv < st.cap ? lv : st.cap;
			st.match = lv == LEVEL_MAYBE ? e : st.cap_match;
			st.what = lv == LEVEL_MAYBE ? what : st.cap_what;
			break;
		}
		case E_OPTION:
			if (st.active == LEVEL_YES) {
				apply(r, e);
			} else if (st.active == LEVEL_MAYBE) {
				uncertain(r, e, st.match, st.what);
			}
			break;
		case E_INCLUDE:
			break;
		}
	}
}

static bool expand_path(const resolver *r, const char *raw, char *dst, size_t len)
{
	size_t n = 0;
	char one[2] = {0, 0};
	dst[0] = '\0';
	if (raw[0] == '~' && (raw[1] == '/' || raw[1] == '\0')) {
		if (!put(dst, len, &n, r->cfg->home)) {
			return false;
		}
		raw++;
	}
	/* ssh.c:default_client_percent_expand's tokens, less %C and %j */
	for (const char *p = raw; *p; p++) {
		const char *v = one;
		if (*p != '%') {
			one[0] = *p;
		} else {
			switch (*++p) {
			case '%': one[0] = '%'; break;
			case 'd': v = r->cfg->home; break;
			case 'u': v = r->cfg->local_user; break;
			case 'h': v = r->remote_host; break;
			case 'r': v = r->remote_user; break;
			case 'n': v = r->host; break;
			case 'p': v = r->port; break;
			case 'i': v = r->cfg->uid; break;
			case 'k': v = r->key_alias; break;
			case 'l': v = r->cfg->local_host; break;
			case 'L': v = r->cfg->local_short; break;
			default: return false; /* path_problem() kept these out */
			}
		}
		if (!put(dst, len, &n, v)) {
			return false;
		}
	}
	return true;
}

static void add_identity(resolver *r, const entry *e)
{
	ssh_host_options *o = r->out;
	char path[SSH_PATH_LEN];
	if (!expand_path(r, e->argv[0], path, sizeof path)) {
		warn(o, "%s:%u: IdentityFile %s is too long once expanded; ignored", e->file,
		     e->line, e->argv[0]);
		return;
	}
	for (int i = 0; i < o->identity_count; i++) {
		if (!strcmp(o->identity_file[i], path)) {
			return; /* ssh keeps one copy of each */
		}
	}
	if (o->identity_count == SSH_IDENTITY_MAX) {
		warn(o, "%s:%u: more than %d IdentityFile entries apply; %s ignored", e->file,
		     e->line, SSH_IDENTITY_MAX, path);
		return;
	}
	memcpy(o->identity_file[o->identity_count++], path, sizeof path);
}

/* UserKnownHostsFile / GlobalKnownHostsFile: all files of the first line. */
static int known_hosts_files(resolver *r, const entry *e, char (*dst)[SSH_PATH_LEN])
{
	int count = 0;
	for (int i = 0; e->ival != VALUE_NONE && i < e->argc; i++) {
		if (!expand_path(r, e->argv[i], dst[count], SSH_PATH_LEN)) {
			dst[count][0] = '\0';
			warn(r->out, "%s:%u: %s %s is too long once expanded; ignored", e->file,
			     e->line, key_name(e->key), e->argv[i]);
			continue;
		}
		count++;
	}
	return count;
}

/* The lines that would take ssh some other way than a direct connection
 * that synctop can make: the first that applies becomes the host's error. */
static void check_route(resolver *r)
{
	const entry *e;
	const char *host = r->host;
	if ((e = r->first[K_PROXY_JUMP]) && e->ival != VALUE_NONE) {
		refuse(r, e, "%s:%u: ProxyJump applies to %s. " SSH_UNSUPPORTED_PROXYJUMP ": "
		       SSH_UNSUPPORTED_ROUTE_FIX, e->file, e->line, host);
	}
	if ((e = r->first[K_PROXY_COMMAND]) && e->ival != VALUE_NONE) {
		refuse(r, e, "%s:%u: ProxyCommand applies to %s, and synctop's built-in SSH client "
		       "cannot run a proxy command: " SSH_UNSUPPORTED_ROUTE_FIX, e->file, e->line,
		       host);
	}
	if ((e = r->first[K_CANONICALIZE]) && e->ival != 0) {
		refuse(r, e, "%s:%u: CanonicalizeHostname %s applies to %s, and synctop does not "
		       "canonicalize host names: name the node in full (or give it a HostName) and "
		       "set CanonicalizeHostname no for it", e->file, e->line, e->argv[0], host);
	}
	if ((e = r->first[K_CANONICAL_CNAMES]) && e->ival != VALUE_NONE) {
		refuse(r, e, "%s:%u: CanonicalizePermittedCNAMEs applies to %s, and synctop does not "
		       "follow CNAMEs to a new host name: name the node as the CNAME ends (or give "
		       "it a HostName) and set CanonicalizePermittedCNAMEs none for it", e->file,
		       e->line, host);
	}
	if ((e = r->first[K_REMOTE_COMMAND]) && e->ival != VALUE_NONE) {
		refuse(r, e, "%s:%u: RemoteCommand applies to %s; it would replace synctop's probe "
		       "shell (ssh itself refuses a command line with it): set RemoteCommand none "
		       "for it", e->file, e->line, host);
	}
	if ((e = r->first[K_BIND_ADDRESS]) || (e = r->first[K_BIND_INTERFACE])) {
		refuse(r, e, "%s:%u: %s applies to %s, and synctop's built-in SSH client connects "
		       "from the default source address and interface: drop the line for it, or "
		       "run synctop where the default route reaches the node", e->file, e->line,
		       key_name(e->key), host);
	}
	if (((e = r->first[K_KNOWN_HOSTS_COMMAND]) && e->ival != VALUE_NONE) ||
	    ((e = r->first[K_REVOKED_HOST_KEYS]) && e->ival != VALUE_NONE)) {
		refuse(r, e, "%s:%u: %s applies to %s, and synctop checks host keys against "
		       "known_hosts files only (UserKnownHostsFile, GlobalKnownHostsFile, @revoked "
		       "lines): list the keys there and set %s none for it", e->file, e->line,
		       key_name(e->key), host, key_name(e->key));
	}
}

/* Keys about authentication that libssh2 cannot honour: named in the
 * node's error if its authentication fails (ssh_transport.c). */
static void auth_notes(resolver *r)
{
	static const key_id listed[] = {K_PKCS11, K_SK_PROVIDER, K_IDENTITY_AGENT};
	ssh_host_options *o = r->out;
	const entry *e;
	size_t n = 0;
	if ((e = r->first[K_ADDRESS_FAMILY]) && e->ival != VALUE_NONE) {
		snprintf(o->ignored, sizeof o->ignored, "AddressFamily %s (%s:%u)", e->argv[0],
			 e->file, e->line);
	}
	if ((e = r->first[K_GSSAPI]) && e->ival == 1) {
		snprintf(o->auth_gssapi, sizeof o->auth_gssapi, "GSSAPIAuthentication yes (%s:%u)",
			 e->file, e->line);
	}
	if ((e = r->certificate)) {
		int w = snprintf(o->auth_unsupported, sizeof o->auth_unsupported,
				 "CertificateFile (%s:%u)", e->file, e->line);
		n = w > 0 ? (size_t)w : 0;
	}
	for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
		if ((e = r->first[listed[i]]) && e->ival != VALUE_NONE && n < sizeof o->auth_unsupported) {
			int w = snprintf(o->auth_unsupported + n, sizeof o->auth_unsupported - n,
					 "%s%s (%s:%u)", n ? ", " : "", key_name(e->key), e->file,
					 e->line);
			n += w > 0 ? (size_t)w : 0;
		}
	}
}

/* ssh.c:main lowercases the host name unless it is an address
 * (is_addr_fast: a ':' or '%', or only digits and dots). */
static void final_host_name(resolver *r, const char *name)
{
	bool addr = strchr(name, ':') || strchr(name, '%') ||
		    strspn(name, "0123456789.") == strlen(name);
	snprintf(r->final_host, sizeof r->final_host, "%s", name);
	for (char *c = r->final_host; !addr && *c; c++) {
		if (*c >= 'A' && *c <= 'Z') {
			*c = (char)(*c - 'A' + 'a');
		}
	}
}

static void options_init(ssh_host_options *out)
{
	memset(out, 0, sizeof *out);
	out->port = SSH_OPTION_UNSET;
	out->identities_only = SSH_OPTION_UNSET;
	out->known_hosts_count = SSH_OPTION_UNSET;
	out->global_known_hosts_count = SSH_OPTION_UNSET;
	out->strict_host_key_checking = SSH_STRICT_UNSET;
	out->connect_timeout = SSH_OPTION_UNSET;
	out->server_alive_interval = SSH_OPTION_UNSET;
}

void ssh_config_resolve_query(const ssh_config *cfg, const ssh_config_query *q,
			      ssh_host_options *out)
{
	resolver r = {
		.out = out,
		.cfg = cfg,
		.host = q && q->host ? q->host : "",
		.cli_user = q && q->user ? q->user : "",
		.cli_port = q ? q->port : 0,
	};
	const entry *e;

	options_init(out);
	if (!cfg) {
		return;
	}
	walk(&r);
	if ((e = r.first[K_HOSTNAME]) &&
	    !expand_hostname(e->argv[0], r.host, out->hostname, sizeof out->hostname)) {
		out->hostname[0] = '\0';
		warn(out, "HostName %s is too long for %s once expanded; ignored", e->argv[0],
		     r.host);
	}
	/* ssh.c:main reads the files again when a Match line asked for
	 * "final" (the same happens after canonicalization, which check_route()
	 * refuses): Host and "Match host" then see the final host name, and
	 * only what is still unset can be obtained. */
	if (r.wants_final && out->error[0] == '\0') {
		final_host_name(&r, out->hostname[0] ? out->hostname : r.host);
		r.final_pass = true;
		walk(&r);
	}
	if (out->error[0] != '\0') {
		return;
	}
	if ((e = r.first[K_USER])) {
		snprintf(out->user, sizeof out->user, "%s", e->argv[0]);
	}
	out->port = (e = r.first[K_PORT]) ? e->ival : SSH_OPTION_UNSET;
	out->identities_only = (e = r.first[K_IDENTITIES_ONLY]) ? e->ival : SSH_OPTION_UNSET;
	if ((e = r.first[K_STRICT])) {
		out->strict_host_key_checking = (ssh_strict)e->ival;
	}
	out->connect_timeout = (e = r.first[K_CONNECT_TIMEOUT]) ? e->ival : SSH_OPTION_UNSET;
	out->server_alive_interval = (e = r.first[K_SERVER_ALIVE]) ? e->ival : SSH_OPTION_UNSET;
	if ((e = r.first[K_HOST_KEY_ALIAS])) {
		/* ssh.c:main lowercases it; sshconnect.c looks it up without a port */
		snprintf(out->host_key_alias, sizeof out->host_key_alias, "%s", e->argv[0]);
		for (char *c = out->host_key_alias; *c; c++) {
			if (*c >= 'A' && *c <= 'Z') {
				*c = (char)(*c - 'A' + 'a');
			}
		}
	}

	r.remote_host = out->hostname[0] ? out->hostname : r.host;
	r.remote_user = r.cli_user[0] ? r.cli_user : out->user[0] ? out->user : cfg->local_user;
	snprintf(r.port, sizeof r.port, "%d",
		 r.cli_port > 0 ? r.cli_port : out->port != SSH_OPTION_UNSET ? out->port : 22);
	r.key_alias = out->host_key_alias[0] ? out->host_key_alias : r.host;
	for (size_t i = 0; i < r.n_identity; i++) {
		add_identity(&r, r.identity[i]);
	}
	if ((e = r.first[K_KNOWN_HOSTS])) {
		out->known_hosts_count = known_hosts_files(&r, e, out->known_hosts_file);
	}
	if ((e = r.first[K_GLOBAL_KNOWN_HOSTS])) {
		out->global_known_hosts_count =
			known_hosts_files(&r, e, out->global_known_hosts_file);
	}
	if (strchr(out->user, '%') || strstr(out->user, "${")) {
		e = r.first[K_USER];
		refuse(&r, e, "%s:%u: User %s applies to %s, and synctop does not expand %%tokens "
		       "or ${VARIABLES} in User: write the user name out", e->file, e->line,
		       e->argv[0], r.host);
		return;
	}
	check_route(&r);
	auth_notes(&r);
}

void ssh_config_resolve(const ssh_config *cfg, const char *host, ssh_host_options *out)
{
	ssh_config_query q = {.host = host};
	ssh_config_resolve_query(cfg, &q, out);
}
