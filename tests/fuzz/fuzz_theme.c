/* fuzz_theme.c - the theme loader's pure parts: theme_parse on a fuzzed
 * theme file, theme_parse_color and theme_role_from_name on its first line,
 * theme_fit_color on every colour that came out.
 *
 * Beyond not crashing, the promises of theme.h:
 *   - a refused file gives -1, "SOURCE:..." in err and *out left as the
 *     built-in default; a message about a value (not the JSON syntax) is
 *     printable ASCII;
 *   - an accepted one gives only valid colours (default, 0..255, or
 *     THEME_COLOR_RGB | 0xrrggbb), known attribute bits, the name asked for,
 *     and does not depend on what *out held before;
 *   - theme_fit_color gives default below 8 colours, else an index below
 *     the colour count (below 16 for 16..255 colours), "bright" only with 8;
 *   - role names and numbers map back and forth. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "theme.h"

#define SOURCE "fuzz.json"

static bool color_ok(theme_color c)
{
	return c == THEME_COLOR_DEFAULT || (c >= 0 && c <= 255) ||
	       (c >= THEME_COLOR_RGB && c <= (THEME_COLOR_RGB | 0xffffff));
}

static void check_fit(theme_color c)
{
	static const int counts[] = {0, 1, 2, 8, 15, 16, 88, 255, 256, 16777216};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		int colors = counts[i];
		bool bright = true;
		theme_color f = theme_fit_color(c, colors, &bright);
		if (colors < 8 || c == THEME_COLOR_DEFAULT) {
			FUZZ_CHECK(f == THEME_COLOR_DEFAULT && !bright);
			continue;
		}
		int limit = colors >= 256 ? 256 : colors >= 16 ? 16 : 8;
		FUZZ_CHECK(f >= 0 && f < limit);
		FUZZ_CHECK(!bright || colors < 16);
		/* a palette index the terminal has is used as it is */
		if (c >= 0 && c < limit) {
			FUZZ_CHECK(f == c);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole); /* an exact-size copy */
	const char *text = whole.part[0].p;
	size_t len = whole.part[0].len;
	static theme t, u, def;
	char err[THEME_ERROR_LEN];

	theme_builtin_default(&def);
	memset(&t, 0, sizeof t);
	memset(err, 0, sizeof err);
	int rc = theme_parse(text, len, SOURCE, "fuzz", &t, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1);
		FUZZ_CHECK(fuzz_terminated(err, sizeof err) && strncmp(err, SOURCE ":", 10) == 0);
		if (strncmp(err, SOURCE ": ", 11) == 0) {
			FUZZ_CHECK(fuzz_printable(err, sizeof err));
		}
		FUZZ_CHECK(strcmp(t.name, def.name) == 0);
		FUZZ_CHECK(memcmp(t.role, def.role, sizeof t.role) == 0);
	} else {
		FUZZ_CHECK(strcmp(t.name, "fuzz") == 0);
		for (int r = 0; r < ROLE_COUNT; r++) {
			FUZZ_CHECK(color_ok(t.role[r].fg) && color_ok(t.role[r].bg));
			FUZZ_CHECK((t.role[r].attrs & ~0x7fu) == 0);
			check_fit(t.role[r].fg);
			check_fit(t.role[r].bg);
		}
	}
	memset(&u, 0xa5, sizeof u);
	FUZZ_CHECK(theme_parse(text, len, SOURCE, "fuzz", &u, err, sizeof err) == rc);
	FUZZ_CHECK(strcmp(u.name, t.name) == 0 && memcmp(u.role, t.role, sizeof t.role) == 0);

	/* the first line as a colour and as a role name */
	const char *nl = memchr(text, '\n', len);
	char *line = fuzz_strndup(text, nl ? (size_t)(nl - text) : len);
	theme_color c;
	if (theme_parse_color(line, &c) == 0) {
		FUZZ_CHECK(color_ok(c));
		check_fit(c);
	}
	int role = theme_role_from_name(line);
	if (role >= 0) {
		FUZZ_CHECK(role < ROLE_COUNT && strcmp(theme_role_name((theme_role)role), line) == 0);
	}
	FUZZ_CHECK(theme_role_name(ROLE_COUNT) == NULL);
	free(line);
	fuzz_parts_free(&whole);
	return 0;
}
