/* theme.c - theme files (JSON, jansson), the built-in themes and the
 * colour fallback from 24-bit down to 8 colours. */
#include <config.h>

#include "theme.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"

#ifndef SYNCTOP_DATADIR
#define SYNCTOP_DATADIR "/usr/local/share/synctop"
#endif

/* A theme file is a few kilobytes; anything near this is not a theme. */
#define THEME_FILE_MAX (1 << 20)

static const char *const role_names[ROLE_COUNT] = {
#define THEME_ROLE_NAME(id, name) name,
	THEME_ROLES(THEME_ROLE_NAME)
#undef THEME_ROLE_NAME
};

const char *theme_role_name(theme_role role)
{
	if ((int)role < 0 || role >= ROLE_COUNT) {
		return NULL;
	}
	return role_names[role];
}

int theme_role_from_name(const char *name)
{
	for (int i = 0; i < ROLE_COUNT; i++) {
		if (strcmp(role_names[i], name) == 0) {
			return i;
		}
	}
	return -1;
}

/* ------------------------------------------------------------- colours */

static const struct {
	const char *name;
	int index;
} color_names[] = {
	{"black", 0}, {"red", 1}, {"green", 2}, {"yellow", 3},
	{"blue", 4}, {"magenta", 5}, {"cyan", 6}, {"white", 7},
	{"bright_black", 8}, {"gray", 8}, {"grey", 8},
	{"bright_red", 9}, {"bright_green", 10}, {"bright_yellow", 11},
	{"bright_blue", 12}, {"bright_magenta", 13}, {"bright_cyan", 14},
	{"bright_white", 15},
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

int theme_parse_color(const char *text, theme_color *out)
{
	if (strcmp(text, "default") == 0) {
		*out = THEME_COLOR_DEFAULT;
		return 0;
	}
	for (size_t i = 0; i < sizeof color_names / sizeof color_names[0]; i++) {
		if (strcmp(text, color_names[i].name) == 0) {
			*out = color_names[i].index;
			return 0;
		}
	}
	if (text[0] == '#' && strlen(text) == 7) {
		int32_t rgb = 0;
		for (int i = 1; i < 7; i++) {
			int d = hex_digit(text[i]);
			if (d < 0) {
				return -1;
			}
			rgb = rgb * 16 + d;
		}
		*out = THEME_COLOR_RGB | rgb;
		return 0;
	}
	return -1;
}

/* The xterm palette, which is what 256-colour terminals start with; the
 * first 16 entries are configurable, so they are only matched when the
 * terminal offers no more than 16. */
static const int32_t ansi_rgb[16] = {
	0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
	0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
};
static const int cube_level[6] = {0, 95, 135, 175, 215, 255};

static int32_t palette_rgb(int index)
{
	if (index < 16) {
		return ansi_rgb[index];
	}
	if (index < 232) {
		int i = index - 16;
		return (cube_level[i / 36] << 16) | (cube_level[(i / 6) % 6] << 8) | cube_level[i % 6];
	}
	int g = 8 + 10 * (index - 232);
	return (g << 16) | (g << 8) | g;
}

static long distance(int32_t a, int32_t b)
{
	long dr = ((a >> 16) & 0xff) - ((b >> 16) & 0xff);
	long dg = ((a >> 8) & 0xff) - ((b >> 8) & 0xff);
	long db = (a & 0xff) - (b & 0xff);
	return dr * dr + dg * dg + db * db;
}

static int nearest(int32_t rgb, int from, int to)
{
	int best = from;
	long best_d = -1;
	for (int i = from; i < to; i++) {
		long d = distance(rgb, palette_rgb(i));
		if (best_d < 0 || d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}

theme_color theme_fit_color(theme_color color, int colors, bool *bright)
{
	*bright = false;
	if (color == THEME_COLOR_DEFAULT || colors < 8) {
		return THEME_COLOR_DEFAULT;
	}
	bool is_rgb = (color & THEME_COLOR_RGB) != 0;
	int32_t rgb = is_rgb ? (color & 0xffffff) : palette_rgb(color);
	if (colors >= 256) {
		return is_rgb ? nearest(rgb, 16, 256) : color;
	}
	int idx = (!is_rgb && color < 16) ? color : nearest(rgb, 0, 16);
	if (colors >= 16) {
		return idx;
	}
	if (idx >= 8) {
		*bright = true;
		idx -= 8;
	}
	return idx;
}

/* ------------------------------------------------------------ built-ins */

#define C_DEF THEME_COLOR_DEFAULT
enum { BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE, GRAY, BRED, BGREEN, BYELLOW,
       BBLUE, BMAGENTA, BCYAN, BWHITE };
#define B THEME_ATTR_BOLD
#define D THEME_ATTR_DIM
#define U THEME_ATTR_UNDERLINE
#define R THEME_ATTR_REVERSE

/* Keep in step with themes/default.json (test_theme compares them). */
static const theme_style default_styles[ROLE_COUNT] = {
	[ROLE_DEFAULT] = {C_DEF, C_DEF, 0},
	[ROLE_HEADER] = {BWHITE, BLUE, B},
	[ROLE_TITLE] = {BCYAN, C_DEF, B},
	[ROLE_COLUMN_HEADER] = {BLACK, CYAN, 0},
	[ROLE_STATUS_OK] = {GREEN, C_DEF, 0},
	[ROLE_STATUS_WARN] = {BYELLOW, C_DEF, B},
	[ROLE_STATUS_CRIT] = {BRED, C_DEF, B},
	[ROLE_STATUS_UNKNOWN] = {MAGENTA, C_DEF, 0},
	[ROLE_BADGE_OK] = {BLACK, GREEN, 0},
	[ROLE_BADGE_WARN] = {BLACK, YELLOW, 0},
	[ROLE_BADGE_CRIT] = {BWHITE, RED, B},
	[ROLE_BADGE_UNKNOWN] = {BLACK, MAGENTA, 0},
	[ROLE_BADGE_PENDING] = {BLACK, CYAN, 0},
	[ROLE_SELECTED] = {BWHITE, THEME_COLOR_RGB | 0x005f87, 0},
	[ROLE_DIM] = {GRAY, C_DEF, 0},
	[ROLE_BORDER] = {BLUE, C_DEF, 0},
	[ROLE_FOOTER] = {BLACK, CYAN, 0},
	[ROLE_FOOTER_KEY] = {BWHITE, BLUE, B},
	[ROLE_FILTER] = {BLACK, YELLOW, 0},
	[ROLE_MESSAGE] = {BYELLOW, C_DEF, B},
	[ROLE_SPARKLINE] = {CYAN, C_DEF, 0},
	[ROLE_PLOT_AXIS] = {GRAY, C_DEF, 0},
	[ROLE_PLOT_LINE] = {BGREEN, C_DEF, 0},
};

/* Attributes only: readable on any terminal.  Keep in step with
 * themes/mono.json. */
static const theme_style mono_styles[ROLE_COUNT] = {
	[ROLE_DEFAULT] = {C_DEF, C_DEF, 0},
	[ROLE_HEADER] = {C_DEF, C_DEF, B | U},
	[ROLE_TITLE] = {C_DEF, C_DEF, B},
	[ROLE_COLUMN_HEADER] = {C_DEF, C_DEF, B | U},
	[ROLE_STATUS_OK] = {C_DEF, C_DEF, 0},
	[ROLE_STATUS_WARN] = {C_DEF, C_DEF, B | U},
	[ROLE_STATUS_CRIT] = {C_DEF, C_DEF, B | R},
	[ROLE_STATUS_UNKNOWN] = {C_DEF, C_DEF, U},
	[ROLE_BADGE_OK] = {C_DEF, C_DEF, 0},
	[ROLE_BADGE_WARN] = {C_DEF, C_DEF, B | U},
	[ROLE_BADGE_CRIT] = {C_DEF, C_DEF, B | R},
	[ROLE_BADGE_UNKNOWN] = {C_DEF, C_DEF, U},
	[ROLE_BADGE_PENDING] = {C_DEF, C_DEF, D},
	[ROLE_SELECTED] = {C_DEF, C_DEF, R},
	[ROLE_DIM] = {C_DEF, C_DEF, D},
	[ROLE_BORDER] = {C_DEF, C_DEF, 0},
	[ROLE_FOOTER] = {C_DEF, C_DEF, R},
	[ROLE_FOOTER_KEY] = {C_DEF, C_DEF, R | B},
	[ROLE_FILTER] = {C_DEF, C_DEF, B | U},
	[ROLE_MESSAGE] = {C_DEF, C_DEF, B},
	[ROLE_SPARKLINE] = {C_DEF, C_DEF, 0},
	[ROLE_PLOT_AXIS] = {C_DEF, C_DEF, D},
	[ROLE_PLOT_LINE] = {C_DEF, C_DEF, B},
};

#undef B
#undef D
#undef U
#undef R

static void set_name(theme *t, const char *name)
{
	snprintf(t->name, sizeof t->name, "%s", name);
}

void theme_builtin_default(theme *out)
{
	set_name(out, "default");
	memcpy(out->role, default_styles, sizeof out->role);
}

void theme_builtin_mono(theme *out)
{
	set_name(out, "mono");
	memcpy(out->role, mono_styles, sizeof out->role);
}

static const struct {
	const char *name;
	void (*fill)(theme *);
} builtins[] = {
	{"default", theme_builtin_default},
	{"mono", theme_builtin_mono},
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

/* -------------------------------------------------------------- parsing */

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
	{"bold", THEME_ATTR_BOLD}, {"dim", THEME_ATTR_DIM}, {"underline", THEME_ATTR_UNDERLINE},
	{"reverse", THEME_ATTR_REVERSE}, {"standout", THEME_ATTR_STANDOUT},
	{"blink", THEME_ATTR_BLINK}, {"italic", THEME_ATTR_ITALIC},
};

/* A role's colour: a name, "#rrggbb" or a palette index. */
static int color_value(json_t *v, theme_color *out, char *why, size_t why_len)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0 || i > 255) {
			snprintf(why, why_len, "palette index %lld is not 0..255", (long long)i);
			return -1;
		}
		*out = (theme_color)i;
		return 0;
	}
	if (!json_is_string(v)) {
		snprintf(why, why_len, "expected a colour name, \"#rrggbb\" or 0..255");
		return -1;
	}
	if (theme_parse_color(json_string_value(v), out) != 0) {
		/* The value is the file author's text: show a bounded, printable
		 * slice of it. */
		char shown[40];
		size_t n = 0;
		for (const char *p = json_string_value(v); *p && n + 1 < sizeof shown; p++) {
			shown[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
		}
		shown[n] = '\0';
		snprintf(why, why_len, "unknown colour \"%s\" (a name such as red or bright_blue, "
			 "\"#rrggbb\", 0..255 or \"default\")", shown);
		return -1;
	}
	return 0;
}

static int style_value(json_t *obj, theme_style *st, char *why, size_t why_len)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj)) {
		snprintf(why, why_len, "expected an object {\"fg\": ..., \"bg\": ..., \"attrs\": [...]}");
		return -1;
	}
	json_object_foreach(obj, key, v) {
		if (strcmp(key, "fg") == 0) {
			if (color_value(v, &st->fg, why, why_len) != 0) {
				return -1;
			}
		} else if (strcmp(key, "bg") == 0) {
			if (color_value(v, &st->bg, why, why_len) != 0) {
				return -1;
			}
		} else if (strcmp(key, "attrs") == 0) {
			size_t i;
			json_t *a;
			if (!json_is_array(v)) {
				snprintf(why, why_len, "attrs: expected an array of names");
				return -1;
			}
			st->attrs = 0;
			json_array_foreach(v, i, a) {
				size_t k;
				for (k = 0; k < sizeof attr_names / sizeof attr_names[0]; k++) {
					if (json_is_string(a) && strcmp(json_string_value(a), attr_names[k].name) == 0) {
						break;
					}
				}
				if (k == sizeof attr_names / sizeof attr_names[0]) {
					snprintf(why, why_len, "attrs[%zu]: expected one of bold, dim, underline, "
						 "reverse, standout, blink, italic", i);
					return -1;
				}
				st->attrs |= attr_names[k].bit;
			}
		} else {
			snprintf(why, why_len, "unknown key (expected fg, bg or attrs)");
			return -1;
		}
	}
	return 0;
}

/* Keys come from the file: print them bounded and printable. */
static void shown_key(const char *key, char *out, size_t len)
{
	size_t n = 0;
	for (; *key && n + 1 < len; key++) {
		out[n++] = (*key >= 0x20 && *key < 0x7f) ? *key : '?';
	}
	out[n] = '\0';
}

int theme_parse(const char *text, size_t len, const char *source, const char *name, theme *out,
		char *err, size_t err_len)
{
	json_error_t jerr;
	json_t *root, *v;
	const char *key;
	char why[192], shown[48];
	theme_style base = {THEME_COLOR_DEFAULT, THEME_COLOR_DEFAULT, 0};

	theme_builtin_default(out);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		/* jansson quotes the offending bytes of the file, raw */
		char near[4 * sizeof jerr.text];
		sanitize_show(jerr.text, strlen(jerr.text), near, sizeof near);
		snprintf(err, err_len, "%s:%d:%d: %s", source, jerr.line, jerr.column, near);
		return -1;
	}
	if (!json_is_object(root)) {
		snprintf(err, err_len, "%s:1:1: expected an object mapping roles to styles", source);
		json_decref(root);
		return -1;
	}

	/* "default" first: the other roles inherit its colours. */
	v = json_object_get(root, "default");
	if (v && style_value(v, &base, why, sizeof why) != 0) {
		snprintf(err, err_len, "%s: role \"default\": %s", source, why);
		json_decref(root);
		return -1;
	}
	theme t;
	memset(&t, 0, sizeof t);
	set_name(&t, name);
	for (int r = 0; r < ROLE_COUNT; r++) {
		t.role[r].fg = base.fg;
		t.role[r].bg = base.bg;
		t.role[r].attrs = r == ROLE_DEFAULT ? base.attrs : mono_styles[r].attrs;
	}

	json_object_foreach(root, key, v) {
		if (strcmp(key, "description") == 0) {
			if (!json_is_string(v)) {
				snprintf(err, err_len, "%s: \"description\" must be a string", source);
				json_decref(root);
				return -1;
			}
			continue;
		}
		int r = theme_role_from_name(key);
		if (r < 0) {
			shown_key(key, shown, sizeof shown);
			snprintf(err, err_len, "%s: \"%s\" is not a role (roles: default, header, title, "
				 "column_header, status_*, badge_*, selected, dim, border, footer, footer_key, "
				 "filter, message, sparkline, plot_axis, plot_line)", source, shown);
			json_decref(root);
			return -1;
		}
		if (r == ROLE_DEFAULT) {
			continue;
		}
		theme_style st = {base.fg, base.bg, 0};
		if (style_value(v, &st, why, sizeof why) != 0) {
			snprintf(err, err_len, "%s: role \"%s\": %s", source, key, why);
			json_decref(root);
			return -1;
		}
		t.role[r] = st;
	}
	json_decref(root);
	*out = t;
	return 0;
}

/* ---------------------------------------------------------------- files */

static bool valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= THEME_NAME_LEN - sizeof ".json" || name[0] == '.') {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.')) {
			return false;
		}
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The base name without ".json": the theme's name when loaded from a file. */
static void name_from_path(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (ends_with(base, ".json")) {
		n -= 5;
	}
	if (n >= len) {
		n = len - 1;
	}
	memcpy(out, base, n);
	out[n] = '\0';
}

/* 0 loaded, -1 error (in err), 1 no such file (only when missing_ok). */
static int load_file(const char *path, bool missing_ok, theme *out, char *err, size_t err_len)
{
	FILE *f = fopen(path, "rb");
	char name[THEME_NAME_LEN];
	char *buf;
	size_t len;

	if (!f) {
		if (missing_ok && errno == ENOENT) {
			return 1;
		}
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(THEME_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, err_len, "%s: out of memory", path);
		return -1;
	}
	len = fread(buf, 1, THEME_FILE_MAX + 1, f);
	if (ferror(f)) {
		snprintf(err, err_len, "%s: read error", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	if (len > THEME_FILE_MAX) {
		snprintf(err, err_len, "%s: larger than %d bytes, not a theme", path, THEME_FILE_MAX);
		free(buf);
		return -1;
	}
	name_from_path(path, name, sizeof name);
	int rc = theme_parse(buf, len, path, name, out, err, err_len);
	free(buf);
	return rc;
}

/* The folders themes are looked up in, in order. */
static size_t theme_dirs(const char *dirs[2])
{
	size_t n = 0;
	const char *env = getenv("SYNCTOP_THEMES_DIR");
	if (env && *env) {
		dirs[n++] = env;
	}
	dirs[n++] = SYNCTOP_DATADIR "/themes";
	return n;
}

int theme_load(const char *name_or_file, theme *out, char *err, size_t err_len)
{
	const char *dirs[2];
	size_t n_dirs;
	char path[4096];

	theme_builtin_default(out);
	if (strchr(name_or_file, '/') || ends_with(name_or_file, ".json")) {
		return load_file(name_or_file, false, out, err, err_len) == 0 ? 0 : -1;
	}
	if (!valid_name(name_or_file)) {
		snprintf(err, err_len, "theme name must be letters, digits, '-', '_' or '.', "
			 "or a path to a .json file");
		return -1;
	}
	n_dirs = theme_dirs(dirs);
	for (size_t i = 0; i < n_dirs; i++) {
		if ((size_t)snprintf(path, sizeof path, "%s/%s.json", dirs[i], name_or_file) >= sizeof path) {
			continue;
		}
		int rc = load_file(path, true, out, err, err_len);
		if (rc <= 0) {
			return rc;
		}
	}
	for (size_t i = 0; i < N_BUILTINS; i++) {
		if (strcmp(builtins[i].name, name_or_file) == 0) {
			builtins[i].fill(out);
			return 0;
		}
	}
	snprintf(err, err_len, "theme \"%s\" not found in %s%s%s (built in: default, mono)", name_or_file,
		 dirs[0], n_dirs > 1 ? " or " : "", n_dirs > 1 ? dirs[1] : "");
	return -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static size_t add_name(char (*names)[THEME_NAME_LEN], size_t n, size_t max, const char *name)
{
	if (n < max) {
		snprintf(names[n], THEME_NAME_LEN, "%s", name);
		n++;
	}
	return n;
}

size_t theme_list(char (*names)[THEME_NAME_LEN], size_t max)
{
	const char *dirs[2];
	size_t n_dirs = theme_dirs(dirs), n = 0;

	for (size_t i = 0; i < N_BUILTINS; i++) {
		n = add_name(names, n, max, builtins[i].name);
	}
	for (size_t i = 0; i < n_dirs; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		if (!d) {
			continue;
		}
		while ((e = readdir(d)) != NULL) {
			char name[THEME_NAME_LEN];
			if (!ends_with(e->d_name, ".json") || strlen(e->d_name) >= sizeof name) {
				continue;
			}
			name_from_path(e->d_name, name, sizeof name);
			if (valid_name(name)) {
				n = add_name(names, n, max, name);
			}
		}
		closedir(d);
	}
	if (n == 0) {
		return 0;
	}
	qsort(names, n, sizeof names[0], cmp_name);
	size_t out = 1;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(names[i], names[out - 1]) != 0) {
			memmove(names[out++], names[i], THEME_NAME_LEN);
		}
	}
	return out;
}
