/* hostlist.c - Slurm/pdsh host list expansion (see hostlist.h for the grammar).
 *
 * Expansion: two passes over the text: the first validates every element and counts the
 * names (saturating, so "[1-999999999999999999]" cannot overflow), the second
 * walks each element's bracket groups like an odometer.  Nothing recurses and
 * nothing is allocated; work is linear in the text plus the names produced.
 *
 * Compression (hostlist_compress): split each name into prefix and trailing
 * number, sort, and write runs; O(n log n) in the names. */
#include <config.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"
#include "hostlist.h"
#include "sanitize.h"
#include "xalloc.h"

/* 18 digits always fit in uint64_t, and no host number is that long. */
#define MAX_DIGITS 18

typedef struct {
	size_t open;  /* offset of '[' */
	size_t close; /* offset of the matching ']' */
	bool literal; /* holds ':': an IPv6 address, copied verbatim */
	/* odometer state for range groups */
	size_t item;  /* offset of the current item */
	size_t next;  /* offset just past the current item (',' or close) */
	uint64_t val;
	uint64_t hi;
	int width;
} group;

typedef struct {
	size_t start; /* element is s[start, end) */
	size_t end;
	int ngroups;
	group g[HOSTLIST_MAX_GROUPS];
	uint64_t count; /* names, saturated at HOSTLIST_MAX_HOSTS + 1 */
} element;

typedef struct {
	const char *s;
	size_t len;
	size_t *column;
	char *err;
	size_t err_len;
} parser;

static int fail(parser *p, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(parser *p, size_t off, const char *fmt, ...)
{
	*p->column = off + 1;
	if (p->err && p->err_len > 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, p->err_len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t cap = (uint64_t)HOSTLIST_MAX_HOSTS + 1;
	return (a >= cap || b >= cap || a + b >= cap) ? cap : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t cap = (uint64_t)HOSTLIST_MAX_HOSTS + 1;
	if (a == 0 || b == 0) {
		return 0;
	}
	if (a >= cap || b >= cap || a > cap / b) {
		return cap;
	}
	return a * b < cap ? a * b : cap;
}

static int digits_of(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Parse one number at *pos (before `close`).  what names it in messages. */
static int parse_number(parser *p, size_t *pos, size_t close, const char *what, uint64_t *v,
			int *width)
{
	size_t i = *pos;
	char cb[SANITIZE_SHOW_CHAR_LEN];
	if (i >= close || !is_digit(p->s[i])) {
		if (i >= close || p->s[i] == ',') {
			return fail(p, i, "missing %s in range", what);
		}
		return fail(p, i, "expected a digit for the %s, found %s", what,
			    sanitize_show_char((unsigned char)p->s[i], cb));
	}
	uint64_t n = 0;
	int d = 0;
	while (i < close && is_digit(p->s[i])) {
		if (++d > MAX_DIGITS) {
			return fail(p, *pos, "number longer than %d digits", MAX_DIGITS);
		}
		n = n * 10 + (uint64_t)(p->s[i] - '0');
		i++;
	}
	*v = n;
	*width = d;
	*pos = i;
	return 0;
}

/* Parse the range item starting at `item` inside the group ending at `close`:
 * "N" or "N-M".  Sets the bounds, the padding width and where the item ends. */
static int parse_item(parser *p, size_t item, size_t close, uint64_t *lo, uint64_t *hi, int *width,
		      size_t *next)
{
	size_t i = item;
	int hi_width;
	char cb[SANITIZE_SHOW_CHAR_LEN];
	*lo = 0; /* set on every path, for the analyzers too */
	*width = 0;
	if (parse_number(p, &i, close, "lower bound", lo, width) != 0) {
		return -1;
	}
	*hi = *lo;
	if (i < close && p->s[i] == '-') {
		i++;
		if (parse_number(p, &i, close, "upper bound", hi, &hi_width) != 0) {
			return -1;
		}
		if (*hi < *lo) {
			return fail(p, item, "reversed range %.*s (lower bound above upper bound)",
				    (int)(i - item), p->s + item);
		}
	}
	if (i < close && p->s[i] != ',') {
		return fail(p, i, "unexpected %s in range, expected ',' or ']'",
			    sanitize_show_char((unsigned char)p->s[i], cb));
	}
	*next = i;
	return 0;
}

/* Validate the range group g: every item, the number of names it yields and
 * the longest number it prints. */
static int scan_ranges(parser *p, const group *g, uint64_t *count, size_t *width)
{
	size_t item = g->open + 1;
	*count = 0;
	*width = 0;
	for (;;) {
		uint64_t lo, hi;
		int w;
		size_t next;
		if (parse_item(p, item, g->close, &lo, &hi, &w, &next) != 0) {
			return -1;
		}
		*count = sat_add(*count, sat_add(hi - lo, 1));
		size_t longest = (size_t)(w > digits_of(hi) ? w : digits_of(hi));
		if (longest > *width) {
			*width = longest;
		}
		if (next >= g->close) {
			return 0;
		}
		item = next + 1; /* skip ',' */
	}
}

/* Parse and validate the element s[start, end): find its bracket groups,
 * count its names and bound their length. */
static int parse_element(parser *p, size_t start, size_t end, element *e)
{
	char cb[SANITIZE_SHOW_CHAR_LEN];
	size_t name_len = 0;
	e->start = start;
	e->end = end;
	e->ngroups = 0;
	e->count = 1;
	if (start == end) {
		return fail(p, start, "empty host name");
	}
	for (size_t i = start; i < end; i++) {
		unsigned char c = (unsigned char)p->s[i];
		if (c == ']') {
			return fail(p, i, "']' without a matching '['");
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
			return fail(p, i, "whitespace in a host list");
		}
		if (c < 0x20 || c == 0x7f) {
			return fail(p, i, "control character %s in a host list", sanitize_show_char(c, cb));
		}
		if (c != '[') {
			name_len++;
			continue;
		}
		size_t j = i + 1;
		while (j < end && p->s[j] != ']') {
			if (p->s[j] == '[') {
				return fail(p, j, "'[' inside brackets");
			}
			j++;
		}
		if (j >= end) {
			return fail(p, i, "'[' without a matching ']'");
		}
		if (j == i + 1) {
			return fail(p, i, "empty brackets");
		}
		if (e->ngroups == HOSTLIST_MAX_GROUPS) {
			return fail(p, i, "more than %d bracket groups in one name",
				    HOSTLIST_MAX_GROUPS);
		}
		group *g = &e->g[e->ngroups++];
		memset(g, 0, sizeof *g);
		g->open = i;
		g->close = j;
		g->literal = memchr(p->s + i + 1, ':', j - i - 1) != NULL;
		if (g->literal) {
			for (size_t k = i + 1; k < j; k++) {
				c = (unsigned char)p->s[k];
				if (c <= 0x20 || c == 0x7f) {
					return fail(p, k, "character %s in an IPv6 address",
						    sanitize_show_char(c, cb));
				}
			}
			name_len += j - i + 1;
		} else {
			uint64_t n;
			size_t w;
			if (scan_ranges(p, g, &n, &w) != 0) {
				return -1;
			}
			e->count = sat_mul(e->count, n);
			name_len += w;
		}
		i = j;
	}
	if (name_len > HOSTLIST_NAME_MAX) {
		return fail(p, start, "names would be %zu characters long (at most %d)", name_len,
			    HOSTLIST_NAME_MAX);
	}
	return 0;
}

/* End of the element starting at `start`: the next comma outside brackets. */
static size_t element_end(const parser *p, size_t start)
{
	bool inside = false;
	for (size_t i = start; i < p->len; i++) {
		char c = p->s[i];
		if (c == '[') {
			inside = true;
		} else if (c == ']') {
			inside = false;
		} else if (c == ',' && !inside) {
			return i;
		}
	}
	return p->len;
}

/* Set range group g to its first value. */
static int group_rewind(parser *p, group *g)
{
	uint64_t lo;
	g->item = g->open + 1;
	if (parse_item(p, g->item, g->close, &lo, &g->hi, &g->width, &g->next) != 0) {
		return -1;
	}
	g->val = lo;
	return 0;
}

/* Step range group g to its next value.  Returns false when it wrapped. */
static bool group_step(parser *p, group *g)
{
	uint64_t lo;
	if (g->val < g->hi) {
		g->val++;
		return true;
	}
	if (g->next < g->close) {
		g->item = g->next + 1;
		if (parse_item(p, g->item, g->close, &lo, &g->hi, &g->width, &g->next) == 0) {
			g->val = lo;
			return true;
		}
	}
	group_rewind(p, g);
	return false;
}

static size_t put_number(char *dst, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	size_t out = 0;
	for (int pad = width - n; pad > 0; pad--) {
		dst[out++] = '0';
	}
	while (n > 0) {
		dst[out++] = tmp[--n];
	}
	return out;
}

/* Compose the current name of e into name (HOSTLIST_NAME_MAX + 1 bytes;
 * parse_element bounded the length). */
static void compose(const parser *p, const element *e, char *name)
{
	size_t n = 0;
	size_t i = e->start;
	for (int k = 0; k < e->ngroups; k++) {
		const group *g = &e->g[k];
		memcpy(name + n, p->s + i, g->open - i);
		n += g->open - i;
		if (g->literal) {
			memcpy(name + n, p->s + g->open, g->close - g->open + 1);
			n += g->close - g->open + 1;
		} else {
			n += put_number(name + n, g->val, g->width);
		}
		i = g->close + 1;
	}
	memcpy(name + n, p->s + i, e->end - i);
	n += e->end - i;
	name[n] = '\0';
}

/* Deliver every name of a validated element. */
static int emit_element(parser *p, element *e, hostlist_cb cb, void *ctx)
{
	char name[HOSTLIST_NAME_MAX + 1];
	for (int k = 0; k < e->ngroups; k++) {
		if (!e->g[k].literal && group_rewind(p, &e->g[k]) != 0) {
			return -1;
		}
	}
	for (;;) {
		compose(p, e, name);
		if (cb(name, ctx) != 0) {
			*p->column = e->start + 1;
			return -1;
		}
		int k = e->ngroups - 1;
		while (k >= 0 && (e->g[k].literal || !group_step(p, &e->g[k]))) {
			k--;
		}
		if (k < 0) {
			return 0;
		}
	}
}

int hostlist_expand_n(const char *expr, size_t len, hostlist_cb cb, void *ctx, size_t *column,
		      char *err, size_t err_len)
{
	size_t dummy_column = 0;
	parser p = {
		.s = expr ? expr : "",
		.len = expr ? len : 0,
		.column = column ? column : &dummy_column,
		.err = err,
		.err_len = err_len,
	};
	element e;
	uint64_t total = 0;

	*p.column = 0;
	if (p.len == 0) {
		return fail(&p, 0, "empty host list");
	}
	/* pass 1: validate everything and count */
	for (size_t start = 0;;) {
		size_t end = element_end(&p, start);
		if (parse_element(&p, start, end, &e) != 0) {
			return -1;
		}
		total = sat_add(total, e.count);
		if (total > HOSTLIST_MAX_HOSTS) {
			return fail(&p, start, "host list expands to more than %d names",
				    HOSTLIST_MAX_HOSTS);
		}
		if (end >= p.len) {
			break;
		}
		start = end + 1;
	}
	if (!cb) {
		return 0;
	}
	/* pass 2: deliver */
	for (size_t start = 0;;) {
		size_t end = element_end(&p, start);
		if (parse_element(&p, start, end, &e) != 0 || emit_element(&p, &e, cb, ctx) != 0) {
			return -1;
		}
		if (end >= p.len) {
			return 0;
		}
		start = end + 1;
	}
}

int hostlist_expand(const char *expr, hostlist_cb cb, void *ctx, char *err, size_t err_len)
{
	char msg[256] = "";
	size_t column = 0;

	if (hostlist_expand_n(expr, expr ? strlen(expr) : 0, cb, ctx, &column, msg, sizeof msg) == 0) {
		return 0;
	}
	/* every syntax message is non-empty; an empty one means cb stopped us */
	if (msg[0] != '\0' && err && err_len > 0) {
		snprintf(err, err_len, "column %zu: %s", column, msg);
	}
	return -1;
}

/* ------------------------------------------------------------ compression */

typedef struct {
	const char *name;
	size_t len;
	size_t plen;   /* prefix: name[0, plen) */
	bool numbered; /* a trailing number of at most MAX_DIGITS digits */
	uint64_t val;
	int digits;    /* how it is written, leading zeros included */
} entry;

static int cmp_entry(const void *x, const void *y)
{
	const entry *a = x, *b = y;
	size_t n = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->name, b->name, n);
	if (c != 0) {
		return c;
	}
	if (a->plen != b->plen) {
		return a->plen < b->plen ? -1 : 1;
	}
	/* a name without a number sorts before its numbered namesakes, as in
	 * Slurm's hostrange_prefix_cmp() */
	if (a->numbered != b->numbered) {
		return a->numbered ? 1 : -1;
	}
	if (a->val != b->val) {
		return a->val < b->val ? -1 : 1;
	}
	return (a->digits > b->digits) - (a->digits < b->digits);
}

static bool same_group(const entry *a, const entry *b)
{
	return a->numbered && b->numbered && a->plen == b->plen && memcmp(a->name, b->name, a->plen) == 0;
}

static int count_one(const char *host, void *ctx)
{
	size_t *count = ctx;
	(*count)++;
	return 0;
}

/* A name with brackets goes out as it is only if the expander gives it back
 * unchanged: exactly one name, the same bytes. */
static int same_name(const char *host, void *ctx)
{
	return strcmp(host, ctx) != 0;
}

static bool self_expanding(const char *name)
{
	size_t count = 0;
	char err[16];
	if (hostlist_expand(name, count_one, &count, err, sizeof err) != 0 || count != 1) {
		return false;
	}
	return hostlist_expand(name, same_name, (void *)name, err, sizeof err) == 0;
}

static int split_name(const char *name, entry *e, char *err, size_t err_len)
{
	char shown[80];
	size_t len = strlen(name);
	memset(e, 0, sizeof *e);
	e->name = name;
	e->len = len;
	e->plen = len;
	if (len == 0) {
		snprintf(err, err_len, "empty host name");
		return -1;
	}
	if (len > HOSTLIST_NAME_MAX) {
		snprintf(err, err_len, "host name of %zu characters (at most %d)", len, HOSTLIST_NAME_MAX);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c <= 0x20 || c == 0x7f || c == ',') {
			sanitize_show(name, len, shown, sizeof shown);
			snprintf(err, err_len, "host name '%s' cannot be written in a host list", shown);
			return -1;
		}
	}
	if (strchr(name, '[') || strchr(name, ']')) {
		if (!self_expanding(name)) {
			sanitize_show(name, len, shown, sizeof shown);
			snprintf(err, err_len, "host name '%s' cannot be written in a host list", shown);
			return -1;
		}
		return 0; /* written as it is */
	}
	size_t start = len;
	while (start > 0 && is_digit(name[start - 1])) {
		start--;
	}
	if (start == len || len - start > MAX_DIGITS) {
		return 0; /* no number, or one too long to be one */
	}
	e->numbered = true;
	e->plen = start;
	e->digits = (int)(len - start);
	for (size_t i = start; i < len; i++) {
		e->val = e->val * 10 + (uint64_t)(name[i] - '0');
	}
	return 0;
}

/* Whether e prints as itself at width w: its digits are the value padded
 * to w (an unpadded number wider than w prints whole). */
static bool fits_width(const entry *e, int w)
{
	int natural = digits_of(e->val);
	return e->digits == (w > natural ? w : natural);
}

static void append_number(bytebuf *b, uint64_t v, int width)
{
	char tmp[MAX_DIGITS + 24];
	size_t n = put_number(tmp, v, width);
	bytebuf_append(b, tmp, n);
}

/* Write the bracket items of the group g[0..n): runs of consecutive values
 * that print at the run's first width. */
static void append_items(bytebuf *b, const entry *g, size_t n)
{
	for (size_t i = 0; i < n;) {
		int w = g[i].digits;
		size_t j = i;
		while (j + 1 < n && g[j + 1].val == g[j].val + 1 && fits_width(&g[j + 1], w)) {
			j++;
		}
		if (i > 0) {
			bytebuf_append(b, ",", 1);
		}
		append_number(b, g[i].val, w);
		if (j > i) {
			bytebuf_append(b, "-", 1);
			append_number(b, g[j].val, w);
		}
		i = j + 1;
	}
}

char *hostlist_compress(const char *const *names, size_t n, char *err, size_t err_len)
{
	char scratch[256];
	bytebuf out = {0};
	entry *e = xmalloc((n ? n : 1) * sizeof *e);
	size_t m = 0;

	if (!err || err_len == 0) {
		err = scratch;
		err_len = sizeof scratch;
	}
	for (size_t i = 0; i < n; i++) {
		if (split_name(names[i], &e[m], err, err_len) != 0) {
			free(e);
			return NULL;
		}
		m++;
	}
	qsort(e, m, sizeof *e, cmp_entry);
	/* duplicates are neighbours now */
	size_t u = 0;
	for (size_t i = 0; i < m; i++) {
		if (u > 0 && e[u - 1].len == e[i].len && memcmp(e[u - 1].name, e[i].name, e[i].len) == 0) {
			continue;
		}
		e[u++] = e[i];
	}
	for (size_t i = 0; i < u;) {
		size_t j = i + 1;
		while (j < u && same_group(&e[i], &e[j])) {
			j++;
		}
		if (i > 0) {
			bytebuf_append(&out, ",", 1);
		}
		if (j - i == 1) {
			bytebuf_append(&out, e[i].name, e[i].len);
		} else {
			if (e[i].plen > 0) { /* bytebuf_append wants a buffer even for 0 bytes */
				bytebuf_append(&out, e[i].name, e[i].plen);
			}
			bytebuf_append(&out, "[", 1);
			append_items(&out, e + i, j - i);
			bytebuf_append(&out, "]", 1);
		}
		i = j;
	}
	free(e);
	bytebuf_append(&out, "", 1); /* the terminating NUL */
	return out.data;
}
