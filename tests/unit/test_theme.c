/* test_theme.c - theme files: the shipped ones, errors with positions,
 * inheritance between roles, lookup by name, and colour fallback. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "theme.h"

/* The themes/ folder of the source tree: $SYNCTOP_THEMES_DIR (make check
 * sets it), else next to the fixtures. */
static const char *themes_dir(void)
{
	static char dir[4096];
	const char *env = getenv("SYNCTOP_THEMES_DIR");
	if (env && *env) {
		return env;
	}
	const char *fx = getenv("SYNCTOP_FIXTURES");
	snprintf(dir, sizeof dir, "%s/../../themes", fx ? fx : "tests/fixtures");
	setenv("SYNCTOP_THEMES_DIR", dir, 1);
	return dir;
}

static void load_shipped(const char *name, theme *out)
{
	char path[4200], err[THEME_ERROR_LEN] = "";
	snprintf(path, sizeof path, "%s/%s.json", themes_dir(), name);
	int rc = theme_load(path, out, err, sizeof err);
	if (rc != 0) {
		fail_msg("%s: %s", path, err);
	}
	assert_string_equal(out->name, name);
}

static void assert_same_styles(const theme *a, const theme *b)
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		if (a->role[r].fg != b->role[r].fg || a->role[r].bg != b->role[r].bg ||
		    a->role[r].attrs != b->role[r].attrs) {
			fail_msg("role %s differs: fg %d/%d bg %d/%d attrs %u/%u", theme_role_name((theme_role)r),
				 a->role[r].fg, b->role[r].fg, a->role[r].bg, b->role[r].bg, a->role[r].attrs,
				 b->role[r].attrs);
		}
	}
}

static void test_default_file_matches_builtin(void **state)
{
	(void)state;
	theme file, builtin;
	load_shipped("default", &file);
	theme_builtin_default(&builtin);
	assert_same_styles(&file, &builtin);
}

static void test_mono_file_matches_builtin(void **state)
{
	(void)state;
	theme file, builtin;
	load_shipped("mono", &file);
	theme_builtin_mono(&builtin);
	assert_same_styles(&file, &builtin);
	for (int r = 0; r < ROLE_COUNT; r++) {
		assert_int_equal(builtin.role[r].fg, THEME_COLOR_DEFAULT);
		assert_int_equal(builtin.role[r].bg, THEME_COLOR_DEFAULT);
	}
}

/* Each shipped theme tells ok, warn and crit apart, and the selected row
 * from a plain one. */
static void test_shipped_themes_distinguish_states(void **state)
{
	(void)state;
	static const char *const names[] = {"default", "light", "high-contrast", "mono"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		theme t;
		load_shipped(names[i], &t);
		const theme_style *ok = &t.role[ROLE_STATUS_OK], *warn = &t.role[ROLE_STATUS_WARN],
				  *crit = &t.role[ROLE_STATUS_CRIT], *sel = &t.role[ROLE_SELECTED],
				  *def = &t.role[ROLE_DEFAULT];
		assert_true(memcmp(ok, warn, sizeof *ok) != 0);
		assert_true(memcmp(warn, crit, sizeof *ok) != 0);
		assert_true(memcmp(ok, crit, sizeof *ok) != 0);
		assert_true(memcmp(sel, def, sizeof *ok) != 0);
		assert_true(memcmp(&t.role[ROLE_BADGE_CRIT], &t.role[ROLE_BADGE_OK], sizeof *ok) != 0);
	}
}

static void test_syntax_error_has_line_and_column(void **state)
{
	(void)state;
	const char *text = "{\n  \"header\": {\"fg\": \"red\"},\n  \"title\": {\"fg\": }\n}\n";
	char err[THEME_ERROR_LEN] = "";
	theme t, def;
	t.role[ROLE_HEADER].fg = 1234;
	assert_int_equal(theme_parse(text, strlen(text), "broken.json", "broken", &t, err, sizeof err), -1);
	/* jansson: line 3, the column of the unexpected '}' */
	assert_non_null(strstr(err, "broken.json:3:"));
	int line = 0, col = 0;
	assert_int_equal(sscanf(err, "broken.json:%d:%d:", &line, &col), 2);
	assert_int_equal(line, 3);
	assert_true(col >= 17 && col <= 19);
	/* the default is what the caller gets */
	theme_builtin_default(&def);
	assert_same_styles(&t, &def);
}

static void test_semantic_errors_name_the_role(void **state)
{
	(void)state;
	static const struct {
		const char *json, *expect;
	} cases[] = {
		{"{\"headr\": {}}", "\"headr\" is not a role"},
		{"{\"header\": {\"fg\": \"purpel\"}}", "role \"header\": unknown colour \"purpel\""},
		{"{\"header\": {\"fg\": 300}}", "palette index 300"},
		{"{\"header\": {\"fg\": -1}}", "palette index -1"},
		{"{\"header\": {\"bg\": \"#12345g\"}}", "unknown colour \"#12345g\""},
		{"{\"header\": {\"attrs\": [\"bold\", \"sparkly\"]}}", "attrs[1]"},
		{"{\"header\": {\"attrs\": \"bold\"}}", "attrs: expected an array"},
		{"{\"header\": {\"colour\": \"red\"}}", "unknown key"},
		{"{\"header\": \"red\"}", "expected an object"},
		{"{\"default\": {\"fg\": true}}", "role \"default\""},
		{"{\"description\": 5}", "description"},
		{"[1, 2]", "expected an object mapping roles"},
		{"{\"header\": {}, \"header\": {}}", "duplicate"},
		{"", "t.json:"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[THEME_ERROR_LEN] = "";
		theme t;
		int rc = theme_parse(cases[i].json, strlen(cases[i].json), "t.json", "t", &t, err, sizeof err);
		if (rc != -1 || !strstr(err, cases[i].expect) || strncmp(err, "t.json", 6) != 0) {
			fail_msg("case %zu (%s): rc %d, err \"%s\", expected \"%s\"", i, cases[i].json, rc, err,
				 cases[i].expect);
		}
	}
}

/* A control character in a bad value must not reach the message raw. */
static void test_error_message_is_printable(void **state)
{
	(void)state;
	const char *json = "{\"header\": {\"fg\": \"\\u001b[31mred\"}}";
	char err[THEME_ERROR_LEN] = "";
	theme t;
	assert_int_equal(theme_parse(json, strlen(json), "x.json", "x", &t, err, sizeof err), -1);
	for (const char *p = err; *p; p++) {
		assert_true(*p >= 0x20 && *p < 0x7f);
	}
}

/* A syntax error quoting a raw control byte of the file (jansson's "near"
 * text) shows it as \xNN. */
static void test_syntax_error_shows_control_bytes(void **state)
{
	(void)state;
	const char *json = "{\x1b]0;pwned\x07: 1}";
	char err[THEME_ERROR_LEN] = "";
	theme t;
	assert_int_equal(theme_parse(json, strlen(json), "x.json", "x", &t, err, sizeof err), -1);
	for (const char *p = err; *p; p++) {
		assert_true(*p >= 0x20 && *p < 0x7f);
	}
	assert_non_null(strstr(err, "x.json:1:2: "));
	assert_non_null(strstr(err, "'\\x1b"));
}

static void test_roles_inherit(void **state)
{
	(void)state;
	const char *json = "{\"default\": {\"fg\": \"white\", \"bg\": 17},"
			   " \"header\": {\"fg\": \"#ff0000\", \"attrs\": [\"bold\", \"italic\"]},"
			   " \"dim\": {\"bg\": \"default\"}}";
	char err[THEME_ERROR_LEN] = "";
	theme t, mono;
	assert_int_equal(theme_parse(json, strlen(json), "i.json", "inherit", &t, err, sizeof err), 0);
	assert_string_equal(t.name, "inherit");
	assert_int_equal(t.role[ROLE_DEFAULT].fg, 7);
	assert_int_equal(t.role[ROLE_DEFAULT].bg, 17);
	/* fg given, bg from "default", attrs as given */
	assert_int_equal(t.role[ROLE_HEADER].fg, THEME_COLOR_RGB | 0xff0000);
	assert_int_equal(t.role[ROLE_HEADER].bg, 17);
	assert_int_equal(t.role[ROLE_HEADER].attrs, THEME_ATTR_BOLD | THEME_ATTR_ITALIC);
	/* bg given, fg from "default", no attrs */
	assert_int_equal(t.role[ROLE_DIM].fg, 7);
	assert_int_equal(t.role[ROLE_DIM].bg, THEME_COLOR_DEFAULT);
	assert_int_equal(t.role[ROLE_DIM].attrs, 0);
	/* not given: "default" colours with the mono attributes */
	theme_builtin_mono(&mono);
	assert_int_equal(t.role[ROLE_SELECTED].fg, 7);
	assert_int_equal(t.role[ROLE_SELECTED].bg, 17);
	assert_int_equal(t.role[ROLE_SELECTED].attrs, mono.role[ROLE_SELECTED].attrs);
	assert_int_equal(t.role[ROLE_STATUS_CRIT].attrs, mono.role[ROLE_STATUS_CRIT].attrs);
}

static void test_parse_color(void **state)
{
	(void)state;
	theme_color c = 0;
	assert_int_equal(theme_parse_color("default", &c), 0);
	assert_int_equal(c, THEME_COLOR_DEFAULT);
	assert_int_equal(theme_parse_color("red", &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(theme_parse_color("bright_white", &c), 0);
	assert_int_equal(c, 15);
	assert_int_equal(theme_parse_color("grey", &c), 0);
	assert_int_equal(c, 8);
	assert_int_equal(theme_parse_color("#00Ff80", &c), 0);
	assert_int_equal(c, THEME_COLOR_RGB | 0x00ff80);
	assert_int_equal(theme_parse_color("#00ff8", &c), -1);
	assert_int_equal(theme_parse_color("#00ff800", &c), -1);
	assert_int_equal(theme_parse_color("Red", &c), -1);
	assert_int_equal(theme_parse_color("", &c), -1);
}

static void test_fit_color(void **state)
{
	(void)state;
	bool bright = true;
	/* 256 colours: indexes stay, RGB goes to the cube or the grey ramp */
	assert_int_equal(theme_fit_color(9, 256, &bright), 9);
	assert_false(bright);
	assert_int_equal(theme_fit_color(THEME_COLOR_RGB | 0x005f87, 256, &bright), 24);
	assert_int_equal(theme_fit_color(THEME_COLOR_RGB | 0xffffff, 256, &bright), 231);
	assert_int_equal(theme_fit_color(THEME_COLOR_RGB | 0x808080, 256, &bright), 244);
	assert_int_equal(theme_fit_color(THEME_COLOR_DEFAULT, 256, &bright), THEME_COLOR_DEFAULT);
	/* 16: the nearest ANSI colour */
	assert_int_equal(theme_fit_color(196, 16, &bright), 9);
	assert_int_equal(theme_fit_color(THEME_COLOR_RGB | 0x0000f0, 16, &bright), 4);
	assert_int_equal(theme_fit_color(12, 16, &bright), 12);
	assert_false(bright);
	/* 8: bright colours become their dark twin, drawn bold */
	assert_int_equal(theme_fit_color(9, 8, &bright), 1);
	assert_true(bright);
	assert_int_equal(theme_fit_color(2, 8, &bright), 2);
	assert_false(bright);
	assert_int_equal(theme_fit_color(THEME_COLOR_RGB | 0xffff00, 8, &bright), 3);
	assert_true(bright);
	/* none */
	assert_int_equal(theme_fit_color(1, 2, &bright), THEME_COLOR_DEFAULT);
	assert_false(bright);
}

static void test_load_by_name_and_list(void **state)
{
	(void)state;
	char err[THEME_ERROR_LEN] = "";
	char names[16][THEME_NAME_LEN];
	theme t;

	themes_dir();
	assert_int_equal(theme_load("light", &t, err, sizeof err), 0);
	assert_string_equal(t.name, "light");
	assert_int_equal(theme_load("high-contrast", &t, err, sizeof err), 0);
	assert_int_equal(theme_load("no-such-theme", &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "\"no-such-theme\" not found"));
	assert_int_equal(theme_load("bad name!", &t, err, sizeof err), -1);
	assert_int_equal(theme_load("/nonexistent/dir/x.json", &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/dir/x.json"));

	size_t n = theme_list(names, 16);
	const char *expect[] = {"default", "high-contrast", "light", "mono"};
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(names[i], expect[i]);
	}
	/* a short array gets what fits */
	assert_int_equal(theme_list(names, 1), 1);
}

static void test_builtin_when_no_files(void **state)
{
	(void)state;
	char err[THEME_ERROR_LEN] = "", names[8][THEME_NAME_LEN];
	theme t, def;
	char *saved = getenv("SYNCTOP_THEMES_DIR") ? strdup(getenv("SYNCTOP_THEMES_DIR")) : NULL;

	setenv("SYNCTOP_THEMES_DIR", "/nonexistent-synctop-themes", 1);
	assert_int_equal(theme_load("mono", &t, err, sizeof err), 0);
	assert_string_equal(t.name, "mono");
	assert_int_equal(theme_load("default", &t, err, sizeof err), 0);
	theme_builtin_default(&def);
	assert_same_styles(&t, &def);
	size_t n = theme_list(names, 8);
	assert_true(n >= 2);
	if (saved) {
		setenv("SYNCTOP_THEMES_DIR", saved, 1);
		free(saved);
	}
}

/* A file on disk: loaded by path; broken, it reports its path. */
static void test_load_file_path(void **state)
{
	(void)state;
	char path[64];
	char err[THEME_ERROR_LEN] = "";
	theme t;
	snprintf(path, sizeof path, "/tmp/synctop-theme-%ld.json", (long)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	const char *body = "{\n\"header\": {\"fg\": \"red\"}\n,\n}";
	assert_int_equal(write(fd, body, strlen(body)), (ssize_t)strlen(body));
	close(fd);
	assert_int_equal(theme_load(path, &t, err, sizeof err), -1);
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	assert_non_null(strstr(err, ":4:"));

	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"header\": {\"fg\": 202}}", f);
	fclose(f);
	assert_int_equal(theme_load(path, &t, err, sizeof err), 0);
	assert_int_equal(t.role[ROLE_HEADER].fg, 202);
	assert_int_equal(strncmp(t.name, "synctop-theme-", 14), 0);
	unlink(path);
}

static void test_role_names(void **state)
{
	(void)state;
	for (int r = 0; r < ROLE_COUNT; r++) {
		const char *name = theme_role_name((theme_role)r);
		assert_non_null(name);
		assert_int_equal(theme_role_from_name(name), r);
	}
	assert_null(theme_role_name(ROLE_COUNT));
	assert_int_equal(theme_role_from_name("nope"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_file_matches_builtin),
		cmocka_unit_test(test_mono_file_matches_builtin),
		cmocka_unit_test(test_shipped_themes_distinguish_states),
		cmocka_unit_test(test_syntax_error_has_line_and_column),
		cmocka_unit_test(test_semantic_errors_name_the_role),
		cmocka_unit_test(test_error_message_is_printable),
		cmocka_unit_test(test_syntax_error_shows_control_bytes),
		cmocka_unit_test(test_roles_inherit),
		cmocka_unit_test(test_parse_color),
		cmocka_unit_test(test_fit_color),
		cmocka_unit_test(test_load_by_name_and_list),
		cmocka_unit_test(test_builtin_when_no_files),
		cmocka_unit_test(test_load_file_path),
		cmocka_unit_test(test_role_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
