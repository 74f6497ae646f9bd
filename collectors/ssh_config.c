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
	K_HOSTNAME,
	K_USER,
	K_PORT,
	K_IDENTITY_FILE,
	K_IDENTITIES_ONLY,
	K_KNOWN_HOSTS,
	K_STRICT,
	K_CONNECT_TIMEOUT,
	K_SERVER_ALIVE,
} key_id;

static const struct {
	const char *name;
	key_id id;
} keys[] = {
	{"host", K_HOST},
	{"match", K_MATCH},
	{"include", K_INCLUDE},
	{"hostname", K_HOSTNAME},
	{"user", K_USER},
	{"port", K_PORT},
	{"identityfile", K_IDENTITY_FILE},
	{"identitiesonly", K_IDENTITIES_ONLY},
	{"userknownhostsfile", K_KNOWN_HOSTS},
	{"stricthostkeychecking", K_STRICT},
	{"connecttimeout", K_CONNECT_TIMEOUT},
	{"serveraliveinterval", K_SERVER_ALIVE},
};

typedef enum {
	E_FILE,       /* a top-level file starts: the active state resets */
	E_INC_BEGIN,  /* an included file starts */
	E_INC_END,    /* ... and ends: the includer's state comes back */
	E_HOST,       /* argv = patterns */
	E_MATCH_ALL,  /* "Match all": like "Host *" */
	E_MATCH_SKIP, /* any other Match: nothing below it applies */
	E_OPTION,     /* key, argv and ival */
	E_INCLUDE,    /* argv = paths; only between parse_text() and the splice */
} entry_kind;

/* UserKnownHostsFile none */
#define KNOWN_HOSTS_NONE 1

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

/* A glob as ssh matches Host patterns: '*' any run, '?' one character,
 * case-sensitive.  Iterative, O(len(s) * len(p)) at worst. */
static bool match_glob(const char *s, const char *p)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == '?' || (*p && *p == *s)) {
			s++;
			p++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*') {
		p++;
	}
	return *p == '\0';
}

/* ssh's Host rule: some positive pattern matches and no negated one does. */
static bool host_matches(const entry *e, const char *host)
{
	bool any = false;
	for (int i = 0; i < e->argc; i++) {
		const char *pat = e->argv[i];
		bool negated = pat[0] == '!';
		if (match_glob(host, negated ? pat + 1 : pat)) {
			if (negated) {
				return false;
			}
			any = true;
		}
	}
	return any;
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
		case '%': case 'u': case 'h': case 'r': case 'n':
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
		return 0;
	case K_HOST:
		for (int i = 0; i < p->argc; i++) {
			if (p->argv[i][0] == '\0' || !strcmp(p->argv[i], "!")) {
				return syntax(p, p->cols[i], "empty Host pattern");
			}
		}
		return emit(p, E_HOST, key, 0, 0, p->argc);
	case K_MATCH:
		if (p->argc == 1 && !strcasecmp(p->argv[0], "all")) {
			return emit(p, E_MATCH_ALL, key, 0, 0, 0);
		}
		add_warning(p->cfg,
			    "%s:%u: Match is not supported; its block (up to the next Host or "
			    "Match) is ignored",
			    p->file, p->line);
		return emit(p, E_MATCH_SKIP, key, 0, 0, 0);
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
			return emit(p, E_OPTION, key, KNOWN_HOSTS_NONE, 0, 0);
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
	if (split_values(p, s, pos, n) != 0) {
		return -1;
	}
	if (p->argc == 0) {
		return syntax(p, value_col, "missing value for %s", keyword);
	}
	return handle(p, lookup(s + kw_start, kw_len), keyword);
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

typedef void (*visit_fn)(const entry *e, void *ctx);

/* Call fn for every option that applies to host, in reading order, keeping
 * ssh's state: each file starts active, Host/Match lines switch it, and an
 * Include inside an inactive block can never become active. */
static void walk(const ssh_config *cfg, const char *host, visit_fn fn, void *ctx)
{
	struct {
		bool active, never;
	} stack[MAX_DEPTH + 2];
	int sp = 0;
	bool active = true, never = false;

	for (size_t i = 0; i < cfg->entries.n; i++) {
		const entry *e = &cfg->entries.v[i];
		switch (e->kind) {
		case E_FILE:
			active = true;
			never = false;
			sp = 0;
			break;
		case E_INC_BEGIN:
			if (sp < (int)(sizeof stack / sizeof stack[0])) {
				stack[sp].active = active;
				stack[sp].never = never;
				sp++;
			}
			never = never || !active;
			active = !never;
			break;
		case E_INC_END:
			if (sp > 0) {
				sp--;
				active = stack[sp].active;
				never = stack[sp].never;
			}
			break;
		case E_HOST:
			active = !never && host_matches(e, host);
			break;
		case E_MATCH_ALL:
			active = !never;
			break;
		case E_MATCH_SKIP:
			active = false;
			break;
		case E_OPTION:
			if (active) {
				fn(e, ctx);
			}
			break;
		case E_INCLUDE:
			break;
		}
	}
}

typedef struct {
	ssh_host_options *out;
	const ssh_config *cfg;
	const char *hostname_raw;
	const entry *known_hosts;
	/* token values for path expansion */
	const char *host;        /* %n: the name as given */
	const char *remote_host; /* %h: HostName, else the name */
	const char *remote_user; /* %r: User, else the local user */
} resolver;

static void warn(ssh_host_options *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(ssh_host_options *out, const char *fmt, ...)
{
	char raw[SSH_WARNING_LEN];
	va_list ap;
	if (out->warning[0] != '\0') {
		return; /* keep the first */
	}
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	sanitize_show(raw, strlen(raw), out->warning, sizeof out->warning); /* see set_err() */
}

static void first_scalars(const entry *e, void *ctx)
{
	resolver *r = ctx;
	ssh_host_options *o = r->out;
	switch (e->key) {
	case K_HOSTNAME:
		if (!r->hostname_raw) {
			r->hostname_raw = e->argv[0];
		}
		break;
	case K_USER:
		if (o->user[0] == '\0') {
			snprintf(o->user, sizeof o->user, "%s", e->argv[0]);
		}
		break;
	case K_PORT:
		if (o->port == SSH_OPTION_UNSET) {
			o->port = e->ival;
		}
		break;
	case K_IDENTITIES_ONLY:
		if (o->identities_only == SSH_OPTION_UNSET) {
			o->identities_only = e->ival;
		}
		break;
	case K_KNOWN_HOSTS:
		if (!r->known_hosts) {
			r->known_hosts = e;
		}
		break;
	case K_STRICT:
		if (o->strict_host_key_checking == SSH_STRICT_UNSET) {
			o->strict_host_key_checking = (ssh_strict)e->ival;
		}
		break;
	case K_CONNECT_TIMEOUT:
		if (o->connect_timeout == SSH_OPTION_UNSET) {
			o->connect_timeout = e->ival;
		}
		break;
	case K_SERVER_ALIVE:
		if (o->server_alive_interval == SSH_OPTION_UNSET) {
			o->server_alive_interval = e->ival;
		}
		break;
	default:
		break;
	}
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
			default: return false; /* path_problem() kept these out */
			}
		}
		if (!put(dst, len, &n, v)) {
			return false;
		}
	}
	return true;
}

static void add_identities(const entry *e, void *ctx)
{
	resolver *r = ctx;
	ssh_host_options *o = r->out;
	char path[SSH_PATH_LEN];
	if (e->key != K_IDENTITY_FILE) {
		return;
	}
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

static void options_init(ssh_host_options *out)
{
	memset(out, 0, sizeof *out);
	out->port = SSH_OPTION_UNSET;
	out->identities_only = SSH_OPTION_UNSET;
	out->known_hosts_count = SSH_OPTION_UNSET;
	out->strict_host_key_checking = SSH_STRICT_UNSET;
	out->connect_timeout = SSH_OPTION_UNSET;
	out->server_alive_interval = SSH_OPTION_UNSET;
}

void ssh_config_resolve(const ssh_config *cfg, const char *host, ssh_host_options *out)
{
	resolver r = {.out = out, .cfg = cfg, .host = host ? host : ""};

	options_init(out);
	if (!cfg) {
		return;
	}
	walk(cfg, r.host, first_scalars, &r);

	if (r.hostname_raw) {
		size_t n = 0;
		bool ok = true;
		for (const char *p = r.hostname_raw; *p && ok; p++) {
			char one[2] = {*p, 0};
			if (p[0] == '%' && p[1] == 'h') {
				ok = put(out->hostname, sizeof out->hostname, &n, r.host);
				p++;
			} else if (p[0] == '%' && p[1] == '%') {
				ok = put(out->hostname, sizeof out->hostname, &n, "%");
				p++;
			} else {
				ok = put(out->hostname, sizeof out->hostname, &n, one);
			}
		}
		if (!ok) {
			out->hostname[0] = '\0';
			warn(out, "HostName %s is too long for %s once expanded; ignored",
			     r.hostname_raw, r.host);
		}
	}
	r.remote_host = out->hostname[0] ? out->hostname : r.host;
	r.remote_user = out->user[0] ? out->user : cfg->local_user;

	walk(cfg, r.host, add_identities, &r);

	if (r.known_hosts) {
		const entry *e = r.known_hosts;
		out->known_hosts_count = 0;
		for (int i = 0; e->ival != KNOWN_HOSTS_NONE && i < e->argc; i++) {
			char *dst = out->known_hosts_file[out->known_hosts_count];
			if (!expand_path(&r, e->argv[i], dst, SSH_PATH_LEN)) {
				dst[0] = '\0';
				warn(out, "%s:%u: UserKnownHostsFile %s is too long once expanded; "
				     "ignored", e->file, e->line, e->argv[i]);
				continue;
			}
			out->known_hosts_count++;
		}
	}
}
