/* fuzz_hostlist.c - hostlist_expand / hostlist_expand_n on a fuzzed host
 * list expression.
 *
 * Input: the expression, any bytes.  Beyond not crashing, the promises of
 * hostlist.h:
 *   - validating (NULL callback) and expanding agree;
 *   - nothing is delivered when the expression is refused, and the refusal
 *     names a column inside the text with a printable message;
 *   - names are non-empty, at most HOSTLIST_NAME_MAX bytes, free of
 *     whitespace and control characters, at most HOSTLIST_MAX_HOSTS of them;
 *   - hostlist_expand on the NUL-terminated text gives the same names and
 *     "column N: message";
 *   - a callback that stops the expansion gets -1 and err is not written;
 *   - text without brackets expands to its comma-separated elements. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hostlist.h"

typedef struct {
	size_t count;
	size_t stop_at;    /* stop after this many names; 0 = never */
	uint64_t hash;     /* FNV-1a over the names and their ends */
	const char *plain; /* bracket-free input: the expected elements in order */
	size_t plain_len;
	size_t plain_pos;
} walk;

static int on_name(const char *host, void *ctx)
{
	walk *w = ctx;
	size_t n = strnlen(host, HOSTLIST_NAME_MAX + 1);
	FUZZ_CHECK(n > 0 && n <= HOSTLIST_NAME_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)host[i];
		FUZZ_CHECK(c > 0x20 && c != 0x7f);
	}
	w->count++;
	FUZZ_CHECK(w->count <= HOSTLIST_MAX_HOSTS);
	for (size_t i = 0; i <= n; i++) {
		w->hash = (w->hash ^ (unsigned char)host[i]) * 1099511628211u;
	}
	if (w->plain != NULL) {
		const char *comma = memchr(w->plain + w->plain_pos, ',', w->plain_len - w->plain_pos);
		size_t end = comma ? (size_t)(comma - w->plain) : w->plain_len;
		FUZZ_CHECK(end - w->plain_pos == n &&
			   memcmp(w->plain + w->plain_pos, host, n) == 0);
		w->plain_pos = end + 1;
	}
	return w->stop_at != 0 && w->count == w->stop_at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole); /* an exact-size copy */
	const char *expr = whole.part[0].p;
	size_t len = whole.part[0].len;
	char err[256], err2[300];
	size_t column = 12345;

	int valid = hostlist_expand_n(expr, len, NULL, NULL, &column, err, sizeof err);
	FUZZ_CHECK(valid == 0 || valid == -1);
	if (valid != 0) {
		FUZZ_CHECK(column >= 1 && column <= len + 1);
		FUZZ_CHECK(err[0] != '\0' && fuzz_printable(err, sizeof err));
	}

	walk w = {.hash = 14695981039346656037u};
	bool bracketless = memchr(expr, '[', len) == NULL && memchr(expr, ']', len) == NULL;
	if (bracketless) {
		w.plain = expr;
		w.plain_len = len;
	}
	size_t column2 = 12345;
	int rc = hostlist_expand_n(expr, len, on_name, &w, &column2, err, sizeof err);
	FUZZ_CHECK(rc == valid);
	if (rc == 0) {
		FUZZ_CHECK(w.count >= 1);
		FUZZ_CHECK(!bracketless || w.plain_pos == len + 1);
	} else {
		/* the whole expression is checked before the first name */
		FUZZ_CHECK(w.count == 0 && column2 == column);
	}

	/* The NUL-terminated form reads up to the first NUL. */
	char *cstr = fuzz_strndup(expr, len);
	size_t clen = strlen(cstr);
	walk wc = {.hash = 14695981039346656037u};
	size_t col3 = 0;
	char msg3[256] = "";
	int rc_n = hostlist_expand_n(cstr, clen, NULL, NULL, &col3, msg3, sizeof msg3);
	memset(err2, 0, sizeof err2);
	int rc_c = hostlist_expand(cstr, on_name, &wc, err2, sizeof err2);
	FUZZ_CHECK(rc_c == rc_n);
	if (rc_c == 0) {
		if (clen == len) {
			FUZZ_CHECK(wc.count == w.count && wc.hash == w.hash);
		}
	} else {
		char want[300];
		snprintf(want, sizeof want, "column %zu: %s", col3, msg3);
		FUZZ_CHECK(strcmp(err2, want) == 0);
	}

	/* A callback that says stop: -1, err untouched. */
	if (rc == 0) {
		walk ws = {.hash = 14695981039346656037u};
		ws.stop_at = 1 + (size > 0 ? data[0] : 0) % w.count;
		memset(err, 'q', sizeof err);
		err[sizeof err - 1] = '\0';
		size_t col4 = 0;
		FUZZ_CHECK(hostlist_expand_n(expr, len, on_name, &ws, &col4, err, sizeof err) == -1);
		FUZZ_CHECK(ws.count == ws.stop_at);
		FUZZ_CHECK(col4 >= 1 && col4 <= len);
		FUZZ_CHECK(strspn(err, "q") == sizeof err - 1);
	}

	free(cstr);
	fuzz_parts_free(&whole);
	return 0;
}
