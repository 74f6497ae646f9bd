/* ssh_jump_spec.c - parse a ProxyJump / -J value (ssh_jump_spec.h).
 *
 * Follows OpenSSH 9.x: readconf.c:parse_jump splits at commas,
 * misc.c:parse_ssh_uri takes "ssh://", misc.c:parse_user_host_port takes
 * the user up to the last '@', then hpdelim2 a host (in [] for an IPv6
 * address) and an optional port after ':' or '/'.  Port names
 * (getservbyname) are not accepted here: they would make a pure parser
 * depend on /etc/services, and nobody writes them. */
#include <config.h>

#include "ssh_jump_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ssh.c:ssh_valid_hostname refuses these in a -J host; readconf does not
 * check config values, but a space or quote in a host name can only be a
 * mistake, so both are refused. */
static bool valid_host(const char *s)
{
	if (!*s || *s == '-') {
		return false;
	}
	for (const char *c = s; *c; c++) {
		if (strchr("'`\"$\\;&<>|(){} \t", *c) || (unsigned char)*c < 0x20 || *c == 0x7f) {
			return false;
		}
	}
	return true;
}

static int parse_port(const char *s, int *port)
{
	char *end = NULL;
	if (!*s || strspn(s, "0123456789") != strlen(s)) {
		return -1;
	}
	long v = strtol(s, &end, 10);
	if (v < 1 || v > 65535) {
		return -1;
	}
	*port = (int)v;
	return 0;
}

/* One hop, already cut out of the list; `s` is modified. */
static int parse_hop(char *s, ssh_jump_hop *hop, char *why, size_t why_len)
{
	memset(hop, 0, sizeof *hop);
	bool uri = strncasecmp(s, "ssh://", 6) == 0;
	if (uri) {
		s += 6;
		size_t n = strlen(s);
		if (n && s[n - 1] == '/') {
			s[n - 1] = '\0'; /* parse_ssh_uri allows one trailing slash */
		}
	}
	char *at = strrchr(s, '@');
	if (at) {
		*at = '\0';
		if (!*s) {
			snprintf(why, why_len, "empty user name before '@'");
			return -1;
		}
		for (const char *u = s; *u; u++) {
			/* ':' and '/' would not read back ("ssh://ssh://@h", found
			 * by fuzzing), and no login name has them */
			if ((unsigned char)*u <= 0x20 || *u == 0x7f || *u == ':' || *u == '/') {
				snprintf(why, why_len, "a blank, ':', '/' or control character in the user name");
				return -1;
			}
		}
		if (strlen(s) >= sizeof hop->user) {
			snprintf(why, why_len, "user name longer than %zu characters", sizeof hop->user - 1);
			return -1;
		}
		snprintf(hop->user, sizeof hop->user, "%s", s);
		s = at + 1;
	}
	char *host = s, *rest = NULL;
	if (*s == '[') {
		char *close = strchr(s, ']');
		if (!close) {
			snprintf(why, why_len, "'[' without ']'");
			return -1;
		}
		*close = '\0';
		host = s + 1;
		rest = close + 1;
		if (*rest && *rest != ':' && (uri || *rest != '/')) {
			snprintf(why, why_len, "unexpected '%s' after ']'", rest);
			return -1;
		}
	} else {
		rest = strpbrk(s, uri ? ":" : ":/");
		if (!rest) {
			rest = s + strlen(s);
		}
	}
	if (*rest) {
		*rest++ = '\0';
		if (parse_port(rest, &hop->port) != 0) {
			snprintf(why, why_len, "bad port '%s' (1 to 65535)", rest);
			return -1;
		}
	}
	if (!valid_host(host)) {
		snprintf(why, why_len, *host ? "invalid host name '%s'" : "no host name%s", host);
		return -1;
	}
	if (strlen(host) >= sizeof hop->host) {
		snprintf(why, why_len, "host name longer than %zu characters", sizeof hop->host - 1);
		return -1;
	}
	snprintf(hop->host, sizeof hop->host, "%s", host);
	return 0;
}

int ssh_jump_spec_parse(const char *value, ssh_jump_spec *out, char *err, size_t err_len)
{
	char buf[2048], why[256];
	memset(out, 0, sizeof *out);
	if (!value) {
		value = "";
	}
	if (strlen(value) >= sizeof buf) {
		snprintf(err, err_len, "ProxyJump value longer than %zu characters", sizeof buf - 1);
		return -1;
	}
	snprintf(buf, sizeof buf, "%s", value);
	/* leading and trailing blanks go, and a '#' comment (parse_jump) */
	char *hash = strchr(buf, '#');
	if (hash) {
		*hash = '\0';
	}
	char *s = buf + strspn(buf, " \t");
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) {
		s[--n] = '\0';
	}
	if (strcasecmp(s, "none") == 0) {
		out->none = true;
		return 0;
	}
	if (!*s) {
		snprintf(err, err_len, "empty ProxyJump value");
		return -1;
	}
	int index = 0;
	/* cut at every comma: "a,,b" has an empty hop, which is an error */
	for (char *cur = s; cur; index++) {
		char *comma = strchr(cur, ',');
		if (comma) {
			*comma = '\0';
		}
		if (out->count == SSH_JUMP_MAX_HOPS) {
			snprintf(err, err_len, "more than %d jump hosts", SSH_JUMP_MAX_HOPS);
			memset(out, 0, sizeof *out);
			return -1;
		}
		if (parse_hop(cur, &out->hop[out->count], why, sizeof why) != 0) {
			snprintf(err, err_len, "jump host %d ('%.200s'): %s", index + 1, cur, why);
			memset(out, 0, sizeof *out);
			return -1;
		}
		out->count++;
		cur = comma ? comma + 1 : NULL;
	}
	return 0;
}

void ssh_jump_hop_format(const ssh_jump_hop *hop, char *out, size_t len)
{
	bool v6 = strchr(hop->host, ':') != NULL;
	char port[16] = "";
	if (hop->port) {
		snprintf(port, sizeof port, ":%d", hop->port);
	}
	/* brackets around any host with a ':', port or not: it reads back
	 * as one host (found by fuzzing: "[:]") */
	snprintf(out, len, "%s%s%s%s%s%s", hop->user, hop->user[0] ? "@" : "", v6 ? "[" : "", hop->host,
		 v6 ? "]" : "", port);
}
