/* filter.h - which nodes the grid shows: `/` in the TUI.
 *
 * The text is matched, case-insensitively, against each node's host name,
 * status ("ok", "warn", "crit", "unknown") and sync source.  Plain text is
 * a substring; text with regex characters (. [ ] ( ) * + ? { } | ^ $ \) is
 * a POSIX extended regular expression, or a plain substring again if it
 * does not compile.  A leading '!' keeps the nodes that do NOT match. */
#ifndef SYNCTOP_FILTER_H
#define SYNCTOP_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "node.h"

#define FILTER_TEXT_LEN 256

typedef struct {
	char text[FILTER_TEXT_LEN]; /* as typed, "" = no filter */
	bool negate;
	bool use_regex;
	bool compiled;              /* re holds a compiled pattern */
	regex_t re;
	char needle[FILTER_TEXT_LEN]; /* the substring, lower case */
} node_filter;

void filter_init(node_filter *f);
void filter_free(node_filter *f);

/* Sets the filter text ("" clears it).  Returns 0; when the text looks like
 * a regex but is not a valid one, returns 1 with the reason in err and
 * matches it as a plain substring. */
int filter_set(node_filter *f, const char *text, char *err, size_t err_len);

bool filter_active(const node_filter *f);
bool filter_match(const node_filter *f, const node *nd);

/* The same filter over other text (the events screen: host, kind, subject,
 * from, to, message): true when any of fields[0..n) matches (none, with a
 * leading '!').  NULL fields are skipped. */
bool filter_match_fields(const node_filter *f, const char *const *fields, size_t n);

#endif
