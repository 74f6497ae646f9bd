/* ssh_config_resolve.c - the options for one host from a loaded
 * configuration, walked the way ssh reads its files (readconf.c:
 * process_config_line and match_cfg_line, ssh.c:main's passes and token
 * expansion); see ssh_config.h for what is honoured, refused and noted. */
#include <config.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"
#include "ssh_config.h"
#include "ssh_config_entries.h"
#include "ssh_jump_spec.h"
#include "ssh_match.h"
#include "ssh_unsupported.h"

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
	const char *cli_jump; /* -J; "" = none */
	const char *cli_jump_from;
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
	case K_HOSTNAME:
		if (r->final_pass) {
			return; /* ssh.c:main set it to the final name before that pass */
		}
		break;
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
		   (e->key == K_PORT && r->cli_port > 0) || (e->key == K_HOSTNAME && r->final_pass);
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
		/* -J on the command line decides the route before the files */
		matters = e->ival != VALUE_NONE && !r->first[K_PROXY_COMMAND] &&
			  !r->first[K_PROXY_JUMP] && !r->cli_jump[0];
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
		     "is not used", match->file, match->line, what, ssh_config_key_name(e->key), e->file,
		     e->line);
		return;
	}
	if (matters) {
		refuse(r, match, "%s:%u: synctop does not evaluate 'Match %s', and that block sets %s "
		       "(%s:%u), which decides how %s is reached: move the %s line to a Host block "
		       "for the hosts it is meant for", match->file, match->line, what,
		       ssh_config_key_name(e->key), e->file, e->line, r->host, ssh_config_key_name(e->key));
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
	} stack[SSH_CONFIG_MAX_DEPTH + 2], st = {LEVEL_YES, LEVEL_YES, NULL, NULL, NULL, NULL};
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
			     e->line, ssh_config_key_name(e->key), e->argv[i]);
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
	/* ssh -J sets the jump host before the files are read, and ProxyJump
	 * sets ProxyCommand to "none": neither line in the files applies then
	 * (ssh.c:main case 'J', readconf.c:parse_jump). */
	if (r->cli_jump[0]) {
		snprintf(r->out->proxy_jump, sizeof r->out->proxy_jump, "%s", r->cli_jump);
		snprintf(r->out->proxy_jump_at, sizeof r->out->proxy_jump_at, "%s", r->cli_jump_from);
	} else if ((e = r->first[K_PROXY_JUMP]) && e->ival != VALUE_NONE) {
		ssh_jump_spec spec;
		char why[384];
		if (ssh_jump_spec_parse(e->argv[0], &spec, why, sizeof why) != 0) {
			refuse(r, e, "%s:%u: ProxyJump %s (for %s): %s", e->file, e->line, e->argv[0],
			       host, why);
		} else if (!spec.none) {
			snprintf(r->out->proxy_jump, sizeof r->out->proxy_jump, "%s", e->argv[0]);
			snprintf(r->out->proxy_jump_at, sizeof r->out->proxy_jump_at, "%s:%u", e->file,
				 e->line);
		}
	} else if ((e = r->first[K_PROXY_COMMAND]) && e->ival != VALUE_NONE) {
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
		       ssh_config_key_name(e->key), host);
	}
	if (((e = r->first[K_KNOWN_HOSTS_COMMAND]) && e->ival != VALUE_NONE) ||
	    ((e = r->first[K_REVOKED_HOST_KEYS]) && e->ival != VALUE_NONE)) {
		refuse(r, e, "%s:%u: %s applies to %s, and synctop checks host keys against "
		       "known_hosts files only (UserKnownHostsFile, GlobalKnownHostsFile, @revoked "
		       "lines): list the keys there and set %s none for it", e->file, e->line,
		       ssh_config_key_name(e->key), host, ssh_config_key_name(e->key));
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
					 "%s%s (%s:%u)", n ? ", " : "", ssh_config_key_name(e->key), e->file,
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
		.cli_jump = q && q->jump ? q->jump : "",
		.cli_jump_from = q && q->jump_from ? q->jump_from : "-J",
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
	/* the host name ssh goes on with: lowercased unless an address */
	final_host_name(&r, out->hostname[0] ? out->hostname : r.host);
	if (out->hostname[0]) {
		snprintf(out->hostname, sizeof out->hostname, "%s", r.final_host);
	}
	/* ssh.c:main reads the files again when a Match line asked for
	 * "final" (the same happens after canonicalization, which check_route()
	 * refuses): Host and "Match host" then see the final host name, and
	 * only what is still unset can be obtained. */
	if (r.wants_final && out->error[0] == '\0') {
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

	r.remote_host = r.final_host; /* %h: ssh.c:main's cinfo->remhost */
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
