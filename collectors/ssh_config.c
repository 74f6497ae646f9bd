/* ssh_config.c - read OpenSSH client configuration files into entries
 * (ssh_config_entries.h; see ssh_config.h for what is supported).
 *
 * Loading turns the files into one flat list of entries in reading order:
 * file and include boundaries, Host/Match conditions and options, with
 * Include already spliced in.  parse_text() is pure (text in, entries out);
 * load_file() is the thin layer that opens, checks, globs and reads.
 * ssh_config_resolve.c walks that list, so a config is loaded once and
 * resolved for thousands of hosts without touching the disk. */
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
#include "ssh_config_entries.h"
#include "ssh_match.h"
#include "textfile.h"

#define MAX_DEPTH SSH_CONFIG_MAX_DEPTH
#define MAX_FILES 256                    /* per load: bounds glob include loops */
#define FILE_MAX (4u << 20)              /* bytes per file */
#define TOTAL_MAX (64u << 20)            /* bytes per load */
#define MAX_WARNINGS SSH_CONFIG_MAX_WARNINGS
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

const char *ssh_config_key_name(key_id id)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i].id == id) {
			return keys[i].name;
		}
	}
	return "?";
}

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

/* UserKnownHostsFile / GlobalKnownHostsFile: files, or "none". */
static int emit_known_hosts(parser *p, key_id key, const char *name)
{
	for (int i = 0; i < p->argc; i++) {
		if (p->argv[i][0] == '\0') {
			return syntax(p, p->cols[i], "empty file name");
		}
	}
	if (p->argc == 1 && !strcmp(p->argv[0], "none")) {
		return emit(p, E_OPTION, key, VALUE_NONE, 0, 0);
	}
	return emit_paths(p, key, name, SSH_KNOWN_HOSTS_MAX);
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
		return emit_known_hosts(p, key, "UserKnownHostsFile");
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
		return emit_known_hosts(p, key, "GlobalKnownHostsFile");
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
