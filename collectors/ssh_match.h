/* ssh_match.h - OpenSSH's host patterns and Match criteria, evaluated the
 * way ssh evaluates them (match.c, readconf.c:match_cfg_line).  Pure: the
 * caller hands over everything a criterion looks at.
 *
 * Evaluated: all, host, originalhost, user, localuser, canonical, final.
 * Not evaluated (the answer is SSH_MATCH_UNKNOWN unless another criterion
 * already rules the line out): exec (it runs a command), localnetwork,
 * tagged, version, command, sessiontype.  The caller decides what an
 * unknown block may do (ssh_config.c refuses the keys that matter). */
#ifndef SYNCTOP_SSH_MATCH_H
#define SYNCTOP_SSH_MATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	SSH_MATCH_NO = 0,
	SSH_MATCH_YES,
	SSH_MATCH_UNKNOWN,
} ssh_match_result;

/* One glob: '*' any run, '?' one character, case-sensitive (match.c:
 * match_pattern). */
bool ssh_match_pattern(const char *s, const char *pattern);

/* A comma list of globs, each may be negated with '!' (match.c:
 * match_pattern_list): -1 when a negated one matches, 1 when a positive one
 * does, else 0.  lower: compare s and the patterns in lower case (what
 * match_hostname does for host names). */
int ssh_match_pattern_list(const char *s, const char *list, bool lower);

/* What the criteria look at, as ssh has it while reading the line. */
typedef struct {
	const char *host;          /* "host": HostName obtained so far with %h
				    * expanded, else the name as given; in the
				    * final pass the final host name */
	const char *original_host; /* "originalhost": the name as given */
	const char *user;          /* "user": the remote user so far (command
				    * line, else User so far, else local user) */
	const char *local_user;    /* "localuser" */
	bool final_pass;           /* "canonical" and "final" are true */
} ssh_match_context;

/* A Match line's values (after the keyword, unquoted) are well formed, as
 * ssh checks them.  0, or -1 with why filled and *bad the index of the
 * value at fault. */
int ssh_match_check(int argc, char *const *argv, int *bad, char *why, size_t why_len);

/* Evaluate a checked line.  Criteria are ANDed; '!' negates one.
 * *wants_final becomes true when a "final" criterion without '!' is met
 * (ssh then reads the files a second time; it is set whatever the result,
 * as ssh sets it).  When the answer is SSH_MATCH_UNKNOWN, *unevaluated
 * names the first criterion that could not be evaluated ("exec"). */
ssh_match_result ssh_match_eval(int argc, char *const *argv, const ssh_match_context *ctx,
				bool *wants_final, const char **unevaluated);

#endif
