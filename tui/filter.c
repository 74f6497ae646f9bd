/* filter.c - substring or regex match on host, status and source. */
#include <config.h>

#include "filter.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "health.h"
#include "columns.h"

void filter_init(node_filter *f)
{
	memset(f, 0, sizeof *f);
}

void filter_free(node_filter *f)
{
	if (f->compiled) {
		regfree(&f->re);
	}
	filter_init(f);
}

static void lower_copy(const char *in, char *out, size_t len)
{
	size_t i = 0;
	for (; in[i] && i + 1 < len; i++) {
		out[i] = (char)tolower((unsigned char)in[i]);
	}
	out[i] = '\0';
}

int filter_set(node_filter *f, const char *text, char *err, size_t err_len)
{
	const char *pattern;
	int rc = 0;

	filter_free(f);
	if (err_len > 0) {
		err[0] = '\0';
	}
	snprintf(f->text, sizeof f->text, "%s", text);
	pattern = f->text;
	if (pattern[0] == '!') {
		f->negate = true;
		pattern++;
	}
	lower_copy(pattern, f->needle, sizeof f->needle);
	if (strpbrk(pattern, ".[]()*+?{}|^$\\")) {
		int e = regcomp(&f->re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (e == 0) {
			f->compiled = true;
			f->use_regex = true;
		} else {
			char why[128];
			regerror(e, &f->re, why, sizeof why);
			/* regcomp frees what it allocated when it fails */
			snprintf(err, err_len, "not a regex (%s): matching it as text", why);
			rc = 1;
		}
	}
	return rc;
}

bool filter_active(const node_filter *f)
{
	return f->text[0] != '\0';
}

static bool contains(const char *hay, const char *needle_lower)
{
	size_t n = strlen(needle_lower);
	if (n == 0) {
		return true;
	}
	for (const char *p = hay; *p; p++) {
		size_t i = 0;
		while (i < n && p[i] && tolower((unsigned char)p[i]) == needle_lower[i]) {
			i++;
		}
		if (i == n) {
			return true;
		}
	}
	return false;
}

static bool field_matches(const node_filter *f, const char *s)
{
	if (f->use_regex) {
		return regexec(&f->re, s, 0, NULL, 0) == 0;
	}
	return contains(s, f->needle);
}

bool filter_match(const node_filter *f, const node *nd)
{
	char host[NODE_NAME_LEN], source[128];
	bool hit;

	if (!filter_active(f)) {
		return true;
	}
	/* Copies: the model's arrays need not be NUL-terminated. */
	snprintf(host, sizeof host, "%.*s", (int)strnlen(nd->host, sizeof nd->host), nd->host);
	columns_source(nd, source, sizeof source);
	hit = field_matches(f, host) || field_matches(f, node_status_name(health_live_status(nd))) ||
	      field_matches(f, source);
	return f->negate ? !hit : hit;
}

bool filter_match_fields(const node_filter *f, const char *const *fields, size_t n)
{
	if (!filter_active(f)) {
		return true;
	}
	bool hit = false;
	for (size_t i = 0; i < n && !hit; i++) {
		hit = fields[i] && field_matches(f, fields[i]);
	}
	return f->negate ? !hit : hit;
}
