/* fixture.c - load captured tool output for the unit tests. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

static char *read_file(const char *name, size_t *len, int required)
{
	const char *dir = getenv("SYNCTOP_FIXTURES");
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/fixtures", name);

	FILE *f = fopen(path, "rb");
	if (!f) {
		if (required) {
			fail_msg("cannot open fixture %s", path);
		}
		char *empty = calloc(1, 1);
		assert_non_null(empty);
		*len = 0;
		return empty;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *fixture_read(const char *name, size_t *len)
{
	return read_file(name, len, 1);
}

char *fixture_read_optional(const char *name, size_t *len)
{
	return read_file(name, len, 0);
}

char *fixture_read_stderr(const char *name, size_t *len)
{
	char errname[4096];
	size_t base = strlen(name);
	if (base >= 4 && strcmp(name + base - 4, ".txt") == 0) {
		base -= 4;
	}
	snprintf(errname, sizeof errname, "%.*s.stderr.txt", (int)base, name);
	return read_file(errname, len, 0);
}

tool_output fixture_output(const char *name, int rc)
{
	tool_output t = {.rc = rc};
	t.out = fixture_read(name, &t.out_len);
	t.err = fixture_read_stderr(name, &t.err_len);
	return t;
}

void fixture_output_free(tool_output *t)
{
	free((char *)t->out);
	free((char *)t->err);
	*t = (tool_output){0};
}
