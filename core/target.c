/* target.c - parse inventory entries and hosts files into target lists.
 *
 * Everything but target_list_read_file() is pure; that one only reads the
 * file into memory and hands it to target_list_parse(). */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "sanitize.h"
#include "textfile.h"
#include "target.h"

/* Room for a message quoting a whole expanded name. */
#define MSG_LEN (HOSTLIST_NAME_MAX + 288)

/* Where a parse failed (1-based column) and why. */
typedef struct {
	size_t column;
	char msg[224];
} problem;

static int fail(problem *pb, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(problem *pb, size_t off, const char *fmt, ...)
{
	va_list ap;
	pb->column = off + 1;
	va_start(ap, fmt);
	vsnprintf(pb->msg, sizeof pb->msg, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_user_char(char c)
{
	/* '@' and '$' occur in directory-service and machine account names */
	return is_alnum(c) || c == '.' || c == '_' || c == '-' || c == '@' || c == '$';
}

static bool is_host_char(char c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '-';
}

/* s[off, off+len) is a host name. */
static int check_name(const char *s, size_t off, size_t len, problem *pb)
{
	char cb[SANITIZE_SHOW_CHAR_LEN];
	if (len == 0) {
		return fail(pb, off, "missing host name");
	}
	if (len >= TARGET_HOST_LEN) {
		return fail(pb, off, "host name longer than %d characters", TARGET_HOST_LEN - 1);
	}
	if (s[off] == '-') {
		return fail(pb, off, "host name starts with '-' (it would read as an option)");
	}
	for (size_t i = off; i < off + len; i++) {
		if (!is_host_char(s[i])) {
			return fail(pb, i, "character %s not allowed in a host name",
				    sanitize_show_char((unsigned char)s[i], cb));
		}
	}
	return 0;
}

/* s[off, off+len) is an IPv6 address with an optional %zone. */
static int check_v6(const char *s, size_t off, size_t len, problem *pb)
{
	char addr[INET6_ADDRSTRLEN + 1];
	unsigned char bin[16];
	char cb[SANITIZE_SHOW_CHAR_LEN];
	const char *pct = memchr(s + off, '%', len);
	size_t alen = pct ? (size_t)(pct - (s + off)) : len;

	if (len == 0) {
		return fail(pb, off, "missing IPv6 address");
	}
	if (len >= TARGET_HOST_LEN) {
		return fail(pb, off, "IPv6 address longer than %d characters", TARGET_HOST_LEN - 1);
	}
	if (alen == 0 || alen >= sizeof addr) {
		return fail(pb, off, "not an IPv6 address");
	}
	memcpy(addr, s + off, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET6, addr, bin) != 1) {
		char shown[4 * sizeof addr];
		sanitize_show(addr, alen, shown, sizeof shown);
		return fail(pb, off, "not an IPv6 address: %s", shown);
	}
	if (pct) {
		size_t z = off + alen + 1;
		if (z >= off + len) {
			return fail(pb, z - 1, "empty zone after '%%'");
		}
		for (size_t i = z; i < off + len; i++) {
			if (!is_host_char(s[i])) {
				return fail(pb, i, "character %s not allowed in an IPv6 zone",
					    sanitize_show_char((unsigned char)s[i], cb));
			}
		}
	}
	return 0;
}

/* s[off, len) after a ':' is a port. */
static int parse_port(const char *s, size_t off, size_t len, int *port, problem *pb)
{
	char cb[SANITIZE_SHOW_CHAR_LEN];
	long v = 0;
	if (off >= len) {
		return fail(pb, off, "missing port after ':'");
	}
	for (size_t i = off; i < len; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return fail(pb, i, "character %s not allowed in a port",
				    sanitize_show_char((unsigned char)s[i], cb));
		}
		if (v <= 65535) {
			v = v * 10 + (s[i] - '0');
		}
	}
	if (v < 1 || v > 65535) {
		return fail(pb, off, "port %.*s out of range 1-65535", (int)(len - off > 12 ? 12 : len - off),
			    s + off);
	}
	*port = (int)v;
	return 0;
}

static void copy_out(char *dst, const char *src, size_t len)
{
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static int parse_target(const char *s, size_t len, target *out, problem *pb)
{
	target t = {.port = 0};
	char cb[SANITIZE_SHOW_CHAR_LEN];
	size_t h = 0; /* start of the host part */

	if (len == 0) {
		return fail(pb, 0, "empty entry");
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ') {
			return fail(pb, i, "space in a host entry");
		}
		if (c < 0x20 || c == 0x7f) {
			return fail(pb, i, "control character %s in a host entry", sanitize_show_char(c, cb));
		}
	}
	for (size_t i = len; i > 0; i--) {
		if (s[i - 1] == '@') {
			h = i;
			break;
		}
	}
	if (h > 0) {
		size_t ulen = h - 1;
		if (ulen == 0) {
			return fail(pb, 0, "empty user name before '@'");
		}
		if (ulen >= TARGET_USER_LEN) {
			return fail(pb, 0, "user name longer than %d characters", TARGET_USER_LEN - 1);
		}
		if (s[0] == '-') {
			return fail(pb, 0, "user name starts with '-' (it would read as an option)");
		}
		for (size_t i = 0; i < ulen; i++) {
			if (!is_user_char(s[i])) {
				return fail(pb, i, "character %s not allowed in a user name",
					    sanitize_show_char((unsigned char)s[i], cb));
			}
		}
		copy_out(t.user, s, ulen);
	}

	if (h < len && s[h] == '[') {
		const char *rb = memchr(s + h, ']', len - h);
		if (!rb) {
			return fail(pb, h, "'[' without a matching ']'");
		}
		size_t close = (size_t)(rb - s);
		if (check_v6(s, h + 1, close - h - 1, pb) != 0) {
			return -1;
		}
		if (close + 1 < len) {
			if (s[close + 1] != ':') {
				return fail(pb, close + 1, "expected ':' and a port after ']'");
			}
			if (parse_port(s, close + 2, len, &t.port, pb) != 0) {
				return -1;
			}
		}
		copy_out(t.host, s + h + 1, close - h - 1);
	} else {
		size_t colons = 0, first = len;
		for (size_t i = h; i < len; i++) {
			if (s[i] == ':') {
				if (colons++ == 0) {
					first = i;
				}
			}
		}
		if (colons >= 2) {
			/* a bare IPv6 address: ssh takes it whole, so there is no port */
			if (check_v6(s, h, len - h, pb) != 0) {
				return -1;
			}
			copy_out(t.host, s + h, len - h);
		} else {
			if (check_name(s, h, first - h, pb) != 0) {
				return -1;
			}
			if (colons == 1 && parse_port(s, first + 1, len, &t.port, pb) != 0) {
				return -1;
			}
			copy_out(t.host, s + h, first - h);
		}
	}
	*out = t;
	return 0;
}

int target_parse(const char *text, target *out, char *err, size_t err_len)
{
	problem pb;
	if (parse_target(text ? text : "", text ? strlen(text) : 0, out, &pb) == 0) {
		return 0;
	}
	if (err && err_len > 0) {
		snprintf(err, err_len, "column %zu: %s", pb.column, pb.msg);
	}
	return -1;
}

void target_list_init(target_list *list)
{
	list->items = NULL;
	list->count = 0;
	list->cap = 0;
}

void target_list_free(target_list *list)
{
	free(list->items);
	target_list_init(list);
}

/* State shared with the host list callback. */
typedef struct {
	target_list *list;
	bool stopped;         /* the callback refused a name */
	size_t column;        /* column of the problem inside that name */
	char host[HOSTLIST_NAME_MAX + 1];
	char msg[MSG_LEN];
} adder;

static int add_one(const char *host, void *ctx)
{
	adder *a = ctx;
	target_list *l = a->list;
	problem pb;
	target t;

	if (parse_target(host, strlen(host), &t, &pb) != 0) {
		a->stopped = true;
		a->column = pb.column;
		snprintf(a->host, sizeof a->host, "%s", host);
		/* the name may hold any non-ASCII byte, bidi controls too:
		 * shown in up to half the message */
		size_t n = sanitize_show(host, strlen(host), a->msg, sizeof a->msg / 2);
		snprintf(a->msg + n, sizeof a->msg - n, ": %s", pb.msg);
		return 1;
	}
	if (l->count >= TARGET_LIST_MAX) {
		a->stopped = true;
		a->column = 1;
		a->host[0] = '\0';
		snprintf(a->msg, sizeof a->msg, "more than %d targets", TARGET_LIST_MAX);
		return 1;
	}
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		target *items = realloc(l->items, cap * sizeof *items);
		if (!items) {
			a->stopped = true;
			a->column = 1;
			a->host[0] = '\0';
			snprintf(a->msg, sizeof a->msg, "out of memory for %zu targets", cap);
			return 1;
		}
		l->items = items;
		l->cap = cap;
	}
	l->items[l->count++] = t;
	return 0;
}

/* Expand expr[0, len) into the list.  On failure *column is the column of
 * the problem in expr and msg explains it. */
static int add_expr(target_list *list, const char *expr, size_t len, size_t *column, char *msg,
		    size_t msglen)
{
	adder a = {.list = list, .stopped = false};
	size_t col = 0;
	size_t hlen;

	if (hostlist_expand_n(expr, len, add_one, &a, &col, msg, msglen) == 0) {
		return 0;
	}
	*column = col;
	if (!a.stopped) {
		return -1;
	}
	snprintf(msg, msglen, "%s", a.msg);
	/* When the element was written out literally (no ranges), the problem's
	 * column inside the name is also its column in the expression. */
	hlen = strlen(a.host);
	if (hlen > 0 && col >= 1 && col - 1 + hlen <= len &&
	    memcmp(expr + col - 1, a.host, hlen) == 0 &&
	    (col - 1 + hlen == len || expr[col - 1 + hlen] == ',')) {
		*column = col + a.column - 1;
	}
	return -1;
}

int target_list_add_expr(target_list *list, const char *expr, char *err, size_t err_len)
{
	char msg[MSG_LEN];
	size_t column = 0;
	size_t before = list->count;

	if (add_expr(list, expr ? expr : "", expr ? strlen(expr) : 0, &column, msg, sizeof msg) == 0) {
		return 0;
	}
	list->count = before;
	if (err && err_len > 0) {
		snprintf(err, err_len, "column %zu: %s", column, msg);
	}
	return -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int target_list_parse(target_list *list, const char *text, size_t len, const char *name,
		      char *err, size_t err_len)
{
	size_t before = list->count;
	size_t line_no = 0;
	size_t pos = 0;

	if (!text) {
		len = 0;
	}
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - line) : len - pos;
		size_t end, start = 0;
		const char *hash;

		pos += line_len + (nl ? 1 : 0);
		line_no++;
		hash = memchr(line, '#', line_len);
		end = hash ? (size_t)(hash - line) : line_len;
		while (end > 0 && is_blank(line[end - 1])) {
			end--;
		}
		while (start < end && (line[start] == ' ' || line[start] == '\t')) {
			start++;
		}
		if (start == end) {
			continue;
		}

		char msg[MSG_LEN];
		size_t column = 0;
		if (add_expr(list, line + start, end - start, &column, msg, sizeof msg) != 0) {
			list->count = before;
			if (err && err_len > 0) {
				snprintf(err, err_len, "%s:%zu:%zu: %s", name ? name : "-", line_no,
					 start + column, msg);
			}
			return -1;
		}
	}
	return 0;
}

/* Read a whole file (regular, pipe or /dev/fd/N) of at most TARGET_FILE_MAX
 * bytes into a malloc'd buffer. */
static char *slurp(const char *path, size_t *len, char *err, size_t err_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = textfile_read_fd(fd, path, TARGET_FILE_MAX, len, err, err_len);
	close(fd);
	return buf;
}

int target_list_read_file(target_list *list, const char *path, char *err, size_t err_len)
{
	char buf[512];
	size_t len = 0;
	char *text = slurp(path, &len, buf, sizeof buf);
	int rc;

	if (!text) {
		if (err && err_len > 0) {
			snprintf(err, err_len, "%s", buf);
		}
		return -1;
	}
	rc = target_list_parse(list, text, len, path, err, err_len);
	free(text);
	return rc;
}
