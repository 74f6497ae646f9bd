/* theme.h - colour themes: what each screen role looks like.
 *
 * Drawing code names roles (header, status_crit, selected, ...), never
 * colours.  A theme maps every role to a foreground, a background and
 * attributes; it is read from a JSON file
 *
 *     { "description": "...",
 *       "header":      {"fg": "bright_white", "bg": "blue", "attrs": ["bold"]},
 *       "status_crit": {"fg": "#d70000"},
 *       ... }
 *
 * Colours are "default" (the terminal's own), one of the 16 ANSI names
 * ("black" .. "white", "bright_black" .. "bright_white", "gray" = bright
 * black), a palette index 0..255 (a JSON integer), or "#rrggbb".  A role the
 * file leaves out gets the file's "default" colours and the attributes the
 * mono theme gives it, so it stays distinguishable.  A role that gives only
 * fg or bg takes the other from the file's "default" role.
 *
 * Nothing here touches the terminal: theme_fit_color() maps a colour onto
 * what a terminal offers (256, 16, 8 or no colours) and the TUI turns the
 * result into curses colour pairs. */
#ifndef SYNCTOP_THEME_H
#define SYNCTOP_THEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(enum suffix, name in the JSON file) */
#define THEME_ROLES(X) \
	X(DEFAULT, "default") \
	X(HEADER, "header") \
	X(TITLE, "title") \
	X(COLUMN_HEADER, "column_header") \
	X(STATUS_OK, "status_ok") \
	X(STATUS_WARN, "status_warn") \
	X(STATUS_CRIT, "status_crit") \
	X(STATUS_UNKNOWN, "status_unknown") \
	X(BADGE_OK, "badge_ok") \
	X(BADGE_WARN, "badge_warn") \
	X(BADGE_CRIT, "badge_crit") \
	X(BADGE_UNKNOWN, "badge_unknown") \
	X(BADGE_PENDING, "badge_pending") \
	X(SELECTED, "selected") \
	X(DIM, "dim") \
	X(BORDER, "border") \
	X(FOOTER, "footer") \
	X(FOOTER_KEY, "footer_key") \
	X(FILTER, "filter") \
	X(MESSAGE, "message") \
	X(SPARKLINE, "sparkline") \
	X(PLOT_AXIS, "plot_axis") \
	X(PLOT_LINE, "plot_line")

typedef enum {
#define THEME_ROLE_ENUM(id, name) ROLE_##id,
	THEME_ROLES(THEME_ROLE_ENUM)
#undef THEME_ROLE_ENUM
	ROLE_COUNT
} theme_role;

enum {
	THEME_ATTR_BOLD = 1u << 0,
	THEME_ATTR_DIM = 1u << 1,
	THEME_ATTR_UNDERLINE = 1u << 2,
	THEME_ATTR_REVERSE = 1u << 3,
	THEME_ATTR_STANDOUT = 1u << 4,
	THEME_ATTR_BLINK = 1u << 5,
	THEME_ATTR_ITALIC = 1u << 6,
};

/* A colour: THEME_COLOR_DEFAULT, a palette index 0..255, or
 * THEME_COLOR_RGB | 0xrrggbb. */
#define THEME_COLOR_DEFAULT (-1)
#define THEME_COLOR_RGB 0x1000000
typedef int32_t theme_color;

typedef struct {
	theme_color fg, bg;
	unsigned attrs; /* THEME_ATTR_* */
} theme_style;

#define THEME_NAME_LEN 64
#define THEME_ERROR_LEN 512

typedef struct {
	char name[THEME_NAME_LEN];
	theme_style role[ROLE_COUNT];
} theme;

/* "header", "status_crit", ...; NULL for an out-of-range role. */
const char *theme_role_name(theme_role role);
/* -1 when the name is not a role. */
int theme_role_from_name(const char *name);

/* The themes compiled in, so synctop draws even when no file is installed.
 * themes/default.json and themes/mono.json hold the same values. */
void theme_builtin_default(theme *out);
void theme_builtin_mono(theme *out);

/* Parses a colour as written in a theme ("red", "#ff8700", "default"; an
 * index is a JSON integer, see theme_parse()).  0 on success. */
int theme_parse_color(const char *text, theme_color *out);

/* Parses a theme from text[0..len).  `source` names it in messages.  On
 * error returns -1 with "SOURCE:LINE:COLUMN: what" (or "SOURCE: role
 * ROLE: what" for a well-formed file with a bad value) in err, and leaves
 * *out as the built-in default. */
int theme_parse(const char *text, size_t len, const char *source, const char *name, theme *out,
		char *err, size_t err_len);

/* Loads a theme by name or file.  Something with a '/' or ending in ".json"
 * is a file; a name is looked up as NAME.json in $SYNCTOP_THEMES_DIR, then
 * in SYNCTOP_DATADIR/themes, then among the built-ins.  On error *out is the
 * built-in default and err says why. */
int theme_load(const char *name_or_file, theme *out, char *err, size_t err_len);

/* Names of the themes theme_load() can find by name, sorted, without
 * duplicates; at most max of them.  Returns how many were written. */
size_t theme_list(char (*names)[THEME_NAME_LEN], size_t max);

/* Maps a colour onto a terminal with `colors` colours: an index to use
 * with curses, or THEME_COLOR_DEFAULT.  With 16 or more colours, #rrggbb
 * and indexes beyond the palette go to the nearest entry; with 8, the bright
 * half maps to its dark twin and *bright is set (fg: draw it bold).  Below
 * 8 colours everything is THEME_COLOR_DEFAULT. */
theme_color theme_fit_color(theme_color color, int colors, bool *bright);

#endif
