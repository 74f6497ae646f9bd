/* fuzz_hostlist_compress.c - hostlist_compress on fuzzed host names.
 *
 * Input: names separated by '\n', any bytes.  Beyond not crashing, the
 * promises of hostlist.h:
 *   - a refusal comes with a message free of control characters, and only for a set holding a
 *     name a host list cannot carry (empty, too long, ',', whitespace or a
 *     control character, or a bracket that does not expand to itself);
 *   - otherwise the expression is one line of printable text that
 *     hostlist_expand() accepts and turns into exactly the distinct names
 *     given, each once (within the expander's own limits on the count);
 *   - compressing the same names in another order gives the same text. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hostlist.h"

#define MAX_NAMES 512

typedef struct {
	char **want; /* sorted, distinct */
	size_t n_want;
	size_t got;
} walk;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int on_name(const char *host, void *ctx)
{
	walk *w = ctx;
	char *const *hit = bsearch(&host, w->want, w->n_want, sizeof *w->want, cmp_str);
	FUZZ_CHECK(hit != NULL);
	w->got++;
	FUZZ_CHECK(w->got <= w->n_want);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole);
	char *text = fuzz_strndup(whole.part[0].p, whole.part[0].len);
	size_t len = whole.part[0].len;
	char *names[MAX_NAMES];
	size_t n = 0;

	/* names end at '\n'; a NUL ends the input as C strings see it */
	len = strlen(text);
	for (size_t start = 0; start <= len && n < MAX_NAMES;) {
		char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		text[end] = '\0';
		names[n++] = text + start;
		start = end + 1;
	}
	

	char err[256] = "";
	char *expr = hostlist_compress((const char *const *)names, n, err, sizeof err);
	if (!expr) {
		/* a name is quoted as sanitize_show() shows it: UTF-8 stays */
		FUZZ_CHECK(err[0] != '\0' && fuzz_terminated(err, sizeof err) &&
			   fuzz_text_safe(err, strlen(err)));
		bool some_bad = false;
		for (size_t i = 0; i < n && !some_bad; i++) {
			size_t l = strlen(names[i]);
			some_bad = l == 0 || l > HOSTLIST_NAME_MAX || strchr(names[i], '[') ||
				   strchr(names[i], ']');
			for (size_t k = 0; k < l && !some_bad; k++) {
				unsigned char c = (unsigned char)names[i][k];
				some_bad = c <= 0x20 || c == 0x7f || c == ',';
			}
		}
		FUZZ_CHECK(some_bad);
		free(text);
		fuzz_parts_free(&whole);
		return 0;
	}
	for (const char *p = expr; *p; p++) {
		FUZZ_CHECK((unsigned char)*p > 0x20 && (unsigned char)*p != 0x7f);
	}

	char *sorted[MAX_NAMES];
	memcpy(sorted, names, n * sizeof *names);
	qsort(sorted, n, sizeof *sorted, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u == 0 || strcmp(sorted[u - 1], sorted[i]) != 0) {
			sorted[u++] = sorted[i];
		}
	}
	walk w = {.want = sorted, .n_want = u};
	char eerr[256];
	if (n == 0) {
		FUZZ_CHECK(expr[0] == '\0');
	} else {
		FUZZ_CHECK(hostlist_expand(expr, on_name, &w, eerr, sizeof eerr) == 0);
		FUZZ_CHECK(w.got == u); /* every name, none twice (on_name bounds it) */
	}

	/* reversed order, same text */
	char *rev[MAX_NAMES];
	for (size_t i = 0; i < n; i++) {
		rev[i] = names[n - 1 - i];
	}
	char *again = hostlist_compress((const char *const *)rev, n, NULL, 0);
	FUZZ_CHECK(again != NULL && strcmp(again, expr) == 0);
	free(again);
	free(expr);
	free(text);
	fuzz_parts_free(&whole);
	return 0;
}
