/* ssh_match.c - Host patterns and Match criteria as OpenSSH evaluates them
 * (see ssh_match.h).  Written from the semantics of openssh-portable
 * match.c (match_pattern, match_pattern_list, match_hostname) and
 * readconf.c:match_cfg_line; no code is taken from there. */
#include <config.h>

#include "ssh_match.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* One glob, iteratively: O(len(s) * len(p)) at worst, no recursion. */
static bool glob_n(const char *s, const char *p, size_t plen, bool lower)
{
	const char *pend = p + plen;
	const char *star = NULL, *resume = NULL;
	while (*s) {
		char c = *s, pc = p < pend ? *p : '\0';
		if (lower) {
			c = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
			pc = (pc >= 'A' && pc <= 'Z') ? (char)(pc - 'A' + 'a') : pc;
		}
		if (p < pend && *p == '*') {
			star = p++;
			resume = s;
		} else if (p < pend && (*p == '?' || pc == c)) {
			s++;
			p++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (p < pend && *p == '*') {
		p++;
	}
	return p == pend;
}

bool ssh_match_pattern(const char *s, const char *pattern)
{
	return glob_n(s, pattern, strlen(pattern), false);
}

int ssh_match_pattern_list(const char *s, const char *list, bool lower)
{
	int got_positive = 0;
	const char *p = list;
	if (!s || !p) {
		return 0;
	}
	while (*p) {
		bool negated = *p == '!';
		if (negated) {
			p++;
		}
		size_t n = strcspn(p, ",");
		/* match.c gives up on a subpattern of 1023+ characters: no match */
		if (n >= 1023) {
			return 0;
		}
		if (glob_n(s, p, n, lower)) {
			if (negated) {
				return -1;
			}
			got_positive = 1;
		}
		p += n;
		if (*p == ',') {
			p++;
		}
	}
	return got_positive;
}

/* --------------------------------------------------------- the criteria */

typedef enum {
	C_ALL,
	C_CANONICAL,
	C_FINAL,
	C_HOST,
	C_ORIGINALHOST,
	C_USER,
	C_LOCALUSER,
	C_LOCALNETWORK,
	C_VERSION,
	C_TAGGED,
	C_COMMAND,
	C_SESSIONTYPE,
	C_EXEC,
} criterion_id;

/* readconf.c:match_cfg_line's list: which take an argument, which may be
 * written "name=arg", which accept an empty argument, which we evaluate. */
static const struct {
	const char *name;
	criterion_id id;
	bool takes_arg;
	bool eq_form;
	bool empty_ok;
	bool evaluated;
} criteria[] = {
	{"all", C_ALL, false, false, false, true},
	{"canonical", C_CANONICAL, false, false, false, true},
	{"final", C_FINAL, false, false, false, true},
	{"host", C_HOST, true, true, false, true},
	{"originalhost", C_ORIGINALHOST, true, true, false, true},
	{"user", C_USER, true, true, false, true},
	{"localuser", C_LOCALUSER, true, true, false, true},
	{"localnetwork", C_LOCALNETWORK, true, true, false, false},
	{"version", C_VERSION, true, true, false, false},
	{"tagged", C_TAGGED, true, true, true, false},
	{"command", C_COMMAND, true, true, true, false},
	{"sessiontype", C_SESSIONTYPE, true, false, false, false},
	{"exec", C_EXEC, true, true, false, false},
};

typedef struct {
	size_t row;      /* in criteria[] */
	bool negate;
	const char *arg; /* NULL for those without one */
	size_t arg_len;
} criterion;

/* Read the criterion starting at argv[*i] and move *i past it.  0, or -1
 * with why and *bad. */
static int next_criterion(int argc, char *const *argv, int *i, int seen, criterion *c, int *bad,
			  char *why, size_t why_len)
{
	const char *attrib = argv[*i];
	int at = *i;
	memset(c, 0, sizeof *c);
	c->negate = attrib[0] == '!';
	if (c->negate) {
		attrib++;
	}
	const char *eq = strchr(attrib, '=');
	size_t name_len = eq ? (size_t)(eq - attrib) : strlen(attrib);
	size_t row = sizeof criteria / sizeof criteria[0];
	for (size_t k = 0; k < sizeof criteria / sizeof criteria[0]; k++) {
		if (strlen(criteria[k].name) == name_len &&
		    !strncasecmp(criteria[k].name, attrib, name_len) && (!eq || criteria[k].eq_form)) {
			row = k;
			break;
		}
	}
	*bad = at;
	if (row == sizeof criteria / sizeof criteria[0]) {
		snprintf(why, why_len, "unsupported Match criterion '%s'", argv[at]);
		return -1;
	}
	c->row = row;
	(*i)++;
	if (criteria[row].id == C_ALL) {
		/* readconf.c:match_cfg_line: "all" stands alone, or last after
		 * at most one other criterion */
		if (seen > 1 || *i < argc) {
			snprintf(why, why_len, "'%s' cannot be combined with other Match criteria",
				 argv[at]);
			return -1;
		}
		return 0;
	}
	if (!criteria[row].takes_arg) {
		return 0;
	}
	if (eq) {
		c->arg = eq + 1;
	} else if (*i < argc) {
		*bad = *i;
		c->arg = argv[(*i)++];
	} else {
		snprintf(why, why_len, "missing argument for Match '%s'", argv[at]);
		return -1;
	}
	c->arg_len = strlen(c->arg);
	if (c->arg_len == 0 && !criteria[row].empty_ok) {
		snprintf(why, why_len, "empty argument for Match '%s'", argv[at]);
		return -1;
	}
	return 0;
}

int ssh_match_check(int argc, char *const *argv, int *bad, char *why, size_t why_len)
{
	int i = 0, seen = 0;
	*bad = 0;
	if (argc == 0) {
		snprintf(why, why_len, "Match needs at least one criterion");
		return -1;
	}
	while (i < argc) {
		criterion c;
		if (next_criterion(argc, argv, &i, seen, &c, bad, why, why_len) != 0) {
			return -1;
		}
		seen++;
	}
	return 0;
}

/* One criterion's own answer, before negation. */
static ssh_match_result evaluate(const criterion *c, const ssh_match_context *ctx)
{
	int r;
	switch (criteria[c->row].id) {
	case C_CANONICAL:
	case C_FINAL:
		/* both are true exactly in the final pass (r = !!final_pass) */
		return ctx->final_pass ? SSH_MATCH_YES : SSH_MATCH_NO;
	case C_HOST:
		/* match.c:match_hostname: host and patterns compared in lower case */
		r = ssh_match_pattern_list(ctx->host, c->arg, true);
		return r == 1 ? SSH_MATCH_YES : SSH_MATCH_NO;
	case C_ORIGINALHOST:
		r = ssh_match_pattern_list(ctx->original_host, c->arg, true);
		return r == 1 ? SSH_MATCH_YES : SSH_MATCH_NO;
	case C_USER:
		r = ssh_match_pattern_list(ctx->user, c->arg, false);
		return r == 1 ? SSH_MATCH_YES : SSH_MATCH_NO;
	case C_LOCALUSER:
		r = ssh_match_pattern_list(ctx->local_user, c->arg, false);
		return r == 1 ? SSH_MATCH_YES : SSH_MATCH_NO;
	case C_ALL:
		return SSH_MATCH_YES;
	default:
		return SSH_MATCH_UNKNOWN;
	}
}

ssh_match_result ssh_match_eval(int argc, char *const *argv, const ssh_match_context *ctx,
				bool *wants_final, const char **unevaluated)
{
	ssh_match_result result = SSH_MATCH_YES;
	int i = 0, seen = 0, bad;
	char why[8];
	*unevaluated = NULL;
	while (i < argc) {
		criterion c;
		if (next_criterion(argc, argv, &i, seen, &c, &bad, why, sizeof why) != 0) {
			return SSH_MATCH_NO; /* ssh_match_check() refused it at load time */
		}
		seen++;
		criterion_id id = criteria[c.row].id;
		if (id == C_FINAL && !c.negate) {
			*wants_final = true;
		}
		if (id == C_ALL) {
			/* "if (result) result = negate ? 0 : 1": an unknown result
			 * stays unknown unless negated */
			if (c.negate) {
				result = SSH_MATCH_NO;
			}
			break;
		}
		ssh_match_result r = evaluate(&c, ctx);
		if (r != SSH_MATCH_UNKNOWN && c.negate) {
			r = r == SSH_MATCH_YES ? SSH_MATCH_NO : SSH_MATCH_YES;
		}
		if (r == SSH_MATCH_NO) {
			result = SSH_MATCH_NO;
		} else if (r == SSH_MATCH_UNKNOWN && result == SSH_MATCH_YES) {
			result = SSH_MATCH_UNKNOWN;
			*unevaluated = criteria[c.row].name;
		}
	}
	if (result != SSH_MATCH_UNKNOWN) {
		*unevaluated = NULL;
	}
	return result;
}
